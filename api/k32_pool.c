/* api/k32_pool.c — the thread pool (api/README.md "The thread pool"): its workers and waiter
 * thread, the Vista pool's work, timer and wait objects and the legacy QueueUserWorkItem
 * (k32_poolq.c: pools, cleanup groups, callback instances, timer queues, registered waits).
 *
 * Worker threads are ordinary threads of the machine (named PROGRAM.exe#workerN, created through
 * CreateThread's factory, counted and reported like any other); each runs the user-callback
 * dispatcher (ucb.c) with a UCB_WORKER frame, so every callback is the program's own code on a
 * worker.  A worker with nothing to do waits on its own alert with KWAIT_REASON WrQueue (15), as a
 * Windows worker waits on its pool's queue.  Timers and waits are served by a waiter thread
 * (PROGRAM.exe#waiterN), as Windows 7 and Wine serve them: it waits (UserRequest) on the objects
 * of the active waits and its own alert, with the earliest due time as its timeout, and queues the
 * callbacks (or runs those flagged WT_EXECUTEINWAITTHREAD / WT_EXECUTEINTIMERTHREAD itself).
 *
 * The policy (deterministic; rationale in api/README.md):
 *  - a callback queued while a worker of its pool is idle goes to the worker that became idle
 *    last (LIFO, as a Windows queue releases its waiting threads), handed over at once;
 *  - otherwise it is queued (FIFO) and a worker is created if the pool has fewer than its maximum
 *    and fewer workers running or ready (not waiting) than the machine has CPUs;
 *  - a worker that blocks inside a callback while callbacks are queued and no worker is idle lets
 *    the pool create one more by the same rule (so a callback waiting for a queued one cannot
 *    starve the pool);
 *  - a worker that finishes a callback takes the next queued one; an idle worker retires after
 *    5,000 ms (Wine's worker timeout) if the pool has more workers than its minimum, and at once
 *    when its pool is closed. */
#include <stdio.h>
#include <stdlib.h>

#include "api/pool_int.h"

void hcp_pool_free(hcp_pool_state *ps) {
    if (!ps) return;
    for (int i = 0; i < ps->nobjs; i++) free(ps->objs[i]);
    free(ps->objs);
    for (int i = 0; i < ps->npools; i++) {
        free(ps->pools[i]->idle);
        free(ps->pools[i]->q);
        free(ps->pools[i]);
    }
    free(ps->pools);
    free(ps->def.idle);
    free(ps->def.q);
    for (int i = 0; i < ps->nworkers; i++) free(ps->workers[i]);
    free(ps->workers);
    free(ps);
}

bool hcp_pool_grow(void **p, int *cap, int n, size_t sz) {
    if (n < *cap) return true;
    int nc = *cap ? 2 * *cap : 8;
    void *q = realloc(*p, (size_t)nc * sz);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

hcp_pool_state *hcp_pool_state_of(hcp_ctx *c) {
    hcp_xproc *x = hcp_xproc_of(c);
    if (!x) return NULL;
    if (!x->pool && (x->pool = calloc(1, sizeof *x->pool))) x->pool->def.max = POOL_DEFAULT_MAX;
    return x->pool;
}

/* ---- objects ---- */

tpobj *hcp_pool_obj_new(hcp_ctx *c, int kind) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    if (!ps || !hcp_pool_grow((void **)&ps->objs, &ps->capobjs, ps->nobjs, sizeof *ps->objs)) return NULL;
    tpobj *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    if (sim_heap_alloc(c->m, 16, &o->addr) != SIM_OK) {
        free(o);
        return NULL;
    }
    o->kind = kind;
    o->pool = &ps->def;
    o->wdue = SIM_INFINITE;
    ps->objs[ps->nobjs++] = o;
    return o;
}

tpobj *hcp_pool_obj_find(hcp_ctx *c, uint64_t addr, int kind) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    for (int i = 0; ps && addr && i < ps->nobjs; i++)
        if (ps->objs[i]->addr == addr && (!kind || ps->objs[i]->kind == kind)) return ps->objs[i];
    return NULL;
}

void hcp_pool_obj_release(hcp_ctx *c, tpobj *o) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    for (int i = 0; ps && i < ps->nobjs; i++)
        if (ps->objs[i] == o) {
            memmove(ps->objs + i, ps->objs + i + 1, (size_t)(ps->nobjs - i - 1) * sizeof *ps->objs);
            ps->nobjs--;
            break;
        }
    sim_heap_free(c->m, o->addr, 16);
    free(o);
}

