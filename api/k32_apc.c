/* api/k32_apc.c — user APCs and alertable waits, and the wait functions of ntdll (api/README.md
 * "APCs and timers", "Synchronisation").
 *
 * QueueUserAPC and NtQueueApcThread append to the thread's FIFO of user APCs.  An alertable wait
 * (SleepEx, WaitForSingleObjectEx, WaitForMultipleObjectsEx, SignalObjectAndWait, the Nt waits
 * with Alertable TRUE) is satisfied by its objects first, as KeWaitForSingleObject tests them;
 * otherwise queued APCs end it at once, and an APC queued while it waits ends it
 * (sim_wait_abort: STATUS_USER_APC).  Then every queued APC runs (APCs queued by them too) as the
 * program's own code on the waiting thread (ucb.c), and the call returns WAIT_IO_COMPLETION
 * (STATUS_USER_APC).  A wait that is not alertable leaves APCs queued. */
#include <stdlib.h>

#include "api/sync_int.h"

/* ---- time ---- */

uint64_t hcp_cycles_filetime(const sim_machine *m, uint64_t cycles) {
    const sim_config *cf = sim_machine_config(m);
    return cf->boot_time + sim_mul_div(cycles, 10000000u, cf->frequency);
}

uint64_t hcp_due_cycles(hcp_ctx *c, int64_t due) {
    const sim_config *cf = sim_machine_config(c->m);
    uint64_t now = sim_clock(c->m);
    if (due < 0) {
        uint64_t rel = sim_mul_div((uint64_t)0 - (uint64_t)due, cf->frequency, 10000000u);
        return now + rel < now ? UINT64_MAX - 1 : now + rel;
    }
    if ((uint64_t)due <= cf->boot_time) return 0;
    return sim_mul_div((uint64_t)due - cf->boot_time, cf->frequency, 10000000u);
}

bool hcp_nt_timeout(hcp_ctx *c, uint64_t at, uint64_t *cycles) {
    *cycles = SIM_INFINITE;
    if (!at) return true;
    uint8_t b[8];
    if (!hcp_rd(c, at, b, 8)) return false;
    int64_t v = (int64_t)hcp_get64(b);
    if (v == 0) {
        *cycles = 0;
        return true;
    }
    uint64_t due = hcp_due_cycles(c, v), now = sim_clock(c->m);
    *cycles = due > now ? due - now : 0;
    return true;
}

/* ---- the APC queue ---- */

bool hcp_apc_queue(hcp_os *os, sim_thread *t, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t tag,
                   int ready_reason) {
    hcp_xthread *x = hcp_xthread_of(os, t);
    if (!x || sim_thread_state_of(t) == SIM_TS_TERMINATED) return false;
    if (x->napc == x->capapc) {
        int nc = x->capapc ? 2 * x->capapc : 8;
        hcp_apc *n = realloc(x->apc, (size_t)nc * sizeof *n);
        if (!n) return false;
        x->apc = n;
        x->capapc = nc;
    }
    x->apc[x->napc++] = (hcp_apc){fn, {a0, a1, a2}, tag};
    if (x->alertable) sim_wait_abort(t, STATUS_USER_APC, ready_reason);
    return true;
}

void hcp_apc_unqueue(hcp_os *os, sim_thread *t, uint64_t tag) {
    hcp_xthread *x = hcp_xthread_of(os, t);
    if (!x) return;
    int k = 0;
    for (int i = 0; i < x->napc; i++)
        if (x->apc[i].tag != tag) x->apc[k++] = x->apc[i];
    x->napc = k;
}

bool hcp_apc_pending(hcp_os *os, sim_thread *t) {
    hcp_xthread *x = hcp_xthread_of(os, t);
    return x && x->napc > 0;
}

void hcp_apc_deliver(hcp_ctx *c, uint64_t result) { hcp_ucb_start(c, UCB_APC, result); }

/* ---- alertable waits ---- */

uint32_t hcp_wait_alertable(hcp_ctx *c, sim_object *const *objs, int n, bool all, uint64_t timeout, int reason,
                            bool alertable, uint64_t (*resume)(hcp_ctx *c)) {
    hcp_xthread *x = hcp_xthread_of(c->os, c->t);
    if (!x) {
        hcp_stop(c, "out of host memory");
        return WAIT_FAILED;
    }
    if (alertable && x->napc) { /* a signalled object comes first, then the queued APCs */
        if (n > 0) {
            sim_wait(c->t, objs, n, all, 0, reason);
            uint32_t st = sim_wait_status(c->t);
            if (st != SIM_WAIT_TIMEOUT) return st;
        }
        return STATUS_USER_APC;
    }
    if (sim_wait(c->t, objs, n, all, timeout, reason) == SIM_WAIT_BLOCKED) {
        x->alertable = alertable;
        c->pending = true;
        c->resume = resume;
        return HCP_PENDING;
    }
    return sim_wait_status(c->t);
}

