/* api/k32_thread.c — KERNEL32's threads: creation and exit, suspension,
 * priority and affinity, thread-local storage (api/README.md "Windows programs").
 *
 * CreateThread makes an ordinary thread of the machine through the factory
 * scenarios/ supplies (hcp_process_set_spawn); the scheduler runs it by the
 * rules of sim/README.md. */
#include <stdio.h>
#include <stdlib.h>

#include "api/exports_gen.h"

#define THREAD_PRIORITY_TIME_CRITICAL 15
#define THREAD_PRIORITY_IDLE (-15)
#define THREAD_PRIORITY_ERROR_RETURN 0x7FFFFFFFu
#define PROCESS_BASE_PRIORITY 8 /* NORMAL_PRIORITY_CLASS */
#define CREATE_SUSPENDED 0x4u
#define MAXIMUM_PROCESSORS 64u
#define TLS_OUT_OF_INDEXES 0xFFFFFFFFu

/* ---- the call gate's own ---- */

uint64_t hcp_k32_GetCurrentThread(hcp_ctx *c) { return hcp_GetCurrentThread(c->os); }
uint64_t hcp_k32_GetCurrentThreadId(hcp_ctx *c) { return hcp_GetCurrentThreadId(c->os); }
uint64_t hcp_k32_OpenThread(hcp_ctx *c, const hcp_k32_OpenThread_args *a) {
    return hcp_OpenThread(c->os, a->dwDesiredAccess, a->bInheritHandle != 0, a->dwThreadId);
}
uint64_t hcp_k32_GetExitCodeThread(hcp_ctx *c, const hcp_k32_GetExitCodeThread_args *a) {
    return (uint32_t)hcp_GetExitCodeThread(c->os, a->hThread, a->lpExitCode);
}

/* ---- creation and exit ---- */

uint64_t hcp_end_thread(hcp_ctx *c, uint32_t code) {
    hcp_pthread *r = c->p ? hcp_process_thread(c->p, c->t) : NULL;
    if (!r) return hcp_fail(c, ERROR_INVALID_HANDLE); /* not a thread of the process (a Lua body's t:run) */
    r->exit_req = true;
    r->exit_code = code;
    sim_gate_end_call(c->t);
    return 0;
}

uint64_t hcp_k32_CreateThread(hcp_ctx *c, const hcp_k32_CreateThread_args *a) {
    hcp_process *p = c->p;
    if (!a->lpStartAddress) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    if (a->lpThreadId && sim_mem_probe(c->m, a->lpThreadId, 4, true) != SIM_OK) return hcp_fail(c, ERROR_NOACCESS);
    if (!p->spawn) return hcp_fail(c, ERROR_NOT_SUPPORTED);
    /* its stack takes HCP_STACK_RESERVE of the memory budget until it exits: past the budget the
     * call fails as Windows' does when the address space or commit runs out */
    if (!hcp_process_charge(p, HCP_STACK_RESERVE)) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    char name[96], why[256] = "";
    snprintf(name, sizeof name, "%s#%d", p->name, p->nthr);
    sim_thread *nt = p->spawn(p->spawn_ud, name, a->lpStartAddress, a->lpParameter, why, sizeof why);
    if (!nt) { /* hcpsim's own limit (max_threads) or host memory: the run ends, naming it */
        hcp_process_uncharge(p, HCP_STACK_RESERVE);
        return hcp_stop(c, "%s", why);
    }
    if (hcp_process_add_thread(p, nt) != 0) { /* no guest memory for its TEB: it never runs */
        hcp_process_uncharge(p, HCP_STACK_RESERVE);
        sim_thread_exit(nt, 0);
        return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    }
    hcp_process_thread(p, nt)->charged = HCP_STACK_RESERVE;
    if ((a->dwCreationFlags & CREATE_SUSPENDED) && sim_thread_hold(nt) == SIM_OK)
        hcp_process_thread(p, nt)->suspend = 1;
    uint64_t h = hcp_thread_handle(c->os, nt, THREAD_ALL_ACCESS);
    if (!h) return hcp_fail(c, hcp_handle_error(c->os));
    if (a->lpThreadId) hcp_wr32(c, a->lpThreadId, sim_thread_id(nt));
    return h;
}

uint64_t hcp_k32_ExitThread(hcp_ctx *c, const hcp_k32_ExitThread_args *a) { return hcp_end_thread(c, a->dwExitCode); }

static sim_thread *thread_arg(hcp_ctx *c, uint64_t h, uint32_t access) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, h, access, &t);
    if (st != STATUS_SUCCESS) {
        hcp_nt_fail(c, st);
        return NULL;
    }
    return t;
}

uint64_t hcp_k32_TerminateThread(hcp_ctx *c, const hcp_k32_TerminateThread_args *a) {
    sim_thread *t = thread_arg(c, a->hThread, THREAD_TERMINATE);
    if (!t) return 0;
    if (t == c->t) return hcp_end_thread(c, a->dwExitCode);
    sim_thread_exit(t, a->dwExitCode);
    return 1;
}

/* The previous suspend count; 0 makes a suspended thread Ready. */
uint64_t hcp_k32_ResumeThread(hcp_ctx *c, const hcp_k32_ResumeThread_args *a) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, a->hThread, THREAD_SUSPEND_RESUME, &t);
    if (st != STATUS_SUCCESS) {
        hcp_nt_fail(c, st);
        return 0xFFFFFFFFu;
    }
    hcp_pthread *r = hcp_process_thread(c->p, t);
    if (!r || !r->suspend) return 0;
    uint32_t prev = r->suspend--;
    if (!r->suspend) {
        sim_thread_release(t);
        sim_sched_preempt_pending(c->t);
    }
    return prev;
}

/* ---- priority, affinity, processors ---- */

