/* api/crt_scanf.c — msvcrt's scanf family (api/README.md "msvcrt's stdio"): scanf, fscanf,
 * sscanf, _snscanf and the wide swscanf, by msvcrt's rules.
 *
 * One engine reads characters from a string (ANSI or UTF-16, bounded for _snscanf) or a stream
 * (one character of lookahead goes back with ungetc) and stores through the pointers the call
 * passed.  Conversions: d i o u x X p (integers; sizes h l ll L I I32 I64; msvcrt keeps the low
 * bits of a number too large), e E f g G (a double with l or L, else a float; the digits are
 * converted with correct rounding), c s [set] (ranges a-z, ^ negates, ']' first is literal; l, w
 * and the capital C and S store UTF-16), n, %%, and '*' to read without storing.  The result is
 * the number of fields stored, or EOF when the input ended before the first conversion. */
#include <stdio.h>
#include <stdlib.h>

#include "api/crt_int.h"
#include "api/crtio_int.h"
#include "api/exports_gen.h"

typedef struct src {
    hcp_ctx *c;
    /* a string: its units, or a stream */
    const uint16_t *s;
    size_t n, i;
    crt_stream *st;
    int peeked; /* a stream's character read ahead, -2: none */
    size_t consumed;
} src;

static int get(src *r) {
    int ch;
    if (r->st) {
        if (r->peeked != -2) {
            ch = r->peeked;
            r->peeked = -2;
        } else {
            ch = hcp_stream_getc(r->c, r->st);
        }
    } else {
        ch = r->i < r->n ? r->s[r->i++] : -1;
    }
    if (ch >= 0) r->consumed++;
    return ch;
}
static void unget(src *r, int ch) {
    if (ch < 0) return;
    r->consumed--;
    if (r->st)
        r->peeked = ch;
    else
        r->i--;
}
static bool space(int ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }

/* The arguments: the call's own words (msvcrt's functions, `...`) or a va_list (the UCRT's);
 * secure: the UCRT's _CRT_INTERNAL_SCANF_SECURECRT, a buffer size after each c, s and [ pointer. */
typedef struct args {
    hcp_vargs v;
    bool secure;
} args;
static uint64_t next_ptr(args *a) {
    uint64_t v = hcp_varg(&a->v, false);
    return a->v.c->w == 4 ? v & 0xFFFFFFFFu : v;
}

static bool store_int(hcp_ctx *c, uint64_t at, uint64_t v, int size) {
    switch (size) {
    case 1: return hcp_wr16(c, at, (uint16_t)v);
    case 3: return hcp_wr64(c, at, v);
    case 4: return c->w == 8 ? hcp_wr64(c, at, v) : hcp_wr32(c, at, (uint32_t)v);
    default: return hcp_wr32(c, at, (uint32_t)v);
    }
}

static int digit_of(int ch, unsigned base) {
    int d = ch >= '0' && ch <= '9'   ? ch - '0'
            : ch >= 'a' && ch <= 'z' ? ch - 'a' + 10
            : ch >= 'A' && ch <= 'Z' ? ch - 'A' + 10
                                     : 99;
    return d < (int)base ? d : -1;
}

/* The scanset "%[...]" starting after '[': its members; returns the format index after ']'. */
static size_t scanset(const uint16_t *f, size_t n, size_t i, bool *set, bool *neg) {
    *neg = false;
    memset(set, 0, 65536);
    if (i < n && f[i] == '^') *neg = true, i++;
    if (i < n && f[i] == ']') set[']'] = true, i++;
    while (i < n && f[i] != ']') {
        if (i + 2 < n && f[i + 1] == '-' && f[i + 2] != ']') {
            uint16_t a = f[i], b = f[i + 2];
            if (a > b) {
                uint16_t t = a;
                a = b;
                b = t;
            }
            for (uint32_t k = a; k <= b; k++) set[k] = true;
            i += 3;
        } else {
            set[f[i++]] = true;
        }
    }
    return i < n ? i + 1 : i;
}

/* The engine: fmt (UTF-16 units), input r, arguments a; wide: the string functions' default
 * character width (swscanf). */