uint32_t hcp_wait_end(hcp_ctx *c) {
    hcp_xthread *x = hcp_xthread_of(c->os, c->t);
    if (x) x->alertable = false;
    return sim_wait_status(c->t);
}

/* A Win32 wait's result: APCs run first, then WAIT_IO_COMPLETION. */
static uint64_t win32_result(hcp_ctx *c, uint32_t st) {
    if (st == STATUS_USER_APC) {
        hcp_apc_deliver(c, WAIT_IO_COMPLETION);
        return WAIT_IO_COMPLETION;
    }
    return st;
}
static uint64_t win32_resumed(hcp_ctx *c) { return win32_result(c, hcp_wait_end(c)); }
/* An Nt wait's: APCs run first, then STATUS_USER_APC. */
static uint64_t nt_result(hcp_ctx *c, uint32_t st) {
    if (st == STATUS_USER_APC) hcp_apc_deliver(c, STATUS_USER_APC);
    return st;
}
static uint64_t nt_resumed(hcp_ctx *c) { return nt_result(c, hcp_wait_end(c)); }

static uint64_t ms_cycles(hcp_ctx *c, uint32_t ms) {
    return ms == INFINITE ? SIM_INFINITE : sim_ms_to_cycles(c->m, ms);
}

/* The objects of n handles (SYNCHRONIZE); a status on failure. */
static uint32_t ref_handles(hcp_ctx *c, uint32_t n, uint64_t lp, bool all, sim_object **objs) {
    if (n == 0 || n > MAXIMUM_WAIT_OBJECTS) return STATUS_INVALID_PARAMETER;
    uint8_t raw[8 * MAXIMUM_WAIT_OBJECTS];
    if (sim_mem_read(c->m, lp, raw, c->w * n) != SIM_OK) return STATUS_ACCESS_VIOLATION;
    for (uint32_t i = 0; i < n; i++) {
        obj_type type;
        uint64_t h = c->w == 4 ? hcp_get32(raw + 4 * i) : hcp_get64(raw + 8 * i);
        uint32_t st = hcp_ref_object(c->os, h, OBJ_NONE, SYNCHRONIZE, &type, &objs[i]);
        if (st != STATUS_SUCCESS) return st;
        if (all)
            for (uint32_t j = 0; j < i; j++)
                if (objs[j] == objs[i]) return STATUS_INVALID_PARAMETER_MIX;
    }
    return STATUS_SUCCESS;
}

static uint64_t wait_failed(hcp_ctx *c, uint32_t st) {
    hcp_nt_fail(c, st == STATUS_INVALID_PARAMETER_MIX ? STATUS_INVALID_PARAMETER : st);
    return WAIT_FAILED;
}

uint64_t hcp_k32_WaitForSingleObjectEx(hcp_ctx *c, const hcp_k32_WaitForSingleObjectEx_args *a) {
    obj_type type;
    sim_object *o;
    uint32_t st = hcp_ref_object(c->os, a->hHandle, OBJ_NONE, SYNCHRONIZE, &type, &o);
    if (st != STATUS_SUCCESS) return wait_failed(c, st);
    uint32_t r = hcp_wait_alertable(c, &o, 1, false, ms_cycles(c, a->dwMilliseconds), SIM_WR_USER_REQUEST,
                                    a->bAlertable != 0, win32_resumed);
    return r == HCP_PENDING ? 0 : win32_result(c, r);
}

uint64_t hcp_k32_WaitForMultipleObjectsEx(hcp_ctx *c, const hcp_k32_WaitForMultipleObjectsEx_args *a) {
    sim_object *objs[MAXIMUM_WAIT_OBJECTS];
    uint32_t st = ref_handles(c, a->nCount, a->lpHandles, a->bWaitAll != 0, objs);
    if (st != STATUS_SUCCESS) return wait_failed(c, st);
    uint32_t r = hcp_wait_alertable(c, objs, (int)a->nCount, a->bWaitAll != 0, ms_cycles(c, a->dwMilliseconds),
                                    SIM_WR_USER_REQUEST, a->bAlertable != 0, win32_resumed);
    return r == HCP_PENDING ? 0 : win32_result(c, r);
}