uint64_t hcp_k32_GetThreadPriority(hcp_ctx *c, const hcp_k32_GetThreadPriority_args *a) {
    sim_thread *t = thread_arg(c, a->hThread, THREAD_QUERY_LIMITED_INFORMATION);
    if (!t) return THREAD_PRIORITY_ERROR_RETURN;
    int pr = sim_thread_priority(t), rel = pr - PROCESS_BASE_PRIORITY;
    if (pr >= 15) rel = THREAD_PRIORITY_TIME_CRITICAL;
    if (pr <= 1) rel = THREAD_PRIORITY_IDLE;
    return (uint32_t)rel;
}

uint64_t hcp_k32_SetThreadPriority(hcp_ctx *c, const hcp_k32_SetThreadPriority_args *a) {
    int32_t n = a->nPriority;
    sim_thread *t = thread_arg(c, a->hThread, THREAD_SET_LIMITED_INFORMATION);
    if (!t) return 0;
    int pr;
    if (n >= -2 && n <= 2)
        pr = PROCESS_BASE_PRIORITY + n;
    else if (n == THREAD_PRIORITY_TIME_CRITICAL)
        pr = 15;
    else if (n == THREAD_PRIORITY_IDLE)
        pr = 1;
    else
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    sim_thread_set_priority(t, pr);
    sim_sched_preempt_pending(c->t); /* a Ready thread above the caller now takes its CPU */
    return 1;
}

uint64_t hcp_k32_SetThreadAffinityMask(hcp_ctx *c, const hcp_k32_SetThreadAffinityMask_args *a) {
    sim_thread *t = thread_arg(c, a->hThread, THREAD_SET_LIMITED_INFORMATION);
    if (!t) return 0;
    uint64_t old;
    if (sim_thread_set_affinity(t, a->dwThreadAffinityMask, &old) != SIM_OK)
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return old;
}

uint64_t hcp_k32_SetThreadIdealProcessor(hcp_ctx *c, const hcp_k32_SetThreadIdealProcessor_args *a) {
    sim_thread *t = thread_arg(c, a->hThread, THREAD_SET_LIMITED_INFORMATION);
    if (!t) return 0xFFFFFFFFu;
    uint32_t n = a->dwIdealProcessor;
    if (n == MAXIMUM_PROCESSORS) return (uint32_t)sim_thread_ideal(t); /* a query */
    int prev = n < MAXIMUM_PROCESSORS ? sim_thread_set_ideal(t, (int)n) : -1;
    if (prev < 0) {
        hcp_fail(c, ERROR_INVALID_PARAMETER);
        return 0xFFFFFFFFu;
    }
    return (uint32_t)prev;
}

uint64_t hcp_k32_GetCurrentProcessorNumber(hcp_ctx *c) { return (uint32_t)sim_thread_cpu(c->t); }

uint64_t hcp_k32_GetProcessAffinityMask(hcp_ctx *c, const hcp_k32_GetProcessAffinityMask_args *a) {
    if (a->hProcess != HCP_CURRENT_PROCESS) return hcp_fail(c, ERROR_INVALID_HANDLE);
    int n = sim_cpu_count(c->m);
    uint64_t mask = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
    if (sim_mem_probe(c->m, a->lpProcessAffinityMask, c->w, true) != SIM_OK ||
        sim_mem_probe(c->m, a->lpSystemAffinityMask, c->w, true) != SIM_OK)
        return hcp_fail(c, ERROR_NOACCESS);
    hcp_wrp(c, a->lpProcessAffinityMask, mask);
    hcp_wrp(c, a->lpSystemAffinityMask, mask);
    return 1;
}

/* ---- TLS: indices 0..HCP_TLS_SLOTS-1, values kept per thread by the simulated OS ---- */

uint64_t hcp_k32_TlsAlloc(hcp_ctx *c) {
    hcp_process *p = c->p;
    for (int i = 0; i < HCP_TLS_SLOTS; i++)
        if (!p->tls_used[i]) {
            p->tls_used[i] = 1;
            for (int k = 0; k < p->nthr; k++) /* a new index reads 0 in every thread */
                if (p->thr[k].tls) p->thr[k].tls[i] = 0;
            return (uint32_t)i;
        }
    hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    return TLS_OUT_OF_INDEXES;
}
/* The freed index reads 0 in every thread from now on, as Windows clears the cell in each. */
uint64_t hcp_k32_TlsFree(hcp_ctx *c, const hcp_k32_TlsFree_args *a) {
    hcp_process *p = c->p;
    uint32_t i = a->dwTlsIndex;
    if (i >= HCP_TLS_SLOTS || !p->tls_used[i]) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    p->tls_used[i] = 0;
    for (int k = 0; k < p->nthr; k++)
        if (p->thr[k].tls) p->thr[k].tls[i] = 0;
    return 1;
}
uint64_t hcp_k32_TlsGetValue(hcp_ctx *c, const hcp_k32_TlsGetValue_args *a) {
    uint32_t i = a->dwTlsIndex;
    hcp_pthread *r = hcp_process_thread(c->p, c->t);
    if (i >= HCP_TLS_SLOTS) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    hcp_SetLastError(c->os, ERROR_SUCCESS);
    return r && r->tls ? r->tls[i] : 0;
}
uint64_t hcp_k32_TlsSetValue(hcp_ctx *c, const hcp_k32_TlsSetValue_args *a) {
    uint32_t i = a->dwTlsIndex;
    hcp_pthread *r = hcp_process_thread(c->p, c->t);
    if (i >= HCP_TLS_SLOTS || !r) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    if (!r->tls && !(r->tls = calloc(HCP_TLS_SLOTS, sizeof *r->tls))) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    r->tls[i] = a->lpTlsValue;
    return 1;
}