static int scan(hcp_ctx *c, const uint16_t *f, size_t fn, src *r, args *a, bool wide) {
    int stored = 0, convs = 0;
    bool *set = NULL;
    for (size_t i = 0; i < fn && !c->failed;) {
        uint16_t fc = f[i];
        if (space(fc)) {
            while (i < fn && space(f[i])) i++;
            int ch;
            while ((ch = get(r)) >= 0 && space(ch)) {
            }
            unget(r, ch);
            continue;
        }
        if (fc != '%') {
            int ch = get(r);
            if (ch < 0) goto input_end;
            if (ch != fc) {
                unget(r, ch);
                break;
            }
            i++;
            continue;
        }
        i++;
        if (i < fn && f[i] == '%') {
            int ch;
            while ((ch = get(r)) >= 0 && space(ch)) {
            }
            if (ch < 0) goto input_end;
            if (ch != '%') {
                unget(r, ch);
                break;
            }
            i++;
            continue;
        }
        bool suppress = false;
        if (i < fn && f[i] == '*') suppress = true, i++;
        int width = 0;
        while (i < fn && f[i] >= '0' && f[i] <= '9') width = width * 10 + (f[i++] - '0');
        int size = 0; /* 0 int, 1 short, 2 long, 3 64-bit, 4 pointer-sized; floats: 2/5 double */
        bool wide_ch = wide, dbl = false;
        for (bool more = true; more && i < fn;) {
            switch (f[i]) {
            case 'h': size = 1, wide_ch = false, i++; break;
            case 'l':
                if (i + 1 < fn && f[i + 1] == 'l')
                    size = 3, i += 2;
                else
                    size = 2, dbl = true, wide_ch = true, i++;
                break;
            case 'L': size = 3, dbl = true, i++; break;
            case 'w': wide_ch = true, i++; break;
            case 'I':
                if (i + 2 < fn && f[i + 1] == '6' && f[i + 2] == '4')
                    size = 3, i += 3;
                else if (i + 2 < fn && f[i + 1] == '3' && f[i + 2] == '2')
                    size = 2, i += 3;
                else
                    size = 4, i++;
                break;
            default: more = false;
            }
        }
        if (i >= fn) break;
        uint16_t conv = f[i++];
        if (conv == 'C' || conv == 'S') wide_ch = !wide, conv = (uint16_t)(conv == 'C' ? 'c' : 's');
        if (conv == 'n') {
            if (!suppress) store_int(c, next_ptr(a), r->consumed, size);
            continue;
        }
        convs++;
        int ch = -1;
        if (conv != 'c' && conv != '[') { /* leading white space */
            while ((ch = get(r)) >= 0 && space(ch)) {
            }
            unget(r, ch);
        }
        switch (conv) {
        case 'd':
        case 'i':
        case 'o':
        case 'u':
        case 'x':
        case 'X':
        case 'p':
        case 'P': {
            bool ptr = conv == 'p' || conv == 'P';
            unsigned base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X') ? 16 : ptr ? 17 : conv == 'i' ? 0 : 10;
            if (ptr) size = 4;
            int left = width ? width : INT32_MAX, nd = 0;
            bool neg = false;
            uint64_t v = 0;
            ch = get(r);
            if (ch == '+' || ch == '-') {
                neg = ch == '-';
                left--;
                ch = left > 0 ? get(r) : (unget(r, ch), -1);
                if (!left) ch = -1;
            }
            if (base == 17)
                base = 16; /* %p: hexadecimal digits, no "0x" (msvcrt reads "0x1" as 0) */
            else if (ch == '0' && left > 0 && (base == 0 || base == 16)) {
                nd = 1;
                left--;
                int x = left > 0 ? get(r) : -1;
                if ((x == 'x' || x == 'X') && left > 0) {
                    base = 16;
                    left--;
                    nd = 0;
                    ch = left > 0 ? get(r) : -1;
                } else {
                    if (base == 0) base = 8;
                    ch = x;
                }
            } else if (base == 0) {
                base = 10;
            }
            while (ch >= 0 && left > 0 && digit_of(ch, base) >= 0) {
                v = v * base + (uint64_t)digit_of(ch, base);
                nd++;
                left--;
                ch = left > 0 ? get(r) : -1;
                if (!left) break;
            }
            if (left > 0 || ch >= 0) unget(r, ch);
            if (!nd) {
                if (ch < 0 && !stored && convs == 1) goto input_end;
                goto done;
            }
            if (neg) v = (uint64_t)0 - v;
            if (!suppress) {
                store_int(c, next_ptr(a), v, size);
                stored++;
            }
            break;
        }
        case 'e':
        case 'E':
        case 'f':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            char buf[512];
            int k = 0, left = width ? width : 500;
            bool digits = false, dot = false;
            ch = get(r);
            if ((ch == '+' || ch == '-') && left > 0) buf[k++] = (char)ch, left--, ch = get(r);
            while (ch >= 0 && left > 0 && k < 500) {
                if (ch >= '0' && ch <= '9')
                    digits = true;
                else if (ch == '.' && !dot)
                    dot = true;
                else
                    break;
                buf[k++] = (char)ch, left--;
                ch = get(r);
            }
            if (digits && (ch == 'e' || ch == 'E') && left > 0) {
                int save = k;
                buf[k++] = (char)ch, left--;
                ch = get(r);
                if ((ch == '+' || ch == '-') && left > 0) buf[k++] = (char)ch, left--, ch = get(r);
                bool ed = false;
                while (ch >= '0' && ch <= '9' && left > 0 && k < 510) {
                    buf[k++] = (char)ch, left--, ed = true;
                    ch = get(r);
                }
                if (!ed) k = save; /* "1e" takes the 1 (the e is lost, as msvcrt loses it) */
            }
            unget(r, ch);
            buf[k] = '\0';
            if (!digits) {
                if (ch < 0 && !stored && convs == 1) goto input_end;
                goto done;
            }
            uint16_t ub[512];
            for (int q = 0; q <= k; q++) ub[q] = (uint8_t)buf[q];
            size_t used;
            int range;
            double d = hcp_crt_parse_double(ub, 1, false, &used, &range); /* exact, as strtod */
            if (!suppress) {
                uint64_t at = next_ptr(a);
                if (dbl) {
                    hcp_wr64(c, at, hcp_f64_bits(d));
                } else {
                    float fl = (float)d;
                    uint32_t bits;
                    memcpy(&bits, &fl, 4);
                    hcp_wr32(c, at, bits);
                }
                stored++;
            }
            break;
        }
        case 'c': {
            int count = width ? width : 1, got = 0;
            uint64_t at = suppress ? 0 : next_ptr(a);
            uint64_t room = !suppress && a->secure ? (uint32_t)next_ptr(a) : UINT64_MAX;
            while (got < count && (ch = get(r)) >= 0) {
                if ((uint64_t)got >= room) { /* the buffer is full: its first unit 0, the scan ends (what
                                              * was stored stays: Wine's tests, passing on Windows) */
                    if (wide_ch)
                        hcp_wr16(c, at, 0);
                    else
                        hcp_wr(c, at, "", 1);
                    goto done;
                }
                if (!suppress) {
                    if (wide_ch)
                        hcp_wr16(c, at + 2 * (uint64_t)got, (uint16_t)ch);
                    else
                        hcp_wr(c, at + (uint64_t)got, &(uint8_t){(uint8_t)ch}, 1);
                }
                got++;
            }
            if (!got) goto input_end;
            if (!suppress) stored++;
            if (got < count) goto done;
            break;
        }
        case 's':
        case '[': {
            bool neg = false;
            if (conv == '[') {
                if (!set && !(set = malloc(65536))) goto done;
                i = scanset(f, fn, i, set, &neg);
            }
            uint64_t at = suppress ? 0 : next_ptr(a);
            uint64_t room = !suppress && a->secure ? (uint32_t)next_ptr(a) : UINT64_MAX; /* with its NUL */
            if (!room) goto done;
            int left = width ? width : INT32_MAX, got = 0;
            while (left > 0 && (ch = get(r)) >= 0) {
                bool in = conv == 's' ? !space(ch) : set[(uint16_t)ch] != neg;
                if (!in) {
                    unget(r, ch);
                    break;
                }
                if (!suppress) {
                    if (wide_ch)
                        hcp_wr16(c, at + 2 * (uint64_t)got, (uint16_t)ch);
                    else
                        hcp_wr(c, at + (uint64_t)got, &(uint8_t){(uint8_t)ch}, 1);
                }
                got++;
                left--;
                if ((uint64_t)got >= room) { /* the buffer is full with no room for the NUL: its first unit
                                              * 0, the scan ends (what was stored stays, as in Wine) */
                    if (wide_ch)
                        hcp_wr16(c, at, 0);
                    else
                        hcp_wr(c, at, "", 1);
                    goto done;
                }
            }
            if (!got) {
                if (ch < 0 && !stored && convs == 1) goto input_end;
                goto done;
            }
            if (!suppress) {
                if (wide_ch)
                    hcp_wr16(c, at + 2 * (uint64_t)got, 0);
                else
                    hcp_wr(c, at + (uint64_t)got, "", 1);
                stored++;
            }
            break;
        }
        default: { /* msvcrt: an unknown conversion character is matched as itself ("%\"" reads '"') */
            convs--;
            while ((ch = get(r)) >= 0 && space(ch)) {
            }
            if (ch < 0) goto input_end;
            if (ch != conv) {
                unget(r, ch);
                goto done;
            }
            break;
        }
        }
    }
