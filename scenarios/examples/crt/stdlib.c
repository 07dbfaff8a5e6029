/* stdlib.c — conversions between strings and numbers (with errno and the end pointer), the _itoa
 * family and its _s forms, abs and div, rand's sequence, qsort and bsearch (every comparison logged,
 * so their order is checked, and where equal elements end), errno's messages (crt_test.h). */
#include <search.h>

#include "crt_test.h"

#define END(e, s) ((long)((e) - (s)))

static void integers(void) {
    static const char *const in[] = {"  -123abc", "+42", "0x1F", "017", "0", "   ", "x", "2147483647", "2147483648",
                                     "-2147483649", "4294967295", "4294967296", "-1", "-4294967295", "-4294967296",
                                     "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                                     "18446744073709551616", "zz", "1e5", "\t\n\v\f\r 7"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        const char *s = in[i];
        char *e;
        mark();
        long l = strtol(s, &e, 0);
        int el = err();
        long endl = END(e, s);
        mark();
        unsigned long ul = strtoul(s, &e, 0);
        int eu = err();
        long endu = END(e, s);
        mark();
        long long ll = _strtoi64(s, &e, 0);
        int e6 = err();
        long end6 = END(e, s);
        mark();
        unsigned long long ull = _strtoui64(s, &e, 0);
        printf(DLL "strtol: \"%s\" = %ld end %ld errno %d; " DLL "strtoul: %lu end %ld errno %d\n", show(s, strlen(s)), l, endl,
               el, ul, endu, eu);
        printf(DLL "_strtoi64: \"%s\" = %lld end %ld errno %d; " DLL "_strtoui64: %llu end %ld errno %d\n", show(s, strlen(s)),
               ll, end6, e6, ull, END(e, s), err());
    }
    char *e;
    printf(DLL "strtol: base 36 \"zZ\" %ld, base 2 \"1012\" %ld, base 16 \"0xg\" %ld\n", strtol("zZ", NULL, 36),
           strtol("1012", NULL, 2), strtol("0xg", &e, 16));
    printf(DLL "strtol: base 16 \"0xg\" ends at %ld\n", END(e, "0xg"));
    mark();
    long r = strtol("12", &e, 1);
    printf(DLL "strtol: base 1 %ld errno %d; base 37 %ld\n", r, err(), strtol("12", NULL, 37));
    printf(DLL "atoi: %d %d %d %d %d\n", atoi(" -12x"), atoi("+7"), atoi("2147483648"), atoi("-2147483649"), atoi("x"));
    printf(DLL "atol: %ld; " DLL "_atoi64: %lld %lld\n", atol("123"), _atoi64("-9223372036854775808"),
           _atoi64("99999999999999999999"));
    const wchar_t *ws = L" \x3000-0x1F";
    wchar_t *we;
    mark();
    long wl = wcstol(ws, &we, 0);
    printf(DLL "wcstol: ideographic space, -0x1F = %ld end %ld errno %d\n", wl, (long)(we - ws), err());
    printf(DLL "wcstol: fullwidth digits %ld; Arabic-Indic %ld\n", wcstol(L"\xFF11\xFF12", NULL, 10),
           wcstol(L"\x0663\x0664", NULL, 10));
    printf(DLL "wcstoul: %lu; " DLL "_wcstoi64: %lld; " DLL "_wcstoui64: %llu\n", wcstoul(L"-1", NULL, 10),
           _wcstoi64(L"-9223372036854775809", NULL, 10), _wcstoui64(L"0x10", NULL, 0));
    printf(DLL "_wtoi: %d; " DLL "_wtol: %ld; " DLL "_wtoi64: %lld\n", _wtoi(L" 42x"), _wtol(L"-7"), _wtoi64(L"12345678901"));
}

