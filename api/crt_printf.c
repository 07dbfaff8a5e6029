/* api/crt_printf.c — the printf engine of msvcrt.dll and ucrtbase.dll, and msvcrt's printf
 * family (api/README.md "The C runtime": "printf").  One engine, its behaviour chosen by option
 * bits: msvcrt's parser and legacy output (three-digit exponents, 1.#INF, 1.#IND, "F" and "N" as
 * size prefixes, widths after '*' that keep reading digits), or the UCRT's with the option bits a
 * program passes to __stdio_common_* (C99 infinity and NaN spellings, two-digit exponents, %F).
 * Numbers are converted exactly (crt_num.c) and rounded as the CRT rounds: ties away from zero
 * unless _CRT_INTERNAL_PRINTF_STANDARD_ROUNDING asks for ties to even.  The engine reads the
 * variadic arguments from the call's argument words or from a va_list in guest memory, and
 * writes code units (bytes or UTF-16) to a buffer that may have a limit, as the CRT's string
 * callback does: a write that does not fit is cut at the limit and ends the formatting.
 *
 * Longer than 800 lines: one engine serves both runtimes' parsers and every conversion, and its
 * rules (flags, widths, precision, the legacy spellings) are read together; split, each half would
 * need the other's state.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api/crt_int.h"
#include "api/crtio_int.h"

#define PF_MAX_FIELD 1000000 /* widths and precisions hcpsim formats (a larger one stops the run) */

/* ---- arguments ---- */

/* n bytes of guest memory at `at` from the call's read-ahead (c->args_b), read there first when
 * they are not in it: 64 bytes, never past the end of the page `at` is in (so no more heap is
 * mapped than the word itself maps).  False when that read fails: the caller reads the word as
 * before, and a failure names the same address. */
static bool read_ahead(hcp_ctx *c, uint64_t at, unsigned n, uint8_t *b) {
    if (!(c->args_n && at >= c->args_at && at - c->args_at <= c->args_n - n)) {
        size_t k = sizeof c->args_b, room = 0x1000 - (size_t)(at & 0xFFF);
        if (k > room) k = room;
        c->args_n = 0;
        if (k < n || sim_mem_read(c->m, at, c->args_b, k) != SIM_OK) return false;
        c->args_at = at;
        c->args_n = (uint32_t)k;
    }
    memcpy(b, c->args_b + (at - c->args_at), n);
    return true;
}

/* Argument word k of the call: a stack word from the read-ahead.  Stack words follow each other
 * (sim_gate_arg_addr), so a word after the read-ahead's first (word args_k1 - 1) is found
 * without asking where it is. */
static void arg_word(hcp_ctx *c, int k, uint64_t *v) {
    uint64_t at;
    uint8_t b[8];
    int k0 = (int)c->args_k1 - 1;
    if (c->args_n && k0 >= 0 && k >= k0) {
        at = c->args_at + (uint64_t)(k - k0) * c->w;
    } else if (sim_gate_arg_addr(c->t, k, &at) != SIM_OK) {
        hcp_word(c, k, v); /* a register */
        return;
    }
    if (!read_ahead(c, at, c->w, b)) {
        hcp_word(c, k, v);
        return;
    }
    if (c->args_at == at) c->args_k1 = (uint32_t)k + 1;
    *v = c->w == 8 ? hcp_get64(b) : hcp_get32(b);
}

uint64_t hcp_varg(hcp_vargs *v, bool wide) {
    hcp_ctx *c = v->c;
    uint64_t lo = 0, hi = 0;
    if (v->mem) {
        uint8_t b[8] = {0};
        unsigned n = c->w == 8 ? 8 : wide ? 8 : 4;
        c->args_k1 = 0; /* the read-ahead holds no argument words */
        if (!read_ahead(c, v->at, n, b)) hcp_rd(c, v->at, b, n);
        v->at += n;
        return n == 8 ? hcp_get64(b) : hcp_get32(b);
    }
    arg_word(c, v->k++, &lo);
    if (c->w == 4 && wide) {
        arg_word(c, v->k++, &hi);
        return (lo & 0xFFFFFFFFu) | hi << 32;
    }
    return lo;
}
static int32_t arg_int(hcp_vargs *v) { return (int32_t)(uint32_t)hcp_varg(v, false); }
static uint64_t arg_ptr(hcp_vargs *v) {
    uint64_t p = hcp_varg(v, false);
    return v->c->w == 4 ? p & 0xFFFFFFFFu : p;
}

/* ---- output ---- */

static bool out_put(hcp_pfout *o, const uint16_t *s, size_t n) {
    if (o->overflow && !o->c99) return false;
    size_t room = o->limit - o->n, k = n < room ? n : room;
    if (!o->count_only && k) {
        if (o->n + k > o->cap) {
            size_t nc = (o->n + k) * 2 + 64;
            bool fixed = o->u && o->u == o->fixed;
            uint16_t *nb = fixed ? malloc(nc * sizeof *nb) : realloc(o->u, nc * sizeof *nb);
            if (!nb) {
                o->overflow = true;
                return false;
            }
            if (fixed) memcpy(nb, o->u, o->n * sizeof *nb);
            o->u = nb;
            o->cap = nc;
        }
        memcpy(o->u + o->n, s, k * sizeof *s);
    }
    o->n += k;
    if (k < n) o->overflow = true;
    return k == n || o->c99;
}
static bool out_rep(hcp_pfout *o, uint16_t ch, int k) {
    uint16_t b[64];
    for (int i = 0; i < 64 && i < k; i++) b[i] = ch;
    while (k > 0) {
        int m = k < 64 ? k : 64;
        if (!out_put(o, b, (size_t)m)) return false;
        k -= m;
    }
    return true;
}
static bool out_ascii(hcp_pfout *o, const char *s, size_t n) {
    uint16_t b[64];
    while (n) {
        size_t m = n < 64 ? n : 64;
        for (size_t i = 0; i < m; i++) b[i] = (uint8_t)s[i];
        if (!out_put(o, b, m)) return false;
        s += m;
        n -= m;
    }
    return true;
}

