/* scenarios/fuzz/fz_marshal.c — target `marshal`: the api/ functions that
 * read and write Windows structures in guest memory, called directly (no
 * Lua) with arbitrary handles, flags, counts, buffer contents and addresses:
 * unmapped, in guard pages, straddling the end of a region, in read-only
 * code and the call gate, misaligned, NULL.  Threads are switched, run guest
 * code (so counters move) and exit between calls, so stale profiling blocks
 * and handles are used too.
 *
 * Besides crashes it checks what the specification promises about bytes
 * (HCP-SPEC §2, §4; api/README.md): a ReadThreadProfilingData that fails
 * leaves the 288-byte buffer as it was, one that succeeds keeps Size and
 * Version, reports at most 16 counters when asked for them and leaves the
 * fields its flags do not name, and Reserved, as the caller set them; KeQueryHardwareCounterConfiguration
 * leaves the array alone unless it succeeds; EnableThreadProfiling writes its
 * out-parameter only when it succeeds (or returns ERROR_NOACCESS);
 * KeSetHardwareCounterConfiguration changes the configuration only when it
 * succeeds.  Bits 3-4 of the first byte choose the platform (win10-x64,
 * win11-arm64, win7-x86, ce2.12-arm), so 4-byte handles and pointers and the
 * 32-bit memory plan are marshalled too. */
#include <stddef.h>
#include <string.h>

#include "api/platform.h"
#include "scenarios/fuzz/fuzz.h"

#define MARSHAL_MAX_OPS 96
#define MAX_THREADS 6
#define HANDLES 16

typedef struct marshal {
    hcpfz_in in;
    hcp_system sys;
    sim_machine *m;
    hcp_os *os;
    uint64_t data, data2, code, spin; /* an m:alloc-like buffer of 2 pages, one of 1 page, a code page */
    unsigned ps;                      /* guest pointer and HANDLE size: 8 or 4 */
    uint64_t handles[HANDLES];        /* thread handles, profiling blocks, anything seen */
    int nhandles;
    sim_thread *threads[MAX_THREADS];
    bool in_call[MAX_THREADS];
    int nthreads;
} marshal;

static const char T[] = "marshal";

static void keep(marshal *s, uint64_t v) { s->handles[s->nhandles++ % HANDLES] = v; }

static uint64_t ms_address(marshal *s) {
    static const uint64_t bases64[] = {
        0,
        UINT64_C(0x70000000),     /* the OS heap (profiling blocks) */
        UINT64_C(0x100000000),    /* the call gate: read+execute */
        UINT64_C(0x7FFFFFFD0000), /* the scratch page */
        UINT64_C(0x7FFFFFFE0000), /* the return sentinel: read-only */
        UINT64_C(0x7FF000000000), /* a stack guard page */
        UINT64_C(0x20000000),     /* never mapped */
        UINT64_MAX - 15,
    };
    static const uint64_t bases32[] = {
        /* the same places in the 32-bit plan (sim/README.md "Guest memory"), and past 4 GiB */
        0,
        UINT64_C(0x70000000),
        UINT64_C(0x7FFE0000),
        UINT64_C(0xFFFD0000),
        UINT64_C(0xFFFE0000),
        UINT64_C(0x80000000),
        UINT64_C(0x20000000),
        UINT64_C(0xFFFFFFF0),
    };
    const uint64_t *bases = s->ps == 8 ? bases64 : bases32;
    static const int64_t ends[] = {0, 1, 2, 4, 8, 16, 287, 288, 289, 447, 448, 4096};
    uint8_t k = hcpfz_u8(&s->in);
    uint64_t base;
    switch (k % 8) {
    case 0:
    case 1: base = s->data; break;
    case 2: base = s->data2; break;
    case 3: base = s->code; break;
    case 4: base = s->nhandles ? s->handles[hcpfz_u8(&s->in) % HANDLES] : 0; break;
    case 5: base = bases[hcpfz_u8(&s->in) % 8]; break;
    case 6: return hcpfz_u64(&s->in);
    default: base = s->data + 0x2000; break; /* the guard page after data */
    }
    uint8_t how = hcpfz_u8(&s->in);
    switch (how % 4) {
    case 0: return base + (how >> 2);                                     /* a little way in, misaligned too */
    case 1: return base + 0x1000 - (uint64_t)ends[hcpfz_u8(&s->in) % 12]; /* up to the end of a page */
    case 2: return base + 0x2000 - (uint64_t)ends[hcpfz_u8(&s->in) % 12];
    default: return base + hcpfz_u16(&s->in);
    }
}

