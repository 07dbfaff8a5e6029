/* imports.c — one check per import of hcpsim's table (scenarios/tests/pe_imports.sh).  Each
 * line it prints is "ok DLL!Name: what" or "not ok DLL!Name: what (got ...)"; the expected
 * values are the functions' documented results (Microsoft's documentation, the C standard) and
 * the fixed process hcpsim builds (api/README.md "Windows programs").  Strings and sizes go
 * through volatile variables so that the compiler calls the functions instead of folding them.
 * msvcrt's own printf, not mingw-w64's: __USE_MINGW_ANSI_STDIO 0.  With the argument "exit" it
 * ends with ExitProcess(42), with "_exit" with _exit(43), with "abort" with abort(), with "amsg"
 * with _amsg_exit(2). */
#define __USE_MINGW_ANSI_STDIO 0
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

/* declared in the CRT's internal headers only */
_CRTIMP char **__cdecl __p__acmdln(void);
_CRTIMP int *__cdecl __p__commode(void);
_CRTIMP void __cdecl _amsg_exit(int);

/* msvcrt's own atexit (mingw-w64 links a static one that calls _onexit) */
extern int(__cdecl *__MINGW_IMP_SYMBOL(atexit))(void (*)(void));

static int failed;
static void check(const char *what, int ok, const char *fmt, ...) {
    char got[256] = "";
    va_list ap;
    va_start(ap, fmt);
    vsprintf(got, fmt, ap);
    va_end(ap);
    if (!ok) failed++;
    printf(ok ? "ok %s\n" : "not ok %s (got %s)\n", what, got);
}
#define K "KERNEL32.dll!"
#define C "msvcrt.dll!"

static const char *volatile abc = "abc";
static int wsame(const wchar_t *a, const wchar_t *b) { /* wcscmp is not in hcpsim's table */
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}
static const wchar_t *volatile wabc = L"abc";
static volatile size_t three = 3;
static char page[8192] __attribute__((aligned(4096)));

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static void on_exit_fn(void) { printf("ok " C "atexit: the function it registered runs at exit\n"); }
static void on_mingw_atexit_fn(void) { printf("ok mingw-w64's own atexit registered a function that runs\n"); }
static int on_onexit_fn(void) {
    printf("ok " C "_onexit: the function it registered runs at exit, before atexit's (last in, first out)\n");
    return 0;
}
static DWORD WINAPI ret7(LPVOID p) { return (DWORD)(ULONG_PTR)p + 7; }
static DWORD WINAPI exit8(LPVOID p) {
    (void)p;
    ExitThread(8);
}
static DWORD WINAPI block(LPVOID p) { return WaitForSingleObject((HANDLE)p, INFINITE); }

