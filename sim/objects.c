/* sim/objects.c — dispatcher objects (events, mutexes, semaphores, threads),
 * waits with timeouts, and the timer heap.
 *
 * Waits are FIFO per object.  When an object becomes signalled its waiters
 * are tried in order; a waiter whose wait can be satisfied (any: this object;
 * all: every object at once) acquires what it waits for and is readied.
 * Timeouts expire on CPU 0's clock interrupt at or after their due time. */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

static sim_object *obj_new(sim_machine *m, sim_object_type type) {
    sim_object *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->m = m;
    o->type = type;
    o->id = ++m->nobj[type];
    o->heap_pos = -1;
    o->next_all = m->objects;
    m->objects = o;
    return o;
}

void sim_objects_free(sim_machine *m) {
    sim_object *o = m->objects;
    while (o) {
        sim_object *n = o->next_all;
        free(o);
        o = n;
    }
    m->objects = NULL;
    free(m->timers);
    m->timers = NULL;
    free(m->otimers);
    m->otimers = NULL;
    m->notimers = m->capotimers = 0;
}

sim_object *sim_event_new(sim_machine *m, bool manual, bool initial) {
    sim_object *o = obj_new(m, SIM_OBJ_EVENT);
    if (o) {
        o->manual = manual;
        o->signaled = initial;
    }
    return o;
}

static void own(sim_object *mx, sim_thread *t) {
    mx->owner = t;
    mx->recursion = 1;
    mx->next_owned = t->owned;
    t->owned = mx;
}

static void disown(sim_object *mx) {
    sim_thread *t = mx->owner;
    for (sim_object **p = &t->owned; *p; p = &(*p)->next_owned) {
        if (*p == mx) {
            *p = mx->next_owned;
            break;
        }
    }
    mx->owner = NULL;
    mx->recursion = 0;
    mx->next_owned = NULL;
}

sim_object *sim_mutex_new(sim_machine *m, bool initial_owner) {
    sim_object *o = obj_new(m, SIM_OBJ_MUTEX);
    if (o && initial_owner && m->running) own(o, m->running);
    return o;
}

sim_object *sim_semaphore_new(sim_machine *m, int32_t initial, int32_t max) {
    if (max <= 0 || initial < 0 || initial > max) return NULL;
    sim_object *o = obj_new(m, SIM_OBJ_SEMAPHORE);
    if (o) {
        o->count = initial;
        o->max = max;
    }
    return o;
}

sim_object *sim_thread_object(sim_thread *t) {
    if (!t->self_obj) {
        t->self_obj = obj_new(t->m, SIM_OBJ_THREAD);
        if (t->self_obj) t->self_obj->thread = t;
    }
    return t->self_obj;
}

sim_thread *sim_mutex_owner(const sim_object *mx) { return mx->owner; }
uint32_t sim_mutex_recursion(const sim_object *mx) { return mx->recursion; }
int sim_object_waiters(const sim_object *o) {
    int n = 0;
    for (const wait_block *b = o->wb_head; b; b = b->next) n++;
    return n;
}
uint32_t sim_object_id(const sim_object *o) { return o->id; }

/* ---- signal state ----------------------------------------------------------------------- */

static bool signaled_for(const sim_object *o, const sim_thread *t) {
    switch (o->type) {
    case SIM_OBJ_EVENT: return o->signaled;
    case SIM_OBJ_MUTEX: return !o->owner || o->owner == t;
    case SIM_OBJ_SEMAPHORE: return o->count > 0;
    case SIM_OBJ_THREAD: return o->thread->state == SIM_TS_TERMINATED;
    case SIM_OBJ_TIMER: return o->signaled;
    }
    return false;
}

/* Takes what a satisfied wait takes; true when it was an abandoned mutex. */
static bool acquire(sim_object *o, sim_thread *t) {
    switch (o->type) {
    case SIM_OBJ_EVENT:
        if (!o->manual) o->signaled = false;
        return false;
    case SIM_OBJ_MUTEX: {
        bool ab = o->abandoned;
        o->abandoned = false;
        if (o->owner == t)
            o->recursion++;
        else
            own(o, t);
        return ab;
    }
    case SIM_OBJ_SEMAPHORE: o->count--; return false;
    case SIM_OBJ_THREAD: return false;
    case SIM_OBJ_TIMER:
        if (!o->manual) o->signaled = false;
        return false;
    }
    return false;
}

