/* api/tests/platform_test.c — the OS side of the platform profiles (api/platform.c,
 * api/README.md "Platforms"), each on the machine hcp_system_new builds for the
 * profile (its own guest CPU).  Expected values come from HCP-SPEC (§4, §7.2-7.3, §8.2, §8.4) and seed
 * 004, never from the program:
 *   - the ETW payload layouts are computed below from the spec's field lists
 *     (sizes 4, 1 or P, packed in declaration order), for P = 4 and 8;
 *   - ce2.12-arm: the HCP functions ERROR_CALL_NOT_IMPLEMENTED (120) with the
 *     last error set, Ke* STATUS_NOT_IMPLEMENTED (0xC0000002), GetThreadTimes
 *     0, 0, 0 and the total run time (1 s of kernel work = 10,000,000), 0 after
 *     exit, THREAD_QUERY_INFORMATION needed, QueryThreadCycleTime absent, no
 *     kernel logger;
 *   - win7-x86: 4-byte HANDLEs in guest memory, (HANDLE)-2 as 0xFFFFFFFE, the
 *     44-byte Thread_TypeGroup1 of a 32-bit logger. */
#include <string.h>

#include "api/hcp_api.h"
#include "api/platform.h"
#include "api/system.h"
#include "conformance/tap.h"

#define FREQ 3000000000u /* the default frequency: 1 s = 3e9 cycles */

/* ---- the spec's field lists (HCP-SPEC §7.3): name, size (0 = pointer-sized) ---------- */
typedef struct spec_field {
    const char *name;
    unsigned size;
} spec_field;
static const spec_field V3[] = {{"ProcessId", 4},     {"TThreadId", 4},      {"StackBase", 0},    {"StackLimit", 0},
                                {"UserStackBase", 0}, {"UserStackLimit", 0}, {"Affinity", 0},     {"Win32StartAddr", 0},
                                {"TebBase", 0},       {"SubProcessTag", 4},  {"BasePriority", 1}, {"PagePriority", 1},
                                {"IoPriority", 1},    {"ThreadFlags", 1}};
static const spec_field V2[] = {{"ProcessId", 4},     {"TThreadId", 4},      {"StackBase", 0}, {"StackLimit", 0},
                                {"UserStackBase", 0}, {"UserStackLimit", 0}, {"StartAddr", 0}, {"Win32StartAddr", 0},
                                {"TebBase", 0},       {"SubProcessTag", 4}};
static const spec_field V1G1[] = {{"ProcessId", 4},  {"TThreadId", 4},      {"StackBase", 0},
                                  {"StackLimit", 0}, {"UserStackBase", 0},  {"UserStackLimit", 0},
                                  {"StartAddr", 0},  {"Win32StartAddr", 0}, {"WaitMode", 1}};
static const spec_field V1G2[] = {{"ProcessId", 4}, {"TThreadId", 4}};
static const spec_field V0[] = {{"TThreadId", 4}, {"ProcessId", 4}};
#define N(a) ((int)(sizeof a / sizeof a[0]))

static void check_layout(int version, unsigned ptr, uint8_t type, const spec_field *want, int nwant, unsigned bytes) {
    hcp_etw_field f[16];
    const char *name;
    int n = hcp_etw_layout(version, ptr, type, f, &name);
    int same = n == nwant;
    unsigned off = 0;
    for (int i = 0; same && i < n; i++) {
        unsigned size = want[i].size ? want[i].size : ptr;
        same = strcmp(f[i].name, want[i].name) == 0 && f[i].offset == off && f[i].size == size;
        off += size;
    }
    ok(same, "V%d, %u-byte pointers, type %u (%s, %s): the spec's fields, packed in declaration order", version, ptr,
       type, name ? name : "?", hcp_etw_payload_class(version, type));
    is_u64(off, bytes, "  payload size %u bytes", bytes);
}

