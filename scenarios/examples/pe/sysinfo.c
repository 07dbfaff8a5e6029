/* sysinfo.c — the environment, the small system functions and the time conversions
 * (scenarios/tests/pe_system.sh; api/README.md "The environment", "System information", "Time
 * zone").  One check per documented outcome ("ok DLL!Name: what" or "not ok ... (got ...)"),
 * expected values from Microsoft's documentation and the C runtime's; checks marked "[hcpsim]"
 * concern hcpsim's fixed machine (its environment, module path, computer name, time zone, clock)
 * and run only where HCPSIM=1, the others must give the same lines under Wine, but for those marked
 * "[not Wine]" where Wine 8.0 is known to differ from Windows' documented behaviour (each says how),
 * which do not run under Wine (its ntdll exports wine_get_version).  The test runs it
 * with ZZ_HCP=from-outside in its environment (--env ZZ_HCP=from-outside in hcpsim). */
#define __USE_MINGW_ANSI_STDIO 0
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

static int failed;
static void check(const char *what, int ok, const char *fmt, ...) {
    char got[256] = "";
    va_list ap;
    va_start(ap, fmt);
    _vsnprintf(got, sizeof got - 1, fmt, ap); /* msvcrt's (mingw-w64's vsnprintf imports _vscprintf) */
    va_end(ap);
    if (!ok) failed++;
    printf(ok ? "ok %s\n" : "not ok %s (got %s)\n", what, got);
}
#define K "KERNEL32.dll!"
#ifdef _UCRT /* built against the UCRT (the Makefile's NAMEu64.exe, NAMEu32.exe) */
#define C "ucrtbase.dll!"
#define CRT_DLL "ucrtbase.dll"
#define PROGRAM "sysinfou"
#define N_ENVIRON C "__p__environ: _environ"
#define N_WENVIRON C "__p__wenviron: _wenviron"
#else
#define N_ENVIRON C "_environ"
#define N_WENVIRON C "_wenviron"
#define PROGRAM "sysinfo"
#define C "msvcrt.dll!"
#define CRT_DLL "msvcrt.dll"
#endif

/* wide-string helpers of its own: wcscmp and friends are the C runtime's, tested elsewhere */
static int wcmp(const wchar_t *a, const wchar_t *b) {
    while (*a && *a == *b) a++, b++;
    return *a - *b;
}
static size_t wlen(const wchar_t *a) {
    size_t n = 0;
    while (a[n]) n++;
    return n;
}
static int wicmp(const wchar_t *a, const wchar_t *b) {
    while (*a && (*a | 32) == (*b | 32)) a++, b++;
    return (*a | 32) - (*b | 32);
}

static int sgn(int v) { return v < 0 ? -1 : v > 0; }

static ULONGLONG ft64(FILETIME f) { return (ULONGLONG)f.dwHighDateTime << 32 | f.dwLowDateTime; }
static FILETIME ftof(ULONGLONG v) {
    FILETIME f = {(DWORD)v, (DWORD)(v >> 32)};
    return f;
}

static BOOL wine;

