/* api/platform.c — the platform profile table (api/platform.h).  Every
 * per-platform fact of the OS is a field here; api/ asks the machine's
 * profile and never compares profile names.  api/README.md "Platforms"
 * explains each choice. */
#include "api/platform.h"

#include <stdio.h>
#include <string.h>

#define OBS_10 "the Windows 10/11 implementation (HCP-SPEC §2, §4: decompiled 11 21H2/24H2 builds)"
#define OBS_7                                                                                                          \
    "the Windows 10/11 implementation, assumed for Windows 7: no source settles how 7 differs (HCP-SPEC open "         \
    "question 1)"
#define X64_CC "Microsoft x64: rcx, rdx, r8, r9, then the stack above 32 bytes of home space; result in rax"

static const hcp_platform platforms[] = {
    {"win10-x64", "Windows 10/11 x64 (the implementation facts of HCP-SPEC come from these builds)", SIM_ARCH_X64,
     X64_CC, true, OBS_10, HCP_TIMES_NT, true, true, true, 3, PMU_COST_PROFILE_DEFAULT, true},
    {"win7-x64", "Windows 7 x64 (the first version with the HCP functions)", SIM_ARCH_X64, X64_CC, true, OBS_7,
     HCP_TIMES_NT, true, true, true, 3, PMU_COST_PROFILE_DEFAULT, false},
    {"win7-x86", "Windows 7 x86: 32-bit guest, 4-byte pointers and handles, 32-bit kernel logger", SIM_ARCH_X86,
     "stdcall: arguments on the stack right to left, the callee pops them; result in eax", true, OBS_7, HCP_TIMES_NT,
     true, true, true, 3, PMU_COST_PROFILE_DEFAULT, false},
    {"win11-arm64", "Windows 11 on ARM64", SIM_ARCH_ARM64, "AAPCS64: x0-x7, then the stack; result in x0", true, OBS_10,
     HCP_TIMES_NT, true, true, true, 3, PMU_COST_PROFILE_DEFAULT, true},
    {"ce2.12-arm", "Windows CE 2.12 on ARM: CE GetThreadTimes rules, no HCP functions, no kernel logger", SIM_ARCH_ARM,
     "AAPCS: r0-r3, then the stack; result in r0", false, "nothing: the HCP functions do not exist", HCP_TIMES_CE,
     false, false, false, 0, PMU_COST_PROFILE_DEFAULT, false},
};
#define NPLATFORMS ((int)(sizeof platforms / sizeof platforms[0]))

const hcp_platform *hcp_platform_find(const char *name) {
    for (int i = 0; name && i < NPLATFORMS; i++)
        if (strcmp(platforms[i].name, name) == 0) return &platforms[i];
    return NULL;
}

const hcp_platform *hcp_platform_at(int i) { return i >= 0 && i < NPLATFORMS ? &platforms[i] : NULL; }

unsigned hcp_platform_ptr_size(const hcp_platform *p) { return sim_arch_ptr_size(p->arch); }

const char *hcp_platform_names(void) { /* built from the table, so it cannot fall behind it */
    static char names[256];
    if (!names[0])
        for (int i = 0; i < NPLATFORMS; i++) {
            size_t n = strlen(names);
            snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", platforms[i].name);
        }
    return names;
}
