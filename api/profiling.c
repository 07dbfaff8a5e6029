/* api/profiling.c — EnableThreadProfiling, DisableThreadProfiling,
 * QueryThreadProfiling, ReadThreadProfilingData (HCP-SPEC §2) and the
 * kernel-side accounting at switch-in and thread exit.
 *
 * The validation order is the implementation's (HCP-SPEC §2.1–2.4).  Where
 * the documentation and the Windows 10/11 implementation differ (§11), the
 * machine's semantics decide; api/README.md lists every such point.  Where
 * Windows leaves behaviour undefined, the result is simulator-defined and
 * documented in api/README.md.  On a platform without them (the profile's
 * `hcp` false: ce2.12-arm) each fails with ERROR_CALL_NOT_IMPLEMENTED. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/pe_int.h"

/* Internal THREAD_PERFORMANCE_DATA offsets (HCP-SPEC §3.3). */
#define BLK_SIZE 0
#define BLK_VERSION 2
#define BLK_HARDWARE_COUNTERS 32

static uint32_t win32(uint32_t status) { return hcp_nt_to_win32(status); }

/* The points where Microsoft's documentation and the Windows 10/11
 * implementation disagree (HCP-SPEC §11; api/README.md "Semantics"), one row
 * per semantics: ReadThreadProfilingData and KeSetHardwareCounterConfiguration
 * (kecfg.c) ask this table and never test the semantics themselves. */
const hcp_sem_rules HCP_SEM_RULES[] = {
    [HCP_DOCUMENTED] = {.times_always = false,
                        .unconfigured_zero = true,
                        .count_configured = false,
                        .keset_any_blocks = false},
    [HCP_OBSERVED] = {.times_always = true,
                      .unconfigured_zero = false,
                      .count_configured = true,
                      .keset_any_blocks = true},
};

/* ---- warnings to a program (hcp_set_warning_handler) ----------------------------------------------- */

enum { WARN_UNCONFIGURED = 1u };

void hcp_set_warning_handler(hcp_os *os, hcp_warn_fn fn, void *ud) {
    os->warn_fn = fn;
    os->warn_ud = ud;
}