/* Nothing of o is queued or running: its waiters go on, a closed one is freed. */
void hcp_pool_obj_idle_check(hcp_ctx *c, tpobj *o) {
    if (o->pending || o->running) return;
    if (hcp_parked_count(c, PQ_POOLWAIT, o->addr)) {
        sim_thread *t;
        while ((t = hcp_parked_first(c, PQ_POOLWAIT, o->addr, NULL))) hcp_unpark(c, t, true);
    }
    if (o->group) {
        sim_thread *t;
        while ((t = hcp_parked_first(c, PQ_POOLWAIT, o->group->addr, NULL))) hcp_unpark(c, t, true);
    }
    if (o->closed && !o->armed && !o->waiting) {
        if (o->completion_event) hcp_SetEvent(c->os, o->completion_event);
        hcp_pool_obj_release(c, o);
    }
}

/* The pool of a TP_CALLBACK_ENVIRON (NULL: the default pool), and its cleanup group. */
static tpool *env_pool(hcp_ctx *c, uint64_t env, tpobj **group) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    *group = NULL;
    if (!ps) return NULL;
    if (!env) return &ps->def;
    uint64_t pool = 0, grp = 0;
    if (!hcp_rdp(c, env + c->w, &pool) || !hcp_rdp(c, env + 2u * c->w, &grp)) return NULL;
    *group = grp ? hcp_pool_obj_find(c, grp, TP_GROUP) : NULL;
    tpobj *po = pool ? hcp_pool_obj_find(c, pool, TP_POOL) : NULL;
    for (int i = 0; po && i < ps->npools; i++)
        if (ps->pools[i]->self == po) return ps->pools[i];
    return &ps->def;
}

/* ---- workers ---- */

hcp_worker *hcp_pool_worker_new(hcp_ctx *c, tpool *pool) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_process *p = c->p;
    if (!ps || !x || !p->spawn ||
        !hcp_pool_grow((void **)&ps->workers, &ps->capworkers, ps->nworkers, sizeof *ps->workers))
        return NULL;
    hcp_worker *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    if (sim_heap_alloc(c->m, 16, &w->instance) != SIM_OK) {
        free(w);
        return NULL;
    }
    /* its stack takes HCP_STACK_RESERVE of the memory budget, as CreateThread's: past the budget
     * no worker starts and the callbacks wait for one that exists */
    if (!hcp_process_charge(p, HCP_STACK_RESERVE)) {
        free(w);
        return NULL;
    }
    char name[96], why[256] = "";
    if (pool)
        snprintf(name, sizeof name, "%s#worker%d", p->name, ++x->nworkers);
    else
        snprintf(name, sizeof name, "%s#waiter%d", p->name, ++x->nwaiters);
    p->spawner = c->t; /* it may have left its CPU (a worker that blocked) */
    sim_thread *nt = p->spawn(p->spawn_ud, name, p->ucb_entry, 0, why, sizeof why);
    p->spawner = NULL;
    if (!nt) {
        hcp_process_uncharge(p, HCP_STACK_RESERVE);
        free(w);
        hcp_stop(c, "%s", why);
        return NULL;
    }
    if (hcp_process_add_thread(p, nt) != 0) { /* no guest memory for its TEB: it never runs */
        hcp_process_uncharge(p, HCP_STACK_RESERVE);
        sim_thread_exit(nt, 0);
        free(w);
        return NULL;
    }
    hcp_process_thread(p, nt)->charged = HCP_STACK_RESERVE;
    int base = hcp_class_priority(c, 0);
    if (base != sim_thread_priority(nt)) sim_thread_set_priority(nt, base);
    w->t = nt;
    w->pool = pool;
    hcp_xthread *xt = hcp_xthread_of(c->os, nt);
    if (!xt || hcp_ucb_push_for(c->os, nt, pool ? UCB_WORKER : UCB_WAITER, 0, NULL, 0) != 0) {
        free(w);
        hcp_stop(c, "out of host memory");
        return NULL;
    }
    xt->worker = w;
    ps->workers[ps->nworkers++] = w;
    if (pool) pool->nworkers++;
    return w;
}