static void floats(void) {
    static const char *const in[] = {"1.5",      "  -0.25e2x", "1d3",      "1D-2",      ".5",       "5.",
                                     "1e",       "1e+",        "e5",       ".",         "-.e1",     "0x1p3",
                                     "inf",      "-Infinity",  "nan",      "NaN(123)", "1e308",    "1e309",
                                     "-1e400",   "1e-320",     "1e-400",   "4.9e-324",  "2.4703282292062327e-324",
                                     "0.1",      "123456789012345678901234567890", "  +0.0", "-0", "0x1.8p1"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        const char *s = in[i];
        char *e;
        mark();
        double d = strtod(s, &e);
        printf(DLL "strtod: \"%s\" = %016llX end %ld errno %d\n", s, dbits(d), END(e, s), err());
    }
    mark();
    double d = atof("  2.5e1z");
    printf(DLL "atof: %016llX errno %d; NULL end %016llX\n", dbits(d), err(), dbits(strtod("7", NULL)));
    const wchar_t *ws = L" -1.25d1 ";
    wchar_t *we;
    d = wcstod(ws, &we);
    printf(DLL "wcstod: %016llX end %ld; " DLL "_wtof: %016llX\n", dbits(d), (long)(we - ws), dbits(_wtof(L"3.5")));
#ifdef _UCRT
    float (*xstrtof)(const char *, char **) = CRT_FN(float (*)(const char *, char **), strtof);
    char *e;
    mark();
    float f = xstrtof("1e39", &e);
    unsigned u;
    memcpy(&u, &f, 4);
    printf(DLL "strtof: 1e39 %08X errno %d; ", u, err());
    f = xstrtof("0.1", NULL);
    memcpy(&u, &f, 4);
    printf("0.1 %08X\n", u);
#endif
}

typedef int (*ltoa_s_fn)(long, char *, size_t, int);
typedef int (*ltow_s_fn)(long, wchar_t *, size_t, int);
static void to_text(void) {
    ltoa_s_fn _ltoa_s = CRT_FN(ltoa_s_fn, _ltoa_s);
    ltow_s_fn _ltow_s = CRT_FN(ltow_s_fn, _ltow_s);
    char b[72];
    wchar_t w[72];
    printf(DLL "_itoa: %s %s %s %s\n", _itoa(-123, b, 10), _itoa(-1, b + 20, 16), _itoa(255, b + 40, 2),
           _itoa(35, b + 60, 36));
    printf(DLL "_ltoa: %s; " DLL "_ultoa: %s %s\n", _ltoa(-2147483647L - 1, b, 10), _ultoa(4294967295UL, b + 20, 10),
           _ultoa(8, b + 40, 8));
    printf(DLL "_i64toa: %s %s; " DLL "_ui64toa: %s\n", _i64toa(-9223372036854775807LL - 1, b, 10),
           _i64toa(-1, b + 30, 16), _ui64toa(18446744073709551615ULL, b + 50, 10));
    _itow(-45, w, 10);
    printf(DLL "_itow: %s; ", wshow(w, 4));
    _ltow(255, w, 16);
    printf(DLL "_ltow: %s; ", wshow(w, 3));
    _ultow(7, w, 2);
    printf(DLL "_ultow: %s; ", wshow(w, 4));
    _i64tow(-5, w, 10);
    printf(DLL "_i64tow: %s; ", wshow(w, 3));
    _ui64tow(36, w, 36);
    printf(DLL "_ui64tow: %s\n", wshow(w, 3));
    memset(b, '~', sizeof b);
    mark();
    int r = _itoa_s(-1234, b, 6, 10);
    printf(DLL "_itoa_s: fits %d = %s errno %d\n", r, show(b, 7), err());
    memset(b, '~', sizeof b);
    mark();
    r = _itoa_s(-1234, b, 5, 10);
    printf(DLL "_itoa_s: too small %d = %s errno %d\n", r, show(b, 7), err());
    memset(b, '~', sizeof b);
    mark();
    r = _itoa_s(12345, b, 3, 10);
    printf(DLL "_itoa_s: too small %d = %s errno %d\n", r, show(b, 7), err());
    memset(b, '~', sizeof b);
    mark();
    r = _itoa_s(1, b, 8, 1);
    printf(DLL "_itoa_s: radix 1 %d = %s errno %d; NULL %d\n", r, show(b, 2), err(), _itoa_s(1, NULL, 8, 10));
    printf(DLL "_ltoa_s: %d %s; " DLL "_ultoa_s: %d %s\n", _ltoa_s(-9, b, 8, 10), b, _ultoa_s(4294967295UL, b + 10, 11, 10),
           b + 10);
    printf(DLL "_i64toa_s: %d %s; " DLL "_ui64toa_s: %d %s\n", _i64toa_s(-99, b, 8, 10), b, _ui64toa_s(255, b + 10, 3, 16),
           b + 10);
    r = _itow_s(77, w, 8, 10);
    printf(DLL "_itow_s: %d %s; ", r, wshow(w, 2));
    r = _ltow_s(-77, w, 8, 10);
    printf(DLL "_ltow_s: %d %s; ", r, wshow(w, 3));
    r = _ultow_s(77, w, 8, 16);
    printf(DLL "_ultow_s: %d %s; ", r, wshow(w, 2));
    r = _i64tow_s(-1, w, 8, 10);
    printf(DLL "_i64tow_s: %d %s; ", r, wshow(w, 2));
    r = _ui64tow_s(5, w, 2, 10);
    printf(DLL "_ui64tow_s: %d %s\n", r, wshow(w, 1));
}

