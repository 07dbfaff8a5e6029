/* api/k32_timer.c — waitable timers (api/README.md "APCs and timers").
 *
 * A waitable timer is a timer object of sim/ (sim_timer_new): notification timers (manual reset)
 * stay signalled until set again, synchronization timers reset when a wait takes them.  It
 * expires at the first CPU-0 clock interrupt at or after its due time, as every timeout does, and
 * a periodic one again `period` after that interrupt's due time.  A completion routine is an APC
 * queued to the thread that set the timer at each expiry, with the expiry's time as a FILETIME
 * (its low and high halves); setting or cancelling the timer removes one still queued. */
#include <stdlib.h>

#include "api/sync_int.h"

#define CREATE_WAITABLE_TIMER_MANUAL_RESET 0x1u
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x2u

uint64_t hcp_named_create(hcp_ctx *c, obj_type type, uint32_t x, uint32_t y, uint64_t name, bool wide, uint64_t sa,
                          uint32_t access);
uint64_t hcp_named_open(hcp_ctx *c, obj_type type, uint32_t access, bool inherit, uint64_t name, bool wide);

typedef struct hcp_wtimer {
    sim_object *o;
    sim_thread *owner; /* the thread that set it with a completion routine */
    uint64_t fn, arg;
} hcp_wtimer;

