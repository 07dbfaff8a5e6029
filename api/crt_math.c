/* api/crt_math.c — the C runtime's math functions, the same bits on every host (api/README.md "The
 * C runtime": "Math").  No host libm beyond IEEE 754's exact operations (sqrt, and frexp and ldexp
 * where they are exact): the exact functions (floor, fmod, frexp, ...) work on the bits; the others
 * evaluate in double-double arithmetic (about 106 bits from IEEE doubles' +, -, x, / and sqrt,
 * which every IEEE host rounds alike) with their own range reductions (a 1,280-bit 2/pi for sin,
 * cos and tan of any argument) and series, then round once to a double: the result is the
 * correctly rounded one unless the exact value lies within about 2^-100 (relative) of a tie
 * between two doubles, where it can be one unit off (pow's exact ties for integer exponents are
 * found exactly).  pe_crt.sh checks thousands of arguments against mpmath's values at 2,400 bits.
 * errno and special values follow msvcrt (Wine's tests and sources, listed differences apart):
 * EDOM with the indefinite NaN (0xFFF8000000000000) for a domain error, ERANGE for an overflow
 * (HUGE_VAL) or a pole; an underflow leaves errno.
 *
 * Longer than 800 lines: the double-double arithmetic, the range reductions and the series of
 * every function share their helpers; the correctness argument above covers the file as a whole.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "api/crt_int.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
/* GCC contracts a*b+c only outside ISO mode; the Makefile compiles with -std=c17 */
_Static_assert(FLT_EVAL_METHOD == 0, "double-double arithmetic needs doubles rounded to double precision");

#define IND 0xFFF8000000000000ull /* the indefinite NaN msvcrt returns for a domain error */
#define PINF 0x7FF0000000000000ull
#define QNAN 0x7FF8000000000000ull

static double of(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
static uint64_t bits(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}
static bool is_nan(double x) { return (bits(x) & 0x7FFFFFFFFFFFFFFFull) > PINF; }
static bool is_inf(double x) { return (bits(x) & 0x7FFFFFFFFFFFFFFFull) == PINF; }
static double quiet(double x) { return of(bits(x) | 0x0008000000000000ull); }
static double fabs_(double x) { return of(bits(x) & 0x7FFFFFFFFFFFFFFFull); }

/* ---- double-double arithmetic ---- */

typedef struct dd {
    double hi, lo;
} dd;

static dd two_sum(double a, double b) {
    double s = a + b, bb = s - a, e = (a - (s - bb)) + (b - bb);
    return (dd){s, e};
}
static dd fast_two_sum(double a, double b) { /* |a| >= |b| */
    double s = a + b;
    return (dd){s, b - (s - a)};
}
static void split(double a, double *h, double *l) { /* Veltkamp: a = h + l, 26-bit halves */
    double t = 134217729.0 * a;                     /* 2^27 + 1 */
    *h = t - (t - a);
    *l = a - *h;
}
static dd two_prod(double a, double b) {
    double p = a * b, ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return (dd){p, e};
}
static dd dd_add(dd a, dd b) {
    dd s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return fast_two_sum(s.hi, s.lo);
}
static dd dd_neg(dd a) { return (dd){-a.hi, -a.lo}; }
static dd dd_sub(dd a, dd b) { return dd_add(a, dd_neg(b)); }
static dd dd_mul(dd a, dd b) {
    dd p = two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return fast_two_sum(p.hi, p.lo);
}
static dd dd_mul_d(dd a, double b) {
    dd p = two_prod(a.hi, b);
    p.lo += a.lo * b;
    return fast_two_sum(p.hi, p.lo);
}
static dd dd_div(dd a, dd b) {
    double q1 = a.hi / b.hi;
    dd r = dd_sub(a, dd_mul_d(b, q1));
    double q2 = r.hi / b.hi;
    r = dd_sub(r, dd_mul_d(b, q2));
    double q3 = r.hi / b.hi;
    dd q = fast_two_sum(q1, q2);
    return dd_add(q, (dd){q3, 0});
}
static dd dd_d(double a) { return (dd){a, 0}; }
static dd dd_sqrt(dd a) {  /* a > 0: one Newton step from the correctly rounded sqrt of a.hi */
    double s = sqrt(a.hi); /* IEEE sqrt: correctly rounded on every host */
    dd s2 = two_prod(s, s);
    dd r = dd_sub(a, s2);
    return fast_two_sum(s, r.hi / (2 * s));
}
static dd dd_ldexp(dd a, int k) { return (dd){ldexp(a.hi, k), ldexp(a.lo, k)}; }

/* constants: three doubles each (their sum is the constant to about 160 bits) */
static const double LN2[3] = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56, 0x1.7b57a079a1934p-111};
static const double PIO2[3] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, -0x1.f1976b7ed8fbcp-110};
static const double INV_LN10[3] = {0x1.bcb7b1526e50ep-2, 0x1.95355baaafad3p-57, 0x1.ee191f71a3012p-112};
static const double INV_LN2[3] = {0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56, -0x1.60bb8a5442ab9p-110};
static dd c2(const double *c) { return (dd){c[0], c[1]}; }

/* The double nearest to (a.hi + a.lo) x 2^k, subnormal results rounded once (ties to even). */
static double dd_round_scaled(dd a, int k, int *range) {
    *range = 0;
    if (a.hi == 0) return a.hi;
    int e;
    frexp(a.hi, &e);     /* a.hi = f x 2^e, f in [0.5, 1): exact */
    int top = e - 1 + k; /* the result's binary exponent, about */
    if (top >= -1021 && top <= 1023) {
        double r = ldexp(a.hi, k); /* exact: a.hi already is the double nearest to a.hi + a.lo */
        if (is_inf(r)) *range = 1;
        return r;
    }
    if (top > 1023) {
        *range = 1;
        return a.hi > 0 ? of(PINF) : -of(PINF);
    }
    /* a subnormal: the 64-bit mantissa of |a| with a sticky bit, then one rounding */
    bool neg = a.hi < 0;
    if (neg) a = dd_neg(a);
    double m1 = ldexp(a.hi, 63 - (e - 1)); /* an integer below 2^64 */
    double f2 = ldexp(a.lo, 63 - (e - 1));
    uint64_t m = (uint64_t)m1;
    double fl = floor(f2);
    m += (uint64_t)(int64_t)fl; /* a.lo may be negative: the mantissa shrinks by at most one unit */
    bool sticky = f2 != fl;
    if (sticky) m |= 1;
    while (m && !(m >> 63)) { /* a negative a.lo borrowed the top bit */
        m <<= 1;
        e--;
    }
    double r = hcp_bits_to_double(m, e - 1 + k, range);
    return neg ? -r : r;
}
static double dd_round(dd a) { return a.hi + a.lo; } /* normalised: a.hi is already the nearest */
/* x rounded to an integer, ties to even (|x| < 2^52; others are integers already) */
static double nearbyint_(double x) {
    if (!(fabs_(x) < 4503599627370496.0)) return x;
    double r = x > 0 ? (x + 4503599627370496.0) - 4503599627370496.0 : (x - 4503599627370496.0) + 4503599627370496.0;
    return r == 0 ? of(bits(x) & 0x8000000000000000ull) : r;
}