/* The units o holds as bytes of the "C" locale (each unit below 256 is its byte) into out (o->n + 1
 * of them, NUL-terminated); false when one cannot be represented. */
static bool narrow_into(const hcp_pfout *o, char *out) {
    for (size_t i = 0; i < o->n; i++) {
        if (o->u[i] > 0xFF) return false;
        out[i] = (char)o->u[i];
    }
    out[o->n] = '\0';
    return true;
}

/* ---- one conversion's flags, and the field around its text ---- */

typedef struct spec {
    char sign; /* 0, '+', ' ' or '-' */
    bool left, zero, alt;
    int width; /* FieldLength: 0 when none */
    int prec;  /* -1: none */
    char fmt;  /* the conversion character */
    bool ll, native, wstr, lng, sh, natural;
} spec;

/* The conversion classes (a switch: strchr per character cost more than the rest of the parser). */
static bool is_int_conv(unsigned ch) {
    switch (ch) {
    case 'd':
    case 'i':
    case 'o':
    case 'u':
    case 'x':
    case 'X': return true;
    default: return false;
    }
}
static bool is_fp_conv(unsigned ch) {
    switch (ch) {
    case 'a':
    case 'A':
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G': return true;
    default: return false;
    }
}
/* The conversions a sign flag applies to (and '\0', as strchr's terminator matched it before). */
static bool takes_sign(char ch) { return ch == 'd' || ch == 'i' || ch == '\0' || is_fp_conv((unsigned char)ch); }

/* The fill before (`before`) or after a text of len units: the sign (only for d i a A e E f F g
 * G), '0' padding on the left with the 0 flag, spaces on the side the alignment leaves.  The
 * sign takes one column of the width; with the 0 flag it precedes the zeros. */
static int fill(hcp_pfout *o, int len, spec *f, bool before) {
    if (f->sign && !takes_sign(f->fmt)) f->sign = 0;
    int written = 0;
    if (before && f->sign) {
        f->width--;
        if (f->zero) {
            uint16_t s = (uint8_t)f->sign;
            if (!out_put(o, &s, 1)) return -1;
            written++;
        }
    }
    if (before != f->left) {
        uint16_t ch = before && f->zero ? '0' : ' ';
        int k = f->width - len;
        if (k > 0) {
            if (!out_rep(o, ch, k)) return -1;
            written += k;
        }
    }
    if (before && f->sign && !f->zero) {
        uint16_t s = (uint8_t)f->sign;
        if (!out_put(o, &s, 1)) return -1;
        written++;
    }
    return written;
}

/* A text in its field: the precision (when set) cuts it, then fill, text, fill. */
static int field(hcp_pfout *o, const uint16_t *s, int len, spec *f) {
    if (f->prec >= 0 && f->prec < len) len = f->prec;
    int a = fill(o, len, f, true);
    if (a < 0) return -1;
    if (!out_put(o, s, (size_t)len)) return -1;
    int b = fill(o, len, f, false);
    return b < 0 ? -1 : a + len + b;
}
static int field_ascii(hcp_pfout *o, const char *s, spec *f) {
    uint16_t b[1200];
    int n = 0;
    for (; n < (int)(sizeof b / sizeof b[0]) && s[n]; n++) b[n] = (uint8_t)s[n];
    return field(o, b, n, f);
}

/* ---- strings and characters ---- */

/* A string argument of n units (n < 0: up to its terminator, no further than the precision) of
 * 1- or 2-byte units at guest address at, into host units; NULL after a failure.  Read in pieces
 * (64 units, then twice as many each time, never past the end of the page the next unit
 * starts in, so no more heap is mapped than the string's own bytes map); a piece that cannot be
 * read whole is read again unit by unit, so a failure names the same address as a unit-by-unit
 * read.  The units go to `own` (own_cap of them, the caller's) while they fit, then to a heap
 * block: the caller frees the result when it is not `own`. */
static uint16_t *read_units(hcp_ctx *c, uint64_t at, bool two, int n, int prec, int *len, uint16_t *own,
                            size_t own_cap) {
    size_t us = two ? 2 : 1, cap = own_cap, k = 0;
    size_t want = n >= 0 ? (size_t)n : prec >= 0 ? (size_t)prec : SIZE_MAX; /* units at most */
    uint16_t *u = own;
    uint8_t piece[4096];
    size_t step = 64; /* units read at once: 64, then doubling up to a page */
    while (u && k < want) {
        uint64_t a = at + k * us;
        size_t room = (0x1000 - (size_t)(a & 0xFFF)) / us, m = want - k < room ? want - k : room, got;
        if (m > step) m = step;
        if (step < sizeof piece / us) step *= 2;
        if (m && sim_mem_read(c->m, a, piece, m * us) == SIM_OK) {
            got = m;
        } else { /* the last units of a page, a unit across pages, or an unreadable piece */
            if (!hcp_rd(c, a, piece, us)) {
                if (u != own) free(u);
                return NULL;
            }
            got = 1;
        }
        bool end = false;
        if (k + got > cap) {
            while (k + got > cap) cap *= 2;
            uint16_t *nu = u == own ? malloc(cap * sizeof *nu) : realloc(u, cap * sizeof *nu);
            if (!nu) {
                if (u != own) free(u);
                return NULL;
            }
            if (u == own) memcpy(nu, own, k * sizeof *nu);
            u = nu;
        }
        for (size_t i = 0; i < got; i++) {
            uint16_t ch = two ? hcp_get16(piece + 2 * i) : piece[i];
            if (n < 0 && !ch) {
                end = true;
                break;
            }
            u[k++] = ch;
            if (k >= HCP_MAX_STR) {
                hcp_bad(c, at + k * us, false);
                if (u != own) free(u);
                return NULL;
            }
        }
        if (end) break;
    }
    *len = (int)k;
    return u;
}