static hcp_wtimer *wt_find(hcp_xproc *x, sim_object *o, bool make) {
    for (int i = 0; i < x->nwt; i++)
        if (x->wt[i].o == o) return &x->wt[i];
    if (!make) return NULL;
    if (x->nwt == x->capwt) {
        int nc = x->capwt ? 2 * x->capwt : 8;
        hcp_wtimer *n = realloc(x->wt, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        x->wt = n;
        x->capwt = nc;
    }
    hcp_wtimer *w = &x->wt[x->nwt++];
    *w = (hcp_wtimer){o, NULL, 0, 0};
    return w;
}

/* The APC tag of a timer's completion routine: its object id among timers (never 0). */
static uint64_t tag_of(const sim_object *o) { return 0x100000000ull | sim_object_id(o); }

/* sim/'s hook at each expiry, in CPU 0's clock interrupt. */
static void fired(void *ud, sim_object *o, uint64_t at) {
    hcp_os *os = ud;
    hcp_xproc *x = os->proc ? os->proc->sx : NULL;
    hcp_wtimer *w = x ? wt_find(x, o, false) : NULL;
    if (!w || !w->fn || !w->owner) return;
    uint64_t ft = hcp_cycles_filetime(os->m, at);
    hcp_apc_queue(os, w->owner, w->fn, w->arg, ft & 0xFFFFFFFFu, ft >> 32, tag_of(o), SIM_READY_TIMER);
}

static uint64_t set_timer(hcp_ctx *c, uint64_t h, uint64_t due_at, int32_t period, uint64_t fn, uint64_t arg,
                          bool resume) {
    obj_type type;
    sim_object *o;
    uint32_t st = hcp_ref_object(c->os, h, OBJ_TIMER, TIMER_MODIFY_STATE, &type, &o);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    if (period < 0) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint8_t b[8];
    if (!hcp_rd(c, due_at, b, 8)) return 0;
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_wtimer *w = x ? wt_find(x, o, true) : NULL;
    if (!w) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if (w->owner) hcp_apc_unqueue(c->os, w->owner, tag_of(o));
    w->owner = fn ? c->t : NULL;
    w->fn = fn;
    w->arg = arg;
    if (fn && !x->timer_hook) {
        sim_set_timer_hook(c->m, fired, c->os);
        x->timer_hook = true;
    }
    sim_timer_set(o, hcp_due_cycles(c, (int64_t)hcp_get64(b)), sim_ms_to_cycles(c->m, (uint32_t)period));
    if (resume) hcp_SetLastError(c->os, ERROR_NOT_SUPPORTED); /* no power management to resume from */
    return 1;
}

uint64_t hcp_k32_SetWaitableTimer(hcp_ctx *c, const hcp_k32_SetWaitableTimer_args *a) {
    return set_timer(c, a->hTimer, a->lpDueTime, a->lPeriod, a->pfnCompletionRoutine, a->lpArgToCompletionRoutine,
                     a->fResume != 0);
}
uint64_t hcp_k32_SetWaitableTimerEx(hcp_ctx *c, const hcp_k32_SetWaitableTimerEx_args *a) {
    return set_timer(c, a->hTimer, a->lpDueTime, a->lPeriod, a->pfnCompletionRoutine, a->lpArgToCompletionRoutine,
                     a->WakeContext != 0);
}

uint64_t hcp_k32_CancelWaitableTimer(hcp_ctx *c, const hcp_k32_CancelWaitableTimer_args *a) {
    obj_type type;
    sim_object *o;
    uint32_t st = hcp_ref_object(c->os, a->hTimer, OBJ_TIMER, TIMER_MODIFY_STATE, &type, &o);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    sim_timer_cancel(o);
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_wtimer *w = x ? wt_find(x, o, false) : NULL;
    if (w && w->owner) hcp_apc_unqueue(c->os, w->owner, tag_of(o));
    return 1;
}

uint64_t hcp_k32_CreateWaitableTimerA(hcp_ctx *c, const hcp_k32_CreateWaitableTimerA_args *a) {
    return hcp_named_create(c, OBJ_TIMER, a->bManualReset != 0, 0, a->lpTimerName, false, a->lpTimerAttributes, 0);
}
uint64_t hcp_k32_CreateWaitableTimerW(hcp_ctx *c, const hcp_k32_CreateWaitableTimerW_args *a) {
    return hcp_named_create(c, OBJ_TIMER, a->bManualReset != 0, 0, a->lpTimerName, true, a->lpTimerAttributes, 0);
}
static uint64_t create_ex(hcp_ctx *c, uint64_t sa, uint64_t name, bool wide, uint32_t flags, uint32_t access) {
    if (flags & ~(CREATE_WAITABLE_TIMER_MANUAL_RESET | CREATE_WAITABLE_TIMER_HIGH_RESOLUTION))
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return hcp_named_create(c, OBJ_TIMER, (flags & CREATE_WAITABLE_TIMER_MANUAL_RESET) != 0, 0, name, wide, sa,
                            access ? access : TIMER_ALL_ACCESS);
}
uint64_t hcp_k32_CreateWaitableTimerExA(hcp_ctx *c, const hcp_k32_CreateWaitableTimerExA_args *a) {
    return create_ex(c, a->lpTimerAttributes, a->lpTimerName, false, a->dwFlags, a->dwDesiredAccess);
}
uint64_t hcp_k32_CreateWaitableTimerExW(hcp_ctx *c, const hcp_k32_CreateWaitableTimerExW_args *a) {
    return create_ex(c, a->lpTimerAttributes, a->lpTimerName, true, a->dwFlags, a->dwDesiredAccess);
}
uint64_t hcp_k32_OpenWaitableTimerA(hcp_ctx *c, const hcp_k32_OpenWaitableTimerA_args *a) {
    return hcp_named_open(c, OBJ_TIMER, a->dwDesiredAccess, a->bInheritHandle != 0, a->lpTimerName, false);
}
uint64_t hcp_k32_OpenWaitableTimerW(hcp_ctx *c, const hcp_k32_OpenWaitableTimerW_args *a) {
    return hcp_named_open(c, OBJ_TIMER, a->dwDesiredAccess, a->bInheritHandle != 0, a->lpTimerName, true);
}

/* ---- for Lua bodies (hcp_api.h): no completion routine, one kernel entry each ---- */

uint64_t hcp_create_timer(hcp_os *os, int manual) {
    hcp_kernel_entry(os);
    sim_object *o = sim_timer_new(os->m, manual != 0);
    if (!o) {
        hcp_SetLastError(os, ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    uint64_t h = hcp_handle_new(os, OBJ_TIMER, NULL, o, TIMER_ALL_ACCESS);
    if (!h) hcp_SetLastError(os, hcp_handle_error(os));
    return h;
}

int hcp_SetWaitableTimer(hcp_os *os, uint64_t hTimer, int64_t DueTime, int32_t lPeriod) {
    hcp_kernel_entry(os);
    obj_type type;
    sim_object *o;
    uint32_t st = hcp_ref_object(os, hTimer, OBJ_TIMER, TIMER_MODIFY_STATE, &type, &o);
    if (st == STATUS_SUCCESS && lPeriod < 0) st = STATUS_INVALID_PARAMETER;
    if (st != STATUS_SUCCESS) {
        hcp_SetLastError(os, hcp_nt_to_win32(st));
        return 0;
    }
    const sim_config *cf = sim_machine_config(os->m);
    uint64_t now = sim_clock(os->m), due;
    if (DueTime < 0)
        due = now + sim_mul_div((uint64_t)0 - (uint64_t)DueTime, cf->frequency, 10000000u);
    else
        due = (uint64_t)DueTime <= cf->boot_time
                  ? 0
                  : sim_mul_div((uint64_t)DueTime - cf->boot_time, cf->frequency, 10000000u);
    sim_timer_set(o, due, sim_ms_to_cycles(os->m, (uint32_t)lPeriod));
    return 1;
}

int hcp_CancelWaitableTimer(hcp_os *os, uint64_t hTimer) {
    hcp_kernel_entry(os);
    obj_type type;
    sim_object *o;
    uint32_t st = hcp_ref_object(os, hTimer, OBJ_TIMER, TIMER_MODIFY_STATE, &type, &o);
    if (st != STATUS_SUCCESS) {
        hcp_SetLastError(os, hcp_nt_to_win32(st));
        return 0;
    }
    sim_timer_cancel(o);
    return 1;
}
