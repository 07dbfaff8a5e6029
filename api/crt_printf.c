/* api/crt_printf.c — msvcrt's printf family: the format engine (msvcrt's syntax and
 * its exact output: api/README.md "Windows programs": "Output") and the functions
 * that print to a FILE or a buffer.  The engine reads its variadic arguments
 * from the call's argument words or from a va_list in guest memory. */
#include <stdio.h>
#include <stdlib.h>

#include "api/exports_gen.h"

typedef struct obuf {
    char *b;
    size_t n, cap;
} obuf;
static void ob_add(obuf *o, const char *s, size_t n) {
    if (o->n + n + 1 > o->cap) {
        size_t nc = (o->n + n + 1) * 2;
        char *nb = realloc(o->b, nc);
        if (!nb) return;
        o->b = nb;
        o->cap = nc;
    }
    memcpy(o->b + o->n, s, n);
    o->n += n;
    o->b[o->n] = '\0';
}
static void ob_rep(obuf *o, char ch, int k) {
    for (int i = 0; i < k; i++) ob_add(o, &ch, 1);
}

/* Where the variadic arguments come from: the call's argument words from
 * index k (printf, fprintf), or a va_list in guest memory (vfprintf). */
typedef struct vargs {
    hcp_ctx *c;
    bool mem;
    int k;
    uint64_t at;
} vargs;

static uint64_t next_arg(vargs *v, bool wide) {
    hcp_ctx *c = v->c;
    uint64_t lo = 0, hi = 0;
    if (v->mem) {
        uint8_t b[8] = {0};
        unsigned n = c->w == 8 ? 8 : wide ? 8 : 4;
        hcp_rd(c, v->at, b, n);
        v->at += n;
        return n == 8 ? hcp_get64(b) : hcp_get32(b);
    }
    hcp_word(c, v->k++, &lo);
    if (c->w == 4 && wide) {
        hcp_word(c, v->k++, &hi);
        return (lo & 0xFFFFFFFFu) | hi << 32;
    }
    return lo;
}

static void fmt_exp3(char *s) { /* msvcrt writes at least three exponent digits: 1.5e+000 */
    char *e = strpbrk(s, "eE");
    if (!e || (e[1] != '+' && e[1] != '-')) return;
    size_t digits = strlen(e + 2);
    if (digits >= 3) return;
    memmove(e + 2 + (3 - digits), e + 2, digits + 1);
    memset(e + 2, '0', 3 - digits);
}

/* msvcrt's %e %f %g: the exact decimal value of the double (the host's %.1099e prints every
 * digit exactly) rounded half away from zero, where glibc rounds a tie to even (msvcrt and Wine
 * print 0.5 with %.0f as "1", glibc "0"); exponents of at least three digits. */
typedef struct msdec {
    char dig[1104]; /* d = dig[0].dig[1]dig[2]... x 10^x; digits past n are 0 */
    int n, x;
} msdec;

static void msdec_of(double d, msdec *v) {
    char b[1120];
    snprintf(b, sizeof b, "%.1099e", d);
    v->n = 0;
    const char *s = b;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9' && v->n < (int)sizeof v->dig) v->dig[v->n++] = *s;
    v->x = *s == 'e' ? atoi(s + 1) : 0;
}

static char msdec_at(const msdec *v, int i) { return i >= 0 && i < v->n ? v->dig[i] : '0'; }

/* Keeps k significant digits (k may be 0 or negative: the value rounds to 0 or to 10^(x+1)). */
static void msdec_round(msdec *v, int k) {
    if (k >= v->n) return;
    bool up = k >= 0 && v->dig[k] >= '5';
    if (k <= 0) {
        if (up) { /* 0.5 x 10^(x+1) or more: 1 x 10^(x+1) */
            v->dig[0] = '1';
            v->n = 1;
            v->x++;
        } else {
            v->n = 0;
        }
        return;
    }
    v->n = k;
    for (int i = k - 1; up && i >= 0; i--) {
        if (v->dig[i] == '9') {
            v->dig[i] = '0';
        } else {
            v->dig[i]++;
            up = false;
        }
    }
    if (up) { /* 99.9 -> 100: one digit more in front */
        v->dig[0] = '1';
        for (int i = 1; i < k; i++) v->dig[i] = '0';
        v->x++;
    }
}

