/* api/crt_num.c — exact conversions between doubles and decimal digits, the arithmetic under
 * printf's %e %f %g and strtod (api/README.md "The C runtime").  Integers of up to 5,120 bits
 * in 32-bit limbs: a double's exact decimal value (at most 767 significant digits), and the
 * double nearest to a decimal string (ties to even), with no floating-point arithmetic of the
 * host, so the results are the same on every host. */
#include <stdlib.h>

#include "api/crt_int.h"

#define BIG_WORDS 160

typedef struct big {
    uint32_t w[BIG_WORDS]; /* little-endian limbs */
    int n;                 /* limbs in use (no zero limb on top) */
} big;

static void big_set(big *b, uint64_t v) {
    b->n = 0;
    while (v) {
        b->w[b->n++] = (uint32_t)v;
        v >>= 32;
    }
}
static void big_trim(big *b) {
    while (b->n && !b->w[b->n - 1]) b->n--;
}
static void big_mul_add(big *b, uint32_t mul, uint32_t add) {
    uint64_t carry = add;
    for (int i = 0; i < b->n; i++) {
        uint64_t t = (uint64_t)b->w[i] * mul + carry;
        b->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry && b->n < BIG_WORDS) b->w[b->n++] = (uint32_t)carry;
}
static uint32_t big_div_small(big *b, uint32_t d) { /* b /= d; returns the remainder */
    uint64_t r = 0;
    for (int i = b->n - 1; i >= 0; i--) {
        uint64_t t = (r << 32) | b->w[i];
        b->w[i] = (uint32_t)(t / d);
        r = t % d;
    }
    big_trim(b);
    return (uint32_t)r;
}
static void big_shl(big *b, int s) {
    if (!b->n || s <= 0) return;
    int words = s / 32, bits = s % 32;
    if (b->n + words + 1 > BIG_WORDS) words = BIG_WORDS - b->n - 1; /* callers stay far below */
    b->w[b->n + words] = 0;
    for (int i = b->n - 1; i >= 0; i--) {
        uint64_t v = (uint64_t)b->w[i] << bits;
        b->w[i + words + 1] |= (uint32_t)(v >> 32);
        b->w[i + words] = (uint32_t)v;
    }
    for (int i = 0; i < words; i++) b->w[i] = 0;
    b->n += words + 1;
    big_trim(b);
}
static void big_shr1(big *b) {
    for (int i = 0; i < b->n; i++) b->w[i] = (b->w[i] >> 1) | (i + 1 < b->n ? b->w[i + 1] << 31 : 0);
    big_trim(b);
}
static int big_bits(const big *b) {
    if (!b->n) return 0;
    int k = 32;
    uint32_t top = b->w[b->n - 1];
    while (!(top & 0x80000000u)) top <<= 1, k--;
    return (b->n - 1) * 32 + k;
}
static int big_cmp(const big *a, const big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}
static void big_sub(big *a, const big *b) { /* a -= b, a >= b */
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        int64_t t = (int64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
        borrow = t < 0;
        a->w[i] = (uint32_t)(t + (borrow << 32));
    }
    big_trim(a);
}
static void big_pow(big *b, uint32_t base, int k) { /* b *= base^k, in chunks below 2^32 */
    uint32_t chunk = base;
    int per = 1; /* chunk = base^per, the largest power below 2^32 */
    while ((uint64_t)chunk * base < ((uint64_t)1 << 32)) chunk *= base, per++;
    for (; k >= per; k -= per) big_mul_add(b, chunk, 0);
    while (k-- > 0) big_mul_add(b, base, 0);
}

/* ---- double -> exact decimal ---- */

void hcp_dec_of(double v, hcp_dec *x) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int ex = (int)((bits >> 52) & 0x7FF);
    uint64_t m = bits & (((uint64_t)1 << 52) - 1);
    int e;
    if (ex) {
        m |= (uint64_t)1 << 52;
        e = ex - 1075;
    } else {
        e = -1074;
    }
    x->n = 0;
    x->point = 0;
    if (!m) return;
    while (!(m & 1)) m >>= 1, e++;
    big b;
    big_set(&b, m);
    if (e >= 0)
        big_shl(&b, e);
    else
        big_pow(&b, 5, -e); /* m / 2^k = m * 5^k / 10^k */
    /* decimal digits, nine at a time, least significant first */
    char rev[HCP_DEC_MAX + 16] = {0};
    int n = 0;
    while (b.n && n < HCP_DEC_MAX + 6) {
        uint32_t r = big_div_small(&b, 1000000000u);
        for (int i = 0; i < 9; i++, r /= 10) rev[n++] = (char)('0' + r % 10);
    }
    while (n > 1 && rev[n - 1] == '0') n--;
    int total = n;
    for (int i = 0; i < n; i++) x->d[i] = rev[n - 1 - i];
    while (n > 0 && x->d[n - 1] == '0') n--;
    x->n = n;
    x->point = e >= 0 ? total : total + e;
}

