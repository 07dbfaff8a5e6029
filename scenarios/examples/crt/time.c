/* time.c — the time functions on fixed times (UTC; hcpsim's time zone, and Wine's on a host in UTC):
 * gmtime, localtime, mktime's normalisation, _mkgmtime, strftime's conversions, asctime, ctime, the
 * time zone variables after _tzset, their limits and errno; the clock functions only by what holds
 * whatever the date (crt_test.h).  pe_crt.sh checks time()'s and clock()'s values in hcpsim from
 * the virtual clock. */
#include <sys/timeb.h>
#include <time.h>

#include "crt_test.h"

#ifndef _UCRT /* mingw-w64's msvcrt import library lacks these: the DLL's own exports */
#define _time32 CRT_FN(__time32_t(*)(__time32_t *), _time32)
#define _mktime32 CRT_FN(__time32_t(*)(struct tm *), _mktime32)
#define _ctime32 CRT_FN(char *(*)(const __time32_t *), _ctime32)
#endif

static void show_tm(const char *what, const struct tm *t) {
    if (!t) {
        printf(" %s NULL", what);
        return;
    }
    printf(" %s %d-%02d-%02d %02d:%02d:%02d wday %d yday %d dst %d", what, t->tm_year + 1900, t->tm_mon + 1, t->tm_mday,
           t->tm_hour, t->tm_min, t->tm_sec, t->tm_wday, t->tm_yday, t->tm_isdst);
}