static uint64_t zero_result(hcp_ctx *c) {
    (void)c;
    return 0;
}
static uint64_t sleep_resumed(hcp_ctx *c) {
    uint32_t st = hcp_wait_end(c);
    return st == STATUS_USER_APC ? win32_result(c, st) : 0;
}

/* SleepEx: 0 after the time, WAIT_IO_COMPLETION after APCs; SleepEx(0, ...) yields as Sleep(0). */
uint64_t hcp_k32_SleepEx(hcp_ctx *c, const hcp_k32_SleepEx_args *a) {
    if (a->bAlertable && hcp_apc_pending(c->os, c->t)) return win32_result(c, STATUS_USER_APC);
    if (a->dwMilliseconds == 0) return hcp_blocking(c, hcp_Sleep(c->os, 0), zero_result);
    uint32_t r = hcp_wait_alertable(c, NULL, 0, false, ms_cycles(c, a->dwMilliseconds), SIM_WR_DELAY_EXECUTION,
                                    a->bAlertable != 0, sleep_resumed);
    return r == HCP_PENDING ? 0 : (r == STATUS_USER_APC ? win32_result(c, r) : 0);
}

/* ---- SignalObjectAndWait ---- */

/* Signals an event (set), a mutex (released) or a semaphore (released by 1): a status. */
static uint32_t signal_object(hcp_ctx *c, uint64_t h) {
    obj_type type;
    sim_object *o;
    uint32_t st = hcp_ref_object(c->os, h, OBJ_NONE, 0, &type, &o);
    if (st != STATUS_SUCCESS) return st;
    switch (type) {
    case OBJ_EVENT:
        if ((st = hcp_ref_object(c->os, h, OBJ_EVENT, EVENT_MODIFY_STATE, &type, &o)) != STATUS_SUCCESS) return st;
        sim_event_set(o);
        return STATUS_SUCCESS;
    case OBJ_MUTEX: return sim_mutex_release(c->t, o) == 0 ? STATUS_SUCCESS : STATUS_MUTANT_NOT_OWNED;
    case OBJ_SEMAPHORE: {
        if ((st = hcp_ref_object(c->os, h, OBJ_SEMAPHORE, SEMAPHORE_MODIFY_STATE, &type, &o)) != STATUS_SUCCESS)
            return st;
        int32_t prev;
        return sim_semaphore_release(o, 1, &prev) == 0 ? STATUS_SUCCESS : STATUS_SEMAPHORE_LIMIT_EXCEEDED;
    }
    case OBJ_NONE:
    case OBJ_THREAD:
    case OBJ_FILE:
    case OBJ_PROCESS:
    case OBJ_TIMER:
    case OBJ_KEYEDEVENT: break;
    }
    return STATUS_OBJECT_TYPE_MISMATCH;
}

/* Both objects are referenced first; the signal and the start of the wait are one step. */
static uint32_t signal_and_wait(hcp_ctx *c, uint64_t hs, uint64_t hw, uint64_t timeout, bool alertable,
                                uint64_t (*resume)(hcp_ctx *c)) {
    obj_type type;
    sim_object *o, *so;
    uint32_t st = hcp_ref_object(c->os, hs, OBJ_NONE, 0, &type, &so);
    if (st == STATUS_SUCCESS) st = hcp_ref_object(c->os, hw, OBJ_NONE, SYNCHRONIZE, &type, &o);
    if (st == STATUS_SUCCESS) st = signal_object(c, hs);
    if (st != STATUS_SUCCESS) return st | 0x80000000u; /* marked: a failure status */
    uint32_t r = hcp_wait_alertable(c, &o, 1, false, timeout, SIM_WR_USER_REQUEST, alertable, resume);
    if (r != HCP_PENDING) sim_sched_preempt_pending(c->t);
    return r;
}

uint64_t hcp_k32_SignalObjectAndWait(hcp_ctx *c, const hcp_k32_SignalObjectAndWait_args *a) {
    uint32_t r = signal_and_wait(c, a->hObjectToSignal, a->hObjectToWaitOn, ms_cycles(c, a->dwMilliseconds),
                                 a->bAlertable != 0, win32_resumed);
    if (r == HCP_PENDING) return 0;
    if ((r & 0xC0000000u) == 0xC0000000u) return wait_failed(c, r);
    return win32_result(c, r);
}

