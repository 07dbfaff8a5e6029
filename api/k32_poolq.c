/* api/k32_poolq.c — the thread pool's pools and cleanup groups, callback instances (the
 * *WhenCallbackReturns actions), timer queues and registered waits (api/README.md "The thread
 * pool"); the workers and the waiter thread that serve them are k32_pool.c's. */
#include <stdlib.h>

#include "api/pool_int.h"

/* ---- pools and cleanup groups ---- */

uint64_t hcp_k32_CreateThreadpool(hcp_ctx *c, const hcp_k32_CreateThreadpool_args *a) {
    (void)a;
    hcp_pool_state *ps = hcp_pool_state_of(c);
    if (!ps || !hcp_pool_grow((void **)&ps->pools, &ps->cappools, ps->npools, sizeof *ps->pools))
        return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    tpool *pool = calloc(1, sizeof *pool);
    tpobj *o = pool ? hcp_pool_obj_new(c, TP_POOL) : NULL;
    if (!o) {
        free(pool);
        return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    }
    pool->self = o;
    pool->max = POOL_DEFAULT_MAX;
    ps->pools[ps->npools++] = pool;
    return o->addr;
}

static tpool *pool_arg(hcp_ctx *c, uint64_t addr) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    tpobj *o = hcp_pool_obj_find(c, addr, TP_POOL);
    for (int i = 0; o && ps && i < ps->npools; i++)
        if (ps->pools[i]->self == o) return ps->pools[i];
    hcp_stop(c, "0x%llX is not a thread pool of this process", (unsigned long long)addr);
    return NULL;
}

uint64_t hcp_k32_SetThreadpoolThreadMaximum(hcp_ctx *c, const hcp_k32_SetThreadpoolThreadMaximum_args *a) {
    tpool *pool = pool_arg(c, a->ptpp);
    if (!pool) return 0;
    pool->max = a->cthrdMost < 1 ? 1 : (int)a->cthrdMost;
    if (pool->min > pool->max) pool->min = pool->max;
    return 0;
}

/* The minimum's workers are made at once (they go idle when they run) and never retire. */
uint64_t hcp_k32_SetThreadpoolThreadMinimum(hcp_ctx *c, const hcp_k32_SetThreadpoolThreadMinimum_args *a) {
    tpool *pool = pool_arg(c, a->ptpp);
    if (!pool) return 0;
    pool->min = (int)a->cthrdMic;
    if (pool->max < pool->min) pool->max = pool->min;
    while (pool->nworkers < pool->min)
        if (!hcp_pool_worker_new(c, pool)) return c->failed ? 0 : hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    return 1;
}

/* Its idle workers retire; busy ones retire when nothing is left. */
uint64_t hcp_k32_CloseThreadpool(hcp_ctx *c, const hcp_k32_CloseThreadpool_args *a) {
    tpool *pool = pool_arg(c, a->ptpp);
    if (!pool) return 0;
    pool->closed = true;
    while (pool->nidle > 0) {
        hcp_worker *w = pool->idle[--pool->nidle];
        w->idle = false;
        w->retire = true;
        hcp_xthread *xt = hcp_xthread_of(c->os, w->t);
        if (xt && xt->alert) sim_event_set(xt->alert);
    }
    sim_sched_preempt_pending(c->t);
    return 0;
}

uint64_t hcp_k32_CreateThreadpoolCleanupGroup(hcp_ctx *c) {
    tpobj *o = hcp_pool_obj_new(c, TP_GROUP);
    return o ? o->addr : hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
}

static uint64_t members_resumed(hcp_ctx *c);

/* Waits until no member of the group has a callback queued or running, then closes them all. */
static uint64_t close_members(hcp_ctx *c, tpobj *g, bool cancel) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    for (int i = 0; ps && i < ps->nobjs; i++) {
        tpobj *o = ps->objs[i];
        if (o->group != g) continue;
        if (cancel) hcp_pool_cancel_pending(c, o);
        o->armed = o->waiting = false;
        if (o->pending || o->running) {
            uint32_t r =
                hcp_park(c, PQ_POOLWAIT, g->addr, 0, SIM_INFINITE, hcp_park_reason(c->os), false, members_resumed);
            if (r == HCP_PENDING || c->failed) return 0;
            return members_resumed(c);
        }
    }
    for (int i = 0; ps && i < ps->nobjs;) {
        tpobj *o = ps->objs[i];
        if (o->group == g) {
            o->closed = true;
            hcp_pool_obj_release(c, o);
        } else {
            i++;
        }
    }
    hcp_pool_waiter_poke(c);
    return 0;
}

