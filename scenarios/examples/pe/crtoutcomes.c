/* crtoutcomes.c — documented error outcomes of the C runtime (api/outcomes.tsv lists them with their
 * sources; scenarios/tests/pe_outcomes.sh runs this on both ISAs, against msvcrt.dll and, built with
 * -D_UCRT, against ucrtbase.dll, and under Wine).  Each line names the function, the outcome
 * Microsoft's documentation gives (the errno value by name, the return value) and what the call
 * gave.  The UCRT's default invalid-parameter handler ends the process, so the UCRT build sets one
 * that returns (msvcrt.dll's default returns). */
#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <windows.h>

#ifdef _UCRT
#define CRT "ucrtbase.dll"
#else
#define CRT "msvcrt.dll"
#endif
#define DLL CRT "!"
#ifndef STRUNCATE
#define STRUNCATE 80
#endif

/* Wine 8.0's fread, fwrite, ftell and fclose dereference a NULL stream (a page fault) where
 * Microsoft's documentation has them check it: under Wine those checks are not run, and
 * scenarios/tests/pe_outcomes.sh leaves their lines ("Wine faults") out of the comparison, as it does
 * the lines where Wine is known to differ from the documentation ("Wine leaves errno": strncpy_s,
 * realloc and _get_errno; "Wine returns 1": msvcrt's sprintf_s of a NULL buffer) */
static int under_wine(void) { return GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL; }
static int failed;
/* a function of the DLL by its export: mingw-w64's libraries link their own sqrt, pow, strtod,
 * sprintf_s, ... in place of msvcrt.dll's, and the line must name the code it checks */
static FARPROC crt_fn(const char *name) {
    FARPROC f = GetProcAddress(GetModuleHandleA(CRT), name);
    if (!f) {
        printf("%s!%s: not exported\n", CRT, name);
        exit(1);
    }
    return f;
}
#define FN(type, name) ((type)(void (*)(void))crt_fn(#name))

/* errno before each call: a value no call sets */
#define MARK 12345
static void mark(void) { errno = MARK; }
static int err(void) { return errno == MARK ? -1 : errno; }

static void check(const char *what, int ok, long long got, int e) {
    printf("%s %s (got %lld, errno %d)\n", ok ? "ok" : "not ok", what, got, e);
    if (!ok && !(strstr(what, "(Wine") && under_wine())) failed++; /* a known difference of Wine's */
}

#ifdef _UCRT
static void quiet(const wchar_t *e, const wchar_t *f, const wchar_t *file, unsigned line, uintptr_t r) {
    (void)e, (void)f, (void)file, (void)line, (void)r;
}
#else
static int vsn(char *b, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = _vsnprintf(b, n, fmt, ap);
    va_end(ap);
    return r;
}
#endif

/* ---- round 2: the _s conversions and strings, time, sorting, stdio edges, descriptors ---- */
typedef errno_t (*xtoa_s_t)(long long, char *, size_t, int);
static int cmp_int(void *ctx, const void *a, const void *b) {
    (void)ctx;
    return *(const int *)a - *(const int *)b;
}

