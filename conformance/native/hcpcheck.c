/* conformance/native/hcpcheck.c — the implementation-independent clauses of
 * the HCP specification as one portable Windows program.
 *
 * Written only against the Windows SDK / mingw-w64 headers (windows.h): no
 * hcpsim code.  Built with mingw-w64 it runs on Windows or under Wine; built
 * on Linux against conformance/native/shim/ it runs inside hcpsim, in a
 * simulated thread, so the verdicts of every implementation come from the
 * same checks (README.md in this folder).
 *
 * Every function under test (the four HCP functions, GetThreadTimes,
 * QueryThreadCycleTime) is resolved with GetProcAddress from kernel32.dll,
 * then kernelbase.dll: a missing export fails the checks that need it with
 * `# missing export NAME`, it never stops the program.  Exact counter values
 * cannot be known on real hardware, so the checks state relations (monotonic,
 * at least one switch after a blocking wait, zero when not enabled, cycle time
 * inside the QueryThreadCycleTime interval ...), the documented constants and
 * layouts, and the exact error codes (HCP-SPEC §2, §5, §9).
 *
 * Output: TAP version 13, `ok N - description [CLAUSE-ID]`, the plan last.
 * Usage: hcpcheck [observed|documented]   (default observed: what Windows 10/11
 * does where the documentation and the implementation differ, HCP-SPEC §11). */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601 /* winbase.h declares the HCP functions from Windows 7 on */
#endif
#ifndef __USE_MINGW_ANSI_STDIO
#define __USE_MINGW_ANSI_STDIO 1 /* C99 printf (%llu) with mingw-w64 */
#endif
#include <windows.h>

#include <evntrace.h>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- the functions under test, resolved at run time ------------------------------------------ */
typedef DWORD(APIENTRY *enable_fn)(HANDLE, DWORD, DWORD64, HANDLE *);
typedef DWORD(APIENTRY *disable_fn)(HANDLE);
typedef DWORD(APIENTRY *query_fn)(HANDLE, PBOOLEAN);
typedef DWORD(APIENTRY *read_fn)(HANDLE, DWORD, PPERFORMANCE_DATA);
typedef BOOL(WINAPI *times_fn)(HANDLE, LPFILETIME, LPFILETIME, LPFILETIME, LPFILETIME);
typedef BOOL(WINAPI *cycles_fn)(HANDLE, PULONG64);

enum { F_ENABLE, F_DISABLE, F_QUERY, F_READ, F_TIMES, F_CYCLES, F_COUNT };
#define NEED(f) (1u << (f))
#define NEED_HCP (NEED(F_ENABLE) | NEED(F_DISABLE) | NEED(F_QUERY) | NEED(F_READ))

static const char *const fn_name[F_COUNT] = {"EnableThreadProfiling", "DisableThreadProfiling",
                                             "QueryThreadProfiling",  "ReadThreadProfilingData",
                                             "GetThreadTimes",        "QueryThreadCycleTime"};
static FARPROC fn_addr[F_COUNT];
static const char *fn_dll[F_COUNT];

static enable_fn p_enable;
static disable_fn p_disable;
static query_fn p_query;
static read_fn p_read;
static times_fn p_times;
static cycles_fn p_cycles;

static int observed = 1; /* semantics the checks expect where §11 makes them differ */

/* ---- TAP --------------------------------------------------------------------------------------- */
static int n_tests, n_failed;
static int hcp_failures_so_far; /* failed checks of HCP-* clauses (the PLAT-*-HCP checks need none) */
static const char *cur_id, *cur_desc;
static char why[512];

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

