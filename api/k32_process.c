/* api/k32_process.c — KERNEL32's process: its end, its command line and start-up
 * information, its identity, the thread's last error (api/README.md "Windows
 * programs"). */
#include <stdlib.h>

#include "api/layouts.h"
#include "api/sync_int.h"

uint64_t hcp_k32_GetLastError(hcp_ctx *c) { return hcp_GetLastError(c->os); }
uint64_t hcp_k32_SetLastError(hcp_ctx *c, const hcp_k32_SetLastError_args *a) {
    hcp_SetLastError(c->os, a->dwErrCode);
    return 0;
}

/* Every other thread of the process ends with `code` (a real teardown: Ready, Waiting and
 * preempted threads alike), then the caller's guest call ends. */
uint64_t hcp_end_process(hcp_ctx *c, uint32_t code) {
    hcp_process *p = c->p;
    p->exited = true;
    p->exit_code = code;
    if (c->os->proc_obj) sim_event_set(c->os->proc_obj); /* the process object is signalled */
    for (int i = 0; i < p->nthr; i++)
        if (p->thr[i].t != c->t && sim_thread_state_of(p->thr[i].t) != SIM_TS_TERMINATED)
            sim_thread_exit(p->thr[i].t, code);
    hcp_pthread *r = hcp_process_thread(p, c->t);
    if (r) {
        r->exit_req = true;
        r->exit_code = code;
    }
    sim_gate_end_call(c->t);
    return code;
}

/* ExitProcess: the other threads end first; the caller's FLS callbacks then run (as the loader's
 * process detach runs them), and the process ends. */
uint64_t hcp_k32_ExitProcess(hcp_ctx *c, const hcp_k32_ExitProcess_args *a) {
    hcp_process *p = c->p;
    if (!hcp_fls_pending(c->os, p, c->t)) return hcp_end_process(c, a->uExitCode);
    for (int i = 0; i < p->nthr; i++)
        if (p->thr[i].t != c->t && sim_thread_state_of(p->thr[i].t) != SIM_TS_TERMINATED)
            sim_thread_exit(p->thr[i].t, a->uExitCode);
    hcp_ucb_frame *f = hcp_ucb_start(c, UCB_PROCESS_EXIT, 0);
    if (f) f->u[0] = a->uExitCode;
    return 0;
}

uint64_t hcp_k32_GetStartupInfoA(hcp_ctx *c, const hcp_k32_GetStartupInfoA_args *a) {
    uint8_t b[104] = {0}; /* STARTUPINFOA: cb, the rest 0 (no STARTF_ flags) */
    unsigned n = hcp_lay_off(HCP_L_STARTUPINFOA__size, c->w == 8);
    hcp_lay_put(b, HCP_L_STARTUPINFOA_cb, c->w == 8, n);
    hcp_wr(c, a->lpStartupInfo, b, n);
    return 0;
}

uint64_t hcp_k32_GetCommandLineA(hcp_ctx *c) { return c->p->d.cmdline_a; }
uint64_t hcp_k32_GetCommandLineW(hcp_ctx *c) { return c->p->d.cmdline_w; }
uint64_t hcp_k32_GetCurrentProcess(hcp_ctx *c) { return c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu; }
uint64_t hcp_k32_GetCurrentProcessId(hcp_ctx *c) {
    (void)c;
    return HCP_ETW_PROCESS_ID;
}

/* This process only; ERROR_PARTIAL_COPY when the range is not readable. */
uint64_t hcp_k32_ReadProcessMemory(hcp_ctx *c, const hcp_k32_ReadProcessMemory_args *a) {
    uint64_t n = a->nSize;
    if (a->hProcess != HCP_CURRENT_PROCESS) return hcp_fail(c, ERROR_INVALID_HANDLE);
    if (n > (uint64_t)HCP_MAX_STR * 64) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint8_t *b = malloc(n ? (size_t)n : 1);
    if (!b) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    bool ok = sim_mem_read(c->m, a->lpBaseAddress, b, (size_t)n) == SIM_OK &&
              sim_mem_write(c->m, a->lpBuffer, b, (size_t)n) == SIM_OK;
    free(b);
    if (a->lpNumberOfBytesRead) hcp_wrp(c, a->lpNumberOfBytesRead, ok ? n : 0);
    return ok ? 1 : hcp_fail(c, ERROR_PARTIAL_COPY);
}