/* %s %S %c %C: which kind of string the argument is (narrow or wide), by the size prefix, the
 * conversion, the function's width and the wide-specifier option. */
static bool arg_is_wide(const spec *f, unsigned opts) {
    bool api_wide = opts & PF_WIDE;
    if ((f->natural && api_wide) || f->wstr || f->lng) return true;
    if ((f->natural && !api_wide) || f->sh) return false;
    bool complement_narrow = (opts & PF_LEGACY_WIDE) ? api_wide : false;
    bool upper = f->fmt == 'S' || f->fmt == 'C';
    return upper != complement_narrow;
}

/* Units of the argument in the function's own width: a wide argument in a narrow function is
 * converted as wctomb does in the "C" locale (a character above 255 cannot be: -1); a narrow one
 * in a wide function as mbtowc does (each byte its character). */
static int string_out(hcp_pfout *o, uint16_t *u, int len, spec *f, bool wide_arg, unsigned opts) {
    if (f->prec >= 0 && f->prec < len) len = f->prec;
    if (wide_arg && !(opts & PF_WIDE)) {
        int a = fill(o, len, f, true);
        if (a < 0) return -1;
        for (int i = 0; i < len; i++)
            if (u[i] > 0xFF) return -2; /* EILSEQ: the fill before it stays written */
        if (!out_put(o, u, (size_t)len)) return -1;
        int b = fill(o, len, f, false);
        return b < 0 ? -1 : a + len + b;
    }
    return field(o, u, len, f);
}

/* ---- integers ---- */

/* The digits of x with the precision's zeros and the '#' prefix; f->prec becomes their count (so
 * the field does not cut them) and the sign goes to f->sign. */
static int int_text(uint16_t *buf, spec *f, int64_t x) {
    unsigned base = f->fmt == 'o' ? 8 : (f->fmt == 'x' || f->fmt == 'X') ? 16 : 10;
    const char *dg = f->fmt == 'X' ? "0123456789ABCDEFX" : "0123456789abcdefx";
    uint64_t u = (uint64_t)x;
    if (x < 0 && (f->fmt == 'd' || f->fmt == 'i')) {
        u = (uint64_t)0 - u;
        f->sign = '-';
    }
    char tmp[72];
    int i = 0;
    if (!u) {
        f->alt = false;
        if (f->prec) tmp[i++] = '0';
    }
    if (base == 10) /* constant divisors: a multiply each, not a division */
        for (uint64_t v = u; v != 0; v /= 10) tmp[i++] = dg[v % 10];
    else if (base == 16)
        for (uint64_t v = u; v != 0; v >>= 4) tmp[i++] = dg[v & 15];
    else
        for (uint64_t v = u; v != 0; v >>= 3) tmp[i++] = dg[v & 7];
    int n = 0;
    if (f->alt && base == 16) {
        buf[n++] = '0';
        buf[n++] = (uint8_t)dg[16];
    }
    int zeros = f->prec - i;
    bool oct0 = f->alt && base == 8 && zeros <= 0 && i > 0; /* a leading 0, unless zeros lead already */
    if (oct0) buf[n++] = '0';
    for (int k = 0; k < zeros; k++) buf[n++] = '0';
    while (i) buf[n++] = (uint8_t)tmp[--i];
    f->prec = n;
    return n;
}

/* ---- floating point ---- */

/* msvcrt's spellings of infinity and NaN (1.#INF, 1.#IND, 1.#QNAN with their digits and exponent
 * completed by the precision), or the UCRT's C99 ones (inf, nan, nan(ind)). */