/* Workers of the pool that run or are ready (not idle, not blocked in a wait). */
static int active(hcp_ctx *c, tpool *pool) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    int n = 0;
    for (int i = 0; ps && i < ps->nworkers; i++) {
        hcp_worker *w = ps->workers[i];
        if (w->pool != pool || w->idle || w->retire) continue;
        sim_thread_state s = sim_thread_state_of(w->t);
        n += s == SIM_TS_RUNNING || s == SIM_TS_READY || s == SIM_TS_INITIALIZED;
    }
    return n;
}

static void maybe_new_worker(hcp_ctx *c, tpool *pool) {
    if (pool->nidle == 0 && pool->nq > 0 && pool->nworkers < pool->max && active(c, pool) < sim_cpu_count(c->m))
        hcp_pool_worker_new(c, pool);
}

/* Queues a callback: handed to the last idle worker, else queued (and maybe a new worker). */
static bool submit(hcp_ctx *c, tpool *pool, item it) {
    if (it.obj) it.obj->pending++;
    if (pool->nidle > 0) {
        hcp_worker *w = pool->idle[--pool->nidle];
        w->idle = false;
        w->has_item = true;
        w->cur = it;
        hcp_xthread *xt = hcp_xthread_of(c->os, w->t);
        if (xt && xt->alert) sim_event_set(xt->alert);
        sim_sched_preempt_pending(c->t);
        return true;
    }
    if (!hcp_pool_grow((void **)&pool->q, &pool->capq, pool->nq, sizeof *pool->q)) return false;
    pool->q[pool->nq++] = it;
    maybe_new_worker(c, pool);
    return true;
}

void hcp_pool_on_block(hcp_ctx *c) {
    hcp_xthread *xt = c->p ? hcp_xthread_of(c->os, c->t) : NULL;
    hcp_worker *w = xt ? xt->worker : NULL;
    if (w && w->pool && !w->idle && !w->retire && w->has_item) maybe_new_worker(c, w->pool);
}

/* The callback's function and arguments. */
static void callback_of(const hcp_worker *w, const item *it, uint64_t *fn, uint64_t a[4]) {
    tpobj *o = it->obj;
    switch (it->kind) {
    case TP_SIMPLE: *fn = it->fn, a[0] = w->instance, a[1] = it->ctx; break;
    case TP_LEGACY: *fn = it->fn, a[0] = it->ctx; break;
    case TP_WORK:
    case TP_TIMER: *fn = o->fn, a[0] = w->instance, a[1] = o->ctx, a[2] = o->addr; break;
    case TP_WAIT: *fn = o->fn, a[0] = w->instance, a[1] = o->ctx, a[2] = o->addr, a[3] = it->result; break;
    case TP_TQTIMER:
    case TP_RWAIT: *fn = o->fn, a[0] = o->ctx, a[1] = it->result; break;
    default: *fn = 0; break;
    }
}

/* A callback returned: its instance's actions, then its object's bookkeeping. */
static void finished(hcp_ctx *c, hcp_worker *w) {
    if (w->on_event) hcp_SetEvent(c->os, w->on_event);
    if (w->on_sem) hcp_ReleaseSemaphore(c->os, w->on_sem, w->on_sem_count, 0);
    if (w->on_mutex) hcp_ReleaseMutex(c->os, w->on_mutex);
    if (w->on_cs) {
        sim_object *mx = hcp_cs_mutex(c, w->on_cs);
        if (mx && sim_mutex_release(c->t, mx) == 0) hcp_cs_fields(c, w->on_cs);
    }
    w->on_event = w->on_sem = w->on_mutex = w->on_cs = 0;
    tpobj *o = w->cur.obj;
    w->has_item = false;
    if (o && !w->disassociated) {
        o->running--;
        hcp_pool_obj_idle_check(c, o);
    }
    w->disassociated = false;
    sim_sched_preempt_pending(c->t);
}

static bool start_item(hcp_ctx *c, hcp_worker *w, hcp_ucb_frame *f, uint64_t *fn, uint64_t a[4]) {
    (void)c;
    tpobj *o = w->cur.obj;
    if (o) {
        o->pending--;
        o->running++;
    }
    callback_of(w, &w->cur, fn, a);
    f->stage = 1;
    return true;
}

