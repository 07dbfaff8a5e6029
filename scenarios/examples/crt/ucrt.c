/* ucrt.c — the Universal CRT's own entry points (its builds only; the msvcrt builds print the last
 * line): __stdio_common_* with each option bit, the start-up functions mingw-w64's UCRT start-up
 * calls and their results, onexit tables, _initterm_e, the new handler, terminate's handler,
 * _configthreadlocale, __acrt_iob_func; vcruntime140.dll's memory and string functions
 * (crt_test.h). */
#include "crt_test.h"

#ifdef _UCRT
#include <locale.h>
#include <process.h>

/* declared in C++ headers (new.h, eh.h) or internal ones: the DLL's exports */
typedef int(__cdecl *new_handler_fn)(size_t);
typedef void (*terminate_fn)(void);
#define _set_new_mode CRT_FN(int (*)(int), _set_new_mode)
#define _query_new_mode CRT_FN(int (*)(void), _query_new_mode)
#define _set_new_handler CRT_FN(new_handler_fn(*)(new_handler_fn), _set_new_handler)
#define _query_new_handler CRT_FN(new_handler_fn(*)(void), _query_new_handler)
#define _callnewh CRT_FN(int (*)(size_t), _callnewh)
#define set_terminate CRT_FN(terminate_fn(*)(terminate_fn), set_terminate)
#define terminate CRT_FN(void (*)(void), terminate)
#define __p__commode CRT_FN(int *(*)(void), __p__commode)

typedef int (*vsprintf_fn)(unsigned long long, char *, size_t, const char *, _locale_t, va_list);
typedef int (*vsnprintf_s_fn)(unsigned long long, char *, size_t, size_t, const char *, _locale_t, va_list);
typedef int (*vswprintf_fn)(unsigned long long, wchar_t *, size_t, const wchar_t *, _locale_t, va_list);
typedef int (*vfprintf_fn)(unsigned long long, FILE *, const char *, _locale_t, va_list);