/* ---- a machine with two threads, A running ---------------------------------------------- */
typedef struct rig {
    hcp_system sys;
    sim_machine *m;
    hcp_os *os;
    sim_thread *a, *b;
    uint64_t buf;
} rig;

static void rig_new(rig *r, const char *platform) {
    hcp_system_opts o;
    hcp_system_opts_init(&o, hcp_platform_find(platform));
    char msg[256];
    if (hcp_system_new(&o, &r->sys, msg, sizeof msg) != 0) bail("hcp_system_new: %s", msg);
    r->m = r->sys.m;
    r->os = r->sys.os;
    sim_thread_new(r->m, "A", 8, 1, -1, &r->a);
    sim_thread_new(r->m, "B", 8, 1, -1, &r->b);
    sim_thread *t;
    if (sim_sched_next(r->m, &t) != SIM_RUN_THREAD || t != r->a) bail("A does not run first");
    sim_alloc(r->m, 4096, &r->buf);
}

static void rig_free(rig *r) { hcp_system_free(&r->sys); }

static void poison(rig *r, size_t n) {
    uint8_t p[64];
    memset(p, 0xA5, sizeof p);
    sim_mem_write(r->m, r->buf, p, n);
}

static int poisoned(rig *r, uint64_t off, size_t n) {
    uint8_t p[64];
    sim_mem_read(r->m, r->buf + off, p, n);
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0xA5) return 0;
    return 1;
}

static uint64_t rd64(rig *r, uint64_t off) {
    uint8_t b[8];
    sim_mem_read(r->m, r->buf + off, b, 8);
    return hcp_get64(b);
}

/* ---- ETW capture -------------------------------------------------------------------------- */
typedef struct capture {
    int n;
    uint8_t ev[8][HCP_ETW_HEADER_SIZE + 72];
    size_t size[8];
} capture;

static void sink(void *ud, const hcp_etw_event *ev) {
    capture *c = ud;
    if (c->n < 8) {
        memcpy(c->ev[c->n], ev->data, ev->size);
        c->size[c->n++] = ev->size;
    }
}

static void put(uint8_t *p, size_t *at, uint64_t v, unsigned size) {
    for (unsigned i = 0; i < size; i++) p[*at + i] = (uint8_t)(v >> (8 * i));
    *at += size;
}

/* The payload the spec's field list gives for a thread outside any guest call
 * (stacks 0), no start address, TEB or tag, with these values. */
static size_t expect_payload(uint8_t *p, const spec_field *f, int n, unsigned ptr, uint32_t tid, uint64_t affinity,
                             int prio) {
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        unsigned size = f[i].size ? f[i].size : ptr;
        uint64_t v = 0;
        if (strcmp(f[i].name, "ProcessId") == 0) v = HCP_ETW_PROCESS_ID;
        if (strcmp(f[i].name, "TThreadId") == 0) v = tid;
        if (strcmp(f[i].name, "Affinity") == 0) v = affinity;
        if (strcmp(f[i].name, "BasePriority") == 0) v = (uint64_t)prio;
        if (strcmp(f[i].name, "PagePriority") == 0) v = 5; /* MEMORY_PRIORITY_NORMAL */
        if (strcmp(f[i].name, "IoPriority") == 0) v = 2;   /* IoPriorityNormal */
        put(p, &at, v, size);
    }
    return at;
}