int main(void) {
    __time64_t t64 = _time64(NULL), t64b;
    __time32_t t32 = _time32(NULL);
    _time64(&t64b);
    printf(DLL "_time64: after 2026-01-01 %d, the same through its pointer %d; " DLL "_time32: within a second %d\n",
           t64 >= 1767225600, t64b - t64 <= 1, t32 - t64 <= 1 && t64 - t32 <= 1);
    clock_t c0 = clock();
    printf(DLL "clock: not negative %d, below an hour %d\n", c0 >= 0, c0 < 3600000);
    printf(DLL "_difftime64: %.1f; " DLL "_difftime32: %.1f\n", _difftime64(100, 30), _difftime32(-5, 5));
    static const __time64_t fixed[] = {0, 951782400, 951868800, 1767225599, 2147483647, 2147483648LL, 32535215999LL};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        __time64_t t = fixed[i];
        printf(DLL "_gmtime64: %lld", (long long)t);
        show_tm("=", _gmtime64(&t));
        printf("\n" DLL "_localtime64: %lld", (long long)t);
        show_tm("=", _localtime64(&t));
        printf("\n");
    }
    __time64_t bad = -1, big = 32535216000LL;
    mark();
    struct tm *r = _gmtime64(&bad);
    printf(DLL "_gmtime64: -1 %s errno %d; ", r ? "a tm" : "NULL", err());
    mark();
    r = _gmtime64(&big);
    printf("past 3000 %s errno %d\n", r ? "a tm" : "NULL", err());
    __time32_t t32v = 86399;
    printf(DLL "_gmtime32:");
    show_tm("86399 =", _gmtime32(&t32v));
    printf("\n" DLL "_localtime32:");
    show_tm("86399 =", _localtime32(&t32v));
    printf("\n");
    struct tm tm;
    mark();
    int e = _gmtime64_s(&tm, &bad);
    printf(DLL "_gmtime64_s: -1 %d errno %d, fields %d %d\n", e, err(), tm.tm_year, tm.tm_mday);
    __time64_t ok = 86400 * 365;
    e = _gmtime64_s(&tm, &ok);
    printf(DLL "_gmtime64_s: %d", e);
    show_tm("=", &tm);
    printf("\n");
    e = _localtime64_s(&tm, &ok);
    printf(DLL "_localtime64_s: %d", e);
    show_tm("=", &tm);
    e = CRT_FN(int (*)(struct tm *, const __time32_t *), _localtime32_s)(&tm, &t32v);
    printf("; " DLL "_localtime32_s: %d\n", e);
    e = CRT_FN(int (*)(struct tm *, const __time32_t *), _gmtime32_s)(&tm, &t32v);
    printf(DLL "_gmtime32_s: %d", e);
    show_tm("=", &tm);
    printf("\n");
    /* mktime: normalisation */
    static const int in[][6] = {{2024, 1, 31, 0, 0, 0}, {2024, 0, 60, 12, 0, 0}, {2024, 14, 1, 0, 0, 0},
                                {2024, -1, 1, 0, 0, 0}, {2024, 2, 1, 25, 61, 61}, {2024, 2, 0, -1, 0, 0},
                                {1969, 12, 31, 23, 59, 59}, {1970, 0, 1, 0, 0, 0}, {2038, 0, 19, 3, 14, 8},
                                {3001, 0, 1, 0, 0, 0}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        memset(&tm, 0, sizeof tm);
        tm.tm_year = in[i][0] - 1900;
        tm.tm_mon = in[i][1];
        tm.tm_mday = in[i][2];
        tm.tm_hour = in[i][3];
        tm.tm_min = in[i][4];
        tm.tm_sec = in[i][5];
        tm.tm_isdst = -1;
        struct tm copy = tm;
        mark();
        __time64_t m = _mktime64(&tm);
        int em = err();
        printf(DLL "_mktime64: %d/%d/%d %d:%d:%d = %lld errno %d", in[i][0], in[i][1], in[i][2], in[i][3], in[i][4],
               in[i][5], (long long)m, em);
        show_tm("->", &tm);
        mark();
        __time64_t g = _mkgmtime64(&copy);
        printf("; " DLL "_mkgmtime64: %lld errno %d\n", (long long)g, err());
    }
    memset(&tm, 0, sizeof tm);
    tm.tm_year = 138;
    tm.tm_mon = 0;
    tm.tm_mday = 20;
    mark();
    __time32_t m32 = _mktime32(&tm);
    printf(DLL "_mktime32: 2038-01-20 %ld errno %d; ", (long)m32, err());
    tm.tm_year = 100;
    m32 = CRT_FN(__time32_t(*)(struct tm *), _mkgmtime32)(&tm);
    printf(DLL "_mkgmtime32: 2000-01-20 %ld\n", (long)m32);
    /* strftime */
    memset(&tm, 0, sizeof tm);
    tm.tm_year = 124;
    tm.tm_mon = 1;
    tm.tm_mday = 29;
    tm.tm_hour = 13;
    tm.tm_min = 5;
    tm.tm_sec = 9;
    tm.tm_wday = 4;
    tm.tm_yday = 59;
    char b[128];
    static const char *const fmts[] = {"%a %A %b %B", "%c", "%#c", "%x", "%#x", "%X", "%d %H %I %j %m %M %p %S",
                                       "%#d %#H %#I %#j %#m %#M %#S", "%U %W %w %y %Y %#y %#Y", "%%", "%Z",
                                       "%z", "text only", "%C %D %e %F %g %G %h %n %r %R %t %T %u %V"};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        memset(b, '~', sizeof b);
        mark();
        size_t n = strftime(b, sizeof b, fmts[i], &tm);
        printf(DLL "strftime: \"%s\" = %u \"%s\" errno %d\n", fmts[i], (unsigned)n, show(b, n ? n : 1), err());
    }
    mark();
    size_t n = strftime(b, 5, "%A", &tm);
    printf(DLL "strftime: no room %u \"%s\" errno %d; ", (unsigned)n, show(b, 1), err());
    mark();
    n = strftime(b, sizeof b, "%Q", &tm);
    printf("unknown %%Q %u \"%s\" errno %d; ", (unsigned)n, show(b, 1), err());
    tm.tm_mon = 12;
    mark();
    n = strftime(b, sizeof b, "%b", &tm);
    printf("month 12 %u errno %d\n", (unsigned)n, err());
    tm.tm_mon = 1;
    wchar_t w[64];
    n = wcsftime(w, 64, L"%Y-%m-%d %A", &tm);
    printf(DLL "wcsftime: %u \"%s\"\n", (unsigned)n, wshow(w, n));
    printf(DLL "asctime: %s", asctime(&tm));
    tm.tm_mday = 5;
    printf(DLL "asctime: day 5 %s", asctime(&tm));
    tm.tm_hour = 24;
    mark();
    char *a = asctime(&tm);
    printf(DLL "asctime: hour 24 %s errno %d\n", a ? "text" : "NULL", err());
    tm.tm_hour = 1;
    e = asctime_s(b, 26, &tm);
    printf(DLL "asctime_s: %d %s", e, b);
    mark();
    e = asctime_s(b, 25, &tm);
    printf(DLL "asctime_s: 25 bytes %d \"%s\" errno %d\n", e, show(b, 1), err());
    __time64_t tc = 1000000000;
    printf(DLL "_ctime64: %s", _ctime64(&tc));
    __time32_t tc32 = 1234567890;
    printf(DLL "_ctime32: %s", _ctime32(&tc32));
    e = _ctime64_s(b, 26, &tc);
    printf(DLL "_ctime64_s: %d %s", e, b);
    mark();
    e = _ctime64_s(b, 26, &bad);
    printf(DLL "_ctime64_s: -1 %d errno %d; ", e, err());
    e = _ctime32_s(b, 26, &tc32);
    printf(DLL "_ctime32_s: %d %s", e, b);
    _strdate(b);
    printf(DLL "_strdate: %u chars, slashes at 2 and 5 %d\n", (unsigned)strlen(b), b[2] == '/' && b[5] == '/');
    _strtime(b);
    printf(DLL "_strtime: %u chars, colons at 2 and 5 %d\n", (unsigned)strlen(b), b[2] == ':' && b[5] == ':');
    /* the time zone */
    CRT_FN(void (*)(void), _tzset)();