static void environment(BOOL sim) {
    char buf[64];
    WCHAR wbuf[64];
    check(K "GetEnvironmentVariableA: a variable of the process's environment (ZZ_HCP, set from outside)",
          GetEnvironmentVariableA("ZZ_HCP", buf, sizeof buf) == 12 && strcmp(buf, "from-outside") == 0, "%s", buf);
    check(K "GetEnvironmentVariableW: names compare case-insensitively",
          GetEnvironmentVariableW(L"zz_hcp", wbuf, 64) == 12 && wcmp(wbuf, L"from-outside") == 0, "other");
    strcpy(buf, "keep");
    check(K "GetEnvironmentVariableA: too small a buffer: the size needed (NUL included), the buffer untouched",
          GetEnvironmentVariableA("ZZ_HCP", buf, 5) == 13 && strcmp(buf, "keep") == 0, "%s", buf);
    SetLastError(0);
    check(K "GetEnvironmentVariableA: a missing variable: 0, ERROR_ENVVAR_NOT_FOUND",
          GetEnvironmentVariableA("ZZ_NOT_SET_ANYWHERE", buf, sizeof buf) == 0 && GetLastError() == ERROR_ENVVAR_NOT_FOUND,
          "%lu", GetLastError());
    SetLastError(0);
    check(K "GetEnvironmentVariableA: a name that is a prefix of one set (ZZ_HC of ZZ_HCP): 0, ERROR_ENVVAR_NOT_FOUND",
          GetEnvironmentVariableA("ZZ_HC", buf, sizeof buf) == 0 && GetLastError() == ERROR_ENVVAR_NOT_FOUND, "%lu",
          GetLastError());
    check(K "SetEnvironmentVariableA: a new variable, read back", SetEnvironmentVariableA("ZZ_NEW", "v1") &&
                                                                       GetEnvironmentVariableA("ZZ_NEW", buf, sizeof buf) == 2 &&
                                                                       strcmp(buf, "v1") == 0,
          "%s", buf);
    check(K "SetEnvironmentVariableW: replaces it", SetEnvironmentVariableW(L"ZZ_NEW", L"second") &&
                                                        GetEnvironmentVariableA("ZZ_NEW", buf, sizeof buf) == 6,
          "%s", buf);
    check(K "SetEnvironmentVariableA: NULL removes it", SetEnvironmentVariableA("ZZ_NEW", NULL) &&
                                                            GetEnvironmentVariableA("ZZ_NEW", buf, sizeof buf) == 0 &&
                                                            GetLastError() == ERROR_ENVVAR_NOT_FOUND,
          "%lu", GetLastError());
    SetLastError(0);
    check(K "SetEnvironmentVariableA: a name with '=' fails with ERROR_INVALID_PARAMETER",
          !SetEnvironmentVariableA("ZZ=X", "1") && GetLastError() == ERROR_INVALID_PARAMETER, "%lu", GetLastError());
    SetEnvironmentVariableA("ZZ_EMPTY", "");
    SetLastError(0);
    check(K "GetEnvironmentVariableA: an empty value: 0, last error 0, an empty string",
          GetEnvironmentVariableA("ZZ_EMPTY", buf, sizeof buf) == 0 && GetLastError() == 0 && buf[0] == 0, "%lu",
          GetLastError());
    SetEnvironmentVariableA("ZZ_EMPTY", NULL);
    SetEnvironmentVariableA("ZZ_A", "alpha");
    char *blk = GetEnvironmentStrings();
    int found = 0, sorted = 1, count = 0;
    char prev[256] = "";
    for (char *s = blk; s && *s; s += strlen(s) + 1) {
        count++;
        if (strcmp(s, "ZZ_A=alpha") == 0) found |= 1;
        if (strcmp(s, "ZZ_HCP=from-outside") == 0) found |= 2;
        if (s[0] != '=' && prev[0] && lstrcmpiA(prev, s) > 0 && strchr(s, '=') - s > 0) sorted = 0;
        if (s[0] != '=') _snprintf(prev, sizeof prev - 1, "%.*s", (int)(strchr(s, '=') - s), s);
    }
    check(K "GetEnvironmentStrings: \"NAME=VALUE\" strings ending in an empty one, the new variable among them",
          blk && found == 3 && count > 2, "%d %d", found, count);
    check(K "FreeEnvironmentStringsA: TRUE", FreeEnvironmentStringsA(blk), "FALSE");
    /* GetEnvironmentStringsA: the same function under its A name (winbase.h maps the plain name) */
    char *(WINAPI * gesa)(void) =
        (char *(WINAPI *)(void))(void (*)(void))GetProcAddress(GetModuleHandleA("kernel32.dll"), "GetEnvironmentStringsA");
    char *blka = gesa ? gesa() : NULL;
    check(K "GetEnvironmentStringsA: the ANSI block", blka && strncmp(blka, "=", 0) == 0 && blka[0], "NULL");
    if (blka) FreeEnvironmentStringsA(blka);
    WCHAR *wblk = GetEnvironmentStringsW();
    found = 0;
    for (WCHAR *s = wblk; s && *s; s += wlen(s) + 1)
        if (wcmp(s, L"ZZ_A=alpha") == 0) found = 1;
    check(K "GetEnvironmentStringsW: the same block in UTF-16", wblk && found, "%d", found);
    check(K "FreeEnvironmentStringsW: TRUE", FreeEnvironmentStringsW(wblk), "FALSE");
    if (sim) check("GetEnvironmentStrings: sorted by name, case-insensitively [hcpsim]", sorted, "unsorted");
    char ex[128];
    DWORD en = ExpandEnvironmentStringsA("x=%ZZ_A%, y=%ZZ_UNSET%, %", ex, sizeof ex);
    check(K "ExpandEnvironmentStringsA: %NAME% replaced, unknown and unfinished ones kept, the size with the NUL",
          strcmp(ex, "x=alpha, y=%ZZ_UNSET%, %") == 0 && en == strlen(ex) + 1, "%s %lu", ex, en);
    check(K "ExpandEnvironmentStringsA: too small a buffer: the size needed",
          ExpandEnvironmentStringsA("%ZZ_A%", ex, 3) == 6, "%lu", ExpandEnvironmentStringsA("%ZZ_A%", ex, 3));
    WCHAR wex[64];
    check(K "ExpandEnvironmentStringsW: the same in UTF-16",
          ExpandEnvironmentStringsW(L"[%zz_a%]", wex, 64) == 8 && wcmp(wex, L"[alpha]") == 0, "other");
    /* msvcrt keeps its own copy: getenv sees what it had at start and what _putenv did */
    check(C "getenv: a variable of the start-up environment", getenv("ZZ_HCP") && strcmp(getenv("ZZ_HCP"), "from-outside") == 0,
          "%s", getenv("ZZ_HCP") ? getenv("ZZ_HCP") : "NULL");
    check(C "getenv: not KERNEL32's later SetEnvironmentVariable (msvcrt's copy)", getenv("ZZ_A") == NULL, "%s",
          getenv("ZZ_A"));
    check(C "_putenv: NAME=VALUE, then getenv finds it", _putenv("ZZ_P=put") == 0 && getenv("zz_p") &&
                                                            strcmp(getenv("zz_p"), "put") == 0,
          "other");
    check("_putenv: KERNEL32 sees it too", GetEnvironmentVariableA("ZZ_P", buf, sizeof buf) == 3, "%s", buf);
    check(C "_putenv: NAME= removes it", _putenv("ZZ_P=") == 0 && getenv("ZZ_P") == NULL, "other");
    check(C "_putenv: no '=': -1", _putenv("ZZ_BAD") == -1, "other");
    check(C "_wputenv: a wide NAME=VALUE", _wputenv(L"ZZ_W=wide") == 0, "other");
    const wchar_t *wv = _wgetenv(L"ZZ_W");
    check(C "_wgetenv: its value in UTF-16", wv && wcmp(wv, L"wide") == 0, "other");
    size_t need = 0;
    char small[4];
    check(C "getenv_s: too small a buffer: ERANGE, the size needed", getenv_s(&need, small, sizeof small, "ZZ_HCP") == ERANGE &&
                                                                        need == 13,
          "%u", (unsigned)need);
    if (!wine) /* Wine 8.0's leaves *pReturnValue as it was */
        check(C "getenv_s: a missing variable: 0, *pReturnValue 0 [not Wine]",
              getenv_s(&need, small, sizeof small, "ZZ_NONE") == 0 && need == 0, "%u", (unsigned)need);
    int env_has = 0;
    for (char **e = _environ; *e; e++)
        if (strcmp(*e, "ZZ_W=wide") == 0) env_has = 1;
    check(N_ENVIRON ": holds _wputenv's variable", env_has, "no");
    /* the runtime DLL exports these; mingw-w64's import library does not: found by name */
    HMODULE crt = GetModuleHandleA(CRT_DLL);
    char ***(__cdecl * p_environ)(void) = (char ***(__cdecl *)(void))(void (*)(void))GetProcAddress(crt, "__p__environ");
    wchar_t ***(__cdecl * p_wenviron)(void) =
        (wchar_t ***(__cdecl *)(void))(void (*)(void))GetProcAddress(crt, "__p__wenviron");
    int wenv_has = 0;
    for (wchar_t **e = p_wenviron ? *p_wenviron() : NULL; e && *e; e++)
        if (wcmp(*e, L"ZZ_W=wide") == 0) wenv_has = 1;
    if (!wine) { /* Wine 8.0's point elsewhere than the variables the program imports */
        check(C "__p__environ: the address of _environ [not Wine]", p_environ && *p_environ() == _environ, "other");
        check(C "__p__wenviron: _wenviron's address; it holds the variable [not Wine]",
              p_wenviron && wenv_has && *p_wenviron() == _wenviron, "%d", wenv_has);
    }
    check(N_WENVIRON ": made, holding ZZ_HCP", _wenviron != NULL, "NULL");
}