static size_t msdec_e(const msdec *v, int pr, bool alt, char e, char *out, size_t cap) {
    size_t k = 0;
    out[k++] = msdec_at(v, 0);
    if (pr > 0 || alt) out[k++] = '.';
    for (int i = 1; i <= pr && k < cap - 8; i++) out[k++] = msdec_at(v, i);
    int x = v->n ? v->x : 0;
    k += (size_t)snprintf(out + k, cap - k, "%c%c%03d", e, x < 0 ? '-' : '+', x < 0 ? -x : x);
    return k;
}

static size_t msdec_f(const msdec *v, int pr, bool alt, char *out, size_t cap) {
    size_t k = 0;
    int x = v->n ? v->x : 0;
    if (x < 0) out[k++] = '0';
    for (int i = 0; i <= x && k < cap - 2; i++) out[k++] = msdec_at(v, i);
    if (pr > 0 || alt) out[k++] = '.';
    for (int i = 1; i <= pr && k < cap - 1; i++) out[k++] = msdec_at(v, x + i);
    out[k] = '\0';
    return k;
}

static void ms_float(char cv, int pr, bool alt, double d, char *out, size_t cap) {
    msdec v;
    msdec_of(d, &v);
    bool zero = d == 0;
    if (zero) v.x = 0;
    size_t k;
    if (cv == 'e' || cv == 'E') {
        msdec_round(&v, pr + 1);
        k = msdec_e(&v, pr, alt, cv, out, cap);
    } else if (cv == 'f') {
        msdec_round(&v, v.x + 1 + pr);
        k = msdec_f(&v, pr, alt, out, cap);
    } else { /* g, G: P significant digits, e-style when the exponent is below -4 or P or more */
        int p = pr == 0 ? 1 : pr;
        msdec_round(&v, p);
        int x = v.n ? v.x : 0;
        if (x < -4 || x >= p)
            k = msdec_e(&v, p - 1, alt, cv == 'g' ? 'e' : 'E', out, cap);
        else
            k = msdec_f(&v, p - 1 - x, alt, out, cap);
        if (!alt) { /* no trailing zeros in the fraction, no lone point */
            char *ex = strpbrk(out, "eE"), tail[16] = "";
            size_t end = ex ? (size_t)(ex - out) : k;
            if (ex) snprintf(tail, sizeof tail, "%s", ex);
            if (memchr(out, '.', end)) {
                while (end > 0 && out[end - 1] == '0') end--;
                if (end > 0 && out[end - 1] == '.') end--;
            }
            k = end + (size_t)snprintf(out + end, cap - end, "%s", tail);
        }
    }
    out[k < cap ? k : cap - 1] = '\0';
}

