/* scenarios/fuzz/fz_guest.c — target `guest`: arbitrary bytes placed with
 * sim_code and called as a Windows function by one to three threads,
 * with the call gate attached (guest code may call the import thunks) and a
 * small max_cycles.  Every call must end as a return, a guest exception with
 * one of the codes sim/ documents, or the cycle limit: never an emulator
 * error, a host crash or a hang.  Inputs with the top bit of the first byte
 * set run twice on fresh machines and must give the same results, counters,
 * clock and memory (determinism).  Every guest ISA hcpsim has is reached.
 *
 * Input: [cfg] [entry] 4 x [argument selector, payload] [code...]
 *   cfg bit 0 precise_faults, 1 cache model, 2 no predictor, 3 two CPUs,
 *   bits 4-5 threads - 1 (1..3), 6 observed semantics, 7 run twice.
 *   entry bits 0-5: the entry's offset in the code (modulo its length);
 *   bits 6-7 the platform, so the guest CPU: win10-x64, win11-arm64,
 *   win7-x86 (4-byte pointers, stdcall), ce2.12-arm (4-byte pointers; the
 *   HCP imports fail with ERROR_CALL_NOT_IMPLEMENTED).
 *   selector % 6: 0 a small integer (1 byte), 1 the data buffer + offset
 *   (2 bytes; page 1 holds a PERFORMANCE_DATA header), 2 an import table
 *   (bit 3: the 4 thunks profile_loop takes, else all of them in thunk
 *   order), 3 the code + offset (1 byte), 4 any 64-bit value (8 bytes),
 *   5 the stack area + offset (2 bytes). */
#include <string.h>

#include "api/platform.h"
#include "scenarios/fuzz/fuzz.h"

#define GUEST_DATA 0x3000u
#define GUEST_STEPS 20000 /* scheduler passes per run */

static const char G[] = "guest";

static bool known_code(uint32_t code) {
    static const uint32_t codes[] = {0xC0000005u, 0xC00000FDu, 0xC000001Du, 0xC0000094u, 0x80000004u, 0x80000003u,
                                     0xC0000095u, 0xC000008Cu, 0xC0000409u, 0xC0000420u, 0xC0000096u, 0x80000002u};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (codes[i] == code) return true;
    return false;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001B3);
    return h;
}

static uint64_t fnv64(uint64_t h, uint64_t v) {
    uint8_t b[8];
    hcp_put64(b, v);
    return fnv(h, b, 8);
}

/* A guest pointer of ps bytes (little-endian on every guest ISA). */
static void put_ptr(uint8_t *p, unsigned ps, uint64_t v) {
    for (unsigned i = 0; i < ps; i++) p[i] = (uint8_t)(v >> 8 * i);
}