static int ncmp;
static int log_cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (ncmp++ < 400) printf(" %d:%d", x, y);
    return x % 1000 - y % 1000;
}
static void *ctx_seen;
static int ctx_cmp(void *ctx, const void *a, const void *b) {
    ctx_seen = ctx;
    return *(const int *)a - *(const int *)b;
}
static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void sorting(void) {
    int t[9] = {9000, 8001, 7002, 6003, 1003, 5004, 4005, 3006, 2007};
    ncmp = 0;
    printf(DLL "qsort: comparisons");
    qsort(t, 9, sizeof t[0], log_cmp);
    printf("\n" DLL "qsort: %d comparisons, order", ncmp);
    for (int i = 0; i < 9; i++) printf(" %d", t[i]);
    printf("\n");
    int u[100];
    srand(0);
    for (int i = 0; i < 100; i++) u[i] = rand() % 1000 + 1000 * (i % 3);
    ncmp = 0;
    printf(DLL "qsort: 100 with equal keys:");
    qsort(u, 100, sizeof u[0], log_cmp);
    printf("\n" DLL "qsort: %d comparisons, order", ncmp);
    for (int i = 0; i < 100; i++) printf(" %d", u[i]);
    printf("\n");
    const char *words[] = {"pear", "apple", "fig", "kiwi", "banana", "cherry", "date", "lime", "plum", "grape", "melon"};
    qsort(words, 11, sizeof words[0], str_cmp);
    printf(DLL "qsort: strings");
    for (int i = 0; i < 11; i++) printf(" %s", words[i]);
    printf("\n");
    int v[5] = {3, 1, 2, 0, 4};
    int marker;
    qsort_s(v, 5, sizeof v[0], ctx_cmp, &marker);
    printf(DLL "qsort_s: %d %d %d %d %d, context passed %d\n", v[0], v[1], v[2], v[3], v[4], ctx_seen == &marker);
    mark();
    qsort(v, 5, 0, log_cmp);
    printf(DLL "qsort: size 0 errno %d; ", err());
    mark();
    qsort(NULL, 5, 4, log_cmp);
    printf("NULL base errno %d; ", err());
    mark();
    qsort(NULL, 0, 4, log_cmp);
    printf("NULL base, 0 elements errno %d\n", err());
    int sorted[10] = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19};
    int key = 13, missing = 8;
    ncmp = 0;
    printf(DLL "bsearch: comparisons");
    int *f = bsearch(&key, sorted, 10, sizeof sorted[0], log_cmp);
    int *g = bsearch(&missing, sorted, 10, sizeof sorted[0], log_cmp);
    printf("; found at %ld, missing %ld\n", f ? (long)(f - sorted) : -1L, g ? (long)(g - sorted) : -1L);
    key = 1;
    int *h = bsearch_s(&key, sorted, 10, sizeof sorted[0], ctx_cmp, &marker);
    printf(DLL "bsearch_s: %ld, context passed %d; empty %ld\n", h ? (long)(h - sorted) : -1L, ctx_seen == &marker,
           bsearch(&key, sorted, 0, 4, log_cmp) ? 1L : -1L);
}