/* ---- errno and results ---- */

static uint64_t ret(double d) { return bits(d); }
static uint64_t domain(hcp_ctx *c) {
    hcp_crt_set_errno(c, CRT_EDOM);
    return IND;
}
static uint64_t range_err(hcp_ctx *c, double d) {
    hcp_crt_set_errno(c, CRT_ERANGE);
    return bits(d);
}

/* ---- exp ---- */

/* e^x for a double-double x with |x| <= about 709.8: 2^k x e^r, r = x - k ln2 (|r| <= 0.35),
 * e^r by Taylor on r / 256, squared 8 times */
static dd exp_core(dd x, int *kout) {
    double kd = nearbyint_(x.hi * INV_LN2[0]);
    dd r = dd_sub(x, dd_mul_d(c2(LN2), kd));
    r = dd_sub(r, dd_d(LN2[2] * kd));
    r = dd_ldexp(r, -8);
    dd sum = dd_d(1), term = dd_d(1);
    for (int i = 1; i <= 14; i++) {
        term = dd_div(dd_mul(term, r), dd_d(i));
        sum = dd_add(sum, term);
    }
    for (int i = 0; i < 8; i++) sum = dd_mul(sum, sum);
    *kout = (int)kd;
    return sum;
}

/* e^x - 1 for |x| < 0.35, in double-double: the Taylor series without its 1 */
static dd expm1_small(dd x) {
    dd sum = x, term = x;
    for (int i = 2; i <= 27; i++) {
        term = dd_div(dd_mul(term, x), dd_d(i));
        sum = dd_add(sum, term);
        if (fabs_(term.hi) < 1e-36 * fabs_(sum.hi)) break;
    }
    return sum;
}
/* e^x as a double (with errno) */
static double exp_d(hcp_ctx *c, double x, bool *err) {
    *err = false;
    if (is_nan(x)) return quiet(x);
    if (x > 709.782712893384) {
        *err = true;
        hcp_crt_set_errno(c, CRT_ERANGE);
        return of(PINF);
    }
    if (x < -745.2) return 0; /* an underflow: msvcrt leaves errno */
    int k, range;
    dd e = exp_core(dd_d(x), &k);
    double r = dd_round_scaled(e, k, &range);
    if (range == 1) hcp_crt_set_errno(c, CRT_ERANGE);
    return r;
}

/* ---- log ---- */

/* atanh s = s + s^3/3 + s^5/5 + ... for |s| <= about 0.2 */
static dd atanh_series(dd s) {
    dd s2 = dd_mul(s, s), pw = s, sum = s;
    for (int k = 1; k < 40; k++) {
        pw = dd_mul(pw, s2);
        dd t = dd_div(pw, dd_d(2 * k + 1));
        sum = dd_add(sum, t);
        if (fabs_(t.hi) < 1e-36 * fabs_(sum.hi) || pw.hi == 0) break;
    }
    return sum;
}
/* log(1 + t) for |t| < 0.5, without forming 1 + t: 2 atanh(t / (2 + t)) */
static dd log1p_core(dd t) { return dd_ldexp(atanh_series(dd_div(t, dd_add(dd_d(2), t))), 1); }

/* log of a positive double-double a (finite, not 0): a = m x 2^e, m in [sqrt(1/2), sqrt(2)),
 * log(m) = 2 atanh((m - 1)/(m + 1)) */
static dd log_core(dd a) {
    int e;
    double f = frexp(a.hi, &e); /* exact */
    dd m = dd_ldexp(a, -e);
    if (f < 0.70710678118654752) {
        m = dd_ldexp(m, 1);
        e--;
    }
    dd sum = log1p_core(dd_sub(m, dd_d(1))); /* m - 1: exact */
    dd el = dd_add(dd_mul_d(c2(LN2), (double)e), dd_d(LN2[2] * (double)e));
    return dd_add(el, sum);
}
/* log, log10, log2 of a double: msvcrt's special cases, then the core scaled */
static uint64_t log_any(hcp_ctx *c, double x, const double *scale) {
    if (is_nan(x)) return ret(quiet(x));
    if (x < 0) return domain(c);
    if (x == 0) return range_err(c, -of(PINF));
    if (is_inf(x)) return ret(x);
    dd l = log_core(dd_d(x));
    if (scale) l = dd_add(dd_mul(l, c2(scale)), dd_mul_d(l, scale[2]));
    return ret(dd_round(l));
}

/* ---- sin, cos, tan: x = k pi/2 + r, |r| <= pi/4 ---- */

/* 2/pi to 1,280 bits: 40 words of its fraction, first the most significant (2/pi < 1) */
static const uint32_t TWO_OVER_PI[40] = {
    0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041, 0xFE5163AB, 0xDEBBC561,
    0xB7246E3A, 0x424DD2E0, 0x06492EEA, 0x09D1921C, 0xFE1DEB1C, 0xB129A73E, 0xE88235F5, 0x2EBB4484,
    0xE99C7026, 0xB45F7E41, 0x3991D639, 0x835339F4, 0x9C845F8B, 0xBDF9283B, 0x1FF897FF, 0xDE05980F,
    0xEF2F118B, 0x5A0A6D1F, 0x6D367ECF, 0x27CB09B7, 0x4F463F66, 0x9E5FEA2D, 0x7527BAC7, 0xEBE5F17B,
    0x3D0739F7, 0x8A5292EA, 0x6BFB5FB1, 0x1F8D5D08, 0x56033046, 0xFC7B6BAB, 0xF0CFBC20, 0x9AF4361D};

/* The quadrant k (mod 4) and r of a finite x: Cody and Waite with pi/2 in three parts for |x| below
 * 2^20 pi/2, else Payne and Hanek: the bits of x x 2/pi that matter, from the table. */