static uint64_t ms_handle(marshal *s) {
    uint8_t k = hcpfz_u8(&s->in);
    switch (k % 6) {
    case 0: return HCP_CURRENT_THREAD;
    case 1: return HCP_CURRENT_PROCESS;
    case 2:
    case 3: return s->nhandles ? s->handles[hcpfz_u8(&s->in) % HANDLES] + (k >> 6) : 0;
    case 4: return (uint64_t)(k >> 3) << 2;
    default: return hcpfz_u64(&s->in);
    }
}

static uint32_t ms_dword(marshal *s) {
    uint8_t k = hcpfz_u8(&s->in);
    switch (k % 4) {
    case 0: return k >> 2 & 3;
    case 1: return (uint32_t)1 << (k >> 2 & 31);
    case 2: return 0xFFFFFFFFu >> (k >> 2 & 31);
    default: return hcpfz_u32(&s->in);
    }
}

static bool readable(marshal *s, uint64_t a, size_t n, uint8_t *buf) { return sim_mem_read(s->m, a, buf, n) == SIM_OK; }

/* Every function here reads the input in statement order: the arguments of one call are
 * unsequenced, and gcc (make test) and clang (make fuzz) would read a kept input differently. */

/* Fills a writable buffer with input bytes (or a pattern) before a call. */
static void fill(marshal *s, uint64_t a, size_t n) {
    uint8_t buf[16 * 20];
    size_t got;
    const uint8_t *p = hcpfz_take(&s->in, n, &got);
    memcpy(buf, p, got);
    memset(buf + got, 0xA5, n - got);
    (void)sim_mem_write(s->m, a, buf, n);
}

static sim_thread *current(marshal *s) { return sim_sched_current(s->m); }

static int index_of(marshal *s, sim_thread *t) {
    for (int i = 0; i < s->nthreads; i++)
        if (s->threads[i] == t) return i;
    return -1;
}

/* Runs the scheduler until some thread runs its "body" (our op loop); a
 * thread that was inside a guest call continues it first.  False when the
 * run is over (every thread exited, deadlock, cycle limit). */
static bool settle(marshal *s) {
    for (int guard = 0; guard < 10000; guard++) {
        sim_thread *t = current(s);
        if (!t) {
            sim_run_status rs = sim_sched_next(s->m, &t);
            if (rs != SIM_RUN_THREAD) return false;
        }
        int i = index_of(s, t);
        if (i < 0 || !s->in_call[i]) return true;
        sim_call_status cs = sim_call_continue(t);
        if (cs == SIM_CALL_YIELD) continue;
        s->in_call[i] = false;
        if (cs == SIM_CALL_LIMIT) return false;
        if (cs == SIM_CALL_ERROR) hcpfz_fail(T, "guest call failed: %s", sim_call_error(t));
        if (current(s) == t) return true;
    }
    return false;
}

static void op_keset(marshal *s) {
    uint32_t count = hcpfz_u8(&s->in) % 20;
    uint64_t arr = ms_address(s);
    if (hcpfz_u8(&s->in) & 1) fill(s, arr, 16u * (count ? count : 1));
    uint8_t before[16 * 16 + 4], after[sizeof before];
    uint32_t cnt0 = 0, cnt1 = 0;
    uint64_t q = s->data2 + 0x800, qc = s->data2 + 0xF00;
    (void)hcp_KeQueryHardwareCounterConfiguration(s->os, q, 16, qc);
    sim_mem_read(s->m, q, before, 16 * 16);
    sim_mem_read(s->m, qc, &cnt0, 4);
    uint32_t st = hcp_KeSetHardwareCounterConfiguration(s->os, arr, count);
    (void)hcp_KeQueryHardwareCounterConfiguration(s->os, q, 16, qc);
    sim_mem_read(s->m, q, after, 16 * 16);
    sim_mem_read(s->m, qc, &cnt1, 4);
    if (st != STATUS_SUCCESS && (cnt0 != cnt1 || memcmp(before, after, 16u * (cnt0 < 16 ? cnt0 : 16)) != 0))
        hcpfz_fail(T, "KeSetHardwareCounterConfiguration failed (0x%08X) but changed the configuration", st);
    if (st == STATUS_SUCCESS && cnt1 != count)
        hcpfz_fail(T, "KeSetHardwareCounterConfiguration(%u) succeeded but %u counters are configured", count, cnt1);
}

