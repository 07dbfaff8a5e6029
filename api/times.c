/* api/times.c — GetThreadTimes and QueryThreadCycleTime (HCP-SPEC §8).
 *
 * Both enter the kernel (NtQueryInformationThread with ThreadTimes or
 * ThreadCycleTime), so each charges api_call cycles to the caller before it
 * reads anything: a thread querying itself sees its own call's kernel work.
 * The kernel fills a local KERNEL_USER_TIMES / THREAD_CYCLE_TIME_INFORMATION
 * and the user-mode wrapper copies it to the caller's pointers, so the handle
 * is checked before any output pointer.  Accounting (api/README.md "Thread
 * times", sim/README.md "Thread times"):
 *   creation, exit = boot_time + virtual time x 10^7 / frequency (exit 0 while the thread lives)
 *   user           = clock interrupts that hit the thread x tick
 *   kernel         = floor(kernel cycles without interrupts in 100 ns / tick) x tick
 *   cycle time     = user + kernel cycles without interrupts (= PERFORMANCE_DATA.CycleTime's count)
 * Per platform (api/platform.c): on a Windows CE 2.10-2.12 profile (times =
 * HCP_TIMES_CE, HCP-SPEC §8.2, seed 004) creation, exit and kernel are 0 and
 * user is the thread's total run time (user + kernel above) while it lives, 0
 * once it has exited (simulator-defined: "no longer valid"); a profile
 * without THREAD_QUERY_LIMITED_INFORMATION (query_limited false) needs
 * THREAD_QUERY_INFORMATION; one without QueryThreadCycleTime (cycle_time
 * false, it is Vista+) fails it with ERROR_CALL_NOT_IMPLEMENTED. */
#include "api/api_int.h"

#define HUNDRED_NS_PER_S 10000000u

static int fail(hcp_os *os, uint32_t status) {
    hcp_SetLastError(os, hcp_nt_to_win32(status));
    return 0;
}

/* The thread of `h` for a query: THREAD_QUERY_LIMITED_INFORMATION, which
 * THREAD_QUERY_INFORMATION implies (HCP-SPEC §8.1, §8.4); THREAD_QUERY_INFORMATION
 * alone where the limited right does not exist (CE: HCP-SPEC §8.2). */
static uint32_t ref_query(hcp_os *os, uint64_t h, sim_thread **t) {
    if (!os->plat->query_limited) return hcp_ref_thread(os, h, THREAD_QUERY_INFORMATION, t);
    uint32_t st = hcp_ref_thread(os, h, THREAD_QUERY_LIMITED_INFORMATION, t);
    if (st == STATUS_ACCESS_DENIED) st = hcp_ref_thread(os, h, THREAD_QUERY_INFORMATION, t);
    return st;
}

static uint64_t to_100ns(const sim_config *c, uint64_t cycles) {
    return sim_mul_div(cycles, HUNDRED_NS_PER_S, c->frequency);
}

static void put_filetime(uint8_t *p, uint64_t v) {
    hcp_put32(p, (uint32_t)v);             /* dwLowDateTime */
    hcp_put32(p + 4, (uint32_t)(v >> 32)); /* dwHighDateTime */
}

int hcp_GetThreadTimes(hcp_os *os, uint64_t hThread, uint64_t lpCreationTime, uint64_t lpExitTime,
                       uint64_t lpKernelTime, uint64_t lpUserTime) {
    hcp_kernel_entry(os);
    sim_thread *t;
    uint32_t st = ref_query(os, hThread, &t);
    if (st != STATUS_SUCCESS) return fail(os, st);

    const sim_config *c = sim_machine_config(os->m);
    const pmu_bank *b = sim_thread_bank(t);
    uint64_t v[4];
    v[0] = c->boot_time + to_100ns(c, sim_thread_create_time(t));
    v[1] = sim_thread_state_of(t) == SIM_TS_TERMINATED ? c->boot_time + to_100ns(c, sim_thread_exit_time(t)) : 0;
    /* ticks x KeMaximumIncrement (HCP-SPEC §8.1): every interrupt hits a thread at a block boundary, in user mode;
     * kernel work (API calls) is counted in whole ticks of its cycles. */
    v[2] = to_100ns(c, b->kev[PMU_EV_CYCLES] - b->intr_cycles) / c->tick * c->tick;
    v[3] = sim_thread_ticks(t) * c->tick;
    if (os->plat->times == HCP_TIMES_CE) { /* HCP-SPEC §8.2: three zeros, the total run time */
        bool exited = sim_thread_state_of(t) == SIM_TS_TERMINATED;
        v[3] = exited ? 0 : v[2] + v[3];
        v[0] = v[1] = v[2] = 0;
    }

    /* Simulator-defined (Windows faults in user mode; Wine skips NULL): a NULL
     * pointer is skipped, an unwritable one is ERROR_NOACCESS with nothing written. */
    const uint64_t out[4] = {lpCreationTime, lpExitTime, lpKernelTime, lpUserTime};
    for (int i = 0; i < 4; i++)
        if (out[i] && sim_mem_probe(os->m, out[i], sizeof(FILETIME), true) != SIM_OK)
            return fail(os, STATUS_ACCESS_VIOLATION);
    for (int i = 0; i < 4; i++) {
        if (!out[i]) continue;
        uint8_t ft[sizeof(FILETIME)];
        put_filetime(ft, v[i]);
        sim_mem_write(os->m, out[i], ft, sizeof ft);
    }
    return 1;
}

int hcp_QueryThreadCycleTime(hcp_os *os, uint64_t ThreadHandle, uint64_t CycleTime) {
    if (!os->plat->cycle_time) { /* the function does not exist: FALSE, ERROR_CALL_NOT_IMPLEMENTED */
        hcp_not_implemented(os);
        return 0;
    }
    hcp_kernel_entry(os);
    sim_thread *t;
    uint32_t st = ref_query(os, ThreadHandle, &t);
    if (st != STATUS_SUCCESS) return fail(os, st);
    /* Simulator-defined: NULL or unwritable is ERROR_NOACCESS (Windows faults in user mode). */
    uint8_t b[8];
    hcp_put64(b, sim_thread_cycle_time(t));
    if (!CycleTime || sim_mem_write(os->m, CycleTime, b, sizeof b) != SIM_OK) return fail(os, STATUS_ACCESS_VIOLATION);
    return 1;
}