static int special_fp(hcp_pfout *o, bool inf, spec *f, unsigned opts) {
    if (!(opts & PF_LEGACY_MSVCRT)) {
        bool up = strchr("AEFG", f->fmt) != NULL;
        const char *s = inf              ? (up ? "INF" : "inf")
                        : f->sign == '-' ? (up ? "NAN(IND)" : "nan(ind)")
                                         : (up ? "NAN" : "nan");
        f->prec = -1;
        f->zero = false;
        return field_ascii(o, s, f);
    }
    int written = 0;
    if (f->fmt == 'g' || f->fmt == 'G') f->prec--; /* msvcrt's own off-by-one for %g */
    char pfx[16];
    int k = 0;
    bool hex = f->fmt == 'a' || f->fmt == 'A';
    if (f->zero && hex) { /* the sign and 0x before the zeros */
        char head[4];
        int h = 0;
        if (f->sign) head[h++] = f->sign;
        head[h++] = '0';
        head[h++] = f->fmt == 'a' ? 'x' : 'X';
        if (!out_ascii(o, head, (size_t)h)) return -1;
        written += h;
        f->width -= h;
        f->sign = 0;
    } else if (hex) {
        pfx[k++] = '0';
        pfx[k++] = f->fmt == 'a' ? 'x' : 'X';
    }
    pfx[k++] = '1';
    pfx[k++] = '.';
    const char *word = inf ? "#INF" : f->sign == '-' ? "#IND" : "#QNAN";
    int frac = (int)strlen(word);
    memcpy(pfx + k, word, (size_t)frac + 1);
    k += frac;
    if (f->prec >= 0 && f->prec < frac) pfx[k + f->prec - frac - 1]++; /* "rounds": 1.#J, 1.$ */
    char sfx[8];
    int s = 0;
    if (strchr("aAeE", f->fmt)) {
        sfx[s++] = f->fmt == 'a' ? 'p' : f->fmt == 'A' ? 'P' : f->fmt;
        sfx[s++] = '+';
        sfx[s++] = '0';
        if (f->fmt == 'e' || f->fmt == 'E') {
            sfx[s++] = '0';
            if (opts & PF_THREE_DIGIT_EXP) sfx[s++] = '0';
        }
    }
    sfx[s] = '\0';
    int sfx_len = !f->alt && (f->fmt == 'g' || f->fmt == 'G') ? frac : f->prec;
    if (sfx_len == -1) sfx_len = strchr("fFeE", f->fmt) ? 6 : hex ? 13 : -1;
    sfx_len += s - frac;
    if (sfx_len > 0) f->width -= sfx_len;
    if (f->prec >= 0) {
        if (!f->prec) f->prec--;
        f->prec += k - frac;
    }
    int r = field_ascii(o, pfx, f);
    if (r < 0) return -1;
    written += r;
    f->width = sfx_len;
    f->zero = true;
    f->prec = -1;
    f->sign = 0;
    r = field_ascii(o, sfx, f);
    return r < 0 ? -1 : written + r;
}

/* %a %A: 0x1.hhhhhhhhhhhhhp+e; with a precision the hex digits round (ties up, or to even with the
 * standard-rounding option) and a larger one pads with zeros. */
static int hex_fp(hcp_pfout *o, double v, spec *f, unsigned opts) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int e = (int)((bits >> 52) & 0x7FF) - 1023;
    uint64_t mant = bits & (((uint64_t)1 << 52) - 1);
    const char *dg = f->fmt == 'A' ? "0123456789ABCDEF" : "0123456789abcdef";
    int written = 0, extra = 0;
    char pfx[32];
    int k = 0;
    if (f->zero) {
        char head[4];
        int h = 0;
        if (f->sign) head[h++] = f->sign;
        head[h++] = '0';
        head[h++] = f->fmt == 'a' ? 'x' : 'X';
        if (!out_ascii(o, head, (size_t)h)) return -1;
        written += h;
        f->width -= h;
        f->sign = 0;
    } else {
        pfx[k++] = '0';
        pfx[k++] = f->fmt == 'a' ? 'x' : 'X';
    }
    if (e == -1023) {
        e = mant ? -1022 : 0;
        pfx[k++] = '0';
    } else {
        pfx[k++] = '1';
    }
    int lead = k - 1;
    pfx[k++] = '.';
    char *d = pfx + k;
    for (int i = 12; i >= 0; i--, mant >>= 4) d[i] = dg[mant & 15];
    if (!f->prec) {
        if (d[0] >= '8') pfx[lead]++;
        k += 0;
        if (!f->alt) k--; /* no point */
    } else if (f->prec > 0 && f->prec < 13) {
        int p = f->prec;
        bool up;
        int dv = d[p] <= '9' ? d[p] - '0' : (d[p] | 0x20) - 'a' + 10;
        if (!(opts & PF_STANDARD_ROUNDING)) {
            up = dv >= 8;
        } else if (dv > 8) {
            up = true;
        } else if (dv == 8) {
            up = false;
            for (int i = p + 1; i < 13; i++) up |= d[i] != '0';
            if (!up) {
                int pv = d[p - 1] <= '9' ? d[p - 1] - '0' : (d[p - 1] | 0x20) - 'a' + 10;
                up = pv & 1;
            }
        } else {
            up = false;
        }
        for (int i = p - 1; i >= 0 && up; i--) {
            up = false;
            if (d[i] == 'f' || d[i] == 'F') {
                d[i] = '0';
                up = true;
            } else if (d[i] == '9') {
                d[i] = f->fmt == 'a' ? 'a' : 'A';
            } else {
                d[i]++;
            }
        }
        if (up) pfx[lead]++;
        k += p;
    } else {
        k += 13;
        if (f->prec > 13) extra = f->prec - 13;
    }
    pfx[k] = '\0';
    char sfx[16];
    int s = snprintf(sfx, sizeof sfx, "%c%c%d", f->fmt == 'a' ? 'p' : 'P', e < 0 ? '-' : '+', e < 0 ? -e : e);
    int sfx_len = s + extra;
    f->width -= sfx_len;
    f->prec = -1;
    int r = field_ascii(o, pfx, f);
    if (r < 0) return -1;
    written += r;
    f->width = sfx_len;
    f->zero = true;
    f->sign = 0;
    r = field_ascii(o, sfx, f);
    return r < 0 ? -1 : written + r;
}