/* One run on a fresh machine; returns a digest of everything observable. */
static uint64_t guest_run(const uint8_t *data, size_t size) {
    hcpfz_in in = {data, size};
    uint8_t cfg = hcpfz_u8(&in), entry_byte = hcpfz_u8(&in), entry_off = entry_byte & 63;
    const hcp_platform *plat = hcpfz_platform(entry_byte >> 6);
    unsigned ps = hcp_platform_ptr_size(plat);                                       /* guest pointers: 8 or 4 bytes */
    uint64_t stack_area = ps == 8 ? UINT64_C(0x7FF000000000) : UINT64_C(0x80000000); /* sim/README.md */
    uint8_t sel[4];
    uint64_t payload[4];
    for (int i = 0; i < 4; i++) {
        sel[i] = hcpfz_u8(&in);
        switch (sel[i] % 6) {
        case 0:
        case 3: payload[i] = hcpfz_u8(&in); break;
        case 1:
        case 5: payload[i] = hcpfz_u16(&in); break;
        case 4: payload[i] = hcpfz_u64(&in); break;
        default: payload[i] = 0; break;
        }
    }
    size_t ncode;
    const uint8_t *code = hcpfz_take(&in, 4096, &ncode);
    static const uint8_t ret[] = {0xC3, 0x1E, 0xFF, 0x2F, 0xE1}; /* x86 ret; ARM bx lr */
    static const uint8_t ret64[] = {0xC0, 0x03, 0x5F, 0xD6};     /* ARM64 ret */
    if (!ncode) {
        code = plat->arch == SIM_ARCH_ARM64 ? ret64 : plat->arch == SIM_ARCH_ARM ? ret + 1 : ret;
        ncode = plat->arch == SIM_ARCH_ARM64 || plat->arch == SIM_ARCH_ARM ? 4 : 1;
    }

    hcp_system_opts o;
    hcp_system_opts_init(&o, plat);
    o.semantics = cfg >> 6 & 1 ? HCP_OBSERVED : HCP_DOCUMENTED;
    o.sim.precise_faults = cfg & 1;
    hcp_system_set_cache(&o, cfg >> 1 & 1);
    o.sim.predictor = !(cfg >> 2 & 1);
    o.sim.cpus = 1 + (cfg >> 3 & 1);
    o.sim.max_cycles = HCPFZ_GUEST_CYCLES;
    o.sim.stack_size = 16384;
    o.sim.max_trap_points = HCPFZ_MAX_TRAPS;
    int nthreads = 1 + (cfg >> 4 & 3);
    if (nthreads > 3) nthreads = 3;

    uint64_t h = UINT64_C(0xCBF29CE484222325);
    hcp_system sys;
    char msg[256];
    if (hcp_system_new(&o, &sys, msg, sizeof msg) != 0) hcpfz_fail(G, "hcp_system_new failed: %s", msg);
    sim_machine *m = sys.m;

    uint64_t buf, table_all, table_prof, at;
    if (sim_alloc(m, GUEST_DATA, &buf) != SIM_OK || sim_alloc(m, 8 * 32, &table_all) != SIM_OK ||
        sim_alloc(m, 32, &table_prof) != SIM_OK)
        hcpfz_fail(G, "guest memory set-up failed");
    uint8_t b[8 * 32];
    memset(b, 0, sizeof b);
    for (int i = 0; i < 32 && hcp_import_name(i); i++)
        put_ptr(b + ps * i, ps, hcp_import_address(m, hcp_import_name(i)));
    sim_mem_write(m, table_all, b, sizeof b);
    static const char *const prof[] = {"GetCurrentThread", "EnableThreadProfiling", "ReadThreadProfilingData",
                                       "DisableThreadProfiling"};
    memset(b, 0, sizeof b);
    for (int i = 0; i < 4; i++) put_ptr(b + ps * i, ps, hcp_import_address(m, prof[i]));
    sim_mem_write(m, table_prof, b, 32);
    put_ptr(b, ps, buf); /* the buffer starts with its own address: pointer chains stay mapped */
    sim_mem_write(m, buf, b, ps);
    uint8_t pd[4] = {0x20, 0x01, PERFORMANCE_DATA_VERSION, 0}; /* Size 288, Version 1 */
    sim_mem_write(m, buf + 0x1000, pd, 4);
    sim_err ce = sim_code(m, code, ncode, &at);
    if (ce == SIM_ERR_TRAPS) { /* a documented refusal: more trap points than the machine takes */
        hcp_system_free(&sys);
        return h;
    }
    if (ce != SIM_OK) hcpfz_fail(G, "sim_code failed");

    uint64_t args[4];
    for (int i = 0; i < 4; i++) {
        switch (sel[i] % 6) {
        case 0: args[i] = payload[i]; break;
        case 1: args[i] = buf + payload[i] % GUEST_DATA; break;
        case 2: args[i] = sel[i] & 8 ? table_prof : table_all; break;
        case 3: args[i] = at + payload[i]; break;
        case 4: args[i] = payload[i]; break;
        default: args[i] = stack_area + payload[i]; break;
        }
    }
    uint64_t entry = at + entry_off % ncode;

    sim_thread *threads[3];
    bool started[3] = {false, false, false};
    for (int i = 0; i < nthreads; i++)
        if (sim_thread_new(m, "g", 8, ~UINT64_C(0), -1, &threads[i]) != SIM_OK) hcpfz_fail(G, "thread set-up failed");
    for (int step = 0; step < GUEST_STEPS; step++) {
        sim_thread *t;
        sim_run_status rs = sim_sched_next(m, &t);
        if (rs != SIM_RUN_THREAD) {
            h = fnv64(h, 0x100u + (uint64_t)rs);
            break;
        }
        int i = sim_thread_index(t);
        if (i < 0 || i >= nthreads) hcpfz_fail(G, "the scheduler ran an unknown thread %d", i);
        if (!started[i]) {
            started[i] = true;
            sim_err e = sim_call_begin(t, entry, args, 4);
            if (e != SIM_OK) {
                h = fnv64(h, 0x200u + (uint64_t)e);
                sim_thread_exit(t, 1);
                continue;
            }
        }
        sim_call_status st = sim_call_continue(t);
        h = fnv64(h, (uint64_t)st);
        if (st == SIM_CALL_YIELD) continue;
        if (st == SIM_CALL_RETURNED) {
            h = fnv64(h, sim_call_result(t));
        } else if (st == SIM_CALL_FAULTED) {
            const sim_fault *f = sim_call_fault(t);
            if (!known_code(hcp_fault_status(f->kind)))
                hcpfz_fail(G, "fault with an undocumented code 0x%08X", hcp_fault_status(f->kind));
            if (f->nbytes < 0 || f->nbytes > 16 || (f->access != 0 && f->access != 1 && f->access != 8))
                hcpfz_fail(G, "malformed fault record (%d bytes, access %d)", f->nbytes, f->access);
            h = fnv64(h, hcp_fault_status(f->kind));
            h = fnv64(h, f->address);
            h = fnv64(h, f->data);
            h = fnv64(h, (uint64_t)f->access);
            h = fnv(h, f->bytes, (size_t)f->nbytes);
        } else if (st == SIM_CALL_LIMIT) {
            break;
        } else {
            hcpfz_fail(G, "guest call ended in an emulator error, not an exception: %s", sim_call_error(t));
        }
        sim_thread_exit(t, 0);
    }
    for (int i = 0; i < nthreads; i++) {
        const pmu_bank *bank = sim_thread_bank(threads[i]);
        for (int e = 0; e < PMU_EV__COUNT; e++) h = fnv64(h, bank->ev[e]);
        h = fnv64(h, sim_thread_switches(threads[i]));
        h = fnv64(h, (uint64_t)sim_thread_state_of(threads[i]));
    }
    h = fnv64(h, sim_clock(m));
    uint8_t mem[GUEST_DATA];
    if (sim_mem_read(m, buf, mem, sizeof mem) == SIM_OK) h = fnv(h, mem, sizeof mem);
    hcp_system_free(&sys);
    return h;
}

int hcpfz_guest(const uint8_t *data, size_t size) {
    uint64_t a = guest_run(data, size);
    if (size && data[0] & 0x80) {
        uint64_t b = guest_run(data, size);
        if (a != b)
            hcpfz_fail(G, "two runs of the same code differ (digest %016llX vs %016llX)", (unsigned long long)a,
                       (unsigned long long)b);
    }
    return 0;
}

HCPFZ_ENTRY(hcpfz_guest)