/* Once per kind, for a call of a thread of the OS's process. */
static void warn_once(hcp_os *os, unsigned kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn_once(hcp_os *os, unsigned kind, const char *fmt, ...) {
    sim_thread *t = hcp_current(os);
    if (!os->warn_fn || (os->warned & kind) || !t || !os->proc || !hcp_process_thread(os->proc, t)) return;
    os->warned |= kind;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    os->warn_fn(os->warn_ud, t, msg);
}

static uint64_t counter_value(hcp_os *os, const prof_record *p, sim_thread *t, uint32_t slot) {
    const pmu_config *pc = &sim_machine_config(os->m)->pmc;
    uint64_t pmc = os->cfg_index[slot];
    uint64_t now = pmu_pmc_read(pc, sim_thread_bank(t), pmc);
    uint64_t then = pmu_pmc_read(pc, &p->start, pmc);
    return (now - then) & ((UINT64_C(1) << PMU_PMC_BITS) - 1);
}

void hcp_prof_switch_in(hcp_os *os, sim_thread *t, int reason) {
    os_thread *ot = hcp_os_thread(os, t);
    if (!ot || !ot->prof.enabled || !(ot->prof.flags & THREAD_PROFILING_FLAG_DISPATCH)) return;
    ot->prof.ctxsw++;
    if (reason >= 0 && reason < 64) ot->prof.wr_bitmap |= UINT64_C(1) << reason;
}

void hcp_prof_thread_exit(hcp_os *os, sim_thread *t) {
    os_thread *ot = hcp_os_thread(os, t);
    if (ot) memset(&ot->prof, 0, sizeof ot->prof); /* user block leaks until "process exit" (HCP-SPEC §2.2) */
}

uint32_t hcp_EnableThreadProfiling(hcp_os *os, uint64_t ThreadHandle, uint32_t Flags, uint64_t HardwareCounters,
                                   uint64_t PerformanceDataHandle) {
    if (!os->plat->hcp) return hcp_not_implemented(os);
    sim_machine *m = os->m;
    /* Steps 1-4 run in ntdll (user mode): a call they reject never enters the
     * kernel, so it costs no kernel entry (HCP-SPEC §2.1). */
    if (Flags & ~THREAD_PROFILING_FLAG_DISPATCH) return win32(STATUS_INVALID_PARAMETER_2);
    if (HardwareCounters & ~UINT64_C(0xFFFF)) return win32(STATUS_INVALID_PARAMETER_3);
    uint64_t block;
    if (sim_heap_alloc(m, HCP_USER_BLOCK_SIZE, &block) != SIM_OK) return win32(STATUS_NO_MEMORY);
    hcp_kernel_entry(os); /* step 5: NtSetInformationThread */
    uint8_t hdr[40] = {0};
    hcp_put16(hdr + BLK_SIZE, HCP_USER_BLOCK_SIZE);
    hcp_put16(hdr + BLK_VERSION, 1);
    hcp_put64(hdr + BLK_HARDWARE_COUNTERS, HardwareCounters);
    sim_mem_write(m, block, hdr, sizeof hdr);

    sim_thread *t;
    uint32_t st = hcp_ref_thread(os, ThreadHandle, THREAD_SET_INFORMATION, &t);
    if (st == STATUS_SUCCESS && t != hcp_current(os)) st = STATUS_NOT_SUPPORTED;
    os_thread *ot = st == STATUS_SUCCESS ? hcp_os_thread(os, t) : NULL;
    if (st == STATUS_SUCCESS && !ot) st = STATUS_NO_MEMORY;
    if (st == STATUS_SUCCESS && ot->prof.enabled) st = STATUS_WMI_ALREADY_ENABLED;
    if (st != STATUS_SUCCESS) {
        sim_heap_free(m, block, HCP_USER_BLOCK_SIZE); /* *PerformanceDataHandle is not written */
        return win32(st);
    }
    prof_record *p = &ot->prof;
    memset(p, 0, sizeof *p);
    p->enabled = true;
    p->block = block;
    p->flags = Flags;
    p->mask = HardwareCounters;
    p->start = *sim_thread_bank(t);
    /* Windows writes the out-parameter after enabling and faults in user mode
     * when it is bad; simulator-defined: profiling stays enabled, ERROR_NOACCESS. */
    uint8_t out[8];
    hcp_put64(out, block); /* a HANDLE: pointer-sized (4 bytes on a 32-bit platform, the block lies below 4 GiB) */
    if (sim_mem_write(m, PerformanceDataHandle, out, hcp_ptr_size(os)) != SIM_OK) return ERROR_NOACCESS;
    /* Counters the mask asks for that no configuration names give no values: on Windows only a
     * driver configures them (KeSetHardwareCounterConfiguration), and a program that ran there
     * with one prints zeros here unless the command line configures them too. */
    uint64_t unconfigured = HardwareCounters & ~((UINT64_C(1) << os->cfg_count) - 1);
    if (unconfigured) {
        int lo = 0, hi = 15;
        while (!(unconfigured >> lo & 1)) lo++;
        while (!(unconfigured >> hi & 1)) hi--;
        char which[24], have[48];
        snprintf(which, sizeof which, lo == hi ? "[%d]" : "[%d..%d]", lo, hi);
        if (os->cfg_count)
            snprintf(have, sizeof have, "only %u hardware counter%s", (unsigned)os->cfg_count,
                     os->cfg_count == 1 ? " is" : "s are");
        else
            snprintf(have, sizeof have, "no hardware counter is");
        warn_once(os, WARN_UNCONFIGURED,
                  "EnableThreadProfiling with HardwareCounters 0x%llX, but %s configured: HwCounters%s will hold no "
                  "counts (on Windows a driver configures them; here hcpsim run --pmc EVENT,... --counters PMC,...)",
                  (unsigned long long)HardwareCounters, have, which);
    }
    return ERROR_SUCCESS;
}

uint32_t hcp_DisableThreadProfiling(hcp_os *os, uint64_t PerformanceDataHandle) {
    if (!os->plat->hcp) return hcp_not_implemented(os);
    hcp_kernel_entry(os);
    /* ProbeForWrite(handle, 448, 4) comes first (HCP-SPEC §2.2). */
    if (PerformanceDataHandle & 3) return win32(STATUS_DATATYPE_MISALIGNMENT);
    if (sim_mem_probe(os->m, PerformanceDataHandle, HCP_USER_BLOCK_SIZE, true) != SIM_OK)
        return win32(STATUS_ACCESS_VIOLATION);
    sim_thread *t = hcp_current(os);
    os_thread *ot = t ? hcp_os_thread(os, t) : NULL;
    if (!ot || !ot->prof.enabled) return win32(STATUS_WMI_ALREADY_DISABLED);
    if (ot->prof.block != PerformanceDataHandle) return win32(STATUS_INVALID_PARAMETER);
    sim_heap_free(os->m, ot->prof.block, HCP_USER_BLOCK_SIZE);
    memset(&ot->prof, 0, sizeof ot->prof);
    return ERROR_SUCCESS;
}

bool hcp_thread_profiling(hcp_os *os, sim_thread *t) {
    os_thread *ot = hcp_os_thread(os, t);
    return ot && ot->prof.enabled;
}

uint32_t hcp_QueryThreadProfiling(hcp_os *os, uint64_t ThreadHandle, uint64_t Enabled) {
    if (!os->plat->hcp) return hcp_not_implemented(os);
    hcp_kernel_entry(os);
    /* NtQueryInformationThread probes the output buffer before it references the handle. */
    if (sim_mem_probe(os->m, Enabled, 1, true) != SIM_OK) return win32(STATUS_ACCESS_VIOLATION);
    sim_thread *t;
    uint32_t st = hcp_ref_thread(os, ThreadHandle, THREAD_QUERY_INFORMATION, &t);
    if (st != STATUS_SUCCESS) return win32(st);
    os_thread *ot = hcp_os_thread(os, t);
    uint8_t b = ot && ot->prof.enabled ? 1 : 0;
    sim_mem_write(os->m, Enabled, &b, 1);
    return ERROR_SUCCESS;
}

/* The profiling record whose user block is `handle`, and its thread. */
static prof_record *find_record(hcp_os *os, uint64_t handle, sim_thread **owner) {
    int n = sim_thread_count(os->m);
    for (int i = 0; i < n && i < os->nthreads; i++) {
        prof_record *p = &os->threads[i].prof;
        if (p->enabled && p->block == handle) {
            *owner = sim_thread_at(os->m, i);
            return p;
        }
    }
    return NULL;
}

uint32_t hcp_inject_kernel_updates(hcp_os *os, sim_thread *t, uint32_t n) {
    os_thread *ot = hcp_os_thread(os, t);
    if (!ot || !ot->prof.enabled) return ERROR_INVALID_PARAMETER;
    ot->prof.inject = n;
    return ERROR_SUCCESS;
}

uint32_t hcp_ReadThreadProfilingData(hcp_os *os, uint64_t PerformanceDataHandle, uint32_t Flags,
                                     uint64_t PerformanceData) {
    if (!os->plat->hcp) return hcp_not_implemented(os);
    uint8_t pd[HCP_PERFORMANCE_DATA_SIZE];
    /* Simulator-defined: an unreadable or unwritable buffer is ERROR_NOACCESS
     * before anything is written (Windows faults in user mode). */
    if (sim_mem_probe(os->m, PerformanceData, sizeof pd, true) != SIM_OK ||
        sim_mem_read(os->m, PerformanceData, pd, sizeof pd) != SIM_OK)
        return win32(STATUS_ACCESS_VIOLATION);
    if (hcp_get16(pd + PD_OFF(Size)) != HCP_PERFORMANCE_DATA_SIZE) return win32(STATUS_INVALID_BUFFER_SIZE);
    if (pd[PD_OFF(Version)] != PERFORMANCE_DATA_VERSION) return win32(STATUS_INVALID_PARAMETER_3);
    if (Flags & ~(READ_THREAD_PROFILING_FLAG_DISPATCHING | READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS))
        return win32(STATUS_INVALID_PARAMETER_2);
    /* Simulator-defined: Windows does not validate the handle (HCP-SPEC §2.4);
     * here a handle that is not a live profiling block is ERROR_INVALID_HANDLE. */
    sim_thread *t = NULL;
    prof_record *p = find_record(os, PerformanceDataHandle, &t);
    if (!p) return win32(STATUS_INVALID_HANDLE);

    const hcp_sem_rules *rule = &HCP_SEM_RULES[os->sem];
    bool disp = Flags & READ_THREAD_PROFILING_FLAG_DISPATCHING;
    bool hw = Flags & READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS;
    bool dflag = p->flags & THREAD_PROFILING_FLAG_DISPATCH;
    uint64_t cycles = pmu_bank_cycle_time(sim_thread_bank(t)) - pmu_bank_cycle_time(&p->start);
    uint32_t retries = p->inject; /* the seqlock loop's extra iterations (hcp_inject_kernel_updates) */
    p->inject = 0;

    if (rule->times_always) /* ntdll's reader (HCP-SPEC §2.4 step 4) */
        hcp_put64(pd + PD_OFF(WaitReasonBitMap), 0);
    if (rule->times_always || disp) {
        hcp_put64(pd + PD_OFF(CycleTime), cycles);
        hcp_put32(pd + PD_OFF(RetryCount), retries); /* 0 unless a test injected kernel updates */
    }
    if (disp) {
        hcp_put32(pd + PD_OFF(ContextSwitchCount), dflag ? p->ctxsw : 0);
        hcp_put64(pd + PD_OFF(WaitReasonBitMap), dflag ? p->wr_bitmap : 0);
        p->wr_bitmap = 0; /* read and clear: "since the last read" */
    }
    if (hw) {
        unsigned with_data = 0;
        for (uint32_t i = 0; i < MAX_HW_COUNTERS; i++) {
            if (!(p->mask >> i & 1)) continue;
            uint8_t *e = pd + PD_OFF(HwCounters) + 16 * i;
            if (i < os->cfg_count) {
                hcp_put32(e, PMCCounter);
                hcp_put32(e + 4, 0);
                hcp_put64(e + 8, counter_value(os, p, t, i));
                with_data++;
            } else if (rule->unconfigured_zero) {
                hcp_put32(e, PMCCounter);
                hcp_put32(e + 4, 0);
                hcp_put64(e + 8, 0);
            }
        }
        pd[PD_OFF(HwCountersCount)] = (uint8_t)(rule->count_configured ? (p->mask ? os->cfg_count : 0) : with_data);
    }
    sim_mem_write(os->m, PerformanceData, pd, sizeof pd);
    return ERROR_SUCCESS;
}