static int common(unsigned long long opts, char *b, size_t n, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vsprintf_fn, __stdio_common_vsprintf)(opts, b, n, f, NULL, ap);
    va_end(ap);
    return r;
}
static int common_s(unsigned long long opts, char *b, size_t n, size_t count, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vsnprintf_s_fn, __stdio_common_vsnprintf_s)(opts, b, n, count, f, NULL, ap);
    va_end(ap);
    return r;
}
static int common_sprintf_s(unsigned long long opts, char *b, size_t n, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vsprintf_fn, __stdio_common_vsprintf_s)(opts, b, n, f, NULL, ap);
    va_end(ap);
    return r;
}
static int common_w(unsigned long long opts, wchar_t *b, size_t n, const wchar_t *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vswprintf_fn, __stdio_common_vswprintf)(opts, b, n, f, NULL, ap);
    va_end(ap);
    return r;
}
static int common_f(unsigned long long opts, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vfprintf_fn, __stdio_common_vfprintf)(opts, stdout, f, NULL, ap);
    va_end(ap);
    return r;
}
static double bits(unsigned long long u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static int order[8], norder;
static void on1(void) { order[norder++] = 1; }
static void on2(void) { order[norder++] = 2; }
static int ok0(void) { return 0; }
static int fail5(void) { return 5; }
static int never(void) { return 9; }
static int newh_calls;
static int __cdecl new_handler(size_t n) {
    newh_calls++;
    return (int)n + 1;
}
static void quiet(const wchar_t *e, const wchar_t *f, const wchar_t *fi, unsigned l, uintptr_t r) {
    (void)e, (void)f, (void)fi, (void)l, (void)r;
}
static void on_terminate(void) {
    printf(DLL "terminate: the handler ran\n");
    fflush(stdout);
}

typedef struct {
    void **first, **last, **end;
} onexit_table;

static void printing(void) {
    char b[64];
    /* the C99 option bits: exponent digits, infinity and NaN, the wide specifiers, the buffer's end */
    memset(b, '~', sizeof b);
    int r = common(0, b, sizeof b, "%e|%f|%g|%E|%F|%a", 1.5, bits(0x7FF0000000000000ull), bits(0xFFF8000000000000ull),
                   bits(0x7FF8000000000000ull), bits(0xFFF0000000000000ull), 1.0);
    printf(DLL "__stdio_common_vsprintf: options 0: %d %s\n", r, b);
    r = common(0x8 | 0x10, b, sizeof b, "%e|%f|%g", 1.5, bits(0x7FF0000000000000ull), bits(0xFFF8000000000000ull));
    printf(DLL "__stdio_common_vsprintf: legacy msvcrt + three-digit exponents: %d %s\n", r, b);
    r = common(0x20, b, sizeof b, "%.0f %.0f %.1f %.2f", 0.5, 2.5, 0.25, 1.125);
    printf(DLL "__stdio_common_vsprintf: standard rounding: %d %s\n", r, b);
    r = common(0, b, sizeof b, "%.0f %.0f %.1f", 0.5, 2.5, 0.25);
    printf(DLL "__stdio_common_vsprintf: legacy rounding: %d %s\n", r, b);
    r = common(0x4, b, sizeof b, "%s|%S", "narrow", L"wide");
    printf(DLL "__stdio_common_vsprintf: legacy wide specifiers: %d %s\n", r, b);
    r = common(0, b, sizeof b, "%s|%S|%hs|%ls", "narrow", L"wide", "h", L"l");
    printf(DLL "__stdio_common_vsprintf: C99 specifiers: %d %s\n", r, b);
    r = common(0, b, sizeof b, "%5$d|%y|%Lf|%hhd|%zd|%td|%jd|%2$s", 1.5, 300, (size_t)7, (ptrdiff_t)-7,
               (long long)-8);
    printf(DLL "__stdio_common_vsprintf: unknown conversions and size prefixes: %d %s\n", r, b);
    memset(b, '~', sizeof b);
    r = common(0, b, 5, "abcdefgh");
    printf(DLL "__stdio_common_vsprintf: too long: %d %s\n", r, show(b, 7));
    memset(b, '~', sizeof b);
    r = common(0x2, b, 5, "abcdefgh");
    printf(DLL "__stdio_common_vsprintf: too long, standard snprintf: %d %s\n", r, show(b, 7));
    memset(b, '~', sizeof b);
    r = common(0x1, b, 5, "abcdefgh");
    printf(DLL "__stdio_common_vsprintf: too long, legacy termination: %d %s\n", r, show(b, 7));
    memset(b, '~', sizeof b);
    r = common(0x1, b, 5, "abcde");
    printf(DLL "__stdio_common_vsprintf: exact, legacy termination: %d %s\n", r, show(b, 7));
    r = common(0, NULL, 0, "%d%s", 12345, "abc");
    printf(DLL "__stdio_common_vsprintf: NULL buffer counts %d; ", r);
    memset(b, '~', sizeof b);
    r = common(0, b, 0, "abc");
    printf("size 0: %d %s\n", r, show(b, 2));
    memset(b, '~', sizeof b);
    r = common_s(0, b, 8, 3, "abcdef");
    printf(DLL "__stdio_common_vsnprintf_s: count 3: %d %s; ", r, show(b, 8));
    memset(b, '~', sizeof b);
    r = common_s(0, b, 4, _TRUNCATE, "abcdef");
    printf("_TRUNCATE: %d %s; ", r, show(b, 5));
    memset(b, '~', sizeof b);
    mark();
    r = common_s(0, b, 4, 8, "abcdef");
    printf("too long: %d %s errno %d\n", r, show(b, 5), err());
    memset(b, '~', sizeof b);
    mark();
    r = common_s(0, b, 8, 8, "a%yb");
    printf(DLL "__stdio_common_vsnprintf_s: an unknown conversion: %d errno %d\n", r, err());
    memset(b, '~', sizeof b);
    r = common_sprintf_s(0, b, 8, "%d", 1234567);
    printf(DLL "__stdio_common_vsprintf_s: fits %d %s; ", r, show(b, 8));
    memset(b, '~', sizeof b);
    mark();
    r = common_sprintf_s(0, b, 4, "%d", 1234567);
    printf("too long %d %s errno %d\n", r, show(b, 5), err());
    wchar_t w[32];
    r = common_w(0, w, 32, L"%s|%S|%d|%c", "narrow", L"wide", 42, L'z');
    printf(DLL "__stdio_common_vswprintf: C99: %d %s\n", r, wshow(w, wcslen(w)));
    r = common_w(0x4, w, 32, L"%s|%S", L"wide", "narrow");
    printf(DLL "__stdio_common_vswprintf: legacy wide specifiers: %d %s\n", r, wshow(w, wcslen(w)));
    printf(DLL "__stdio_common_vfprintf: ");
    r = common_f(0, "%d %e", 7, 2.0);
    printf(" -> %d\n", r);
    printf(DLL "__stdio_common_vfprintf: the standard streams are " DLL "__acrt_iob_func: 0, 1, 2: %d %d %d\n",
           __acrt_iob_func(0) == stdin, __acrt_iob_func(1) == stdout, __acrt_iob_func(2) == stderr);
}

static void startup(void) {
    printf(DLL "__p___argc: %d; " DLL "__p___argv: argv[0] ends in ucrt %d\n", *__p___argc(),
           strstr((*__p___argv())[0], "ucrt") != NULL);
    wchar_t **wargv = *__p___wargv();
    printf(DLL "__p___wargv: %d entries, the same as narrow %d\n", wargv && wargv[0] && !wargv[1],
           wargv && wargv[0] && wcslen(wargv[0]) == strlen((*__p___argv())[0]));
    char **env = *__p__environ();
    wchar_t **wenv = *__p__wenviron(); /* NULL until _initialize_wide_environment */
    int n = 0, wn = 0;
    while (env && env[n]) n++;
    while (wenv && wenv[wn]) wn++;
    printf(DLL "__p__environ: entries %d; " DLL "__p__wenviron: as many %d\n", n > 0, n == wn);
    char **ie = CRT_FN(char **(*)(void), _get_initial_narrow_environment)();
    wchar_t **iwe = CRT_FN(wchar_t **(*)(void), _get_initial_wide_environment)();
    printf(DLL "_get_initial_narrow_environment: %d; " DLL "_get_initial_wide_environment: %d\n", ie && ie[0] != NULL,
           iwe && iwe[0] != NULL);
    printf(DLL "_configure_narrow_argv: %d; " DLL "_configure_wide_argv: %d; " DLL "_initialize_narrow_environment: %d; "
               "_initialize_wide_environment: %d\n",
           CRT_FN(int (*)(int), _configure_narrow_argv)(1), CRT_FN(int (*)(int), _configure_wide_argv)(1),
           CRT_FN(int (*)(void), _initialize_narrow_environment)(), CRT_FN(int (*)(void), _initialize_wide_environment)());
    wenv = *__p__wenviron();
    wn = 0;
    while (wenv && wenv[wn]) wn++;
    printf(DLL "_initialize_wide_environment: then " DLL "__p__wenviron: as many as narrow %d\n", n == wn);
    char *cl = CRT_FN(char *(*)(void), _get_narrow_winmain_command_line)();
    wchar_t *wcl = CRT_FN(wchar_t * (*)(void), _get_wide_winmain_command_line)();
    printf(DLL "_get_narrow_winmain_command_line: \"%s\"; " DLL "_get_wide_winmain_command_line: %u characters\n", cl,
           (unsigned)wcslen(wcl));
    printf(DLL "__p__acmdln: contains ucrt %d; " DLL "__p__wcmdln: %d\n", strstr(*__p__acmdln(), "ucrt") != NULL,
           wcslen(*CRT_FN(wchar_t **(*)(void), __p__wcmdln)()) > 0);
    int m = -1;
    _get_fmode(&m);
    printf(DLL "_get_fmode: %X; ", m);
    mark();
    int r = _set_fmode(0x8000);
    _get_fmode(&m);
    printf(DLL "_set_fmode: %d, then %X; ", r, m);
    _set_invalid_parameter_handler(quiet);
    r = _set_fmode(0x1234);
    printf("0x1234 %d errno %d; ", r, err());
    _set_fmode(0x4000);
    printf(DLL "__p__fmode: %X; " DLL "__p__commode: %X\n", *__p__fmode(), *__p__commode());
    printf(DLL "_configthreadlocale: query %d, enable was %d, now %d, disable was %d; ", _configthreadlocale(0),
           _configthreadlocale(_ENABLE_PER_THREAD_LOCALE), _configthreadlocale(-1),
           _configthreadlocale(_DISABLE_PER_THREAD_LOCALE));
    mark();
    r = _configthreadlocale(7);
    printf("7: %d errno %d\n", r, err());
    printf(DLL "_seh_filter_exe: %d; " DLL "_seh_filter_dll: %d\n",
           CRT_FN(int (*)(unsigned long, void *), _seh_filter_exe)(0xC0000005, NULL),
           CRT_FN(int (*)(unsigned long, void *), _seh_filter_dll)(0xC0000005, NULL));
    CRT_FN(void (*)(int), _set_app_type)(1);
    printf(DLL "_set_app_type: console\n");
}

static void tables(void) {
    onexit_table t = {0};
    int r0 = CRT_FN(int (*)(onexit_table *), _initialize_onexit_table)(&t);
    int r1 = CRT_FN(int (*)(onexit_table *, void (*)(void)), _register_onexit_function)(&t, on1);
    int r2 = CRT_FN(int (*)(onexit_table *, void (*)(void)), _register_onexit_function)(&t, on2);
    printf(DLL "_initialize_onexit_table: %d; " DLL "_register_onexit_function: %d %d, 2 entries %d\n", r0, r1, r2,
           t.last - t.first == 2);
    norder = 0;
    int r3 = CRT_FN(int (*)(onexit_table *), _execute_onexit_table)(&t);
    printf(DLL "_execute_onexit_table: %d, ran %d then %d, the table empty %d\n", r3, order[0], order[1],
           t.first == t.last);
    typedef int (*pifv)(void);
    static pifv list_ok[] = {ok0, NULL, ok0}, list_fail[] = {ok0, fail5, never};
    int (*initterm_e)(pifv *, pifv *) = CRT_FN(int (*)(pifv *, pifv *), _initterm_e);
    printf(DLL "_initterm_e: all 0 %d; the first non-zero %d\n", initterm_e(list_ok, list_ok + 3),
           initterm_e(list_fail, list_fail + 3));
    printf(DLL "_crt_atexit: %d; " DLL "_crt_at_quick_exit: %d\n", CRT_FN(int (*)(void (*)(void)), _crt_atexit)(NULL) == 0,
           CRT_FN(int (*)(void (*)(void)), _crt_at_quick_exit)(on1));
}

static void handlers(void) {
    int old = _set_new_mode(1);
    printf(DLL "_set_new_mode: was %d; " DLL "_query_new_mode: %d; ", old, _query_new_mode());
    _set_new_mode(0);
    mark();
    int r = _set_new_mode(3);
    printf("3: %d errno %d\n", r, err());
    new_handler_fn prev = _set_new_handler(new_handler);
    printf(DLL "_set_new_handler: the first one NULL %d\n", prev == NULL);
    int before = newh_calls;
    r = _callnewh(41);
    printf(DLL "_callnewh: the handler's result %d, %d call; " DLL "_query_new_handler: the one set %d\n", r,
           newh_calls - before, _query_new_handler() == new_handler);
    _set_new_handler(prev);
    printf(DLL "_callnewh: no handler %d\n", _callnewh(1));
    terminate_fn tf = set_terminate(on_terminate);
    printf(DLL "set_terminate: first NULL %d; " DLL "_get_terminate: the one set %d\n", tf == NULL,
           CRT_FN(terminate_fn(*)(void), _get_terminate)() == on_terminate);
    printf(DLL "__sys_nerr: %d; " DLL "__sys_errlist: [2] %s\n", *CRT_FN(int *(*)(void), __sys_nerr)(),
           CRT_FN(char **(*)(void), __sys_errlist)()[2]);
}

typedef int (*vfwprintf_fn)(unsigned long long, FILE *, const wchar_t *, _locale_t, va_list);
typedef int (*vsnwprintf_s_fn)(unsigned long long, wchar_t *, size_t, size_t, const wchar_t *, _locale_t, va_list);
static int common_fs(unsigned long long opts, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vfprintf_fn, __stdio_common_vfprintf_s)(opts, stdout, f, NULL, ap);
    va_end(ap);
    return r;
}
static int common_fw(const char *name, unsigned long long opts, const wchar_t *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = ((vfwprintf_fn)(void (*)(void))crt_fn(name))(opts, stdout, f, NULL, ap);
    va_end(ap);
    return r;
}
static int common_ws(const char *name, unsigned long long opts, wchar_t *b, size_t n, const wchar_t *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = ((vswprintf_fn)(void (*)(void))crt_fn(name))(opts, b, n, f, NULL, ap);
    va_end(ap);
    return r;
}
static int common_wns(unsigned long long opts, wchar_t *b, size_t n, size_t count, const wchar_t *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vsnwprintf_s_fn, __stdio_common_vsnwprintf_s)(opts, b, n, count, f, NULL, ap);
    va_end(ap);
    return r;
}
static int init_ran;
static void init_a(void) { init_ran += 1; }
static void init_b(void) { init_ran += 10; }
static void on_quick(void) { printf(DLL "quick_exit: the _crt_at_quick_exit function ran\n"); }
static void on_cexit(void) { printf(DLL "_cexit: the atexit function ran\n"); }
static void counting(const wchar_t *e, const wchar_t *f, const wchar_t *fi, unsigned l, uintptr_t r) {
    (void)e, (void)f, (void)fi, (void)l, (void)r;
    printf(DLL "_invalid_parameter_noinfo_noreturn: the handler ran\n");
    fflush(stdout);
}
static int iph_calls;
static void count_iph(const wchar_t *e, const wchar_t *f, const wchar_t *fi, unsigned l, uintptr_t r) {
    (void)e, (void)f, (void)fi, (void)l, (void)r;
    iph_calls++;
}