static uint64_t idle_cycles(hcp_ctx *c) { return sim_ms_to_cycles(c->m, POOL_IDLE_MS); }

static bool waiter_next(hcp_ctx *c, hcp_worker *w, hcp_ucb_frame *f, uint64_t *fn, uint64_t a[4]);

bool hcp_pool_next(hcp_ctx *c, hcp_ucb_frame *f, uint64_t prev, uint64_t *fn, uint64_t a[4]) {
    (void)prev;
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    hcp_worker *w = xt ? xt->worker : NULL;
    if (!w) {
        hcp_stop(c, "a pool thread without its worker record");
        return false;
    }
    if (!w->pool) return waiter_next(c, w, f, fn, a);
    tpool *pool = w->pool;
    if (f->stage == 1) { /* a callback returned */
        finished(c, w);
        f->stage = 0;
    }
    if (f->stage == 2) { /* it waited for work */
        uint32_t st = hcp_wait_end(c);
        f->stage = 0;
        if (!w->has_item && w->idle) { /* timed out (or woken for nothing): leave the idle stack */
            for (int i = 0; i < pool->nidle; i++)
                if (pool->idle[i] == w) {
                    memmove(pool->idle + i, pool->idle + i + 1, (size_t)(pool->nidle - i - 1) * sizeof *pool->idle);
                    pool->nidle--;
                    break;
                }
            w->idle = false;
            if (st == WAIT_TIMEOUT && pool->nworkers > pool->min) w->retire = true;
        }
    }
    if (w->has_item) return start_item(c, w, f, fn, a);
    if (pool->nq > 0) {
        w->cur = pool->q[0];
        memmove(pool->q, pool->q + 1, (size_t)(pool->nq - 1) * sizeof *pool->q);
        pool->nq--;
        w->has_item = true;
        return start_item(c, w, f, fn, a);
    }
    if (w->retire || pool->closed) { /* the worker's thread ends (its start routine returns 0) */
        w->retire = true;
        pool->nworkers--;
        return false;
    }
    /* idle: wait for work (WrQueue) */
    if (!hcp_pool_grow((void **)&pool->idle, &pool->capidle, pool->nidle, sizeof *pool->idle)) {
        hcp_stop(c, "out of host memory");
        return false;
    }
    if (!xt->alert && !(xt->alert = sim_event_new(c->m, false, false))) {
        hcp_stop(c, "out of host memory");
        return false;
    }
    w->idle = true;
    pool->idle[pool->nidle++] = w;
    hcp_charge_entry(c);
    f->stage = 2;
    uint32_t r = hcp_wait_alertable(c, &xt->alert, 1, false, idle_cycles(c), SIM_WR_QUEUE, false, NULL);
    if (r == HCP_PENDING) return false; /* c->pending: asked again when it runs */
    return hcp_pool_next(c, f, 0, fn, a);
}

/* ---- the waiter thread: timers and waits ---- */

static hcp_worker *waiter(hcp_ctx *c) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    if (!ps) return NULL;
    if (!ps->waiter) ps->waiter = hcp_pool_worker_new(c, NULL);
    return ps->waiter;
}

/* Tells the waiter its timers or waits changed (its alert ends its wait; it looks again). */
void hcp_pool_waiter_poke(hcp_ctx *c) {
    hcp_worker *w = waiter(c);
    hcp_xthread *xt = w ? hcp_xthread_of(c->os, w->t) : NULL;
    if (!xt) return;
    if (!xt->alert) xt->alert = sim_event_new(c->m, false, false);
    if (xt->alert) sim_event_set(xt->alert);
}

/* A timer or wait fired: its callback is queued to its pool, or returned to run on the waiter
 * thread itself (WT_EXECUTEINTIMERTHREAD, WT_EXECUTEINWAITTHREAD): true then. */
static bool fire(hcp_ctx *c, hcp_worker *w, tpobj *o, uint32_t result) {
    item it = {o, o->kind, 0, 0, result};
    if ((o->kind == TP_TQTIMER && (o->flags & WT_EXECUTEINTIMERTHREAD)) ||
        (o->kind == TP_RWAIT && (o->flags & WT_EXECUTEINWAITTHREAD))) {
        o->pending++;
        w->cur = it;
        w->has_item = true;
        return true;
    }
    submit(c, o->pool, it);
    return false;
}

