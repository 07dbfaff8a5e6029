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

sim_object_type sim_object_type_of(const sim_object *o) { return o->type; }
uint32_t sim_object_id(const sim_object *o) { return o->id; }

/* ---- signal state ----------------------------------------------------------------------- */

static bool signaled_for(const sim_object *o, const sim_thread *t) {
    switch (o->type) {
    case SIM_OBJ_EVENT: return o->signaled;
    case SIM_OBJ_MUTEX: return !o->owner || o->owner == t;
    case SIM_OBJ_SEMAPHORE: return o->count > 0;
    case SIM_OBJ_THREAD: return o->thread->state == SIM_TS_TERMINATED;
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
}

/* An object may have become signalled: satisfy its waiters in FIFO order. */
static void wake_waiters(sim_object *o) {
    wait_block *b = o->wb_head;
    while (b && signaled_for(o, b->t)) {
        wait_block *next = b->next;
        sim_thread *t = b->t;
        sim_object *objs[SIM_MAX_WAIT];
        for (int i = 0; i < t->nwait; i++) objs[i] = t->wb[i].obj;
        if (try_satisfy(t, objs, t->nwait, t->wait_all)) {
            end_wait(t, SIM_READY_WAKE);
            next = o->wb_head; /* the list changed: start again from the (new) head */
        }
        b = next;
    }
}

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

void sim_timer_expire(sim_machine *m, uint64_t now) {
    while (m->ntimers > 0 && m->timers[0]->timer_due <= now) {
        sim_thread *t = m->timers[0];
        t->wait_status = SIM_WAIT_TIMEOUT;
        end_wait(t, SIM_READY_TIMEOUT);
    }
}

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