/* the rest of the UCRT's entry points mingw-w64's programs reach */
static void more(void) {
    /* the printf entry points' other forms */
    printf(DLL "__stdio_common_vfprintf_s: ");
    int r = common_fs(0, "%d|%s", 5, "x");
    printf(" -> %d\n", r);
    printf(DLL "__stdio_common_vfwprintf: ");
    r = common_fw("__stdio_common_vfwprintf", 0, L"%d|%s|%ls", 6, "narrow", L"wide");
    printf(" -> %d; ", r);
    printf(DLL "__stdio_common_vfwprintf_s: ");
    r = common_fw("__stdio_common_vfwprintf_s", 0, L"%d", 7);
    printf(" -> %d\n", r);
    wchar_t w[16];
    wmemset(w, L'~', 16);
    r = common_ws("__stdio_common_vswprintf_s", 0, w, 8, L"%d", 1234);
    printf(DLL "__stdio_common_vswprintf_s: %d %s; ", r, wshow(w, 6));
    wmemset(w, L'~', 16);
    mark();
    r = common_ws("__stdio_common_vswprintf_s", 0, w, 4, L"%d", 123456);
    printf("too long %d %s errno %d\n", r, wshow(w, 5), err());
    wmemset(w, L'~', 16);
    r = common_wns(0, w, 8, 3, L"abcdef");
    printf(DLL "__stdio_common_vsnwprintf_s: count 3 %d %s; ", r, wshow(w, 5));
    wmemset(w, L'~', 16);
    r = common_wns(0, w, 4, _TRUNCATE, L"abcdef");
    printf("_TRUNCATE %d %s\n", r, wshow(w, 5));
    /* start-up helpers */
    void (*table[])(void) = {init_a, NULL, init_b};
    CRT_FN(void (*)(void (**)(void), void (**)(void)), _initterm)(table, table + 3);
    printf(DLL "_initterm: ran the entries, skipped NULL: %d\n", init_ran);
    printf(DLL "_errno: the cell errno names %d\n", CRT_FN(int *(*)(void), _errno)() == &errno);
    CRT_FN(void (*)(void *), __setusermatherr)(NULL);
    printf(DLL "__setusermatherr: NULL accepted\n");
    CRT_FN(void (*)(void *), _register_thread_local_exe_atexit_callback)(NULL);
    printf(DLL "_register_thread_local_exe_atexit_callback: accepted\n");
    printf(DLL "_seh_filter_dll: an access violation %d\n",
           CRT_FN(int (*)(unsigned long, void *), _seh_filter_dll)(0xC0000005, NULL));
    /* the invalid-parameter entry points */
    _invalid_parameter_handler prev = CRT_FN(_invalid_parameter_handler(*)(_invalid_parameter_handler),
                                             _set_thread_local_invalid_parameter_handler)(count_iph);
    int before = iph_calls;
    mark();
    CRT_FN(void (*)(void), _invalid_parameter_noinfo)();
    printf(DLL "_set_thread_local_invalid_parameter_handler: was NULL %d; " DLL
               "_invalid_parameter_noinfo: the handler ran %d time, errno %d; " DLL
               "_get_thread_local_invalid_parameter_handler: the one set %d\n",
           prev == NULL, iph_calls - before, err(),
           CRT_FN(_invalid_parameter_handler(*)(void), _get_thread_local_invalid_parameter_handler)() == count_iph);
    CRT_FN(_invalid_parameter_handler(*)(_invalid_parameter_handler), _set_thread_local_invalid_parameter_handler)(prev);
    /* the heap */
    char *m = CRT_FN(void *(*)(size_t), malloc)(24);
    printf(DLL "malloc: 24 bytes, 16-aligned %d; ", m && ((uintptr_t)m & 15) == 0);
    int *z = CRT_FN(void *(*)(size_t, size_t), calloc)(4, sizeof(int));
    printf(DLL "calloc: zeroed %d; ", z && !z[0] && !z[3]);
    strcpy(m, "kept");
    m = CRT_FN(void *(*)(void *, size_t), realloc)(m, 4000);
    printf(DLL "realloc: the contents kept %d; ", m && !strcmp(m, "kept"));
    CRT_FN(void (*)(void *), free)(m);
    CRT_FN(void (*)(void *), free)(z);
    CRT_FN(void (*)(void *), free)(NULL);
    printf(DLL "free: and free(NULL) return\n");
    /* output to the console's stream */
    CRT_FN(int (*)(const char *, FILE *), fputs)(DLL "fputs: a line\n", stdout);
    CRT_FN(int (*)(const char *), puts)(DLL "puts: a line and its newline");
    const char *fw = DLL "fwrite: 3 items of 1 byte: ";
    size_t nw = CRT_FN(size_t(*)(const void *, size_t, size_t, FILE *), fwrite)(fw, 1, strlen(fw), stdout);
    nw += CRT_FN(size_t(*)(const void *, size_t, size_t, FILE *), fwrite)("abc", 1, 3, stdout);
    printf(" (%u)\n", (unsigned)nw);
    printf(DLL "fputc: ");
    CRT_FN(int (*)(int, FILE *), fputc)('x', stdout);
    printf("; " DLL "putchar: ");
    CRT_FN(int (*)(int), putchar)('y');
    printf("\n");
    printf(DLL "_fileno: stdout %d; " DLL "fflush: %d; ", CRT_FN(int (*)(FILE *), _fileno)(stdout),
           CRT_FN(int (*)(FILE *), fflush)(stdout));
    r = CRT_FN(int (*)(int, int), _setmode)(1, 0x4000);
    printf(DLL "_setmode: stdout was text %d\n", r == 0x4000);
    /* C99's conversions */
    char *e;
    mark();
    long long ll = CRT_FN(long long (*)(const char *, char **, int), strtoll)("-9223372036854775809", &e, 10);
    printf(DLL "strtoll: %lld errno %d; ", ll, err());
    unsigned long long ull = CRT_FN(unsigned long long (*)(const char *, char **, int), strtoull)("0x1f", &e, 0);
    printf(DLL "strtoull: %llu; ", ull);
    ll = CRT_FN(long long (*)(const wchar_t *, wchar_t **, int), wcstoll)(L" -42", NULL, 10);
    printf(DLL "wcstoll: %lld; ", ll);
    ull = CRT_FN(unsigned long long (*)(const wchar_t *, wchar_t **, int), wcstoull)(L"18446744073709551615", NULL, 10);
    printf(DLL "wcstoull: %llu\n", ull);
    printf(DLL "atoll: %lld; " DLL "_wtoll: %lld; " DLL "llabs: %lld\n",
           CRT_FN(long long (*)(const char *), atoll)("123456789012"),
           CRT_FN(long long (*)(const wchar_t *), _wtoll)(L"-5"),
           CRT_FN(long long (*)(long long), llabs)(-9000000000LL));
    mark();
    float f = CRT_FN(float (*)(const wchar_t *, wchar_t **), wcstof)(L"1.5", NULL);
    float big = CRT_FN(float (*)(const wchar_t *, wchar_t **), wcstof)(L"1e39", NULL);
    unsigned fb, bb;
    memcpy(&fb, &f, 4);
    memcpy(&bb, &big, 4);
    printf(DLL "wcstof: 1.5 %08X; 1e39 %08X errno %d\n", fb, bb, err());
}