/* Tries to satisfy t's wait on objs; sets t->wait_status on success. */
static bool try_satisfy(sim_thread *t, sim_object *const *objs, int n, bool all) {
    if (all) {
        for (int i = 0; i < n; i++)
            if (!signaled_for(objs[i], t)) return false;
        int abandoned = -1;
        for (int i = 0; i < n; i++)
            if (acquire(objs[i], t) && abandoned < 0) abandoned = i;
        t->wait_status = abandoned >= 0 ? SIM_WAIT_ABANDONED_0 + (uint32_t)abandoned : SIM_WAIT_OBJECT_0;
        return true;
    }
    for (int i = 0; i < n; i++) {
        if (signaled_for(objs[i], t)) {
            bool ab = acquire(objs[i], t);
            t->wait_status = (ab ? SIM_WAIT_ABANDONED_0 : SIM_WAIT_OBJECT_0) + (uint32_t)i;
            return true;
        }
    }
    return false;
}

/* ---- timers (min-heap by due time, then thread id) --------------------------------------------- */

static bool timer_less(const sim_thread *a, const sim_thread *b) {
    return a->timer_due < b->timer_due || (a->timer_due == b->timer_due && a->id < b->id);
}

static void heap_swap(sim_machine *m, int i, int j) {
    sim_thread *t = m->timers[i];
    m->timers[i] = m->timers[j];
    m->timers[j] = t;
    m->timers[i]->timer_pos = i;
    m->timers[j]->timer_pos = j;
}