static void arithmetic(void) {
    printf(DLL "abs: %d %d %d; " DLL "labs: %ld; " DLL "_abs64: %lld\n", abs(-5), abs(7), abs(-2147483647 - 1), labs(-9L),
           _abs64(-9223372036854775807LL - 1));
    div_t d = div(-7, 2);
    ldiv_t l = ldiv(7L, -2L);
    printf(DLL "div: -7/2 = %d r %d; " DLL "ldiv: 7/-2 = %ld r %ld\n", d.quot, d.rem, l.quot, l.rem);
    srand(1);
    printf(DLL "rand: seed 1");
    for (int i = 0; i < 6; i++) printf(" %d", rand());
    srand(12345);
    printf("; seed 12345");
    for (int i = 0; i < 3; i++) printf(" %d", rand());
    printf("\n" DLL "srand: seed 0 then");
    srand(0);
    for (int i = 0; i < 3; i++) printf(" %d", rand());
    printf("\n");
    printf(DLL "_rotl: %X %X; " DLL "_rotr: %X; " DLL "_lrotl: %lX; " DLL "_lrotr: %lX\n", _rotl(0x80000001u, 1), _rotl(1, 33),
           _rotr(1, 1), _lrotl(0x12345678ul, 8), _lrotr(0x12345678ul, 8));
    printf(DLL "_rotl64: %llX; " DLL "_rotr64: %llX\n", _rotl64(0x8000000000000001ull, 4), _rotr64(1, 1));
    char b[8] = "abcdef";
    _swab(b, b, 5);
    printf(DLL "_swab: %s\n", b);
}

static void errors(void) {
    printf(DLL "strerror:");
    for (int e = -1; e <= 45; e++) printf(" %d=%s|", e, strerror(e));
    printf("\n");
    printf(DLL "strerror: 80 %s\n", strerror(80));
    errno = 34;
    printf(DLL "_strerror: %s", _strerror("prefix"));
    errno = 2;
    printf(DLL "_strerror: %s", _strerror(NULL));
    char b[16];
    printf(DLL "strerror_s: %d %s; ", strerror_s(b, 8, 2), b);
    mark();
    int r = strerror_s(NULL, 8, 2);
    printf("NULL %d errno %d\n", r, err());
    wchar_t w[40];
    printf(DLL "_wcserror: %s; ", wshow(_wcserror(13), 17));
    r = _wcserror_s(w, 5, 22);
    printf(DLL "_wcserror_s: %d %s\n", r, wshow(w, 5));
    errno = 0;
    int got = -1;
    _set_errno(33);
    int now = errno;
    _get_errno(&got);
    printf(DLL "_set_errno: errno %d; " DLL "_get_errno: %d\n", now, got);
    char **volatile list = _sys_errlist;
#ifdef _UCRT /* the UCRT's _sys_nerr and _sys_errlist are its functions' results */
#define SYS_NERR "__sys_nerr"
#define SYS_ERRLIST "__sys_errlist"
#else
#define SYS_NERR "_sys_nerr"
#define SYS_ERRLIST "_sys_errlist"
#endif
    printf(DLL SYS_NERR ": %d; " DLL SYS_ERRLIST ": [12] %s\n", _sys_nerr, list[12]);
    *__doserrno() = 5;
    unsigned long de = 0;
    CRT_FN(int (*)(unsigned long *), _get_doserrno)(&de);
    printf(DLL "__doserrno: %lu; ", *__doserrno());
    int sr = CRT_FN(int (*)(unsigned long), _set_doserrno)(7);
    unsigned long de7 = 0;
    CRT_FN(int (*)(unsigned long *), _get_doserrno)(&de7);
    printf(DLL "_get_doserrno: %lu; " DLL "_set_doserrno: %d, then %lu\n", de, sr, de7);
    unsigned r1 = 0, r2 = 0;
    int e1 = CRT_FN(int (*)(unsigned *), rand_s)(&r1), e2 = CRT_FN(int (*)(unsigned *), rand_s)(&r2);
    printf(DLL "rand_s: %d %d, two values differ %d\n", e1, e2, r1 != r2);
}

int main(void) {
    integers();
    floats();
    to_text();
    sorting();
    arithmetic();
    errors();
    printf("stdlib: done\n");
    return 0;
}