static void diag(const char *fmt, ...) PRINTF_LIKE(1, 2);
static void diag(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* Starts a test; returns 0 (after printing its `not ok` line) when an export it needs is missing. */
static int begin(const char *id, unsigned need, const char *desc) {
    cur_id = id;
    cur_desc = desc;
    why[0] = 0;
    for (int f = 0; f < F_COUNT; f++) {
        if ((need & NEED(f)) && !fn_addr[f]) {
            n_tests++;
            n_failed++;
            if (strncmp(id, "HCP-", 4) == 0) hcp_failures_so_far++;
            printf("not ok %d - %s [%s] # missing export %s\n", n_tests, desc, id, fn_name[f]);
            return 0;
        }
    }
    return 1;
}

static void end(int pass) {
    n_tests++;
    if (!pass) n_failed++;
    if (!pass && strncmp(cur_id, "HCP-", 4) == 0) hcp_failures_so_far++;
    printf("%s %d - %s [%s]\n", pass ? "ok" : "not ok", n_tests, cur_desc, cur_id);
    if (!pass && why[0]) diag("%s", why);
}

static void end_skip(const char *reason) {
    n_tests++;
    printf("ok %d - %s [%s] # SKIP %s\n", n_tests, cur_desc, cur_id, reason);
}

/* Records the first mismatch of a test (printed as a diagnostic if it fails). */
static int expect(int cond, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int expect(int cond, const char *fmt, ...) {
    if (!cond && !why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);
    }
    return cond;
}

static int expect_u(const char *what, unsigned long long got, unsigned long long want) {
    return expect(got == want, "%s: got %llu (0x%llX), expected %llu (0x%llX)", what, got, got, want, want);
}

static int have_hcp(void) { return fn_addr[F_ENABLE] && fn_addr[F_DISABLE] && fn_addr[F_QUERY] && fn_addr[F_READ]; }

/* ---- calls through the pointers, watching the last error ---------------------------------------- */
/* The HCP functions return their error and leave GetLastError alone (HCP-SPEC §9): every call
 * here runs with the last error preset to a marker, and a call that changes it is counted. */
#define MARK 0xDEADBEEFu
static int lasterr_calls, lasterr_changed;
static const char *lasterr_first;

static void lasterr_check(const char *fn) {
    lasterr_calls++;
    if (GetLastError() != MARK) {
        if (!lasterr_changed) lasterr_first = fn;
        lasterr_changed++;
    }
}

static DWORD enable(HANDLE th, DWORD flags, DWORD64 mask, HANDLE *out) {
    SetLastError(MARK);
    DWORD rc = p_enable(th, flags, mask, out);
    lasterr_check("EnableThreadProfiling");
    return rc;
}

static DWORD disable(HANDLE ph) {
    SetLastError(MARK);
    DWORD rc = p_disable(ph);
    lasterr_check("DisableThreadProfiling");
    return rc;
}

static DWORD query(HANDLE th, PBOOLEAN on) {
    SetLastError(MARK);
    DWORD rc = p_query(th, on);
    lasterr_check("QueryThreadProfiling");
    return rc;
}

static DWORD read_pd(HANDLE ph, DWORD flags, PERFORMANCE_DATA *pd) {
    SetLastError(MARK);
    DWORD rc = p_read(ph, flags, pd);
    lasterr_check("ReadThreadProfilingData");
    return rc;
}

/* A PERFORMANCE_DATA with Size 288, Version 1 and every other byte `fill`. */
static void pd_init(PERFORMANCE_DATA *pd, unsigned char fill) {
    memset(pd, fill, sizeof *pd);
    pd->Size = (WORD)sizeof(PERFORMANCE_DATA);
    pd->Version = PERFORMANCE_DATA_VERSION;
}

/* 1 when Query(th) succeeds and reports `want`. */
static int query_is(HANDLE th, int want, const char *what) {
    BOOLEAN on = 0xA5;
    DWORD rc = query(th, &on);
    return expect_u(what, rc, ERROR_SUCCESS) &&
           expect(on == (want ? 1 : 0), "%s: Enabled = %u, expected %u", what, (unsigned)on, (unsigned)(want ? 1 : 0));
}

static ULONG64 cycles_now(void) {
    ULONG64 c = 0;
    if (!p_cycles(GetCurrentThread(), &c)) c = 0;
    return c;
}

static unsigned long long ft64(FILETIME ft) {
    return ((unsigned long long)ft.dwHighDateTime << 32) | (unsigned long long)ft.dwLowDateTime;
}

/* ---- the second thread --------------------------------------------------------------------------- */
enum { JOB_IDLE, JOB_PROFILE_WAITS, JOB_EXIT_ENABLED, JOB_DISABLE_OTHER, JOB_YIELD, JOB_BURN };
static void burn(unsigned calls);
#define WAITS 3

typedef struct job {
    int kind;
    HANDLE go;           /* IDLE: exit when set; PROFILE_WAITS: set once per wait */
    HANDLE ready;        /* set when the job is profiling (PROFILE_WAITS) */
    HANDLE other_ph;     /* DISABLE_OTHER: the main thread's profiling handle */
    DWORD rc[4];         /* return codes of the job's calls */
    DWORD csw0;          /* PROFILE_WAITS: ContextSwitchCount at the first read */
    DWORD csw[WAITS];    /* ... after each wait */
    DWORD64 bits[WAITS]; /* ... WaitReasonBitMap after each wait */
    DWORD wait_rc[WAITS];
    DWORD tid;          /* the thread's id */
    volatile LONG stop; /* YIELD: yield in a loop until set */
    ULONG64 cycles;     /* BURN: its QueryThreadCycleTime growth over 20000 kernel calls */
} job;

static DWORD WINAPI job_main(LPVOID arg) {
    job *j = arg;
    HANDLE ph = NULL;
    PERFORMANCE_DATA pd;
    switch (j->kind) {
    case JOB_IDLE: WaitForSingleObject(j->go, INFINITE); break;
    case JOB_PROFILE_WAITS:
        j->rc[0] = enable(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
        pd_init(&pd, 0);
        j->rc[1] = read_pd(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd);
        j->csw0 = pd.ContextSwitchCount;
        SetEvent(j->ready);
        for (int i = 0; i < WAITS; i++) {
            j->wait_rc[i] = WaitForSingleObject(j->go, INFINITE);
            pd_init(&pd, 0);
            (void)read_pd(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd);
            j->csw[i] = pd.ContextSwitchCount;
            j->bits[i] = pd.WaitReasonBitMap;
        }
        j->rc[2] = disable(ph);
        break;
    case JOB_EXIT_ENABLED: /* exits without DisableThreadProfiling */
        j->rc[0] = enable(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
        break;
    case JOB_BURN: {
        ULONG64 a = 0, b = 0;
        if (p_cycles && p_cycles(GetCurrentThread(), &a)) {
            burn(20000);
            if (p_cycles(GetCurrentThread(), &b)) j->cycles = b - a;
        }
        break;
    }
    case JOB_YIELD: /* stays ready, so the other thread's SwitchToThread has someone to switch to */
        while (!j->stop) SwitchToThread();
        break;
    case JOB_DISABLE_OTHER:
        j->rc[0] = disable(j->other_ph); /* not profiling itself */
        j->rc[1] = enable(GetCurrentThread(), 0, 0, &ph);
        j->rc[2] = disable(j->other_ph); /* profiling, with another handle */
        j->rc[3] = disable(ph);
        break;
    default: break;
    }
    return 0;
}

static HANDLE start_job(job *j, int kind, HANDLE other_ph) {
    memset(j, 0, sizeof *j);
    j->kind = kind;
    j->other_ph = other_ph;
    j->go = CreateEventA(NULL, FALSE, FALSE, NULL);
    j->ready = CreateEventA(NULL, TRUE, FALSE, NULL);
    return CreateThread(NULL, 0, job_main, j, 0, &j->tid);
}

static void finish_job(job *j, HANDLE th) {
    if (th) {
        WaitForSingleObject(th, INFINITE);
        CloseHandle(th);
    }
    CloseHandle(j->go);
    CloseHandle(j->ready);
}

/* ---- layouts and constants (no calls) --------------------------------------------------------- */
static void check_layouts(void) {
    begin("HCP-LAYOUT-PERFORMANCE-DATA", 0,
          "sizeof(PERFORMANCE_DATA) is 288; Size 0, Version 2, HwCountersCount 3, ContextSwitchCount 4, "
          "WaitReasonBitMap 8, CycleTime 16, RetryCount 24, Reserved 28, HwCounters 32, HwCounters[15] 272");
    int p = expect_u("sizeof(PERFORMANCE_DATA)", sizeof(PERFORMANCE_DATA), 288);
    p &= expect_u("Size", offsetof(PERFORMANCE_DATA, Size), 0);
    p &= expect_u("Version", offsetof(PERFORMANCE_DATA, Version), 2);
    p &= expect_u("HwCountersCount", offsetof(PERFORMANCE_DATA, HwCountersCount), 3);
    p &= expect_u("ContextSwitchCount", offsetof(PERFORMANCE_DATA, ContextSwitchCount), 4);
    p &= expect_u("WaitReasonBitMap", offsetof(PERFORMANCE_DATA, WaitReasonBitMap), 8);
    p &= expect_u("CycleTime", offsetof(PERFORMANCE_DATA, CycleTime), 16);
    p &= expect_u("RetryCount", offsetof(PERFORMANCE_DATA, RetryCount), 24);
    p &= expect_u("Reserved", offsetof(PERFORMANCE_DATA, Reserved), 28);
    p &= expect_u("HwCounters", offsetof(PERFORMANCE_DATA, HwCounters), 32);
    p &= expect_u("HwCounters[15]", offsetof(PERFORMANCE_DATA, HwCounters) + 15 * sizeof(HARDWARE_COUNTER_DATA), 272);
    end(p);

    begin("HCP-LAYOUT-HARDWARE-COUNTER", 0,
          "sizeof(HARDWARE_COUNTER_DATA) is 16: Type 0, Reserved 4, Value 8; HARDWARE_COUNTER_TYPE is 4 bytes");
    p = expect_u("sizeof(HARDWARE_COUNTER_DATA)", sizeof(HARDWARE_COUNTER_DATA), 16);
    p &= expect_u("Type", offsetof(HARDWARE_COUNTER_DATA, Type), 0);
    p &= expect_u("Reserved", offsetof(HARDWARE_COUNTER_DATA, Reserved), 4);
    p &= expect_u("Value", offsetof(HARDWARE_COUNTER_DATA, Value), 8);
    p &= expect_u("sizeof(HARDWARE_COUNTER_TYPE)", sizeof(HARDWARE_COUNTER_TYPE), 4);
    end(p);

    begin("HCP-CONSTANTS", 0,
          "MAX_HW_COUNTERS 16, THREAD_PROFILING_FLAG_DISPATCH 1, PERFORMANCE_DATA_VERSION 1, "
          "READ_THREAD_PROFILING_FLAG_DISPATCHING 1, _HARDWARE_COUNTERS 2, PMCCounter 0, MaxHardwareCounterType 1");
    p = expect_u("MAX_HW_COUNTERS", MAX_HW_COUNTERS, 16);
    p &= expect_u("THREAD_PROFILING_FLAG_DISPATCH", THREAD_PROFILING_FLAG_DISPATCH, 1);
    p &= expect_u("PERFORMANCE_DATA_VERSION", PERFORMANCE_DATA_VERSION, 1);
    p &= expect_u("READ_THREAD_PROFILING_FLAG_DISPATCHING", READ_THREAD_PROFILING_FLAG_DISPATCHING, 1);
    p &= expect_u("READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS", READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, 2);
    p &= expect_u("PMCCounter", PMCCounter, 0);
    p &= expect_u("MaxHardwareCounterType", MaxHardwareCounterType, 1);
    end(p);

    begin(
        "HCP-ERROR-NUMBERS", 0,
        "error codes: ACCESS_DENIED 5, INVALID_HANDLE 6, NOT_ENOUGH_MEMORY 8, NOT_SUPPORTED 50, INVALID_PARAMETER 87, "
        "NOACCESS 998, INVALID_USER_BUFFER 1784, WMI_ALREADY_ENABLED 4206, WMI_ALREADY_DISABLED 4212");
    p = expect_u("ERROR_ACCESS_DENIED", ERROR_ACCESS_DENIED, 5);
    p &= expect_u("ERROR_INVALID_HANDLE", ERROR_INVALID_HANDLE, 6);
    p &= expect_u("ERROR_NOT_ENOUGH_MEMORY", ERROR_NOT_ENOUGH_MEMORY, 8);
    p &= expect_u("ERROR_NOT_SUPPORTED", ERROR_NOT_SUPPORTED, 50);
    p &= expect_u("ERROR_INVALID_PARAMETER", ERROR_INVALID_PARAMETER, 87);
    p &= expect_u("ERROR_NOACCESS", ERROR_NOACCESS, 998);
    p &= expect_u("ERROR_INVALID_USER_BUFFER", ERROR_INVALID_USER_BUFFER, 1784);
    p &= expect_u("ERROR_WMI_ALREADY_ENABLED", ERROR_WMI_ALREADY_ENABLED, 4206);
    p &= expect_u("ERROR_WMI_ALREADY_DISABLED", ERROR_WMI_ALREADY_DISABLED, 4212);
    end(p);

    begin("TIMES-LAYOUT", 0, "sizeof(FILETIME) is 8: dwLowDateTime 0, dwHighDateTime 4");
    p = expect_u("sizeof(FILETIME)", sizeof(FILETIME), 8);
    p &= expect_u("dwLowDateTime", offsetof(FILETIME, dwLowDateTime), 0);
    p &= expect_u("dwHighDateTime", offsetof(FILETIME, dwHighDateTime), 4);
    end(p);
}

/* ---- exports ---------------------------------------------------------------------------------------- */
static void resolve(void) {
    static const char *const dlls[] = {"kernel32.dll", "kernelbase.dll"};
    for (int d = 0; d < 2; d++) {
        HMODULE m = GetModuleHandleA(dlls[d]);
        if (!m) m = LoadLibraryA(dlls[d]);
        if (!m) continue;
        for (int f = 0; f < F_COUNT; f++) {
            if (fn_addr[f]) continue;
            fn_addr[f] = GetProcAddress(m, fn_name[f]);
            if (fn_addr[f]) fn_dll[f] = dlls[d];
        }
    }
    /* FARPROC -> void (*)(void) -> the function's own type: the standard's round trip for function pointers */
    p_enable = (enable_fn)(void (*)(void))fn_addr[F_ENABLE];
    p_disable = (disable_fn)(void (*)(void))fn_addr[F_DISABLE];
    p_query = (query_fn)(void (*)(void))fn_addr[F_QUERY];
    p_read = (read_fn)(void (*)(void))fn_addr[F_READ];
    p_times = (times_fn)(void (*)(void))fn_addr[F_TIMES];
    p_cycles = (cycles_fn)(void (*)(void))fn_addr[F_CYCLES];
}

/* The operating system the program runs on, for the stream's header: ntdll's RtlGetVersion gives
 * the real build (GetVersionEx answers what the manifest allows), wine_get_version names Wine. */
typedef struct os_version {
    DWORD dwOSVersionInfoSize, dwMajorVersion, dwMinorVersion, dwBuildNumber, dwPlatformId;
    unsigned short szCSDVersion[128]; /* OSVERSIONINFOW: WCHAR[128] */
} os_version;
typedef LONG(WINAPI *rtl_get_version_fn)(os_version *);
typedef const char *(*wine_get_version_fn)(void);

static void print_os(void) {
    HMODULE nt = GetModuleHandleA("ntdll.dll");
    if (!nt) return;
    rtl_get_version_fn rgv = (rtl_get_version_fn)(void (*)(void))GetProcAddress(nt, "RtlGetVersion");
    wine_get_version_fn wgv = (wine_get_version_fn)(void (*)(void))GetProcAddress(nt, "wine_get_version");
    os_version v;
    memset(&v, 0, sizeof v);
    v.dwOSVersionInfoSize = (DWORD)sizeof v;
    if (rgv && rgv(&v) == 0)
        diag("os: Windows %lu.%lu.%lu%s%s", (unsigned long)v.dwMajorVersion, (unsigned long)v.dwMinorVersion,
             (unsigned long)v.dwBuildNumber, wgv ? " as reported by Wine " : "", wgv ? wgv() : "");
}

static void check_exports(void) {
    static char desc[F_COUNT][96];
    for (int f = 0; f < F_COUNT; f++) {
        snprintf(desc[f], sizeof desc[f], "%s is exported by kernel32.dll or kernelbase.dll", fn_name[f]);
        begin(f < F_TIMES ? "HCP-EXPORTS" : "TIMES-EXPORTS", 0, desc[f]);
        expect(fn_addr[f] != NULL, "GetProcAddress found no %s", fn_name[f]);
        end(fn_addr[f] != NULL);
        if (fn_addr[f]) diag("%s from %s", fn_name[f], fn_dll[f]);
    }
}

/* ---- EnableThreadProfiling: every error path ------------------------------------------------------- */
#define POISON ((HANDLE)(ULONG_PTR)0x5A5A5A50u)

/* Enable that must fail with `want`, leaving its out-parameter and the thread's state alone. */
static int enable_fails(HANDLE th, DWORD flags, DWORD64 mask, DWORD want) {
    HANDLE out = POISON;
    DWORD rc = enable(th, flags, mask, &out);
    int p = expect_u("EnableThreadProfiling", rc, want);
    p &= expect(out == POISON, "the out-parameter was written on failure");
    p &= query_is(GetCurrentThread(), 0, "QueryThreadProfiling(current) afterwards");
    if (rc == ERROR_SUCCESS && out != POISON) (void)disable(out);
    return p;
}

static void check_enable_errors(void) {
    HANDLE cur = GetCurrentThread();
    HANDLE bad = NULL;
    if (begin("HCP-ENABLE-FLAGS", NEED_HCP, "Enable with Flags 2 returns 87, out-parameter untouched"))
        end(enable_fails(cur, 2, 0, ERROR_INVALID_PARAMETER));
    if (begin("HCP-ENABLE-FLAGS", NEED_HCP, "Enable with Flags 0x80000000 returns 87"))
        end(enable_fails(cur, 0x80000000u, 0, ERROR_INVALID_PARAMETER));
    if (begin("HCP-ENABLE-MASK", NEED_HCP, "Enable with HardwareCounters 0x10000 (a 17th counter) returns 87"))
        end(enable_fails(cur, 0, 0x10000u, ERROR_INVALID_PARAMETER));
    if (begin("HCP-ENABLE-MASK", NEED_HCP, "Enable with HardwareCounters bit 63 returns 87"))
        end(enable_fails(cur, 0, (DWORD64)1 << 63, ERROR_INVALID_PARAMETER));
    if (begin("HCP-ENABLE-ORDER", NEED_HCP, "Enable(NULL handle, Flags 2) returns 87: flags are checked first"))
        end(enable_fails(bad, 2, 0, ERROR_INVALID_PARAMETER));
    if (begin("HCP-ENABLE-ORDER", NEED_HCP, "Enable(NULL handle, mask 0x10000) returns 87: the mask before the handle"))
        end(enable_fails(bad, 0, 0x10000u, ERROR_INVALID_PARAMETER));
    if (begin("HCP-ENABLE-BAD-HANDLE", NEED_HCP, "Enable with a NULL thread handle returns 6"))
        end(enable_fails(bad, 0, 0, ERROR_INVALID_HANDLE));
    if (begin("HCP-ENABLE-BAD-HANDLE", NEED_HCP, "Enable with a closed thread handle returns 6")) {
        HANDLE h = OpenThread(THREAD_ALL_ACCESS, FALSE, GetCurrentThreadId());
        int p = expect(h != NULL, "OpenThread failed (%lu)", (unsigned long)GetLastError());
        if (h) CloseHandle(h);
        end(p && enable_fails(h, 0, 0, ERROR_INVALID_HANDLE));
    }
    if (begin("HCP-ENABLE-BAD-HANDLE", NEED_HCP, "Enable with an event handle instead of a thread returns 6")) {
        HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
        end(expect(ev != NULL, "CreateEvent failed") && enable_fails(ev, 0, 0, ERROR_INVALID_HANDLE));
        if (ev) CloseHandle(ev);
    }
    if (begin("HCP-ENABLE-BAD-HANDLE", NEED_HCP, "Enable with the current-process pseudo handle returns 6"))
        end(enable_fails(GetCurrentProcess(), 0, 0, ERROR_INVALID_HANDLE));
    if (begin("HCP-ENABLE-ACCESS", NEED_HCP,
              "Enable with a handle to the current thread lacking THREAD_SET_INFORMATION "
              "(THREAD_QUERY_INFORMATION only) returns 5")) {
        HANDLE h = OpenThread(THREAD_QUERY_INFORMATION, FALSE, GetCurrentThreadId());
        end(expect(h != NULL, "OpenThread failed (%lu)", (unsigned long)GetLastError()) &&
            enable_fails(h, 0, 0, ERROR_ACCESS_DENIED));
        if (h) CloseHandle(h);
    }
    if (begin("HCP-ENABLE-ACCESS", NEED_HCP,
              "Enable with an OpenThread(THREAD_SET_INFORMATION) handle to the current thread succeeds")) {
        HANDLE h = OpenThread(THREAD_SET_INFORMATION, FALSE, GetCurrentThreadId());
        HANDLE ph = POISON;
        int p = expect(h != NULL, "OpenThread failed (%lu)", (unsigned long)GetLastError());
        if (p) {
            DWORD rc = enable(h, 0, 0, &ph);
            p &= expect_u("EnableThreadProfiling", rc, ERROR_SUCCESS);
            if (rc == ERROR_SUCCESS) p &= expect_u("DisableThreadProfiling", disable(ph), ERROR_SUCCESS);
            CloseHandle(h);
        }
        end(p);
    }
    if (begin("HCP-ENABLE-OTHER-THREAD", NEED_HCP,
              "Enable with a full-access handle to another live thread returns 50; that thread stays unprofiled")) {
        job j;
        HANDLE th = start_job(&j, JOB_IDLE, NULL);
        int p = expect(th != NULL, "CreateThread failed (%lu)", (unsigned long)GetLastError());
        if (p) {
            HANDLE out = POISON;
            p &= expect_u("EnableThreadProfiling(other thread)", enable(th, 0, 0, &out), ERROR_NOT_SUPPORTED);
            p &= expect(out == POISON, "the out-parameter was written on failure");
            p &= query_is(th, 0, "QueryThreadProfiling(other thread)");
            SetEvent(j.go);
        }
        finish_job(&j, th);
        end(p);
    }
}

/* ---- successful enables, Query, Disable ------------------------------------------------------------ */
static void check_enable_query_disable(void) {
    HANDLE cur = GetCurrentThread();
    if (begin(
            "HCP-ENABLE-CURRENT-OK,HCP-QUERY-STATE", NEED_HCP,
            "Query reports FALSE before Enable(current, 0, 0), TRUE after it (non-NULL handle), FALSE after Disable")) {
        int p = query_is(cur, 0, "Query before Enable");
        HANDLE ph = POISON;
        DWORD rc = enable(cur, 0, 0, &ph);
        p &= expect_u("EnableThreadProfiling", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) {
            p &= expect(ph != NULL && ph != POISON, "the profiling handle is NULL or was not written");
            p &= query_is(cur, 1, "Query after Enable");
            p &= expect_u("DisableThreadProfiling", disable(ph), ERROR_SUCCESS);
            p &= query_is(cur, 0, "Query after Disable");
        }
        end(p);
    }
    if (begin("HCP-QUERY-ONE-BYTE", NEED_HCP, "Query writes exactly one byte, 0 or 1")) {
        BOOLEAN b[4] = {0xA5, 0xA5, 0xA5, 0xA5};
        DWORD rc = query(cur, b);
        int p = expect_u("QueryThreadProfiling", rc, ERROR_SUCCESS);
        p &= expect(b[0] == 0, "Enabled = %u, expected 0", (unsigned)b[0]);
        p &= expect(b[1] == 0xA5 && b[2] == 0xA5 && b[3] == 0xA5, "bytes after Enabled were written");
        end(p);
    }
    if (begin("HCP-QUERY-NULL", NEED_HCP, "Query with a NULL Enabled pointer returns 998"))
        end(expect_u("QueryThreadProfiling(current, NULL)", query(cur, NULL), ERROR_NOACCESS));
    if (begin("HCP-QUERY-BAD-HANDLE", NEED_HCP, "Query with a NULL thread handle returns 6")) {
        BOOLEAN b = 0xA5;
        end(expect_u("QueryThreadProfiling(NULL)", query(NULL, &b), ERROR_INVALID_HANDLE));
    }
    if (begin("HCP-QUERY-BAD-HANDLE", NEED_HCP, "Query with an event handle returns 6")) {
        HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
        BOOLEAN b = 0xA5;
        end(expect_u("QueryThreadProfiling(event)", query(ev, &b), ERROR_INVALID_HANDLE));
        if (ev) CloseHandle(ev);
    }
    if (begin("HCP-ENABLE-MASK", NEED_HCP, "Enable with HardwareCounters 0xFFFF (all 16 counters) succeeds")) {
        HANDLE ph = POISON;
        DWORD rc = enable(cur, 0, 0xFFFFu, &ph);
        int p = expect_u("EnableThreadProfiling", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) p &= expect_u("DisableThreadProfiling", disable(ph), ERROR_SUCCESS);
        end(p);
    }
    if (begin("HCP-ENABLE-TWICE", NEED_HCP,
              "a second Enable returns 4206 without writing its out-parameter; the first handle reads and disables")) {
        HANDLE ph = POISON, ph2 = POISON;
        DWORD rc = enable(cur, THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
        int p = expect_u("first EnableThreadProfiling", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) {
            p &= expect_u("second EnableThreadProfiling", enable(cur, 0, 0, &ph2), ERROR_WMI_ALREADY_ENABLED);
            p &= expect(ph2 == POISON, "the second Enable wrote its out-parameter");
            PERFORMANCE_DATA pd;
            pd_init(&pd, 0);
            p &= expect_u("Read with the first handle", read_pd(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd),
                          ERROR_SUCCESS);
            p &= expect_u("Disable with the first handle", disable(ph), ERROR_SUCCESS);
        }
        end(p);
    }
    if (begin("HCP-DISABLE-TWICE", NEED_HCP, "Disable on a thread that is not profiling returns 4212, twice")) {
        HANDLE ph = POISON;
        DWORD rc = enable(cur, 0, 0, &ph);
        int p = expect_u("EnableThreadProfiling", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) {
            p &= expect_u("first Disable", disable(ph), ERROR_SUCCESS);
            p &= expect_u("second Disable", disable(ph), ERROR_WMI_ALREADY_DISABLED);
            p &= expect_u("third Disable", disable(ph), ERROR_WMI_ALREADY_DISABLED);
        }
        end(p);
    }
    if (begin("HCP-DISABLE-NOACCESS", NEED_HCP, "Disable(NULL) returns 998, profiling or not")) {
        int p = expect_u("Disable(NULL), not profiling", disable(NULL), ERROR_NOACCESS);
        HANDLE ph = POISON;
        DWORD rc = enable(cur, 0, 0, &ph);
        p &= expect_u("EnableThreadProfiling", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) {
            p &= expect_u("Disable(NULL), profiling", disable(NULL), ERROR_NOACCESS);
            p &= query_is(cur, 1, "Query after Disable(NULL)");
            p &= expect_u("Disable(handle)", disable(ph), ERROR_SUCCESS);
        }
        end(p);
    }
    if (begin("HCP-DISABLE-NOACCESS", NEED_HCP,
              "Disable with the handle + 1 (misaligned) returns 998 and profiling stays enabled")) {
        HANDLE ph = POISON;
        DWORD rc = enable(cur, 0, 0, &ph);
        int p = expect_u("EnableThreadProfiling", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) {
            p &= expect_u("Disable(handle + 1)", disable((HANDLE)((ULONG_PTR)ph + 1)), ERROR_NOACCESS);
            p &= query_is(cur, 1, "Query after the misaligned Disable");
            p &= expect_u("Disable(handle)", disable(ph), ERROR_SUCCESS);
        }
        end(p);
    }
    /* another thread calls Disable with this thread's handle: first unprofiled, then profiling itself */
    HANDLE ph = POISON;
    DWORD rc = ERROR_CALL_NOT_IMPLEMENTED;
    job j;
    memset(&j, 0, sizeof j);
    int ran = 0, still_on = 0;
    if (have_hcp()) rc = enable(cur, 0, 0, &ph);
    if (rc == ERROR_SUCCESS) {
        HANDLE th = start_job(&j, JOB_DISABLE_OTHER, ph);
        ran = th != NULL;
        if (th) WaitForSingleObject(th, INFINITE);
        finish_job(&j, th);
        still_on = query_is(cur, 1, "Query after the other thread's Disable calls");
        still_on &= expect_u("Disable(handle) afterwards", disable(ph), ERROR_SUCCESS);
    }
    if (begin("HCP-DISABLE-OTHER-THREAD", NEED_HCP,
              "Disable with this thread's handle from another, unprofiled thread returns 4212; this thread stays "
              "profiled")) {
        int p = expect_u("EnableThreadProfiling", rc, ERROR_SUCCESS) && expect(ran, "CreateThread failed");
        p = p &&
            expect_u("Disable(other thread's handle) on an unprofiled thread", j.rc[0], ERROR_WMI_ALREADY_DISABLED);
        end(p && still_on);
    }
    if (begin("HCP-DISABLE-WRONG-POINTER", NEED_HCP,
              "Disable with another thread's profiling handle on a profiled thread returns 87; both stay profiled")) {
        int p = expect_u("EnableThreadProfiling", rc, ERROR_SUCCESS) && expect(ran, "CreateThread failed");
        p = p && expect_u("the other thread's Enable", j.rc[1], ERROR_SUCCESS);
        p = p && expect_u("Disable(wrong block) on a profiled thread", j.rc[2], ERROR_INVALID_PARAMETER);
        p = p && expect_u("the other thread's own Disable afterwards", j.rc[3], ERROR_SUCCESS);
        end(p && still_on);
    }
}

/* ---- ReadThreadProfilingData ---------------------------------------------------------------------- */
/* Read that must fail with `want` and leave all 288 bytes as they were. */
static int read_fails(HANDLE ph, DWORD flags, WORD size, BYTE version, DWORD want) {
    PERFORMANCE_DATA pd, before;
    pd_init(&pd, 0x5A);
    pd.Size = size;
    pd.Version = version;
    before = pd;
    DWORD rc = read_pd(ph, flags, &pd);
    return expect_u("ReadThreadProfilingData", rc, want) &
           expect(memcmp(&pd, &before, sizeof pd) == 0, "a failed Read wrote the buffer");
}

static void check_read(void) {
    HANDLE cur = GetCurrentThread();
    HANDLE ph = POISON;
    DWORD flags_both = READ_THREAD_PROFILING_FLAG_DISPATCHING | READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS;
    DWORD rc = ERROR_CALL_NOT_IMPLEMENTED;
    if (have_hcp()) rc = enable(cur, THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
    int on = rc == ERROR_SUCCESS;
    if (!on && have_hcp())
        diag("EnableThreadProfiling(current, DISPATCH, 0) failed (%lu): the Read checks fail", (unsigned long)rc);

    static const struct {
        const char *id, *desc;
        DWORD flags;
        WORD size;
        BYTE version;
        DWORD want;
    } bad[] = {
        {"HCP-READ-SIZE-EXACT", "Read with Size 0 (a zeroed buffer) returns 1784, buffer untouched", 1, 0, 1, 1784},
        {"HCP-READ-SIZE-EXACT", "Read with Size 287 returns 1784", 1, 287, 1, 1784},
        {"HCP-READ-SIZE-EXACT", "Read with Size 289 returns 1784", 1, 289, 1, 1784},
        {"HCP-READ-VERSION", "Read with Version 0 returns 87", 1, 288, 0, 87},
        {"HCP-READ-VERSION", "Read with Version 2 returns 87", 1, 288, 2, 87},
        {"HCP-READ-SIZE-EXACT", "Read with Size 287 and Version 0 returns 1784: Size is checked first", 1, 287, 0,
         1784},
        {"HCP-READ-FLAGS", "Read with Flags 4 returns 87, buffer untouched", 4, 288, 1, 87},
        {"HCP-READ-FLAGS", "Read with Flags 0xFFFFFFFF returns 87", 0xFFFFFFFFu, 288, 1, 87},
        {"HCP-READ-SIZE-EXACT", "Read with Size 0 and Flags 4 returns 1784: Size before Flags", 4, 0, 1, 1784},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (begin(bad[i].id, NEED_HCP, bad[i].desc))
            end(on && read_fails(ph, bad[i].flags, bad[i].size, bad[i].version, bad[i].want));

    PERFORMANCE_DATA pd, before;
    if (begin("HCP-READ-FLAGS-ZERO", NEED_HCP,
              "Read with Flags 0 succeeds and leaves Size, Version, ContextSwitchCount, HwCountersCount, Reserved "
              "and HwCounters[] as the caller set them")) {
        pd_init(&pd, 0x5A);
        before = pd;
        int p = on && expect_u("ReadThreadProfilingData(0)", read_pd(ph, 0, &pd), ERROR_SUCCESS);
        p &= expect_u("Size", pd.Size, 288) & expect_u("Version", pd.Version, 1);
        p &= expect_u("ContextSwitchCount", pd.ContextSwitchCount, before.ContextSwitchCount);
        p &= expect_u("HwCountersCount", pd.HwCountersCount, before.HwCountersCount);
        p &= expect_u("Reserved", pd.Reserved, before.Reserved);
        p &= expect(memcmp(pd.HwCounters, before.HwCounters, sizeof pd.HwCounters) == 0, "HwCounters[] written");
        end(p);
    }
    if (begin("HCP-READ-FLAGS-ZERO", NEED_HCP,
              observed ? "observed: Read with Flags 0 sets WaitReasonBitMap 0 and RetryCount 0 and writes CycleTime"
                       : "documented: Read with Flags 0 writes nothing at all")) {
        pd_init(&pd, 0x5A);
        before = pd;
        int p = on && expect_u("ReadThreadProfilingData(0)", read_pd(ph, 0, &pd), ERROR_SUCCESS);
        if (observed) {
            p &= expect_u("WaitReasonBitMap", pd.WaitReasonBitMap, 0);
            p &= expect_u("RetryCount", pd.RetryCount, 0);
            p &= expect(pd.CycleTime != before.CycleTime, "CycleTime not written");
        } else {
            p &= expect(memcmp(&pd, &before, sizeof pd) == 0, "Read with Flags 0 wrote bytes");
        }
        end(p);
    }
    if (begin("HCP-READ-DISPATCH-FIELDS", NEED_HCP,
              "Read with both flags keeps Size and Version, never writes Reserved, writes ContextSwitchCount, "
              "CycleTime and RetryCount")) {
        pd_init(&pd, 0x5A);
        before = pd;
        int p = on && expect_u("ReadThreadProfilingData(3)", read_pd(ph, flags_both, &pd), ERROR_SUCCESS);
        p &= expect_u("Size", pd.Size, 288) & expect_u("Version", pd.Version, 1);
        p &= expect_u("Reserved", pd.Reserved, before.Reserved);
        p &= expect(pd.ContextSwitchCount != before.ContextSwitchCount, "ContextSwitchCount not written");
        p &= expect(pd.CycleTime != before.CycleTime, "CycleTime not written");
        p &= expect(pd.RetryCount != before.RetryCount, "RetryCount not written");
        end(p);
    }
    if (begin("HCP-READ-HW-MASK-ZERO", NEED_HCP,
              "Read with HARDWARE_COUNTERS after Enable with mask 0: HwCountersCount 0, HwCounters[] untouched")) {
        pd_init(&pd, 0x5A);
        before = pd;
        int p = on && expect_u("ReadThreadProfilingData(HW)",
                               read_pd(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &pd), ERROR_SUCCESS);
        p &= expect_u("HwCountersCount", pd.HwCountersCount, 0);
        p &= expect(memcmp(pd.HwCounters, before.HwCounters, sizeof pd.HwCounters) == 0, "HwCounters[] written");
        end(p);
    }
    if (on) (void)disable(ph);

    /* mask bit 0 with (normally) no counter configured: user mode cannot configure counters */
    ph = POISON;
    rc = ERROR_CALL_NOT_IMPLEMENTED;
    if (have_hcp()) rc = enable(cur, 0, 1, &ph);
    on = rc == ERROR_SUCCESS;
    int configured = 0;
    if (on) {
        pd_init(&pd, 0);
        if (read_pd(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &pd) == ERROR_SUCCESS)
            configured = pd.HwCountersCount;
    }
    if (begin("HCP-READ-UNCONFIGURED-ZERO", NEED_HCP,
              "mask bit 0 with no counter configured: Read succeeds, HwCountersCount 0, a pre-zeroed HwCounters[0] "
              "reads zero")) {
        if (configured) {
            end_skip("a driver has configured hardware counters on this machine");
        } else {
            pd_init(&pd, 0);
            int p = on && expect_u("ReadThreadProfilingData(HW)",
                                   read_pd(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &pd), ERROR_SUCCESS);
            p &= expect_u("HwCountersCount", pd.HwCountersCount, 0);
            p &= expect_u("HwCounters[0].Type", pd.HwCounters[0].Type, 0);
            p &= expect_u("HwCounters[0].Reserved", pd.HwCounters[0].Reserved, 0);
            p &= expect_u("HwCounters[0].Value", pd.HwCounters[0].Value, 0);
            end(p);
        }
    }
    if (begin("HCP-READ-UNCONFIGURED-ZERO", NEED_HCP,
              observed ? "observed: an unconfigured counter's slot is left untouched"
                       : "documented: an unconfigured counter's slot is set to {PMCCounter, 0, 0}")) {
        if (configured) {
            end_skip("a driver has configured hardware counters on this machine");
        } else {
            pd_init(&pd, 0x5A);
            before = pd;
            int p = on && expect_u("ReadThreadProfilingData(HW)",
                                   read_pd(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &pd), ERROR_SUCCESS);
            if (observed) {
                p &= expect(memcmp(&pd.HwCounters[0], &before.HwCounters[0], sizeof pd.HwCounters[0]) == 0,
                            "HwCounters[0] written");
            } else {
                p &= expect_u("HwCounters[0].Type", pd.HwCounters[0].Type, PMCCounter);
                p &= expect_u("HwCounters[0].Reserved", pd.HwCounters[0].Reserved, 0);
                p &= expect_u("HwCounters[0].Value", pd.HwCounters[0].Value, 0);
            }
            p &= expect(memcmp(&pd.HwCounters[1], &before.HwCounters[1], 15 * sizeof pd.HwCounters[0]) == 0,
                        "HwCounters[1..15] written (their mask bits are clear)");
            end(p);
        }
    }
    if (on) (void)disable(ph);
}

/* ---- dispatch data: context switches, wait reasons ------------------------------------------------ */
static int read_dispatch(HANDLE ph, PERFORMANCE_DATA *pd) {
    pd_init(pd, 0x5A);
    return read_pd(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, pd) == ERROR_SUCCESS;
}

static void check_dispatch(void) {
    HANDLE cur = GetCurrentThread();
    PERFORMANCE_DATA r0, r1, r2;
    memset(&r0, 0, sizeof r0);
    memset(&r1, 0, sizeof r1);
    memset(&r2, 0, sizeof r2);
    if (begin("HCP-DISPATCH-FLAG-REQUIRED", NEED_HCP,
              "after Enable without THREAD_PROFILING_FLAG_DISPATCH and a Sleep(1), Read(DISPATCHING) succeeds with "
              "ContextSwitchCount 0 and WaitReasonBitMap 0")) {
        HANDLE ph = POISON;
        DWORD rc = enable(cur, 0, 0, &ph);
        int p = expect_u("EnableThreadProfiling(current, 0, 0)", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) {
            Sleep(1);
            p &= expect(read_dispatch(ph, &r0), "Read failed");
            p &= expect_u("ContextSwitchCount", r0.ContextSwitchCount, 0);
            p &= expect_u("WaitReasonBitMap", r0.WaitReasonBitMap, 0);
            (void)disable(ph);
        }
        end(p);
    }

    HANDLE ph = POISON;
    DWORD rc = ERROR_CALL_NOT_IMPLEMENTED;
    if (have_hcp()) rc = enable(cur, THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
    int on = rc == ERROR_SUCCESS;
    int got0 = on && read_dispatch(ph, &r0);
    Sleep(1); /* a timed wait: the thread leaves its processor and is switched in again */
    int got1 = on && read_dispatch(ph, &r1);
    int got2 = on && read_dispatch(ph, &r2);
    if (begin("HCP-DISPATCH-CONTEXT-SWITCHES", NEED_HCP, "Sleep(1) adds at least one context switch")) {
        int p = expect(on && got0 && got1, "Enable (%lu) or Read failed", (unsigned long)rc);
        p &= expect(r1.ContextSwitchCount >= r0.ContextSwitchCount + 1, "ContextSwitchCount %lu then %lu",
                    (unsigned long)r0.ContextSwitchCount, (unsigned long)r1.ContextSwitchCount);
        end(p);
    }
    if (begin("HCP-DISPATCH-WAIT-REASON-BIT", NEED_HCP, "the Read after Sleep(1) has a wait-reason bit set")) {
        end(expect(on && got1, "Enable or Read failed") &&
            expect(r1.WaitReasonBitMap != 0, "WaitReasonBitMap is 0 after a blocking Sleep"));
        if (on && got1) diag("WaitReasonBitMap after Sleep(1): 0x%llX", (unsigned long long)r1.WaitReasonBitMap);
    }
    if (begin("HCP-DISPATCH-BITMAP-READ-CLEARS", NEED_HCP,
              "WaitReasonBitMap is read-and-clear: the next Read with no switch in between returns 0")) {
        if (on && got1 && got2 && r2.ContextSwitchCount != r1.ContextSwitchCount) {
            end_skip("the thread was switched between the two reads");
        } else {
            end(expect(on && got1 && got2, "Enable or Read failed") &&
                expect_u("second WaitReasonBitMap", r2.WaitReasonBitMap, 0));
        }
    }
    if (begin("HCP-DISPATCH-CONTEXT-SWITCHES", NEED_HCP,
              "ContextSwitchCount is cumulative: never decreases over Sleep(0), SwitchToThread and Sleep(1); reads "
              "do not reset it")) {
        int p = expect(on && got2, "Enable or Read failed");
        DWORD prev = r2.ContextSwitchCount;
        for (int i = 0; i < 6 && p; i++) {
            if (i % 3 == 0) Sleep(0);
            if (i % 3 == 1) SwitchToThread();
            if (i % 3 == 2) Sleep(1);
            PERFORMANCE_DATA r;
            p &= expect(read_dispatch(ph, &r), "Read failed");
            p &= expect(r.ContextSwitchCount >= prev, "ContextSwitchCount went from %lu to %lu", (unsigned long)prev,
                        (unsigned long)r.ContextSwitchCount);
            if (i % 3 == 2)
                p &= expect(r.ContextSwitchCount >= prev + 1, "no switch counted over Sleep(1) (%lu)",
                            (unsigned long)prev);
            prev = r.ContextSwitchCount;
        }
        end(p);
    }
    if (begin("HCP-DISPATCH-CONTEXT-SWITCHES", NEED_HCP,
              "while another thread yields in a loop, each SwitchToThread that returns TRUE (it gave up the "
              "processor) adds at least one context switch")) {
        job y;
        HANDLE th = on && got2 ? start_job(&y, JOB_YIELD, NULL) : NULL;
        int p = expect(on && got2, "Enable or Read failed") && expect(th != NULL, "CreateThread failed");
        int gave = 0;
        PERFORMANCE_DATA a, b;
        for (int i = 0; i < 4 && p; i++) {
            p &= expect(read_dispatch(ph, &a), "Read failed");
            BOOL r = SwitchToThread();
            p &= expect(read_dispatch(ph, &b), "Read failed");
            if (r) {
                gave++;
                p &= expect(b.ContextSwitchCount >= a.ContextSwitchCount + 1,
                            "SwitchToThread returned TRUE, ContextSwitchCount %lu then %lu",
                            (unsigned long)a.ContextSwitchCount, (unsigned long)b.ContextSwitchCount);
            }
        }
        if (th) {
            y.stop = 1;
            finish_job(&y, th);
        }
        end(p);
        diag("SwitchToThread gave up the processor %d of 4 times", gave);
    }
    if (begin("HCP-ENABLE-RESTART", NEED_HCP,
              "Disable then Enable again succeeds and ContextSwitchCount starts again from the new Enable")) {
        PERFORMANCE_DATA a, b;
        int p = expect(on, "Enable failed");
        Sleep(1);
        Sleep(1);
        p &= expect(on && read_dispatch(ph, &a), "Read failed");
        p &= expect(a.ContextSwitchCount >= 2, "ContextSwitchCount %lu after two Sleep(1)",
                    (unsigned long)a.ContextSwitchCount);
        p &= expect_u("Disable", on ? disable(ph) : 0, ERROR_SUCCESS);
        on = 0;
        HANDLE ph2 = POISON;
        DWORD rc2 = enable(cur, THREAD_PROFILING_FLAG_DISPATCH, 0, &ph2);
        p &= expect_u("second Enable", rc2, ERROR_SUCCESS);
        if (rc2 == ERROR_SUCCESS) {
            p &= expect(read_dispatch(ph2, &b), "Read failed");
            p &= expect(b.ContextSwitchCount < a.ContextSwitchCount, "ContextSwitchCount %lu after restart, %lu before",
                        (unsigned long)b.ContextSwitchCount, (unsigned long)a.ContextSwitchCount);
            (void)disable(ph2);
        }
        end(p);
    }
    if (on) (void)disable(ph);

    /* a second thread that profiles itself and blocks WAITS times on an event this thread sets */
    job j;
    HANDLE th = NULL;
    int started = have_hcp();
    if (started) {
        th = start_job(&j, JOB_PROFILE_WAITS, NULL);
        started = th != NULL && WaitForSingleObject(j.ready, INFINITE) == WAIT_OBJECT_0;
    }
    if (begin("HCP-QUERY-OTHER-THREAD", NEED_HCP,
              "Query with a THREAD_QUERY_INFORMATION handle of another thread reports that thread's profiling")) {
        int p = expect(started, "the second thread did not start") &&
                expect_u("the second thread's Enable", j.rc[0], ERROR_SUCCESS);
        HANDLE h = started ? OpenThread(THREAD_QUERY_INFORMATION, FALSE, j.tid) : NULL;
        p &= expect(h != NULL, "OpenThread failed");
        if (h) {
            p &= query_is(h, 1, "Query(other, profiling)");
            CloseHandle(h);
        }
        p &= query_is(cur, 0, "Query(current, not profiling)");
        end(p);
    }
    if (begin("HCP-QUERY-OTHER-THREAD", NEED_HCP, "Query with a THREAD_QUERY_LIMITED_INFORMATION handle returns 5")) {
        HANDLE h = started ? OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, j.tid) : NULL;
        BOOLEAN b = 0xA5;
        int p = expect(h != NULL, "OpenThread failed") &&
                expect_u("QueryThreadProfiling(limited handle)", query(h, &b), ERROR_ACCESS_DENIED);
        if (h) CloseHandle(h);
        end(p);
    }
    if (started) {
        for (int i = 0; i < WAITS; i++) {
            Sleep(20); /* the other thread is blocked in its wait by then */
            SetEvent(j.go);
        }
        WaitForSingleObject(th, INFINITE);
    }
    if (begin("HCP-DISPATCH-CONTEXT-SWITCHES", NEED_HCP,
              "another thread's three blocking waits each add at least one switch to its own ContextSwitchCount")) {
        int p = expect(started, "the second thread did not start") &&
                expect_u("the second thread's first Read", j.rc[1], ERROR_SUCCESS);
        DWORD prev = j.csw0;
        for (int i = 0; i < WAITS && p; i++) {
            p &= expect_u("WaitForSingleObject", j.wait_rc[i], WAIT_OBJECT_0);
            p &= expect(j.csw[i] >= prev + 1, "wait %d: ContextSwitchCount %lu after %lu", i, (unsigned long)j.csw[i],
                        (unsigned long)prev);
            prev = j.csw[i];
        }
        end(p);
        if (started)
            diag("ContextSwitchCount %lu, %lu, %lu, %lu", (unsigned long)j.csw0, (unsigned long)j.csw[0],
                 (unsigned long)j.csw[1], (unsigned long)j.csw[2]);
    }
    if (begin("HCP-DISPATCH-WAIT-REASON-BIT", NEED_HCP,
              "each Read after a blocking wait has a wait-reason bit set (the bits of that wait only)")) {
        int p = expect(started, "the second thread did not start");
        for (int i = 0; i < WAITS && p; i++) p &= expect(j.bits[i] != 0, "wait %d: WaitReasonBitMap 0", i);
        p &= started && expect_u("the second thread's Disable", j.rc[2], ERROR_SUCCESS);
        end(p);
        if (started)
            diag("WaitReasonBitMap 0x%llX, 0x%llX, 0x%llX", (unsigned long long)j.bits[0],
                 (unsigned long long)j.bits[1], (unsigned long long)j.bits[2]);
    }
    if (started) finish_job(&j, th);

    if (begin("HCP-EXIT-WITHOUT-DISABLE", NEED_HCP,
              "a thread that exits without Disable: Query on its handle afterwards returns 0 and FALSE")) {
        th = start_job(&j, JOB_EXIT_ENABLED, NULL);
        int p = expect(th != NULL, "CreateThread failed");
        if (th) {
            WaitForSingleObject(th, INFINITE);
            p &= expect_u("the thread's Enable", j.rc[0], ERROR_SUCCESS);
            p &= query_is(th, 0, "Query(exited thread)");
        }
        finish_job(&j, th);
        end(p);
    }
}

/* ---- cycle time: PERFORMANCE_DATA.CycleTime and QueryThreadCycleTime ------------------------------ */
static void check_cycles(void) {
    HANDLE cur = GetCurrentThread();
    if (begin("CYCLETIME-QUERY", NEED(F_CYCLES), "QueryThreadCycleTime(current) succeeds, nonzero, non-decreasing")) {
        ULONG64 a = 0, b = 0;
        BOOL r = p_cycles(cur, &a);
        int p = expect(r, "first call failed (%lu)", (unsigned long)GetLastError());
        r = p_cycles(cur, &b);
        p &= expect(r, "second call failed (%lu)", (unsigned long)GetLastError());
        p &= expect(a != 0, "cycle time 0") &
             expect(b >= a, "%llu then %llu", (unsigned long long)a, (unsigned long long)b);
        end(p);
    }
    ULONG64 q0 = 0, q1 = 0, q2 = 0;
    PERFORMANCE_DATA c1, c2;
    memset(&c1, 0, sizeof c1);
    memset(&c2, 0, sizeof c2);
    HANDLE ph = POISON;
    int on = 0;
    if (fn_addr[F_CYCLES] && have_hcp()) {
        q0 = cycles_now();
        on = enable(cur, 0, 0, &ph) == ERROR_SUCCESS;
        on = on && read_dispatch(ph, &c1);
        q1 = cycles_now();
        on = on && read_dispatch(ph, &c2);
        q2 = cycles_now();
    }
    if (begin("HCP-ENABLE-NO-COUNTERS", NEED_HCP | NEED(F_CYCLES),
              "CycleTime grows between two Reads with a QueryThreadCycleTime call between them")) {
        end(expect(on, "Enable or Read failed") &&
            expect(c2.CycleTime > c1.CycleTime, "CycleTime %llu then %llu", (unsigned long long)c1.CycleTime,
                   (unsigned long long)c2.CycleTime));
    }
    if (begin("CYCLETIME-QUERY", NEED_HCP | NEED(F_CYCLES),
              "CycleTime counts from Enable: each Read's CycleTime is at most the QueryThreadCycleTime difference "
              "from before Enable to after that Read")) {
        int p = expect(on, "Enable or Read failed");
        p &= expect(q0 <= q1 && q1 <= q2, "QueryThreadCycleTime %llu, %llu, %llu", (unsigned long long)q0,
                    (unsigned long long)q1, (unsigned long long)q2);
        p &= expect(c1.CycleTime <= q1 - q0, "first CycleTime %llu > %llu", (unsigned long long)c1.CycleTime,
                    (unsigned long long)(q1 - q0));
        p &= expect(c2.CycleTime <= q2 - q0, "second CycleTime %llu > %llu", (unsigned long long)c2.CycleTime,
                    (unsigned long long)(q2 - q0));
        end(p);
        if (on)
            diag("QueryThreadCycleTime %llu, %llu, %llu; CycleTime %llu, %llu", (unsigned long long)q0,
                 (unsigned long long)q1, (unsigned long long)q2, (unsigned long long)c1.CycleTime,
                 (unsigned long long)c2.CycleTime);
    }
    if (on) (void)disable(ph);

    struct {
        const char *id, *desc;
        DWORD access; /* 0: NULL handle; 1: an event */
        BOOL want;
        DWORD err;
    } const cases[] = {
        {"TIMES-ACCESS,TIMES-ACCESS-PER-PLATFORM", "QueryThreadCycleTime with a NULL handle fails with 6", 0, FALSE,
         ERROR_INVALID_HANDLE},
        {"TIMES-ACCESS,TIMES-ACCESS-PER-PLATFORM", "QueryThreadCycleTime with an event handle fails with 6", 1, FALSE,
         ERROR_INVALID_HANDLE},
        {"TIMES-ACCESS,TIMES-ACCESS-PER-PLATFORM",
         "QueryThreadCycleTime with a SYNCHRONIZE-only thread handle fails with 5", SYNCHRONIZE, FALSE,
         ERROR_ACCESS_DENIED},
        {"TIMES-ACCESS,TIMES-ACCESS-PER-PLATFORM",
         "QueryThreadCycleTime with a THREAD_QUERY_LIMITED_INFORMATION handle succeeds",
         THREAD_QUERY_LIMITED_INFORMATION, TRUE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!begin(cases[i].id, NEED(F_CYCLES), cases[i].desc)) continue;
        HANDLE h = NULL;
        if (cases[i].access == 1)
            h = CreateEventA(NULL, TRUE, FALSE, NULL);
        else if (cases[i].access)
            h = OpenThread(cases[i].access, FALSE, GetCurrentThreadId());
        ULONG64 c = 0x5A5A5A5A5A5A5A5Aull;
        SetLastError(MARK);
        BOOL r = p_cycles(h, &c);
        DWORD err = GetLastError();
        int p = expect(!cases[i].access || h, "OpenThread/CreateEvent failed");
        p &= expect(!r == !cases[i].want, "returned %d", (int)r);
        if (cases[i].want)
            p &= expect(c != 0x5A5A5A5A5A5A5A5Aull && c != 0, "cycle time not written (%llu)", (unsigned long long)c);
        else
            p &= expect_u("GetLastError", err, cases[i].err) &
                 expect(c == 0x5A5A5A5A5A5A5A5Aull, "output written on failure");
        if (h) CloseHandle(h);
        end(p);
    }
}

/* ---- GetThreadTimes ------------------------------------------------------------------------------------ */
#define FT_2000 125911584000000000ull /* 2000-01-01 00:00 UTC: 116444736000000000 + 10957 days */

static void check_times(void) {
    HANDLE cur = GetCurrentThread();
    FILETIME cr, ex, k1, u1, k2, u2;
    if (begin("TIMES-CREATION,TIMES-PER-PLATFORM,PLAT-NT-CONTROL", NEED(F_TIMES),
              "GetThreadTimes(current): TRUE, creation time an absolute FILETIME after 2000-01-01, exit time 0")) {
        memset(&ex, 0x5A, sizeof ex);
        BOOL r = p_times(cur, &cr, &ex, &k1, &u1);
        int p = expect(r, "failed (%lu)", (unsigned long)GetLastError());
        p &= expect(ft64(cr) > FT_2000, "creation time %llu", ft64(cr));
        p &= expect_u("exit time of a running thread", ft64(ex), 0);
        end(p);
    }
    if (begin("TIMES-KERNEL-USER", NEED(F_TIMES),
              "kernel and user times never decrease between two calls with work between")) {
        volatile unsigned long long x = 0;
        int p = expect(p_times(cur, &cr, &ex, &k1, &u1), "first call failed");
        for (unsigned i = 0; i < 1000000u; i++) x += i;
        (void)x;
        Sleep(1);
        p &= expect(p_times(cur, &cr, &ex, &k2, &u2), "second call failed");
        p &= expect(ft64(k2) >= ft64(k1), "kernel time %llu then %llu", ft64(k1), ft64(k2));
        p &= expect(ft64(u2) >= ft64(u1), "user time %llu then %llu", ft64(u1), ft64(u2));
        end(p);
    }
    if (begin("TIMES-EXIT", NEED(F_TIMES),
              "an exited thread: exit time >= its creation time >= this thread's creation time")) {
        job j;
        HANDLE th = start_job(&j, JOB_IDLE, NULL);
        FILETIME bcr, bex, bk, bu;
        int p = expect(th != NULL, "CreateThread failed");
        if (th) {
            SetEvent(j.go);
            WaitForSingleObject(th, INFINITE);
            p &= expect(p_times(cur, &cr, &ex, &k1, &u1), "GetThreadTimes(current) failed");
            BOOL r = p_times(th, &bcr, &bex, &bk, &bu);
            p &= expect(r, "GetThreadTimes(exited) failed (%lu)", (unsigned long)GetLastError());
            p &= expect(ft64(bex) >= ft64(bcr), "exit %llu < creation %llu", ft64(bex), ft64(bcr));
            p &= expect(ft64(bex) != 0, "exit time 0 after the thread exited");
            p &= expect(ft64(bcr) >= ft64(cr), "creation %llu < this thread's %llu", ft64(bcr), ft64(cr));
        }
        finish_job(&j, th);
        end(p);
    }
    struct {
        const char *desc;
        DWORD access; /* 0: NULL handle; 1: an event */
        BOOL want;
        DWORD err;
    } const cases[] = {
        {"GetThreadTimes with a NULL handle fails with 6", 0, FALSE, ERROR_INVALID_HANDLE},
        {"GetThreadTimes with an event handle fails with 6", 1, FALSE, ERROR_INVALID_HANDLE},
        {"GetThreadTimes with a SYNCHRONIZE-only thread handle fails with 5", SYNCHRONIZE, FALSE, ERROR_ACCESS_DENIED},
        {"GetThreadTimes with a THREAD_QUERY_LIMITED_INFORMATION handle succeeds", THREAD_QUERY_LIMITED_INFORMATION,
         TRUE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!begin("TIMES-ACCESS,TIMES-ACCESS-PER-PLATFORM", NEED(F_TIMES), cases[i].desc)) continue;
        HANDLE h = NULL;
        if (cases[i].access == 1)
            h = CreateEventA(NULL, TRUE, FALSE, NULL);
        else if (cases[i].access)
            h = OpenThread(cases[i].access, FALSE, GetCurrentThreadId());
        FILETIME f[4];
        memset(f, 0x5A, sizeof f);
        SetLastError(MARK);
        BOOL r = p_times(h, &f[0], &f[1], &f[2], &f[3]);
        DWORD err = GetLastError();
        int p = expect(!cases[i].access || h, "OpenThread/CreateEvent failed");
        p &= expect(!r == !cases[i].want, "returned %d", (int)r);
        if (cases[i].want)
            p &= expect(ft64(f[0]) > FT_2000, "creation time %llu", ft64(f[0]));
        else
            p &= expect_u("GetLastError", err, cases[i].err);
        if (h) CloseHandle(h);
        end(p);
    }
}

/* ==== scheduling, waits and objects, observed through the dispatch data (HCP-SPEC §4, §6) ========== */
/* Exact schedules cannot be known on hardware: each check arranges a situation whose outcome the
 * rules fix (two threads on one processor, a higher priority woken by this thread, ...), observes
 * it through ContextSwitchCount, WaitReasonBitMap and the threads' own progress, and SKIPs with the
 * reason where the machine would not let it arrange it (no processor to pin to, no switch seen). */
#define BIT(r) ((DWORD64)1 << (r))
enum { KW_DELAY = 4, KW_USERREQUEST = 6, KW_QUANTUMEND = 30, KW_PREEMPTED = 32, KW_YIELD = 33 };
#define SPIN_MAX 3000000ul /* iterations of a spinning thread, each one kernel call */
#define JOIN_MS 60000u     /* longest wait for a helper thread that is bounded itself */

static volatile LONG burn_sink;
/* Work that costs cycles on every implementation: kernel calls (the simulator charges each one;
 * GetThreadTimes rather than QueryThreadCycleTime, which some implementations stub in user mode). */
static void burn(unsigned calls) {
    for (unsigned i = 0; i < calls; i++) {
        ULONG64 c = 0;
        FILETIME a, b, k, u;
        if (p_times)
            (void)p_times(GetCurrentThread(), &a, &b, &k, &u);
        else if (p_cycles)
            (void)p_cycles(GetCurrentThread(), &c);
        else
            burn_sink++;
    }
}

static double qpc_ms(LARGE_INTEGER a, LARGE_INTEGER b) {
    LARGE_INTEGER f;
    if (!QueryPerformanceFrequency(&f) || f.QuadPart <= 0) return 0;
    return (double)(b.QuadPart - a.QuadPart) * 1000.0 / (double)f.QuadPart;
}

/* The one processor the scheduling checks share: this thread's current one. */
static DWORD_PTR pin_mask, pin_old;
static int pin_begin(void) {
    DWORD cpu = GetCurrentProcessorNumber();
    if (cpu >= 8 * sizeof(DWORD_PTR)) return 0;
    pin_mask = (DWORD_PTR)1 << cpu;
    pin_old = SetThreadAffinityMask(GetCurrentThread(), pin_mask);
    return pin_old != 0;
}
static void pin_end(void) {
    if (pin_old) (void)SetThreadAffinityMask(GetCurrentThread(), pin_old);
    pin_old = 0;
}

/* A thread on the pinned processor at `priority`, created suspended so that both are set before it
 * runs; *pinned is 0 when the affinity could not be set. */
static HANDLE spawn(LPTHREAD_START_ROUTINE fn, void *arg, int priority, int *pinned) {
    HANDLE h = CreateThread(NULL, 0, fn, arg, CREATE_SUSPENDED, NULL);
    if (!h) return NULL;
    *pinned = pin_mask && SetThreadAffinityMask(h, pin_mask) != 0;
    if (!SetThreadPriority(h, priority)) *pinned = 0;
    ResumeThread(h);
    return h;
}

static int join(HANDLE th) {
    int ok = th && WaitForSingleObject(th, JOIN_MS) == WAIT_OBJECT_0;
    if (th) CloseHandle(th);
    return ok;
}

/* -- two threads spinning on one processor ---------------------------------------------------------- */
typedef struct spinner {
    volatile LONG progress, done;
    volatile LONG *other_progress, *other_done;
    DWORD rc_enable, rc_read, rc_disable, csw;
    DWORD64 bits;
    HANDLE ph;
    int seen, moved;
    DWORD cpu;
} spinner;

static DWORD WINAPI spin_main(LPVOID arg) {
    spinner *s = arg;
    HANDLE ph = NULL;
    s->rc_enable = enable(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
    s->ph = ph;
    s->cpu = GetCurrentProcessorNumber();
    LONG last = *s->other_progress;
    for (unsigned long i = 0; i < SPIN_MAX && s->seen < 2 && !*s->other_done; i++) {
        burn(1);
        s->progress++;
        LONG now = *s->other_progress;
        if (now != last) { /* the other thread ran since: this one was off the processor */
            s->seen++;
            last = now;
        }
        if (GetCurrentProcessorNumber() != s->cpu) s->moved = 1;
    }
    PERFORMANCE_DATA pd;
    pd_init(&pd, 0);
    s->rc_read = s->rc_enable == ERROR_SUCCESS ? read_pd(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd) : 1;
    s->csw = pd.ContextSwitchCount;
    s->bits = pd.WaitReasonBitMap;
    s->done = 1;
    s->rc_disable = s->rc_enable == ERROR_SUCCESS ? disable(ph) : 1;
    return 0;
}

static void check_quantum(void) {
    spinner s[2];
    memset(s, 0, sizeof s);
    s[0].other_progress = &s[1].progress;
    s[0].other_done = &s[1].done;
    s[1].other_progress = &s[0].progress;
    s[1].other_done = &s[0].done;
    int pinned = have_hcp() && pin_begin(), p0 = 0, p1 = 0, joined = 0;
    HANDLE th[2] = {NULL, NULL};
    if (pinned) {
        th[0] = spawn(spin_main, &s[0], THREAD_PRIORITY_NORMAL, &p0);
        th[1] = spawn(spin_main, &s[1], THREAD_PRIORITY_NORMAL, &p1);
        joined = th[0] && th[1] && WaitForMultipleObjects(2, th, TRUE, JOIN_MS) == WAIT_OBJECT_0;
        for (int i = 0; i < 2; i++) {
            if (th[i] && !joined) (void)WaitForSingleObject(th[i], JOIN_MS); /* the other failed to start */
            if (th[i]) CloseHandle(th[i]);
        }
    }
    pin_end();
    const char *unpinned =
        !pinned || !p0 || !p1 || s[0].moved || s[1].moved ? "the threads could not be kept on one processor" : NULL;
    const char *apart = s[0].seen == 0 || s[1].seen == 0 ? "the two spinning threads did not alternate" : NULL;
    if (begin("HCP-ENABLE-PER-THREAD", NEED_HCP,
              "two threads profile at the same time, each with its own handle: both Enable, Read and Disable "
              "succeed and the handles differ")) {
        int p = expect(joined, "the threads did not run to their end");
        for (int i = 0; i < 2 && p; i++) {
            p &= expect_u("Enable", s[i].rc_enable, ERROR_SUCCESS) & expect_u("Read", s[i].rc_read, ERROR_SUCCESS) &
                 expect_u("Disable", s[i].rc_disable, ERROR_SUCCESS);
        }
        if (p && apart) /* one ended before the other enabled: they did not profile at the same time */
            end_skip(apart);
        else
            end(p && expect(s[0].ph != s[1].ph, "both threads got the same handle"));
    }
    if (begin("SCHED-QUANTUM", NEED_HCP,
              "two threads of one priority spinning on one processor without blocking both make progress: each "
              "sees the other's progress change and was switched in at least that often")) {
        if (unpinned) {
            end_skip(unpinned);
        } else if (apart) {
            end_skip(apart);
        } else {
            int p = expect(joined, "the threads did not run to their end");
            for (int i = 0; i < 2 && p; i++)
                p &=
                    expect(s[i].csw >= (DWORD)s[i].seen, "thread %d saw the other run %d times, ContextSwitchCount %lu",
                           i, s[i].seen, (unsigned long)s[i].csw);
            end(p);
        }
    }
    if (begin("SCHED-QUANTUM-END,HCP-DISPATCH-WAIT-REASON-BIT,HCP-KWAIT-REASON-VALUES", NEED_HCP,
              "each spinning thread that lost the processor to the other has WaitReasonBitMap bit 30 "
              "(WrQuantumEnd)")) {
        if (unpinned) {
            end_skip(unpinned);
        } else if (apart) {
            end_skip(apart);
        } else {
            int p = expect(joined, "the threads did not run to their end");
            for (int i = 0; i < 2 && p; i++)
                p &= expect((s[i].bits & BIT(KW_QUANTUMEND)) != 0, "thread %d: WaitReasonBitMap 0x%llX", i,
                            (unsigned long long)s[i].bits);
            end(p);
        }
    }
    diag("spinners: seen %d and %d switches of the other, ContextSwitchCount %lu and %lu, WaitReasonBitMap 0x%llX "
         "and 0x%llX",
         s[0].seen, s[1].seen, (unsigned long)s[0].csw, (unsigned long)s[1].csw, (unsigned long long)s[0].bits,
         (unsigned long long)s[1].bits);
}

/* -- a higher-priority thread woken by SetEvent ---------------------------------------------------------- */
typedef struct waker {
    HANDLE ready, go;
    volatile LONG ran;
    DWORD rc_enable, wait_rc;
    DWORD64 bits;
    DWORD csw;
} waker;

static DWORD WINAPI high_main(LPVOID arg) {
    waker *w = arg;
    HANDLE ph = NULL;
    w->rc_enable = enable(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
    SetEvent(w->ready);
    w->wait_rc = WaitForSingleObject(w->go, JOIN_MS);
    w->ran = 1;
    if (w->rc_enable == ERROR_SUCCESS) {
        PERFORMANCE_DATA pd;
        pd_init(&pd, 0);
        if (read_pd(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd) == ERROR_SUCCESS) {
            w->bits = pd.WaitReasonBitMap;
            w->csw = pd.ContextSwitchCount;
        }
        (void)disable(ph);
    }
    return 0;
}

static void check_preempt(void) {
    HANDLE cur = GetCurrentThread(), ph = POISON;
    waker w;
    memset(&w, 0, sizeof w);
    int pinned = have_hcp() && pin_begin(), hp = 0, on = 0, ran_at_once = 0;
    PERFORMANCE_DATA a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (pinned) {
        on = enable(cur, THREAD_PROFILING_FLAG_DISPATCH, 0, &ph) == ERROR_SUCCESS;
        w.ready = CreateEventA(NULL, TRUE, FALSE, NULL);
        w.go = CreateEventA(NULL, FALSE, FALSE, NULL);
        HANDLE th = spawn(high_main, &w, THREAD_PRIORITY_TIME_CRITICAL, &hp);
        if (th && WaitForSingleObject(w.ready, JOIN_MS) == WAIT_OBJECT_0) {
            on = on && read_dispatch(ph, &a);
            SetEvent(w.go);
            ran_at_once = w.ran != 0; /* the woken thread ran before SetEvent returned */
            on = on && read_dispatch(ph, &b);
        } else if (th) {
            SetEvent(w.go);
        }
        if (!join(th)) on = 0;
        CloseHandle(w.ready);
        CloseHandle(w.go);
        if (ph != POISON) (void)disable(ph);
    }
    pin_end();
    const char *why_skip = !pinned || !hp ? "the threads could not be kept on one processor" : NULL;
    if (begin("SCHED-PREEMPT-ON-WAKE,SCHED-CPUS-PREEMPT-WAKER", NEED_HCP,
              "a TIME_CRITICAL thread on this thread's only processor, woken by this thread's SetEvent, runs "
              "before SetEvent returns; this thread counts one more switch")) {
        if (why_skip) {
            end_skip(why_skip);
        } else {
            int p = expect(on, "Enable, Read or the thread failed") &&
                    expect(ran_at_once, "SetEvent returned before the woken thread ran");
            p = p && expect(b.ContextSwitchCount >= a.ContextSwitchCount + 1, "ContextSwitchCount %lu then %lu",
                            (unsigned long)a.ContextSwitchCount, (unsigned long)b.ContextSwitchCount);
            end(p);
        }
    }
    if (begin("SCHED-PREEMPT-ON-WAKE,HCP-DISPATCH-WAIT-REASON-BIT,HCP-KWAIT-REASON-VALUES", NEED_HCP,
              "the preempted thread's next Read has WaitReasonBitMap bit 32 (WrPreempted)")) {
        if (why_skip) {
            end_skip(why_skip);
        } else {
            end(expect(on, "Enable, Read or the thread failed") &&
                expect((b.WaitReasonBitMap & BIT(KW_PREEMPTED)) != 0, "WaitReasonBitMap 0x%llX",
                       (unsigned long long)b.WaitReasonBitMap));
        }
    }
    if (begin("SCHED-WAIT-USERREQUEST,HCP-KWAIT-REASON-VALUES", NEED_HCP,
              "the woken thread's wait on an event (WAIT_OBJECT_0) set WaitReasonBitMap bit 6 (UserRequest)")) {
        if (why_skip) {
            end_skip(why_skip);
        } else {
            end(expect(on, "Enable, Read or the thread failed") && expect_u("its Enable", w.rc_enable, 0) &&
                expect_u("its WaitForSingleObject", w.wait_rc, WAIT_OBJECT_0) &&
                expect(w.csw >= 1, "its ContextSwitchCount %lu", (unsigned long)w.csw) &&
                expect((w.bits & BIT(KW_USERREQUEST)) != 0, "its WaitReasonBitMap 0x%llX", (unsigned long long)w.bits));
        }
    }
    diag("preemption: ContextSwitchCount %lu then %lu, WaitReasonBitMap 0x%llX; woken thread 0x%llX",
         (unsigned long)a.ContextSwitchCount, (unsigned long)b.ContextSwitchCount,
         (unsigned long long)b.WaitReasonBitMap, (unsigned long long)w.bits);
}

/* -- SwitchToThread and Sleep(0) with a thread of the same priority ready ---------------------------- */
typedef struct yielder {
    volatile LONG stop;
} yielder;

static DWORD WINAPI yield_main(LPVOID arg) {
    yielder *y = arg;
    for (unsigned long i = 0; i < SPIN_MAX && !y->stop; i++) SwitchToThread();
    return 0;
}

static void check_yield(void) {
    HANDLE cur = GetCurrentThread(), ph = POISON;
    yielder y;
    memset(&y, 0, sizeof y);
    int pinned = have_hcp() && pin_begin(), yp = 0, on = 0, gave = 0, bad = 0, slept = 0, bad0 = 0;
    DWORD64 seen_bits = 0, bad_bits = 0;
    if (pinned) {
        on = enable(cur, THREAD_PROFILING_FLAG_DISPATCH, 0, &ph) == ERROR_SUCCESS;
        HANDLE th = spawn(yield_main, &y, THREAD_PRIORITY_NORMAL, &yp);
        for (int i = 0; i < 8 && on; i++) {
            PERFORMANCE_DATA a, b;
            on = read_dispatch(ph, &a);
            BOOL r = TRUE;
            if (i % 2 == 0)
                r = SwitchToThread();
            else
                Sleep(0);
            on = on && read_dispatch(ph, &b);
            if (!on || b.ContextSwitchCount == a.ContextSwitchCount) continue; /* it kept the processor */
            DWORD64 bits = b.WaitReasonBitMap;
            seen_bits |= bits;
            if (i % 2 == 0) { /* SwitchToThread said whether it gave up the processor */
                if (!r) continue;
                gave++;
                if (!(bits & BIT(KW_YIELD))) {
                    bad++;
                    bad_bits = bits;
                }
            } else if (bits & BIT(KW_YIELD)) {
                slept++;
            } else if (!(bits & (BIT(KW_QUANTUMEND) | BIT(KW_PREEMPTED)))) {
                /* a switch during Sleep(0) with no yield bit and no quantum end or preemption to
                 * explain it; one with those is left out (a clock interrupt's work, not Sleep's) */
                slept++;
                bad0++;
                bad_bits = bits;
            }
        }
        y.stop = 1;
        if (!join(th)) on = 0;
        if (ph != POISON) (void)disable(ph);
    }
    pin_end();
    const char *why_skip = !pinned || !yp ? "the threads could not be kept on one processor" : NULL;
    if (begin("SCHED-YIELD,HCP-KWAIT-REASON-VALUES", NEED_HCP,
              "SwitchToThread that gives the processor to a ready thread of the same priority sets "
              "WaitReasonBitMap bit 33 (WrYieldExecution)")) {
        if (why_skip)
            end_skip(why_skip);
        else if (on && !gave)
            end_skip("SwitchToThread never gave up the processor");
        else
            end(expect(on, "Enable or Read failed") &&
                expect(!bad, "%d of %d yields without bit 33 (0x%llX)", bad, gave, (unsigned long long)bad_bits));
    }
    if (begin("SCHED-YIELD", NEED_HCP,
              "Sleep(0) that gives the processor to a ready thread of the same priority sets bit 33 too")) {
        if (why_skip)
            end_skip(why_skip);
        else if (on && !slept)
            end_skip("Sleep(0) never gave up the processor");
        else
            end(expect(on, "Enable or Read failed") &&
                expect(!bad0, "%d of %d Sleep(0) switches without bit 33 (0x%llX)", bad0, slept,
                       (unsigned long long)bad_bits));
    }
    diag("yields: SwitchToThread gave the processor %d times, Sleep(0) %d; bits seen 0x%llX", gave, slept,
         (unsigned long long)seen_bits);
}

/* -- Sleep and timed waits ----------------------------------------------------------------------------- */
static void check_sleep_and_timeouts(void) {
    HANDLE cur = GetCurrentThread(), ph = POISON;
    int on = have_hcp() && enable(cur, THREAD_PROFILING_FLAG_DISPATCH, 0, &ph) == ERROR_SUCCESS;
    PERFORMANCE_DATA a, b, c;
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    LARGE_INTEGER t0, t1, t2;
    on = on && read_dispatch(ph, &a);
    QueryPerformanceCounter(&t0);
    Sleep(20);
    QueryPerformanceCounter(&t1);
    on = on && read_dispatch(ph, &b);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    DWORD wr = WaitForSingleObject(ev, 20);
    QueryPerformanceCounter(&t2);
    on = on && read_dispatch(ph, &c);
    if (ev) CloseHandle(ev);
    if (ph != POISON) (void)disable(ph);
    double slept = qpc_ms(t0, t1), waited = qpc_ms(t1, t2);
    if (begin("SCHED-SLEEP-TICKS,HCP-KWAIT-REASON-VALUES", NEED_HCP,
              "Sleep(20) switches the thread out with WaitReasonBitMap bit 4 (DelayExecution)")) {
        end(expect(on, "Enable or Read failed") &&
            expect(b.ContextSwitchCount >= a.ContextSwitchCount + 1, "ContextSwitchCount %lu then %lu",
                   (unsigned long)a.ContextSwitchCount, (unsigned long)b.ContextSwitchCount) &&
            expect((b.WaitReasonBitMap & BIT(KW_DELAY)) != 0, "WaitReasonBitMap 0x%llX",
                   (unsigned long long)b.WaitReasonBitMap));
    }
    if (begin("SCHED-SLEEP-TICKS", 0,
              "Sleep(20) returns no earlier than 20 ms after it was called (QueryPerformanceCounter; 1 ms "
              "allowed for timer rounding)")) {
        end(expect(slept >= 19.0, "Sleep(20) returned after %.3f ms", slept));
    }
    if (begin("SCHED-WAIT-TIMEOUT-TICKS", 0,
              "WaitForSingleObject(unsignalled event, 20) returns WAIT_TIMEOUT no earlier than 20 ms later (1 ms "
              "allowed)")) {
        end(expect_u("WaitForSingleObject", wr, WAIT_TIMEOUT) &&
            expect(waited >= 19.0, "the wait returned after %.3f ms", waited));
    }
    if (begin("SCHED-WAIT-TIMEOUT-TICKS,SCHED-WAIT-USERREQUEST", NEED_HCP,
              "a wait that times out switches the thread out with bit 6 (UserRequest)")) {
        end(expect(on, "Enable or Read failed") &&
            expect((c.WaitReasonBitMap & BIT(KW_USERREQUEST)) != 0, "WaitReasonBitMap 0x%llX",
                   (unsigned long long)c.WaitReasonBitMap));
    }
    diag("Sleep(20) took %.3f ms, a 20 ms wait %.3f ms; bits 0x%llX, 0x%llX", slept, waited,
         (unsigned long long)b.WaitReasonBitMap, (unsigned long long)c.WaitReasonBitMap);
}

/* -- dispatcher objects ---------------------------------------------------------------------------------- */
typedef struct waiter {
    HANDLE obj;
    DWORD rc, code;
    int mode; /* 0: wait, return code; 1: take the mutex, exit holding it; 2: ReleaseMutex (not owner);
                 3: wait, ExitThread(code) */
    DWORD err;
} waiter;

static DWORD WINAPI waiter_main(LPVOID arg) {
    waiter *w = arg;
    if (w->mode == 2) {
        SetLastError(0);
        w->rc = (DWORD)ReleaseMutex(w->obj);
        w->err = GetLastError();
        return w->code;
    }
    w->rc = WaitForSingleObject(w->obj, JOIN_MS);
    if (w->mode == 3) ExitThread(w->code);
    return w->code;
}

static HANDLE start_waiter(waiter *w, HANDLE obj, int mode, DWORD code) {
    memset(w, 0, sizeof *w);
    w->obj = obj;
    w->mode = mode;
    w->code = code;
    return CreateThread(NULL, 0, waiter_main, w, 0, NULL);
}

static void check_objects(void) {
    /* events */
    if (begin("SCHED-EVENT-MANUAL", 0,
              "a set manual-reset event satisfies every wait until ResetEvent; then a 0 ms wait times out")) {
        HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
        int p = expect(e != NULL, "CreateEvent failed");
        if (e) {
            p &= expect_u("wait before SetEvent", WaitForSingleObject(e, 0), WAIT_TIMEOUT);
            SetEvent(e);
            p &= expect_u("first wait", WaitForSingleObject(e, 0), WAIT_OBJECT_0);
            p &= expect_u("second wait", WaitForSingleObject(e, 0), WAIT_OBJECT_0);
            p &= expect(ResetEvent(e), "ResetEvent failed");
            p &= expect_u("wait after ResetEvent", WaitForSingleObject(e, 0), WAIT_TIMEOUT);
            CloseHandle(e);
        }
        end(p);
    }
    if (begin("SCHED-EVENT-MANUAL", 0, "one SetEvent on a manual-reset event releases both of two waiting threads")) {
        HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
        waiter w[2];
        HANDLE th[2] = {start_waiter(&w[0], e, 0, 0), start_waiter(&w[1], e, 0, 0)};
        int p = expect(e && th[0] && th[1], "CreateEvent or CreateThread failed");
        Sleep(20);
        SetEvent(e);
        p = p && expect_u("both threads", WaitForMultipleObjects(2, th, TRUE, JOIN_MS), WAIT_OBJECT_0);
        p = p && expect_u("first thread's wait", w[0].rc, WAIT_OBJECT_0) &&
            expect_u("second thread's wait", w[1].rc, WAIT_OBJECT_0);
        for (int i = 0; i < 2; i++)
            if (th[i]) CloseHandle(th[i]);
        if (e) CloseHandle(e);
        end(p);
    }
    if (begin("SCHED-EVENT-AUTO", 0,
              "an auto-reset event set with no waiter satisfies exactly one wait, then is unsignalled")) {
        HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL);
        int p = expect(e != NULL, "CreateEvent failed");
        if (e) {
            SetEvent(e);
            p &= expect_u("first wait", WaitForSingleObject(e, 0), WAIT_OBJECT_0);
            p &= expect_u("second wait", WaitForSingleObject(e, 0), WAIT_TIMEOUT);
            CloseHandle(e);
        }
        end(p);
    }
    if (begin("SCHED-EVENT-AUTO", 0,
              "with two threads waiting on an auto-reset event, one SetEvent releases one of them; a second "
              "SetEvent the other")) {
        HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL);
        waiter w[2];
        HANDLE th[2] = {start_waiter(&w[0], e, 0, 0), start_waiter(&w[1], e, 0, 0)};
        int p = expect(e && th[0] && th[1], "CreateEvent or CreateThread failed");
        Sleep(20);
        if (p) {
            SetEvent(e);
            DWORD r = WaitForMultipleObjects(2, th, FALSE, JOIN_MS);
            p &= expect(r == WAIT_OBJECT_0 || r == WAIT_OBJECT_0 + 1, "wait for either thread: %lu", (unsigned long)r);
            if (p) p &= expect_u("the other thread, 50 ms later", WaitForSingleObject(th[1 - r], 50), WAIT_TIMEOUT);
            SetEvent(e);
            p &= expect_u("both threads", WaitForMultipleObjects(2, th, TRUE, JOIN_MS), WAIT_OBJECT_0);
        } else if (e) {
            SetEvent(e);
            SetEvent(e);
        }
        for (int i = 0; i < 2; i++)
            if (th[i]) (void)join(th[i]);
        if (e) CloseHandle(e);
        end(p);
    }
    /* mutexes */
    if (begin("SCHED-MUTEX", 0,
              "a mutex is recursive: two waits by its owner succeed, two ReleaseMutex succeed, a third fails with "
              "ERROR_NOT_OWNER (288)")) {
        HANDLE m = CreateMutexA(NULL, FALSE, NULL);
        int p = expect(m != NULL, "CreateMutex failed");
        if (m) {
            p &= expect_u("first wait", WaitForSingleObject(m, 0), WAIT_OBJECT_0);
            p &= expect_u("second wait", WaitForSingleObject(m, 0), WAIT_OBJECT_0);
            p &= expect(ReleaseMutex(m), "first ReleaseMutex failed") & expect(ReleaseMutex(m), "second failed");
            SetLastError(0);
            p &= expect(!ReleaseMutex(m), "third ReleaseMutex succeeded");
            p &= expect_u("GetLastError", GetLastError(), ERROR_NOT_OWNER);
            CloseHandle(m);
        }
        end(p);
    }
    if (begin("SCHED-MUTEX", 0, "ReleaseMutex by a thread that does not own it fails with 288; the owner keeps it")) {
        HANDLE m = CreateMutexA(NULL, TRUE, NULL);
        waiter w;
        HANDLE th = m ? start_waiter(&w, m, 2, 0) : NULL;
        int p = expect(m && th, "CreateMutex or CreateThread failed") && expect(join(th), "the thread did not end");
        p = p && expect_u("ReleaseMutex by the other thread", w.rc, FALSE) && expect_u("its last error", w.err, 288);
        p = p && expect(ReleaseMutex(m), "the owner's ReleaseMutex failed");
        if (m) CloseHandle(m);
        end(p);
    }
    if (begin("SCHED-MUTEX", 0,
              "a mutex whose owner exits holding it is abandoned: the next wait returns WAIT_ABANDONED (0x80) and "
              "owns it")) {
        HANDLE m = CreateMutexA(NULL, FALSE, NULL);
        waiter w;
        HANDLE th = m ? start_waiter(&w, m, 1, 0) : NULL;
        int p = expect(m && th, "CreateMutex or CreateThread failed") && expect(join(th), "the thread did not end");
        p = p && expect_u("the thread's wait", w.rc, WAIT_OBJECT_0);
        p = p && expect_u("WaitForSingleObject(abandoned mutex)", WaitForSingleObject(m, 0), WAIT_ABANDONED);
        p = p && expect(ReleaseMutex(m), "ReleaseMutex after the abandoned wait failed");
        if (m) CloseHandle(m);
        end(p);
    }
    /* semaphores */
    if (begin("SCHED-SEMAPHORE", 0,
              "a semaphore of count 2 (maximum 3) satisfies two waits; ReleaseSemaphore reports the previous "
              "count; past the maximum it fails with ERROR_TOO_MANY_POSTS (298)")) {
        HANDLE s = CreateSemaphoreA(NULL, 2, 3, NULL);
        int p = expect(s != NULL, "CreateSemaphore failed");
        if (s) {
            LONG prev = -1;
            p &= expect_u("first wait", WaitForSingleObject(s, 0), WAIT_OBJECT_0);
            p &= expect_u("second wait", WaitForSingleObject(s, 0), WAIT_OBJECT_0);
            p &= expect_u("third wait", WaitForSingleObject(s, 0), WAIT_TIMEOUT);
            p &= expect(ReleaseSemaphore(s, 1, &prev), "ReleaseSemaphore(1) failed") &&
                 expect_u("previous count", (unsigned long long)prev, 0);
            p &= expect(ReleaseSemaphore(s, 2, &prev), "ReleaseSemaphore(2) failed") &&
                 expect_u("previous count", (unsigned long long)prev, 1);
            SetLastError(0);
            p &= expect(!ReleaseSemaphore(s, 1, &prev), "ReleaseSemaphore past the maximum succeeded");
            p &= expect_u("GetLastError", GetLastError(), ERROR_TOO_MANY_POSTS);
            CloseHandle(s);
        }
        end(p);
    }
    /* WaitForMultipleObjects */
    if (begin("SCHED-WAIT-MULTIPLE", 0,
              "wait-any returns WAIT_OBJECT_0 + the lowest signalled index; wait-all times out until every object "
              "is signalled")) {
        HANDLE e[3] = {CreateEventA(NULL, TRUE, FALSE, NULL), CreateEventA(NULL, TRUE, FALSE, NULL),
                       CreateEventA(NULL, TRUE, FALSE, NULL)};
        int p = expect(e[0] && e[1] && e[2], "CreateEvent failed");
        if (p) {
            p &= expect_u("any, none set", WaitForMultipleObjects(3, e, FALSE, 0), WAIT_TIMEOUT);
            SetEvent(e[2]);
            p &= expect_u("any, [2] set", WaitForMultipleObjects(3, e, FALSE, 0), WAIT_OBJECT_0 + 2);
            SetEvent(e[1]);
            p &= expect_u("any, [1] and [2] set", WaitForMultipleObjects(3, e, FALSE, 0), WAIT_OBJECT_0 + 1);
            p &= expect_u("all, [0] not set", WaitForMultipleObjects(3, e, TRUE, 0), WAIT_TIMEOUT);
            SetEvent(e[0]);
            p &= expect_u("all set", WaitForMultipleObjects(3, e, TRUE, 0), WAIT_OBJECT_0);
        }
        for (int i = 0; i < 3; i++)
            if (e[i]) CloseHandle(e[i]);
        end(p);
    }
    if (begin("SCHED-WAIT-ERRORS", 0,
              "a wait on a closed handle fails (WAIT_FAILED) with 6; on 0 handles or on 65 with 87")) {
        HANDLE e = CreateEventA(NULL, TRUE, TRUE, NULL), many[MAXIMUM_WAIT_OBJECTS + 1];
        int p = expect(e != NULL, "CreateEvent failed");
        if (e) CloseHandle(e);
        SetLastError(0);
        p &= expect_u("WaitForSingleObject(closed)", WaitForSingleObject(e, 0), WAIT_FAILED) &&
             expect_u("its last error", GetLastError(), ERROR_INVALID_HANDLE);
        for (int i = 0; i <= MAXIMUM_WAIT_OBJECTS; i++) many[i] = GetCurrentThread();
        SetLastError(0);
        p &= expect_u("WaitForMultipleObjects(0)", WaitForMultipleObjects(0, many, FALSE, 0), WAIT_FAILED) &&
             expect_u("its last error", GetLastError(), ERROR_INVALID_PARAMETER);
        SetLastError(0);
        p &= expect_u("WaitForMultipleObjects(65)", WaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS + 1, many, FALSE, 0),
                      WAIT_FAILED) &&
             expect_u("its last error", GetLastError(), ERROR_INVALID_PARAMETER);
        end(p);
    }
    /* thread objects and exit codes */
    if (begin("SCHED-WAIT-THREAD,SCHED-EXIT-CODE", 0,
              "a live thread's exit code is STILL_ACTIVE (259); a wait on it ends when it returns, and its exit code "
              "is the return value")) {
        HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
        waiter w;
        HANDLE th = e ? start_waiter(&w, e, 0, 1234) : NULL;
        DWORD code = 0;
        int p = expect(e && th, "CreateEvent or CreateThread failed");
        p = p && expect(GetExitCodeThread(th, &code), "GetExitCodeThread failed") &&
            expect_u("exit code while it runs", code, STILL_ACTIVE);
        p = p && expect_u("a 0 ms wait on it", WaitForSingleObject(th, 0), WAIT_TIMEOUT);
        if (e) SetEvent(e);
        p = p && expect_u("wait on the thread", WaitForSingleObject(th, JOIN_MS), WAIT_OBJECT_0);
        p = p && expect(GetExitCodeThread(th, &code), "GetExitCodeThread failed") && expect_u("exit code", code, 1234);
        if (th) CloseHandle(th);
        if (e) CloseHandle(e);
        end(p);
    }
    if (begin("SCHED-EXIT-CODE", 0, "ExitThread(77) ends the thread with exit code 77")) {
        HANDLE e = CreateEventA(NULL, TRUE, TRUE, NULL);
        waiter w;
        HANDLE th = e ? start_waiter(&w, e, 3, 77) : NULL;
        DWORD code = 0;
        int p = expect(e && th, "CreateEvent or CreateThread failed");
        p = p && expect_u("wait on the thread", WaitForSingleObject(th, JOIN_MS), WAIT_OBJECT_0);
        p = p && expect(GetExitCodeThread(th, &code), "GetExitCodeThread failed") && expect_u("exit code", code, 77);
        if (th) CloseHandle(th);
        if (e) CloseHandle(e);
        end(p);
    }
}

/* -- processors and affinity ---------------------------------------------------------------------------------- */
typedef struct where {
    DWORD cpu[4];
} where;

static DWORD WINAPI where_main(LPVOID arg) {
    where *w = arg;
    for (int i = 0; i < 4; i++) {
        w->cpu[i] = GetCurrentProcessorNumber();
        Sleep(1);
    }
    return 0;
}

static void check_affinity(void) {
    DWORD_PTR proc = 0, sys = 0;
    BOOL got = GetProcessAffinityMask(GetCurrentProcess(), &proc, &sys);
    int pinned = pin_begin(), wp = 0;
    where w;
    memset(&w, 0, sizeof w);
    DWORD mine[4] = {0, 0, 0, 0};
    HANDLE th = pinned ? spawn(where_main, &w, THREAD_PRIORITY_NORMAL, &wp) : NULL;
    for (int i = 0; i < 4; i++) {
        mine[i] = GetCurrentProcessorNumber();
        Sleep(1);
    }
    int joined = join(th);
    DWORD_PTR old_mask = pin_old;
    pin_end();
    DWORD cpu = 0;
    for (int b = 0; b < (int)(8 * sizeof(DWORD_PTR)); b++)
        if (pin_mask == (DWORD_PTR)1 << b) cpu = (DWORD)b;
    if (begin("SCHED-AFFINITY,SCHED-CPUS-ONE", 0,
              "threads whose affinity is one processor run only there: this thread and a second one read that "
              "processor's number across Sleep(1)")) {
        if (!pinned || !wp) {
            end_skip("SetThreadAffinityMask failed");
        } else {
            int p = expect(joined, "the second thread did not end");
            for (int i = 0; i < 4; i++)
                p &= expect_u("this thread's processor", mine[i], cpu) &
                     expect_u("the other's processor", w.cpu[i], cpu);
            end(p);
        }
    }
    if (begin("SCHED-AFFINITY", 0,
              "SetThreadAffinityMask returns the previous mask, and fails with 87 for a mask of processors the "
              "system lacks")) {
        int p = expect(got, "GetProcessAffinityMask failed") && expect(pinned, "SetThreadAffinityMask failed");
        p = p && expect((old_mask & proc) != 0, "previous mask 0x%llX outside the process mask 0x%llX",
                        (unsigned long long)old_mask, (unsigned long long)proc);
        DWORD_PTR outside = ~sys;
        if (p && outside == 0) {
            end_skip("the system has every processor a mask can name");
        } else {
            SetLastError(0);
            DWORD_PTR r = p ? SetThreadAffinityMask(GetCurrentThread(), outside) : 1;
            p = p && expect(r == 0, "a mask of absent processors was accepted") &&
                expect_u("GetLastError", GetLastError(), ERROR_INVALID_PARAMETER);
            if (r) (void)SetThreadAffinityMask(GetCurrentThread(), r);
            end(p);
        }
    }
}

/* ==== more of the HCP functions ============================================================================= */
static void check_hcp_more(void) {
    HANDLE cur = GetCurrentThread();
    /* the first Read after Enable: no switch yet (retried when one came in between) */
    if (begin("HCP-DISPATCH-FIRST-READ-ZERO", NEED_HCP,
              "a DISPATCHING Read right after Enable(DISPATCH) gives ContextSwitchCount 0 and WaitReasonBitMap 0")) {
        int p = 1, clean = 0;
        for (int i = 0; i < 5 && p && !clean; i++) {
            HANDLE ph = POISON;
            PERFORMANCE_DATA pd;
            p &= expect_u("Enable", enable(cur, THREAD_PROFILING_FLAG_DISPATCH, 0, &ph), ERROR_SUCCESS);
            if (!p) break;
            p &= expect(read_dispatch(ph, &pd), "Read failed");
            if (p && pd.ContextSwitchCount == 0) {
                clean = 1;
                p &= expect_u("WaitReasonBitMap", pd.WaitReasonBitMap, 0);
            }
            (void)disable(ph);
        }
        if (p && !clean)
            end_skip("a context switch came between Enable and Read in 5 tries");
        else
            end(p);
    }
    if (begin("HCP-READ-NOT-ENABLED-FLAGS,HCP-DISPATCH-FLAG-REQUIRED", NEED_HCP,
              "after Enable(0, 0), Read(DISPATCHING) succeeds with ContextSwitchCount 0 and WaitReasonBitMap 0, "
              "across a Sleep(1) and a SwitchToThread")) {
        HANDLE ph = POISON;
        PERFORMANCE_DATA pd;
        DWORD rc = enable(cur, 0, 0, &ph);
        int p = expect_u("Enable", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) {
            Sleep(1);
            SwitchToThread();
            pd_init(&pd, 0x5A);
            p &= expect_u("Read(DISPATCHING)", read_pd(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd), ERROR_SUCCESS);
            p &= expect_u("ContextSwitchCount", pd.ContextSwitchCount, 0) &
                 expect_u("WaitReasonBitMap", pd.WaitReasonBitMap, 0);
            (void)disable(ph);
        }
        end(p);
    }
    /* HwCountersCount with no counter configured */
    {
        HANDLE ph = POISON;
        DWORD rc = have_hcp() ? enable(cur, 0, 0xFFFF, &ph) : ERROR_CALL_NOT_IMPLEMENTED;
        PERFORMANCE_DATA pd;
        pd_init(&pd, 0x5A);
        DWORD rr = rc == ERROR_SUCCESS ? read_pd(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &pd) : rc;
        if (rc == ERROR_SUCCESS) (void)disable(ph);
        if (begin("HCP-READ-HWCOUNTERSCOUNT", NEED_HCP,
                  "mask 0xFFFF with no counter configured: HwCountersCount 0 in both semantics (no element holds "
                  "data; no counter is configured)")) {
            int configured = rr == ERROR_SUCCESS && pd.HwCountersCount != 0 && pd.HwCountersCount != 0x5A;
            if (configured)
                end_skip("a driver has configured hardware counters on this machine");
            else
                end(expect_u("Enable", rc, ERROR_SUCCESS) && expect_u("Read", rr, ERROR_SUCCESS) &&
                    expect_u("HwCountersCount", pd.HwCountersCount, 0));
        }
    }
    /* the user block behind the handle (HCP-SPEC §2.1 steps 3-4): read with ReadProcessMemory */
    if (begin("HCP-ENABLE-BLOCK-INIT", NEED_HCP,
              "the handle points to a 448-byte block: Size 0x1C0 and Version 1 (one DWORD 0x000101C0), the mask at "
              "offset 32, every other byte 0; also for a block reused after Disable")) {
        int p = 1;
        for (int round = 0; round < 2 && p; round++) {
            int clean = 0;
            for (int tries = 0; tries < 5 && p && !clean; tries++) {
                HANDLE ph = POISON;
                unsigned char blk[448];
                SIZE_T got = 0;
                p &= expect_u("Enable", enable(cur, 0, 0x5, &ph), ERROR_SUCCESS);
                if (!p) break;
                p &= expect(ReadProcessMemory(GetCurrentProcess(), ph, blk, sizeof blk, &got) && got == sizeof blk,
                            "ReadProcessMemory of the block failed (%lu)", (unsigned long)GetLastError());
                (void)disable(ph);
                if (!p) break;
                unsigned long long mask = 0;
                for (int i = 0; i < 8; i++) mask |= (unsigned long long)blk[32 + i] << (8 * i);
                p &= expect_u("first DWORD",
                              blk[0] | blk[1] << 8 | (unsigned long)blk[2] << 16 | (unsigned long)blk[3] << 24,
                              0x000101C0u);
                p &= expect_u("mask at offset 32", mask, 0x5);
                clean = 1;
                for (int i = 4; i < 448; i++)
                    if ((i < 32 || i >= 40) && blk[i]) clean = 0;
            }
            p &= expect(clean, "round %d: nonzero bytes in the block in 5 tries", round);
        }
        end(p);
    }
    /* rejected in user mode: the rejected Enable costs no kernel entry (HCP-SPEC §2.1 steps 1-2) */
    if (begin("HCP-ENABLE-CHECKED-IN-USER-MODE", NEED_HCP | NEED(F_CYCLES),
              "Enable with bad Flags costs fewer cycles than one the kernel refuses (another thread: 50): the "
              "least QueryThreadCycleTime difference of 32 calls each")) {
        job j;
        HANDLE th = start_job(&j, JOB_IDLE, NULL);
        ULONG64 best_user = ~(ULONG64)0, best_kernel = ~(ULONG64)0;
        int p = expect(th != NULL, "CreateThread failed");
        for (int i = 0; i < 32 && p; i++) {
            HANDLE out = POISON;
            ULONG64 a = cycles_now();
            DWORD r1 = enable(cur, 2, 0, &out);
            ULONG64 b = cycles_now();
            DWORD r2 = enable(th, 0, 0, &out);
            ULONG64 c = cycles_now();
            p &= expect_u("Enable(Flags 2)", r1, ERROR_INVALID_PARAMETER) &
                 expect_u("Enable(other thread)", r2, ERROR_NOT_SUPPORTED);
            if (b - a < best_user) best_user = b - a;
            if (c - b < best_kernel) best_kernel = c - b;
        }
        if (th) SetEvent(j.go);
        finish_job(&j, th);
        p = p && expect(best_user < best_kernel, "least cycles: %llu rejected in user mode, %llu refused by the kernel",
                        (unsigned long long)best_user, (unsigned long long)best_kernel);
        end(p);
        diag("least cycles over a rejected Enable %llu, over a kernel-refused one %llu", (unsigned long long)best_user,
             (unsigned long long)best_kernel);
    }
    /* CycleTime is the thread's own: another thread's work does not enter it */
    if (begin("HCP-DISPATCH-CYCLETIME-PER-THREAD", NEED_HCP | NEED(F_CYCLES),
              "while this thread waits for another that works 20000 kernel calls, this thread's CycleTime grows by "
              "less than the other's QueryThreadCycleTime")) {
        HANDLE ph = POISON;
        int p = expect_u("Enable", enable(cur, 0, 0, &ph), ERROR_SUCCESS);
        PERFORMANCE_DATA a, b;
        job j;
        if (p) {
            p &= expect(read_dispatch(ph, &a), "Read failed");
            HANDLE th = start_job(&j, JOB_BURN, NULL);
            p &= expect(th != NULL, "CreateThread failed");
            finish_job(&j, th);
            p &= expect(read_dispatch(ph, &b), "Read failed");
            (void)disable(ph);
            p = p && expect(j.cycles > 0, "the other thread's QueryThreadCycleTime did not grow") &&
                expect(b.CycleTime - a.CycleTime < j.cycles,
                       "this thread's CycleTime grew by %llu, the other's work %llu",
                       (unsigned long long)(b.CycleTime - a.CycleTime), (unsigned long long)j.cycles);
            diag("CycleTime grew by %llu while the other thread used %llu cycles",
                 (unsigned long long)(b.CycleTime - a.CycleTime), (unsigned long long)j.cycles);
        }
        end(p);
    }
}

/* ==== NTSTATUS translation, FILETIME, handles, platform ===================================================== */
typedef ULONG(WINAPI *nt_to_dos_fn)(NTSTATUS);
typedef NTSTATUS(WINAPI *timer_res_fn)(PULONG, PULONG, PULONG);

static void check_platform(void) {
    HMODULE nt = GetModuleHandleA("ntdll.dll");
    nt_to_dos_fn to_dos = nt ? (nt_to_dos_fn)(void (*)(void))GetProcAddress(nt, "RtlNtStatusToDosError") : NULL;
    timer_res_fn timer_res = nt ? (timer_res_fn)(void (*)(void))GetProcAddress(nt, "NtQueryTimerResolution") : NULL;
    if (begin("HCP-ERROR-TRANSLATION", 0,
              "RtlNtStatusToDosError maps the statuses the HCP functions produce to their Win32 codes")) {
        static const struct {
            ULONG status, win32;
        } map[] = {
            {0x00000000u, 0},   {0xC0000022u, 5},   {0xC0000008u, 6},    {0xC0000024u, 6},    {0xC0000017u, 8},
            {0xC00000BBu, 50},  {0xC000000Du, 87},  {0xC00000EFu, 87},   {0xC00000F0u, 87},   {0xC00000F1u, 87},
            {0x80000002u, 998}, {0xC0000005u, 998}, {0xC0000303u, 4206}, {0xC0000302u, 4212},
        };
        int p = expect(to_dos != NULL, "ntdll.dll exports no RtlNtStatusToDosError");
        for (size_t i = 0; i < sizeof map / sizeof map[0] && p; i++) {
            char what[48];
            snprintf(what, sizeof what, "RtlNtStatusToDosError(0x%08lX)", (unsigned long)map[i].status);
            p &= expect_u(what, to_dos((NTSTATUS)map[i].status), map[i].win32);
        }
        end(p);
    }
    if (begin("TIMES-FILETIME", 0,
              "SystemTimeToFileTime: 1970-01-01 00:00:00 UTC is 116444736000000000, one second later "
              "116444736010000000")) {
        SYSTEMTIME st;
        FILETIME ft, ft2;
        memset(&st, 0, sizeof st);
        st.wYear = 1970;
        st.wMonth = 1;
        st.wDay = 1;
        int p = expect(SystemTimeToFileTime(&st, &ft), "SystemTimeToFileTime failed");
        st.wSecond = 1;
        p &= expect(SystemTimeToFileTime(&st, &ft2), "SystemTimeToFileTime failed");
        p = p && expect_u("1970-01-01", ft64(ft), 116444736000000000ull) &&
            expect_u("1970-01-01 00:00:01", ft64(ft2), 116444736010000000ull);
        end(p);
    }
    if (begin("TIMES-KERNEL-USER", NEED(F_TIMES),
              "after kernel calls worth two clock ticks, kernel and user time are multiples of the clock tick "
              "(NtQueryTimerResolution's maximum resolution)")) {
        ULONG mx = 0, mn = 0, cu = 0;
        FILETIME cr, ex, k, u;
        memset(&k, 0, sizeof k);
        memset(&u, 0, sizeof u);
        int p = expect(timer_res != NULL, "ntdll.dll exports no NtQueryTimerResolution") &&
                expect(timer_res(&mx, &mn, &cu) == 0 && mx > 0, "NtQueryTimerResolution failed");
        /* work in rounds of 100000 kernel calls until two ticks were charged (at most 20 rounds) */
        for (int round = 0; round < 20 && p; round++) {
            burn(100000);
            p &= expect(p_times(GetCurrentThread(), &cr, &ex, &k, &u), "GetThreadTimes failed");
            if (ft64(k) + ft64(u) >= 2ull * mx) break;
        }
        if (p && ft64(k) + ft64(u) < 2ull * mx)
            end_skip("the thread was charged less than two clock ticks in 2,000,000 kernel calls");
        else
            end(p &&
                expect(ft64(k) % mx == 0, "kernel time %llu is not a multiple of %lu", ft64(k), (unsigned long)mx) &&
                expect(ft64(u) % mx == 0, "user time %llu is not a multiple of %lu", ft64(u), (unsigned long)mx));
        if (timer_res) diag("clock tick %lu x 100 ns; kernel %llu, user %llu", (unsigned long)mx, ft64(k), ft64(u));
    }
    if (begin("PLAT-X86-HANDLES", NEED_HCP,
              "a HANDLE is pointer-sized: GetCurrentThread() is (HANDLE)-2, GetCurrentProcess() (HANDLE)-1, and "
              "Enable writes exactly sizeof(HANDLE) bytes of its out-parameter")) {
        int p = expect_u("sizeof(HANDLE)", sizeof(HANDLE), sizeof(void *));
        p &= expect(GetCurrentThread() == (HANDLE)(LONG_PTR)-2, "GetCurrentThread() is not (HANDLE)-2");
        p &= expect(GetCurrentProcess() == (HANDLE)(LONG_PTR)-1, "GetCurrentProcess() is not (HANDLE)-1");
        union {
            HANDLE h[2];
            unsigned char b[2 * sizeof(HANDLE)];
        } out;
        memset(&out, 0x5A, sizeof out);
        DWORD rc = enable(GetCurrentThread(), 0, 0, &out.h[0]);
        p &= expect_u("Enable", rc, ERROR_SUCCESS);
        if (rc == ERROR_SUCCESS) {
            for (size_t i = sizeof(HANDLE); i < sizeof out.b; i++)
                p &= expect(out.b[i] == 0x5A, "byte %u after the HANDLE was written", (unsigned)i);
            (void)disable(out.h[0]);
        }
        end(p);
    }
}

/* The platform facts of this build: the i386 and ARM64 builds check that the HCP functions keep the
 * x64 layouts and that every HCP check above passed. */
static void check_build_platform(void) {
#if defined(__i386__) || defined(_M_IX86)
    const char *arch = "x86";
#elif defined(__aarch64__) || defined(_M_ARM64)
    const char *arch = "arm64";
#else
    const char *arch = "x86-64";
#endif
    static const struct { const char *id, *arch; } plats[] = {{"PLAT-X86-HCP", "x86"}, {"PLAT-ARM64-HCP", "arm64"}};
    for (size_t i = 0; i < 2; i++) {
        char desc[160];
        snprintf(
            desc, sizeof desc,
            "on %s the HCP functions keep the x64 layouts (PERFORMANCE_DATA 288 bytes, HwCounters at 32) and every "
            "HCP check above passed",
            plats[i].arch);
        if (!begin(plats[i].id, NEED_HCP, desc)) continue;
        if (strcmp(arch, plats[i].arch) != 0) {
            char why_skip[64];
            snprintf(why_skip, sizeof why_skip, "this is the %s build", arch);
            end_skip(why_skip);
            continue;
        }
        end(expect_u("sizeof(PERFORMANCE_DATA)", sizeof(PERFORMANCE_DATA), 288) &&
            expect_u("offsetof HwCounters", offsetof(PERFORMANCE_DATA, HwCounters), 32) &&
            expect(hcp_failures_so_far == 0, "%d HCP checks failed", hcp_failures_so_far));
    }
}

/* ==== ETW: the NT Kernel Logger's thread events (HCP-SPEC §7) ================================================ */
/* One session logs THREAD, CSWITCH and DISPATCHER events to a file while a second thread starts,
 * waits, is woken and exits; the file is then read with ProcessTrace.  A second session logs
 * CSWITCH only.  Starting the kernel logger needs administrator rights: without them (or with
 * another kernel session running) the session checks SKIP with the reason. */
typedef ULONG(WINAPI *start_trace_fn)(TRACEHANDLE *, LPCSTR, EVENT_TRACE_PROPERTIES *);
typedef ULONG(WINAPI *control_trace_fn)(TRACEHANDLE, LPCSTR, EVENT_TRACE_PROPERTIES *, ULONG);
typedef TRACEHANDLE(WINAPI *open_trace_fn)(EVENT_TRACE_LOGFILEA *);
typedef ULONG(WINAPI *process_trace_fn)(TRACEHANDLE *, ULONG, LPFILETIME, LPFILETIME);
typedef ULONG(WINAPI *close_trace_fn)(TRACEHANDLE);
typedef BOOL(WINAPI *is_wow64_fn)(HANDLE, BOOL *);

/* SystemTraceControlGuid {9e814aad-3204-11d2-9a82-006008a86939} (evntrace.h) and ThreadGuid
 * {3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c} (the MOF class Thread), spelt out so that no GUID library
 * is needed. */
static const GUID system_trace_guid = {0x9e814aad, 0x3204, 0x11d2, {0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39}};
static const GUID thread_guid = {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};

enum { ET_START = 1, ET_END = 2, ET_DCSTART = 3, ET_DCEND = 4, ET_CSWITCH = 36, ET_READY = 50 };
#define ETW_CPUS 64

typedef struct etw_run {
    DWORD pid, main_tid, job_tid;
    unsigned ptr; /* the logger's pointer size: 8 on a 64-bit kernel */
    ULONG start_rc, second_rc, stop_rc, events_lost, open_rc, process_rc;
    unsigned n_thread, n_start, n_end, n_dcstart, n_dcend, n_cswitch, n_ready, n_other;
    unsigned bad_size, bad_version, bad_length;
    char first_bad[160];
    long idx, job_start, job_end, job_first_in, job_ready;
    DWORD job_start_ctx, job_start_pid, job_end_ctx;
    int main_dcstart, main_dcend, job_dcstart, main_wait_cswitch;
    unsigned chain_breaks, chain_checked;
    DWORD last_new[ETW_CPUS];
    unsigned char have_last[ETW_CPUS];
} etw_run;

static etw_run *etw_cur;

static DWORD le32(const unsigned char *p) {
    return (DWORD)p[0] | (DWORD)p[1] << 8 | (DWORD)p[2] << 16 | (DWORD)p[3] << 24;
}

static void etw_bad(etw_run *r, unsigned *counter, const char *what, unsigned type, unsigned long got) {
    if (!r->first_bad[0]) snprintf(r->first_bad, sizeof r->first_bad, "event type %u: %s %lu", type, what, got);
    (*counter)++;
}

static void WINAPI etw_event(EVENT_TRACE *ev) {
    etw_run *r = etw_cur;
    if (!r || memcmp(&ev->Header.Guid, &thread_guid, sizeof(GUID)) != 0) return;
    const unsigned char *d = ev->MofData;
    ULONG n = ev->MofLength;
    unsigned type = ev->Header.Class.Type, version = ev->Header.Class.Version;
    long i = r->idx++;
    r->n_thread++;
    if (ev->Header.Size != 48 + n)
        etw_bad(r, &r->bad_size, "Header.Size - 48 - MofLength", type, ev->Header.Size - 48 - n);
    if (type >= ET_START && type <= ET_DCEND) {
        if (version != 3) etw_bad(r, &r->bad_version, "Class.Version", type, version);
        if (n != (r->ptr == 8 ? 72u : 44u)) etw_bad(r, &r->bad_length, "MofLength", type, n);
        if (n < 8 || !d) return;
        DWORD pid = le32(d), tid = le32(d + 4);
        if (type == ET_START) r->n_start++;
        if (type == ET_END) r->n_end++;
        if (type == ET_DCSTART) r->n_dcstart++;
        if (type == ET_DCEND) r->n_dcend++;
        if (pid != r->pid) return;
        if (type == ET_START && tid == r->job_tid && r->job_start < 0) {
            r->job_start = i;
            r->job_start_ctx = ev->Header.ThreadId;
            r->job_start_pid = pid;
        }
        if (type == ET_END && tid == r->job_tid) {
            r->job_end = i;
            r->job_end_ctx = ev->Header.ThreadId;
        }
        if (type == ET_DCSTART && tid == r->main_tid) r->main_dcstart = 1;
        if (type == ET_DCSTART && tid == r->job_tid) r->job_dcstart = 1;
        if (type == ET_DCEND && tid == r->main_tid) r->main_dcend = 1;
    } else if (type == ET_CSWITCH) {
        r->n_cswitch++;
        if (version != 2) etw_bad(r, &r->bad_version, "Class.Version", type, version);
        if (n != 24) etw_bad(r, &r->bad_length, "MofLength", type, n);
        if (n < 16 || !d) return;
        DWORD new_tid = le32(d), old_tid = le32(d + 4);
        unsigned cpu = ev->BufferContext.ProcessorNumber;
        if (cpu < ETW_CPUS) {
            if (r->have_last[cpu]) {
                r->chain_checked++;
                if (r->last_new[cpu] != old_tid) r->chain_breaks++;
            }
            r->last_new[cpu] = new_tid;
            r->have_last[cpu] = 1;
        }
        if (new_tid == r->job_tid && r->job_first_in < 0) r->job_first_in = i;
        if (old_tid == r->main_tid && d[12] == KW_USERREQUEST && d[14] == 5 /* Waiting */) r->main_wait_cswitch = 1;
    } else if (type == ET_READY) {
        r->n_ready++;
        if (version != 2) etw_bad(r, &r->bad_version, "Class.Version", type, version);
        if (n != 8) etw_bad(r, &r->bad_length, "MofLength", type, n);
        if (n >= 4 && d && le32(d) == r->job_tid && r->job_start >= 0 && r->job_ready < 0) r->job_ready = i;
    } else {
        r->n_other++;
    }
}

/* One session with `flags`; returns 0 when it could not be started (r->start_rc says why). */
static int etw_session(etw_run *r, ULONG flags) {
    HMODULE adv = LoadLibraryA("advapi32.dll");
    start_trace_fn start = adv ? (start_trace_fn)(void (*)(void))GetProcAddress(adv, "StartTraceA") : NULL;
    control_trace_fn control = adv ? (control_trace_fn)(void (*)(void))GetProcAddress(adv, "ControlTraceA") : NULL;
    open_trace_fn open = adv ? (open_trace_fn)(void (*)(void))GetProcAddress(adv, "OpenTraceA") : NULL;
    process_trace_fn process = adv ? (process_trace_fn)(void (*)(void))GetProcAddress(adv, "ProcessTrace") : NULL;
    close_trace_fn close = adv ? (close_trace_fn)(void (*)(void))GetProcAddress(adv, "CloseTrace") : NULL;
    HMODULE k32 = GetModuleHandleA("kernel32.dll");
    is_wow64_fn wow = k32 ? (is_wow64_fn)(void (*)(void))GetProcAddress(k32, "IsWow64Process") : NULL;
    BOOL is_wow = FALSE;
    memset(r, 0, sizeof *r);
    r->job_start = r->job_end = r->job_first_in = r->job_ready = -1;
    r->pid = GetCurrentProcessId();
    r->main_tid = GetCurrentThreadId();
    r->ptr = sizeof(void *) == 8 || (wow && wow(GetCurrentProcess(), &is_wow) && is_wow) ? 8 : 4;
    if (!start || !control || !open || !process || !close) {
        r->start_rc = ERROR_PROC_NOT_FOUND;
        return 0;
    }
    char dir[MAX_PATH + 1], path[MAX_PATH + 64];
    DWORD dn = GetTempPathA(MAX_PATH, dir);
    if (dn == 0 || dn > MAX_PATH) dir[0] = 0;
    snprintf(path, sizeof path, "%shcpcheck-%lu.etl", dir, (unsigned long)r->pid);
    union {
        EVENT_TRACE_PROPERTIES p;
        char b[sizeof(EVENT_TRACE_PROPERTIES) + 2 * 1024];
    } props, props2;
    memset(&props, 0, sizeof props);
    props.p.Wnode.BufferSize = (ULONG)sizeof props;
    props.p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    props.p.Wnode.Guid = system_trace_guid;
    props.p.Wnode.ClientContext = 1; /* QueryPerformanceCounter time stamps */
    props.p.EnableFlags = flags;
    props.p.LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
    props.p.BufferSize = 64;
    props.p.MinimumBuffers = 16;
    props.p.MaximumBuffers = 256;
    props.p.LoggerNameOffset = (ULONG)sizeof(EVENT_TRACE_PROPERTIES);
    props.p.LogFileNameOffset = (ULONG)sizeof(EVENT_TRACE_PROPERTIES) + 1024;
    memcpy(props.b + props.p.LogFileNameOffset, path, strlen(path) + 1);
    props2 = props;
    TRACEHANDLE h = 0, h2 = 0;
    r->start_rc = start(&h, KERNEL_LOGGER_NAMEA, &props.p);
    if (r->start_rc != ERROR_SUCCESS) return 0;
    r->second_rc = start(&h2, KERNEL_LOGGER_NAMEA, &props2.p);
    if (r->second_rc == ERROR_SUCCESS) (void)control(h2, KERNEL_LOGGER_NAMEA, &props2.p, EVENT_TRACE_CONTROL_STOP);

    /* the activity: a thread that starts, waits on an event, is woken by this one and exits */
    job j;
    HANDLE th = start_job(&j, JOB_IDLE, NULL);
    r->job_tid = th ? j.tid : 0;
    Sleep(20);
    if (th) SetEvent(j.go);
    finish_job(&j, th);
    Sleep(1);

    r->stop_rc = control(h, KERNEL_LOGGER_NAMEA, &props.p, EVENT_TRACE_CONTROL_STOP);
    r->events_lost = props.p.EventsLost;
    EVENT_TRACE_LOGFILEA lf;
    memset(&lf, 0, sizeof lf);
    lf.LogFileName = path;
    lf.EventCallback = etw_event;
    etw_cur = r;
    TRACEHANDLE t = open(&lf);
    if (t == INVALID_PROCESSTRACE_HANDLE) {
        r->open_rc = GetLastError();
    } else {
        r->process_rc = process(&t, 1, NULL, NULL);
        (void)close(t);
    }
    etw_cur = NULL;
    DeleteFileA(path);
    return 1;
}

static const char *etw_skip(const etw_run *r, char *buf, size_t n) {
    if (r->start_rc == ERROR_SUCCESS) return NULL;
    if (r->start_rc == ERROR_ACCESS_DENIED)
        snprintf(buf, n, "the process may not start the NT Kernel Logger (5: not an administrator)");
    else if (r->start_rc == ERROR_ALREADY_EXISTS)
        snprintf(buf, n, "another program runs the NT Kernel Logger (183)");
    else if (r->start_rc == ERROR_PROC_NOT_FOUND)
        snprintf(buf, n, "advapi32.dll lacks StartTraceA, ControlTraceA, OpenTraceA, ProcessTrace or CloseTrace");
    else
        snprintf(buf, n, "StartTrace(NT Kernel Logger) failed with %lu", (unsigned long)r->start_rc);
    return buf;
}

static void check_etw(void) {
    begin("ETW-CONSTANTS", 0,
          "evntrace.h: EVENT_TRACE_FLAG_THREAD 0x2, _CSWITCH 0x10, _DISPATCHER 0x800; EVENT_TRACE_TYPE_START 1, "
          "_END 2, _DC_START 3, _DC_END 4");
    end(expect_u("EVENT_TRACE_FLAG_THREAD", EVENT_TRACE_FLAG_THREAD, 2) &
        expect_u("EVENT_TRACE_FLAG_CSWITCH", EVENT_TRACE_FLAG_CSWITCH, 0x10) &
        expect_u("EVENT_TRACE_FLAG_DISPATCHER", EVENT_TRACE_FLAG_DISPATCHER, 0x800) &
        expect_u("EVENT_TRACE_TYPE_START", EVENT_TRACE_TYPE_START, 1) &
        expect_u("EVENT_TRACE_TYPE_END", EVENT_TRACE_TYPE_END, 2) &
        expect_u("EVENT_TRACE_TYPE_DC_START", EVENT_TRACE_TYPE_DC_START, 3) &
        expect_u("EVENT_TRACE_TYPE_DC_END", EVENT_TRACE_TYPE_DC_END, 4));
    begin("ETW-HEADER-LAYOUT", 0,
          "EVENT_TRACE_HEADER is 48 bytes: Size 0, Class.Type 4, Class.Version 6, ThreadId 8, ProcessId 12, "
          "TimeStamp 16, Guid 24, KernelTime 40, UserTime 44");
    end(expect_u("sizeof(EVENT_TRACE_HEADER)", sizeof(EVENT_TRACE_HEADER), 48) &
        expect_u("Size", offsetof(EVENT_TRACE_HEADER, Size), 0) &
        expect_u("Class.Type", offsetof(EVENT_TRACE_HEADER, Class.Type), 4) &
        expect_u("Class.Version", offsetof(EVENT_TRACE_HEADER, Class.Version), 6) &
        expect_u("ThreadId", offsetof(EVENT_TRACE_HEADER, ThreadId), 8) &
        expect_u("ProcessId", offsetof(EVENT_TRACE_HEADER, ProcessId), 12) &
        expect_u("TimeStamp", offsetof(EVENT_TRACE_HEADER, TimeStamp), 16) &
        expect_u("Guid", offsetof(EVENT_TRACE_HEADER, Guid), 24) &
        expect_u("KernelTime", offsetof(EVENT_TRACE_HEADER, KernelTime), 40) &
        expect_u("UserTime", offsetof(EVENT_TRACE_HEADER, UserTime), 44));

    static etw_run all, cs; /* large: not on the stack */
    char buf[160], buf2[160];
    (void)etw_session(&all, EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER);
    const char *skip = etw_skip(&all, buf, sizeof buf);
    const char *skip2 = skip;
    if (!skip) {
        (void)etw_session(&cs, EVENT_TRACE_FLAG_CSWITCH);
        skip2 = etw_skip(&cs, buf2, sizeof buf2);
    }
    int read_ok = !skip && all.stop_rc == ERROR_SUCCESS && all.open_rc == 0 && all.process_rc == ERROR_SUCCESS;
    if (!skip)
        diag("ETW: %u Thread-class events (Start %u, End %u, DCStart %u, DCEnd %u, CSwitch %u, ReadyThread %u, other "
             "%u), %lu lost; CSWITCH-only session: %u events",
             all.n_thread, all.n_start, all.n_end, all.n_dcstart, all.n_dcend, all.n_cswitch, all.n_ready, all.n_other,
             (unsigned long)all.events_lost, cs.n_thread);
#define ETW_BEGIN(id, desc)                                                                                            \
    if (!begin(id, 0, desc)) {                                                                                         \
    } else if (skip)                                                                                                   \
        end_skip(skip);                                                                                                \
    else
#define READ_OK()                                                                                                      \
    expect(read_ok, "the session's stop (%lu), OpenTrace (%lu) or ProcessTrace (%lu) failed",                          \
           (unsigned long)all.stop_rc, (unsigned long)all.open_rc, (unsigned long)all.process_rc)
    ETW_BEGIN("ETW-ERRORS", "a second StartTrace of the NT Kernel Logger while it runs fails with ERROR_ALREADY_EXISTS")
    end(expect_u("second StartTrace", all.second_rc, ERROR_ALREADY_EXISTS));
    ETW_BEGIN("ETW-HEADER",
              "every Thread-class event: Size = 48 + MofLength, Class.Version 3 for Start/End/DCStart/DCEnd and 2 "
              "for CSwitch and ReadyThread, Guid ThreadGuid")
    end(READ_OK() && expect(all.n_thread > 0, "no Thread-class event") &&
        expect(!all.bad_size && !all.bad_version, "%u sizes and %u versions wrong, first: %s", all.bad_size,
               all.bad_version, all.first_bad));
    char desc[200];
    snprintf(desc, sizeof desc,
             "payload lengths on this %u-bit logger: Thread_TypeGroup1 %u bytes, CSwitch 24, ReadyThread 8; the new "
             "thread's Start payload begins ProcessId, TThreadId",
             all.ptr * 8, all.ptr == 8 ? 72u : 44u);
    ETW_BEGIN("ETW-DATA,ETW-PER-PLATFORM,PLAT-ETW-LAYOUTS,PLAT-ETW-PAYLOADS", desc)
    end(READ_OK() && expect(!all.bad_length, "%u lengths wrong, first: %s", all.bad_length, all.first_bad) &&
        expect(all.job_start >= 0, "no Start event names the new thread (id %lu) of this process (%lu)",
               (unsigned long)all.job_tid, (unsigned long)all.pid));
    ETW_BEGIN("ETW-DATA",
              "a CSwitch away from this thread while it waits on the other thread has OldThreadWaitReason 6 "
              "(UserRequest) at byte 12 and OldThreadState 5 (Waiting) at byte 14")
    end(READ_OK() && expect(all.main_wait_cswitch, "no such CSwitch event"));
    ETW_BEGIN("PLAT-ETW-32BIT-PAYLOAD", "a 32-bit logger writes 44-byte Thread_TypeGroup1 payloads")
    if (all.ptr == 8)
        end_skip("the kernel is 64-bit: its logger writes 72-byte payloads (checked above)");
    else
        end(READ_OK() && expect(!all.bad_length && all.n_start + all.n_dcstart > 0, "%s", all.first_bad));
    ETW_BEGIN("ETW-CONTEXT",
              "the new thread's End event is logged in its own context; its Start event names it in the payload and "
              "is logged by it or its creator")
    end(READ_OK() && expect(all.job_start >= 0 && all.job_end >= 0, "Start or End of the new thread missing") &&
        expect(all.job_end_ctx == all.job_tid, "End logged by thread %lu", (unsigned long)all.job_end_ctx) &&
        expect(all.job_start_ctx == all.main_tid || all.job_start_ctx == all.job_tid, "Start logged by thread %lu",
               (unsigned long)all.job_start_ctx));
    ETW_BEGIN("ETW-RUNDOWN",
              "the session logs DCStart for this thread (live at its start) and DCEnd at its stop, and no DCStart "
              "for the thread created during it")
    end(READ_OK() && expect(all.main_dcstart, "no DCStart for this thread") &&
        expect(all.main_dcend, "no DCEnd for this thread") &&
        expect(!all.job_dcstart, "a DCStart for the thread created during the session"));
    ETW_BEGIN("ETW-SEQUENCE",
              "the new thread's events come in order: Start, a ReadyThread (its wake-up), CSwitch to it, End")
    end(READ_OK() && expect(all.job_start >= 0 && all.job_end >= 0, "Start or End of the new thread missing") &&
        expect(all.job_first_in > all.job_start && all.job_first_in < all.job_end,
               "first CSwitch to it at %ld, Start %ld, End %ld", all.job_first_in, all.job_start, all.job_end) &&
        expect(all.job_ready > all.job_start && all.job_ready < all.job_end, "ReadyThread at %ld, Start %ld, End %ld",
               all.job_ready, all.job_start, all.job_end));
    ETW_BEGIN("ETW-CPUS",
              "CSwitch events follow each processor's switches: each one's OldThreadId is the NewThreadId of the "
              "previous CSwitch on its processor")
    if (all.events_lost)
        end_skip("the session lost events");
    else
        end(READ_OK() && expect(all.chain_checked > 0, "no two CSwitch events on one processor") &&
            expect(!all.chain_breaks, "%u of %u CSwitch events do not continue their processor's chain",
                   all.chain_breaks, all.chain_checked));
    ETW_BEGIN("ETW-FLAGS",
              "THREAD|CSWITCH|DISPATCHER logs Start, End, DCStart, DCEnd, CSwitch and ReadyThread; CSWITCH alone "
              "logs CSwitch and none of the others")
    if (skip2)
        end_skip(skip2);
    else
        end(READ_OK() &&
            expect(all.n_start && all.n_end && all.n_dcstart && all.n_dcend && all.n_cswitch && all.n_ready,
                   "a kind of event is missing with all three flags") &&
            expect(cs.n_cswitch > 0, "CSWITCH alone logged no CSwitch") &&
            expect(cs.n_start + cs.n_end + cs.n_dcstart + cs.n_dcend + cs.n_ready == 0,
                   "CSWITCH alone logged %u thread and %u ReadyThread events",
                   cs.n_start + cs.n_end + cs.n_dcstart + cs.n_dcend, cs.n_ready));
#undef ETW_BEGIN
#undef READ_OK
}

/* ---- kernel-mode DDIs, and the last error ------------------------------------------------------------ */
static void check_kernel_and_last_error(void) {
    begin("HCP-KE-SET-QUERY", 0, "KeSetHardwareCounterConfiguration / KeQueryHardwareCounterConfiguration");
    end_skip("kernel-mode DDIs of ntoskrnl.exe: not callable from a user-mode program");
    begin("HCP-KE-SET-TOO-MANY", 0, "KeSetHardwareCounterConfiguration with Count 17 returns STATUS_INVALID_PARAMETER");
    end_skip("kernel-mode DDI of ntoskrnl.exe: not callable from a user-mode program");
    if (begin("HCP-LAST-ERROR-UNCHANGED", NEED_HCP,
              "no HCP call changed the last error (preset to 0xDEADBEEF before each call)")) {
        expect(lasterr_changed == 0, "%d of %d calls changed it, the first %s", lasterr_changed, lasterr_calls,
               lasterr_first ? lasterr_first : "");
        end(lasterr_calls > 0 && lasterr_changed == 0);
        diag("%d HCP calls watched", lasterr_calls);
    }
}

int hcpcheck_main(int argc, char **argv);
int hcpcheck_main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "documented") == 0)
        observed = 0;
    else if (argc > 1 && strcmp(argv[1], "observed") != 0) {
        fprintf(stderr, "usage: hcpcheck [observed|documented]\n");
        return 2;
    }
#ifdef _WIN32
    _setmode(_fileno(stdout), _O_BINARY); /* "\n", not "\r\n": the TAP file is the same everywhere */
#endif
    printf("TAP version 13\n");
    diag("hcpcheck: HCP conformance, %s semantics", observed ? "observed" : "documented");
    print_os();
    resolve();
    check_layouts();
    check_exports();
    check_enable_errors();
    check_enable_query_disable();
    check_read();
    check_dispatch();
    check_cycles();
    check_times();
    check_hcp_more();
    check_quantum();
    check_preempt();
    check_yield();
    check_sleep_and_timeouts();
    check_objects();
    check_affinity();
    check_platform();
    check_etw();
    check_kernel_and_last_error();
    check_build_platform();
    printf("1..%d\n", n_tests);
    if (n_failed) diag("%d of %d checks failed", n_failed, n_tests);
    fflush(stdout);
    return n_failed ? 1 : 0;
}

#ifndef HCPSHIM
int main(int argc, char **argv) { return hcpcheck_main(argc, argv); }
#endif