/* %e %f %g (and %E %F %G): the exact decimal value rounded at the precision's digit. */
static int dec_fp(hcp_pfout *o, double v, spec *f, unsigned opts) {
    if (f->prec < 0) f->prec = 6;
    hcp_dec x;
    hcp_dec_of(v, &x);
    if (!x.n) x.point = 1; /* zero: one digit before the point */
    char fm = f->fmt;
    int keep = f->prec;
    if (fm == 'f' || fm == 'F')
        keep += x.point;
    else if (!f->prec || fm == 'e' || fm == 'E')
        keep++;
    hcp_dec_round(&x, keep, (opts & PF_STANDARD_ROUNDING) != 0);
    int point = x.n ? x.point : 1; /* a zero (or a value rounded to 0) has one digit before the point */
    bool trim = false;
    if (fm == 'g' || fm == 'G') {
        trim = true;
        if (point >= -3 && point <= f->prec) {
            fm = (char)(fm - 1); /* f F */
            if (!f->prec) f->prec++;
            f->prec -= point;
        } else {
            fm = (char)(fm - 2); /* e E */
            if (f->prec > 0) f->prec--;
        }
    }
    /* the digit at position i of the fixed-point layout (0 = the first significant digit) */
#define DIG(i) ((i) >= 0 && (i) < x.n ? x.d[i] : '0')
    if (trim && !f->alt) {                                                 /* no trailing zeros in the fraction */
        int last = fm == 'f' || fm == 'F' ? point + f->prec : f->prec + 1; /* digits shown */
        while (f->prec > 0 && DIG(last - 1) == '0') {
            f->prec--;
            last--;
        }
    }
    char buf[1400];
    char *t = buf;
    size_t cap = sizeof buf;
    int need = f->prec + 400;
    if (need > (int)cap) {
        t = malloc((size_t)need + 64);
        if (!t) return -1;
        cap = (size_t)need + 64;
    }
    int n = 0;
    if (fm == 'f' || fm == 'F') {
        if (point <= 0) t[n++] = '0';
        for (int i = 0; i < point; i++) t[n++] = DIG(i);
        if (f->prec || f->alt) t[n++] = '.';
        for (int i = 0; i < f->prec; i++) t[n++] = DIG(point + i);
    } else {
        t[n++] = x.n ? x.d[0] : '0';
        if (f->prec || f->alt) t[n++] = '.';
        for (int i = 1; i <= f->prec; i++) t[n++] = DIG(i);
        int ex = x.n ? point - 1 : 0;
        if (!trim || ex) {
            int mind = (opts & PF_THREE_DIGIT_EXP) ? 3 : 2;
            n += snprintf(t + n, cap - (size_t)n, "%c%c%0*d", fm, ex < 0 ? '-' : '+', mind, ex < 0 ? -ex : ex);
        }
    }
#undef DIG
    spec g = *f;
    g.prec = -1;
    int a = fill(o, n, &g, true);
    int r = a < 0 || !out_ascii(o, t, (size_t)n) ? -1 : 0;
    int b = r < 0 ? -1 : fill(o, n, &g, false);
    if (t != buf) free(t);
    return r < 0 || b < 0 ? -1 : a + n + b;
}

/* ---- the parser ---- */

static int parse_int(const uint16_t *s, int *i) {
    long v = 0;
    while (s[*i] >= '0' && s[*i] <= '9') {
        v = v * 10 + (s[*i] - '0');
        if (v > 0x7FFFFFFF) v = 0x7FFFFFFF;
        (*i)++;
    }
    return (int)v;
}

