/* api/kecfg.c — KeSetHardwareCounterConfiguration and
 * KeQueryHardwareCounterConfiguration (HCP-SPEC §4): the global list of
 * hardware counters that bit i of EnableThreadProfiling's mask selects.
 * Where documentation and implementation differ (§11.6) the semantics' row of
 * HCP_SEM_RULES (profiling.c) decides; on a platform without the HCP
 * functions (the profile's `hcp`) both return STATUS_NOT_IMPLEMENTED, as S8/S9
 * document for unsupported architectures. */
#include "api/api_int.h"

uint32_t hcp_KeSetHardwareCounterConfiguration(hcp_os *os, uint64_t CounterArray, uint32_t Count) {
    if (!os->plat->hcp) return STATUS_NOT_IMPLEMENTED;
    if (Count > MAX_HW_COUNTERS) return STATUS_INVALID_PARAMETER;
    const hcp_sem_rules *rule = &HCP_SEM_RULES[os->sem];
    if (Count && os->cfg_count && rule->keset_any_blocks) return STATUS_WMI_ALREADY_ENABLED; /* before the read */
    uint8_t buf[16 * MAX_HW_COUNTERS];
    /* Simulator-defined: an unreadable array is STATUS_ACCESS_VIOLATION (the kernel would raise). */
    if (Count && sim_mem_read(os->m, CounterArray, buf, 16u * Count) != SIM_OK) return STATUS_ACCESS_VIOLATION;
    if (Count && os->cfg_count) {
        /* documented: "one or more of the counters are already enabled"; otherwise the call replaces */
        for (uint32_t i = 0; i < Count; i++)
            for (uint32_t j = 0; j < os->cfg_count; j++)
                if ((uint32_t)hcp_get64(buf + 16 * i + 8) == os->cfg_index[j]) return STATUS_WMI_ALREADY_ENABLED;
    }
    /* Only the low 32 bits of Index are kept; Type and Reserved are not validated. */
    for (uint32_t i = 0; i < Count; i++) os->cfg_index[i] = (uint32_t)hcp_get64(buf + 16 * i + 8);
    os->cfg_count = Count;
    return STATUS_SUCCESS;
}

uint32_t hcp_KeQueryHardwareCounterConfiguration(hcp_os *os, uint64_t CounterArray, uint32_t MaximumCount,
                                                 uint64_t Count) {
    if (!os->plat->hcp) return STATUS_NOT_IMPLEMENTED; /* nothing written */
    uint8_t c[4];
    hcp_put32(c, os->cfg_count);
    if (sim_mem_write(os->m, Count, c, 4) != SIM_OK) return STATUS_ACCESS_VIOLATION;
    if (os->cfg_count > MaximumCount) return STATUS_BUFFER_TOO_SMALL; /* required count written, array untouched */
    if (!os->cfg_count) return STATUS_SUCCESS;                        /* CounterArray may be NULL */
    uint8_t buf[16 * MAX_HW_COUNTERS];
    for (uint32_t i = 0; i < os->cfg_count; i++) {
        hcp_put32(buf + 16 * i, PMCCounter);
        hcp_put32(buf + 16 * i + 4, 0);
        hcp_put64(buf + 16 * i + 8, os->cfg_index[i]);
    }
    if (sim_mem_write(os->m, CounterArray, buf, 16u * os->cfg_count) != SIM_OK) return STATUS_ACCESS_VIOLATION;
    return STATUS_SUCCESS;
}