static void check_rundown(const char *platform, int version, const spec_field *f, int n, unsigned ptr) {
    rig r;
    rig_new(&r, platform);
    if (version >= 0) hcp_etw_set_thread_version(r.os, version);
    capture cap = {0};
    is_u64(hcp_etw_start(r.os, EVENT_TRACE_FLAG_THREAD, sink, &cap), ERROR_SUCCESS, "%s V%d: the kernel logger starts",
           platform, hcp_etw_thread_version(r.os));
    ok(cap.n == 2, "%s: DCStart for A and B", platform);
    uint8_t want[72];
    size_t len = expect_payload(want, f, n, ptr, sim_thread_id(r.b), 1, 8);
    const uint8_t *ev = cap.ev[1];
    is_u64(cap.size[1], HCP_ETW_HEADER_SIZE + len, "%s: B's DCStart: 48-byte header + %zu-byte payload", platform, len);
    is_u64(hcp_get16(ev), HCP_ETW_HEADER_SIZE + len, "%s: header Size = the event's bytes", platform);
    is_u64(ev[4], EVENT_TRACE_TYPE_DC_START, "%s: Class.Type @4 = DCStart (3)", platform);
    is_u64(hcp_get16(ev + 6), (uint64_t)hcp_etw_thread_version(r.os), "%s: Class.Version @6 = the class version",
           platform);
    ok(cap.size[1] == HCP_ETW_HEADER_SIZE + len && memcmp(ev + HCP_ETW_HEADER_SIZE, want, len) == 0,
       "%s: payload byte for byte = the spec's fields with B's values", platform);
    hcp_etw_stop(r.os, false);
    rig_free(&r);
}