int64_t hcp_pf_format(hcp_ctx *c, uint64_t fmtp, unsigned opts, hcp_vargs *v, hcp_pfout *o) {
    bool wide = opts & PF_WIDE, msvcrt = opts & PF_MSVCRT, legacy = opts & PF_LEGACY_MSVCRT;
    int flen;
    uint16_t fbuf[256], sbuf[256];
    uint16_t *fmt = read_units(c, fmtp, wide, -1, -1, &flen, fbuf, 256);
    if (!fmt) return -1;
    int64_t written = 0;
    int i = 0;
    while (i < flen && !c->failed) {
        if (fmt[i] != '%') {
            int j = i;
            while (j < flen && fmt[j] != '%') j++;
            if (!out_put(o, fmt + i, (size_t)(j - i))) goto fail;
            written += j - i;
            i = j;
            continue;
        }
        i++;
        if (i < flen && fmt[i] == '%') {
            if (!out_put(o, fmt + i, 1)) goto fail;
            written++;
            i++;
            continue;
        }
        spec f;
        memset(&f, 0, sizeof f);
        f.prec = -1;
        for (; i < flen; i++) {
            uint16_t ch = fmt[i];
            if (ch == '+' || ch == ' ') {
                if (f.sign != '+') f.sign = (char)ch;
            } else if (ch == '-') {
                f.left = true;
            } else if (ch == '0') {
                f.zero = true;
            } else if (ch == '#') {
                f.alt = true;
            } else {
                break;
            }
        }
        if (i < flen && fmt[i] == '*') {
            i++;
            f.width = arg_int(v);
            if (f.width < 0) {
                f.left = true;
                f.width = f.width == INT32_MIN ? 0x7FFFFFFF : -f.width;
            }
        }
        if (!msvcrt && i < flen && fmt[i] >= '0' && fmt[i] <= '9') f.width = 0; /* the UCRT: digits replace '*' */
        while (i < flen && fmt[i] >= '0' && fmt[i] <= '9') { /* msvcrt: digits after '*' go on (%*1d) */
            long w = (long)f.width * 10 + (fmt[i++] - '0');
            f.width = w > 0x7FFFFFFF ? 0x7FFFFFFF : (int)w;
        }
        if (i < flen && fmt[i] == '.') {
            i++;
            f.prec = 0;
            if (i < flen && fmt[i] == '*') {
                i++;
                f.prec = arg_int(v);
                if (f.prec < 0) f.prec = -1;
            } else {
                f.prec = parse_int(fmt, &i);
            }
        }
        if (f.width > PF_MAX_FIELD || f.prec > PF_MAX_FIELD) {
            hcp_stop(c, "a width or precision of %d: hcpsim formats at most %d", f.width > f.prec ? f.width : f.prec,
                     PF_MAX_FIELD);
            goto fail;
        }
        for (; i < flen; i++) { /* size prefixes */
            uint16_t ch = fmt[i], n1 = i + 1 < flen ? fmt[i + 1] : 0, n2 = i + 2 < flen ? fmt[i + 2] : 0;
            bool conv_next = is_int_conv(n1);
            if (ch == 'l' && n1 == 'l') {
                f.ll = true;
                i++;
            } else if (ch == 'l') {
                f.lng = true, f.sh = false;
            } else if (ch == 'h') {
                f.sh = true, f.lng = false;
            } else if (ch == 'I') {
                if (n1 == '6' && n2 == '4') {
                    f.ll = true;
                    i += 2;
                } else if (n1 == '3' && n2 == '2') {
                    i += 2;
                } else if (conv_next) {
                    f.native = true;
                } else {
                    break;
                }
            } else if (ch == 'w') {
                f.wstr = true;
            } else if ((ch == 'z' || ch == 't') && conv_next) {
                f.native = true;
            } else if (ch == 'j') {
                f.ll = true;
            } else if (ch == 'T' && !msvcrt) {
                f.natural = true;
            } else if (ch != 'L' && !((ch == 'F' || ch == 'N') && legacy)) {
                break;
            }
        }
        f.fmt = i < flen && fmt[i] < 128 ? (char)fmt[i] : '\0';
        int r;
        if (f.fmt == 's' || f.fmt == 'S') {
            uint64_t sp = arg_ptr(v);
            bool w2 = arg_is_wide(&f, opts);
            if (!sp) {
                static const uint16_t nul[] = {'(', 'n', 'u', 'l', 'l', ')'};
                r = field(o, nul, 6, &f);
            } else {
                int len;
                uint16_t *u = read_units(c, sp, w2, -1, f.prec, &len, sbuf, 256);
                if (!u) goto fail;
                r = string_out(o, u, len, &f, w2, opts);
                if (u != sbuf) free(u);
            }
        } else if (f.fmt == 'c' || f.fmt == 'C') {
            uint32_t ch = (uint32_t)arg_int(v);
            bool w2 = arg_is_wide(&f, opts);
            uint16_t u = w2 ? (uint16_t)ch : (uint8_t)ch;
            r = string_out(o, &u, 1, &f, w2, opts);
            if (r == -2) { /* msvcrt ignores a character it cannot convert (errno EILSEQ, as wctomb) */
                hcp_crt_set_errno(c, CRT_EILSEQ);
                r = 0;
            }
        } else if (f.fmt == 'p') {
            uint64_t pv = arg_ptr(v);
            int uprec = f.prec;
            f.fmt = 'X';
            f.zero = true;
            f.prec = (int)(2 * c->w);
            uint16_t b[40];
            int n = int_text(b, &f, (int64_t)pv);
            f.zero = false;
            f.prec = uprec;
            r = field(o, b, n, &f);
        } else if (f.fmt == 'n') {
            uint64_t at = arg_ptr(v);
            if (!msvcrt) { /* the UCRT: %n is off unless _set_printf_count_output turned it on */
                hcp_crt *cr = hcp_crt_of(c);
                if (!cr || !cr->count_output) {
                    hcp_crt_invalid(c, CRT_EINVAL);
                    goto fail_errno;
                }
            }
            if (!hcp_wr32(c, at, (uint32_t)written)) goto fail;
            r = 0;
        } else if (is_int_conv((unsigned char)f.fmt)) {
            if ((f.fmt == 'x' || f.fmt == 'X') && f.zero && f.alt && !f.left && f.prec < f.width - 2)
                f.prec = f.width - 2; /* with '#' and '0' the zeros go after 0x */
            int64_t x;
            if (f.ll || (f.native && c->w == 8))
                x = (int64_t)hcp_varg(v, true);
            else if (f.fmt == 'd' || f.fmt == 'i')
                x = f.sh ? (int16_t)arg_int(v) : arg_int(v);
            else
                x = f.sh ? (uint16_t)arg_int(v) : (uint32_t)arg_int(v);
            int cap = (f.prec > f.width ? f.prec : f.width) + 80;
            uint16_t sb[200], *b = cap > 200 ? malloc((size_t)cap * sizeof *b) : sb;
            if (!b) goto fail;
            int n = int_text(b, &f, x);
            r = field(o, b, n, &f);
            if (b != sb) free(b);
        } else if (is_fp_conv((unsigned char)f.fmt)) {
            uint64_t bits = hcp_varg(v, true);
            double d;
            memcpy(&d, &bits, sizeof d);
            if (bits >> 63) {
                f.sign = '-';
                bits &= ~((uint64_t)1 << 63);
                memcpy(&d, &bits, sizeof d);
            }
            if ((bits >> 52) == 0x7FF)
                r = special_fp(o, !(bits & (((uint64_t)1 << 52) - 1)), &f, opts);
            else if (f.fmt == 'a' || f.fmt == 'A')
                r = hex_fp(o, d, &f, opts);
            else
                r = dec_fp(o, d, &f, opts);
        } else { /* an unknown conversion: its flags and prefixes go, the character stays (a text char) */
            if (opts & PF_INVALID_UNKNOWN) {
                hcp_crt_invalid(c, CRT_EINVAL);
                goto fail_errno;
            }
            continue;
        }
        if (r == -2) {
            hcp_crt_set_errno(c, CRT_EILSEQ);
            goto fail_errno;
        }
        if (r < 0) goto fail;
        written += r;
        i++;
    }
    if (fmt != fbuf) free(fmt);
    return c->failed ? -1 : written;
fail:
fail_errno:
    if (fmt != fbuf) free(fmt);
    return -1;
}