uint64_t hcp_nt_NtSignalAndWaitForSingleObject(hcp_ctx *c, const hcp_nt_NtSignalAndWaitForSingleObject_args *a) {
    uint64_t t;
    if (!hcp_nt_timeout(c, a->Timeout, &t)) return 0;
    uint32_t r = signal_and_wait(c, a->SignalHandle, a->WaitHandle, t, (a->Alertable & 0xFF) != 0, nt_resumed);
    if (r == HCP_PENDING) return 0;
    return (r & 0xC0000000u) == 0xC0000000u ? r : nt_result(c, r);
}

/* ---- QueueUserAPC, NtQueueApcThread, NtTestAlert ---- */

static uint32_t queue_apc(hcp_ctx *c, uint64_t h, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, h, THREAD_SET_CONTEXT, &t);
    if (st != STATUS_SUCCESS) return st;
    if (!hcp_apc_queue(c->os, t, fn, a0, a1, a2, 0, SIM_READY_WAKE)) return STATUS_UNSUCCESSFUL;
    sim_sched_preempt_pending(c->t);
    return STATUS_SUCCESS;
}

uint64_t hcp_k32_QueueUserAPC(hcp_ctx *c, const hcp_k32_QueueUserAPC_args *a) {
    uint32_t st = queue_apc(c, a->hThread, a->pfnAPC, a->dwData, 0, 0);
    return st == STATUS_SUCCESS ? 1 : hcp_nt_fail(c, st);
}

uint64_t hcp_nt_NtQueueApcThread(hcp_ctx *c, const hcp_nt_NtQueueApcThread_args *a) {
    return queue_apc(c, a->ThreadHandle, a->ApcRoutine, a->ApcArgument1, a->ApcArgument2, a->ApcArgument3);
}

uint64_t hcp_nt_NtTestAlert(hcp_ctx *c) {
    if (hcp_apc_pending(c->os, c->t)) hcp_apc_deliver(c, STATUS_SUCCESS);
    return STATUS_SUCCESS;
}

/* ---- the Nt waits ---- */

uint64_t hcp_nt_NtWaitForSingleObject(hcp_ctx *c, const hcp_nt_NtWaitForSingleObject_args *a) {
    uint64_t t;
    if (!hcp_nt_timeout(c, a->Timeout, &t)) return 0;
    obj_type type;
    sim_object *o;
    uint32_t st = hcp_ref_object(c->os, a->Handle, OBJ_NONE, SYNCHRONIZE, &type, &o);
    if (st != STATUS_SUCCESS) return st;
    uint32_t r = hcp_wait_alertable(c, &o, 1, false, t, SIM_WR_USER_REQUEST, (a->Alertable & 0xFF) != 0, nt_resumed);
    return r == HCP_PENDING ? 0 : nt_result(c, r);
}

#define WAIT_TYPE_ALL 0u
#define WAIT_TYPE_ANY 1u

uint64_t hcp_nt_NtWaitForMultipleObjects(hcp_ctx *c, const hcp_nt_NtWaitForMultipleObjects_args *a) {
    if (a->Count == 0 || a->Count > MAXIMUM_WAIT_OBJECTS) return STATUS_INVALID_PARAMETER_1;
    if (a->WaitType != WAIT_TYPE_ALL && a->WaitType != WAIT_TYPE_ANY) return STATUS_INVALID_PARAMETER_3;
    uint64_t t;
    if (!hcp_nt_timeout(c, a->Timeout, &t)) return 0;
    sim_object *objs[MAXIMUM_WAIT_OBJECTS];
    bool all = a->WaitType == WAIT_TYPE_ALL;
    uint32_t st = ref_handles(c, a->Count, a->Handles, all, objs);
    if (st != STATUS_SUCCESS) return st;
    uint32_t r =
        hcp_wait_alertable(c, objs, (int)a->Count, all, t, SIM_WR_USER_REQUEST, (a->Alertable & 0xFF) != 0, nt_resumed);
    return r == HCP_PENDING ? 0 : nt_result(c, r);
}

static uint64_t delay_resumed(hcp_ctx *c) {
    uint32_t st = hcp_wait_end(c);
    return st == STATUS_USER_APC ? nt_result(c, st) : STATUS_SUCCESS;
}