static void system_functions(BOOL sim) {
    char path[MAX_PATH];
    DWORD n = GetModuleFileNameA(NULL, path, sizeof path);
    const char *base = NULL;
    for (const char *q = path; *q; q++)
        if (*q == '\\') base = q;
    check(K "GetModuleFileNameA: the program's full path, its length",
          n == strlen(path) && base && (strcmp(base + 1, PROGRAM "64.exe") == 0 || strcmp(base + 1, PROGRAM "32.exe") == 0),
          "%s", path);
    if (sim)
        check(K "GetModuleFileNameA: C:\\hcpsim\\NAME.exe [hcpsim]", strncmp(path, "C:\\hcpsim\\sysinfo", 17) == 0, "%s",
              path);
    char small[6] = "xxxxx";
    SetLastError(0);
    n = GetModuleFileNameA(NULL, small, sizeof small);
    check(K "GetModuleFileNameA: too small a buffer: nSize, ERROR_INSUFFICIENT_BUFFER",
          n == sizeof small && GetLastError() == ERROR_INSUFFICIENT_BUFFER, "%lu %lu", n, GetLastError());
    if (!wine) /* Windows XP's rule, and Wine 8.0's: no NUL */
        check(K "GetModuleFileNameA: the name truncated to nSize units with its NUL (Vista on) [not Wine]",
              small[5] == 0 && strncmp(small, "C:\\", 3) == 0, "%.6s", small);
    WCHAR wp[MAX_PATH];
    n = GetModuleFileNameW(GetModuleHandleA("kernel32.dll"), wp, MAX_PATH);
    check(K "GetModuleFileNameW: KERNEL32's path ends in kernel32.dll", n > 12 && wicmp(wp + n - 12, L"kernel32.dll") == 0,
          "%lu", n);
    SetLastError(0);
    check(K "GetModuleFileNameA: a handle that is no module: 0, ERROR_MOD_NOT_FOUND",
          GetModuleFileNameA((HMODULE)0x1230000, path, sizeof path) == 0 && GetLastError() == ERROR_MOD_NOT_FOUND, "%lu",
          GetLastError());
    check(K "IsDebuggerPresent: FALSE", !IsDebuggerPresent(), "TRUE");
    OutputDebugStringA("debug A\n");
    OutputDebugStringW(L"debug W\n");
    check(K "OutputDebugStringA: returns (no debugger)", 1, "");
    check(K "OutputDebugStringW: returns", 1, "");
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof ms - 1;
    SetLastError(0);
    check(K "GlobalMemoryStatusEx: a wrong dwLength: FALSE, ERROR_INVALID_PARAMETER",
          !GlobalMemoryStatusEx(&ms) && GetLastError() == ERROR_INVALID_PARAMETER, "%lu", GetLastError());
    ms.dwLength = sizeof ms;
    check(K "GlobalMemoryStatusEx: TRUE; available below total; a load of at most 100; no extended space",
          GlobalMemoryStatusEx(&ms) && ms.ullAvailPhys <= ms.ullTotalPhys && ms.ullAvailVirtual <= ms.ullTotalVirtual &&
              ms.dwMemoryLoad <= 100 && ms.ullAvailExtendedVirtual == 0,
          "%lu", ms.dwMemoryLoad);
    if (sim)
        check(K "GlobalMemoryStatusEx: 4 GiB of memory; the user address space [hcpsim]",
              ms.ullTotalPhys == 4294967296ULL &&
                  ms.ullTotalVirtual == (sizeof(void *) == 8 ? 0x7FFFFFFE0000ULL : 0x7FFE0000ULL),
              "%llu %llx", ms.ullTotalPhys, ms.ullTotalVirtual);
    /* FormatMessage: the system's messages and messages with inserts */
    char msg[256];
    n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, ERROR_FILE_NOT_FOUND,
                       MAKELANGID(LANG_NEUTRAL, SUBLANG_DEFAULT), msg, sizeof msg, NULL);
    check(K "FormatMessageA: a system message, its length", n && n == strlen(msg) && msg[n - 1] == '\n', "%lu", n);
    /* Wine 8.0 has shorter texts of its own ("File not found."); these are Windows' */
    if (!wine)
        check(K "FormatMessageA: ERROR_FILE_NOT_FOUND's message, Windows' words, its line end [not Wine]",
              n == strlen(msg) && strcmp(msg, "The system cannot find the file specified.\r\n") == 0, "%s", msg);
    static const DWORD codes[] = {0, 3, 5, 6, 8, 18, 32, 80, 87, 112, 122, 123, 145, 183, 203, 267, 998};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, codes[i], 0, msg,
                           sizeof msg, NULL);
        if (!wine) printf("message %lu [not Wine]: %s", codes[i], n ? msg : "(none)\n");
    }
    WCHAR wmsg[256];
    n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, ERROR_ACCESS_DENIED, 0, wmsg,
                       256, NULL);
    check(K "FormatMessageW: a system message in UTF-16", n && wmsg[n - 1] == '\n' && wmsg[n] == 0, "%lu", n);
    if (!wine) check("FormatMessageW: Windows' words [not Wine]", n == 19 && wcmp(wmsg, L"Access is denied.\r\n") == 0, "%lu", n);
    char *alloc = NULL;
    n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS | FORMAT_MESSAGE_ALLOCATE_BUFFER,
                       NULL, ERROR_INVALID_PARAMETER, 0, (LPSTR)&alloc, 0, NULL);
    check(K "FormatMessageA: FORMAT_MESSAGE_ALLOCATE_BUFFER: a LocalAlloc'd copy", n && alloc && strlen(alloc) == n,
          "%lu", n);
    check(K "LocalFree: NULL for a block it freed", LocalFree(alloc) == NULL, "other");
    SetLastError(0);
    check(K "FormatMessageA: too small a buffer: 0, ERROR_INSUFFICIENT_BUFFER",
          FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, 2, 0, msg, 5, NULL) == 0 &&
              GetLastError() == ERROR_INSUFFICIENT_BUFFER,
          "%lu", GetLastError());
    SetLastError(0);
    check(K "FormatMessageA: a number with no message: 0, ERROR_MR_MID_NOT_FOUND",
          FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, 0x2345678, 0, msg,
                         sizeof msg, NULL) == 0 &&
              GetLastError() == ERROR_MR_MID_NOT_FOUND,
          "%lu", GetLastError());
    DWORD_PTR args[] = {(DWORD_PTR) "disk", 42, (DWORD_PTR) "x"};
    n = FormatMessageA(FORMAT_MESSAGE_FROM_STRING | FORMAT_MESSAGE_ARGUMENT_ARRAY, "%1 has %2!d! files%n100%% %3!-3s!|%0",
                       0, 0, msg, sizeof msg, (va_list *)args);
    check(K "FormatMessageA: FORMAT_MESSAGE_FROM_STRING: inserts, printf formats, %n, %%, %0",
          strcmp(msg, "disk has 42 files\r\n100% x  |") == 0 && n == strlen(msg), "%s", msg);
    n = FormatMessageA(FORMAT_MESSAGE_FROM_STRING | FORMAT_MESSAGE_IGNORE_INSERTS, "keep %1 and %2", 0, 0, msg,
                       sizeof msg, NULL);
    check(K "FormatMessageA: FORMAT_MESSAGE_IGNORE_INSERTS keeps the inserts", strcmp(msg, "keep %1 and %2") == 0, "%s",
          msg);
    UINT prev = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
    check(K "SetErrorMode: returns the previous mode", SetErrorMode(prev) == (SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX),
          "other");
    SetErrorMode(SEM_NOGPFAULTERRORBOX);
    check(K "GetErrorMode: the mode set", GetErrorMode() == SEM_NOGPFAULTERRORBOX, "%u", GetErrorMode());
    SetErrorMode(prev);
    /* lstr* */
    char s1[32] = "", s2[8];
    WCHAR w1[32] = L"";
    check(K "lstrlenA: the length; 0 for NULL", lstrlenA("abcd") == 4 && lstrlenA(NULL) == 0, "%d", lstrlenA("abcd"));
    check(K "lstrlenW: the length in UTF-16 units", lstrlenW(L"abc") == 3 && lstrlenW(NULL) == 0, "%d", lstrlenW(L"abc"));
    check(K "lstrcpyA: copies, returns the destination", lstrcpyA(s1, "hello") == s1 && strcmp(s1, "hello") == 0, "%s", s1);
    check(K "lstrcpyW: copies", lstrcpyW(w1, L"wide") == w1 && wcmp(w1, L"wide") == 0, "other");
    check(K "lstrcatA: appends", lstrcatA(s1, ", world") == s1 && strcmp(s1, "hello, world") == 0, "%s", s1);
    check(K "lstrcatW: appends", lstrcatW(w1, L"r") == w1 && wcmp(w1, L"wider") == 0, "other");
    memset(s2, 'x', sizeof s2);
    check(K "lstrcpynA: at most n - 1 characters and a NUL", lstrcpynA(s2, "truncated", 5) == s2 && strcmp(s2, "trun") == 0,
          "%s", s2);
    check(K "lstrcpynA: n = 1 gives an empty string", lstrcpynA(s2, "abc", 1) == s2 && s2[0] == 0, "%s", s2);
    check(K "lstrcpynW: at most n - 1 units and a NUL", lstrcpynW(w1, L"abcdef", 4) == w1 && wcmp(w1, L"abc") == 0,
          "other");
    static const char *const pairs[][2] = {{"abc", "abc"}, {"a", "B"},   {"B", "a"},         {"a", "A"},
                                           {"A", "a"},     {"abc", "abd"}, {"ab", "abc"},    {"co-op", "coop"},
                                           {"a b", "ab"},  {"10", "9"},  {"_a", "a"},        {"a!", "a"}};
    char line[512] = "";
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        sprintf(line + strlen(line), "%s%d", i ? " " : "", sgn(lstrcmpA(pairs[i][0], pairs[i][1])));
    printf("lstrcmpA: %s\n", line);
    check(K "lstrcmpA: a word sort: \"a\" before \"B\", lower case before upper case, \"abc\" equal",
          lstrcmpA("abc", "abc") == 0 && lstrcmpA("a", "B") < 0 && lstrcmpA("a", "A") < 0 && lstrcmpA("ab", "abc") < 0,
          "%s", line);
    check(K "lstrcmpW: the same order", lstrcmpW(L"a", L"B") < 0 && lstrcmpW(L"b", L"a") > 0 && lstrcmpW(L"x", L"x") == 0,
          "other");
    check(K "lstrcmpiA: case ignored", lstrcmpiA("HeLLo", "hello") == 0 && lstrcmpiA("a", "B") < 0, "%d",
          lstrcmpiA("HeLLo", "hello"));
    check(K "lstrcmpiW: case ignored", lstrcmpiW(L"ABC", L"abc") == 0 && lstrcmpiW(L"abd", L"ABC") > 0, "other");
    char cn[64];
    DWORD cs = 1;
    SetLastError(0);
    check(K "GetComputerNameA: too small a buffer: FALSE, ERROR_BUFFER_OVERFLOW, the size needed",
          !GetComputerNameA(cn, &cs) && GetLastError() == ERROR_BUFFER_OVERFLOW && cs > 1, "%lu %lu", GetLastError(), cs);
    cs = sizeof cn;
    check(K "GetComputerNameA: the name, *nSize its length", GetComputerNameA(cn, &cs) && cs == strlen(cn) && cs > 0, "%lu",
          cs);
    if (sim) check(K "GetComputerNameA: HCPSIM [hcpsim]", strcmp(cn, "HCPSIM") == 0, "%s", cn);
    WCHAR wcn[64];
    DWORD wcs = 64;
    check(K "GetComputerNameW: the same name", GetComputerNameW(wcn, &wcs) && wcs == cs, "%lu", wcs);
}