static uint64_t members_resumed(hcp_ctx *c) {
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    uint32_t st;
    hcp_park_end(c, &st);
    tpobj *g = xt ? hcp_pool_obj_find(c, xt->park_key, TP_GROUP) : NULL;
    return g ? close_members(c, g, false) : 0;
}

uint64_t hcp_k32_CloseThreadpoolCleanupGroupMembers(hcp_ctx *c,
                                                    const hcp_k32_CloseThreadpoolCleanupGroupMembers_args *a) {
    tpobj *g = hcp_pool_arg_obj(c, a->ptpcg, TP_GROUP);
    return g ? close_members(c, g, a->fCancelPendingCallbacks != 0) : 0;
}

uint64_t hcp_k32_CloseThreadpoolCleanupGroup(hcp_ctx *c, const hcp_k32_CloseThreadpoolCleanupGroup_args *a) {
    tpobj *g = hcp_pool_arg_obj(c, a->ptpcg, TP_GROUP);
    if (g) hcp_pool_obj_release(c, g);
    return 0;
}

/* ---- callback instances ---- */

static hcp_worker *instance_worker(hcp_ctx *c, uint64_t pci) {
    hcp_pool_state *ps = hcp_pool_state_of(c);
    for (int i = 0; ps && i < ps->nworkers; i++)
        if (ps->workers[i]->instance == pci && ps->workers[i]->t == c->t && ps->workers[i]->has_item)
            return ps->workers[i];
    hcp_stop(c, "0x%llX is not the callback instance of this thread's running callback", (unsigned long long)pci);
    return NULL;
}

uint64_t hcp_k32_SetEventWhenCallbackReturns(hcp_ctx *c, const hcp_k32_SetEventWhenCallbackReturns_args *a) {
    hcp_worker *w = instance_worker(c, a->pci);
    if (w) w->on_event = a->evt;
    return 0;
}
uint64_t hcp_k32_ReleaseSemaphoreWhenCallbackReturns(hcp_ctx *c,
                                                     const hcp_k32_ReleaseSemaphoreWhenCallbackReturns_args *a) {
    hcp_worker *w = instance_worker(c, a->pci);
    if (w) w->on_sem = a->sem, w->on_sem_count = (int32_t)a->crel;
    return 0;
}
uint64_t hcp_k32_ReleaseMutexWhenCallbackReturns(hcp_ctx *c, const hcp_k32_ReleaseMutexWhenCallbackReturns_args *a) {
    hcp_worker *w = instance_worker(c, a->pci);
    if (w) w->on_mutex = a->mut;
    return 0;
}
uint64_t
hcp_k32_LeaveCriticalSectionWhenCallbackReturns(hcp_ctx *c,
                                                const hcp_k32_LeaveCriticalSectionWhenCallbackReturns_args *a) {
    hcp_worker *w = instance_worker(c, a->pci);
    if (w) w->on_cs = a->pcs;
    return 0;
}
/* Always TRUE: a long callback makes the pool add a worker by its rules anyway. */
uint64_t hcp_k32_CallbackMayRunLong(hcp_ctx *c, const hcp_k32_CallbackMayRunLong_args *a) {
    return instance_worker(c, a->pci) ? 1 : 0;
}
/* The callback stops counting for its object's WaitFor*Callbacks. */
uint64_t hcp_k32_DisassociateCurrentThreadFromCallback(hcp_ctx *c,
                                                       const hcp_k32_DisassociateCurrentThreadFromCallback_args *a) {
    hcp_worker *w = instance_worker(c, a->pci);
    if (w && w->cur.obj && !w->disassociated) {
        w->disassociated = true;
        w->cur.obj->running--;
        hcp_pool_obj_idle_check(c, w->cur.obj);
    }
    return 0;
}