static bool waiter_next(hcp_ctx *c, hcp_worker *w, hcp_ucb_frame *f, uint64_t *fn, uint64_t a[4]) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    if (!ps || !xt) return false;
    if (f->stage == 1) {
        finished(c, w);
        f->stage = 0;
    }
    if (f->stage == 2) { /* its wait ended: a wait's object, its alert, or a due time */
        uint32_t st = hcp_wait_end(c);
        f->stage = 0;
        uint32_t k = st >= WAIT_ABANDONED_0 && st < WAIT_ABANDONED_0 + 64 ? st - WAIT_ABANDONED_0 : st;
        if (k >= 1 && k <= (uint32_t)w->nwaits) {
            tpobj *o = w->waits[k - 1];
            if (o->waiting) { /* its object was taken: the callback, WAIT_OBJECT_0 / FALSE */
                bool once = o->kind == TP_WAIT || (o->flags & WT_EXECUTEONLYONCE);
                if (once)
                    o->waiting = false;
                else
                    o->wdue = o->ms == INFINITE ? SIM_INFINITE : sim_clock(c->m) + sim_ms_to_cycles(c->m, o->ms);
                if (fire(c, w, o, o->kind == TP_WAIT ? WAIT_OBJECT_0 : 0)) return start_item(c, w, f, fn, a);
                if (!o->waiting) hcp_pool_obj_idle_check(c, o);
            }
        }
    }
    if (!xt->alert && !(xt->alert = sim_event_new(c->m, false, false))) {
        hcp_stop(c, "out of host memory");
        return false;
    }
    /* due timers and wait timeouts, in object order */
    uint64_t now = sim_clock(c->m), next = SIM_INFINITE;
    for (int i = 0; i < ps->nobjs; i++) {
        tpobj *o = ps->objs[i];
        if (o->armed && o->due <= now) {
            if (o->period) {
                o->due = now + o->period;
            } else {
                o->armed = false;
            }
            bool run = fire(c, w, o, o->kind == TP_TQTIMER ? 1 : 0);
            if (!o->armed) hcp_pool_obj_idle_check(c, o);
            if (run) return start_item(c, w, f, fn, a);
            now = sim_clock(c->m);
            i = -1; /* the list may have changed */
            continue;
        }
        if (o->waiting && o->wdue <= now) {
            bool once = o->kind == TP_WAIT || (o->flags & WT_EXECUTEONLYONCE);
            if (once)
                o->waiting = false;
            else
                o->wdue = o->ms == INFINITE ? SIM_INFINITE : now + sim_ms_to_cycles(c->m, o->ms);
            bool run = fire(c, w, o, o->kind == TP_WAIT ? WAIT_TIMEOUT : 1);
            if (!o->waiting) hcp_pool_obj_idle_check(c, o);
            if (run) return start_item(c, w, f, fn, a);
            now = sim_clock(c->m);
            i = -1;
            continue;
        }
    }
    sim_object *objs[MAX_WAITS + 1];
    objs[0] = xt->alert;
    w->nwaits = 0;
    for (int i = 0; i < ps->nobjs; i++) {
        tpobj *o = ps->objs[i];
        if (o->armed && o->due < next) next = o->due;
        if (!o->waiting) continue;
        if (o->wdue < next) next = o->wdue;
        if (w->nwaits == MAX_WAITS) {
            hcp_stop(c, "more than %d thread-pool waits at once (one waiter thread serves them)", MAX_WAITS);
            return false;
        }
        w->waits[w->nwaits] = o;
        objs[++w->nwaits] = o->wobj;
    }
    hcp_charge_entry(c);
    f->stage = 2;
    uint64_t timeout = next == SIM_INFINITE ? SIM_INFINITE : next > now ? next - now : 0;
    uint32_t r = hcp_wait_alertable(c, objs, w->nwaits + 1, false, timeout, SIM_WR_USER_REQUEST, false, NULL);
    if (r == HCP_PENDING) return false;
    return waiter_next(c, w, f, fn, a);
}

/* ---- the Vista pool's objects ---- */