static void format(hcp_ctx *c, const char *f, vargs *v, obuf *o) {
    for (const char *s = f; *s && !c->failed;) {
        if (*s != '%') {
            const char *e = strchr(s, '%');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            ob_add(o, s, n);
            s += n;
            continue;
        }
        const char *start = s++;
        bool left = false, plus = false, space = false, alt = false, zero = false;
        for (;; s++) {
            if (*s == '-')
                left = true;
            else if (*s == '+')
                plus = true;
            else if (*s == ' ')
                space = true;
            else if (*s == '#')
                alt = true;
            else if (*s == '0')
                zero = true;
            else
                break;
        }
        int width = -1, prec = -1;
        if (*s == '*') {
            int32_t wv = (int32_t)next_arg(v, false);
            s++;
            if (wv < 0) {
                left = true;
                wv = -wv;
            }
            width = wv;
        } else {
            for (width = 0; *s >= '0' && *s <= '9'; s++)
                width = width * 10 + (*s - '0') > 100000 ? 100000 : width * 10 + (*s - '0');
        }
        if (*s == '.') {
            s++;
            if (*s == '*') {
                prec = (int32_t)next_arg(v, false);
                s++;
            } else {
                for (prec = 0; *s >= '0' && *s <= '9'; s++)
                    prec = prec * 10 + (*s - '0') > 100000 ? 100000 : prec * 10 + (*s - '0');
            }
        }
        int size = 0; /* 0 int, 1 short, 2 long(=int), 3 64-bit, 4 pointer-sized, 5 wide char */
        bool longd = false, wch = false, sh = false;
        for (;;) {
            if (*s == 'h')
                sh = true, s++;
            else if (*s == 'l' && s[1] == 'l')
                size = 3, s += 2;
            else if (*s == 'l')
                wch = true, s++;
            else if (*s == 'w')
                wch = true, s++;
            else if (*s == 'L')
                longd = true, s++;
            else if (s[0] == 'I' && s[1] == '6' && s[2] == '4')
                size = 3, s += 3;
            else if (s[0] == 'I' && s[1] == '3' && s[2] == '2')
                size = 2, s += 3;
            else if (*s == 'I' || *s == 'z' || *s == 't' || *s == 'j')
                size = *s == 'j' ? 3 : 4, s++;
            else
                break;
        }
        (void)longd;
        if (size == 4) size = c->w == 8 ? 3 : 2;
        char conv = *s ? *s++ : '\0';
        char num[512], pre[3] = "";
        const char *body = num;
        size_t blen = 0;
        char *heap = NULL;
        switch (conv) {
        case 'd':
        case 'i':
        case 'u':
        case 'o':
        case 'x':
        case 'X': {
            uint64_t raw = next_arg(v, size == 3);
            bool sgn = conv == 'd' || conv == 'i';
            uint64_t mag;
            bool neg = false;
            if (size == 3) {
                mag = raw;
            } else {
                raw &= 0xFFFFFFFFu;
                if (sh) raw &= 0xFFFFu;
                mag = raw;
                if (sgn) raw = sh ? (uint64_t)(int64_t)(int16_t)raw : (uint64_t)(int64_t)(int32_t)raw;
            }
            if (sgn && (int64_t)raw < 0) {
                neg = true;
                mag = (uint64_t)0 - raw;
            } else if (sgn) {
                mag = raw;
            }
            const uint64_t base = conv == 'o' ? 8u : (conv == 'x' || conv == 'X') ? 16u : 10u;
            const char *dg = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
            char tmp[72];
            int n = 0;
            while (mag && n < 70) {
                uint64_t q = mag / base;
                tmp[n++] = dg[mag - q * base];
                mag = q;
            }
            int need = prec < 0 ? 1 : prec;
            if (prec > 400) need = 400;
            int zeros = need > n ? need - n : 0;
            if (base == 8 && alt && zeros == 0 && n > 0 && tmp[n - 1] != '0') zeros = 1; /* %#.0o of 0: "" */
            size_t k = 0;
            for (int i = 0; i < zeros; i++) num[k++] = '0';
            while (n) num[k++] = tmp[--n];
            blen = k;
            if (neg)
                strcpy(pre, "-");
            else if (sgn && plus)
                strcpy(pre, "+");
            else if (sgn && space)
                strcpy(pre, " ");
            if (alt && base == 16 && raw) strcpy(pre, conv == 'X' ? "0X" : "0x");
            if (prec >= 0) zero = false;
            break;
        }
        case 'p': {
            uint64_t pv = next_arg(v, false);
            blen = (size_t)snprintf(num, sizeof num, c->w == 8 ? "%016llX" : "%08llX", (unsigned long long)pv);
            zero = false;
            break;
        }
        case 'c':
        case 'C': {
            num[0] = (char)next_arg(v, false);
            blen = 1;
            zero = false;
            break;
        }
        case 's':
        case 'S': {
            uint64_t sp = next_arg(v, false);
            bool w16 = (conv == 's' && wch) || (conv == 'S' && !sh);
            if (!sp) {
                body = w16 ? "(null)" : "(null)";
                blen = 6;
            } else if (w16) { /* UTF-16 to bytes: code units below 256 as is, others '?' */
                obuf t = {0};
                for (size_t i = 0; i < HCP_MAX_STR && (prec < 0 || (int)i < prec); i++) {
                    uint8_t b2[2];
                    if (!hcp_rd(c, sp + 2 * i, b2, 2)) break;
                    uint16_t u = hcp_get16(b2);
                    if (!u) break;
                    char ch = u < 256 ? (char)u : '?';
                    ob_add(&t, &ch, 1);
                }
                heap = t.b;
                body = heap ? heap : "";
                blen = t.n;
            } else {
                size_t n;
                heap = hcp_gstr(c, sp, &n);
                body = heap ? heap : "";
                blen = heap ? n : 0;
            }
            if (prec >= 0 && (size_t)prec < blen) blen = (size_t)prec;
            zero = false;
            break;
        }
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            uint64_t bits = next_arg(v, true);
            double d;
            memcpy(&d, &bits, sizeof d);
            int pr = prec < 0 ? 6 : prec > 350 ? 350 : prec;
            if (d != d) {
                blen = (size_t)snprintf(num, sizeof num, "%s", "1.#QNAN0");
            } else if (d - d != d - d) {
                blen = (size_t)snprintf(num, sizeof num, "%s", "1.#INF00");
            } else {
                if (d < 0 || (d == 0 && 1 / d < 0)) {
                    strcpy(pre, "-");
                    d = -d;
                } else if (plus) {
                    strcpy(pre, "+");
                } else if (space) {
                    strcpy(pre, " ");
                }
                if (conv == 'f' && d >= 1e300) pr = pr > 40 ? 40 : pr;
                char cv = conv == 'F' ? 'f' : conv;
                if (cv != 'a' && cv != 'A') {
                    ms_float(cv, pr, alt, d, num, sizeof num - 4);
                    blen = strlen(num);
                    break;
                }
                int r = alt ? (cv == 'e'   ? snprintf(num, sizeof num - 4, "%#.*e", pr, d)
                               : cv == 'E' ? snprintf(num, sizeof num - 4, "%#.*E", pr, d)
                               : cv == 'f' ? snprintf(num, sizeof num - 4, "%#.*f", pr, d)
                               : cv == 'g' ? snprintf(num, sizeof num - 4, "%#.*g", pr, d)
                               : cv == 'G' ? snprintf(num, sizeof num - 4, "%#.*G", pr, d)
                               : cv == 'a' ? snprintf(num, sizeof num - 4, "%#.*a", pr, d)
                                           : snprintf(num, sizeof num - 4, "%#.*A", pr, d))
                            : (cv == 'e'   ? snprintf(num, sizeof num - 4, "%.*e", pr, d)
                               : cv == 'E' ? snprintf(num, sizeof num - 4, "%.*E", pr, d)
                               : cv == 'f' ? snprintf(num, sizeof num - 4, "%.*f", pr, d)
                               : cv == 'g' ? snprintf(num, sizeof num - 4, "%.*g", pr, d)
                               : cv == 'G' ? snprintf(num, sizeof num - 4, "%.*G", pr, d)
                               : cv == 'a' ? snprintf(num, sizeof num - 4, "%.*a", pr, d)
                                           : snprintf(num, sizeof num - 4, "%.*A", pr, d));
                blen = r < 0 ? 0 : (size_t)r;
                if (blen >= sizeof num - 4) blen = sizeof num - 5;
                num[blen] = '\0';
                fmt_exp3(num);
                blen = strlen(num);
            }
            break;
        }
        case 'n': {
            uint64_t at = next_arg(v, false);
            if (at) hcp_wr32(c, at, (uint32_t)o->n);
            continue;
        }
        case '%': /* "%%" writes '%'; a '%' after flags, width or precision ("%5%") nothing, as msvcrt */
            if (s - start == 2) ob_add(o, "%", 1);
            continue;
        default: /* an unknown conversion is written as is, as msvcrt does */
            ob_add(o, start, (size_t)(s - start));
            continue;
        }
        size_t plen = strlen(pre), total = plen + blen;
        int pad = width > (int)total ? width - (int)total : 0;
        if (!left && !zero) ob_rep(o, ' ', pad);
        ob_add(o, pre, plen);
        if (!left && zero) ob_rep(o, '0', pad);
        ob_add(o, body, blen);
        if (left) ob_rep(o, ' ', pad);
        free(heap);
    }
}