static void times(BOOL sim) {
    SYSTEMTIME st;
    FILETIME f = ftof(134116992000000000ULL + 3600ULL * 10000000ULL * 12 + 12345678ULL); /* 2026-01-01 12:00:01.234 */
    check(K "FileTimeToSystemTime: 2026-01-01 (a Thursday) 12:00:01.234",
          FileTimeToSystemTime(&f, &st) && st.wYear == 2026 && st.wMonth == 1 && st.wDay == 1 && st.wDayOfWeek == 4 &&
              st.wHour == 12 && st.wMinute == 0 && st.wSecond == 1 && st.wMilliseconds == 234,
          "%u-%u-%u %u %u:%u:%u.%u", st.wYear, st.wMonth, st.wDay, st.wDayOfWeek, st.wHour, st.wMinute, st.wSecond,
          st.wMilliseconds);
    FILETIME leap = ftof(116444736000000000ULL + 11016ULL * 864000000000ULL); /* 2000-02-29 */
    check(K "FileTimeToSystemTime: 2000-02-29, a Tuesday",
          FileTimeToSystemTime(&leap, &st) && st.wYear == 2000 && st.wMonth == 2 && st.wDay == 29 && st.wDayOfWeek == 2,
          "%u-%u-%u %u", st.wYear, st.wMonth, st.wDay, st.wDayOfWeek);
    FILETIME big = ftof(0x8000000000000000ULL);
    SetLastError(0);
    check(K "FileTimeToSystemTime: a time of 2^63 or more fails, ERROR_INVALID_PARAMETER",
          !FileTimeToSystemTime(&big, &st) && GetLastError() == ERROR_INVALID_PARAMETER, "%lu", GetLastError());
    /* a zone given as a structure: UTC+1 with daylight time from the last Sunday of March 2:00 to
     * the last Sunday of October 3:00 (Western Europe) */
    TIME_ZONE_INFORMATION tz;
    memset(&tz, 0, sizeof tz);
    tz.Bias = -60;
    tz.StandardDate.wMonth = 10;
    tz.StandardDate.wDay = 5;
    tz.StandardDate.wHour = 3;
    tz.DaylightDate.wMonth = 3;
    tz.DaylightDate.wDay = 5;
    tz.DaylightDate.wHour = 2;
    tz.DaylightBias = -60;
    SYSTEMTIME utc = {2026, 7, 0, 1, 12, 0, 0, 0}, loc;
    check(K "SystemTimeToTzSpecificLocalTime: July 1 12:00 UTC is 14:00 in the summer",
          SystemTimeToTzSpecificLocalTime(&tz, &utc, &loc) && loc.wHour == 14 && loc.wDay == 1, "%u:%u", loc.wHour,
          loc.wMinute);
    utc.wMonth = 1;
    check(K "SystemTimeToTzSpecificLocalTime: January 1 12:00 UTC is 13:00",
          SystemTimeToTzSpecificLocalTime(&tz, &utc, &loc) && loc.wHour == 13, "%u", loc.wHour);
    SYSTEMTIME edge = {2026, 3, 0, 29, 0, 59, 0, 0}; /* 2026-03-29 is the last Sunday: 01:00 UTC = 02:00 -> 03:00 */
    SystemTimeToTzSpecificLocalTime(&tz, &edge, &loc);
    check("SystemTimeToTzSpecificLocalTime: a minute before the change 01:59 local, at it 03:00",
          loc.wHour == 1 && loc.wMinute == 59 && (edge.wMinute = 0, edge.wHour = 1, SystemTimeToTzSpecificLocalTime(&tz, &edge, &loc)) &&
              loc.wHour == 3 && loc.wMinute == 0,
          "%u:%u", loc.wHour, loc.wMinute);
    utc.wMonth = 13;
    SetLastError(0);
    check(K "SystemTimeToTzSpecificLocalTime: month 13: FALSE, ERROR_INVALID_PARAMETER",
          !SystemTimeToTzSpecificLocalTime(&tz, &utc, &loc) && GetLastError() == ERROR_INVALID_PARAMETER, "%lu",
          GetLastError());
    TIME_ZONE_INFORMATION cur;
    DWORD id = GetTimeZoneInformation(&cur);
    check(K "GetTimeZoneInformation: a zone id (unknown, standard or daylight)", id <= 2, "%lu", id);
    if (sim) {
        char zone[64];
        WideCharToMultiByte(CP_ACP, 0, cur.StandardName, -1, zone, sizeof zone, NULL, NULL);
        printf("time zone [hcpsim]: %s, bias %ld, id %lu\n", zone, cur.Bias, id);
    }
    /* the C runtime's local time is the zone's (msvcrt's _tzset asks GetTimeZoneInformation) */
    {
        time_t now = time(NULL);
        SYSTEMTIME lt;
        GetLocalTime(&lt);
        struct tm tmv = *localtime(&now);
        check(C "_localtime64: the hour and minute GetLocalTime gives, tm_isdst as the zone id says",
              tmv.tm_hour == lt.wHour && tmv.tm_min == lt.wMinute && tmv.tm_isdst == (id == TIME_ZONE_ID_DAYLIGHT),
              "%d:%d dst %d, %u:%u id %lu", tmv.tm_hour, tmv.tm_min, tmv.tm_isdst, lt.wHour, lt.wMinute, id);
        tmv.tm_isdst = -1;
        check(C "_mktime64: of that local time: the same time_t", mktime(&tmv) == now, "%lld %lld",
              (long long)mktime(&tmv), (long long)now);
    }
    /* mktime's tm_isdst in a zone with daylight time (Western Europe: UTC+1, UTC+2 from the last
     * Sunday of March to the last Sunday of October), fixed dates: positive says daylight time is
     * in effect, 0 that it is not, negative that the runtime decides (Microsoft's mktime page);
     * the expected time_t are UTC seconds worked out by hand: 2026-07-01 10:00 UTC = 1782900000,
     * 11:00 = 1782903600; 2026-01-15 11:00 UTC = 1768474800, 10:00 = 1768471200 */
    if (cur.Bias == -60 && cur.DaylightBias == -60 && cur.DaylightDate.wMonth == 3) {
        static const struct {
            int mon, isdst;
            long long want;
            int hour, dst; /* the normalised fields after the call */
        } mk[] = {{6, -1, 1782900000LL, 12, 1}, {6, 1, 1782900000LL, 12, 1}, {6, 0, 1782903600LL, 13, 1},
                  {0, -1, 1768474800LL, 12, 0}, {0, 0, 1768474800LL, 12, 0}, {0, 1, 1768471200LL, 11, 0}};
        for (unsigned i = 0; i < sizeof mk / sizeof mk[0]; i++) {
            struct tm t = {0};
            t.tm_year = 126;
            t.tm_mon = mk[i].mon;
            t.tm_mday = mk[i].mon ? 1 : 15;
            t.tm_hour = 12;
            t.tm_isdst = mk[i].isdst;
            long long got = (long long)mktime(&t);
            char what[160];
            snprintf(what, sizeof what,
                     C "_mktime64: Western Europe, 2026-%02d-%02d 12:00 with tm_isdst %d: %lld, then %02d:00 tm_isdst %d",
                     mk[i].mon + 1, mk[i].mon ? 1 : 15, mk[i].isdst, mk[i].want, mk[i].hour, mk[i].dst);
            check(what, got == mk[i].want && t.tm_hour == mk[i].hour && t.tm_isdst == mk[i].dst, "%lld %d:00 dst %d",
                  got, t.tm_hour, t.tm_isdst);
        }
    }
    FILETIME lf, back;
    check(K "FileTimeToLocalFileTime: the local time of the current bias", FileTimeToLocalFileTime(&f, &lf), "FALSE");
    check(K "LocalFileTimeToFileTime: back to the same UTC time", LocalFileTimeToFileTime(&lf, &back) && ft64(back) == ft64(f),
          "other");
    if (sim) {
        LONG bias = cur.Bias + (id == 2 ? cur.DaylightBias : cur.StandardBias);
        check("FileTimeToLocalFileTime: UTC - bias [hcpsim]", (LONGLONG)(ft64(f) - ft64(lf)) == (LONGLONG)bias * 600000000LL,
              "%lld", (long long)(ft64(f) - ft64(lf)));
    }
    FILETIME df;
    check(K "DosDateTimeToFileTime: 0x5C21 0x645C is 2026-01-01 12:34:56",
          DosDateTimeToFileTime(0x5C21, 0x645C, &df) && FileTimeToSystemTime(&df, &st) && st.wYear == 2026 &&
              st.wMonth == 1 && st.wDay == 1 && st.wHour == 12 && st.wMinute == 34 && st.wSecond == 56,
          "%u-%u-%u %u:%u:%u", st.wYear, st.wMonth, st.wDay, st.wHour, st.wMinute, st.wSecond);
    WORD dd = 0, dt = 0;
    check(K "FileTimeToDosDateTime: back to 0x5C21 0x645C", FileTimeToDosDateTime(&df, &dd, &dt) && dd == 0x5C21 && dt == 0x645C,
          "%x %x", dd, dt);
    FILETIME old = ftof(116444736000000000ULL); /* 1970 */
    SetLastError(0);
    check(K "FileTimeToDosDateTime: 1970 is before 1980: FALSE, ERROR_INVALID_PARAMETER",
          !FileTimeToDosDateTime(&old, &dd, &dt) && GetLastError() == ERROR_INVALID_PARAMETER, "%lu", GetLastError());
    check(K "CompareFileTime: -1, 0, 1", CompareFileTime(&old, &f) == -1 && CompareFileTime(&f, &f) == 0 &&
                                             CompareFileTime(&f, &old) == 1,
          "other");
    SYSTEMTIME now, lnow;
    GetSystemTime(&now);
    GetLocalTime(&lnow);
    check(K "GetSystemTime: a valid date", now.wMonth >= 1 && now.wMonth <= 12 && now.wDay >= 1 && now.wYear >= 2000,
          "%u", now.wYear);
    check(K "GetLocalTime: a valid date", lnow.wMonth >= 1 && lnow.wMonth <= 12 && lnow.wYear >= 2000, "%u", lnow.wYear);
    if (sim)
        check("GetSystemTime: 2026-01-01, the machine's boot day [hcpsim]",
              now.wYear == 2026 && now.wMonth == 1 && now.wDay == 1 && now.wDayOfWeek == 4, "%u-%u-%u", now.wYear,
              now.wMonth, now.wDay);
    FILETIME idle, kern, user;
    check(K "GetSystemTimes: TRUE; the kernel time includes the idle time",
          GetSystemTimes(&idle, &kern, &user) && ft64(kern) >= ft64(idle), "other");
    ULONGLONG u1 = 0, u2 = 0;
    check(K "QueryUnbiasedInterruptTime: TRUE", QueryUnbiasedInterruptTime(&u1), "FALSE");
    Sleep(40);
    QueryUnbiasedInterruptTime(&u2);
    /* the interrupt time moves by clock ticks (15.625 ms by default): 40 ms later it has moved at
     * least 40 ms less one tick (Wine reads it from a page its server refreshes, later under load) */
    check("QueryUnbiasedInterruptTime: 40 ms later, at least 240,000 units more", u2 - u1 >= 240000, "%llu", u2 - u1);
    typedef void(WINAPI * qit_fn)(PULONGLONG);
    HMODULE k32 = GetModuleHandleA("kernel32.dll");
    qit_fn qit = (qit_fn)(void (*)(void))GetProcAddress(k32, "QueryInterruptTime");
    qit_fn qitp = (qit_fn)(void (*)(void))GetProcAddress(k32, "QueryInterruptTimePrecise");
    if (!wine && qit && qitp) { /* Windows 10 and later; Wine 8.0 has neither */
        ULONGLONG a = 0, b = 0;
        qit(&a);
        qitp(&b);
        check(K "QueryInterruptTime: the interrupt time of the last tick, at most the precise one [not Wine]",
              a > 0 && a <= b, "%llu %llu", a, b);
        check(K "QueryInterruptTimePrecise: at least the unbiased interrupt time [not Wine]", b >= u2, "%llu", b);
    }
}

int main(void) {
    char env[8] = "";
    BOOL sim = GetEnvironmentVariableA("HCPSIM", env, sizeof env) == 1 && env[0] == '1';
    wine = GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL;
    environment(sim);
    system_functions(sim);
    times(sim);
    printf("%d failed\n", failed);
    return failed ? 1 : 0;
}