tpobj *hcp_pool_create(hcp_ctx *c, int kind, uint64_t fn, uint64_t ctx, uint64_t env) {
    tpobj *group;
    tpool *pool = env_pool(c, env, &group);
    if (!pool) return NULL;
    tpobj *o = hcp_pool_obj_new(c, kind);
    if (!o) {
        hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    o->fn = fn;
    o->ctx = ctx;
    o->pool = pool;
    o->group = group;
    return o;
}

uint64_t hcp_k32_CreateThreadpoolWork(hcp_ctx *c, const hcp_k32_CreateThreadpoolWork_args *a) {
    tpobj *o = hcp_pool_create(c, TP_WORK, a->pfnwk, a->pv, a->pcbe);
    return o ? o->addr : 0;
}

tpobj *hcp_pool_arg_obj(hcp_ctx *c, uint64_t addr, int kind) {
    tpobj *o = hcp_pool_obj_find(c, addr, kind);
    if (!o || o->closed)
        hcp_stop(c,
                 "0x%llX is not a live thread-pool object of this kind (an access violation on "
                 "Windows)",
                 (unsigned long long)addr);
    return o && !o->closed ? o : NULL;
}

uint64_t hcp_k32_SubmitThreadpoolWork(hcp_ctx *c, const hcp_k32_SubmitThreadpoolWork_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pwk, TP_WORK);
    if (o && !submit(c, o->pool, (item){o, TP_WORK, 0, 0, 0})) hcp_stop(c, "out of host memory");
    return 0;
}

uint64_t hcp_k32_TrySubmitThreadpoolCallback(hcp_ctx *c, const hcp_k32_TrySubmitThreadpoolCallback_args *a) {
    tpobj *group;
    tpool *pool = env_pool(c, a->pcbe, &group);
    if (!pool) return 0;
    if (!submit(c, pool, (item){NULL, TP_SIMPLE, a->pfns, a->pv, 0})) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    return 1;
}

uint64_t hcp_k32_QueueUserWorkItem(hcp_ctx *c, const hcp_k32_QueueUserWorkItem_args *a) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    if (!ps) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if (!submit(c, &ps->def, (item){NULL, TP_LEGACY, a->Function, a->Context, 0}))
        return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    return 1;
}

/* Removes o's queued callbacks that have not started. */
void hcp_pool_cancel_pending(hcp_ctx *c, tpobj *o) {
    tpool *pool = o->pool;
    int k = 0;
    for (int i = 0; i < pool->nq; i++)
        if (pool->q[i].obj != o) pool->q[k++] = pool->q[i];
    pool->nq = k;
    o->pending = 0;
    (void)c;
}

static uint64_t callbacks_resumed(hcp_ctx *c);

/* Waits until nothing of o is queued or running (cancel: its queued callbacks are dropped). */
static uint64_t wait_callbacks(hcp_ctx *c, tpobj *o, bool cancel) {
    if (!o) return 0;
    if (cancel) hcp_pool_cancel_pending(c, o);
    if (!o->pending && !o->running) {
        hcp_pool_obj_idle_check(c, o);
        return 0;
    }
    uint32_t r = hcp_park(c, PQ_POOLWAIT, o->addr, 0, SIM_INFINITE, hcp_park_reason(c->os), false, callbacks_resumed);
    if (r == HCP_PENDING || c->failed) return 0;
    return callbacks_resumed(c);
}

static uint64_t callbacks_resumed(hcp_ctx *c) {
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    uint32_t st;
    hcp_park_end(c, &st);
    tpobj *o = xt ? hcp_pool_obj_find(c, xt->park_key, 0) : NULL;
    return o ? wait_callbacks(c, o, false) : 0;
}

uint64_t hcp_k32_WaitForThreadpoolWorkCallbacks(hcp_ctx *c, const hcp_k32_WaitForThreadpoolWorkCallbacks_args *a) {
    return wait_callbacks(c, hcp_pool_arg_obj(c, a->pwk, TP_WORK), a->fCancelPendingCallbacks != 0);
}

uint64_t hcp_k32_CloseThreadpoolWork(hcp_ctx *c, const hcp_k32_CloseThreadpoolWork_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pwk, TP_WORK);
    if (!o) return 0;
    o->closed = true;
    hcp_pool_obj_idle_check(c, o);
    return 0;
}

/* ---- timers ---- */

uint64_t hcp_k32_CreateThreadpoolTimer(hcp_ctx *c, const hcp_k32_CreateThreadpoolTimer_args *a) {
    tpobj *o = hcp_pool_create(c, TP_TIMER, a->pfnti, a->pv, a->pcbe);
    return o ? o->addr : 0;
}