int main(void) {
    tap_clause("PLAT-TABLE");
    const char *names[] = {"win10-x64", "win7-x64", "win7-x86", "win11-arm64", "ce2.12-arm"};
    for (int i = 0; i < 5; i++) is_str(hcp_platform_at(i)->name, names[i], "profile %d is %s", i, names[i]);
    ok(hcp_platform_at(5) == NULL && hcp_platform_find("win95-x86") == NULL, "no other profile");
    is_u64(hcp_platform_ptr_size(hcp_platform_find("win7-x86")), 4, "win7-x86: 4-byte pointers");
    is_u64(hcp_platform_ptr_size(hcp_platform_find("ce2.12-arm")), 4, "ce2.12-arm: 4-byte pointers");
    is_u64(hcp_platform_ptr_size(hcp_platform_find("win11-arm64")), 8, "win11-arm64: 8-byte pointers");
    for (int i = 0; i < 4; i++) {
        const hcp_platform *p = hcp_platform_find(names[i]);
        ok(p->hcp && p->times == HCP_TIMES_NT && p->query_limited && p->cycle_time && p->etw &&
               p->etw_thread_version == 3,
           "%s: HCP, NT thread times, THREAD_QUERY_LIMITED_INFORMATION, QueryThreadCycleTime, a logger of Thread V3",
           names[i]);
    }
    const hcp_platform *ce = hcp_platform_find("ce2.12-arm");
    ok(!ce->hcp && ce->times == HCP_TIMES_CE && !ce->query_limited && !ce->cycle_time && !ce->etw,
       "ce2.12-arm: no HCP, CE thread times, QUERY_INFORMATION only, no QueryThreadCycleTime, no logger");
    for (int i = 0; i < 5; i++) {
        const hcp_platform *p = hcp_platform_find(names[i]);
        pmu_cost_params cp;
        ok(pmu_cost_defaults(&cp, p->cost_profile) == PMU_OK && hcp_platform_find(p->cost_profile) == NULL,
           "%s: its cost profile %s is one of the cost model's, not a platform's name", names[i], p->cost_profile);
    }

    tap_clause("PLAT-ETW-LAYOUTS");
    for (unsigned ptr = 4; ptr <= 8; ptr += 4) {
        for (uint8_t ty = EVENT_TRACE_TYPE_START; ty <= EVENT_TRACE_TYPE_DC_END; ty++) {
            int end = ty == EVENT_TRACE_TYPE_END || ty == EVENT_TRACE_TYPE_DC_END;
            check_layout(3, ptr, ty, V3, N(V3), ptr == 8 ? 72 : 44); /* edge 56 */
            check_layout(2, ptr, ty, V2, N(V2), ptr == 8 ? 68 : 40);
            if (end)
                check_layout(1, ptr, ty, V1G2, N(V1G2), 8);
            else
                check_layout(1, ptr, ty, V1G1, N(V1G1), ptr == 8 ? 57 : 33);
            check_layout(0, ptr, ty, V0, N(V0), 8); /* edge 54: TThreadId first */
        }
        hcp_etw_field f[16];
        for (int v = 0; v <= 3; v++) {
            int n = hcp_etw_layout(v, ptr, EVENT_TRACE_TYPE_CSWITCH, f, NULL);
            ok(n == 12 && f[6].offset == 12 && f[8].offset == 14 && f[11].offset + f[11].size == 24,
               "V%d, %u-byte pointers: CSwitch 24 bytes, OldThreadWaitReason @12, OldThreadState @14", v, ptr);
            n = hcp_etw_layout(v, ptr, EVENT_TRACE_TYPE_READYTHREAD, f, NULL);
            ok(n == 5 && f[4].offset == 7 && f[4].size == 1, "V%d, %u-byte pointers: ReadyThread 8 bytes", v, ptr);
        }
        ok(hcp_etw_layout(3, ptr, 0, f, NULL) == 0 && hcp_etw_layout(3, ptr, 5, f, NULL) == 0,
           "types 0 and 5 have no payload here");
    }

    tap_clause("PLAT-CE-NO-HCP");
    {
        rig r;
        rig_new(&r, "ce2.12-arm");
        poison(&r, 16);
        hcp_SetLastError(r.os, 0xDEADBEEF);
        is_u64(hcp_EnableThreadProfiling(r.os, HCP_CURRENT_THREAD, 0, 0, r.buf), ERROR_CALL_NOT_IMPLEMENTED,
               "ce2.12-arm: EnableThreadProfiling -> 120");
        is_u64(hcp_GetLastError(r.os), ERROR_CALL_NOT_IMPLEMENTED, "  and GetLastError() = 120");
        ok(poisoned(&r, 0, 16), "  the out-parameter is untouched");
        hcp_SetLastError(r.os, 0xDEADBEEF);
        is_u64(hcp_QueryThreadProfiling(r.os, HCP_CURRENT_THREAD, r.buf), 120, "QueryThreadProfiling -> 120");
        is_u64(hcp_GetLastError(r.os), 120, "  GetLastError() = 120");
        ok(poisoned(&r, 0, 1), "  Enabled untouched");
        hcp_SetLastError(r.os, 0xDEADBEEF);
        is_u64(hcp_ReadThreadProfilingData(r.os, r.buf, 3, r.buf + 64), 120, "ReadThreadProfilingData -> 120");
        is_u64(hcp_GetLastError(r.os), 120, "  GetLastError() = 120");
        hcp_SetLastError(r.os, 0xDEADBEEF);
        is_u64(hcp_DisableThreadProfiling(r.os, r.buf), 120, "DisableThreadProfiling -> 120");
        is_u64(hcp_GetLastError(r.os), 120, "  GetLastError() = 120");
        uint8_t hc[16] = {0};
        sim_mem_write(r.m, r.buf + 128, hc, 16);
        is_u64(hcp_KeSetHardwareCounterConfiguration(r.os, r.buf + 128, 1), STATUS_NOT_IMPLEMENTED,
               "KeSetHardwareCounterConfiguration -> STATUS_NOT_IMPLEMENTED (0xC0000002)");
        poison(&r, 16);
        is_u64(hcp_KeQueryHardwareCounterConfiguration(r.os, r.buf + 16, 1, r.buf), STATUS_NOT_IMPLEMENTED,
               "KeQueryHardwareCounterConfiguration -> STATUS_NOT_IMPLEMENTED");
        ok(poisoned(&r, 0, 4), "  *Count is not written");
        is_u64(hcp_nt_to_win32(STATUS_NOT_IMPLEMENTED), ERROR_INVALID_FUNCTION, "(which a Win32 caller sees as 1)");

        tap_clause("PLAT-CE-NO-CYCLE-TIME");
        poison(&r, 16);
        hcp_SetLastError(r.os, 0xDEADBEEF);
        is_u64((uint64_t)hcp_QueryThreadCycleTime(r.os, HCP_CURRENT_THREAD, r.buf), 0,
               "ce2.12-arm: QueryThreadCycleTime -> FALSE (Vista+)");
        is_u64(hcp_GetLastError(r.os), ERROR_CALL_NOT_IMPLEMENTED, "  GetLastError() = 120");
        ok(poisoned(&r, 0, 8), "  nothing written");

        tap_clause("PLAT-CE-NO-LOGGER");
        capture cap = {0};
        is_u64(hcp_etw_start(r.os, EVENT_TRACE_FLAG_THREAD, sink, &cap), ERROR_NOT_SUPPORTED,
               "ce2.12-arm: starting the kernel logger -> ERROR_NOT_SUPPORTED");
        ok(cap.n == 0 && !hcp_etw_active(r.os), "  no session, no event");

        tap_clause("PLAT-CE-TIMES");
        /* 1 s of kernel work (3e9 cycles at 3 GHz), plus GetThreadTimes' own entry
         * (1500 cycles = 5 x 100 ns): NT's kernel time is floor((10^7 + 5) / 156250)
         * whole ticks = 64 x 156250 = 10,000,000; no clock interrupt was taken, so
         * NT's user time is 0.  CE: the three zeros and user = 10,000,000. */
        sim_kernel_work(r.a, FREQ);
        poison(&r, 32);
        ok(hcp_GetThreadTimes(r.os, HCP_CURRENT_THREAD, r.buf, r.buf + 8, r.buf + 16, r.buf + 24) == 1,
           "GetThreadTimes(current) succeeds");
        is_u64(rd64(&r, 0), 0, "  CreationTime 0 (unsupported, seed 004)");
        is_u64(rd64(&r, 8), 0, "  ExitTime 0");
        is_u64(rd64(&r, 16), 0, "  KernelTime 0");
        is_u64(rd64(&r, 24), 10000000, "  UserTime = total run time: 1 s = 10,000,000");
        uint64_t lim = hcp_thread_handle(r.os, r.a, THREAD_QUERY_LIMITED_INFORMATION);
        uint64_t full = hcp_thread_handle(r.os, r.a, THREAD_QUERY_INFORMATION);
        hcp_SetLastError(r.os, 0);
        ok(hcp_GetThreadTimes(r.os, lim, 0, 0, 0, r.buf) == 0 && hcp_GetLastError(r.os) == ERROR_ACCESS_DENIED,
           "a handle with THREAD_QUERY_LIMITED_INFORMATION only -> ERROR_ACCESS_DENIED (CE needs QUERY_INFORMATION)");
        ok(hcp_GetThreadTimes(r.os, full, 0, 0, 0, r.buf) == 1, "THREAD_QUERY_INFORMATION: succeeds");
        sim_thread_exit(r.a, 0);
        sim_thread *t;
        ok(sim_sched_next(r.m, &t) == SIM_RUN_THREAD && t == r.b, "A exits, B runs");
        poison(&r, 32);
        ok(hcp_GetThreadTimes(r.os, full, r.buf, r.buf + 8, r.buf + 16, r.buf + 24) == 1,
           "GetThreadTimes on the exited A succeeds");
        ok(rd64(&r, 0) == 0 && rd64(&r, 8) == 0 && rd64(&r, 16) == 0,
           "  CreationTime, ExitTime, KernelTime 0 (no exit time on CE)");
        is_u64(rd64(&r, 24), 0, "  UserTime 0: no longer valid after exit (simulator-defined)");
        rig_free(&r);
    }

    tap_clause("PLAT-NT-CONTROL");
    {
        rig r;
        rig_new(&r, "win7-x64");
        sim_kernel_work(r.a, FREQ);
        ok(hcp_GetThreadTimes(r.os, HCP_CURRENT_THREAD, r.buf, r.buf + 8, r.buf + 16, r.buf + 24) == 1,
           "win7-x64: the same work, GetThreadTimes succeeds");
        is_u64(rd64(&r, 16), 10000000, "  KernelTime 10,000,000 (NT keeps the split)");
        is_u64(rd64(&r, 24), 0, "  UserTime 0");
        is_u64(rd64(&r, 0), 134116992000000000u, "  CreationTime = the boot time (created before the run)");
        uint64_t lim = hcp_thread_handle(r.os, r.a, THREAD_QUERY_LIMITED_INFORMATION);
        ok(hcp_GetThreadTimes(r.os, lim, 0, 0, 0, r.buf) == 1, "  THREAD_QUERY_LIMITED_INFORMATION suffices (Vista+)");
        ok(hcp_QueryThreadCycleTime(r.os, HCP_CURRENT_THREAD, r.buf) == 1, "  QueryThreadCycleTime exists");
        is_u64(hcp_QueryThreadProfiling(r.os, 0xFFFFFFFEu, r.buf), ERROR_INVALID_HANDLE,
               "  0xFFFFFFFE is not (HANDLE)-2 with 8-byte handles: 6");
        rig_free(&r);
    }

    tap_clause("PLAT-X86-HANDLES");
    {
        rig r;
        rig_new(&r, "win7-x86");
        poison(&r, 16);
        is_u64(hcp_EnableThreadProfiling(r.os, 0xFFFFFFFEu, 0, 0, r.buf), ERROR_SUCCESS,
               "win7-x86: Enable with 0xFFFFFFFE ((HANDLE)-2 in 32 bits) succeeds");
        uint8_t b[16];
        sim_mem_read(r.m, r.buf, b, 16);
        uint32_t h = hcp_get32(b);
        ok(h != 0 && (h & 0xF) == 0, "  a 4-byte PerformanceDataHandle is written (0x%08X, 16-byte aligned)", h);
        ok(poisoned(&r, 4, 12), "  and nothing past its 4 bytes");
        ok(hcp_QueryThreadProfiling(r.os, 0xFFFFFFFEu, r.buf + 32) == 0 && rd64(&r, 32) % 256 == 1,
           "  Query(0xFFFFFFFE) -> TRUE");
        is_u64(hcp_DisableThreadProfiling(r.os, h), ERROR_SUCCESS, "  Disable with the 4-byte handle");
        uint64_t th = hcp_OpenThread(r.os, THREAD_ALL_ACCESS, 0, sim_thread_id(r.b));
        ok(th != 0 && th >> 32 == 0, "  OpenThread's handle fits in 32 bits (0x%llx)", (unsigned long long)th);
        ok(hcp_CloseHandle(r.os, 0xFFFFFFFEu) == 1, "  CloseHandle(0xFFFFFFFE): the pseudo-handle, TRUE");
        uint64_t e1 = hcp_create_event(r.os, 1, 1), e2 = hcp_create_event(r.os, 1, 1);
        uint8_t arr[8];
        hcp_put32(arr, (uint32_t)e1);
        hcp_put32(arr + 4, (uint32_t)e2);
        sim_mem_write(r.m, r.buf + 64, arr, 8);
        is_u64(hcp_WaitForMultipleObjects(r.os, 2, r.buf + 64, 1, 0), WAIT_OBJECT_0,
               "  WaitForMultipleObjects reads a HANDLE[2] of 4-byte handles (8 bytes)");
        rig_free(&r);
    }

    tap_clause("PLAT-ETW-PAYLOADS");
    check_rundown("win10-x64", -1, V3, N(V3), 8);
    check_rundown("win7-x64", -1, V3, N(V3), 8);
    check_rundown("win11-arm64", -1, V3, N(V3), 8);
    check_rundown("win7-x86", -1, V3, N(V3), 4); /* edge 56: 44 bytes */
    check_rundown("win7-x86", 2, V2, N(V2), 4);
    check_rundown("win7-x86", 1, V1G1, N(V1G1), 4);
    check_rundown("win7-x86", 0, V0, N(V0), 4);
    check_rundown("win10-x64", 0, V0, N(V0), 8);
    return tap_done();
}