static void op_kequery(marshal *s) {
    uint32_t max = hcpfz_u8(&s->in) % 20;
    if (max == 19) max = hcpfz_u32(&s->in);
    uint64_t arr = ms_address(s), cnt = ms_address(s);
    size_t span = 16u * (max < 17 ? max : 17);
    uint8_t before[16 * 17], after[16 * 17];
    bool r = span && readable(s, arr, span, before);
    uint32_t st = hcp_KeQueryHardwareCounterConfiguration(s->os, max ? arr : 0, max, cnt);
    if (r && st != STATUS_SUCCESS && readable(s, arr, span, after) && memcmp(before, after, span) != 0 &&
        !(cnt >= arr && cnt < arr + span) && !(cnt + 4 > arr && cnt < arr))
        hcpfz_fail(T, "KeQueryHardwareCounterConfiguration failed (0x%08X) but wrote the array", st);
}

static void op_enable(marshal *s) {
    uint64_t h = ms_handle(s), mask = hcpfz_u8(&s->in) % 4 ? hcpfz_u16(&s->in) : hcpfz_u64(&s->in);
    uint32_t flags = ms_dword(s);
    uint64_t out = ms_address(s);
    uint8_t before[8], after[8];
    bool r = readable(s, out, 8, before);
    uint32_t rc = hcp_EnableThreadProfiling(s->os, h, flags, mask, out);
    bool r2 = readable(s, out, 8, after);
    if (rc == ERROR_SUCCESS && r2) keep(s, s->ps == 8 ? hcp_get64(after) : hcp_get32(after));
    bool in_heap = out >= UINT64_C(0x70000000) && out < UINT64_C(0x74000000); /* the block it made and freed */
    if (rc != ERROR_SUCCESS && rc != ERROR_NOACCESS && r && r2 && !in_heap && memcmp(before, after, 8) != 0)
        hcpfz_fail(T, "EnableThreadProfiling failed (%u) but wrote its out-parameter", rc);
}

static void op_read(marshal *s) {
    uint64_t h = hcpfz_u8(&s->in) % 4 && s->nhandles ? s->handles[hcpfz_u8(&s->in) % HANDLES] : ms_handle(s);
    uint32_t flags = ms_dword(s);
    uint64_t pd = ms_address(s);
    uint8_t hdr = hcpfz_u8(&s->in);
    uint8_t init[HCP_PERFORMANCE_DATA_SIZE];
    size_t got;
    const uint8_t *p = hcpfz_take(&s->in, hdr & 0x80 ? sizeof init : 0, &got);
    memset(init, 0, sizeof init);
    memcpy(init, p, got);
    if (!(hdr & 1)) hcp_put16(init, HCP_PERFORMANCE_DATA_SIZE);
    if (!(hdr & 2)) init[2] = PERFORMANCE_DATA_VERSION;
    (void)sim_mem_write(s->m, pd, init, sizeof init);
    uint8_t before[HCP_PERFORMANCE_DATA_SIZE], after[HCP_PERFORMANCE_DATA_SIZE];
    bool r = readable(s, pd, sizeof before, before);
    uint32_t rc = hcp_ReadThreadProfilingData(s->os, h, flags, pd);
    bool r2 = readable(s, pd, sizeof after, after);
    if (rc != ERROR_SUCCESS && r && r2 && memcmp(before, after, sizeof before) != 0)
        hcpfz_fail(T, "ReadThreadProfilingData failed (%u) but wrote the buffer", rc);
    if (rc == ERROR_SUCCESS) {
        if (!r || !r2) hcpfz_fail(T, "ReadThreadProfilingData succeeded on an unreadable buffer");
        if (hcp_get16(after) != HCP_PERFORMANCE_DATA_SIZE || after[2] != PERFORMANCE_DATA_VERSION)
            hcpfz_fail(T, "ReadThreadProfilingData succeeded but Size/Version changed");
        /* HCP-SPEC §2.4: HARDWARE_COUNTERS writes HwCountersCount and HwCounters, DISPATCHING
         * ContextSwitchCount; what a flag does not write, and Reserved, stays as the caller set
         * it (edge case 20). */
        bool hw = flags & READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS;
        size_t hc = offsetof(PERFORMANCE_DATA, HwCounters), cs = offsetof(PERFORMANCE_DATA, ContextSwitchCount);
        size_t cnt = offsetof(PERFORMANCE_DATA, HwCountersCount), rsv = offsetof(PERFORMANCE_DATA, Reserved);
        if (hw && after[cnt] > MAX_HW_COUNTERS) hcpfz_fail(T, "HwCountersCount %u > 16", after[cnt]);
        if (!hw && (after[cnt] != before[cnt] || memcmp(after + hc, before + hc, sizeof after - hc) != 0))
            hcpfz_fail(T, "ReadThreadProfilingData without HARDWARE_COUNTERS wrote HwCountersCount or HwCounters");
        if (!(flags & READ_THREAD_PROFILING_FLAG_DISPATCHING) && memcmp(after + cs, before + cs, 4) != 0)
            hcpfz_fail(T, "ReadThreadProfilingData without DISPATCHING wrote ContextSwitchCount");
        if (memcmp(after + rsv, before + rsv, 4) != 0) hcpfz_fail(T, "ReadThreadProfilingData wrote Reserved");
    }
}