static void more_outcomes(void) {
    long long r;
    int e;
    char buf[16];
    wchar_t wbuf[16];
    /* the number-to-text _s functions: a buffer too small, a radix that is not 2..36 */
    errno_t (*ultoa_s_)(unsigned long, char *, size_t, int) =
        FN(errno_t(*)(unsigned long, char *, size_t, int), _ultoa_s);
    errno_t (*ltoa_s_)(long, char *, size_t, int) = FN(errno_t(*)(long, char *, size_t, int), _ltoa_s);
    errno_t (*i64toa_s_)(long long, char *, size_t, int) = FN(errno_t(*)(long long, char *, size_t, int), _i64toa_s);
    errno_t (*ui64toa_s_)(unsigned long long, char *, size_t, int) =
        FN(errno_t(*)(unsigned long long, char *, size_t, int), _ui64toa_s);
    errno_t (*itow_s_)(int, wchar_t *, size_t, int) = FN(errno_t(*)(int, wchar_t *, size_t, int), _itow_s);
    mark();
    r = ultoa_s_(4000000000UL, buf, 4, 10);
    e = err();
    check(DLL "_ultoa_s: a buffer too small: ERANGE, the buffer emptied", r == ERANGE && e == ERANGE && buf[0] == 0, r,
          e);
    mark();
    r = ultoa_s_(1, buf, sizeof buf, 37);
    e = err();
    check(DLL "_ultoa_s: radix 37: EINVAL, the buffer emptied", r == EINVAL && e == EINVAL && buf[0] == 0, r, e);
    mark();
    r = ltoa_s_(-12345, buf, 6, 10);
    e = err();
    check(DLL "_ltoa_s: a buffer one short of the sign and digits: ERANGE", r == ERANGE && e == ERANGE && buf[0] == 0,
          r, e);
    mark();
    r = ltoa_s_(1, NULL, 8, 10);
    e = err();
    check(DLL "_ltoa_s: a NULL buffer: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = i64toa_s_(INT64_MIN, buf, sizeof buf, 10);
    e = err();
    check(DLL "_i64toa_s: -9223372036854775808 into 16: ERANGE", r == ERANGE && e == ERANGE && buf[0] == 0, r, e);
    mark();
    r = i64toa_s_(1, buf, sizeof buf, 1);
    e = err();
    check(DLL "_i64toa_s: radix 1: EINVAL", r == EINVAL && e == EINVAL && buf[0] == 0, r, e);
    mark();
    r = ui64toa_s_(UINT64_MAX, buf, sizeof buf, 10);
    e = err();
    check(DLL "_ui64toa_s: 18446744073709551615 into 16: ERANGE (Wine: EINVAL)",
          r == ERANGE && e == ERANGE && buf[0] == 0, r, e);
    mark();
    r = itow_s_(12345, wbuf, 3, 10);
    e = err();
    check(DLL "_itow_s: a buffer too small: ERANGE, the buffer emptied", r == ERANGE && e == ERANGE && wbuf[0] == 0, r,
          e);
    /* the string _s functions */
    char *(*strtok_s_)(char *, const char *, char **) = FN(char *(*)(char *, const char *, char **), strtok_s);
    char *ctx = NULL, *tok;
    strcpy(buf, "a,b");
    mark();
    tok = strtok_s_(buf, ",", NULL);
    e = err();
    check(DLL "strtok_s: a NULL context: NULL, errno EINVAL", !tok && e == EINVAL, tok != NULL, e);
    mark();
    tok = strtok_s_(NULL, ",", &ctx);
    e = err();
    check(DLL "strtok_s: a NULL string with a NULL *context: NULL, errno EINVAL", !tok && e == EINVAL, tok != NULL, e);
    errno_t (*strlwr_s_)(char *, size_t) = FN(errno_t(*)(char *, size_t), _strlwr_s);
    errno_t (*strupr_s_)(char *, size_t) = FN(errno_t(*)(char *, size_t), _strupr_s);
    mark();
    r = strlwr_s_(NULL, 4);
    e = err();
    check(DLL "_strlwr_s: a NULL string: EINVAL", r == EINVAL && e == EINVAL, r, e);
    memcpy(buf, "ABCDEFGH", 8);
    mark();
    r = strupr_s_(buf, 4);
    e = err();
    check(DLL "_strupr_s: no terminator within the size: EINVAL, the string emptied",
          r == EINVAL && e == EINVAL && buf[0] == 0, r, e);
    errno_t (*wcscpy_s_)(wchar_t *, size_t, const wchar_t *) =
        FN(errno_t(*)(wchar_t *, size_t, const wchar_t *), wcscpy_s);
    errno_t (*wcscat_s_)(wchar_t *, size_t, const wchar_t *) =
        FN(errno_t(*)(wchar_t *, size_t, const wchar_t *), wcscat_s);
    errno_t (*strncat_s_)(char *, size_t, const char *, size_t) =
        FN(errno_t(*)(char *, size_t, const char *, size_t), strncat_s);
    mark();
    r = wcscpy_s_(wbuf, 4, L"hello");
    e = err();
    check(DLL "wcscpy_s: a destination too small: ERANGE, the destination emptied",
          r == ERANGE && e == ERANGE && wbuf[0] == 0, r, e);
    mark();
    r = wcscpy_s_(NULL, 4, L"x");
    e = err();
    check(DLL "wcscpy_s: a NULL destination: EINVAL", r == EINVAL && e == EINVAL, r, e);
    wcscpy(wbuf, L"abc");
    mark();
    r = wcscat_s_(wbuf, 5, L"de");
    e = err();
    check(DLL "wcscat_s: a destination too small: ERANGE, the destination emptied (Wine leaves errno)",
          r == ERANGE && e == ERANGE && wbuf[0] == 0, r, e);
    strcpy(buf, "abc");
    mark();
    r = strncat_s_(buf, 5, "de", 2);
    e = err();
    check(DLL "strncat_s: a destination too small: ERANGE, the destination emptied",
          r == ERANGE && e == ERANGE && buf[0] == 0, r, e);
    errno_t (*memcpy_s_)(void *, size_t, const void *, size_t) =
        FN(errno_t(*)(void *, size_t, const void *, size_t), memcpy_s);
    errno_t (*memmove_s_)(void *, size_t, const void *, size_t) =
        FN(errno_t(*)(void *, size_t, const void *, size_t), memmove_s);
    memset(buf, '#', sizeof buf);
    mark();
    r = memcpy_s_(buf, 4, "abcdefgh", 8);
    e = err();
    check(DLL "memcpy_s: a count above the destination's size: ERANGE, the destination zeroed",
          r == ERANGE && e == ERANGE && !memcmp(buf, "\0\0\0\0#", 5), r, e);
    memset(buf, '#', sizeof buf);
    mark();
    r = memcpy_s_(buf, 4, NULL, 2);
    e = err();
    check(DLL "memcpy_s: a NULL source: EINVAL, the destination zeroed",
          r == EINVAL && e == EINVAL && !memcmp(buf, "\0\0\0\0#", 5), r, e);
    mark();
    r = memmove_s_(buf, 4, "abcdefgh", 8);
    e = err();
    check(DLL "memmove_s: a count above the destination's size: ERANGE", r == ERANGE && e == ERANGE, r, e);
    errno_t (*getenv_s_)(size_t *, char *, size_t, const char *) =
        FN(errno_t(*)(size_t *, char *, size_t, const char *), getenv_s);
    size_t need = 0;
    _putenv("HCPSIM_OC2=abcdef");
    mark();
    r = getenv_s_(&need, buf, 4, "HCPSIM_OC2");
    e = err();
    check(DLL "getenv_s: a buffer too small: ERANGE, the size needed (7) in *pReturnValue",
          r == ERANGE && e == ERANGE && need == 7, r, e);
    errno_t (*strerror_s_)(char *, size_t, int) = FN(errno_t(*)(char *, size_t, int), strerror_s);
    mark();
    r = strerror_s_(NULL, 16, 2);
    e = err();
    check(DLL "strerror_s: a NULL buffer: EINVAL", r == EINVAL && e == EINVAL, r, e);
    /* time */
    errno_t (*lt64_s)(struct tm *, const long long *) = FN(errno_t(*)(struct tm *, const long long *), _localtime64_s);
    errno_t (*gt64_s)(struct tm *, const long long *) = FN(errno_t(*)(struct tm *, const long long *), _gmtime64_s);
    errno_t (*asctime_s_)(char *, size_t, const struct tm *) =
        FN(errno_t(*)(char *, size_t, const struct tm *), asctime_s);
    long long (*mkgm64)(struct tm *) = FN(long long (*)(struct tm *), _mkgmtime64);
    long long t = 86400, neg = -1;
    struct tm tmv;
    mark();
    r = lt64_s(NULL, &t);
    e = err();
    check(DLL "_localtime64_s: a NULL tm: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = gt64_s(&tmv, &neg);
    e = err();
    check(DLL "_gmtime64_s: a time before 1970: EINVAL", r == EINVAL && e == EINVAL, r, e);
    gt64_s(&tmv, &t);
    mark();
    r = asctime_s_(NULL, 26, &tmv);
    e = err();
    check(DLL "asctime_s: a NULL buffer: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = asctime_s_(buf, sizeof buf, &tmv);
    e = err();
    check(DLL "asctime_s: a buffer of 16 (under 26): EINVAL, the buffer emptied",
          r == EINVAL && e == EINVAL && buf[0] == 0, r, e);
    memset(&tmv, 0, sizeof tmv);
    tmv.tm_year = 60, tmv.tm_mday = 1;
    mark();
    r = mkgm64(&tmv);
    check(DLL "_mkgmtime64: 1 January 1960, before the epoch: -1 (OUT_OF_RANGE)", r == -1, r, err());
    if (!under_wine()) {
        mark();
        r = mkgm64(NULL);
        e = err();
        check(DLL "_mkgmtime64: a NULL tm: -1, errno EINVAL (Wine faults)", r == -1 && e == EINVAL, r, e);
    }
    /* sorting and searching */
    errno_t (*qsort_s_)(void *, size_t, size_t, int (*)(void *, const void *, const void *), void *) =
        FN(errno_t(*)(void *, size_t, size_t, int (*)(void *, const void *, const void *), void *), qsort_s);
    void *(*bsearch_s_)(const void *, const void *, size_t, size_t, int (*)(void *, const void *, const void *),
                        void *) =
        FN(void *(*)(const void *, const void *, size_t, size_t, int (*)(void *, const void *, const void *), void *),
           bsearch_s);
    int arr[3] = {1, 2, 3};
    mark();
    qsort_s_(NULL, 3, sizeof(int), cmp_int, NULL);
    e = err();
    check(DLL "qsort_s: a NULL array of 3 elements: errno EINVAL", e == EINVAL, 0, e);
    if (!under_wine()) {
        mark();
        void *found = bsearch_s_(NULL, arr, 3, sizeof(int), cmp_int, NULL);
        e = err();
        check(DLL "bsearch_s: a NULL key: NULL, errno EINVAL (Wine faults)", !found && e == EINVAL, found != NULL, e);
    }
    /* errno and the DOS error */
    int (*set_errno_)(int) = FN(int (*)(int), _set_errno);
    errno_t (*get_doserrno_)(unsigned long *) = FN(errno_t(*)(unsigned long *), _get_doserrno);
    r = set_errno_(ERANGE);
    e = errno;
    check(DLL "_set_errno: ERANGE: 0 (SET), errno ERANGE", r == 0 && e == ERANGE, r, e);
    mark();
    r = get_doserrno_(NULL);
    e = err();
    check(DLL "_get_doserrno: a NULL pointer: EINVAL (Wine leaves errno)", r == EINVAL && e == EINVAL, r, e);
    /* streams */
    FILE *f = fopen("oc2_stream.txt", "w+");
    fputs("x", f);
    rewind(f);
    int c = fgetc(f);
    mark();
    int c2 = fgetc(f);
    check(DLL "fgetc: at the end of the file: EOF (-1), feof set", c == 'x' && c2 == EOF && feof(f), c2, err());
    r = ungetc(EOF, f);
    check(DLL "ungetc: EOF: EOF (-1), nothing pushed back", r == EOF, r, 0);
    mark();
    r = setvbuf(f, NULL, 7, 512);
    e = err();
    check(DLL "setvbuf: a mode that is not _IOFBF, _IOLBF or _IONBF: nonzero, errno EINVAL", r != 0 && e == EINVAL, r,
          e);
    fclose(f);
    remove("oc2_stream.txt");
    r = fflush(NULL);
    check(DLL "fflush: NULL flushes every stream: 0 (ALL_FLUSHED)", r == 0, r, 0);
    /* descriptors and names */
    mark();
    r = _eof(99);
    e = err();
    check(DLL "_eof: a descriptor that is not open: -1, errno EBADF (Wine leaves errno)", r == -1 && e == EBADF, r, e);
    mark();
    r = _chsize(99, 0);
    e = err();
    check(DLL "_chsize: a descriptor that is not open: -1, errno EBADF (Wine leaves errno)", r == -1 && e == EBADF, r,
          e);
    mark();
    r = (long long)_get_osfhandle(99);
    e = err();
    check(DLL "_get_osfhandle: a descriptor that is not open: -1 (INVALID_HANDLE_VALUE), errno EBADF",
          r == -1 && e == EBADF, r, e);
    mark();
    r = _lseeki64(99, 0, SEEK_SET);
    e = err();
    check(DLL "_lseeki64: a descriptor that is not open: -1, errno EBADF", r == -1 && e == EBADF, r, e);
    mark();
    r = _filelengthi64(99);
    e = err();
    check(DLL "_filelengthi64: a descriptor that is not open: -1, errno EBADF", r == -1 && e == EBADF, r, e);
    struct _stat64 st;
    int (*fstat64_)(int, struct _stat64 *) = FN(int (*)(int, struct _stat64 *), _fstat64);
    int (*stat64_)(const char *, struct _stat64 *) = FN(int (*)(const char *, struct _stat64 *), _stat64);
    mark();
    r = fstat64_(99, &st);
    e = err();
    check(DLL "_fstat64: a descriptor that is not open: -1, errno EBADF (Wine leaves errno)", r == -1 && e == EBADF, r,
          e);
    mark();
    r = stat64_("oc2_none.txt", &st);
    e = err();
    check(DLL "_stat64: a file that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = _unlink("oc2_none.txt");
    e = err();
    check(DLL "_unlink: a file that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = _wremove(L"oc2_none.txt");
    e = err();
    check(DLL "_wremove: a file that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    f = _wfopen(L"oc2_none.txt", L"r");
    e = err();
    check(DLL "_wfopen: a file that does not exist: NULL, errno ENOENT", !f && e == ENOENT, f != NULL, e);
    mark();
    r = _wopen(L"oc2_none.txt", _O_RDONLY);
    e = err();
    check(DLL "_wopen: a file that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = _mkdir("oc2_none\\inner");
    e = err();
    check(DLL "_mkdir: a parent that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    char *cwd = _getcwd(buf, 2);
    e = err();
    check(DLL "_getcwd: a buffer too small: NULL, errno ERANGE", !cwd && e == ERANGE, cwd != NULL, e);
    /* conversions of wide text out of range */
    long (*wcstol_)(const wchar_t *, wchar_t **, int) = FN(long (*)(const wchar_t *, wchar_t **, int), wcstol);
    unsigned long (*wcstoul_)(const wchar_t *, wchar_t **, int) =
        FN(unsigned long (*)(const wchar_t *, wchar_t **, int), wcstoul);
    mark();
    r = wcstol_(L"-2147483649", NULL, 10);
    e = err();
    check(DLL "wcstol: -2147483649: LONG_MIN, errno ERANGE", r == -2147483647LL - 1 && e == ERANGE, r, e);
    mark();
    r = (long long)wcstoul_(L"4294967296", NULL, 10);
    e = err();
    check(DLL "wcstoul: 4294967296: ULONG_MAX, errno ERANGE", r == 4294967295LL && e == ERANGE, r, e);
    /* math */
    double (*log10_)(double) = FN(double (*)(double), log10), (*asin_)(double) = FN(double (*)(double), asin);
    double (*cosh_)(double) = FN(double (*)(double), cosh);
    mark();
    double d = log10_(-1.0);
    e = err();
    check(DLL "log10: -1: a NaN, errno EDOM", d != d && e == EDOM, d != d, e);
    mark();
    d = asin_(2.0);
    e = err();
    check(DLL "asin: 2: a NaN, errno EDOM", d != d && e == EDOM, d != d, e);
    mark();
    d = cosh_(1000.0);
    e = err();
    check(DLL "cosh: 1000: INF, errno ERANGE (Wine leaves errno)", d == HUGE_VAL && e == ERANGE, d == HUGE_VAL, e);
}

/* ---- round 3: ctype outside its range, locales, error texts, the environment, conversions of
 * text that is no number, abs of the lowest value, time and string _s functions given NULL ---- */
static void round3_outcomes(void) {
    long long r;
    int e;
    char buf[64];
    wchar_t wbuf[64];
    int (*isdigit_)(int) = FN(int (*)(int), isdigit);
    int (*isalpha_)(int) = FN(int (*)(int), isalpha);
    int (*isspace_)(int) = FN(int (*)(int), isspace);
    int (*toupper_)(int) = FN(int (*)(int), toupper);
    int (*tolower_)(int) = FN(int (*)(int), tolower);
    r = isdigit_(EOF);
    check(DLL "isdigit: EOF: 0 (FALSE)", r == 0, r, 0);
    r = isalpha_(EOF);
    check(DLL "isalpha: EOF: 0 (FALSE)", r == 0, r, 0);
    r = isspace_(EOF);
    check(DLL "isspace: EOF: 0 (FALSE)", r == 0, r, 0);
    r = toupper_(EOF);
    check(DLL "toupper: EOF: EOF, unchanged (UNCHANGED)", r == EOF, r, 0);
    r = tolower_(EOF);
    check(DLL "tolower: EOF: EOF, unchanged (UNCHANGED)", r == EOF, r, 0);
    char *(*setlocale_)(int, const char *) = FN(char *(*)(int, const char *), setlocale);
    char *loc = setlocale_(LC_ALL, "hcpsim-no-such-locale");
    check(DLL "setlocale: a locale that does not exist: NULL, the locale unchanged (NULL)",
          loc == NULL && strcmp(setlocale_(LC_ALL, NULL), "C") == 0, loc != NULL, 0);
    struct lconv *(*localeconv_)(void) = FN(struct lconv * (*)(void), localeconv);
    struct lconv *lc = localeconv_();
    check(DLL "localeconv: the \"C\" locale: decimal_point \".\", thousands_sep \"\" (C_LOCALE)",
          lc && strcmp(lc->decimal_point, ".") == 0 && lc->thousands_sep[0] == 0, lc != NULL, 0);
    char *(*strerror_)(int) = FN(char *(*)(int), strerror);
    char *msg = strerror_(1000);
    check(DLL "strerror: an errno that is none: \"Unknown error\" (UNKNOWN)", msg && strcmp(msg, "Unknown error") == 0,
          msg ? (long long)strlen(msg) : -1, 0);
    char *(*strerror2_)(const char *) = FN(char *(*)(const char *), _strerror);
    errno = 1000;
    msg = strerror2_("oc3");
    check(DLL "_strerror: errno that is none: \"oc3: Unknown error\\n\" (UNKNOWN)",
          msg && strcmp(msg, "oc3: Unknown error\n") == 0, msg ? (long long)strlen(msg) : -1, 0);
    int (*putenv_)(const char *) = FN(int (*)(const char *), _putenv);
    int (*wputenv_)(const wchar_t *) = FN(int (*)(const wchar_t *), _wputenv);
    mark();
    r = putenv_("HCPSIM_OC3_NO_EQUALS");
    e = err();
    check(DLL "_putenv: a string without '=': -1 (FAILED)", r == -1, r, 0); /* errno: not documented */
    mark();
    r = wputenv_(L"HCPSIM_OC3_NO_EQUALS");
    e = err();
    check(DLL "_wputenv: a string without '=': -1 (FAILED)", r == -1, r, 0);
    wchar_t *(*wgetenv_)(const wchar_t *) = FN(wchar_t * (*)(const wchar_t *), _wgetenv);
    wchar_t *wv = wgetenv_(L"HCPSIM_OC3_NOT_SET");
    check(DLL "_wgetenv: a name that is not set: NULL (NULL)", wv == NULL, wv != NULL, 0);
    int (*abs_)(int) = FN(int (*)(int), abs);
    long (*labs_)(long) = FN(long (*)(long), labs);
    r = abs_(INT_MIN);
    check(DLL "abs: INT_MIN: INT_MIN, the argument unchanged (UNCHANGED)", r == INT_MIN, r, 0);
    r = labs_(LONG_MIN);
    check(DLL "labs: LONG_MIN: LONG_MIN, the argument unchanged (UNCHANGED)", r == LONG_MIN, r, 0);
    int (*atoi_)(const char *) = FN(int (*)(const char *), atoi);
    long (*atol_)(const char *) = FN(long (*)(const char *), atol);
    int (*wtoi_)(const wchar_t *) = FN(int (*)(const wchar_t *), _wtoi);
    r = atoi_("no number");
    check(DLL "atoi: text that is no number: 0 (ZERO)", r == 0, r, 0);
    r = atol_("no number");
    check(DLL "atol: text that is no number: 0 (ZERO)", r == 0, r, 0);
    r = wtoi_(L"no number");
    check(DLL "_wtoi: text that is no number: 0 (ZERO)", r == 0, r, 0);
    int (*wunlink_)(const wchar_t *) = FN(int (*)(const wchar_t *), _wunlink);
    int (*wrename_)(const wchar_t *, const wchar_t *) = FN(int (*)(const wchar_t *, const wchar_t *), _wrename);
    int (*isatty_)(int) = FN(int (*)(int), _isatty);
    mark();
    r = wunlink_(L"oc3_missing.txt");
    e = err();
    check(DLL "_wunlink: a file that does not exist: -1, ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = wrename_(L"oc3_missing.txt", L"oc3_other.txt");
    e = err();
    check(DLL "_wrename: a source that does not exist: -1 (FAILED), ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = isatty_(9999);
    e = err();
    check(DLL "_isatty: a descriptor that is not open: 0, EBADF (Wine leaves errno)", r == 0 && e == EBADF, r, e);
    size_t (*strnlen_)(const char *, size_t) = FN(size_t(*)(const char *, size_t), strnlen);
    size_t (*wcsnlen_)(const wchar_t *, size_t) = FN(size_t(*)(const wchar_t *, size_t), wcsnlen);
    r = (long long)strnlen_("abcdef", 3);
    check(DLL "strnlen: a string longer than numberOfElements: numberOfElements (MAXSIZE)", r == 3, r, 0);
    r = (long long)wcsnlen_(L"abcdef", 3);
    check(DLL "wcsnlen: a string longer than numberOfElements: numberOfElements (MAXSIZE)", r == 3, r, 0);
    errno_t (*wcsncpy_s_)(wchar_t *, size_t, const wchar_t *, size_t) =
        FN(errno_t(*)(wchar_t *, size_t, const wchar_t *, size_t), wcsncpy_s);
    errno_t (*wcsncat_s_)(wchar_t *, size_t, const wchar_t *, size_t) =
        FN(errno_t(*)(wchar_t *, size_t, const wchar_t *, size_t), wcsncat_s);
    errno_t (*wcslwr_s_)(wchar_t *, size_t) = FN(errno_t(*)(wchar_t *, size_t), _wcslwr_s);
    errno_t (*wcsupr_s_)(wchar_t *, size_t) = FN(errno_t(*)(wchar_t *, size_t), _wcsupr_s);
    mark();
    r = wcsncpy_s_(NULL, 8, L"abc", 3);
    e = err();
    check(DLL "wcsncpy_s: a NULL destination: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = wcsncat_s_(NULL, 8, L"abc", 3);
    e = err();
    check(DLL "wcsncat_s: a NULL destination: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = wcslwr_s_(NULL, 8);
    e = err();
    check(DLL "_wcslwr_s: a NULL string: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = wcsupr_s_(NULL, 8);
    e = err();
    check(DLL "_wcsupr_s: a NULL string: EINVAL", r == EINVAL && e == EINVAL, r, e);
    errno_t (*ltow_s_)(long, wchar_t *, size_t, int) = FN(errno_t(*)(long, wchar_t *, size_t, int), _ltow_s);
    mark();
    r = ltow_s_(1, NULL, 8, 10);
    e = err();
    check(DLL "_ltow_s: a NULL buffer: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = ltow_s_(-12345, wbuf, 6, 10);
    e = err();
    check(DLL "_ltow_s: a buffer one short of the sign and digits: ERANGE", r == ERANGE && e == ERANGE && wbuf[0] == 0,
          r, e);
    errno_t (*gm32_)(struct tm *, const __time32_t *) = FN(errno_t(*)(struct tm *, const __time32_t *), _gmtime32_s);
    errno_t (*lt32_)(struct tm *, const __time32_t *) = FN(errno_t(*)(struct tm *, const __time32_t *), _localtime32_s);
    errno_t (*ct64_)(char *, size_t, const __time64_t *) =
        FN(errno_t(*)(char *, size_t, const __time64_t *), _ctime64_s);
    __time32_t t32 = 0;
    __time64_t t64 = 0;
    mark();
    r = gm32_(NULL, &t32);
    e = err();
    check(DLL "_gmtime32_s: a NULL tm: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = lt32_(NULL, &t32);
    e = err();
    check(DLL "_localtime32_s: a NULL tm: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = ct64_(buf, 10, &t64);
    e = err();
    check(DLL "_ctime64_s: a buffer under 26: EINVAL", r == EINVAL && e == EINVAL, r, e);
    errno_t (*rand_s_)(unsigned *) = FN(errno_t(*)(unsigned *), rand_s);
    mark();
    r = rand_s_(NULL);
    e = err();
    check(DLL "rand_s: a NULL pointer: EINVAL", r == EINVAL && e == EINVAL, r, e);
    int (*finite_)(double) = FN(int (*)(double), _finite);
    int (*isnan_)(double) = FN(int (*)(double), _isnan);
    int (*fpclass_)(double) = FN(int (*)(double), _fpclass);
    volatile double zero = 0.0;
    double inf = 1.0 / zero, nan_ = zero / zero;
    r = finite_(inf);
    check(DLL "_finite: infinity: 0 (FALSE)", r == 0, r, 0);
    r = isnan_(nan_);
    check(DLL "_isnan: a NaN: nonzero (TRUE)", r != 0, r != 0, 0);
    r = fpclass_(-inf);
    check(DLL "_fpclass: minus infinity: _FPCLASS_NINF (4)", r == 4, r, 0);
    int (*wctob_)(wint_t) = FN(int (*)(wint_t), wctob);
    r = wctob_(0x263A);
    check(DLL "wctob: a character with no single byte: EOF (-1)", r == EOF, r, 0);
    (void)wbuf;
}

/* ---- round 3, second part: locale categories, multibyte conversions without a buffer, the
 * _s string functions given NULL, msvcrt's _stat and _fstat ---- */
static void round3b_outcomes(void) {
    long long r;
    int e;
    char *(*setlocale_)(int, const char *) = FN(char *(*)(int, const char *), setlocale);
    wchar_t *(*wsetlocale_)(int, const wchar_t *) = FN(wchar_t * (*)(int, const wchar_t *), _wsetlocale);
    char *loc = setlocale_(99, "C");
    check(DLL "setlocale: a category that is not one: NULL (NULL)", loc == NULL, loc != NULL, 0);
    wchar_t *wloc = wsetlocale_(LC_ALL, L"hcpsim-no-such-locale");
    check(DLL "_wsetlocale: a locale that does not exist: NULL (NULL)", wloc == NULL, wloc != NULL, 0);
    int (*mblen_)(const char *, size_t) = FN(int (*)(const char *, size_t), mblen);
    int (*mbtowc_)(wchar_t *, const char *, size_t) = FN(int (*)(wchar_t *, const char *, size_t), mbtowc);
    int (*wctomb_)(char *, wchar_t) = FN(int (*)(char *, wchar_t), wctomb);
    wint_t (*btowc_)(int) = FN(wint_t(*)(int), btowc);
    r = mblen_(NULL, 0);
    check(DLL "mblen: a NULL mbstr: 0, no state-dependent encodings (ZERO)", r == 0, r, 0);
    r = mbtowc_(NULL, NULL, 0);
    check(DLL "mbtowc: a NULL mbchar: 0 (ZERO)", r == 0, r, 0);
    r = wctomb_(NULL, 0);
    check(DLL "wctomb: a NULL mbchar: 0, no state-dependent encodings (ZERO) (Wine: -1)", r == 0, r, 0);
    r = btowc_(EOF);
    check(DLL "btowc: EOF: WEOF (65535)", r == WEOF, r, 0);
    errno_t (*wcserror_s_)(wchar_t *, size_t, int) = FN(errno_t(*)(wchar_t *, size_t, int), _wcserror_s);
    errno_t (*strnset_s_)(char *, size_t, int, size_t) = FN(errno_t(*)(char *, size_t, int, size_t), _strnset_s);
    errno_t (*wcsnset_s_)(wchar_t *, size_t, wchar_t, size_t) =
        FN(errno_t(*)(wchar_t *, size_t, wchar_t, size_t), _wcsnset_s);
    wchar_t *(*wcstok_s_)(wchar_t *, const wchar_t *, wchar_t **) =
        FN(wchar_t * (*)(wchar_t *, const wchar_t *, wchar_t **), wcstok_s);
    mark();
    r = wcserror_s_(NULL, 8, 2);
    e = err();
    check(DLL "_wcserror_s: a NULL buffer: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = strnset_s_(NULL, 8, 'x', 2);
    e = err();
    check(DLL "_strnset_s: a NULL string: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = wcsnset_s_(NULL, 8, L'x', 2);
    e = err();
    check(DLL "_wcsnset_s: a NULL string: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    wchar_t *tok = wcstok_s_(NULL, L",", NULL);
    e = err();
    check(DLL "wcstok_s: a NULL context: NULL, errno EINVAL", tok == NULL && e == EINVAL, tok != NULL, e);
#ifndef _UCRT
    int (*stat_)(const char *, void *) = FN(int (*)(const char *, void *), _stat);
    int (*fstat_)(int, void *) = FN(int (*)(int, void *), _fstat);
    long long st[16];
    mark();
    r = stat_("oc3_missing.txt", st);
    e = err();
    check(DLL "_stat: a path that does not exist: -1, ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = fstat_(9999, st);
    e = err();
    check(DLL "_fstat: a descriptor that is not open: -1, EBADF (Wine leaves errno)", r == -1 && e == EBADF, r, e);
#endif
}

int main(void) {
    double (*sqrt_)(double) = FN(double (*)(double), sqrt), (*log_)(double) = FN(double (*)(double), log);
    double (*acos_)(double) = FN(double (*)(double), acos), (*exp_)(double) = FN(double (*)(double), exp);
    double (*pow_)(double, double) = FN(double (*)(double, double), pow);
    double (*strtod_)(const char *, char **) = FN(double (*)(const char *, char **), strtod);
    int (*get_errno_)(int *) = FN(int (*)(int *), _get_errno);
    size_t (*fread_)(void *, size_t, size_t, FILE *) = FN(size_t(*)(void *, size_t, size_t, FILE *), fread);
    long long r;
    int e;
    char buf[16];
#ifdef _UCRT
    _set_invalid_parameter_handler(quiet);
#endif
    /* ---- files: a file and a folder holding one file, and names nobody made ---- */
    FILE *f = fopen("oc_file.txt", "w");
    fputs("x", f);
    fclose(f);
    _mkdir("oc_full");
    f = fopen("oc_full\\inside.txt", "w");
    fclose(f);

    mark();
    f = fopen("oc_none.txt", "r");
    e = err();
    check(DLL "fopen: a file that does not exist: NULL, errno ENOENT", !f && e == ENOENT, f != NULL, e);
    mark();
    f = fopen("oc_file.txt", "q");
    e = err();
    check(DLL "fopen: a mode that is not valid: NULL, errno EINVAL", !f && e == EINVAL, f != NULL, e);
    mark();
    r = _open("oc_none.txt", _O_RDONLY);
    e = err();
    check(DLL "_open: a file that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = _open("oc_file.txt", _O_CREAT | _O_EXCL | _O_WRONLY, _S_IREAD | _S_IWRITE);
    e = err();
    check(DLL "_open: _O_CREAT | _O_EXCL of a file that exists: -1, errno EEXIST", r == -1 && e == EEXIST, r, e);
    mark();
    r = _close(99);
    e = err();
    check(DLL "_close: a descriptor that is not open: -1, errno EBADF", r == -1 && e == EBADF, r, e);
    mark();
    r = _read(99, buf, 1);
    e = err();
    check(DLL "_read: a descriptor that is not open: -1, errno EBADF", r == -1 && e == EBADF, r, e);
    mark();
    r = _write(99, "x", 1);
    e = err();
    check(DLL "_write: a descriptor that is not open: -1, errno EBADF", r == -1 && e == EBADF, r, e);
    mark();
    r = _lseek(99, 0, SEEK_SET);
    e = err();
    check(DLL "_lseek: a descriptor that is not open: -1, errno EBADF", r == -1 && e == EBADF, r, e);
    int fd = _open("oc_file.txt", _O_RDONLY);
    mark();
    r = _lseek(fd, 0, 7);
    e = err();
    check(DLL "_lseek: an origin that is not SEEK_SET, SEEK_CUR or SEEK_END: -1, errno EINVAL", r == -1 && e == EINVAL,
          r, e);
    _close(fd);
    mark();
    r = _filelength(99);
    e = err();
    check(DLL "_filelength: a descriptor that is not open: -1, errno EBADF", r == -1 && e == EBADF, r, e);
    mark();
    r = remove("oc_none.txt");
    e = err();
    check(DLL "remove: a file that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = rename("oc_none.txt", "oc_other.txt");
    e = err();
    check(DLL "rename: an old name that does not exist: nonzero, errno ENOENT", r != 0 && e == ENOENT, r, e);
    f = fopen("oc_file2.txt", "w");
    fclose(f);
    mark();
    r = rename("oc_file.txt", "oc_file2.txt");
    e = err();
    check(DLL "rename: a new name that exists: nonzero, errno EEXIST", r != 0 && e == EEXIST, r, e);
    mark();
    r = _mkdir("oc_full");
    e = err();
    check(DLL "_mkdir: a folder that exists: -1, errno EEXIST", r == -1 && e == EEXIST, r, e);
    mark();
    r = _rmdir("oc_none");
    e = err();
    check(DLL "_rmdir: a folder that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = _rmdir("oc_full");
    e = err();
    check(DLL "_rmdir: a folder that is not empty: -1, errno ENOTEMPTY", r == -1 && e == ENOTEMPTY, r, e);
    mark();
    r = _access("oc_none.txt", 0);
    e = err();
    check(DLL "_access: a file that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    mark();
    r = _chdir("oc_none");
    e = err();
    check(DLL "_chdir: a folder that does not exist: -1, errno ENOENT", r == -1 && e == ENOENT, r, e);
    /* ---- streams: NULL where a stream must be, an origin that is not one ---- */
    int wine = under_wine();
    if (!wine) {
        mark();
        r = (long long)fread_(buf, 1, 1, NULL);
        e = err();
        check(DLL "fread: a NULL stream: 0, errno EINVAL (Wine faults)", r == 0 && e == EINVAL, r, e);
        mark();
        r = (long long)fwrite("x", 1, 1, NULL);
        e = err();
        check(DLL "fwrite: a NULL stream: 0, errno EINVAL (Wine faults)", r == 0 && e == EINVAL, r, e);
        mark();
        r = fseek(NULL, 0, SEEK_SET);
        e = err();
        check(DLL "fseek: a NULL stream: -1, errno EINVAL (Wine faults)", r == -1 && e == EINVAL, r, e);
    }
    f = fopen("oc_file2.txt", "r");
    mark();
    r = fseek(f, 0, 7);
    e = err();
    check(DLL "fseek: an origin that is not SEEK_SET, SEEK_CUR or SEEK_END: -1, errno EINVAL", r == -1 && e == EINVAL,
          r, e);
    fclose(f);
    if (!wine) {
        mark();
        r = ftell(NULL);
        e = err();
        check(DLL "ftell: a NULL stream: -1, errno EINVAL (Wine faults)", r == -1 && e == EINVAL, r, e);
    }
    mark();
    r = fclose(NULL);
    e = err();
    check(DLL "fclose: a NULL stream: EOF, errno EINVAL", r == EOF && e == EINVAL, r, e);
    remove("oc_file.txt");
    remove("oc_file2.txt");
    remove("oc_full\\inside.txt");
    _rmdir("oc_full");

    /* ---- conversions out of range, bad arguments ---- */
    char *end;
    mark();
    r = strtol("2147483648", &end, 10);
    e = err();
    check(DLL "strtol: 2147483648: LONG_MAX, errno ERANGE", r == 2147483647 && e == ERANGE, r, e);
    mark();
    r = strtol("10", &end, 1);
    e = err();
    check(DLL "strtol: base 1: 0, errno EINVAL", r == 0 && e == EINVAL, r, e);
    mark();
    r = (long long)strtoul("4294967296", &end, 10);
    e = err();
    check(DLL "strtoul: 4294967296: ULONG_MAX, errno ERANGE", r == 4294967295LL && e == ERANGE, r, e);
    mark();
    r = _strtoi64("9223372036854775808", &end, 10);
    e = err();
    check(DLL "_strtoi64: 9223372036854775808: _I64_MAX, errno ERANGE", r == INT64_MAX && e == ERANGE, r, e);
    mark();
    r = (long long)_strtoui64("18446744073709551616", &end, 10);
    e = err();
    check(DLL "_strtoui64: 18446744073709551616: _UI64_MAX, errno ERANGE",
          (unsigned long long)r == UINT64_MAX && e == ERANGE, r, e);
    mark();
    double d = strtod_("1e999", &end);
    e = err();
    check(DLL "strtod: 1e999: HUGE_VAL, errno ERANGE", d == HUGE_VAL && e == ERANGE, (long long)(d > 0), e);
    mark();
    r = _itoa_s(12345, buf, 3, 10);
    e = err();
    check(DLL "_itoa_s: a buffer too small: ERANGE, the buffer emptied", r == ERANGE && e == ERANGE && buf[0] == 0, r,
          e);
    mark();
    r = _itoa_s(1, NULL, 10, 10);
    e = err();
    check(DLL "_itoa_s: a NULL buffer: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    r = _itoa_s(1, buf, sizeof buf, 1);
    e = err();
    check(DLL "_itoa_s: radix 1: EINVAL, the buffer emptied", r == EINVAL && e == EINVAL && buf[0] == 0, r, e);
    /* ---- math: domain and range errors ---- */
    mark();
    d = sqrt_(-1.0);
    e = err();
    check(DLL "sqrt: -1: a NaN, errno EDOM", d != d && e == EDOM, d != d, e);
    mark();
    d = log_(-1.0);
    e = err();
    check(DLL "log: -1: a NaN, errno EDOM", d != d && e == EDOM, d != d, e);
    mark();
    d = acos_(2.0);
    e = err();
    check(DLL "acos: 2: a NaN, errno EDOM", d != d && e == EDOM, d != d, e);
    mark();
    d = exp_(1000.0);
    e = err();
    check(DLL "exp: 1000: INF, errno ERANGE", d == HUGE_VAL && e == ERANGE, d == HUGE_VAL, e);
    mark();
    d = pow_(10.0, 400.0);
    e = err();
    check(DLL "pow: 10 to the 400th: INF, errno ERANGE", d == HUGE_VAL && e == ERANGE, d == HUGE_VAL, e);
    /* ---- the _s string functions ---- */
    mark();
    memset(buf, '#', sizeof buf);
    r = strcpy_s(buf, 4, "hello");
    e = err();
    check(DLL "strcpy_s: a destination too small: ERANGE, the destination emptied",
          r == ERANGE && e == ERANGE && buf[0] == 0, r, e);
    mark();
    r = strcpy_s(NULL, 4, "x");
    e = err();
    check(DLL "strcpy_s: a NULL destination: EINVAL", r == EINVAL && e == EINVAL, r, e);
    mark();
    memset(buf, '#', sizeof buf);
    r = strncpy_s(buf, 4, "hello", 5);
    e = err();
    check(DLL "strncpy_s: a destination too small: ERANGE, the destination emptied (Wine leaves errno)",
          r == ERANGE && e == ERANGE && buf[0] == 0, r, e);
    mark();
    memset(buf, '#', sizeof buf);
    r = strncpy_s(buf, 4, "hello", _TRUNCATE);
    e = err();
    check(DLL "strncpy_s: _TRUNCATE of a source too long: STRUNCATE, what fits copied and ended",
          r == STRUNCATE && !strcmp(buf, "hel"), r, e);
    mark();
    strcpy(buf, "abc");
    r = strcat_s(buf, 5, "de");
    e = err();
    check(DLL "strcat_s: a destination too small: ERANGE, the destination emptied",
          r == ERANGE && e == ERANGE && buf[0] == 0, r, e);
    mark();
    r = strcat_s(buf, 5, NULL);
    e = err();
    check(DLL "strcat_s: a NULL source: EINVAL, the destination emptied", r == EINVAL && e == EINVAL && buf[0] == 0, r,
          e);
    /* ---- the environment, errno itself, memory ---- */
    mark();
    char *v = getenv("HCPSIM_OUTCOMES_NOT_SET");
    e = err();
    check(DLL "getenv: a name that is not set: NULL, errno unchanged", v == NULL && e == -1, v != NULL, e);
    mark();
    r = get_errno_(NULL);
    e = err();
    check(DLL "_get_errno: a NULL pointer: EINVAL, errno EINVAL (Wine leaves errno)", r == EINVAL && e == EINVAL, r, e);
    mark();
    void *p = malloc(SIZE_MAX - 4096);
    e = err();
    check(DLL "malloc: more than _HEAP_MAXREQ: NULL, errno ENOMEM", !p && e == ENOMEM, p != NULL, e);
    mark();
    p = calloc(SIZE_MAX / 2, 4);
    e = err();
    check(DLL "calloc: a product that overflows: NULL, errno ENOMEM", !p && e == ENOMEM, p != NULL, e);
    void *q = malloc(16);
    mark();
    p = realloc(q, SIZE_MAX - 4096);
    e = err();
    check(DLL "realloc: more than _HEAP_MAXREQ: NULL, errno ENOMEM, the block kept (Wine leaves errno)",
          !p && e == ENOMEM, p != NULL, e);
    free(q);
#ifndef _UCRT
    /* ---- msvcrt's counted printf (the UCRT has them inline over __stdio_common_vsprintf) ---- */
    memset(buf, '#', sizeof buf);
    r = _snprintf(buf, 5, "%s", "hello world");
    check(DLL "_snprintf: output longer than the count: -1 (TRUNCATED), the count stored, no terminator",
          r == -1 && !memcmp(buf, "hello#", 6), r, 0);
    memset(buf, '#', sizeof buf);
    r = _snprintf(buf, 5, "%s", "hello");
    check(DLL "_snprintf: output exactly the count: the count (EXACT_FIT), no terminator",
          r == 5 && !memcmp(buf, "hello#", 6), r, 0);
    memset(buf, '#', sizeof buf);
    r = vsn(buf, 5, "%d", 1234567);
    check(DLL "_vsnprintf: output longer than the count: -1 (TRUNCATED), the count stored, no terminator",
          r == -1 && !memcmp(buf, "12345#", 6), r, 0);
    memset(buf, '#', sizeof buf);
    r = vsn(buf, 5, "%d", 12345);
    check(DLL "_vsnprintf: output exactly the count: the count (EXACT_FIT), no terminator",
          r == 5 && !memcmp(buf, "12345#", 6), r, 0);
    mark();
    memset(buf, '#', sizeof buf);
    r = _snprintf_s(buf, 5, _TRUNCATE, "%s", "hello");
    e = err();
    check(DLL "_snprintf_s: _TRUNCATE of output too long: -1 (TRUNCATED), what fits stored and ended",
          r == -1 && !memcmp(buf, "hell\0#", 6), r, e);
    mark();
    memset(buf, '#', sizeof buf);
    r = _snprintf_s(buf, 5, 8, "%s", "hello");
    e = err();
    check(DLL "_snprintf_s: output too long for the buffer: -1, errno ERANGE, the buffer emptied",
          r == -1 && e == ERANGE && buf[0] == 0, r, e);
    mark();
    r = FN(int (*)(char *, size_t, const char *, ...), sprintf_s)(NULL, 8, "%d", 1);
    e = err();
    check(DLL "sprintf_s: a NULL buffer: -1, errno EINVAL (Wine returns 1)", r == -1 && e == EINVAL, r, e);
#endif
    more_outcomes();
    round3_outcomes();
    round3b_outcomes();
    printf("%d failed\n", failed);
    return failed != 0;
}