done:
    free(set);
    if (r->st && r->peeked != -2) { /* the lookahead goes back to the stream */
        if (r->st->nunget < CRT_MAX_UNGET) r->st->unget[r->st->nunget++] = (uint8_t)r->peeked;
        r->peeked = -2;
    }
    return stored;
input_end:
    if (stored) goto done;
    free(set);
    if (r->st && r->peeked != -2) {
        if (r->st->nunget < CRT_MAX_UNGET) r->st->unget[r->st->nunget++] = (uint8_t)r->peeked;
        r->peeked = -2;
    }
    return -1;
}

static uint64_t scan_string(hcp_ctx *c, uint64_t input, uint64_t count, bool bounded, uint64_t fmt, args *a,
                            bool wide) {
    if (!input || !fmt) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    size_t n, fn;
    uint16_t *s = hcp_gwstr(c, input, wide, &n), *f = s ? hcp_gwstr(c, fmt, wide, &fn) : NULL;
    if (!f) {
        free(s);
        return (uint32_t)-1;
    }
    if (bounded && count < n) n = (size_t)count;
    src r = {c, s, n, 0, NULL, -2, 0};
    int res = scan(c, f, fn, &r, a, wide);
    free(s);
    free(f);
    return (uint32_t)res;
}

static uint64_t scan_stream(hcp_ctx *c, uint64_t file, uint64_t fmt, args *a, bool wide) {
    crt_stream *st = hcp_stream_of(c, file);
    if (!st || !fmt) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    if (!hcp_stream_enter(c, file)) return 0; /* waits for the stream's lock */
    st = hcp_stream_of(c, file);
    size_t fn;
    uint16_t *f = hcp_gwstr(c, fmt, wide, &fn);
    int res = -1;
    if (f) {
        src r = {c, NULL, 0, 0, st, -2, 0};
        res = scan(c, f, fn, &r, a, wide);
        free(f);
    }
    hcp_stream_sync(c, st);
    hcp_stream_leave(c, file);
    return (uint32_t)res;
}