/* vcruntime140.dll's memory and string functions (what MSVC's programs import beside the UCRT) */
static void vcruntime(void) {
    HMODULE h = LoadLibraryA("vcruntime140.dll");
    if (!h) {
        printf("vcruntime140.dll: not loaded\n");
        return;
    }
#define VCR(type, name) ((type)(void (*)(void))GetProcAddress(h, #name))
    char buf[16] = "abcdefghij";
    char *r = VCR(void *(*)(void *, const void *, size_t), memcpy)(buf + 10, buf, 5);
    printf("vcruntime140.dll!memcpy: returns dst %d, %s\n", r == buf + 10, show(buf, 16));
    r = VCR(void *(*)(void *, const void *, size_t), memmove)(buf + 2, buf, 8);
    printf("vcruntime140.dll!memmove: overlapping returns dst %d, %s\n", r == buf + 2, show(buf, 16));
    r = VCR(void *(*)(void *, int, size_t), memset)(buf, 0x17A, 3);
    printf("vcruntime140.dll!memset: returns dst %d, %s\n", r == buf, show(buf, 16));
    int (*cmp)(const void *, const void *, size_t) = VCR(int (*)(const void *, const void *, size_t), memcmp);
    printf("vcruntime140.dll!memcmp: %d %d %d %d\n", cmp("abc", "abd", 3) < 0, cmp("abd", "abc", 3) > 0,
           cmp("abc", "abd", 2), cmp("\xff", "\x01", 1) > 0);
    const char *s = "hello world";
    void *(*mchr)(const void *, int, size_t) = VCR(void *(*)(const void *, int, size_t), memchr);
    printf("vcruntime140.dll!memchr: %d %d %d\n", (int)((char *)mchr(s, 'o', 11) - s), mchr(s, 'z', 11) == NULL,
           mchr(s, 'd', 10) == NULL);
    char *(*chr)(const char *, int) = VCR(char *(*)(const char *, int), strchr);
    char *(*rchr)(const char *, int) = VCR(char *(*)(const char *, int), strrchr);
    char *(*str)(const char *, const char *) = VCR(char *(*)(const char *, const char *), strstr);
    printf("vcruntime140.dll!strchr: %d %d %d\n", (int)(chr(s, 'o') - s), chr(s, 'z') == NULL, (int)(chr(s, 0) - s));
    printf("vcruntime140.dll!strrchr: %d %d %d\n", (int)(rchr(s, 'o') - s), rchr(s, 'z') == NULL, (int)(rchr(s, 0) - s));
    printf("vcruntime140.dll!strstr: %d %d %d\n", (int)(str(s, "wor") - s), str(s, "xyz") == NULL, (int)(str(s, "") - s));
    const wchar_t *w = L"hello world";
    wchar_t *(*wchr)(const wchar_t *, wchar_t) = VCR(wchar_t *(*)(const wchar_t *, wchar_t), wcschr);
    wchar_t *(*wrchr)(const wchar_t *, wchar_t) = VCR(wchar_t *(*)(const wchar_t *, wchar_t), wcsrchr);
    wchar_t *(*wstr)(const wchar_t *, const wchar_t *) = VCR(wchar_t *(*)(const wchar_t *, const wchar_t *), wcsstr);
    printf("vcruntime140.dll!wcschr: %d %d %d\n", (int)(wchr(w, L'o') - w), wchr(w, L'z') == NULL, (int)(wchr(w, 0) - w));
    printf("vcruntime140.dll!wcsrchr: %d %d %d\n", (int)(wrchr(w, L'o') - w), wrchr(w, L'z') == NULL,
           (int)(wrchr(w, 0) - w));
    printf("vcruntime140.dll!wcsstr: %d %d %d\n", (int)(wstr(w, L"wor") - w), wstr(w, L"xyz") == NULL,
           (int)(wstr(w, L"") - w));
#undef VCR
}
#endif