static void op_misc(marshal *s) {
    uint8_t k = hcpfz_u8(&s->in);
    switch (k % 8) {
    case 0: (void)hcp_DisableThreadProfiling(s->os, ms_handle(s)); break;
    case 1: {
        uint64_t h = ms_handle(s), a = ms_address(s);
        (void)hcp_QueryThreadProfiling(s->os, h, a);
        break;
    }
    case 2: {
        uint64_t h = ms_handle(s);
        uint64_t a[4];
        for (int i = 0; i < 4; i++) a[i] = hcpfz_u8(&s->in) & 1 ? ms_address(s) : 0;
        (void)hcp_GetThreadTimes(s->os, h, a[0], a[1], a[2], a[3]);
        break;
    }
    case 3: {
        uint64_t h = ms_handle(s), a = ms_address(s);
        (void)hcp_QueryThreadCycleTime(s->os, h, a);
        break;
    }
    case 4: {
        uint32_t access = ms_dword(s);
        bool inherit = hcpfz_u8(&s->in) & 1;
        uint64_t h = hcp_OpenThread(s->os, access, inherit, 1000 + 4u * (hcpfz_u8(&s->in) % 8));
        if (h) keep(s, h);
        break;
    }
    case 5: (void)hcp_CloseHandle(s->os, ms_handle(s)); break;
    case 6:
        if (s->nthreads) {
            sim_thread *t = s->threads[hcpfz_u8(&s->in) % s->nthreads];
            keep(s, hcp_thread_handle(s->os, t, ms_dword(s)));
        }
        break;
    default: hcp_SetLastError(s->os, ms_dword(s)); break;
    }
}

/* Moves time and threads: guest code, a new thread, a switch, an exit. */
static bool op_sched(marshal *s) {
    sim_thread *t = current(s);
    int i = index_of(s, t);
    uint8_t k = hcpfz_u8(&s->in);
    switch (k % 5) {
    case 0:
    case 1: { /* spin(n) on the current thread */
        uint64_t n = hcpfz_u16(&s->in);
        if (i < 0 || sim_call_begin(t, s->spin, &n, 1) != SIM_OK) break;
        s->in_call[i] = true;
        break;
    }
    case 2:
        if (s->nthreads < MAX_THREADS) {
            sim_thread *nt;
            if (sim_thread_new(s->m, "w", 1 + hcpfz_u8(&s->in) % 15, ~UINT64_C(0), -1, &nt) == SIM_OK) {
                s->threads[s->nthreads++] = nt;
                keep(s, hcp_thread_handle(s->os, nt, THREAD_ALL_ACCESS));
            }
        }
        break;
    case 3: (void)hcp_SwitchToThread(s->os); break;
    default:
        if (i >= 0) sim_thread_exit(t, k);
        break;
    }
    return settle(s);
}