/* ---- msvcrt's printf family ---- */

/* To a FILE: formatted first, then written under the stream's lock (another thread holding the
 * stream makes this call wait, and the call is made again when the lock is free). */
uint64_t hcp_pf_to_file(hcp_ctx *c, uint64_t file, uint64_t fmt, unsigned opts, hcp_vargs *v) {
    int fd = hcp_file_fd(c, file);
    if (fd >= 0 && !hcp_stream_enter(c, file)) return 0;
    uint16_t ob[512]; /* a line's output fits here: no host allocation for it */
    char nb[sizeof ob / sizeof ob[0]];
    hcp_pfout o = {0};
    o.u = o.fixed = ob;
    o.cap = sizeof ob / sizeof ob[0];
    o.limit = SIZE_MAX;
    int64_t r = hcp_pf_format(c, fmt, opts, v, &o);
    if (!c->failed && fd >= 0 && o.n) {
        char *b = o.n < sizeof nb ? nb : malloc(o.n + 1);
        if (!b || !narrow_into(&o, b) || hcp_stream_write(c, file, b, o.n) < 0)
            r = -1; /* a wide function's character the code page cannot represent, or a failed write */
        if (b != nb) free(b);
    }
    if (fd >= 0) hcp_stream_leave(c, file);
    if (o.u != ob) free(o.u);
    hcp_work(c, o.n);
    if (fd < 0) return (uint32_t)-1;
    return (uint32_t)(int32_t)r;
}

bool hcp_pf_store(hcp_ctx *c, uint64_t dst, const hcp_pfout *o, bool wide, bool nul) {
    unsigned us = wide ? 2 : 1;
    size_t n = o->n;
    uint8_t *b = malloc((n + 1) * us);
    if (!b) return hcp_stop(c, "out of host memory"), false;
    for (size_t i = 0; i < n; i++) {
        if (us == 2)
            hcp_put16(b + 2 * i, o->u[i]);
        else
            b[i] = (uint8_t)o->u[i];
    }
    if (nul) memset(b + n * us, 0, us);
    bool ok = hcp_wr(c, dst, b, (n + (nul ? 1 : 0)) * us);
    free(b);
    return ok;
}

/* To a buffer of `count` units (bounded) or of any size: the units that fit, then a terminator if
 * it fits; the result as msvcrt's _vsnprintf gives it (-1 when the output did not fit; a NULL
 * buffer counts). */
int64_t hcp_pf_to_mem(hcp_ctx *c, uint64_t dst, uint64_t count, uint64_t fmt, unsigned opts, hcp_vargs *v,
                      bool *overflow) {
    hcp_pfout o = {0};
    o.limit = dst ? (count > HCP_MAX_STR * 64ull ? HCP_MAX_STR * 64ull : count) : SIZE_MAX;
    o.count_only = !dst;
    int64_t r = hcp_pf_format(c, fmt, opts, v, &o);
    *overflow = o.overflow;
    if (dst && !c->failed) hcp_pf_store(c, dst, &o, (opts & PF_WIDE) != 0, o.n < o.limit);
    hcp_work(c, o.n);
    free(o.u);
    return r;
}

static uint64_t stdout_file(hcp_ctx *c) { return c->p->d.iob + c->p->d.file_size; }
/* msvcrt's options: three-digit exponents unless _set_output_format(_TWO_DIGIT_EXPONENT) */
static unsigned msvcrt_opts(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r && r->output_format == 1 ? PF_MSVCRT_OPTS & ~(unsigned)PF_THREE_DIGIT_EXP : PF_MSVCRT_OPTS;
}

