/* api/k32_profiling.c — the thread-profiling functions and thread times as
 * guest code calls them: the call gate's own imports, one implementation each
 * with the Lua binding (profiling.c, times.c; they charge their own kernel
 * entry, api/README.md "Call gate"). */
#include "api/exports_gen.h"

uint64_t hcp_k32_EnableThreadProfiling(hcp_ctx *c, const hcp_k32_EnableThreadProfiling_args *a) {
    return hcp_EnableThreadProfiling(c->os, a->ThreadHandle, a->Flags, a->HardwareCounters, a->PerformanceDataHandle);
}
uint64_t hcp_k32_DisableThreadProfiling(hcp_ctx *c, const hcp_k32_DisableThreadProfiling_args *a) {
    return hcp_DisableThreadProfiling(c->os, a->PerformanceDataHandle);
}
uint64_t hcp_k32_QueryThreadProfiling(hcp_ctx *c, const hcp_k32_QueryThreadProfiling_args *a) {
    return hcp_QueryThreadProfiling(c->os, a->ThreadHandle, a->Enabled);
}
uint64_t hcp_k32_ReadThreadProfilingData(hcp_ctx *c, const hcp_k32_ReadThreadProfilingData_args *a) {
    return hcp_ReadThreadProfilingData(c->os, a->PerformanceDataHandle, a->Flags, a->PerformanceData);
}
uint64_t hcp_k32_QueryThreadCycleTime(hcp_ctx *c, const hcp_k32_QueryThreadCycleTime_args *a) {
    return (uint32_t)hcp_QueryThreadCycleTime(c->os, a->ThreadHandle, a->CycleTime);
}
uint64_t hcp_k32_GetThreadTimes(hcp_ctx *c, const hcp_k32_GetThreadTimes_args *a) {
    return (uint32_t)hcp_GetThreadTimes(c->os, a->hThread, a->lpCreationTime, a->lpExitTime, a->lpKernelTime,
                                        a->lpUserTime);
}
