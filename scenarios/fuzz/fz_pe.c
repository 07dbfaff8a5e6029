/* scenarios/fuzz/fz_pe.c — target `pe`: arbitrary bytes as a Windows program (api/pe.c).
 * hcp_pe_parse must accept the image or name its defect in a non-empty message; an accepted
 * image's fields must be the ones the loader relies on (sections inside SizeOfImage, the entry
 * point inside an executable section).  An accepted image then loads into a fresh machine of
 * the profile its machine type implies (x86-64: win10-x64, i386: win7-x86), or is refused with
 * "NAME: message"; a loaded image's main thread runs its entry point for at most PE_CYCLES
 * cycles (enough for a small program's whole run): the run must end as a return, a guest exception, a stop that names
 * its cause (an import hcpsim lacks, a bad argument to a simulated function, ExitProcess) or the
 * cycle limit, never an emulator error, a host crash or a hang.
 * Seeds: the programs the Makefile builds (build/pe/, copied by run.sh) and malformed variants of
 * them (scenarios/fuzz/seeds/pe/). */
#include <string.h>

#include "api/pe.h"
#include "api/platform.h"
#include "api/system.h"
#include "scenarios/fuzz/fuzz.h"

#define PE_STEPS 2000     /* scheduler passes per input */
#define PE_CYCLES 2000000 /* guest cycles per input: mingw-w64's startup and a hello world take about 560,000 */

static const char P[] = "pe";

int hcpfz_pe(const uint8_t *data, size_t size) {
    hcp_pe_info info;
    char msg[512] = "";
    if (hcp_pe_parse(data, size, &info, msg, sizeof msg) != 0) {
        if (!msg[0] || !memchr(msg, 0, sizeof msg)) hcpfz_fail(P, "a refused image without a message");
        return 0;
    }
    bool in_exec = false;
    for (int i = 0; i < info.nsections; i++) {
        const hcp_pe_section *s = &info.sec[i];
        uint32_t span = s->vsize ? s->vsize : s->rawsize;
        if (s->rva > info.size_of_image || span > info.size_of_image - s->rva)
            hcpfz_fail(P, "accepted section %d (RVA 0x%X, 0x%X bytes) outside SizeOfImage 0x%X", i, s->rva, span,
                       info.size_of_image);
        if (s->rawsize && (s->raw > size || s->rawsize > size - s->raw))
            hcpfz_fail(P, "accepted section %d with raw data past the end of the file", i);
        if (info.entry >= s->rva && info.entry - s->rva < span && (s->flags & 0x20000000u)) in_exec = true;
    }
    if (!in_exec) hcpfz_fail(P, "accepted entry point 0x%X outside every executable section", info.entry);

    const hcp_platform *plat = hcp_platform_find(info.pe32plus ? "win10-x64" : "win7-x86");
    hcp_system_opts o;
    hcp_system_opts_init(&o, plat);
    o.sim.max_cycles = PE_CYCLES;
    o.sim.max_trap_points = HCPFZ_MAX_TRAPS;
    hcp_system sys;
    if (hcp_system_new(&o, &sys, msg, sizeof msg) != 0) hcpfz_fail(P, "hcp_system_new failed: %s", msg);
    static const char *const args[] = {"a", "b c"};
    hcp_process *p = hcp_process_load(sys.os, "fuzz.exe", data, size, args, 2, msg, sizeof msg);
    if (!p) {
        if (strncmp(msg, "fuzz.exe: ", 10) != 0 || !msg[10])
            hcpfz_fail(P, "a refused load whose message does not name the image: '%s'", msg);
        hcp_system_free(&sys);
        return 0;
    }
    if (hcp_process_entry(p) != hcp_process_base(p) + info.entry) hcpfz_fail(P, "the entry point moved");
    sim_thread *t;
    if (sim_thread_new(sys.m, "fuzz.exe", 8, ~UINT64_C(0), -1, &t) != SIM_OK || hcp_process_attach_thread(p, t) != 0)
        hcpfz_fail(P, "main thread set-up failed");
    bool started = false;
    for (int step = 0; step < PE_STEPS; step++) {
        sim_thread *cur;
        if (sim_sched_next(sys.m, &cur) != SIM_RUN_THREAD) break;
        if (!started) {
            started = true;
            uint64_t a[1] = {0};
            if (sim_call_begin(cur, hcp_process_entry(p), a, 0) != SIM_OK) break;
        }
        sim_call_status st = sim_call_continue(cur);
        if (st == SIM_CALL_YIELD) continue;
        if (st != SIM_CALL_RETURNED && st != SIM_CALL_FAULTED && st != SIM_CALL_LIMIT)
            hcpfz_fail(P, "the entry point's run ended in an emulator error: %s", sim_call_error(cur));
        const char *why = hcp_process_failure(p);
        if (why && !memchr(why, 0, 256)) hcpfz_fail(P, "an unterminated failure message");
        break;
    }
    hcp_system_free(&sys);
    return 0;
}

HCPFZ_ENTRY(hcpfz_pe)
