/* api/crt_stdlib.c — the C runtime's conversions between strings and numbers (strto*, wcsto*,
 * ato*, _wto*, the _itoa family), abs and div, rand, errno and its messages, and small helpers
 * (_rotl, _swab), in msvcrt's exact behaviour and the UCRT's where it differs (api/README.md
 * "The C runtime": "stdlib").  Numbers are converted exactly (crt_num.c). */
#include <math.h>
#include <stdlib.h>

#include "api/crt_int.h"

#define I64_MAX ((int64_t)0x7FFFFFFFFFFFFFFF)
#define I64_MIN (-I64_MAX - 1)

/* ---- reading a number's text ---- */

/* A string argument as code units (w = 1 or 2), up to its terminator (at most HCP_MAX_STR). */
static uint16_t *units(hcp_ctx *c, uint64_t at, unsigned w, size_t *n) {
    size_t cap = 64, k = 0;
    uint16_t *u = malloc(cap * sizeof *u);
    while (u) {
        uint8_t b[2] = {0, 0};
        if (!hcp_rd(c, at + k * w, b, w)) {
            free(u);
            return NULL;
        }
        uint16_t ch = w == 2 ? hcp_get16(b) : b[0];
        if (!ch) break;
        if (k + 1 >= cap) {
            cap *= 2;
            uint16_t *nu = realloc(u, cap * sizeof *nu);
            if (!nu) {
                free(u);
                return NULL;
            }
            u = nu;
        }
        u[k++] = ch;
        if (k >= HCP_MAX_STR) {
            free(u);
            hcp_bad(c, at + k * w, false);
            return NULL;
        }
    }
    if (u) u[k] = 0;
    *n = k;
    hcp_work(c, (k + 1) * w);
    return u;
}

static bool is_space(uint16_t ch, unsigned w) {
    if (ch == ' ' || (ch >= 9 && ch <= 13)) return true;
    return w == 2 && hcp_crt_wspace(ch);
}

/* A digit's value in base `base` (w = 2: the Unicode digit blocks msvcrt's wide functions accept
 * too), or -1. */
static int digit(uint16_t ch, int base, unsigned w) {
    int v = -1;
    if (ch >= '0' && ch <= '9')
        v = ch - '0';
    else if (ch >= 'A' && ch <= 'Z')
        v = ch - 'A' + 10;
    else if (ch >= 'a' && ch <= 'z')
        v = ch - 'a' + 10;
    else if (w == 2) { /* zeros of the decimal digit blocks: Arabic-Indic ... Mongolian, fullwidth */
        static const uint16_t zeros[] = {0x660, 0x6F0, 0x966, 0x9E6, 0xA66,  0xAE6,  0xB66,  0xC66, 0xCE6,
                                         0xD66, 0xE50, 0xED0, 0xF20, 0x1040, 0x17E0, 0x1810, 0xFF10};
        for (size_t i = 0; i < sizeof zeros / sizeof zeros[0]; i++)
            if (ch >= zeros[i] && ch <= zeros[i] + 9) v = ch - zeros[i];
    }
    return v < base ? v : -1;
}

/* The integer at the start of u: space, sign, a 0x prefix (base 0 or 16), digits.  Signed (an
 * int64 that saturates in its sign's direction) or unsigned (a uint64 that saturates, then
 * negated for a '-'); *end: the units consumed (0 without a digit); errno ERANGE on saturation. */