/* msvcrt's: the pointers are the call's words from `first` on */
static args words(hcp_ctx *c, int first) { return (args){{c, false, first, 0}, false}; }

uint64_t hcp_crt_sscanf(hcp_ctx *c, const hcp_crt_sscanf_args *a) {
    args v = words(c, a->va.word);
    return scan_string(c, a->_Src, 0, false, a->_Format, &v, false);
}
uint64_t hcp_crt__snscanf(hcp_ctx *c, const hcp_crt__snscanf_args *a) {
    args v = words(c, a->va.word);
    return scan_string(c, a->_Src, a->_MaxCount, true, a->_Format, &v, false);
}
uint64_t hcp_crt_swscanf(hcp_ctx *c, const hcp_crt_swscanf_args *a) {
    args v = words(c, a->va.word);
    return scan_string(c, a->_Src, 0, false, a->_Format, &v, true);
}
uint64_t hcp_crt_fscanf(hcp_ctx *c, const hcp_crt_fscanf_args *a) {
    args v = words(c, a->va.word);
    return scan_stream(c, a->_File, a->_Format, &v, false);
}
uint64_t hcp_crt_fwscanf(hcp_ctx *c, const hcp_crt_fwscanf_args *a) {
    args v = words(c, a->va.word);
    return scan_stream(c, a->_File, a->_Format, &v, true);
}
uint64_t hcp_crt_scanf(hcp_ctx *c, const hcp_crt_scanf_args *a) {
    args v = words(c, a->va.word);
    return scan_stream(c, c->p->d.iob, a->_Format, &v, false);
}

/* The UCRT's entry points (what its scanf, sscanf_s, swscanf, ... call): the pointers from a
 * va_list; option 1 (_CRT_INTERNAL_SCANF_SECURECRT) for the _s forms; a buffer count of
 * (size_t)-1 is a NUL-terminated string. */
#define UCRT_SCANF_SECURECRT 1u
uint64_t hcp_ucrt___stdio_common_vsscanf(hcp_ctx *c, const hcp_ucrt___stdio_common_vsscanf_args *a) {
    bool wide = strstr(c->ex->name, "vsw") != NULL;
    args v = {{c, true, 0, a->_ArgList}, (a->_Options & UCRT_SCANF_SECURECRT) != 0};
    uint64_t all = c->w == 4 ? 0xFFFFFFFFu : UINT64_MAX;
    return scan_string(c, a->_Buffer, a->_BufferCount, a->_BufferCount != all, a->_Format, &v, wide);
}
uint64_t hcp_ucrt___stdio_common_vfscanf(hcp_ctx *c, const hcp_ucrt___stdio_common_vfscanf_args *a) {
    bool wide = strstr(c->ex->name, "vfw") != NULL;
    args v = {{c, true, 0, a->_ArgList}, (a->_Options & UCRT_SCANF_SECURECRT) != 0};
    return scan_stream(c, a->_Stream, a->_Format, &v, wide);
}