static void heap_up(sim_machine *m, int i) {
    while (i > 0 && timer_less(m->timers[i], m->timers[(i - 1) / 2])) {
        heap_swap(m, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(sim_machine *m, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, s = i;
        if (l < m->ntimers && timer_less(m->timers[l], m->timers[s])) s = l;
        if (r < m->ntimers && timer_less(m->timers[r], m->timers[s])) s = r;
        if (s == i) return;
        heap_swap(m, i, s);
        i = s;
    }
}

static bool timer_add(sim_thread *t, uint64_t due) {
    sim_machine *m = t->m;
    if (m->ntimers == m->captimers) {
        int nc = m->captimers ? m->captimers * 2 : 64;
        sim_thread **n = realloc(m->timers, (size_t)nc * sizeof *n);
        if (!n) return false;
        m->timers = n;
        m->captimers = nc;
    }
    t->timer_due = due;
    t->timer_pos = m->ntimers;
    m->timers[m->ntimers++] = t;
    heap_up(m, t->timer_pos);
    return true;
}

static void timer_remove(sim_thread *t) {
    sim_machine *m = t->m;
    int i = t->timer_pos;
    if (i < 0) return;
    m->ntimers--;
    if (i != m->ntimers) {
        heap_swap(m, i, m->ntimers);
        heap_down(m, i);
        heap_up(m, i);
    }
    t->timer_pos = -1;
    t->timer_due = UINT64_MAX;
}

/* ---- waiting ------------------------------------------------------------------------------------ */

static void unlink_blocks(sim_thread *t) {
    if (!t->linked) return;
    t->linked = false;
    for (int i = 0; i < t->nwait; i++) {
        wait_block *b = &t->wb[i];
        sim_object *o = b->obj;
        if (b->prev)
            b->prev->next = b->next;
        else
            o->wb_head = b->next;
        if (b->next)
            b->next->prev = b->prev;
        else
            o->wb_tail = b->prev;
        b->prev = b->next = NULL;
    }
}

/* Ends t's wait (satisfied or timed out): unlinks it and makes it Ready. */
static void end_wait(sim_thread *t, int reason) {
    unlink_blocks(t);
    timer_remove(t);
    sim_sched_make_ready(t, reason);
}

void sim_wait_cancel(sim_thread *t) {
    unlink_blocks(t);
    timer_remove(t);
    t->nwait = 0;
    t->suspended = t->suspend_pending = t->susp_wait = false;
}

/* An object may have become signalled: satisfy its waiters in FIFO order, readied by `reason`. */
static void wake_waiters_by(sim_object *o, int reason) {
    wait_block *b = o->wb_head;
    while (b && signaled_for(o, b->t)) {
        wait_block *next = b->next;
        sim_thread *t = b->t;
        sim_object *objs[SIM_MAX_WAIT];
        for (int i = 0; i < t->nwait; i++) objs[i] = t->wb[i].obj;
        if (try_satisfy(t, objs, t->nwait, t->wait_all)) {
            end_wait(t, reason);
            next = o->wb_head; /* the list changed: start again from the (new) head */
        }
        b = next;
    }
}

static void wake_waiters(sim_object *o) { wake_waiters_by(o, SIM_READY_WAKE); }

sim_wait_result sim_wait(sim_thread *t, sim_object *const *objs, int n, bool all, uint64_t timeout, int reason) {
    sim_machine *m = t->m;
    t->wait_status = SIM_WAIT_OBJECT_0;
    if (n > 0 && try_satisfy(t, objs, n, all)) return SIM_WAIT_DONE;
    if (timeout == 0) {
        t->wait_status = SIM_WAIT_TIMEOUT;
        return SIM_WAIT_DONE;
    }
    sim_cpu *c = &m->cpus[t->cpu];
    t->nwait = n;
    t->wait_all = all;
    t->wait_status = SIM_WAIT_TIMEOUT;
    for (int i = 0; i < n; i++) {
        wait_block *b = &t->wb[i];
        *b = (wait_block){t, objs[i], i, objs[i]->wb_tail, NULL};
        if (objs[i]->wb_tail)
            objs[i]->wb_tail->next = b;
        else
            objs[i]->wb_head = b;
        objs[i]->wb_tail = b;
    }
    t->linked = true;
    if (timeout != SIM_INFINITE) {
        uint64_t due = c->time + timeout < c->time ? UINT64_MAX - 1 : c->time + timeout;
        timer_add(t, due);
    }
    t->state = SIM_TS_WAITING;
    t->wait_reason = reason;
    t->wait_mode = 1;
    sim_sched_leave(t);
    return SIM_WAIT_BLOCKED;
}

uint32_t sim_wait_status(const sim_thread *t) { return t->wait_status; }

/* ---- timer objects (min-heap by due time, then the order they were set) ----------------------- */

static bool otimer_less(const sim_object *a, const sim_object *b) {
    return a->due < b->due || (a->due == b->due && a->set_seq < b->set_seq);
}

static void oheap_swap(sim_machine *m, int i, int j) {
    sim_object *o = m->otimers[i];
    m->otimers[i] = m->otimers[j];
    m->otimers[j] = o;
    m->otimers[i]->heap_pos = i;
    m->otimers[j]->heap_pos = j;
}

static void oheap_up(sim_machine *m, int i) {
    while (i > 0 && otimer_less(m->otimers[i], m->otimers[(i - 1) / 2])) {
        oheap_swap(m, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void oheap_down(sim_machine *m, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, s = i;
        if (l < m->notimers && otimer_less(m->otimers[l], m->otimers[s])) s = l;
        if (r < m->notimers && otimer_less(m->otimers[r], m->otimers[s])) s = r;
        if (s == i) return;
        oheap_swap(m, i, s);
        i = s;
    }
}

static void otimer_remove(sim_object *o) {
    sim_machine *m = o->m;
    int i = o->heap_pos;
    if (i < 0) return;
    m->notimers--;
    if (i != m->notimers) {
        oheap_swap(m, i, m->notimers);
        oheap_down(m, i);
        oheap_up(m, i);
    }
    o->heap_pos = -1;
}

static bool otimer_add(sim_object *o) {
    sim_machine *m = o->m;
    if (m->notimers == m->capotimers) {
        int nc = m->capotimers ? m->capotimers * 2 : 16;
        sim_object **n = realloc(m->otimers, (size_t)nc * sizeof *n);
        if (!n) return false;
        m->otimers = n;
        m->capotimers = nc;
    }
    o->set_seq = ++m->timer_seq;
    o->heap_pos = m->notimers;
    m->otimers[m->notimers++] = o;
    oheap_up(m, o->heap_pos);
    return true;
}

sim_object *sim_timer_new(sim_machine *m, bool manual) {
    sim_object *o = obj_new(m, SIM_OBJ_TIMER);
    if (o) o->manual = manual;
    return o;
}

void sim_timer_set(sim_object *o, uint64_t due, uint64_t period) {
    otimer_remove(o);
    o->signaled = false;
    o->due = due;
    o->period = period;
    otimer_add(o);
}

bool sim_timer_cancel(sim_object *o) {
    bool armed = o->heap_pos >= 0;
    otimer_remove(o);
    return armed;
}

bool sim_timer_armed(const sim_object *o) { return o->heap_pos >= 0; }

void sim_set_timer_hook(sim_machine *m, sim_timer_fn fn, void *ud) {
    m->timer_fn = fn;
    m->timer_ud = fn ? ud : NULL;
}

/* Timer objects and wait timeouts due at or before `now`, in due-time order: at an equal due
 * time the timer objects first (in the order they were set), then the waits (by thread id).  A
 * periodic timer comes due again `period` after `now`, so each interrupt expires it once. */
void sim_timer_expire(sim_machine *m, uint64_t now) {
    for (;;) {
        sim_object *o = m->notimers > 0 && m->otimers[0]->due <= now ? m->otimers[0] : NULL;
        sim_thread *t = m->ntimers > 0 && m->timers[0]->timer_due <= now ? m->timers[0] : NULL;
        if (o && (!t || o->due <= t->timer_due)) {
            otimer_remove(o);
            if (o->period) {
                o->due = now + o->period;
                otimer_add(o);
            }
            o->signaled = true;
            wake_waiters_by(o, SIM_READY_TIMER);
            if (m->timer_fn) m->timer_fn(m->timer_ud, o, now);
        } else if (t) {
            t->wait_status = SIM_WAIT_TIMEOUT;
            end_wait(t, SIM_READY_TIMEOUT);
        } else {
            return;
        }
    }
}

bool sim_wait_abort(sim_thread *t, uint32_t status, int reason) {
    if (t->state != SIM_TS_WAITING) return false;
    if (t->suspended && !t->suspend_pending) {
        if (!t->susp_wait) return false;
        t->susp_aborted = true;
        t->susp_status = status;
        return true;
    }
    t->wait_status = status;
    end_wait(t, reason);
    return true;
}

/* ---- suspension ------------------------------------------------------------------------------- */

sim_err sim_thread_suspend(sim_thread *t) {
    sim_machine *m = t->m;
    if (t->suspended) return SIM_ERR_STATE;
    switch (t->state) {
    case SIM_TS_READY:
        sim_sched_unready(t);
        t->suspended = true;
        t->susp_wait = false;
        t->state = SIM_TS_WAITING;
        t->wait_reason = SIM_WR_SUSPENDED;
        t->wait_mode = 0;
        return SIM_OK;
    case SIM_TS_RUNNING:
        t->suspended = true;
        t->susp_wait = false;
        if (m->exec && m->exec->cur == t) { /* the caller itself: it leaves its CPU now */
            t->state = SIM_TS_WAITING;
            t->wait_reason = SIM_WR_SUSPENDED;
            t->wait_mode = 0;
            sim_sched_leave(t);
        } else { /* it runs on another CPU: it leaves there (sched.c) */
            t->suspend_pending = true;
            t->suspend_at = sim_clock(m);
        }
        return SIM_OK;
    case SIM_TS_WAITING:
        unlink_blocks(t);
        t->susp_due = t->timer_due;
        timer_remove(t);
        t->suspended = true;
        t->susp_wait = true;
        t->susp_aborted = false;
        t->susp_reason = t->wait_reason;
        t->wait_reason = SIM_WR_SUSPENDED;
        t->wait_mode = 0;
        return SIM_OK;
    case SIM_TS_INITIALIZED:
    case SIM_TS_STANDBY:
    case SIM_TS_TERMINATED: break;
    }
    return SIM_ERR_STATE;
}

sim_err sim_thread_resume(sim_thread *t) {
    if (!t->suspended) return SIM_ERR_STATE;
    t->suspended = false;
    if (t->suspend_pending) { /* it never left its CPU */
        t->suspend_pending = false;
        return SIM_OK;
    }
    if (t->state != SIM_TS_WAITING) return SIM_OK;
    if (!t->susp_wait) { /* it was ready or running: its last wait's result stands */
        sim_sched_make_ready(t, SIM_READY_WAKE);
        return SIM_OK;
    }
    /* the interrupted wait, waited again; a wait that ends here (aborted, satisfied or past its
     * due time) leaves its thread readied by the resumption, from its Suspended wait */
    t->susp_wait = false;
    sim_object *objs[SIM_MAX_WAIT];
    for (int i = 0; i < t->nwait; i++) objs[i] = t->wb[i].obj;
    if (t->susp_aborted) {
        t->wait_status = t->susp_status;
    } else if (t->nwait > 0 && try_satisfy(t, objs, t->nwait, t->wait_all)) {
        /* wait_status set */
    } else if (t->susp_due <= sim_clock(t->m)) {
        t->wait_status = SIM_WAIT_TIMEOUT;
    } else {
        for (int i = 0; i < t->nwait; i++) {
            wait_block *b = &t->wb[i];
            *b = (wait_block){t, objs[i], i, objs[i]->wb_tail, NULL};
            if (objs[i]->wb_tail)
                objs[i]->wb_tail->next = b;
            else
                objs[i]->wb_head = b;
            objs[i]->wb_tail = b;
        }
        t->linked = true;
        t->wait_reason = t->susp_reason;
        t->wait_mode = 1;
        if (t->susp_due != UINT64_MAX) timer_add(t, t->susp_due);
        t->wait_status = SIM_WAIT_TIMEOUT;
        return SIM_OK;
    }
    t->nwait = 0;
    sim_sched_make_ready(t, SIM_READY_WAKE);
    return SIM_OK;
}

bool sim_thread_suspended(const sim_thread *t) { return t->suspended; }

uint64_t sim_ms_to_cycles(const sim_machine *m, uint64_t ms) { return sim_mul_div(ms, m->cfg.frequency, 1000); }

/* ---- signalling ------------------------------------------------------------------------------------ */

void sim_event_set(sim_object *e) {
    e->signaled = true;
    wake_waiters(e);
}

void sim_event_reset(sim_object *e) { e->signaled = false; }

int sim_mutex_release(sim_thread *t, sim_object *mx) {
    if (mx->owner != t) return -1;
    if (--mx->recursion == 0) {
        disown(mx);
        wake_waiters(mx);
    }
    return 0;
}

int sim_semaphore_release(sim_object *s, int32_t n, int32_t *prev) {
    if (n <= 0 || n > s->max - s->count) return -1;
    *prev = s->count;
    s->count += n;
    wake_waiters(s);
    return 0;
}

void sim_thread_signal_exit(sim_thread *t) {
    /* t->owned holds the last acquired first; Windows abandons in acquisition order (a wait
     * appends the mutant to its owner's list, thread rundown walks it from the head) */
    sim_object *rev = NULL;
    while (t->owned) {
        sim_object *mx = t->owned;
        t->owned = mx->next_owned;
        mx->next_owned = rev;
        rev = mx;
    }
    t->owned = rev;
    while (t->owned) { /* abandon every mutex it still owns, first acquired first */
        sim_object *mx = t->owned;
        disown(mx);
        mx->abandoned = true;
        wake_waiters(mx);
    }
    if (t->self_obj) wake_waiters(t->self_obj);
}