/* ---- timer queues ---- */

#define INVALID_HANDLE_VALUE_64 UINT64_MAX

static bool is_invalid_handle_value(hcp_ctx *c, uint64_t h) { return hcp_handle_arg(c->os, h) == UINT64_MAX; }

uint64_t hcp_k32_CreateTimerQueue(hcp_ctx *c) {
    tpobj *q = hcp_pool_obj_new(c, TP_QUEUE);
    return q ? q->addr : hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
}

static tpobj *queue_arg(hcp_ctx *c, uint64_t h) {
    if (!h) return NULL; /* the default timer queue */
    tpobj *q = hcp_pool_obj_find(c, h, TP_QUEUE);
    if (!q || q->closed) hcp_fail(c, ERROR_INVALID_HANDLE);
    return q && !q->closed ? q : (tpobj *)-1;
}

uint64_t hcp_k32_CreateTimerQueueTimer(hcp_ctx *c, const hcp_k32_CreateTimerQueueTimer_args *a) {
    tpobj *q = queue_arg(c, a->TimerQueue);
    if (q == (tpobj *)-1) return 0;
    if (!a->Callback) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    tpobj *o = hcp_pool_create(c, TP_TQTIMER, a->Callback, a->Parameter, 0);
    if (!o) return 0;
    o->queue = q;
    o->flags = a->Flags;
    o->due = sim_clock(c->m) + sim_ms_to_cycles(c->m, a->DueTime);
    o->period = (a->Flags & WT_EXECUTEONLYONCE) ? 0 : sim_ms_to_cycles(c->m, a->Period);
    o->armed = true;
    if (!hcp_wrp(c, a->phNewTimer, o->addr)) return 0;
    hcp_pool_waiter_poke(c);
    return 1;
}

uint64_t hcp_k32_ChangeTimerQueueTimer(hcp_ctx *c, const hcp_k32_ChangeTimerQueueTimer_args *a) {
    tpobj *q = queue_arg(c, a->TimerQueue);
    tpobj *o = hcp_pool_obj_find(c, a->Timer, TP_TQTIMER);
    if (q == (tpobj *)-1) return 0;
    if (!o || o->closed || o->queue != q) return hcp_fail(c, ERROR_INVALID_HANDLE);
    o->due = sim_clock(c->m) + sim_ms_to_cycles(c->m, a->DueTime);
    o->period = (o->flags & WT_EXECUTEONLYONCE) ? 0 : sim_ms_to_cycles(c->m, a->Period);
    o->armed = true;
    hcp_pool_waiter_poke(c);
    return 1;
}

static uint64_t deleted_resumed(hcp_ctx *c);

/* Deletes timer-queue timers and registered waits: no more callbacks.  CompletionEvent NULL: TRUE
 * when none runs, else FALSE with ERROR_IO_PENDING; INVALID_HANDLE_VALUE: waits for the running
 * ones, TRUE; an event: signalled when none runs (FALSE, ERROR_IO_PENDING while one does). */
static uint64_t delete_obj(hcp_ctx *c, tpobj *o, uint64_t event) {
    o->armed = o->waiting = false;
    hcp_pool_cancel_pending(c, o);
    o->closed = true;
    hcp_pool_waiter_poke(c);
    if (!o->running) {
        if (event && !is_invalid_handle_value(c, event)) hcp_SetEvent(c->os, event);
        hcp_pool_obj_idle_check(c, o);
        return 1;
    }
    if (event && is_invalid_handle_value(c, event)) {
        uint32_t r = hcp_park(c, PQ_POOLWAIT, o->addr, 0, SIM_INFINITE, hcp_park_reason(c->os), false, deleted_resumed);
        if (r == HCP_PENDING || c->failed) return 0;
        return deleted_resumed(c);
    }
    if (event) o->completion_event = event;
    return hcp_fail(c, ERROR_IO_PENDING);
}