/* printf-family output: format, then to a FILE or a buffer. */
static uint64_t print_to_file(hcp_ctx *c, uint64_t file, uint64_t fmt, vargs *v) {
    int fd = hcp_file_fd(c, file);
    if (fd >= 0 && !hcp_stream_enter(c, file)) return 0; /* another thread holds the stream: this call waits */
    char *f = hcp_gstr(c, fmt, NULL);
    if (!f) {
        if (fd >= 0) hcp_stream_leave(c, file);
        return (uint32_t)-1;
    }
    obuf o = {0};
    format(c, f, v, &o);
    free(f);
    int64_t w = !c->failed && fd >= 0 ? hcp_stream_write(c, file, o.b, o.n) : -1;
    if (fd >= 0) hcp_stream_leave(c, file);
    uint64_t r = w >= 0 ? o.n : (uint64_t)-1;
    free(o.b);
    return (uint32_t)r;
}

static uint64_t print_to_mem(hcp_ctx *c, uint64_t dst, uint64_t count, bool bounded, uint64_t fmt, vargs *v) {
    char *f = hcp_gstr(c, fmt, NULL);
    if (!f) return 0;
    obuf o = {0};
    format(c, f, v, &o);
    free(f);
    uint64_t r = o.n;
    if (!bounded) {
        hcp_wr(c, dst, o.b ? o.b : "", o.n + 1);
    } else if (count) { /* _snprintf: no terminator when it does not fit, and -1 */
        size_t n = o.n < count ? o.n + 1 : (size_t)count;
        hcp_wr(c, dst, o.b ? o.b : "", n);
        if (o.n >= count) r = (uint64_t)-1;
    } else {
        r = o.n ? (uint64_t)-1 : 0;
    }
    free(o.b);
    return (uint32_t)r;
}

