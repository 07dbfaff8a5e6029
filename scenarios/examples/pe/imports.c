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
static void on_mingw_atexit_fn(void) {
    printf("ok mingw-w64's own atexit registered a function that runs\n");
}
static int on_onexit_fn(void) {
    printf("ok " C "_onexit: the function it registered runs at exit, before atexit's (last in, first out)\n");
    return 0;
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
    check(K "GetThreadTimes: TRUE, exit time 0 for a running thread", bt && xt.dwLowDateTime == 0 && xt.dwHighDateTime == 0,
          "%d", bt);
    LARGE_INTEGER f, q1, q2;
    BOOL bf = QueryPerformanceFrequency(&f);
    check(K "QueryPerformanceFrequency: TRUE, 10 MHz", bf && f.QuadPart == 10000000, "%d %lld", bf, (long long)f.QuadPart);
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
    check(K "CloseHandle: TRUE, then FALSE with ERROR_INVALID_HANDLE", cl1 && !cl2 && GetLastError() == ERROR_INVALID_HANDLE,
          "%d %d %lu", cl1, cl2, GetLastError());
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
    check(K "SetUnhandledExceptionFilter: the previous filter, NULL", SetUnhandledExceptionFilter(NULL) == NULL, "set");
    SetLastError(77);
    check(K "TlsGetValue: an unset slot holds NULL, last error 0", TlsGetValue(1) == NULL && GetLastError() == 0, "%lu",
          GetLastError());
    DWORD old = 0;
    BOOL bp = VirtualProtect(page, 4096, PAGE_READONLY, &old);
    check(K "VirtualProtect: TRUE, the .bss page was PAGE_READWRITE", bp && old == PAGE_READWRITE, "%d %lu", bp, old);
    VirtualProtect(page, 4096, PAGE_READWRITE, &old);
    MEMORY_BASIC_INFORMATION mbi;
    SIZE_T vq = VirtualQuery(page, &mbi, sizeof mbi);
    check(K "VirtualQuery: not supported, 0 with ERROR_INVALID_PARAMETER",
          vq == 0 && GetLastError() == ERROR_INVALID_PARAMETER, "%lu", (unsigned long)vq);
    extern IMAGE_DOS_HEADER __ImageBase;
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
          strcmp(GetCommandLineA(), sizeof(void *) == 8 ? "C:\\hcpsim\\imports64.exe" : "C:\\hcpsim\\imports32.exe") == 0,
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
    check(C "setlocale: the query gives \"C\"", strcmp(setlocale(LC_ALL, NULL), "C") == 0, "%s", setlocale(LC_ALL, NULL));
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
    check(C "sprintf: \"%05d|%-3s|\" of 42, \"ab\"", sprintf(buf, "%05d|%-3s|", 42, "ab") == 10 && strcmp(buf, "00042|ab |") == 0,
          "%s", buf);
    check(C "vsprintf: \"[%x]\" of 255", vs(buf, "[%x]", 255) == 4 && strcmp(buf, "[ff]") == 0, "%s", buf);
    memset(buf, '#', sizeof buf);
    int sn = _snprintf(buf, 3, "%s", "abcdef");
    check(C "_snprintf: -1 and no NUL when it does not fit", sn == -1 && memcmp(buf, "abc#", 4) == 0, "%d", sn);
    int vn = vsn(buf, 8, "%d", 12345);
    check(C "_vsnprintf: the count when it fits", vn == 5 && strcmp(buf, "12345") == 0, "%d %s", vn, buf);
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
