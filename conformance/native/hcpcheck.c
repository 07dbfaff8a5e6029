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
            printf("not ok %d - %s [%s] # missing export %s\n", n_tests, desc, id, fn_name[f]);
            return 0;
        }
    }
    return 1;
}

static void end(int pass) {
    n_tests++;
    if (!pass) n_failed++;
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
enum { JOB_IDLE, JOB_PROFILE_WAITS, JOB_EXIT_ENABLED, JOB_DISABLE_OTHER, JOB_YIELD };
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
        {"TIMES-ACCESS", "QueryThreadCycleTime with a NULL handle fails with 6", 0, FALSE, ERROR_INVALID_HANDLE},
        {"TIMES-ACCESS", "QueryThreadCycleTime with an event handle fails with 6", 1, FALSE, ERROR_INVALID_HANDLE},
        {"TIMES-ACCESS", "QueryThreadCycleTime with a SYNCHRONIZE-only thread handle fails with 5", SYNCHRONIZE, FALSE,
         ERROR_ACCESS_DENIED},
        {"TIMES-ACCESS", "QueryThreadCycleTime with a THREAD_QUERY_LIMITED_INFORMATION handle succeeds",
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
    if (begin("TIMES-CREATION", NEED(F_TIMES),
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
        if (!begin("TIMES-ACCESS", NEED(F_TIMES), cases[i].desc)) continue;
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
    check_kernel_and_last_error();
    printf("1..%d\n", n_tests);
    if (n_failed) diag("%d of %d checks failed", n_failed, n_tests);
    fflush(stdout);
    return n_failed ? 1 : 0;
}

#ifndef HCPSHIM
int main(int argc, char **argv) { return hcpcheck_main(argc, argv); }
#endif
