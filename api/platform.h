/* api/platform.h — platform profiles: which guest ISA, pointer size and
 * calling convention a simulated Windows has, and which OS behaviour it
 * follows (HCP-SPEC §4.3, §7, §8; ARCHITECTURE.md "Platforms").  One table
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
    const char *name;        /* "win10-x64" */
    const char *description; /* one line for `hcpsim describe` */
    sim_arch arch;           /* guest ISA; pointer size from sim_arch_ptr_size */
    const char *callconv;    /* the calling convention guest code and thunks use */
    bool hcp;                /* the four HCP functions and Ke* exist */
    hcp_times_rule times;    /* GetThreadTimes rules */
    bool etw;                /* an NT Kernel Logger exists */
    int etw_thread_version;  /* Class.Version of Thread Start/End/DCStart/DCEnd events */
} hcp_platform;

/* The profile called `name`, or NULL. */
const hcp_platform *hcp_platform_find(const char *name);
/* The i-th profile (0 = the default, win10-x64), NULL past the end. */
const hcp_platform *hcp_platform_at(int i);
/* "win10-x64, win7-x64, ..." — every profile name, for error messages. */
const char *hcp_platform_names(void);

#endif