/* NtDelayExecution: a zero interval yields as Sleep(0) does. */
uint64_t hcp_nt_NtDelayExecution(hcp_ctx *c, const hcp_nt_NtDelayExecution_args *a) {
    uint64_t t;
    if (!hcp_rd(c, a->DelayInterval, (uint8_t[8]){0}, 8) || !hcp_nt_timeout(c, a->DelayInterval, &t)) return 0;
    if ((a->Alertable & 0xFF) && hcp_apc_pending(c->os, c->t)) return nt_result(c, STATUS_USER_APC);
    if (t == 0) return hcp_blocking(c, hcp_Sleep(c->os, 0), zero_result);
    uint32_t r =
        hcp_wait_alertable(c, NULL, 0, false, t, SIM_WR_DELAY_EXECUTION, (a->Alertable & 0xFF) != 0, delay_resumed);
    return r == HCP_PENDING ? 0 : (r == STATUS_USER_APC ? nt_result(c, r) : STATUS_SUCCESS);
}

uint64_t hcp_nt_NtYieldExecution(hcp_ctx *c) {
    return hcp_SwitchToThread(c->os) ? STATUS_SUCCESS : STATUS_NO_YIELD_PERFORMED;
}

/* ---- alerts by thread id (Windows 8 and later) ---- */

uint64_t hcp_nt_NtAlertThreadByThreadId(hcp_ctx *c, const hcp_nt_NtAlertThreadByThreadId_args *a) {
    sim_thread *t = (uint32_t)a->ThreadId == a->ThreadId ? sim_thread_by_id(c->m, (uint32_t)a->ThreadId) : NULL;
    if (!t || (c->p && !hcp_process_thread(c->p, t))) return STATUS_INVALID_CID;
    hcp_xthread *x = hcp_xthread_of(c->os, t);
    if (!x) return STATUS_NO_MEMORY;
    if (!x->alert && !(x->alert = sim_event_new(c->m, false, false))) return STATUS_NO_MEMORY;
    sim_event_set(x->alert);
    sim_sched_preempt_pending(c->t);
    return STATUS_SUCCESS;
}

static uint64_t alert_resumed(hcp_ctx *c) { return hcp_wait_end(c) == WAIT_OBJECT_0 ? STATUS_ALERTED : STATUS_TIMEOUT; }

uint64_t hcp_nt_NtWaitForAlertByThreadId(hcp_ctx *c, const hcp_nt_NtWaitForAlertByThreadId_args *a) {
    uint64_t t;
    if (!hcp_nt_timeout(c, a->Timeout, &t)) return 0;
    hcp_xthread *x = hcp_xthread_of(c->os, c->t);
    if (!x) return STATUS_NO_MEMORY;
    if (!x->alert && !(x->alert = sim_event_new(c->m, false, false))) return STATUS_NO_MEMORY;
    uint32_t r = hcp_wait_alertable(c, &x->alert, 1, false, t, SIM_WR_ALERT_BY_THREAD_ID, false, alert_resumed);
    if (r == HCP_PENDING) return 0;
    return r == WAIT_OBJECT_0 ? STATUS_ALERTED : STATUS_TIMEOUT;
}

/* ---- alerts for Lua bodies (hcp_api.h): one kernel entry each ---- */

uint32_t hcp_AlertThreadByThreadId(hcp_os *os, uint32_t ThreadId) {
    hcp_kernel_entry(os);
    sim_thread *t = sim_thread_by_id(os->m, ThreadId);
    hcp_xthread *x = t ? hcp_xthread_of(os, t) : NULL;
    if (!t) return STATUS_INVALID_CID;
    if (!x || (!x->alert && !(x->alert = sim_event_new(os->m, false, false)))) return STATUS_NO_MEMORY;
    sim_event_set(x->alert);
    sim_thread *cur = hcp_current(os);
    if (cur) sim_sched_preempt_pending(cur);
    return STATUS_SUCCESS;
}

uint32_t hcp_WaitForAlertByThreadId(hcp_os *os, uint32_t dwMilliseconds) {
    hcp_kernel_entry(os);
    sim_thread *t = hcp_current(os);
    hcp_xthread *x = t ? hcp_xthread_of(os, t) : NULL;
    if (!x || (!x->alert && !(x->alert = sim_event_new(os->m, false, false)))) return STATUS_NO_MEMORY;
    uint64_t to = dwMilliseconds == INFINITE ? SIM_INFINITE : sim_ms_to_cycles(os->m, dwMilliseconds);
    if (sim_wait(t, &x->alert, 1, false, to, SIM_WR_ALERT_BY_THREAD_ID) == SIM_WAIT_BLOCKED) return HCP_PENDING;
    return hcp_alert_result(os);
}

uint32_t hcp_alert_result(hcp_os *os) {
    sim_thread *t = hcp_current(os);
    return t && sim_wait_status(t) == WAIT_OBJECT_0 ? STATUS_ALERTED : STATUS_TIMEOUT;
}
