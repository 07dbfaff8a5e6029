/* api/ntdll.c — ntdll.dll's exports: RtlNtStatusToDosError (errors.c's one
 * table) and NtQueryTimerResolution (the machine's tick is its coarsest,
 * finest and current resolution: the clock never changes rate). */
#include "api/exports_gen.h"

uint64_t hcp_nt_RtlNtStatusToDosError(hcp_ctx *c, const hcp_nt_RtlNtStatusToDosError_args *a) {
    (void)c;
    return hcp_nt_to_win32(a->Status);
}

uint64_t hcp_nt_NtQueryTimerResolution(hcp_ctx *c, const hcp_nt_NtQueryTimerResolution_args *a) {
    uint32_t tick = sim_machine_config(c->m)->tick;
    const uint64_t out[3] = {a->MaximumTime, a->MinimumTime, a->CurrentTime};
    for (int i = 0; i < 3; i++)
        if (sim_mem_probe(c->m, out[i], 4, true) != SIM_OK) return STATUS_ACCESS_VIOLATION;
    for (int i = 0; i < 3; i++) hcp_wr32(c, out[i], tick);
    return STATUS_SUCCESS;
}