/* A FILETIME due time: negative relative (100 ns), positive absolute; 0: now. */
static bool filetime_due(hcp_ctx *c, uint64_t at, uint64_t *due) {
    uint8_t b[8];
    if (!hcp_rd(c, at, b, 8)) return false;
    int64_t v = (int64_t)hcp_get64(b);
    *due = v == 0 ? sim_clock(c->m) : hcp_due_cycles(c, v);
    return true;
}

uint64_t hcp_k32_SetThreadpoolTimer(hcp_ctx *c, const hcp_k32_SetThreadpoolTimer_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pti, TP_TIMER);
    if (!o) return 0;
    if (!a->pftDueTime) { /* NULL: the timer stops; callbacks already queued still run */
        o->armed = o->set = false;
        return 0;
    }
    if (!filetime_due(c, a->pftDueTime, &o->due)) return 0;
    o->period = sim_ms_to_cycles(c->m, a->msPeriod);
    o->armed = o->set = true;
    hcp_pool_waiter_poke(c);
    return 0;
}

/* TRUE from a SetThreadpoolTimer with a due time until one with NULL (after a one-shot timer's
 * expiry too, as Windows' TpIsTimerSet: Wine's tests record it). */
uint64_t hcp_k32_IsThreadpoolTimerSet(hcp_ctx *c, const hcp_k32_IsThreadpoolTimerSet_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pti, TP_TIMER);
    return o && o->set;
}

uint64_t hcp_k32_WaitForThreadpoolTimerCallbacks(hcp_ctx *c, const hcp_k32_WaitForThreadpoolTimerCallbacks_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pti, TP_TIMER);
    if (o && a->fCancelPendingCallbacks) o->armed = o->set = false;
    return wait_callbacks(c, o, a->fCancelPendingCallbacks != 0);
}

uint64_t hcp_k32_CloseThreadpoolTimer(hcp_ctx *c, const hcp_k32_CloseThreadpoolTimer_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pti, TP_TIMER);
    if (!o) return 0;
    o->armed = false;
    o->closed = true;
    hcp_pool_obj_idle_check(c, o);
    return 0;
}

/* ---- waits ---- */

uint64_t hcp_k32_CreateThreadpoolWait(hcp_ctx *c, const hcp_k32_CreateThreadpoolWait_args *a) {
    tpobj *o = hcp_pool_create(c, TP_WAIT, a->pfnwa, a->pv, a->pcbe);
    return o ? o->addr : 0;
}

uint64_t hcp_k32_SetThreadpoolWait(hcp_ctx *c, const hcp_k32_SetThreadpoolWait_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pwa, TP_WAIT);
    if (!o) return 0;
    if (!a->h) { /* NULL: the wait stops */
        o->waiting = false;
        hcp_pool_waiter_poke(c);
        return 0;
    }
    obj_type type;
    sim_object *so;
    if (hcp_ref_object(c->os, a->h, OBJ_NONE, SYNCHRONIZE, &type, &so) != STATUS_SUCCESS)
        return hcp_stop(c, "SetThreadpoolWait: 0x%llX is not a waitable handle", (unsigned long long)a->h);
    o->wobj = so;
    o->wdue = SIM_INFINITE;
    if (a->pftTimeout && !filetime_due(c, a->pftTimeout, &o->wdue)) return 0;
    o->waiting = true;
    hcp_pool_waiter_poke(c);
    return 0;
}

uint64_t hcp_k32_WaitForThreadpoolWaitCallbacks(hcp_ctx *c, const hcp_k32_WaitForThreadpoolWaitCallbacks_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pwa, TP_WAIT);
    if (o && a->fCancelPendingCallbacks) o->waiting = false;
    return wait_callbacks(c, o, a->fCancelPendingCallbacks != 0);
}

uint64_t hcp_k32_CloseThreadpoolWait(hcp_ctx *c, const hcp_k32_CloseThreadpoolWait_args *a) {
    tpobj *o = hcp_pool_arg_obj(c, a->pwa, TP_WAIT);
    if (!o) return 0;
    o->waiting = false;
    o->closed = true;
    hcp_pool_waiter_poke(c);
    hcp_pool_obj_idle_check(c, o);
    return 0;
}