void hcp_dec_round(hcp_dec *x, int k, bool even) {
    if (k >= x->n) return;
    if (k < 0) {
        x->n = 0;
        return;
    }
    bool up;
    if (x->d[k] > '5')
        up = true;
    else if (x->d[k] < '5')
        up = false;
    else if (k + 1 < x->n) /* trailing zeros are never kept: a digit after the 5 is nonzero */
        up = true;
    else
        up = !even || (k > 0 && ((x->d[k - 1] - '0') & 1));
    x->n = k;
    if (up) {
        int i = k - 1;
        while (i >= 0 && x->d[i] == '9') i--;
        if (i < 0) { /* 99.95 -> 100.0: one digit more in front */
            x->d[0] = '1';
            x->n = 1;
            x->point++;
        } else {
            x->d[i]++;
            x->n = i + 1;
        }
    }
    while (x->n > 0 && x->d[x->n - 1] == '0') x->n--;
}

/* ---- decimal -> nearest double ---- */

static double of_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* The double nearest to mant x 2^(e2 - 63) (mant's top bit at 63; its lowest bit carries the
 * sticky bit of anything dropped below it), ties to even; *range as hcp_dec_to_double's. */
double hcp_bits_to_double(uint64_t mant, int e2, int *range) {
    if (e2 > 1023) {
        *range = 1;
        return of_bits((uint64_t)0x7FF << 52);
    }
    int keep = e2 >= -1022 ? 53 : e2 + 1075; /* bits from the top one down to 2^-1074 */
    if (keep <= 0) { /* below 2^-1074: only [2^-1075, 2^-1074) with more than the half rounds up */
        *range = -1;
        return of_bits(keep == 0 && mant > ((uint64_t)1 << 63) ? 1 : 0);
    }
    int shift = 64 - keep;
    uint64_t half = (uint64_t)1 << (shift - 1), low = mant & ((half << 1) - 1), r = mant >> shift;
    if (low > half || (low == half && (r & 1))) r++;
    if (keep < 53) { /* a denormal: r counts units of 2^-1074 (2^52 of them is the smallest normal) */
        *range = -1;
        return of_bits(r);
    }
    if (r >> 53) { /* carried into a new bit */
        r >>= 1;
        if (++e2 > 1023) {
            *range = 1;
            return of_bits((uint64_t)0x7FF << 52);
        }
    }
    *range = 0;
    return of_bits(((uint64_t)(e2 + 1023) << 52) | (r & (((uint64_t)1 << 52) - 1)));
}

double hcp_dec_to_double(const char *digits, int n, long point, int *range) {
    *range = 0;
    int lead = 0;
    while (lead < n && digits[lead] == '0') lead++;
    while (n > lead && digits[n - 1] == '0') n--;
    if (lead >= n) return 0.0;
    long top10 = point - lead; /* the value lies in [10^(top10-1), 10^top10) */
    if (top10 > 310) {
        *range = 1;
        uint64_t b = (uint64_t)0x7FF << 52;
        double d;
        memcpy(&d, &b, sizeof d);
        return d;
    }
    if (top10 < -325) {
        *range = -1;
        return 0.0;
    }
    if (n - lead > HCP_DEC_MAX + 1) n = lead + HCP_DEC_MAX + 1;
    big num, den;
    big_set(&num, 0);
    for (int i = lead; i < n; i++) {
        if (!num.n) {
            big_set(&num, (uint64_t)(digits[i] - '0'));
        } else {
            big_mul_add(&num, 10, (uint32_t)(digits[i] - '0'));
        }
    }
    long e10 = point - n; /* value = num x 10^e10 */
    big_set(&den, 1);
    if (e10 >= 0)
        big_pow(&num, 10, (int)e10);
    else
        big_pow(&den, 10, (int)-e10);
    /* q = floor(num x 2^s / den) in [2^62, 2^64), with a sticky bit for the remainder */
    int s = 63 + big_bits(&den) - big_bits(&num);
    if (s > 0)
        big_shl(&num, s);
    else if (s < 0)
        big_shl(&den, -s);
    big d = den;
    int t = big_bits(&num) - big_bits(&den);
    if (t > 0) big_shl(&d, t);
    uint64_t q = 0;
    for (int i = t; i >= 0; i--) {
        if (big_cmp(&num, &d) >= 0) {
            big_sub(&num, &d);
            if (i < 64) q |= (uint64_t)1 << i;
        }
        big_shr1(&d);
    }
    int qb = 64;
    while (qb > 1 && !(q >> (qb - 1))) qb--;
    int e2 = qb - 1 - s; /* the value's binary exponent */
    q <<= 64 - qb;       /* top bit at 63; the bits shifted in are zeros below the sticky position */
    if (num.n) q |= 1;
    return hcp_bits_to_double(q, e2, range);
}
