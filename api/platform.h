/* api/platform.h — platform profiles: which guest ISA, pointer size and
 * calling convention a simulated Windows has, and which OS behaviour it
 * follows (HCP-SPEC §4.3, §7, §8; api/README.md "Platforms").  One table
 * (api/platform.c) is the only place a profile's facts live. */
#ifndef HCPSIM_PLATFORM_H
#define HCPSIM_PLATFORM_H

#include <stdbool.h>

#include "sim/sim.h"

typedef enum hcp_times_rule {
    HCP_TIMES_NT = 0, /* GetThreadTimes of Windows NT (HCP-SPEC §8.1-8.3) */
    HCP_TIMES_CE = 1, /* Windows CE 2.10-2.12 (HCP-SPEC §8.5, seed 004) */
} hcp_times_rule;

typedef struct hcp_platform {
    const char *name;         /* "win10-x64" */
    const char *description;  /* one line for `hcpsim describe` */
    sim_arch arch;            /* guest ISA; pointer size (handles, pointers, the logger's P fields):
                                 hcp_platform_ptr_size */
    const char *callconv;     /* the calling convention guest code and thunks use */
    bool hcp;                 /* the four HCP functions and Ke* exist; else they fail with
                                 ERROR_CALL_NOT_IMPLEMENTED / STATUS_NOT_IMPLEMENTED */
    const char *observed;     /* what semantics = "observed" stands for here (HCP-SPEC §11, open question 1) */
    hcp_times_rule times;     /* GetThreadTimes rules */
    bool query_limited;       /* THREAD_QUERY_LIMITED_INFORMATION exists (Vista+) and suffices for the
                                 thread times; else THREAD_QUERY_INFORMATION is needed (CE, HCP-SPEC §8.1-8.2) */
    bool cycle_time;          /* QueryThreadCycleTime exists (Vista+, HCP-SPEC §8.4); else
                                 ERROR_CALL_NOT_IMPLEMENTED */
    bool etw;                 /* an NT Kernel Logger exists */
    int etw_thread_version;   /* default Class.Version of Thread Start/End/DCStart/DCEnd events (0-3;
                                 machine option etw_thread_version) */
    const char *cost_profile; /* the cost profile of its CPU (pmu_model/: pmu_cost_defaults), by the
                                 model's own name; reports print the platform's name, not this */
    bool win8;                /* the user mode of Windows 8 and later: ntdll's SRW locks, condition variables
                                 and WaitOnAddress wait with WrAlertByThreadId (else WrKeyedEvent), a
                                 CRITICAL_SECTION's DebugInfo is (PRTL_CRITICAL_SECTION_DEBUG)-1 (else a
                                 debug block), FLS has 4080 indices (else 128) */
} hcp_platform;

/* The profile called `name`, or NULL. */
const hcp_platform *hcp_platform_find(const char *name);
/* The i-th profile (0 = the default, win10-x64), NULL past the end. */
const hcp_platform *hcp_platform_at(int i);
/* Bytes of a pointer or HANDLE on p: 4 (x86, ARM) or 8 (x64, ARM64). */
unsigned hcp_platform_ptr_size(const hcp_platform *p);
/* "win10-x64, win7-x64, ..." — every profile name, for error messages. */
const char *hcp_platform_names(void);

#endif