/* ---- the family ---- */

static uint64_t stdout_file(hcp_ctx *c) { return c->p->d.iob + c->p->d.file_size; }

uint64_t hcp_crt_printf(hcp_ctx *c, const hcp_crt_printf_args *a) {
    vargs v = {c, false, a->va.word, 0};
    return print_to_file(c, stdout_file(c), a->_Format, &v);
}
uint64_t hcp_crt_fprintf(hcp_ctx *c, const hcp_crt_fprintf_args *a) {
    vargs v = {c, false, a->va.word, 0};
    return print_to_file(c, a->_File, a->_Format, &v);
}
uint64_t hcp_crt_vprintf(hcp_ctx *c, const hcp_crt_vprintf_args *a) {
    vargs v = {c, true, 0, a->_ArgList};
    return print_to_file(c, stdout_file(c), a->_Format, &v);
}
uint64_t hcp_crt_vfprintf(hcp_ctx *c, const hcp_crt_vfprintf_args *a) {
    vargs v = {c, true, 0, a->_ArgList};
    return print_to_file(c, a->_File, a->_Format, &v);
}
uint64_t hcp_crt_sprintf(hcp_ctx *c, const hcp_crt_sprintf_args *a) {
    vargs v = {c, false, a->va.word, 0};
    return print_to_mem(c, a->_Dest, 0, false, a->_Format, &v);
}
uint64_t hcp_crt__snprintf(hcp_ctx *c, const hcp_crt__snprintf_args *a) {
    vargs v = {c, false, a->va.word, 0};
    return print_to_mem(c, a->_Dest, a->_Count, true, a->_Format, &v);
}
uint64_t hcp_crt_vsprintf(hcp_ctx *c, const hcp_crt_vsprintf_args *a) {
    vargs v = {c, true, 0, a->_Args};
    return print_to_mem(c, a->_Dest, 0, false, a->_Format, &v);
}
uint64_t hcp_crt__vsnprintf(hcp_ctx *c, const hcp_crt__vsnprintf_args *a) {
    vargs v = {c, true, 0, a->_Args};
    return print_to_mem(c, a->_Dest, a->_Count, true, a->_Format, &v);
}