/* spin(n): n turns of a loop, per guest ISA (its calling convention's first argument). */
static const uint8_t spin_x64[] = {0x48, 0x89, 0xc8, 0x48, 0x85, 0xc9, 0x74, 0x05, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3};
/* mov ecx, [esp+4]; mov eax, ecx; test ecx, ecx; jz ret; dec ecx; jnz dec; ret 4 */
static const uint8_t spin_x86[] = {0x8b, 0x4c, 0x24, 0x04, 0x89, 0xc8, 0x85, 0xc9,
                                   0x74, 0x03, 0x49, 0x75, 0xfd, 0xc2, 0x04, 0x00};
/* cbz x0, ret; subs x0, x0, #1; b.ne subs; ret */
static const uint8_t spin_arm64[] = {0x60, 0x00, 0x00, 0xb4, 0x00, 0x04, 0x00, 0xf1,
                                     0xe1, 0xff, 0xff, 0x54, 0xc0, 0x03, 0x5f, 0xd6};
/* cmp r0, #0; bxeq lr; subs r0, r0, #1; bne subs; bx lr */
static const uint8_t spin_arm[] = {0x00, 0x00, 0x50, 0xe3, 0x1e, 0xff, 0x2f, 0x01, 0x01, 0x00,
                                   0x50, 0xe2, 0xfd, 0xff, 0xff, 0x1a, 0x1e, 0xff, 0x2f, 0xe1};

static void marshal_run(marshal *s) {
    uint8_t cfg = hcpfz_u8(&s->in);
    const hcp_platform *plat = hcpfz_platform(cfg >> 3);
    s->ps = hcp_platform_ptr_size(plat);
    hcp_system_opts o;
    hcp_system_opts_init(&o, plat);
    o.semantics = cfg & 1 ? HCP_OBSERVED : HCP_DOCUMENTED;
    o.sim.max_cycles = HCPFZ_GUEST_CYCLES * 4;
    o.sim.cpus = 1 + (cfg >> 1 & 1);
    char msg[256];
    int rc = hcp_system_new(&o, &s->sys, msg, sizeof msg);
    s->m = s->sys.m;
    s->os = s->sys.os;
    if (rc != 0) return;
    const uint8_t *spin = spin_x64;
    size_t nspin = sizeof spin_x64;
    switch (plat->arch) {
    case SIM_ARCH_X64: break;
    case SIM_ARCH_X86: spin = spin_x86, nspin = sizeof spin_x86; break;
    case SIM_ARCH_ARM64: spin = spin_arm64, nspin = sizeof spin_arm64; break;
    case SIM_ARCH_ARM: spin = spin_arm, nspin = sizeof spin_arm; break;
    }
    if (!s->os || sim_alloc(s->m, 0x2000, &s->data) != SIM_OK || sim_alloc(s->m, 0x1000, &s->data2) != SIM_OK ||
        sim_code(s->m, spin, nspin, &s->spin) != SIM_OK)
        hcpfz_fail(T, "machine set-up failed");
    s->code = s->spin;
    for (int i = 0; i < 2; i++) {
        sim_thread *t;
        if (sim_thread_new(s->m, "t", 8, ~UINT64_C(0), -1, &t) != SIM_OK) hcpfz_fail(T, "thread set-up failed");
        s->threads[s->nthreads++] = t;
        keep(s, hcp_thread_handle(s->os, t, THREAD_ALL_ACCESS));
    }
    /* the kernel calls work without a running thread */
    if (cfg & 4) op_keset(s);
    if (!settle(s)) return;
    for (int n = 0; n < MARSHAL_MAX_OPS && s->in.n; n++) {
        switch (hcpfz_u8(&s->in) % 8) {
        case 0: op_keset(s); break;
        case 1: op_kequery(s); break;
        case 2: op_enable(s); break;
        case 3:
        case 4: op_read(s); break;
        case 5: op_misc(s); break;
        default:
            if (!op_sched(s)) return;
            break;
        }
        if (!current(s) && !settle(s)) return;
    }
}

int hcpfz_marshal(const uint8_t *data, size_t size) {
    marshal s;
    memset(&s, 0, sizeof s);
    s.in = (hcpfz_in){data, size};
    marshal_run(&s);
    hcp_system_free(&s.sys);
    return 0;
}

HCPFZ_ENTRY(hcpfz_marshal)