/* The functions of threads, synchronisation, TLS, time, memory and the heap (api/README.md). */
static void threads_and_memory(void) {
    CRITICAL_SECTION cs;
    check(K "InitializeCriticalSectionAndSpinCount: TRUE", InitializeCriticalSectionAndSpinCount(&cs, 4000), "FALSE");
    check(K "TryEnterCriticalSection: TRUE when free, TRUE again by its owner (recursion)",
          TryEnterCriticalSection(&cs) && TryEnterCriticalSection(&cs), "FALSE");
    LeaveCriticalSection(&cs);
    LeaveCriticalSection(&cs);
    DeleteCriticalSection(&cs);
    check(K "InitializeCriticalSectionEx: TRUE", InitializeCriticalSectionEx(&cs, 0, 0), "FALSE");
    DeleteCriticalSection(&cs);
    DWORD ti = TlsAlloc();
    check(K "TlsAlloc: an index, not TLS_OUT_OF_INDEXES", ti != TLS_OUT_OF_INDEXES, "%lu", ti);
    check(K "TlsSetValue: TRUE, TlsGetValue then returns the value",
          TlsSetValue(ti, (LPVOID)77) && TlsGetValue(ti) == (LPVOID)77, "%p", TlsGetValue(ti));
    BOOL f1 = TlsFree(ti);
    SetLastError(0);
    BOOL f2 = TlsFree(ti);
    check(K "TlsFree: TRUE, then FALSE with ERROR_INVALID_PARAMETER for the freed index",
          f1 && !f2 && GetLastError() == ERROR_INVALID_PARAMETER, "%d %d %lu", f1, f2, GetLastError());
    char *v = VirtualAlloc(NULL, 5000, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    check(K "VirtualAlloc: a 64 KiB-aligned region of zeros, writable",
          v && ((ULONG_PTR)v & 0xFFFF) == 0 && v[0] == 0 && v[8191] == 0 && (v[5000] = 1) == 1, "%p", (void *)v);
    check(K "VirtualFree: TRUE for MEM_RELEASE of the region", VirtualFree(v, 0, MEM_RELEASE), "FALSE");
    HANDLE h = GetProcessHeap();
    check(K "GetProcessHeap: a heap handle", h != NULL, "NULL");
    int *z = HeapAlloc(h, HEAP_ZERO_MEMORY, 40);
    check(K "HeapAlloc: HEAP_ZERO_MEMORY gives zeros", z && z[0] == 0 && z[9] == 0, "%p", (void *)z);
    check(K "HeapSize: the size asked for", HeapSize(h, 0, z) == 40, "%lu", (unsigned long)HeapSize(h, 0, z));
    z[9] = 99;
    z = HeapReAlloc(h, 0, z, 4000);
    check(K "HeapReAlloc: the contents move", z && z[9] == 99 && HeapSize(h, 0, z) == 4000, "%p", (void *)z);
    check(K "HeapFree: TRUE", HeapFree(h, 0, z), "FALSE");
    HANDLE hc = HeapCreate(0, 0, 0);
    check(K "HeapCreate: a heap handle", hc != NULL, "NULL");
    check(K "HeapDestroy: TRUE", HeapDestroy(hc), "FALSE");
    SYSTEM_INFO si, ni;
    GetSystemInfo(&si);
    check(K "GetSystemInfo: 1 CPU (mask 1), 4 KiB pages, 64 KiB granularity",
          si.dwNumberOfProcessors == 1 && si.dwActiveProcessorMask == 1 && si.dwPageSize == 4096 &&
              si.dwAllocationGranularity == 65536,
          "%lu %lu", si.dwNumberOfProcessors, si.dwPageSize);
    GetNativeSystemInfo(&ni);
    check(K "GetNativeSystemInfo: the same", memcmp(&si, &ni, sizeof si) == 0, "differs");
    DWORD tid = 0, code = 0;
    HANDLE t = CreateThread(NULL, 0, ret7, (LPVOID)35, 0, &tid);
    DWORD w = WaitForSingleObject(t, INFINITE);
    check(K "CreateThread: a thread that runs; its exit code is the routine's value (35 + 7)",
          t && tid && w == WAIT_OBJECT_0 && GetExitCodeThread(t, &code) && code == 42, "%lu %lu", w, code);
    CloseHandle(t);
    t = CreateThread(NULL, 0, exit8, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    check(K "ExitThread: the thread's exit code", GetExitCodeThread(t, &code) && code == 8, "%lu", code);
    CloseHandle(t);
    HANDLE never = CreateEventA(NULL, TRUE, FALSE, NULL);
    t = CreateThread(NULL, 0, block, never, 0, NULL);
    Sleep(1);
    BOOL tt = TerminateThread(t, 66);
    check(K "TerminateThread: TRUE; the waiting thread ends with that code",
          tt && WaitForSingleObject(t, 0) == WAIT_OBJECT_0 && GetExitCodeThread(t, &code) && code == 66, "%d %lu", tt,
          code);
    CloseHandle(t);
    HANDLE me = GetCurrentThread();
    check(K "GetThreadPriority: THREAD_PRIORITY_NORMAL (0)", GetThreadPriority(me) == THREAD_PRIORITY_NORMAL, "%d",
          GetThreadPriority(me));
    BOOL sp1 = SetThreadPriority(me, THREAD_PRIORITY_BELOW_NORMAL);
    int pr = GetThreadPriority(me);
    SetLastError(0);
    BOOL sp2 = SetThreadPriority(me, 7);
    check(K "SetThreadPriority: TRUE and read back; FALSE with ERROR_INVALID_PARAMETER for 7",
          sp1 && pr == THREAD_PRIORITY_BELOW_NORMAL && !sp2 && GetLastError() == ERROR_INVALID_PARAMETER, "%d %d %d",
          sp1, pr, sp2);
    SetThreadPriority(me, THREAD_PRIORITY_NORMAL);
    check(K "SetThreadAffinityMask: the previous mask (1 on a 1-CPU machine)", SetThreadAffinityMask(me, 1) == 1,
          "other");
    check(K "SetThreadIdealProcessor: the previous ideal processor, 0", SetThreadIdealProcessor(me, 0) == 0, "other");
    HANDLE dup = NULL;
    BOOL bd = DuplicateHandle(GetCurrentProcess(), me, GetCurrentProcess(), &dup, 0, FALSE, DUPLICATE_SAME_ACCESS);
    check(K "DuplicateHandle: TRUE, a real handle to the thread", bd && dup && GetThreadPriority(dup) == 0, "%d %p", bd,
          (void *)dup);
    CloseHandle(dup);
    HANDLE ea = CreateEventA(NULL, TRUE, FALSE, "imports-a");
    HANDLE ea2 = CreateEventA(NULL, TRUE, FALSE, "imports-a");
    check(K "CreateEventA: a second CreateEventA of the name: a new handle, ERROR_ALREADY_EXISTS",
          ea && ea2 && ea2 != ea && GetLastError() == ERROR_ALREADY_EXISTS, "%lu", GetLastError());
    HANDLE ew = CreateEventW(NULL, FALSE, TRUE, L"imports-w");
    check(K "CreateEventW: a signaled event, last error 0",
          ew && GetLastError() == 0 && WaitForSingleObject(ew, 0) == WAIT_OBJECT_0, "%lu", GetLastError());
    HANDLE oa = OpenEventA(EVENT_ALL_ACCESS, FALSE, "imports-a");
    SetEvent(oa);
    check(K "OpenEventA: the same event (set through it, signaled through the first handle)",
          oa && WaitForSingleObject(ea, 0) == WAIT_OBJECT_0, "%p", (void *)oa);
    SetLastError(0);
    check(K "OpenEventW: NULL and ERROR_FILE_NOT_FOUND for an unknown name",
          OpenEventW(EVENT_ALL_ACCESS, FALSE, L"no-such") == NULL && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu",
          GetLastError());
    check(K "PulseEvent: TRUE; a manual event with no waiter is left reset",
          PulseEvent(ea) && WaitForSingleObject(ea, 0) == WAIT_TIMEOUT, "FALSE");
    HANDLE ma = CreateMutexA(NULL, TRUE, "imports-m");
    check(K "CreateMutexA: owned by the creator: ReleaseMutex TRUE", ma && ReleaseMutex(ma), "%lu", GetLastError());
    HANDLE mw = CreateMutexW(NULL, FALSE, L"imports-mw");
    SetLastError(0);
    check(K "CreateMutexW: not owned: ReleaseMutex FALSE, ERROR_NOT_OWNER",
          mw && !ReleaseMutex(mw) && GetLastError() == ERROR_NOT_OWNER, "%lu", GetLastError());
    check(K "OpenMutexA: the named mutex", OpenMutexA(SYNCHRONIZE, FALSE, "imports-m") != NULL, "NULL");
    check(K "OpenMutexW: the named mutex", OpenMutexW(SYNCHRONIZE, FALSE, L"imports-mw") != NULL, "NULL");
    HANDLE sa = CreateSemaphoreA(NULL, 1, 3, "imports-s");
    LONG prev = -1;
    check(K "CreateSemaphoreA: count 1: one wait succeeds, then the count is 0",
          sa && WaitForSingleObject(sa, 0) == WAIT_OBJECT_0 && WaitForSingleObject(sa, 0) == WAIT_TIMEOUT, "NULL");
    HANDLE sw = CreateSemaphoreW(NULL, 2, 2, L"imports-sw");
    check(K "CreateSemaphoreW: full at 2: ReleaseSemaphore FALSE, ERROR_TOO_MANY_POSTS",
          sw && !ReleaseSemaphore(sw, 1, &prev) && GetLastError() == ERROR_TOO_MANY_POSTS, "%lu", GetLastError());
    HANDLE os = OpenSemaphoreA(SEMAPHORE_ALL_ACCESS, FALSE, "imports-s");
    check(K "OpenSemaphoreA: the same semaphore (released through it: previous count 0)",
          os && ReleaseSemaphore(os, 1, &prev) && prev == 0, "%ld", prev);
    check(K "OpenSemaphoreW: the named semaphore", OpenSemaphoreW(SYNCHRONIZE, FALSE, L"imports-sw") != NULL, "NULL");
    check(K "WaitForSingleObjectEx: WAIT_OBJECT_0 on a signaled semaphore", WaitForSingleObjectEx(sa, 0, FALSE) == 0,
          "other");
    HANDLE two[2] = {ea, never};
    check(K "WaitForMultipleObjectsEx: WAIT_TIMEOUT, nothing signaled, timeout 0",
          WaitForMultipleObjectsEx(2, two, FALSE, 0, FALSE) == WAIT_TIMEOUT, "other");
    LARGE_INTEGER q1, q2;
    QueryPerformanceCounter(&q1);
    DWORD se = SleepEx(2, FALSE);
    QueryPerformanceCounter(&q2);
    check(K "SleepEx: 0 after at least 2 ms of the virtual clock", se == 0 && q2.QuadPart - q1.QuadPart >= 20000, "%lu",
          se);
    ULONGLONG t64 = GetTickCount64();
    check(K "GetTickCount64: GetTickCount's count in 64 bits", (DWORD)t64 == GetTickCount() && t64 >> 32 == 0, "%llu",
          (unsigned long long)t64);
    FILETIME fc, fp;
    GetSystemTimeAsFileTime(&fc);
    GetSystemTimePreciseAsFileTime(&fp);
    ULONGLONG c = (ULONGLONG)fc.dwHighDateTime << 32 | fc.dwLowDateTime,
              pp = (ULONGLONG)fp.dwHighDateTime << 32 | fp.dwLowDateTime;
    check(K "GetSystemTimeAsFileTime: within a day after 2026-01-01 00:00 UTC (boot_time), a whole tick",
          c >= 134116992000000000ull && c < 134116992000000000ull + 864000000000ull && c % 156250 == 0, "%llu", c);
    check(K "GetSystemTimePreciseAsFileTime: at or after the coarse time, within a tick of it",
          pp >= c && pp - c < 156250, "%llu", pp);
    t = CreateThread(NULL, 0, ret7, (LPVOID)1, CREATE_SUSPENDED, NULL);
    DWORD before = WaitForSingleObject(t, 0), r1 = ResumeThread(t), after = WaitForSingleObject(t, INFINITE);
    check(K "ResumeThread: a CREATE_SUSPENDED thread runs only after it; the previous count 1",
          before == WAIT_TIMEOUT && r1 == 1 && after == WAIT_OBJECT_0 && GetExitCodeThread(t, &code) && code == 8,
          "%lu %lu %lu", before, r1, code);
    CloseHandle(t);
    check(K "GetCurrentProcessorNumber: 0 on a 1-CPU machine", GetCurrentProcessorNumber() == 0, "%lu",
          GetCurrentProcessorNumber());
    DWORD_PTR pm = 0, sm = 0;
    check(K "GetProcessAffinityMask: TRUE, process and system mask 1",
          GetProcessAffinityMask(GetCurrentProcess(), &pm, &sm) && pm == 1 && sm == 1, "%lu %lu", (unsigned long)pm,
          (unsigned long)sm);
    char src[8] = "abcdefg", dst[8] = "";
    SIZE_T got = 0;
    check(K "ReadProcessMemory: TRUE, the bytes and their count, from this process",
          ReadProcessMemory(GetCurrentProcess(), src, dst, 8, &got) && got == 8 && strcmp(dst, "abcdefg") == 0, "%lu",
          (unsigned long)got);
    SYSTEMTIME st = {1970, 1, 4, 1, 0, 0, 1, 500};
    FILETIME ft;
    check(K "SystemTimeToFileTime: 1970-01-01 00:00:01.500 is 116444736015000000",
          SystemTimeToFileTime(&st, &ft) &&
              ((ULONGLONG)ft.dwHighDateTime << 32 | ft.dwLowDateTime) == 116444736015000000ull,
          "%lu %lu", ft.dwHighDateTime, ft.dwLowDateTime);
    char tmp[MAX_PATH];
    DWORD tn = GetTempPathA(sizeof tmp, tmp);
    check(K "GetTempPathA: the fixed environment's TMP with a backslash, C:\\hcpsim\\",
          tn == 10 && strcmp(tmp, "C:\\hcpsim\\") == 0 && GetTempPathA(2, tmp) == 11, "%lu %s", tn, tmp);
    SetLastError(0);
    check(K "DeleteFileA: FALSE, ERROR_FILE_NOT_FOUND for a file the folder does not hold",
          !DeleteFileA("C:\\hcpsim\\no-such-file.txt") && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu", GetLastError());
    HMODULE nt = GetModuleHandleA("ntdll.dll");
    typedef ULONG(WINAPI * to_dos_fn)(LONG);
    typedef LONG(WINAPI * res_fn)(ULONG *, ULONG *, ULONG *);
    to_dos_fn to_dos = (to_dos_fn)(void (*)(void))GetProcAddress(nt, "RtlNtStatusToDosError");
    res_fn res = (res_fn)(void (*)(void))GetProcAddress(nt, "NtQueryTimerResolution");
    check("ntdll.dll!RtlNtStatusToDosError: STATUS_ACCESS_VIOLATION is ERROR_NOACCESS (998)",
          to_dos && to_dos((LONG)0xC0000005) == 998, "%p", (void *)nt);
    ULONG rmax = 0, rmin = 0, rcur = 0;
    check("ntdll.dll!NtQueryTimerResolution: STATUS_SUCCESS, the 15.625 ms tick (156250)",
          res && res(&rmax, &rmin, &rcur) == 0 && rmax == 156250 && rcur == 156250, "%lu", rmax);
    check(C "_fileno: stdout is 1, stderr 2", _fileno(stdout) == 1 && _fileno(stderr) == 2, "%d", _fileno(stdout));
    int m1 = _setmode(1, _O_BINARY), m2 = _setmode(1, _O_TEXT);
    check(C "_setmode: the previous mode, _O_TEXT then _O_BINARY", m1 == _O_TEXT && m2 == _O_BINARY, "%x %x", m1, m2);
}

static int vp(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = vprintf(f, ap);
    va_end(ap);
    return r;
}
static int vf(FILE *o, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = vfprintf(o, f, ap);
    va_end(ap);
    return r;
}
static int vs(char *b, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = vsprintf(b, f, ap);
    va_end(ap);
    return r;
}
static int vsn(char *b, size_t n, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = _vsnprintf(b, n, f, ap);
    va_end(ap);
    return r;
}

int main(int argc, char **argv) {
    DWORD e;
    /* ---- threads, errors, profiling (the call gate's own) ---- */
    check(K "GetCurrentThread: the pseudo-handle -2", GetCurrentThread() == (HANDLE)(LONG_PTR)-2, "%p",
          (void *)GetCurrentThread());
    DWORD tid = GetCurrentThreadId();
    check(K "GetCurrentThreadId: nonzero, the same twice", tid != 0 && tid == GetCurrentThreadId(), "%lu", tid);
    SetLastError(1234);
    check(K "SetLastError: GetLastError returns the value it set", GetLastError() == 1234, "%lu", GetLastError());
    check(K "GetLastError: after SetLastError(0), 0", (SetLastError(0), GetLastError() == 0), "%lu", GetLastError());
    HANDLE ph = NULL;
    e = EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
    check(K "EnableThreadProfiling: ERROR_SUCCESS and a handle", e == 0 && ph != NULL, "%lu", e);
    BOOLEAN on = FALSE;
    e = QueryThreadProfiling(GetCurrentThread(), &on);
    check(K "QueryThreadProfiling: ERROR_SUCCESS, enabled", e == 0 && on, "%lu %d", e, on);
    PERFORMANCE_DATA pd;
    memset(&pd, 0, sizeof pd);
    pd.Size = sizeof pd;
    pd.Version = PERFORMANCE_DATA_VERSION;
    e = ReadThreadProfilingData(ph, 0, &pd);
    check(K "ReadThreadProfilingData: ERROR_SUCCESS, Size 288, Version 1", e == 0 && pd.Size == 288 && pd.Version == 1,
          "%lu %u %u", e, pd.Size, pd.Version);
    e = DisableThreadProfiling(ph);
    on = TRUE;
    QueryThreadProfiling(GetCurrentThread(), &on);
    check(K "DisableThreadProfiling: ERROR_SUCCESS, then not enabled", e == 0 && !on, "%lu %d", e, on);
    ULONG64 c1 = 0, c2 = 0;
    BOOL b1 = QueryThreadCycleTime(GetCurrentThread(), &c1), b2 = QueryThreadCycleTime(GetCurrentThread(), &c2);
    check(K "QueryThreadCycleTime: TRUE, positive, not decreasing", b1 && b2 && c1 > 0 && c2 >= c1, "%d %d", b1, b2);
    FILETIME ct, xt, kt, ut;
    memset(&xt, 0xFF, sizeof xt);
    BOOL bt = GetThreadTimes(GetCurrentThread(), &ct, &xt, &kt, &ut);
    check(K "GetThreadTimes: TRUE, exit time 0 for a running thread",
          bt && xt.dwLowDateTime == 0 && xt.dwHighDateTime == 0, "%d", bt);
    LARGE_INTEGER f, q1, q2;
    BOOL bf = QueryPerformanceFrequency(&f);
    check(K "QueryPerformanceFrequency: TRUE, 10 MHz", bf && f.QuadPart == 10000000, "%d %lld", bf,
          (long long)f.QuadPart);
    QueryPerformanceCounter(&q1);
    DWORD t1 = GetTickCount();
    Sleep(20);
    QueryPerformanceCounter(&q2);
    DWORD t2 = GetTickCount();
    check(K "Sleep: Sleep(20) lets at least 20 ms of the virtual clock pass (QueryPerformanceCounter)",
          q2.QuadPart - q1.QuadPart >= 200000, "%lld", (long long)(q2.QuadPart - q1.QuadPart));
    check(K "QueryPerformanceCounter: TRUE, it advances", QueryPerformanceCounter(&q2) && q2.QuadPart > q1.QuadPart,
          "%lld", (long long)q2.QuadPart);
    check(K "GetTickCount: at least 20 ms later after Sleep(20)", t2 - t1 >= 20, "%lu", t2 - t1);
    check(K "SwitchToThread: FALSE when no other thread is ready", SwitchToThread() == FALSE, "TRUE");
    HANDLE bogus = (HANDLE)(ULONG_PTR)0x1230;
    SetLastError(0);
    check(K "SetEvent: FALSE, ERROR_INVALID_HANDLE on a handle that is not open",
          !SetEvent(bogus) && GetLastError() == ERROR_INVALID_HANDLE, "%lu", GetLastError());
    SetLastError(0);
    check(K "ResetEvent: FALSE, ERROR_INVALID_HANDLE on a handle that is not open",
          !ResetEvent(bogus) && GetLastError() == ERROR_INVALID_HANDLE, "%lu", GetLastError());
    SetLastError(0);
    check(K "ReleaseMutex: FALSE, ERROR_INVALID_HANDLE on a handle that is not open",
          !ReleaseMutex(bogus) && GetLastError() == ERROR_INVALID_HANDLE, "%lu", GetLastError());
    SetLastError(0);
    check(K "ReleaseSemaphore: FALSE, ERROR_INVALID_HANDLE on a handle that is not open",
          !ReleaseSemaphore(bogus, 1, NULL) && GetLastError() == ERROR_INVALID_HANDLE, "%lu", GetLastError());
    HANDLE th = OpenThread(THREAD_QUERY_INFORMATION | SYNCHRONIZE, FALSE, tid);
    check(K "OpenThread: a handle to the current thread", th != NULL, "NULL, %lu", GetLastError());
    e = WaitForSingleObject(th, 0);
    check(K "WaitForSingleObject: WAIT_TIMEOUT on a running thread with timeout 0", e == WAIT_TIMEOUT, "%lu", e);
    e = WaitForMultipleObjects(1, &th, FALSE, 0);
    check(K "WaitForMultipleObjects: WAIT_TIMEOUT on a running thread with timeout 0", e == WAIT_TIMEOUT, "%lu", e);
    DWORD code = 0;
    BOOL bc = GetExitCodeThread(th, &code);
    check(K "GetExitCodeThread: TRUE, STILL_ACTIVE (259)", bc && code == STILL_ACTIVE, "%d %lu", bc, code);
    BOOL cl1 = CloseHandle(th);
    SetLastError(0);
    BOOL cl2 = CloseHandle(th);
    check(K "CloseHandle: TRUE, then FALSE with ERROR_INVALID_HANDLE",
          cl1 && !cl2 && GetLastError() == ERROR_INVALID_HANDLE, "%d %d %lu", cl1, cl2, GetLastError());
    /* ---- process, startup, memory ---- */
    CRITICAL_SECTION cs;
    memset(&cs, 0x55, sizeof cs);
    InitializeCriticalSection(&cs);
    check(K "InitializeCriticalSection: LockCount -1, RecursionCount 0, OwningThread NULL",
          cs.LockCount == -1 && cs.RecursionCount == 0 && cs.OwningThread == NULL, "%ld %ld", cs.LockCount,
          cs.RecursionCount);
    EnterCriticalSection(&cs);
    printf("ok " K "EnterCriticalSection: returns (one thread)\n");
    LeaveCriticalSection(&cs);
    printf("ok " K "LeaveCriticalSection: returns\n");
    DeleteCriticalSection(&cs);
    printf("ok " K "DeleteCriticalSection: returns\n");
    STARTUPINFOA si;
    memset(&si, 0x55, sizeof si);
    GetStartupInfoA(&si);
    check(K "GetStartupInfoA: cb = sizeof(STARTUPINFOA), dwFlags 0", si.cb == sizeof si && si.dwFlags == 0, "%lu %lu",
          si.cb, si.dwFlags);
    check(K "IsDBCSLeadByteEx: FALSE for 'a'", !IsDBCSLeadByteEx(CP_ACP, 'a'), "TRUE");
    wchar_t w[8];
    int nw = MultiByteToWideChar(CP_ACP, 0, abc, -1, w, 8);
    check(K "MultiByteToWideChar: \"abc\" gives 4 code units with the NUL", nw == 4 && wsame(w, L"abc"), "%d", nw);
    char mb[8];
    int nm = WideCharToMultiByte(CP_ACP, 0, wabc, -1, mb, 8, NULL, NULL);
    check(K "WideCharToMultiByte: L\"abc\" gives 4 bytes with the NUL", nm == 4 && strcmp(mb, "abc") == 0, "%d", nm);
    LPTOP_LEVEL_EXCEPTION_FILTER crt_filter = SetUnhandledExceptionFilter(NULL); /* mingw-w64's CRT set one */
    check(K "SetUnhandledExceptionFilter: the previous filter, the one the C runtime installed at start-up, then NULL",
          crt_filter != NULL && SetUnhandledExceptionFilter(crt_filter) == NULL, "%p", (void *)crt_filter);
    SetLastError(77);
    check(K "TlsGetValue: an unset slot holds NULL, last error 0", TlsGetValue(1) == NULL && GetLastError() == 0, "%lu",
          GetLastError());
    DWORD old = 0;
    BOOL bp = VirtualProtect(page, 4096, PAGE_READONLY, &old);
    check(K "VirtualProtect: TRUE, the .bss page was PAGE_READWRITE", bp && old == PAGE_READWRITE, "%d %lu", bp, old);
    VirtualProtect(page, 4096, PAGE_READWRITE, &old);
    MEMORY_BASIC_INFORMATION mbi;
    SIZE_T vq = VirtualQuery(page, &mbi, sizeof mbi);
    extern IMAGE_DOS_HEADER __ImageBase;
    check(K "VirtualQuery: the .bss page: committed image memory of this image, read/write",
          vq == sizeof mbi && mbi.BaseAddress == page && mbi.AllocationBase == &__ImageBase &&
              mbi.State == MEM_COMMIT && mbi.Type == MEM_IMAGE && mbi.Protect == PAGE_READWRITE,
          "%lu %p %lx %lx %lx", (unsigned long)vq, mbi.AllocationBase, mbi.State, mbi.Type, mbi.Protect);
    check(K "GetModuleHandleA: NULL gives the image's base", GetModuleHandleA(NULL) == (HMODULE)&__ImageBase, "%p",
          (void *)GetModuleHandleA(NULL));
    check(K "GetModuleHandleW: NULL gives the image's base", GetModuleHandleW(NULL) == (HMODULE)&__ImageBase, "%p",
          (void *)GetModuleHandleW(NULL));
    SetLastError(0);
    check(K "GetProcAddress: NULL, ERROR_PROC_NOT_FOUND (no exports)",
          GetProcAddress(GetModuleHandleA(NULL), "main") == NULL && GetLastError() == 127, "%lu", GetLastError());
    SetLastError(0);
    check(K "LoadLibraryA: NULL, ERROR_MOD_NOT_FOUND", LoadLibraryA("user32.dll") == NULL && GetLastError() == 126,
          "%lu", GetLastError());
    SetLastError(0);
    check(K "LoadLibraryW: NULL, ERROR_MOD_NOT_FOUND", LoadLibraryW(L"user32.dll") == NULL && GetLastError() == 126,
          "%lu", GetLastError());
    check(K "FreeLibrary: TRUE", FreeLibrary(GetModuleHandleA(NULL)), "FALSE");
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    check(K "GetStdHandle: STD_OUTPUT_HANDLE is 7", out == (HANDLE)7, "%p", (void *)out);
    DWORD wrote = 0;
    static const char wf[] = "ok " K "WriteFile: to the standard output handle, bytes as given\n";
    BOOL bw = WriteFile(out, wf, sizeof wf - 1, &wrote, NULL);
    check(K "WriteFile: TRUE, all bytes written", bw && wrote == sizeof wf - 1, "%d %lu", bw, wrote);
    check(K "GetCommandLineA: the image path and the arguments",
          strcmp(GetCommandLineA(), sizeof(void *) == 8 ? "C:\\hcpsim\\imports64.exe" : "C:\\hcpsim\\imports32.exe") ==
              0,
          "%s", GetCommandLineA());
    check(K "GetCommandLineW: the same in UTF-16",
          wsame(GetCommandLineW(), sizeof(void *) == 8 ? L"C:\\hcpsim\\imports64.exe" : L"C:\\hcpsim\\imports32.exe"),
          "%ls", GetCommandLineW());
    check(K "GetCurrentProcess: the pseudo-handle -1", GetCurrentProcess() == (HANDLE)(LONG_PTR)-1, "%p",
          (void *)GetCurrentProcess());
    check(K "GetCurrentProcessId: 996", GetCurrentProcessId() == 996, "%lu", GetCurrentProcessId());
    /* ---- msvcrt: startup data and functions ---- */
    check(C "__argc: main's argc", __argc == argc, "%d", __argc);
#ifdef _WIN64 /* i386 programs read it through __p___argv, which hcpsim lacks */
    check(C "__argv: argv[0] is the image path", strcmp(__argv[0], argv[0]) == 0, "%s", __argv[0]);
#endif
    check(C "_environ: the fixed environment starts with HCPSIM=1", strcmp(_environ[0], "HCPSIM=1") == 0, "%s",
          _environ[0]);
    check(C "__p__acmdln: *__p__acmdln() is GetCommandLineA()", strcmp(*__p__acmdln(), GetCommandLineA()) == 0, "%s",
          *__p__acmdln());
    check(C "__p__fmode: text mode, 0", *__p__fmode() == 0, "%d", *__p__fmode());
    check(C "__p__commode: 0", *__p__commode() == 0, "%d", *__p__commode());
    check(C "___mb_cur_max_func: 1 (single-byte C locale)", ___mb_cur_max_func() == 1, "%d", ___mb_cur_max_func());
    check(C "__mb_cur_max: 1", __mb_cur_max == 1, "%d", __mb_cur_max);
    check(C "___lc_codepage_func: 0 (the C locale)", ___lc_codepage_func() == 0, "%u", ___lc_codepage_func());
    check(C "__iob_func: stdout is the second FILE", stdout == &__iob_func()[1], "%p", (void *)__iob_func());
    errno = 0;
    check(C "_errno: errno reads back what was stored (ERANGE)", (errno = ERANGE, *_errno() == ERANGE), "%d", errno);
    /* ---- msvcrt: memory and strings ---- */
    char *m1 = malloc(three * 100);
    check(C "malloc: a 16-byte aligned block", m1 && ((ULONG_PTR)m1 & 15) == 0, "%p", (void *)m1);
    memset(m1, 'x', three * 100);
    check(C "memset: fills the block", m1[0] == 'x' && m1[299] == 'x', "%c", m1[299]);
    m1 = realloc(m1, three * 1000);
    check(C "realloc: keeps the contents", m1 && m1[0] == 'x' && m1[299] == 'x', "%p", (void *)m1);
    free(m1);
    printf("ok " C "free: returns (a pointer malloc gave)\n");
    int *z = calloc(three, sizeof(int));
    check(C "calloc: zeroed", z && z[0] == 0 && z[2] == 0, "%p", (void *)z);
    free(z);
    char buf[64];
    memcpy(buf, abc, three + 1);
    check(C "memcpy: copies the bytes", strcmp(buf, "abc") == 0, "%s", buf);
    memmove(buf + 1, buf, three + 1);
    check(C "memmove: overlapping copy", strcmp(buf, "aabc") == 0, "%s", buf);
    check(C "memcmp: equal 0, less < 0", memcmp(buf, "aabc", three) == 0 && memcmp(abc, "abd", three) < 0, "");
    check(C "strlen: \"abc\" is 3", strlen(abc) == 3, "%u", (unsigned)strlen(abc));
    check(C "strcmp: \"abc\" < \"abd\", equal 0", strcmp(abc, "abd") < 0 && strcmp(abc, "abc") == 0, "");
    check(C "strncmp: first 2 of \"abc\" and \"abd\" equal", strncmp(abc, "abd", three - 1) == 0, "");
    check(C "strchr: 'b' in \"abc\" at 1", strchr(abc, 'b') == abc + 1, "");
    check(C "strcpy: copies with the NUL", strcmp(strcpy(buf, abc), "abc") == 0, "%s", buf);
    check(C "wcslen: L\"abc\" is 3", wcslen(wabc) == 3, "%u", (unsigned)wcslen(wabc));
    const char *volatile num = "-1234x";
    check(C "atoi: \"-1234x\" is -1234", atoi(num) == -1234, "%d", atoi(num));
    check(C "strerror: 0 is \"No error\"", strcmp(strerror((int)three - 3), "No error") == 0, "%s", strerror(0));
    check(C "localeconv: decimal_point \".\"", strcmp(localeconv()->decimal_point, ".") == 0, "%s",
          localeconv()->decimal_point);
    check(C "setlocale: the query gives \"C\"", strcmp(setlocale(LC_ALL, NULL), "C") == 0, "%s",
          setlocale(LC_ALL, NULL));
    check(C "signal: the previous handler, SIG_DFL", signal(SIGINT, SIG_IGN) == SIG_DFL, "");
    int ints[4] = {3, 1, 2, 0};
    (void)cmp_int;
    (void)ints;
    /* ---- msvcrt: output ---- */
    fputc('o', stdout);
    fputc('k', stdout);
    fputs(" " C "fputc: writes a character\n", stdout);
    putchar('o');
    putchar('k');
    puts(" " C "putchar: writes a character");
    puts("ok " C "puts: writes the string and a newline");
    static const char *volatile fps = "ok " C "fputs: writes the string\n";
    fputs(fps, stdout);
    fwrite("ok " C "fwrite: writes the bytes\n", 1, sizeof("ok " C "fwrite: writes the bytes\n") - 1, stdout);
    check(C "fflush: 0", fflush(stdout) == 0, "");
#define LINE(f) "ok " C f "\n"
    int r = printf("%s", LINE("printf: writes"));
    check(C "printf: returns the number of characters", r == sizeof LINE("printf: writes") - 1, "%d", r);
    r = fprintf(stdout, "%s", LINE("fprintf: writes"));
    check(C "fprintf: to stdout, the count", r == sizeof LINE("fprintf: writes") - 1, "%d", r);
    r = vp("%s", LINE("vprintf: writes"));
    check(C "vprintf: the count", r == sizeof LINE("vprintf: writes") - 1, "%d", r);
    r = vf(stdout, "%s", LINE("vfprintf: writes"));
    check(C "vfprintf: the count", r == sizeof LINE("vfprintf: writes") - 1, "%d", r);
    check(C "sprintf: \"%05d|%-3s|\" of 42, \"ab\"",
          sprintf(buf, "%05d|%-3s|", 42, "ab") == 10 && strcmp(buf, "00042|ab |") == 0, "%s", buf);
    check(C "vsprintf: \"[%x]\" of 255", vs(buf, "[%x]", 255) == 4 && strcmp(buf, "[ff]") == 0, "%s", buf);
    memset(buf, '#', sizeof buf);
    int sn = _snprintf(buf, 3, "%s", "abcdef");
    check(C "_snprintf: -1 and no NUL when it does not fit", sn == -1 && memcmp(buf, "abc#", 4) == 0, "%d", sn);
    int vn = vsn(buf, 8, "%d", 12345);
    check(C "_vsnprintf: the count when it fits", vn == 5 && strcmp(buf, "12345") == 0, "%d %s", vn, buf);
    threads_and_memory();
    atexit(on_mingw_atexit_fn); /* mingw-w64's own */
    __MINGW_IMP_SYMBOL(atexit)(on_exit_fn);
    _onexit(on_onexit_fn);
    /* mingw-w64's own printf (libmingwex) locks the stream with msvcrt's _lock and _unlock */
    __mingw_printf("ok mingw-w64's own printf: %s\n", "formats in the program, writes through msvcrt");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "exit") == 0) ExitProcess(42);
    if (argc > 1 && strcmp(argv[1], "_exit") == 0) _exit(43);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) abort();
    if (argc > 1 && strcmp(argv[1], "amsg") == 0) _amsg_exit(2);
    printf("%d failed\n", failed);
    return failed;
}