typedef struct iparse {
    int64_t s;
    uint64_t u;
    size_t end;
    bool range;
} iparse;
static bool parse_int(hcp_ctx *c, const uint16_t *u, int base, unsigned w, bool sgn, iparse *r) {
    memset(r, 0, sizeof *r);
    if (base != 0 && (base < 2 || base > 36)) {
        hcp_crt_invalid(c, CRT_EINVAL);
        return false;
    }
    size_t i = 0;
    while (is_space(u[i], w)) i++;
    bool neg = false;
    if (u[i] == '-') {
        neg = true;
        i++;
    } else if (u[i] == '+') {
        i++;
    }
    bool zero_first = w == 2 ? digit(u[i], 1, w) == 0 : u[i] == '0';
    if ((base == 0 || base == 16) && zero_first && (u[i + 1] == 'x' || u[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    if (!base) base = zero_first ? 8 : 10;
    bool got = false;
    for (;; i++) {
        int v = digit(u[i], base, w);
        if (v < 0) break;
        got = true;
        if (sgn) {
            if (!neg && (r->s > I64_MAX / base || r->s * base > I64_MAX - v)) {
                r->s = I64_MAX;
                r->range = true;
            } else if (neg && (r->s < I64_MIN / base || r->s * base < I64_MIN + v)) {
                r->s = I64_MIN;
                r->range = true;
            } else {
                r->s = r->s * base + (neg ? -v : v);
            }
        } else {
            if (r->u > UINT64_MAX / (unsigned)base || r->u * (unsigned)base > UINT64_MAX - (unsigned)v) {
                r->u = UINT64_MAX;
                r->range = true;
            } else {
                r->u = r->u * (unsigned)base + (unsigned)v;
            }
        }
    }
    if (!sgn && neg) r->u = (uint64_t)0 - r->u;
    r->end = got ? i : 0;
    if (r->range) hcp_crt_set_errno(c, CRT_ERANGE);
    return true;
}

/* Reads the string, parses, stores *end (the string's start when nothing was parsed). */
static bool int_call(hcp_ctx *c, uint64_t str, uint64_t endp, int base, bool sgn, iparse *r) {
    unsigned w = strstr(c->ex->name, "wcs") || strstr(c->ex->name, "_wto") ? 2u : 1u;
    if (!str) {
        hcp_crt_invalid(c, CRT_EINVAL);
        if (endp && w == 2) hcp_wrp(c, endp, 0);
        memset(r, 0, sizeof *r);
        return false;
    }
    size_t n;
    uint16_t *u = units(c, str, w, &n);
    if (!u) return false;
    bool ok = parse_int(c, u, base, w, sgn, r);
    free(u);
    if (endp) hcp_wrp(c, endp, str + r->end * w);
    return ok;
}

uint64_t hcp_crt__strtoi64(hcp_ctx *c, const hcp_crt__strtoi64_args *a) { /* _wcstoi64, strtoll */
    iparse r;
    int_call(c, a->_String, a->_EndPtr, a->_Radix, true, &r);
    return (uint64_t)r.s;
}
uint64_t hcp_crt__strtoui64(hcp_ctx *c, const hcp_crt__strtoui64_args *a) { /* _wcstoui64, strtoull */
    iparse r;
    int_call(c, a->_String, a->_EndPtr, a->_Radix, false, &r);
    return r.u;
}
uint64_t hcp_crt_strtol(hcp_ctx *c, const hcp_crt_strtol_args *a) { /* wcstol */
    iparse r;
    int_call(c, a->_Str, a->_EndPtr, a->_Radix, true, &r);
    int64_t v = r.s;
    if (v > 0x7FFFFFFF || v < -0x7FFFFFFF - 1) {
        v = v > 0 ? 0x7FFFFFFF : -0x7FFFFFFF - 1;
        hcp_crt_set_errno(c, CRT_ERANGE);
    }
    return (uint32_t)(int32_t)v;
}
/* strtoul, wcstoul: through the signed conversion, as msvcrt: above ULONG_MAX saturates, below
 * -ULONG_MAX gives 1 (Wine's tests record it of Windows), other negatives wrap */
uint64_t hcp_crt_strtoul(hcp_ctx *c, const hcp_crt_strtoul_args *a) {
    iparse r;
    int_call(c, a->_Str, a->_EndPtr, a->_Radix, true, &r);
    int64_t v = r.s;
    if (v > 0xFFFFFFFFll) {
        v = 0xFFFFFFFFll;
        hcp_crt_set_errno(c, CRT_ERANGE);
    } else if (v < -0xFFFFFFFFll) {
        v = 1;
        hcp_crt_set_errno(c, CRT_ERANGE);
    }
    return (uint32_t)v;
}

/* atoi, atol, _wtoi, _wtol: msvcrt's own loop (no overflow check: the value wraps); the UCRT
 * saturates with ERANGE.  _atoi64, _wtoi64, atoll: the 64-bit conversion. */
uint64_t hcp_crt_atoi(hcp_ctx *c, const hcp_crt_atoi_args *a) {
    unsigned w = c->ex->name[1] == 'w' ? 2u : 1u;
    if (!a->_Str) {
        if (hcp_crt_is_ucrt(c)) hcp_crt_invalid(c, CRT_EINVAL);
        return 0;
    }
    size_t n;
    uint16_t *u = units(c, a->_Str, w, &n);
    if (!u) return 0;
    int64_t v = 0;
    if (hcp_crt_is_ucrt(c) || w == 2) {
        iparse r;
        parse_int(c, u, 10, w, true, &r);
        v = r.s;
        if (v > 0x7FFFFFFF || v < -0x7FFFFFFF - 1) {
            v = v > 0 ? 0x7FFFFFFF : -0x7FFFFFFF - 1;
            hcp_crt_set_errno(c, CRT_ERANGE);
        }
    } else {
        size_t i = 0;
        while (is_space(u[i], w)) i++;
        bool neg = u[i] == '-';
        if (u[i] == '-' || u[i] == '+') i++;
        uint32_t x = 0;
        for (; u[i] >= '0' && u[i] <= '9'; i++) x = x * 10u + (uint32_t)(u[i] - '0');
        v = (int32_t)(neg ? 0u - x : x);
    }
    free(u);
    return (uint32_t)(int32_t)v;
}
uint64_t hcp_crt__atoi64(hcp_ctx *c, const hcp_crt__atoi64_args *a) {
    unsigned w = c->ex->name[1] == 'w' ? 2u : 1u;
    if (!a->_String) return hcp_crt_invalid(c, CRT_EINVAL), 0;
    size_t n;
    uint16_t *u = units(c, a->_String, w, &n);
    if (!u) return 0;
    iparse r;
    parse_int(c, u, 10, w, true, &r);
    free(u);
    return (uint64_t)r.s;
}

/* ---- floating point ---- */

static uint64_t f64bits(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* The double at the start of u, as msvcrt's strtod reads it: space, sign, digits with a '.',
 * an exponent after e, E, d or D; the UCRT also "inf", "infinity", "nan" (any case) and hexadecimal
 * "0x1.8p3".  *end: units consumed (0: none); *err: ERANGE for an overflow (HUGE_VAL) or a nonzero
 * value that rounds to 0. */
double hcp_crt_parse_double(const uint16_t *u, unsigned w, bool ucrt, size_t *end, int *err) {
    size_t i = 0;
    *err = 0;
    *end = 0;
    while (is_space(u[i], w)) i++;
    bool neg = false;
    if (u[i] == '-' || u[i] == '+') neg = u[i++] == '-';
    double sign = neg ? -1.0 : 1.0;
    if (ucrt) {
        static const char inf[] = "infinity", nan[] = "nan";
        const char *m = (u[i] | 0x20) == 'i' ? inf : (u[i] | 0x20) == 'n' ? nan : NULL;
        if (m) {
            size_t k = 0;
            while (m[k] && (u[i + k] | 0x20) == m[k]) k++;
            size_t keep = m == inf ? (k >= 8 ? 8 : k >= 3 ? 3 : 0) : (k >= 3 ? 3 : 0);
            if (!keep) return 0.0;
            *end = i + keep;
            if (m == inf) return neg ? -INFINITY : INFINITY;
            uint64_t b = neg ? 0xFFFFFFFFFFFFFFFFull : 0x7FFFFFFFFFFFFFFFull;
            double d;
            memcpy(&d, &b, sizeof d);
            return d;
        }
        if (u[i] == '0' && (u[i + 1] | 0x20) == 'x') { /* hexadecimal: mantissa bits, exponent p */
            size_t j = i + 2;
            uint64_t hm = 0;
            int e2 = 0, nd = 0;
            bool sticky = false, any = false, dp = false;
            for (;; j++) {
                int v = -1;
                if (u[j] == '.' && !dp) {
                    dp = true;
                    continue;
                }
                if (u[j] < 128) v = digit(u[j], 16, 1);
                if (v < 0) break;
                any = true;
                if (!hm && !v) {
                    if (dp) e2 -= 4;
                    continue;
                }
                if (nd < 15) {
                    hm = hm << 4 | (unsigned)v;
                    nd++;
                    if (dp) e2 -= 4;
                } else {
                    sticky |= v != 0;
                    if (!dp) e2 += 4;
                }
            }
            if (!any) { /* "0x" alone: the 0 */
                *end = i + 1;
                return sign * 0.0;
            }
            if ((u[j] | 0x20) == 'p') {
                size_t k = j + 1;
                bool eneg = false;
                if (u[k] == '-' || u[k] == '+') eneg = u[k++] == '-';
                if (u[k] >= '0' && u[k] <= '9') {
                    long ex = 0;
                    for (; u[k] >= '0' && u[k] <= '9'; k++) ex = ex > 100000 ? ex : ex * 10 + (u[k] - '0');
                    e2 += (int)(eneg ? -ex : ex);
                    j = k;
                }
            }
            *end = j;
            if (!hm) return sign * 0.0;
            int top = 63; /* m x 2^e2, rounded to a double */
            while (!(hm >> top)) top--;
            uint64_t mm = hm << (63 - top);
            if (sticky) mm |= 1;
            int range;
            double d = hcp_bits_to_double(mm, e2 + top, &range);
            if (range == 1 || (range == -1 && d == 0)) *err = CRT_ERANGE;
            return sign * d;
        }
    }
    char dig[HCP_DEC_MAX + 2];
    int nd = 0;
    long point = 0;
    bool any = false, nonzero_dropped = false, seen_nonzero = false;
    size_t j = i;
    for (; u[j] >= '0' && u[j] <= '9'; j++) {
        any = true;
        if (u[j] != '0') seen_nonzero = true;
        if (!seen_nonzero) continue; /* leading zeros */
        if (nd < HCP_DEC_MAX)
            dig[nd++] = (char)u[j];
        else
            nonzero_dropped |= u[j] != '0';
        point++;
    }
    if (u[j] == '.') {
        size_t k = j + 1;
        bool frac = false;
        for (; u[k] >= '0' && u[k] <= '9'; k++) {
            frac = true;
            if (u[k] != '0') seen_nonzero = true;
            if (!seen_nonzero) {
                point--;
                continue;
            }
            if (nd < HCP_DEC_MAX)
                dig[nd++] = (char)u[k];
            else
                nonzero_dropped |= u[k] != '0';
        }
        if (any || frac) {
            any = true;
            j = k;
        }
    }
    if (!any) return 0.0;
    if (u[j] == 'e' || u[j] == 'E' || u[j] == 'd' || u[j] == 'D') {
        size_t k = j + 1;
        bool eneg = false;
        if (u[k] == '-' || u[k] == '+') eneg = u[k++] == '-';
        if (u[k] >= '0' && u[k] <= '9') {
            long ex = 0;
            for (; u[k] >= '0' && u[k] <= '9'; k++) ex = ex > 100000000 ? ex : ex * 10 + (u[k] - '0');
            point += eneg ? -ex : ex;
            j = k;
        }
    }
    *end = j;
    if (!nd) return sign * 0.0;
    if (nonzero_dropped) dig[nd++] = '1';
    int range;
    double d = hcp_dec_to_double(dig, nd, point, &range);
    if (range == 1 || (range == -1 && d == 0)) *err = CRT_ERANGE;
    return sign * d;
}

static double dbl_call(hcp_ctx *c, uint64_t str, uint64_t endp) {
    bool wide = strstr(c->ex->name, "wcs") || strstr(c->ex->name, "_wto");
    unsigned w = wide ? 2u : 1u;
    bool ucrt = hcp_crt_is_ucrt(c);
    if (!ucrt) hcp_crt_set_errno(c, 0); /* msvcrt's strtod and atof clear errno first */
    if (!str) {
        hcp_crt_invalid(c, CRT_EINVAL);
        if (endp) hcp_wrp(c, endp, 0);
        return 0.0;
    }
    size_t n, end;
    uint16_t *u = units(c, str, w, &n);
    if (!u) return 0.0;
    int err;
    double d = hcp_crt_parse_double(u, w, ucrt, &end, &err);
    free(u);
    if (endp) hcp_wrp(c, endp, str + end * w);
    if (err) hcp_crt_set_errno(c, (uint32_t)err);
    return d;
}
uint64_t hcp_crt_strtod(hcp_ctx *c, const hcp_crt_strtod_args *a) { /* wcstod */
    return f64bits(dbl_call(c, a->_Str, a->_EndPtr));
}
uint64_t hcp_crt_strtof(hcp_ctx *c, const hcp_crt_strtof_args *a) { /* the UCRT's strtof, wcstof */
    double d = dbl_call(c, a->_Str, a->_EndPtr);
    float f = (float)d; /* double -> float rounds to nearest even, the same on every IEEE host */
    if (d != 0 && d - d == 0 && (f == 0 || f - f != 0)) hcp_crt_set_errno(c, CRT_ERANGE);
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}
uint64_t hcp_crt_atof(hcp_ctx *c, const hcp_crt_atof_args *a) { /* _wtof */
    return f64bits(dbl_call(c, a->_String, 0));
}

/* ---- integers to text ---- */

/* The digits of v (signed: only in base 10 with a '-') into a buffer of size units: the string
 * and 0, or, when it does not fit, ERANGE with what msvcrt leaves (the last digits backwards
 * after a first unit of 0). */
static uint32_t to_text(hcp_ctx *c, uint64_t v, bool is_signed, uint64_t str, uint64_t size, int radix, unsigned w,
                        bool check) {
    char buf[72];
    int pos = 71;
    buf[pos] = 0;
    bool neg = is_signed && radix == 10 && (int64_t)v < 0;
    uint64_t x = neg ? (uint64_t)0 - v : v;
    if (radix < 2) radix = 2; /* the callers check the radix first where msvcrt does */
    do {
        unsigned d = (unsigned)(x % (unsigned)radix);
        x /= (unsigned)radix;
        buf[--pos] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    } while (x);
    if (neg) buf[--pos] = '-';
    uint64_t len = (uint64_t)(72 - pos); /* with the terminator */
    uint16_t out[72];
    if (check && len > size) {
        uint64_t k = size;
        size_t o = 0;
        if (neg) {
            out[o++] = '?'; /* not written: the first unit becomes 0 below */
            k--;
        }
        for (uint64_t i = 0; i < k; i++) out[o++] = (uint8_t)buf[70 - i];
        out[0] = 0;
        uint8_t b[144];
        for (size_t i = 0; i < o; i++) {
            if (w == 2)
                hcp_put16(b + 2 * i, out[i]);
            else
                b[i] = (uint8_t)out[i];
        }
        hcp_wr(c, str, b, o * w);
        return hcp_crt_invalid(c, CRT_ERANGE);
    }
    uint8_t b[144];
    for (uint64_t i = 0; i < len; i++) {
        if (w == 2)
            hcp_put16(b + 2 * i, (uint8_t)buf[pos + (int)i]);
        else
            b[i] = (uint8_t)buf[pos + (int)i];
    }
    hcp_wr(c, str, b, (size_t)(len * w));
    return 0;
}
static unsigned wide_name(const hcp_ctx *c) { return strstr(c->ex->name, "tow") ? 2u : 1u; }

/* _itoa, _ltoa, _i64toa (signed in base 10), _ultoa, _ui64toa, and the wide _itow ... */
/* _itoa's int is signed in base 10 only: in other bases its 32 bits are the unsigned value */
static uint64_t int_value(int32_t v, int radix) { return radix == 10 ? (uint64_t)(int64_t)v : (uint32_t)v; }
uint64_t hcp_crt__itoa(hcp_ctx *c, const hcp_crt__itoa_args *a) {
    to_text(c, int_value(a->_Value, a->_Radix), true, a->_Dest, UINT64_MAX, a->_Radix, wide_name(c), false);
    return a->_Dest;
}
uint64_t hcp_crt__ultoa(hcp_ctx *c, const hcp_crt__ultoa_args *a) {
    to_text(c, a->_Value, false, a->_Dest, UINT64_MAX, a->_Radix, wide_name(c), false);
    return a->_Dest;
}
uint64_t hcp_crt__i64toa(hcp_ctx *c, const hcp_crt__i64toa_args *a) {
    to_text(c, (uint64_t)a->_Value, true, a->_Dest, UINT64_MAX, a->_Radix, wide_name(c), false);
    return a->_Dest;
}
uint64_t hcp_crt__ui64toa(hcp_ctx *c, const hcp_crt__ui64toa_args *a) {
    to_text(c, a->_Value, false, a->_Dest, UINT64_MAX, a->_Radix, wide_name(c), false);
    return a->_Dest;
}
static uint64_t to_text_s(hcp_ctx *c, uint64_t v, bool is_signed, uint64_t str, uint64_t size, int radix) {
    unsigned w = wide_name(c);
    if (!str || !size) return hcp_crt_invalid(c, CRT_EINVAL);
    if (radix < 2 || radix > 36) {
        uint16_t z = 0;
        hcp_wr(c, str, &z, w);
        return hcp_crt_invalid(c, CRT_EINVAL);
    }
    return to_text(c, v, is_signed, str, size, radix, w, true);
}
uint64_t hcp_crt__itoa_s(hcp_ctx *c, const hcp_crt__itoa_s_args *a) {
    return to_text_s(c, int_value(a->_Value, a->_Radix), true, a->_Dest, a->_Size, a->_Radix);
}
uint64_t hcp_crt__ultoa_s(hcp_ctx *c, const hcp_crt__ultoa_s_args *a) {
    return to_text_s(c, a->_Value, false, a->_Dest, a->_Size, a->_Radix);
}
uint64_t hcp_crt__i64toa_s(hcp_ctx *c, const hcp_crt__i64toa_s_args *a) {
    return to_text_s(c, (uint64_t)a->_Value, true, a->_Dest, a->_Size, a->_Radix);
}
uint64_t hcp_crt__ui64toa_s(hcp_ctx *c, const hcp_crt__ui64toa_s_args *a) {
    return to_text_s(c, a->_Value, false, a->_Dest, a->_Size, a->_Radix);
}

/* ---- abs, div ---- */

uint64_t hcp_crt_abs(hcp_ctx *c, const hcp_crt_abs_args *a) { /* labs: INT_MIN stays INT_MIN */
    (void)c;
    return (uint32_t)(a->_X < 0 ? 0u - (uint32_t)a->_X : (uint32_t)a->_X);
}
uint64_t hcp_crt__abs64(hcp_ctx *c, const hcp_crt__abs64_args *a) { /* llabs */
    (void)c;
    return a->_X < 0 ? (uint64_t)0 - (uint64_t)a->_X : (uint64_t)a->_X;
}
/* div, ldiv: div_t {quot, rem} comes back in rax (x64) or edx:eax (x86): quot low, rem high.  A
 * zero divisor faults as the division instruction would (STATUS_INTEGER_DIVIDE_BY_ZERO). */
uint64_t hcp_crt_div(hcp_ctx *c, const hcp_crt_div_args *a) {
    if (!a->_Denominator) return hcp_stop(c, "integer division by zero (STATUS_INTEGER_DIVIDE_BY_ZERO 0xC0000094)");
    int64_t q = (int64_t)a->_Numerator / a->_Denominator, r = (int64_t)a->_Numerator % a->_Denominator;
    if (a->_Numerator == (int32_t)0x80000000 && a->_Denominator == -1)
        return hcp_stop(c, "integer overflow in division (STATUS_INTEGER_OVERFLOW 0xC0000095)");
    return (uint32_t)(int32_t)q | (uint64_t)(uint32_t)(int32_t)r << 32;
}

/* ---- rand ---- */

/* msvcrt's generator, one per thread: next = next x 214013 + 2531011, rand = bits 16..30 */
uint64_t hcp_crt_rand(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t) return 0;
    t->rand_next = t->rand_next * 214013u + 2531011u;
    return (t->rand_next >> 16) & 0x7FFF;
}
uint64_t hcp_crt_srand(hcp_ctx *c, const hcp_crt_srand_args *a) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (t) t->rand_next = a->_Seed;
    return 0;
}
/* rand_s: Windows draws from RtlGenRandom; hcpsim draws from a generator of its own with a fixed
 * seed per process (splitmix64), so runs repeat */
uint64_t hcp_crt_rand_s(hcp_ctx *c, const hcp_crt_rand_s_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!a->_RandomValue) return hcp_crt_invalid(c, CRT_EINVAL);
    if (!r) return CRT_ENOMEM;
    uint64_t z = (r->rand_s_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    z ^= z >> 31;
    hcp_wr32(c, a->_RandomValue, (uint32_t)z);
    return 0;
}

/* ---- errno and its messages ---- */

static const char *const errlist[] = {"No error",
                                      "Operation not permitted",
                                      "No such file or directory",
                                      "No such process",
                                      "Interrupted function call",
                                      "Input/output error",
                                      "No such device or address",
                                      "Arg list too long",
                                      "Exec format error",
                                      "Bad file descriptor",
                                      "No child processes",
                                      "Resource temporarily unavailable",
                                      "Not enough space",
                                      "Permission denied",
                                      "Bad address",
                                      "Unknown error",
                                      "Resource device",
                                      "File exists",
                                      "Improper link",
                                      "No such device",
                                      "Not a directory",
                                      "Is a directory",
                                      "Invalid argument",
                                      "Too many open files in system",
                                      "Too many open files",
                                      "Inappropriate I/O control operation",
                                      "Unknown error",
                                      "File too large",
                                      "No space left on device",
                                      "Invalid seek",
                                      "Read-only file system",
                                      "Too many links",
                                      "Broken pipe",
                                      "Domain error",
                                      "Result too large",
                                      "Unknown error",
                                      "Resource deadlock avoided",
                                      "Unknown error",
                                      "Filename too long",
                                      "No locks available",
                                      "Function not implemented",
                                      "Directory not empty",
                                      "Illegal byte sequence",
                                      "Unknown error"};
#define SYS_NERR 43
static const char *errmsg(int32_t e) { return errlist[e < 0 || e > SYS_NERR ? SYS_NERR : e]; }
int hcp_crt_nerr(void) { return SYS_NERR; }
const char *hcp_crt_errmsg(int e) { return errmsg(e); }

/* The thread's strerror buffer (guest memory, 256 bytes), made at the first use. */
static uint64_t err_buffer(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t) return 0;
    if (!t->strerror_at) t->strerror_at = hcp_heap_alloc(c, 512);
    return t->strerror_at;
}
uint64_t hcp_crt_strerror(hcp_ctx *c, const hcp_crt_strerror_args *a) {
    uint64_t b = err_buffer(c);
    if (!b) return 0;
    const char *m = errmsg(a->_ErrMsg);
    hcp_wr(c, b, m, strlen(m) + 1);
    return b;
}
uint64_t hcp_crt__wcserror(hcp_ctx *c, const hcp_crt__wcserror_args *a) {
    uint64_t b = err_buffer(c);
    if (!b) return 0;
    const char *m = errmsg(a->_ErrMsg);
    for (size_t i = 0; i <= strlen(m); i++) hcp_wr16(c, b + 2 * i, (uint8_t)m[i]);
    return b;
}
/* _strerror(s): "s: message\n" (or "message\n") for the thread's errno */
uint64_t hcp_crt__strerror(hcp_ctx *c, const hcp_crt__strerror_args *a) {
    uint64_t b = err_buffer(c);
    if (!b) return 0;
    const char *m = errmsg((int32_t)hcp_crt_get_errno(c));
    char out[512];
    char *s = a->_ErrMsg ? hcp_gstr(c, a->_ErrMsg, NULL) : NULL;
    if (a->_ErrMsg && !s) return 0;
    int n = s && *s ? snprintf(out, sizeof out, "%.200s: %s\n", s, m) : snprintf(out, sizeof out, "%s\n", m);
    free(s);
    hcp_wr(c, b, out, (size_t)n + 1);
    return b;
}
/* strerror_s, _wcserror_s: the message cut to the buffer */
uint64_t hcp_crt_strerror_s(hcp_ctx *c, const hcp_crt_strerror_s_args *a) {
    unsigned w = strstr(c->ex->name, "wcs") ? 2u : 1u;
    if (!a->_Buf || !a->_SizeInBytes) return hcp_crt_invalid(c, CRT_EINVAL);
    const char *m = errmsg(a->_ErrNum);
    size_t n = strlen(m);
    if (n > a->_SizeInBytes - 1) n = (size_t)a->_SizeInBytes - 1;
    for (size_t i = 0; i <= n; i++) {
        uint16_t ch = i < n ? (uint8_t)m[i] : 0;
        if (w == 2)
            hcp_wr16(c, a->_Buf + 2 * i, ch);
        else
            hcp_wr(c, a->_Buf + i, &ch, 1);
    }
    return 0;
}
uint64_t hcp_crt__get_errno(hcp_ctx *c, const hcp_crt__get_errno_args *a) {
    if (!a->_Value) return hcp_crt_invalid(c, CRT_EINVAL);
    hcp_wr32(c, a->_Value, hcp_crt_get_errno(c));
    return 0;
}
uint64_t hcp_crt__set_errno(hcp_ctx *c, const hcp_crt__set_errno_args *a) {
    hcp_crt_set_errno(c, (uint32_t)a->_Value);
    return 0;
}
/* __doserrno: the cell after the thread's errno */
uint64_t hcp_crt___doserrno(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    return t && t->errno_at ? t->errno_at + 4 : 0;
}

uint64_t hcp_crt__get_doserrno(hcp_ctx *c, const hcp_crt__get_doserrno_args *a) {
    if (!a->_Value) return hcp_crt_invalid(c, CRT_EINVAL);
    uint64_t at = hcp_crt___doserrno(c);
    uint8_t b[4] = {0};
    if (at) hcp_rd(c, at, b, 4);
    hcp_wr(c, a->_Value, b, 4);
    return 0;
}
uint64_t hcp_crt__set_doserrno(hcp_ctx *c, const hcp_crt__set_doserrno_args *a) {
    uint64_t at = hcp_crt___doserrno(c);
    if (at) hcp_wr32(c, at, a->_Value);
    return 0;
}

/* ---- bits ---- */

uint64_t hcp_crt__rotl(hcp_ctx *c, const hcp_crt__rotl_args *a) { /* _lrotl */
    (void)c;
    unsigned s = (unsigned)a->_Shift & 31;
    return s ? (a->_Value << s | a->_Value >> (32 - s)) & 0xFFFFFFFFu : a->_Value;
}
uint64_t hcp_crt__rotr(hcp_ctx *c, const hcp_crt__rotr_args *a) { /* _lrotr */
    (void)c;
    unsigned s = (unsigned)a->_Shift & 31;
    return s ? (a->_Value >> s | a->_Value << (32 - s)) & 0xFFFFFFFFu : a->_Value;
}
uint64_t hcp_crt__rotl64(hcp_ctx *c, const hcp_crt__rotl64_args *a) {
    (void)c;
    unsigned s = (unsigned)a->_Shift & 63;
    return s ? a->_Value << s | a->_Value >> (64 - s) : a->_Value;
}
uint64_t hcp_crt__rotr64(hcp_ctx *c, const hcp_crt__rotr64_args *a) {
    (void)c;
    unsigned s = (unsigned)a->_Shift & 63;
    return s ? a->_Value >> s | a->_Value << (64 - s) : a->_Value;
}
/* _swab: swaps adjacent bytes of n (rounded down to even) bytes */
uint64_t hcp_crt__swab(hcp_ctx *c, const hcp_crt__swab_args *a) {
    int32_t n = a->_SizeInBytes;
    if (n <= 1) return 0;
    n &= ~1;
    uint8_t *b = malloc((size_t)n);
    if (!b) return 0;
    if (hcp_rd(c, a->_Buf1, b, (size_t)n)) {
        for (int32_t i = 0; i < n; i += 2) {
            uint8_t t = b[i];
            b[i] = b[i + 1];
            b[i + 1] = t;
        }
        hcp_wr(c, a->_Buf2, b, (size_t)n);
    }
    hcp_work(c, 2 * (uint64_t)n);
    free(b);
    return 0;
}