#ifdef _UCRT /* the UCRT's accessors (msvcrt.dll has the variables only) */
    long tzs = -1;
    int dl = -1;
    long dst = -1;
    _get_timezone(&tzs);
    _get_daylight(&dl);
    _get_dstbias(&dst);
    printf(DLL "_tzset: then " DLL "_get_timezone: %ld, " DLL "_get_daylight: %d, " DLL "_get_dstbias: %ld\n", tzs,
           dl, dst);
#else
    printf(DLL "_tzset: then _timezone %ld, _daylight %d\n", _timezone, _daylight);
#endif
    size_t len = 0;
    errno_t (*get_tzname)(size_t *, char *, size_t, int) = CRT_FN(errno_t(*)(size_t *, char *, size_t, int), _get_tzname);
    e = get_tzname(&len, b, sizeof b, 0);
    printf(DLL "_get_tzname: %d %u \"%s\"; ", e, (unsigned)len, b);
    mark();
    e = get_tzname(&len, NULL, 0, 1);
    printf("size only %d %u; ", e, (unsigned)len);
    e = get_tzname(&len, b, 2, 0);
    printf("too small %d; ", e);
    mark();
    e = get_tzname(&len, b, sizeof b, 2);
    printf("index 2 %d errno %d\n", e, err());
#ifndef _UCRT
    printf(DLL "_timezone: %ld; " DLL "_daylight: %d; " DLL "_dstbias: %ld; " DLL "_tzname: \"%s\"\n", _timezone,
           _daylight, _dstbias, _tzname[0]);
    /* msvcrt's functions without a size suffix (mingw-w64's headers call the _64 or _32 ones) */
#ifdef _WIN64
    typedef long long plain_t; /* msvcrt's time_t: 64 bits on x86-64, 32 on i386 */
#else
    typedef long plain_t;
#endif
    plain_t pt = 0, pt2 = CRT_FN(plain_t(*)(plain_t *), time)(&pt);
    printf(DLL "time: after 2026 %d, the same through its pointer %d\n", pt2 >= 1767225600, pt == pt2);
    pt = 86400 * 365 + 3600 * 5 + 7;
    struct tm *(*gm)(const plain_t *) = CRT_FN(struct tm * (*)(const plain_t *), gmtime);
    struct tm *(*lt)(const plain_t *) = CRT_FN(struct tm * (*)(const plain_t *), localtime);
    show_tm(DLL "gmtime:", gm(&pt));
    show_tm("; " DLL "localtime:", lt(&pt));
    printf("\n");
    struct tm in1 = {7, 0, 5, 1, 0, 71, 0, 0, -1};
    plain_t mk = CRT_FN(plain_t(*)(struct tm *), mktime)(&in1);
    struct tm in2 = {7, 0, 5, 1, 0, 71, 0, 0, 0};
    plain_t mg = CRT_FN(plain_t(*)(struct tm *), _mkgmtime)(&in2);
    printf(DLL "mktime: %ld; " DLL "_mkgmtime: %ld; " DLL "difftime: %.1f\n", (long)mk, (long)mg,
           CRT_FN(double (*)(plain_t, plain_t), difftime)(mk, 7));
    printf(DLL "ctime: %s", CRT_FN(char *(*)(const plain_t *), ctime)(&pt));
    struct {
        plain_t time;
        unsigned short millitm;
        short timezone, dstflag;
    } ftb;
    CRT_FN(void (*)(void *), _ftime)(&ftb);
    printf(DLL "_ftime: after 2026 %d, ms below 1000 %d, timezone %d\n", ftb.time >= 1767225600, ftb.millitm < 1000,
           ftb.timezone);
#else
    printf(DLL "__timezone: %ld; " DLL "__daylight: %d; " DLL "__dstbias: %ld; " DLL "__tzname: \"%s\"\n",
           *__timezone(), *__daylight(), *__dstbias(), __tzname()[0]);
#endif
    struct __timeb64 tb;
    _ftime64(&tb);
    printf(DLL "_ftime64: after 2026 %d, ms below 1000 %d, timezone %d, dstflag %d\n", tb.time >= 1767225600,
           tb.millitm < 1000, tb.timezone, tb.dstflag);
    struct __timeb32 tb32;
    _ftime32(&tb32);
    printf(DLL "_ftime32: the same second %d\n", tb32.time - tb.time <= 1);
    printf("time: done\n");
    return 0;
}