int main(int argc, char **argv) {
#ifdef _UCRT
    if (argc > 1 && !strcmp(argv[1], "terminate")) {
        set_terminate(on_terminate);
        terminate();
    }
    if (argc > 1 && !strcmp(argv[1], "quick")) { /* quick_exit(5): the at_quick_exit function, not atexit's */
        atexit(on_cexit);
        CRT_FN(int (*)(void (*)(void)), _crt_at_quick_exit)(on_quick);
        CRT_FN(void (*)(int), quick_exit)(5);
    }
    if (argc > 1 && !strcmp(argv[1], "exit")) { /* _exit(6): no atexit function */
        atexit(on_cexit);
        CRT_FN(void (*)(int), _exit)(6);
    }
    if (argc > 1 && !strcmp(argv[1], "cexit")) { /* _cexit runs the atexit functions and returns */
        atexit(on_cexit);
        CRT_FN(void (*)(void), _cexit)();
        printf(DLL "_cexit: returned\n");
        fflush(stdout);
        CRT_FN(void (*)(int), _exit)(0);
    }
    if (argc > 1 && !strcmp(argv[1], "noreturn")) { /* the handler, then the end: 0xC0000417 */
        _set_invalid_parameter_handler(counting);
        CRT_FN(void (*)(void), _invalid_parameter_noinfo_noreturn)();
        printf(DLL "_invalid_parameter_noinfo_noreturn: returned\n");
    }
    printing();
    startup();
    tables();
    handlers();
    more();
    vcruntime();
#else
    (void)argc;
    (void)argv;
#endif
    printf("ucrt: done\n");
    return 0;
}