uint64_t hcp_crt_printf(hcp_ctx *c, const hcp_crt_printf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_pf_to_file(c, stdout_file(c), a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt_fprintf(hcp_ctx *c, const hcp_crt_fprintf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_pf_to_file(c, a->_File, a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt_vprintf(hcp_ctx *c, const hcp_crt_vprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_pf_to_file(c, stdout_file(c), a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt_vfprintf(hcp_ctx *c, const hcp_crt_vfprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_pf_to_file(c, a->_File, a->_Format, msvcrt_opts(c), &v);
}
static uint64_t to_mem(hcp_ctx *c, uint64_t dst, uint64_t count, uint64_t fmt, unsigned opts, hcp_vargs *v) {
    bool of;
    return (uint32_t)(int32_t)hcp_pf_to_mem(c, dst, count, fmt, opts, v, &of);
}
uint64_t hcp_crt_sprintf(hcp_ctx *c, const hcp_crt_sprintf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return to_mem(c, a->_Dest, CRT_INT_MAX, a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt__snprintf(hcp_ctx *c, const hcp_crt__snprintf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return to_mem(c, a->_Dest, a->_Count, a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt_vsprintf(hcp_ctx *c, const hcp_crt_vsprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_Args};
    return to_mem(c, a->_Dest, CRT_INT_MAX, a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt__vsnprintf(hcp_ctx *c, const hcp_crt__vsnprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_Args};
    return to_mem(c, a->_Dest, a->_Count, a->_Format, msvcrt_opts(c), &v);
}

/* ---- the _s forms, counting, and the wide family ---- */

uint64_t hcp_crt_sprintf_s(hcp_ctx *c, const hcp_crt_sprintf_s_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_crt_vsprintf_s_impl(c, a->_DstBuf, a->_SizeInBytes, a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt_vsprintf_s(hcp_ctx *c, const hcp_crt_vsprintf_s_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_crt_vsprintf_s_impl(c, a->_DstBuf, a->_SizeInBytes, a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt_swprintf_s(hcp_ctx *c, const hcp_crt_swprintf_s_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_crt_vsprintf_s_impl(c, a->_DstBuf, a->_SizeInBytes, a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
uint64_t hcp_crt_vswprintf_s(hcp_ctx *c, const hcp_crt_vswprintf_s_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_crt_vsprintf_s_impl(c, a->_DstBuf, a->_SizeInBytes, a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
uint64_t hcp_crt__snprintf_s(hcp_ctx *c, const hcp_crt__snprintf_s_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_crt_vsnprintf_s_impl(c, a->_DstBuf, a->_SizeInBytes, a->_MaxCount, a->_Format, msvcrt_opts(c), &v);
}
uint64_t hcp_crt__vsnprintf_s(hcp_ctx *c, const hcp_crt__vsnprintf_s_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_crt_vsnprintf_s_impl(c, a->_DstBuf, a->_SizeInBytes, a->_MaxCount, a->_Format, msvcrt_opts(c), &v);
}
/* _scprintf, _vscprintf, _scwprintf, _vscwprintf: the length the output would have */
uint64_t hcp_crt__scprintf(hcp_ctx *c, const hcp_crt__scprintf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    unsigned w = c->ex->name[3] == 'w' ? PF_WIDE : 0;
    return to_mem(c, 0, 0, a->_Format, msvcrt_opts(c) | w, &v);
}
uint64_t hcp_crt__vscprintf(hcp_ctx *c, const hcp_crt__vscprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    unsigned w = c->ex->name[4] == 'w' ? PF_WIDE : 0;
    return to_mem(c, 0, 0, a->_Format, msvcrt_opts(c) | w, &v);
}
/* swprintf (msvcrt's form: no count), _snwprintf, vswprintf, _vsnwprintf */
uint64_t hcp_crt_swprintf(hcp_ctx *c, const hcp_crt_swprintf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return to_mem(c, a->_Dest, CRT_INT_MAX, a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
uint64_t hcp_crt__snwprintf(hcp_ctx *c, const hcp_crt__snwprintf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return to_mem(c, a->_Dest, a->_Count, a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
uint64_t hcp_crt_vswprintf(hcp_ctx *c, const hcp_crt_vswprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_Args};
    return to_mem(c, a->_Dest, CRT_INT_MAX, a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
uint64_t hcp_crt__vsnwprintf(hcp_ctx *c, const hcp_crt__vsnwprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_Args};
    return to_mem(c, a->_Dest, a->_Count, a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
/* wprintf, fwprintf, vwprintf, vfwprintf: to a stream, each character as its byte in the "C" locale */
uint64_t hcp_crt_wprintf(hcp_ctx *c, const hcp_crt_wprintf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_pf_to_file(c, stdout_file(c), a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
uint64_t hcp_crt_fwprintf(hcp_ctx *c, const hcp_crt_fwprintf_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_pf_to_file(c, a->_File, a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
uint64_t hcp_crt_vwprintf(hcp_ctx *c, const hcp_crt_vwprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_pf_to_file(c, stdout_file(c), a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
uint64_t hcp_crt_vfwprintf(hcp_ctx *c, const hcp_crt_vfwprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_pf_to_file(c, a->_File, a->_Format, msvcrt_opts(c) | PF_WIDE, &v);
}
/* printf_s, vprintf_s, fprintf_s, vfprintf_s: an unknown conversion is an invalid parameter */
uint64_t hcp_crt_printf_s(hcp_ctx *c, const hcp_crt_printf_s_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_pf_to_file(c, stdout_file(c), a->_Format, msvcrt_opts(c) | PF_INVALID_UNKNOWN, &v);
}
uint64_t hcp_crt_vprintf_s(hcp_ctx *c, const hcp_crt_vprintf_s_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_pf_to_file(c, stdout_file(c), a->_Format, msvcrt_opts(c) | PF_INVALID_UNKNOWN, &v);
}
uint64_t hcp_crt_fprintf_s(hcp_ctx *c, const hcp_crt_fprintf_s_args *a) {
    hcp_vargs v = {c, false, a->va.word, 0};
    return hcp_pf_to_file(c, a->_File, a->_Format, msvcrt_opts(c) | PF_INVALID_UNKNOWN, &v);
}
uint64_t hcp_crt_vfprintf_s(hcp_ctx *c, const hcp_crt_vfprintf_s_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    return hcp_pf_to_file(c, a->_File, a->_Format, msvcrt_opts(c) | PF_INVALID_UNKNOWN, &v);
}