static int reduce(double x, dd *r) {
    double ax = fabs_(x);
    if (ax <= 0.78539816339744830) {
        *r = dd_d(x);
        return 0;
    }
    if (ax < 1647099.0) { /* k < 2^20: k x each part of pi/2 below is exact or nearly */
        double k = nearbyint_(x * 0.63661977236758134);
        dd p1 = two_prod(k, PIO2[0]), p2 = two_prod(k, PIO2[1]), p3 = two_prod(k, PIO2[2]);
        dd t = dd_sub(dd_d(x), p1);
        t = dd_sub(t, p2);
        t = dd_sub(t, p3);
        *r = t;
        return (int)((int64_t)k & 3);
    }
    /* Payne and Hanek.  x = m x 2^ex (m a 53-bit integer), 2/pi = sum of b_i 2^-i (i >= 1).  The
     * bits b_i with i <= ex - 2 make multiples of 4 and are dropped: W is the 256 bits from index
     * s = max(1, ex - 1), and x x 2/pi = m x W x 2^(ex - s - 255) (mod 4) to within 2^-200. */
    int ex = (int)((bits(x) >> 52) & 0x7FF) - 1075;
    uint64_t m = (bits(x) & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull;
    int s = ex - 1 < 1 ? 1 : ex - 1;
    uint32_t w[8];
    for (int i = 0; i < 8; i++) { /* w[0] most significant: bits s + 32i .. s + 32i + 31 */
        uint32_t v = 0;
        for (int j = 0; j < 32; j++) {
            int b = s + 32 * i + j - 1; /* 0-based bit of the table */
            v = v << 1 | ((TWO_OVER_PI[b >> 5] >> (31 - (b & 31))) & 1u);
        }
        w[i] = v;
    }
    uint32_t p[10] = {0}; /* m x W, p[0] most significant */
    uint32_t mw[2] = {(uint32_t)(m >> 32), (uint32_t)m};
    for (int i = 7; i >= 0; i--)
        for (int j = 1; j >= 0; j--) {
            uint64_t carry = (uint64_t)w[i] * mw[j];
            for (int k = i + j + 1; k >= 0 && carry; k--) { /* w[i] x mw[j] lands at word i + j + 1 */
                carry += p[k];
                p[k] = (uint32_t)carry;
                carry >>= 32;
            }
        }
    /* the value is p x 2^(ex - s - 255): shift so that the integer part is the bits above 2^-shift */
    int shift = 255 - (ex - s); /* p x 2^-shift; 255 - 1 = 254 when s = ex - 1, larger when s = 1 */
    /* the bit of weight 2^0 of the value is bit `shift` of p (bit 0 = least significant of p[9]) */
    int q = 0;
    for (int b = shift + 1; b >= shift; b--) q = q << 1 | (b < 320 ? (int)((p[9 - (b >> 5)] >> (b & 31)) & 1u) : 0);
    /* the fraction: bits shift-1 down to 0, as 32-bit pieces summed from the smallest */
    dd fr = dd_d(0);
    for (int top = 0; top < shift; top += 32) { /* piece: bits shift-1-top .. shift-32-top */
        uint32_t v = 0;
        for (int j = 0; j < 32; j++) {
            int b = shift - 1 - top - j;
            v = v << 1 | (b >= 0 ? (p[9 - (b >> 5)] >> (b & 31)) & 1u : 0u);
        }
        fr = dd_add(dd_d(ldexp((double)v, -32 - top)), fr);
    }
    if (fr.hi >= 0.5) { /* the nearer quadrant: r in [-pi/4, pi/4] */
        fr = dd_sub(fr, dd_d(1));
        q = (q + 1) & 3;
    }
    dd rr = dd_mul(fr, c2(PIO2));
    rr = dd_add(rr, dd_d(fr.hi * PIO2[2]));
    if (x < 0) {
        rr = dd_neg(rr);
        q = (4 - q) & 3;
    }
    *r = rr;
    return q;
}

/* sin and cos of |r| <= pi/4 by their series */
static dd sin_core(dd r) {
    dd r2 = dd_mul(r, r), term = r, sum = r;
    for (int k = 1; k < 30; k++) {
        term = dd_div(dd_mul(term, r2), dd_d(-(double)((2 * k) * (2 * k + 1))));
        sum = dd_add(sum, term);
        if (fabs_(term.hi) < 1e-36 * fabs_(sum.hi) || term.hi == 0) break;
    }
    return sum;
}
static dd cos_core(dd r) {
    dd r2 = dd_mul(r, r), term = dd_d(1), sum = dd_d(1);
    for (int k = 1; k < 30; k++) {
        term = dd_div(dd_mul(term, r2), dd_d(-(double)((2 * k - 1) * (2 * k))));
        sum = dd_add(sum, term);
        if (fabs_(term.hi) < 1e-36 || term.hi == 0) break;
    }
    return sum;
}
/* which: 0 sin, 1 cos, 2 tan */
static uint64_t trig(hcp_ctx *c, double x, int which) {
    if (is_nan(x)) return ret(quiet(x));
    if (is_inf(x)) return domain(c);
    if (x == 0) return ret(which == 1 ? 1.0 : x);
    dd r;
    int q = reduce(x, &r);
    if (which == 2) {
        dd s = sin_core(r), co = cos_core(r);
        dd t = (q & 1) ? dd_neg(dd_div(co, s)) : dd_div(s, co);
        return ret(dd_round(t));
    }
    int k = (q + (which == 1 ? 1 : 0)) & 3; /* cos x = sin(x + pi/2) */
    dd v = (k & 1) ? cos_core(r) : sin_core(r);
    if (k & 2) v = dd_neg(v);
    return ret(dd_round(v));
}

/* ---- atan, atan2, asin, acos ---- */

/* atan of a double-double: 1/x above 1, three halvings atan(x) = 2 atan(x / (1 + sqrt(1 + x^2))),
 * then the series */
static dd atan_core(dd x) {
    bool neg = x.hi < 0, inv = false;
    if (neg) x = dd_neg(x);
    if (x.hi > 1) {
        x = dd_div(dd_d(1), x);
        inv = true;
    }
    for (int i = 0; i < 3; i++) x = dd_div(x, dd_add(dd_d(1), dd_sqrt(dd_add(dd_d(1), dd_mul(x, x)))));
    dd x2 = dd_mul(x, x), pw = x, sum = x;
    for (int k = 1; k < 40; k++) {
        pw = dd_mul(pw, x2);
        dd t = dd_div(pw, dd_d((k & 1 ? -1.0 : 1.0) * (2 * k + 1)));
        sum = dd_add(sum, t);
        if (fabs_(t.hi) < 1e-36 * fabs_(sum.hi) || pw.hi == 0) break;
    }
    sum = dd_ldexp(sum, 3);
    if (inv) sum = dd_sub(c2(PIO2), sum);
    return neg ? dd_neg(sum) : sum;
}
static dd pi_dd(void) { return dd_ldexp(c2(PIO2), 1); }
static dd atan2_core(dd y, dd x) { /* finite, not both 0 */
    if (x.hi == 0) return y.hi > 0 ? c2(PIO2) : dd_neg(c2(PIO2));
    dd a = atan_core(dd_div(y, x));
    if (x.hi > 0) return a;
    return y.hi >= 0 ? dd_add(a, pi_dd()) : dd_sub(a, pi_dd());
}

/* ---- hyperbolic functions ---- */

/* e^|x| as a double-double times 2^k (|x| <= about 745) */
static dd exp_scaled(double ax, int *k) { return exp_core(dd_d(ax), k); }

/* ---- exact operations on the bits ---- */

static int exponent_of(double x) { return (int)((bits(x) >> 52) & 0x7FF); }
static double trunc_(double x) {
    int e = exponent_of(x) - 1023;
    if (e >= 52) return x; /* an integer, infinity or NaN */
    if (e < 0) return of(bits(x) & 0x8000000000000000ull);
    return of(bits(x) & ~(0xFFFFFFFFFFFFFull >> e));
}
static double floor_(double x) {
    double t = trunc_(x);
    return x < 0 && t != x ? t - 1 : t;
}
static double ceil_(double x) {
    double t = trunc_(x);
    if (x > 0 && t != x) return t + 1;
    return t == 0 && x < 0 ? -0.0 : t; /* ceil(-0.5) = -0 */
}
static double round_(double x) { /* halves away from 0 */
    double t = trunc_(x);
    double f = x - t; /* exact */
    if (f >= 0.5) return t + 1;
    if (f <= -0.5) return t - 1;
    return t;
}
/* |x| mod |y| (exact), x and y finite, y not 0; *odd: the quotient's lowest bit */
static double fmod_core(double x, double y, bool *odd) {
    uint64_t bx = bits(x) & 0x7FFFFFFFFFFFFFFFull, by = bits(y) & 0x7FFFFFFFFFFFFFFFull;
    *odd = false;
    if (bx < by) return fabs_(x);
    /* 53-bit mantissas with their top bit at 52 (denormals shifted up), exponents of their last bit */
    int ex = (int)(bx >> 52), ey = (int)(by >> 52);
    uint64_t mx = bx & 0xFFFFFFFFFFFFFull, my = by & 0xFFFFFFFFFFFFFull;
    if (ex)
        mx |= 1ull << 52;
    else
        ex = 1;
    if (ey)
        my |= 1ull << 52;
    else
        ey = 1;
    while (!(mx >> 52)) {
        mx <<= 1;
        ex--;
    }
    while (!(my >> 52)) {
        my <<= 1;
        ey--;
    }
    bool q = false;
    for (; ex > ey; ex--) { /* one bit of the quotient per step; only its last bit is kept */
        q = mx >= my;
        if (q) mx -= my;
        mx <<= 1;
    }
    q = mx >= my;
    if (q) mx -= my;
    *odd = q;
    /* mx x 2^(ey - 1075): exact (a multiple of y's last place, below |y|) */
    if (mx == 0) return 0;
    while (!(mx >> 52)) {
        mx <<= 1;
        ey--;
    }
    if (ey < 1) return of(mx >> (1 - ey)); /* a denormal: the shifted-out bits are 0 */
    return of(((uint64_t)ey << 52) | (mx & 0xFFFFFFFFFFFFFull));
}
/* x x 2^n rounded once (ties to even) */
static double scale_(double x, int64_t n, int *range) {
    *range = 0;
    if (x == 0 || is_inf(x) || is_nan(x)) return x;
    if (n > 2200) n = 2200;
    if (n < -2200) n = -2200;
    uint64_t b = bits(x);
    bool neg = b >> 63;
    int e = (int)((b >> 52) & 0x7FF);
    uint64_t m = b & 0xFFFFFFFFFFFFFull;
    if (e)
        m |= 1ull << 52;
    else
        e = 1;
    /* x = m x 2^(e - 1075); hcp_bits_to_double takes a mantissa with its top bit at 63 */
    int sh = 0;
    while (!(m >> 63)) {
        m <<= 1;
        sh++;
    }
    double r = hcp_bits_to_double(m, e - 1075 + 63 - sh + (int)n, range);
    return neg ? -r : r;
}

/* ---- the entry points ---- */

/* x of a one-argument call, y of a two-argument one */
#define X (a->x)
#define Y (a->y)

uint64_t hcp_crt_sqrt(hcp_ctx *c, const hcp_crt_sqrt_args *a) {
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (x < 0) return domain(c);
    return ret(sqrt(x)); /* IEEE sqrt: correctly rounded on every host; sqrt(-0) = -0 */
}

uint64_t hcp_crt_exp(hcp_ctx *c, const hcp_crt_exp_args *a) {
    double x = X;
    if (is_nan(x)) {
        if (!hcp_crt_is_ucrt(c)) hcp_crt_set_errno(c, CRT_EDOM); /* msvcrt's exp(NaN) */
        return ret(quiet(x));
    }
    if (is_inf(x)) return ret(x > 0 ? x : 0);
    if (fabs_(x) < 0x1p-54) return ret(1.0);
    bool err;
    return ret(exp_d(c, x, &err));
}

uint64_t hcp_crt_log(hcp_ctx *c, const hcp_crt_log_args *a) { return log_any(c, X, NULL); }
uint64_t hcp_crt_log10(hcp_ctx *c, const hcp_crt_log10_args *a) { return log_any(c, X, INV_LN10); }
uint64_t hcp_crt_log2(hcp_ctx *c, const hcp_crt_log2_args *a) { return log_any(c, X, INV_LN2); }

uint64_t hcp_crt_sin(hcp_ctx *c, const hcp_crt_sin_args *a) { return trig(c, X, 0); }
uint64_t hcp_crt_cos(hcp_ctx *c, const hcp_crt_cos_args *a) { return trig(c, X, 1); }
uint64_t hcp_crt_tan(hcp_ctx *c, const hcp_crt_tan_args *a) { return trig(c, X, 2); }

uint64_t hcp_crt_atan(hcp_ctx *c, const hcp_crt_atan_args *a) {
    double x = X;
    if (is_nan(x)) {
        if (!hcp_crt_is_ucrt(c)) hcp_crt_set_errno(c, CRT_EDOM); /* msvcrt's atan(NaN) */
        return ret(quiet(x));
    }
    if (is_inf(x)) return ret(x > 0 ? PIO2[0] : -PIO2[0]);
    if (fabs_(x) < 0x1p-30) return ret(x); /* atan x = x - x^3/3 rounds to x */
    if (fabs_(x) > 0x1p60) {               /* pi/2 - 1/|x| */
        double d = dd_round(dd_sub(c2(PIO2), dd_d(1 / fabs_(x))));
        return ret(x < 0 ? -d : d);
    }
    return ret(dd_round(atan_core(dd_d(x))));
}

uint64_t hcp_crt_atan2(hcp_ctx *c, const hcp_crt_atan2_args *a) {
    double y = a->y, x = a->x;
    (void)c;
    if (is_nan(x) || is_nan(y)) return ret(is_nan(x) ? quiet(x) : quiet(y)); /* x + y */
    bool xneg = bits(x) >> 63, yneg = bits(y) >> 63;
    double pi = 2 * PIO2[0], pi34 = 0x1.2d97c7f3321d2p+1; /* the doubles nearest pi and 3pi/4 */
    if (y == 0) return ret(xneg ? (yneg ? -pi : pi) : y); /* atan2(+-0, -0 or x < 0) = +-pi */
    if (is_inf(x)) {
        if (is_inf(y)) {
            double v = xneg ? pi34 : PIO2[0] / 2;
            return ret(yneg ? -v : v);
        }
        return ret(xneg ? (yneg ? -pi : pi) : (yneg ? -0.0 : 0.0));
    }
    if (x == 0 || is_inf(y)) return ret(yneg ? -PIO2[0] : PIO2[0]);
    int ey, ex;
    frexp(y, &ey); /* the binary exponents, denormals' leading zeros counted */
    frexp(x, &ex);
    dd r;
    if (ey - ex > 60) { /* |y/x| > 2^59: pi/2 - x/y */
        r = dd_sub(c2(PIO2), dd_d(fabs_(x) / fabs_(y) * (xneg ? -1 : 1)));
    } else if (ex - ey > 60) { /* |y/x| < 2^-59: y/x (x > 0), else pi - |y/x| */
        if (!xneg) return ret(y / x);
        r = dd_sub(pi_dd(), dd_d(fabs_(y) / fabs_(x)));
    } else {
        double ys = ldexp(fabs_(y), -ex), xs = ldexp(fabs_(x), -ex); /* exact */
        r = atan2_core(dd_d(ys), dd_d(xneg ? -xs : xs));
    }
    double d = dd_round(r);
    return ret(yneg ? -d : d);
}

/* asin x = atan(x / sqrt((1 - x)(1 + x))) */
uint64_t hcp_crt_asin(hcp_ctx *c, const hcp_crt_asin_args *a) {
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (fabs_(x) > 1) return domain(c);
    if (fabs_(x) == 1) return ret(x > 0 ? PIO2[0] : -PIO2[0]);
    if (fabs_(x) < 0x1p-30) return ret(x);
    dd d = dd_mul(dd_sub(dd_d(1), dd_d(x)), dd_add(dd_d(1), dd_d(x)));
    return ret(dd_round(atan_core(dd_div(dd_d(x), dd_sqrt(d)))));
}
/* acos x = 2 atan(sqrt((1 - x) / (1 + x))) */
uint64_t hcp_crt_acos(hcp_ctx *c, const hcp_crt_acos_args *a) {
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (fabs_(x) > 1) return domain(c);
    if (x == 1) return ret(0);
    if (x == -1) return ret(2 * PIO2[0]);
    dd q = dd_div(dd_sub(dd_d(1), dd_d(x)), dd_add(dd_d(1), dd_d(x)));
    return ret(dd_round(dd_ldexp(atan_core(dd_sqrt(q)), 1)));
}

/* which: 0 sinh, 1 cosh, 2 tanh */
static uint64_t hyper(hcp_ctx *c, double x, int which) {
    if (is_nan(x)) {
        if (which == 2 && !hcp_crt_is_ucrt(c)) hcp_crt_set_errno(c, CRT_EDOM); /* msvcrt's tanh(NaN) */
        return ret(quiet(x));
    }
    double ax = fabs_(x);
    bool neg = x < 0;
    if (is_inf(x)) return ret(which == 1 ? ax : which == 2 ? (neg ? -1.0 : 1.0) : x);
    if (ax < 0x1p-28) return ret(which == 1 ? 1.0 : x);
    if (which == 2) {
        if (ax > 22) return ret(neg ? -1.0 : 1.0);
        dd e; /* e^(2|x|) - 1 */
        if (ax < 0.17) {
            e = expm1_small(dd_d(2 * ax));
        } else {
            int k;
            e = exp_core(dd_d(2 * ax), &k);
            e = dd_sub(dd_ldexp(e, k), dd_d(1));
        }
        double d = dd_round(dd_div(e, dd_add(e, dd_d(2))));
        return ret(neg ? -d : d);
    }
    double d;
    if (ax > 710.5) { /* e^|x| / 2 overflows */
        hcp_crt_set_errno(c, CRT_ERANGE);
        d = of(PINF);
    } else if (ax > 22) { /* e^-|x| no longer matters: e^|x| / 2 */
        int k, range;
        dd e = exp_scaled(ax, &k);
        d = dd_round_scaled(e, k - 1, &range);
        if (range == 1) hcp_crt_set_errno(c, CRT_ERANGE);
    } else if (which == 0 && ax < 0.35) { /* sinh: (E + E / (E + 1)) / 2, E = e^x - 1 */
        dd e = expm1_small(dd_d(ax));
        d = dd_round(dd_ldexp(dd_add(e, dd_div(e, dd_add(e, dd_d(1)))), -1));
    } else {
        int k;
        dd e = exp_scaled(ax, &k);
        e = dd_ldexp(e, k);
        dd inv = dd_div(dd_d(1), e);
        d = dd_round(dd_ldexp(which == 0 ? dd_sub(e, inv) : dd_add(e, inv), -1));
    }
    return ret(which == 0 && neg ? -d : d);
}
uint64_t hcp_crt_sinh(hcp_ctx *c, const hcp_crt_sinh_args *a) { return hyper(c, X, 0); }
uint64_t hcp_crt_cosh(hcp_ctx *c, const hcp_crt_cosh_args *a) { return hyper(c, X, 1); }
uint64_t hcp_crt_tanh(hcp_ctx *c, const hcp_crt_tanh_args *a) { return hyper(c, X, 2); }

/* Is y an integer: 0 no, 1 odd, 2 even */
static int int_kind(double y) {
    if (is_inf(y) || is_nan(y)) return 0;
    if (trunc_(y) != y) return 0;
    if (fabs_(y) >= 0x1p53) return 2;
    return ((int64_t)y & 1) ? 1 : 2;
}

/* m^n x 2^(e n) when it is exactly a 64-bit mantissa times a power of 2 (n in 2..64, x = m 2^e with
 * m odd): the case where the exact result can be a tie between two doubles */
static bool pow_exact(double ax, int n, double *out, int *range) {
    int e;
    double f = frexp(ax, &e); /* ax = f 2^e */
    uint64_t m = (uint64_t)ldexp(f, 53);
    e -= 53;
    while (!(m & 1)) {
        m >>= 1;
        e++;
    }
    uint64_t p = 1;
    for (int i = 0; i < n; i++) {
        if (p > UINT64_MAX / m) return false;
        p *= m;
    }
    int sh = 0;
    while (!(p >> 63)) {
        p <<= 1;
        sh++;
    }
    *out = hcp_bits_to_double(p, 63 - sh + e * n, range);
    return true;
}

uint64_t hcp_crt_pow(hcp_ctx *c, const hcp_crt_pow_args *a) {
    double x = a->x, y = a->y;
    if (y == 0 || x == 1) return ret(1.0);
    int yk = int_kind(y);
    if (is_nan(x) || is_nan(y)) {
        if (!is_nan(x)) return ret(quiet(y));
        double q = quiet(x);
        return ret((bits(x) >> 63) && yk == 1 ? -q : q); /* Wine's msvcrt: -(x x x) */
    }
    double ax = fabs_(x);
    bool neg = (bits(x) >> 63) && yk == 1; /* the result's sign */
    if (is_inf(y)) {
        if (ax == 1) return ret(1.0);
        return ret((ax < 1) == (y > 0) ? 0.0 : of(PINF));
    }
    if (x == 0 || is_inf(x)) {
        bool big = is_inf(x) == (y > 0); /* 0^-y and inf^y: infinity */
        double r = big ? of(PINF) : 0.0;
        if (x == 0 && y < 0) hcp_crt_set_errno(c, CRT_ERANGE);
        return ret(neg ? -r : r);
    }
    if ((bits(x) >> 63) && !yk) return domain(c);
    if (ax == 1) return ret(neg ? -1.0 : 1.0);
    int range = 0;
    double r;
    int ex;
    double fx = frexp(ax, &ex);
    if (fabs_(y) >= 0x1p64) { /* |y log|x|| > 2^11: an overflow or an underflow */
        range = (ax > 1) == (y > 0) ? 1 : -1;
        r = range == 1 ? of(PINF) : 0;
    } else if (fx == 0.5 && yk) { /* a power of 2: exact */
        r = scale_(1.0, (int64_t)(ex - 1) * (int64_t)y, &range);
    } else if (yk && y >= 2 && y <= 64 && pow_exact(ax, (int)y, &r, &range)) {
        /* an exact result, rounded once */
    } else if (y == 0.5) {
        r = sqrt(ax);
    } else {
        dd l = dd_mul_d(log_core(dd_d(ax)), y); /* y log|x| */
        if (l.hi > 709.8) {
            r = of(PINF);
            range = 1;
        } else if (l.hi < -745.2) {
            r = 0;
            range = -1;
        } else {
            int k;
            dd e = exp_core(l, &k);
            r = dd_round_scaled(e, k, &range);
        }
    }
    if (range == 1) hcp_crt_set_errno(c, CRT_ERANGE);
    return ret(neg ? -r : r);
}

/* hypot: sqrt(x^2 + y^2) with the squares exact in double-double, scaled away from overflow */
static double hypot_d(hcp_ctx *c, double x, double y) {
    x = fabs_(x);
    y = fabs_(y);
    if (bits(x) < bits(y)) { /* |x| >= |y| by their bits (a NaN above an infinity) */
        double t = x;
        x = y;
        y = t;
    }
    if (is_inf(y) || is_nan(y)) return y; /* hypot(inf, NaN) = inf */
    if (is_inf(x) || is_nan(x)) return x;
    if (x == 0) return 0;
    int ex;
    frexp(x, &ex);
    int sc = -ex;
    double xs = ldexp(x, sc), ys = ldexp(y, sc); /* xs in [0.5, 1); ys may lose bits far below */
    dd s = dd_add(two_prod(xs, xs), two_prod(ys, ys));
    dd r = dd_sqrt(s);
    int range;
    double d = dd_round_scaled(r, -sc, &range);
    if (range == 1) hcp_crt_set_errno(c, CRT_ERANGE);
    return d;
}
uint64_t hcp_crt__hypot(hcp_ctx *c, const hcp_crt__hypot_args *a) { return ret(hypot_d(c, a->x, a->y)); }

uint64_t hcp_crt_floor(hcp_ctx *c, const hcp_crt_floor_args *a) {
    (void)c;
    return ret(is_nan(X) ? quiet(X) : floor_(X));
}
uint64_t hcp_crt_ceil(hcp_ctx *c, const hcp_crt_ceil_args *a) {
    (void)c;
    return ret(is_nan(X) ? quiet(X) : ceil_(X));
}
uint64_t hcp_crt_trunc(hcp_ctx *c, const hcp_crt_trunc_args *a) {
    (void)c;
    return ret(is_nan(X) ? quiet(X) : trunc_(X));
}
uint64_t hcp_crt_round(hcp_ctx *c, const hcp_crt_round_args *a) {
    (void)c;
    return ret(is_nan(X) ? quiet(X) : round_(X));
}
uint64_t hcp_crt_rint(hcp_ctx *c, const hcp_crt_rint_args *a) { /* nearbyint: ties to even */
    (void)c;
    return ret(is_nan(X) ? quiet(X) : nearbyint_(X));
}
/* lround, llround: the rounded value when it fits (from -2^(w-1) up to 2^(w-1)), else EDOM and 0;
 * lrint, llrint: a negative value that fits in the signed type or a positive one that fits in the
 * unsigned type converts (2^(w-1) and above to the x86 conversion's 0x80...), others EDOM and 0, and
 * a NaN converts to 0x80... without errno (Wine's msvcrt: the UCRT's) */
static uint64_t to_int(hcp_ctx *c, double d, int w, bool rint_rule) {
    double lim = w == 4 ? 2147483648.0 : 9223372036854775808.0;
    uint64_t indef = w == 4 ? 0x80000000u : 0x8000000000000000ull;
    if (is_nan(d)) {
        if (rint_rule) return indef;
        hcp_crt_set_errno(c, CRT_EDOM);
        return 0;
    }
    bool fits = d >= -lim && (rint_rule ? d < 2 * lim : d < lim);
    if (!fits) {
        hcp_crt_set_errno(c, CRT_EDOM);
        return 0;
    }
    if (d >= lim) return indef;
    int64_t v = (int64_t)d;
    return w == 4 ? (uint32_t)(int32_t)v : (uint64_t)v;
}
uint64_t hcp_crt_lround(hcp_ctx *c, const hcp_crt_lround_args *a) { return to_int(c, round_(X), 4, false); }
uint64_t hcp_crt_llround(hcp_ctx *c, const hcp_crt_llround_args *a) { return to_int(c, round_(X), 8, false); }
uint64_t hcp_crt_lrint(hcp_ctx *c, const hcp_crt_lrint_args *a) { return to_int(c, nearbyint_(X), 4, true); }
uint64_t hcp_crt_llrint(hcp_ctx *c, const hcp_crt_llrint_args *a) { return to_int(c, nearbyint_(X), 8, true); }

uint64_t hcp_crt_fmod(hcp_ctx *c, const hcp_crt_fmod_args *a) {
    double x = a->x, y = a->y;
    if (is_inf(x)) { /* msvcrt: EDOM, (x y) / (x y) */
        hcp_crt_set_errno(c, CRT_EDOM);
        return is_nan(y) ? ret(quiet(y)) : IND;
    }
    if (is_nan(x) || is_nan(y)) return ret(is_nan(x) ? quiet(x) : quiet(y));
    if (y == 0) return IND; /* msvcrt: no errno */
    if (is_inf(y)) return ret(x);
    bool odd;
    double r = fmod_core(x, y, &odd);
    return ret((bits(x) >> 63) ? -r : r);
}
uint64_t hcp_crt_remainder(hcp_ctx *c, const hcp_crt_remainder_args *a) {
    double x = a->x, y = a->y;
    if (y == 0 || is_inf(x)) hcp_crt_set_errno(c, CRT_EDOM); /* even with a NaN (Wine's remquo) */
    if (is_nan(x) || is_nan(y)) return ret(is_nan(x) ? quiet(x) : quiet(y));
    if (is_inf(x) || y == 0) return IND;
    if (is_inf(y)) return ret(x);
    bool odd;
    double r = fmod_core(x, y, &odd), ay = fabs_(y);
    /* r in [0, |y|): the nearer of r and r - |y|, ties to the even quotient */
    double twice = r * 2; /* exact unless r is near the largest double, where |y| is larger still */
    if (is_inf(twice) || twice > ay || (twice == ay && odd)) r -= ay;
    if (r == 0) r = 0;
    return ret((bits(x) >> 63) ? -r : r);
}

uint64_t hcp_crt_fabs(hcp_ctx *c, const hcp_crt_fabs_args *a) {
    (void)c;
    return bits(X) & 0x7FFFFFFFFFFFFFFFull;
}
uint64_t hcp_crt__copysign(hcp_ctx *c, const hcp_crt__copysign_args *a) {
    (void)c;
    return (bits(a->x) & 0x7FFFFFFFFFFFFFFFull) | (bits(a->y) & 0x8000000000000000ull);
}
uint64_t hcp_crt__chgsign(hcp_ctx *c, const hcp_crt__chgsign_args *a) {
    (void)c;
    return bits(X) ^ 0x8000000000000000ull;
}
uint64_t hcp_crt__finite(hcp_ctx *c, const hcp_crt__finite_args *a) {
    (void)c;
    return !is_nan(X) && !is_inf(X);
}
uint64_t hcp_crt__isnan(hcp_ctx *c, const hcp_crt__isnan_args *a) {
    (void)c;
    return is_nan(X);
}
/* _fpclass: _FPCLASS_SNAN 1, QNAN 2, NINF 4, NN 8, ND 0x10, NZ 0x20, PZ 0x40, PD 0x80, PN 0x100,
 * PINF 0x200 */
uint64_t hcp_crt__fpclass(hcp_ctx *c, const hcp_crt__fpclass_args *a) {
    (void)c;
    uint64_t b = bits(X);
    bool neg = b >> 63;
    int e = exponent_of(X);
    uint64_t m = b & 0xFFFFFFFFFFFFFull;
    if (e == 0x7FF) return m == 0 ? (neg ? 4 : 0x200) : (m >> 51) ? 2 : 1;
    if (e == 0) return m == 0 ? (neg ? 0x20 : 0x40) : (neg ? 0x10 : 0x80);
    return neg ? 8 : 0x100;
}
/* _dclass (the UCRT's fpclassify): FP_NAN 2, FP_INFINITE 1, FP_NORMAL -1, FP_SUBNORMAL -2, FP_ZERO 0 */
uint64_t hcp_crt__dclass(hcp_ctx *c, const hcp_crt__dclass_args *a) {
    (void)c;
    int e = exponent_of(X);
    uint64_t m = bits(X) & 0xFFFFFFFFFFFFFull;
    int32_t r = e == 0x7FF ? (m ? 2 : 1) : e ? -1 : m ? -2 : 0; /* a short */
    return (uint32_t)r;
}
uint64_t hcp_crt__dsign(hcp_ctx *c, const hcp_crt__dsign_args *a) {
    (void)c;
    return (bits(X) >> 63) ? 0x8000 : 0;
}

/* frexp: x = f 2^e, f in [0.5, 1); 0, infinities and NaNs as they are, *e = 0 for 0 and left as it
 * was for the others (Wine's msvcrt) */
uint64_t hcp_crt_frexp(hcp_ctx *c, const hcp_crt_frexp_args *a) {
    double x = X;
    if (is_inf(x) || is_nan(x)) return ret(x);
    int e = 0;
    double f = x == 0 ? x : frexp(x, &e); /* exact */
    uint8_t b[4];
    hcp_put32(b, (uint32_t)e);
    if (!hcp_wr(c, a->_Y, b, 4)) return 0;
    return ret(f);
}
uint64_t hcp_crt_ldexp(hcp_ctx *c, const hcp_crt_ldexp_args *a) {
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    int range;
    double r = scale_(x, a->_Y, &range);
    if (range == 1) hcp_crt_set_errno(c, CRT_ERANGE);
    return ret(r);
}
uint64_t hcp_crt__scalb(hcp_ctx *c, const hcp_crt__scalb_args *a) { /* scalbn, scalbln */
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    int range;
    double r = scale_(x, a->_Y, &range);
    if (range == 1) hcp_crt_set_errno(c, CRT_ERANGE);
    return ret(r);
}
/* modf: the integer part to *_Y, the fraction (with x's sign) returned */
uint64_t hcp_crt_modf(hcp_ctx *c, const hcp_crt_modf_args *a) {
    double x = X, ip, fr;
    if (is_nan(x)) {
        ip = fr = quiet(x);
    } else if (is_inf(x)) {
        ip = x;
        fr = of(bits(x) & 0x8000000000000000ull);
    } else {
        ip = trunc_(x);
        fr = of(bits(x - ip) | (bits(x) & 0x8000000000000000ull)); /* -0.0 for negative integers */
    }
    uint8_t b[8];
    hcp_put64(b, bits(ip));
    if (!hcp_wr(c, a->_Y, b, 8)) return 0;
    return ret(fr);
}
/* _logb: the unbiased exponent as a double (denormals counted by their leading zeros) */
uint64_t hcp_crt__logb(hcp_ctx *c, const hcp_crt__logb_args *a) {
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (is_inf(x)) return ret(fabs_(x));
    if (x == 0) return range_err(c, -of(PINF));
    int e;
    frexp(x, &e);
    return ret((double)(e - 1));
}
uint64_t hcp_crt_ilogb(hcp_ctx *c, const hcp_crt_ilogb_args *a) { /* FP_ILOGB0 and FP_ILOGBNAN: INT_MIN */
    double x = X;
    (void)c;
    if (x == 0) return 0x80000000u;                 /* FP_ILOGB0: INT_MIN */
    if (is_nan(x) || is_inf(x)) return 0x7FFFFFFFu; /* FP_ILOGBNAN and infinities: INT_MAX */
    int e;
    frexp(x, &e);
    return (uint32_t)(e - 1);
}
uint64_t hcp_crt__nextafter(hcp_ctx *c, const hcp_crt__nextafter_args *a) { /* nextafter, nexttoward */
    double x = a->x, y = a->y;
    if (is_nan(x) || is_nan(y)) return ret(is_nan(x) ? quiet(x) : quiet(y));
    if (bits(x) == bits(y) && exponent_of(y) == 0) hcp_crt_set_errno(c, CRT_ERANGE); /* 0 or denormal */
    if (x == y) return ret(y);
    uint64_t b = bits(x);
    if (x == 0) {
        b = 1 | (bits(y) & 0x8000000000000000ull);
    } else if ((x < y) == !(b >> 63)) {
        b++;
    } else {
        b--;
    }
    double r = of(b);
    if (is_inf(r) || exponent_of(r) == 0) hcp_crt_set_errno(c, CRT_ERANGE);
    return ret(r);
}
uint64_t hcp_crt_fmin(hcp_ctx *c, const hcp_crt_fmin_args *a) {
    (void)c;
    double x = a->x, y = a->y;
    if (is_nan(x)) return ret(y);
    if (is_nan(y)) return ret(x);
    if (x == 0 && y == 0) return ret((bits(x) >> 63) ? x : y);
    return ret(x < y ? x : y);
}
uint64_t hcp_crt_fmax(hcp_ctx *c, const hcp_crt_fmax_args *a) {
    (void)c;
    double x = a->x, y = a->y;
    if (is_nan(x)) return ret(y);
    if (is_nan(y)) return ret(x);
    if (x == 0 && y == 0) return ret((bits(x) >> 63) ? y : x);
    return ret(x > y ? x : y);
}
uint64_t hcp_crt_fdim(hcp_ctx *c, const hcp_crt_fdim_args *a) {
    double x = a->x, y = a->y;
    if (is_nan(x) || is_nan(y)) return ret(is_nan(x) ? quiet(x) : quiet(y));
    if (!(x > y)) return ret(0);
    double r = x - y; /* IEEE subtraction: the same on every host */
    if (is_inf(r) && !is_inf(x) && !is_inf(y)) hcp_crt_set_errno(c, CRT_ERANGE); /* an overflow (C17 7.12.1) */
    return ret(r);
}

/* cbrt: a double guess, Newton steps in double, one in double-double */
uint64_t hcp_crt_cbrt(hcp_ctx *c, const hcp_crt_cbrt_args *a) {
    (void)c;
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (x == 0 || is_inf(x)) return ret(x);
    double ax = fabs_(x);
    int e;
    double f = frexp(ax, &e); /* ax = f 2^e */
    int r3 = ((e % 3) + 3) % 3;
    f = ldexp(f, r3); /* f in [0.5, 4) */
    e -= r3;          /* a multiple of 3 */
    double g = 1.0;
    for (int i = 0; i < 60; i++) g = g - (g * g * g - f) / (3 * g * g);
    dd gd = dd_d(g), fd = dd_d(f);
    for (int i = 0; i < 2; i++) { /* g - (g^3 - f) / (3 g^2) */
        dd g2 = dd_mul(gd, gd);
        gd = dd_sub(gd, dd_div(dd_sub(dd_mul(g2, gd), fd), dd_mul_d(g2, 3)));
    }
    int range;
    double d = dd_round_scaled(gd, e / 3, &range);
    return ret(x < 0 ? -d : d);
}
uint64_t hcp_crt_exp2(hcp_ctx *c, const hcp_crt_exp2_args *a) {
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (is_inf(x)) return ret(x > 0 ? x : 0);
    if (x >= 1024) return range_err(c, of(PINF));
    if (x < -1075) return ret(0);
    double k = nearbyint_(x);
    double f = x - k; /* exact, |f| <= 0.5 */
    int kk, range;
    dd e = exp_core(dd_mul(c2(LN2), dd_d(f)), &kk);
    double r = dd_round_scaled(e, kk + (int)k, &range);
    if (range == 1) hcp_crt_set_errno(c, CRT_ERANGE);
    return ret(r);
}
uint64_t hcp_crt_expm1(hcp_ctx *c, const hcp_crt_expm1_args *a) {
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (is_inf(x)) return ret(x > 0 ? x : -1.0);
    if (fabs_(x) < 0x1p-54) return ret(x);
    if (x < -40) return ret(-1.0);
    if (fabs_(x) < 0.35) return ret(dd_round(expm1_small(dd_d(x))));
    if (x > 709.782712893384) return range_err(c, of(PINF));
    int k;
    dd e = exp_core(dd_d(x), &k);
    if (k > 1000) {
        int range;
        return ret(dd_round_scaled(e, k, &range));
    }
    return ret(dd_round(dd_sub(dd_ldexp(e, k), dd_d(1))));
}
uint64_t hcp_crt_log1p(hcp_ctx *c, const hcp_crt_log1p_args *a) {
    double x = X;
    if (is_nan(x)) {
        if (bits(x) >> 63) hcp_crt_set_errno(c, CRT_EDOM); /* a NaN with its sign bit counts as below -1 (Wine) */
        return ret(quiet(x));
    }
    if (x < -1) return domain(c);
    if (x == -1) return range_err(c, -of(PINF));
    if (is_inf(x)) return ret(x);
    if (fabs_(x) < 0x1p-54) return ret(x);
    if (fabs_(x) < 0.5) return ret(dd_round(log1p_core(dd_d(x))));
    return ret(dd_round(log_core(dd_add(dd_d(1), dd_d(x))))); /* 1 + x: exact in double-double */
}
uint64_t hcp_crt_asinh(hcp_ctx *c, const hcp_crt_asinh_args *a) { /* log(|x| + sqrt(x^2 + 1)) */
    (void)c;
    double x = X;
    if (is_nan(x) || is_inf(x) || fabs_(x) < 0x1p-28) return ret(is_nan(x) ? quiet(x) : x);
    double ax = fabs_(x);
    dd r;
    if (ax > 0x1p500) {
        r = dd_add(log_core(dd_d(ax)), c2(LN2));
    } else if (ax < 0.5) { /* log1p(t), t = |x| + x^2 / (1 + sqrt(1 + x^2)) */
        dd x2 = two_prod(ax, ax);
        dd t = dd_add(dd_d(ax), dd_div(x2, dd_add(dd_d(1), dd_sqrt(dd_add(dd_d(1), x2)))));
        r = log1p_core(t);
    } else {
        r = log_core(dd_add(dd_d(ax), dd_sqrt(dd_add(two_prod(ax, ax), dd_d(1)))));
    }
    double d = dd_round(r);
    return ret(x < 0 ? -d : d);
}
uint64_t hcp_crt_acosh(hcp_ctx *c, const hcp_crt_acosh_args *a) { /* log(x + sqrt(x^2 - 1)) */
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (x < 1) { /* the UCRT's NAN (positive) */
        hcp_crt_set_errno(c, CRT_EDOM);
        return QNAN;
    }
    if (is_inf(x)) return ret(x);
    if (x > 0x1p500) return ret(dd_round(dd_add(log_core(dd_d(x)), c2(LN2))));
    dd xm = dd_sub(dd_d(x), dd_d(1)); /* exact */
    dd s = dd_sqrt(dd_mul(xm, dd_add(dd_d(x), dd_d(1))));
    if (x == 1) return ret(0);
    return ret(dd_round(log_core(dd_add(dd_d(x), s))));
}
uint64_t hcp_crt_atanh(hcp_ctx *c, const hcp_crt_atanh_args *a) { /* log((1 + x) / (1 - x)) / 2 */
    double x = X;
    if (is_nan(x)) return ret(quiet(x));
    if (fabs_(x) > 1) { /* the UCRT's NAN (positive) */
        hcp_crt_set_errno(c, CRT_EDOM);
        return QNAN;
    }
    if (fabs_(x) == 1) return range_err(c, x > 0 ? of(PINF) : -of(PINF));
    if (fabs_(x) < 0x1p-28) return ret(x);
    double ax = fabs_(x); /* log1p(2|x| / (1 - |x|)) / 2 */
    dd t = dd_div(dd_d(2 * ax), dd_sub(dd_d(1), dd_d(ax)));
    dd l = t.hi < 0.5 ? log1p_core(t) : log_core(dd_add(dd_d(1), t));
    double d = dd_round(dd_ldexp(l, -1));
    return ret(x < 0 ? -d : d);
}