static uint64_t deleted_resumed(hcp_ctx *c) {
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    uint32_t st;
    hcp_park_end(c, &st);
    tpobj *o = xt ? hcp_pool_obj_find(c, xt->park_key, 0) : NULL;
    if (o && o->running) {
        uint32_t r = hcp_park(c, PQ_POOLWAIT, o->addr, 0, SIM_INFINITE, hcp_park_reason(c->os), false, deleted_resumed);
        if (r == HCP_PENDING || c->failed) return 0;
        return deleted_resumed(c);
    }
    return 1;
}

uint64_t hcp_k32_DeleteTimerQueueTimer(hcp_ctx *c, const hcp_k32_DeleteTimerQueueTimer_args *a) {
    tpobj *q = queue_arg(c, a->TimerQueue);
    tpobj *o = hcp_pool_obj_find(c, a->Timer, TP_TQTIMER);
    if (q == (tpobj *)-1) return 0;
    if (!o || o->closed || o->queue != q) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return delete_obj(c, o, a->CompletionEvent);
}

/* Every timer of the queue, then the queue. */
uint64_t hcp_k32_DeleteTimerQueueEx(hcp_ctx *c, const hcp_k32_DeleteTimerQueueEx_args *a) {
    tpobj *q = hcp_pool_obj_find(c, a->TimerQueue, TP_QUEUE);
    if (!q || q->closed) return hcp_fail(c, ERROR_INVALID_HANDLE);
    hcp_pool_state *ps = hcp_pool_state_of(c);
    bool busy = false;
    for (int i = 0; i < ps->nobjs;) {
        tpobj *o = ps->objs[i];
        if (o->kind == TP_TQTIMER && o->queue == q && !o->closed) {
            o->armed = false;
            hcp_pool_cancel_pending(c, o);
            o->closed = true;
            if (o->running) {
                busy = true;
                i++;
            } else {
                hcp_pool_obj_release(c, o);
            }
        } else {
            i++;
        }
    }
    q->closed = true;
    hcp_pool_waiter_poke(c);
    if (!busy) {
        if (a->CompletionEvent && !is_invalid_handle_value(c, a->CompletionEvent))
            hcp_SetEvent(c->os, a->CompletionEvent);
        hcp_pool_obj_release(c, q);
        return 1;
    }
    hcp_pool_obj_release(c, q);
    return hcp_fail(c, ERROR_IO_PENDING);
}

uint64_t hcp_k32_DeleteTimerQueue(hcp_ctx *c, const hcp_k32_DeleteTimerQueue_args *a) {
    hcp_k32_DeleteTimerQueueEx_args x = {a->TimerQueue, 0};
    return hcp_k32_DeleteTimerQueueEx(c, &x);
}

/* ---- registered waits ---- */

uint64_t hcp_k32_RegisterWaitForSingleObject(hcp_ctx *c, const hcp_k32_RegisterWaitForSingleObject_args *a) {
    obj_type type;
    sim_object *so;
    uint32_t st = hcp_ref_object(c->os, a->hObject, OBJ_NONE, SYNCHRONIZE, &type, &so);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    tpobj *o = hcp_pool_create(c, TP_RWAIT, a->Callback, a->Context, 0);
    if (!o) return 0;
    o->flags = a->dwFlags;
    o->wobj = so;
    o->ms = a->dwMilliseconds;
    o->wdue = o->ms == INFINITE ? SIM_INFINITE : sim_clock(c->m) + sim_ms_to_cycles(c->m, o->ms);
    o->waiting = true;
    if (!hcp_wrp(c, a->phNewWaitObject, o->addr)) return 0;
    hcp_pool_waiter_poke(c);
    return 1;
}

uint64_t hcp_k32_UnregisterWaitEx(hcp_ctx *c, const hcp_k32_UnregisterWaitEx_args *a) {
    tpobj *o = hcp_pool_obj_find(c, a->WaitHandle, TP_RWAIT);
    if (!o || o->closed) return hcp_fail(c, ERROR_INVALID_HANDLE);
    return delete_obj(c, o, a->CompletionEvent);
}

uint64_t hcp_k32_UnregisterWait(hcp_ctx *c, const hcp_k32_UnregisterWait_args *a) {
    hcp_k32_UnregisterWaitEx_args x = {a->WaitHandle, 0};
    return hcp_k32_UnregisterWaitEx(c, &x);
}
