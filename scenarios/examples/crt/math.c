/* math.c — the runtime's math functions (crt_test.h).  Every function is called through the
 * DLL's export (mingw-w64 links its own sin, exp, pow ... otherwise).  Without an argument it
 * prints each function's results for special arguments (zeros, infinities, NaNs, domain and range
 * edges, exact cases) with errno, line by line comparable with Wine.  With the argument "values"
 * it prints, for thousands of arguments from a fixed pseudo-random sequence and known hard cases,
 * "name x [y] -> result" in hexadecimal bits, to be compared with correctly rounded values
 * computed at high precision (scenarios/tests/crt/math_ref.py). */
#include <float.h>
#include <math.h>

#include "crt_test.h"

typedef double (*f1)(double);
typedef double (*f2)(double, double);
typedef double (*fi)(double, int);
typedef double (*fl)(double, long);
typedef double (*fp)(double, void *);
typedef int (*if1)(double);
typedef long (*lf1)(double);
typedef long long (*llf1)(double);

static double of(unsigned long long b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
#define PINF 0x7FF0000000000000ull
#define NINF 0xFFF0000000000000ull
#define QNAN 0x7FF8000000000000ull
#define IND 0xFFF8000000000000ull

/* ---- special arguments ---- */

static const unsigned long long sp[] = {
    0,                     /* 0 */
    0x8000000000000000ull, /* -0 */
    0x3FF0000000000000ull, /* 1 */
    0xBFF0000000000000ull, /* -1 */
    0x3FE0000000000000ull, /* 0.5 */
    0x4000000000000000ull, /* 2 */
    0xC008000000000000ull, /* -3 */
    0x0000000000000001ull, /* the smallest denormal */
    0x0010000000000000ull, /* DBL_MIN */
    0x7FEFFFFFFFFFFFFFull, /* DBL_MAX */
    0xFFEFFFFFFFFFFFFFull, /* -DBL_MAX */
    PINF, NINF, QNAN, IND,
    0x7FF8000000000123ull, /* a NaN with a payload */
};
#define NSP (sizeof sp / sizeof sp[0])

static void one(const char *name) {
    f1 f = (f1)(void (*)(void))crt_fn(name);
    printf(DLL "%s:", name);
    for (size_t i = 0; i < NSP; i++) {
        mark();
        double r = f(of(sp[i]));
        printf(" %llX=%llX/%d", sp[i], dbits(r), err());
    }
    printf("\n");
}
static void two(const char *name) {
    f2 f = (f2)(void (*)(void))crt_fn(name);
    for (size_t i = 0; i < NSP; i++) {
        printf(DLL "%s: x %llX:", name, sp[i]);
        for (size_t j = 0; j < NSP; j++) {
            mark();
            double r = f(of(sp[i]), of(sp[j]));
            printf(" %llX=%llX/%d", sp[j], dbits(r), err());
        }
        printf("\n");
    }
}
static void pairs(const char *name, const double (*in)[2], size_t n) {
    f2 f = (f2)(void (*)(void))crt_fn(name);
    printf(DLL "%s:", name);
    for (size_t i = 0; i < n; i++) {
        mark();
        double r = f(in[i][0], in[i][1]);
        printf(" %.17g,%.17g=%llX/%d", in[i][0], in[i][1], dbits(r), err());
    }
    printf("\n");
}
static void singles(const char *name, const double *in, size_t n) {
    f1 f = (f1)(void (*)(void))crt_fn(name);
    printf(DLL "%s: edges", name);
    for (size_t i = 0; i < n; i++) {
        mark();
        double r = f(in[i]);
        printf(" %.17g=%llX/%d", in[i], dbits(r), err());
    }
    printf("\n");
}

static void specials(void) {
    static const char *const ones[] = {"sqrt",  "exp",      "log",      "log10",  "sin",    "cos",   "tan",
                                       "asin",  "acos",     "atan",     "sinh",   "cosh",   "tanh",  "floor",
                                       "ceil",  "fabs",     "_chgsign", "_logb"};
    for (size_t i = 0; i < sizeof ones / sizeof ones[0]; i++) one(ones[i]);
    static const char *const twos[] = {"pow", "atan2", "fmod", "_hypot", "_copysign", "_nextafter"};
    for (size_t i = 0; i < sizeof twos / sizeof twos[0]; i++) two(twos[i]);

    static const double e_exp[] = {709.78, 709.79, -708.3, -745.1, -745.2, -746, 1e-20, -1e-300};
    singles("exp", e_exp, sizeof e_exp / sizeof e_exp[0]);
    static const double e_log[] = {1e-310, 1.0000000000000002, 0.99999999999999989, 100, 1000, 1e23, 0.001};
    singles("log", e_log, sizeof e_log / sizeof e_log[0]);
    singles("log10", e_log, sizeof e_log / sizeof e_log[0]);
    static const double e_hyp[] = {710.4, 710.5, -711, 1e-300, 22, 23, -0.3};
    singles("sinh", e_hyp, sizeof e_hyp / sizeof e_hyp[0]);
    singles("cosh", e_hyp, sizeof e_hyp / sizeof e_hyp[0]);
    singles("tanh", e_hyp, sizeof e_hyp / sizeof e_hyp[0]);
    static const double e_trig[] = {1e22, 1e300, 0x1p1023, 3.141592653589793, 1.5707963267948966, 1e-300};
    singles("sin", e_trig, sizeof e_trig / sizeof e_trig[0]);
    singles("cos", e_trig, sizeof e_trig / sizeof e_trig[0]);
    singles("tan", e_trig, sizeof e_trig / sizeof e_trig[0]);
    static const double e_inv[] = {1.0000000000000002, -1.0000000000000002, 0.5, -0.5, 1e-300};
    singles("asin", e_inv, sizeof e_inv / sizeof e_inv[0]);
    singles("acos", e_inv, sizeof e_inv / sizeof e_inv[0]);
    static const double e_round[] = {2.5, -2.5, 0.49999999999999994, -0.5, 4503599627370495.5, 1e300, -1e-300};
    singles("floor", e_round, sizeof e_round / sizeof e_round[0]);
    singles("ceil", e_round, sizeof e_round / sizeof e_round[0]);

    static const double p_pow[][2] = {{2, 10},   {10, 2},     {-2, 3},     {-2, 0.5}, {2, 1024}, {2, -1075},
                                      {2, -1074}, {-8, 1.0 / 3}, {0.5, -1100}, {-0.0, -3}, {-0.0, -2}, {1e300, 2},
                                      {9, 0.5},  {134217727, 2}, {262143, 3}, {-1, 1e300}, {1.0000001, 1e10}};
    pairs("pow", p_pow, sizeof p_pow / sizeof p_pow[0]);
    static const double p_fmod[][2] = {{5.5, 2},  {-5.5, 2}, {5.5, -2}, {1e300, 3},   {3, 1e300},
                                       {6, 3},    {-6, 3},   {0x1p-1074, 0x1p-1073}, {7, 0.1}};
    pairs("fmod", p_fmod, sizeof p_fmod / sizeof p_fmod[0]);
    static const double p_atan2[][2] = {{1, 1}, {1, -1}, {-1, -1}, {1e300, 1e-300}, {1e-300, 1e300}, {1e-300, -1e300}, {3, 4}};
    pairs("atan2", p_atan2, sizeof p_atan2 / sizeof p_atan2[0]);
    static const double p_hypot[][2] = {{3, 4}, {1e308, 1e308}, {1e-320, 1e-320}, {5e-324, 0}, {1e200, 1e-200}};
    pairs("_hypot", p_hypot, sizeof p_hypot / sizeof p_hypot[0]);

    /* frexp, modf, ldexp, _scalb, _finite, _isnan, _fpclass */
    fp frexp_ = (fp)(void (*)(void))crt_fn("frexp");
    printf(DLL "frexp:");
    for (size_t i = 0; i < NSP; i++) {
        int e = 77;
        mark();
        double r = frexp_(of(sp[i]), &e);
        printf(" %llX=%llX,%d/%d", sp[i], dbits(r), e, err());
    }
    printf("\n");
    fp modf_ = (fp)(void (*)(void))crt_fn("modf");
    static const double m_in[] = {2.75, -2.75, 5, -5, 0.25, 1e300, -1e-300};
    printf(DLL "modf:");
    for (size_t i = 0; i < NSP + 7; i++) {
        double ip = 77, x = i < NSP ? of(sp[i]) : m_in[i - NSP];
        mark();
        double r = modf_(x, &ip);
        printf(" %llX=%llX,%llX/%d", dbits(x), dbits(r), dbits(ip), err());
    }
    printf("\n");
    fi ldexp_ = (fi)(void (*)(void))crt_fn("ldexp");
    fl scalb_ = (fl)(void (*)(void))crt_fn("_scalb");
    static const struct {
        double x;
        int n;
    } l_in[] = {{1, 1023}, {1, 1024}, {1, -1074}, {1, -1075}, {1.5, -1074}, {3, -1075}, {-1, 2000}, {0x1p-1074, 1074},
                {0x1.8p-1070, -4}, {0x1.4p-1070, -4}, {0, 5000}};
    printf(DLL "ldexp:");
    for (size_t i = 0; i < sizeof l_in / sizeof l_in[0]; i++) {
        mark();
        double r = ldexp_(l_in[i].x, l_in[i].n);
        printf(" %.17g,%d=%llX/%d", l_in[i].x, l_in[i].n, dbits(r), err());
    }
    printf("\n");
    printf(DLL "_scalb:");
    for (size_t i = 0; i < sizeof l_in / sizeof l_in[0]; i++) {
        mark();
        double r = scalb_(l_in[i].x, l_in[i].n);
        printf(" %.17g,%d=%llX/%d", l_in[i].x, l_in[i].n, dbits(r), err());
    }
    printf("\n");
    if1 fin = (if1)(void (*)(void))crt_fn("_finite"), isn = (if1)(void (*)(void))crt_fn("_isnan"),
        cls = (if1)(void (*)(void))crt_fn("_fpclass");
    printf(DLL "_finite: " DLL "_isnan: " DLL "_fpclass: (x=each)");
    for (size_t i = 0; i < NSP; i++) printf(" %llX=%d,%d,%X", sp[i], fin(of(sp[i])), isn(of(sp[i])), cls(of(sp[i])));
    printf(" sNaN=%d,%d,%X\n", fin(of(0x7FF0000000000001ull)), isn(of(0x7FF0000000000001ull)),
           cls(of(0x7FF0000000000001ull)));

#ifdef _UCRT
    static const char *const uones[] = {"cbrt",  "exp2", "log2",  "expm1",     "log1p", "asinh", "acosh",
                                        "atanh", "round", "trunc", "rint",     "nearbyint", "logb"};
    for (size_t i = 0; i < sizeof uones / sizeof uones[0]; i++) one(uones[i]);
    static const char *const utwos[] = {"remainder", "fmin", "fmax", "fdim", "copysign", "nextafter", "hypot"};
    for (size_t i = 0; i < sizeof utwos / sizeof utwos[0]; i++) two(utwos[i]);
    singles("round", e_round, sizeof e_round / sizeof e_round[0]);
    singles("trunc", e_round, sizeof e_round / sizeof e_round[0]);
    singles("rint", e_round, sizeof e_round / sizeof e_round[0]);
    static const double p_rem[][2] = {{5.5, 2}, {-5.5, 2}, {6.5, 2}, {7.5, 2}, {5, 2}, {7, 2}, {1e300, 3}, {3, 1e300}};
    pairs("remainder", p_rem, sizeof p_rem / sizeof p_rem[0]);
    lf1 lround_ = (lf1)(void (*)(void))crt_fn("lround"), lrint_ = (lf1)(void (*)(void))crt_fn("lrint");
    llf1 llround_ = (llf1)(void (*)(void))crt_fn("llround"), llrint_ = (llf1)(void (*)(void))crt_fn("llrint");
    if1 ilogb_ = (if1)(void (*)(void))crt_fn("ilogb"), dclass = (if1)(void (*)(void))crt_fn("_dclass"),
        dsign = (if1)(void (*)(void))crt_fn("_dsign");
    static const double r_in[] = {2.5, -2.5, 3.5, 2147483647.4, 2147483648.0, -2147483648.6, 1e19, 0.49999999999999994};
    printf(DLL "lround: " DLL "lrint: " DLL "llround: " DLL "llrint: (x=each)");
    for (size_t i = 0; i < sizeof r_in / sizeof r_in[0]; i++) {
        mark();
        long a = lround_(r_in[i]), b = lrint_(r_in[i]);
        long long c = llround_(r_in[i]), d = llrint_(r_in[i]);
        printf(" %.17g=%ld,%ld,%lld,%lld/%d", r_in[i], a, b, c, d, err());
    }
    printf("\n");
    printf(DLL "ilogb: " DLL "_dclass: " DLL "_dsign: (x=each)");
    for (size_t i = 0; i < NSP; i++)
        printf(" %llX=%d,%d,%d", sp[i], ilogb_(of(sp[i])), (short)dclass(of(sp[i])), dsign(of(sp[i])) != 0);
    printf("\n");
    fi scalbn_ = (fi)(void (*)(void))crt_fn("scalbn");
    fl scalbln_ = (fl)(void (*)(void))crt_fn("scalbln");
    printf(DLL "scalbn: " DLL "scalbln: (x,n=each)");
    for (size_t i = 0; i < sizeof l_in / sizeof l_in[0]; i++) {
        mark();
        double r = scalbn_(l_in[i].x, l_in[i].n), s = scalbln_(l_in[i].x, l_in[i].n);
        printf(" %.17g,%d=%llX,%llX/%d", l_in[i].x, l_in[i].n, dbits(r), dbits(s), err());
    }
    printf("\n");
    f2 nt = (f2)(void (*)(void))crt_fn("nexttoward");
    printf(DLL "nexttoward: %llX %llX %llX\n", dbits(nt(1, 2)), dbits(nt(0, -1)), dbits(nt(DBL_MAX, of(PINF))));
#endif
}

/* ---- values ---- */

#ifndef SEED
#define SEED 0x9E3779B97F4A7C15ull
#endif
static unsigned long long state = SEED;
static unsigned long long next(void) { /* xorshift64* */
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}
/* The arguments are made from bits only (no arithmetic that x87 code could round differently):
 * a double with its binary exponent uniform in [elo, ehi], a random mantissa and sign */
static double spread(int elo, int ehi) {
    unsigned long long r = next();
    int e = elo + (int)(r % (unsigned)(ehi - elo + 1));
    unsigned long long m = next() >> 12;
    if (e < -1022) return of(m >> (-1022 - e) | 1); /* a denormal */
    return of((unsigned long long)(e + 1023) << 52 | m);
}
static double sspread(int elo, int ehi) { /* either sign */
    double d = spread(elo, ehi);
    return next() >> 63 ? -d : d;
}
/* 1 moved by a random number (below 2^k) of units in the last place, either way */
static double near1(int k) {
    unsigned long long r = next(), d = (r >> 1) & ((1ull << k) - 1);
    return of(r & 1 ? 0x3FF0000000000000ull + d : 0x3FF0000000000000ull - d);
}
/* an integer in [lo, hi] */
static int rint_in(int lo, int hi) { return lo + (int)(next() % (unsigned)(hi - lo + 1)); }

static void v1(const char *name, double x) {
    f1 f = (f1)(void (*)(void))crt_fn(name);
    printf("%s %016llX -> %016llX\n", name, dbits(x), dbits(f(x)));
}
static void v2(const char *name, double x, double y) {
    f2 f = (f2)(void (*)(void))crt_fn(name);
    printf("%s %016llX %016llX -> %016llX\n", name, dbits(x), dbits(y), dbits(f(x, y)));
}
#ifndef NVALUES
#define NVALUES 60
#endif

static void values(void) {
    for (int i = 0; i < NVALUES; i++) v1("sqrt", spread(-1074, 1023));
    for (int i = 0; i < NVALUES; i++) v1("exp", sspread(-8, 9));
    for (int i = 0; i < NVALUES; i++) v1("exp", sspread(-60, -1));
    for (int i = 0; i < NVALUES; i++) v1("log", spread(-1074, 1023));
    for (int i = 0; i < NVALUES; i++) v1("log", near1(50));
    for (int i = 0; i < NVALUES; i++) v1("log10", spread(-1074, 1023));
    for (int i = 0; i < NVALUES; i++) v1("log10", near1(50));
    for (int i = 0; i < NVALUES; i++) v2("pow", spread(-8, 6), sspread(-8, 5));
    for (int i = 0; i < NVALUES; i++) v2("pow", near1(40), sspread(0, 40));
    for (int i = 0; i < NVALUES; i++) v2("pow", -spread(-4, 4), (double)rint_in(-60, 60));
    for (int i = 0; i < NVALUES; i++) v2("pow", spread(-1074, 1023), sspread(-10, 0));
    const char *trig[] = {"sin", "cos", "tan"};
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < NVALUES; i++) v1(trig[t], sspread(-8, 3));
        for (int i = 0; i < NVALUES; i++) v1(trig[t], sspread(-30, 1023));
        for (int i = 0; i < NVALUES / 2; i++) v1(trig[t], (double)(i + 1) * 1.5707963267948966); /* near k pi/2 */
        v1(trig[t], 1e22);
        v1(trig[t], 6381956970095103.0 * 0x1p797); /* the double nearest a multiple of pi/2 (Muller's table) */
        v1(trig[t], 5.319372648326541e+255);
    }
    for (int i = 0; i < NVALUES; i++) v1("asin", sspread(-30, -1));
    for (int i = 0; i < NVALUES; i++) v1("asin", near1(48) * (i & 1 ? 1 : -1));
    for (int i = 0; i < NVALUES; i++) v1("acos", sspread(-30, -1));
    for (int i = 0; i < NVALUES; i++) v1("acos", -near1(48));
    for (int i = 0; i < NVALUES; i++) v1("atan", sspread(-40, 60));
    for (int i = 0; i < NVALUES; i++) v2("atan2", sspread(-100, 100), sspread(-100, 100));
    for (int i = 0; i < NVALUES; i++) v2("atan2", sspread(-1074, 1023), sspread(-1074, 1023));
    const char *hyp[] = {"sinh", "cosh", "tanh"};
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < NVALUES; i++) v1(hyp[t], sspread(-3, 4));
        for (int i = 0; i < NVALUES; i++) v1(hyp[t], sspread(-30, -1));
        for (int i = 0; i < NVALUES / 2; i++) v1(hyp[t], sspread(5, 9));
    }
    for (int i = 0; i < NVALUES; i++) v2("_hypot", sspread(-1074, 1023), sspread(-1074, 1023));
    for (int i = 0; i < NVALUES; i++) v2("_hypot", sspread(-20, 20), sspread(-20, 20));
    for (int i = 0; i < NVALUES; i++) v2("fmod", sspread(-1074, 1023), sspread(-1074, 1023));
    for (int i = 0; i < NVALUES; i++) v2("fmod", sspread(0, 20), sspread(-3, 3));
#ifdef _UCRT
    for (int i = 0; i < NVALUES; i++) v1("cbrt", sspread(-1074, 1023));
    for (int i = 0; i < NVALUES; i++) v1("exp2", sspread(-8, 10));
    for (int i = 0; i < NVALUES; i++) v1("log2", spread(-1074, 1023));
    for (int i = 0; i < NVALUES; i++) v1("expm1", sspread(-6, 9));
    for (int i = 0; i < NVALUES; i++) v1("expm1", sspread(-60, -1));
    for (int i = 0; i < NVALUES; i++) v1("log1p", sspread(-60, -1));
    for (int i = 0; i < NVALUES; i++) v1("log1p", spread(-2, 1000));
    for (int i = 0; i < NVALUES; i++) v1("asinh", sspread(-30, 600));
    for (int i = 0; i < NVALUES; i++) v1("acosh", spread(0, 600));
    for (int i = 0; i < NVALUES; i++) v1("atanh", sspread(-60, -1));
    for (int i = 0; i < NVALUES; i++) v2("remainder", sspread(-1074, 1023), sspread(-1074, 1023));
    for (int i = 0; i < NVALUES; i++) v2("remainder", sspread(0, 20), sspread(-3, 3));
#endif
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "values"))
        values();
    else
        specials();
    return 0;
}
