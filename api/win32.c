/* api/win32.c — the functions a loaded program imports (api/README.md "Windows programs").
 *
 * One table: each row a DLL, a name, how the x86 thunk returns (stdcall pops
 * its argument words, cdecl pops none) and the function.  Row i is gate
 * service HCP_SVC_WIN32 + i; KERNEL32 names the call gate already serves
 * (gate.c: GetLastError, Sleep, the HCP functions, ...) resolve to those
 * thunks.  Every function here runs as simulated OS code: it charges the cost
 * table's api_call cycles to the calling thread as kernel work and retires no
 * user instruction of its own (the thunk's 3 are the caller's).  _initterm,
 * _cexit and exit call back into the program, so they are guest code
 * (hcp_win32_stubs), counted as user work like the program's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/pe_int.h"

typedef struct ctx {
    hcp_process *p;
    hcp_os *os;
    sim_machine *m;
    sim_thread *t;
    unsigned w; /* pointer size */
    uint64_t a[8];
    const char *fn; /* "msvcrt.dll!printf", for failures */
    bool failed;
    bool pending; /* the call blocked: its thread waits (or gave its CPU away) */
    int resume;   /* HCP_RESUME_*: what it returns when its thread runs again */
} ctx;

typedef uint64_t (*w32_fn)(ctx *c);

typedef enum { CC_STD, CC_C, CC_DATA } cconv;

typedef struct w32_entry {
    const char *dll, *name;
    cconv cc;
    int nargs; /* fixed argument words */
    w32_fn fn;
    int data; /* CC_DATA: which variable */
} w32_entry;

/* ---- guest memory ------------------------------------------------------------------------------- */

/* A function given memory it cannot read or write stops the run (Windows
 * would raise an access violation inside the DLL; hcpsim does not unwind). */
static bool bad(ctx *c, uint64_t addr, bool write) {
    if (!c->failed)
        snprintf(c->p->failure, sizeof c->p->failure,
                 "%s: %s: access violation %s 0x%llX (an unhandled exception in simulated OS code)", c->p->name, c->fn,
                 write ? "writing" : "reading", (unsigned long long)addr);
    c->failed = true;
    return false;
}
static bool rd(ctx *c, uint64_t at, void *b, size_t n) {
    return !n || sim_mem_read(c->m, at, b, n) == SIM_OK || bad(c, at, false);
}
static bool wrm(ctx *c, uint64_t at, const void *b, size_t n) {
    return !n || sim_mem_write(c->m, at, b, n) == SIM_OK || bad(c, at, true);
}
static bool wr32(ctx *c, uint64_t at, uint32_t v) {
    uint8_t b[4];
    hcp_put32(b, v);
    return wrm(c, at, b, 4);
}
static bool wrp(ctx *c, uint64_t at, uint64_t v) {
    uint8_t b[8];
    hcp_put64(b, v);
    return wrm(c, at, b, c->w);
}
#define MAX_STR (1u << 20)
/* The NUL-terminated string at `at` (at most MAX_STR bytes, malloc'd), or NULL after a failure. */
static char *gstr(ctx *c, uint64_t at, size_t *len) {
    size_t cap = 256, n = 0;
    char *s = malloc(cap);
    while (s) {
        size_t chunk = 0x1000 - (size_t)((at + n) & 0xFFF);
        if (n + chunk + 1 > cap) {
            cap = (n + chunk + 1) * 2;
            char *ns = realloc(s, cap);
            if (!ns) break;
            s = ns;
        }
        if (!rd(c, at + n, s + n, chunk)) {
            /* the string may end before the unreadable page: read it byte by byte */
            c->failed = false;
            c->p->failure[0] = '\0';
            size_t k = 0;
            while (k < chunk && rd(c, at + n + k, s + n + k, 1) && s[n + k]) k++;
            if (k < chunk && !c->failed) {
                n += k;
                break;
            }
            free(s);
            return NULL;
        }
        void *z = memchr(s + n, 0, chunk);
        if (z) {
            n = (size_t)((char *)z - s);
            break;
        }
        n += chunk;
        if (n > MAX_STR) {
            free(s);
            bad(c, at + n, false);
            return NULL;
        }
    }
    if (!s) return NULL;
    s[n] = '\0';
    if (len) *len = n;
    return s;
}

/* ---- output ------------------------------------------------------------------------------------- */

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

static void emit(ctx *c, int fd, const char *s, size_t n) {
    if (c->p->out && n) c->p->out(c->p->out_ud, fd, s, n);
}

/* A FILE stream in text mode (msvcrt's default, _fmode 0): each '\n' is written as "\r\n". */
static void emit_text(ctx *c, int fd, const char *s, size_t n) {
    if (fd >= 0 && fd < 3 && c->p->binary[fd]) {
        emit(c, fd, s, n);
        return;
    }
    size_t from = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n') {
            emit(c, fd, s + from, i - from);
            emit(c, fd, "\r\n", 2);
            from = i + 1;
        }
    emit(c, fd, s + from, n - from);
}

/* The fd of a FILE* (one of _iob[0..2]), or -1. */
static int file_fd(ctx *c, uint64_t f) {
    for (unsigned i = 0; i < 3; i++)
        if (f == c->p->d.iob + i * c->p->d.file_size) return (int)i;
    return -1;
}

/* ---- printf: msvcrt's format syntax --------------------------------------------------------------- */

/* Where the variadic arguments come from: the call's argument words from
 * index k (printf, fprintf), or a va_list in guest memory (vfprintf). */
typedef struct vargs {
    ctx *c;
    bool mem;
    int k;
    uint64_t at;
} vargs;

static uint64_t next_arg(vargs *v, bool wide) {
    ctx *c = v->c;
    uint64_t lo = 0, hi = 0;
    if (v->mem) {
        uint8_t b[8] = {0};
        unsigned n = c->w == 8 ? 8 : wide ? 8 : 4;
        rd(c, v->at, b, n);
        v->at += n;
        return n == 8 ? hcp_get64(b) : hcp_get32(b);
    }
    if (sim_gate_arg_any(c->t, v->k++, &lo) != SIM_OK) bad(c, 0, false);
    if (c->w == 4 && wide) {
        if (sim_gate_arg_any(c->t, v->k++, &hi) != SIM_OK) bad(c, 0, false);
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

static void format(ctx *c, const char *f, vargs *v, obuf *o) {
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
                for (size_t i = 0; i < MAX_STR && (prec < 0 || (int)i < prec); i++) {
                    uint8_t b2[2];
                    if (!rd(c, sp + 2 * i, b2, 2)) break;
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
                heap = gstr(c, sp, &n);
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
            if (at) wr32(c, at, (uint32_t)o->n);
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
static uint64_t print_to_file(ctx *c, uint64_t file, uint64_t fmt, vargs *v) {
    int fd = file_fd(c, file);
    char *f = gstr(c, fmt, NULL);
    if (!f) return (uint64_t)-1;
    obuf o = {0};
    format(c, f, v, &o);
    free(f);
    if (!c->failed && fd >= 1) emit_text(c, fd, o.b, o.n);
    uint64_t r = fd >= 1 ? o.n : (uint64_t)-1;
    free(o.b);
    return (uint32_t)r;
}

static uint64_t print_to_mem(ctx *c, uint64_t dst, uint64_t count, bool bounded, uint64_t fmt, vargs *v) {
    char *f = gstr(c, fmt, NULL);
    if (!f) return 0;
    obuf o = {0};
    format(c, f, v, &o);
    free(f);
    uint64_t r = o.n;
    if (!bounded) {
        wrm(c, dst, o.b ? o.b : "", o.n + 1);
    } else if (count) { /* _snprintf: no terminator when it does not fit, and -1 */
        size_t n = o.n < count ? o.n + 1 : (size_t)count;
        wrm(c, dst, o.b ? o.b : "", n);
        if (o.n >= count) r = (uint64_t)-1;
    } else {
        r = o.n ? (uint64_t)-1 : 0;
    }
    free(o.b);
    return (uint32_t)r;
}

/* ---- the C runtime heap ---------------------------------------------------------------------------- */

static bool heap_init(ctx *c) {
    hcp_process *p = c->p;
    if (p->blocks) return true;
    if (sim_alloc(c->m, HCP_HEAP_SIZE, &p->heap_base) != SIM_OK) return false;
    p->blocks = malloc(64 * sizeof *p->blocks);
    if (!p->blocks) return false;
    p->capblocks = 64;
    p->blocks[0] = (heap_block){p->heap_base, HCP_HEAP_SIZE, 0, false};
    p->nblocks = 1;
    return true;
}

static uint64_t heap_alloc(ctx *c, uint64_t n) {
    hcp_process *p = c->p;
    if (!heap_init(c) || n > HCP_HEAP_SIZE) return 0;
    uint32_t size = (uint32_t)((n + 15) & ~(uint64_t)15);
    if (!size) size = 16;
    for (int i = 0; i < p->nblocks; i++) {
        heap_block *b = &p->blocks[i];
        if (b->used || b->size < size) continue;
        if (b->size > size) { /* split: the rest stays free after it */
            if (p->nblocks >= HCP_HEAP_MAX_BLOCKS) return 0;
            if (p->nblocks == p->capblocks) {
                heap_block *nb = realloc(p->blocks, (size_t)p->capblocks * 2 * sizeof *nb);
                if (!nb) return 0;
                p->blocks = nb;
                p->capblocks *= 2;
                b = &p->blocks[i];
            }
            memmove(&p->blocks[i + 2], &p->blocks[i + 1], (size_t)(p->nblocks - i - 1) * sizeof *b);
            p->blocks[i + 1] = (heap_block){b->addr + size, b->size - size, 0, false};
            p->nblocks++;
            b->size = size;
        }
        b->used = true;
        b->req = (uint32_t)n;
        return b->addr;
    }
    return 0;
}

static int heap_find(hcp_process *p, uint64_t a) {
    int lo = 0, hi = p->nblocks - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (p->blocks[mid].addr == a) return p->blocks[mid].used ? mid : -1;
        if (p->blocks[mid].addr < a)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static bool heap_free(ctx *c, uint64_t a) {
    hcp_process *p = c->p;
    if (!a) return true;
    int i = p->blocks ? heap_find(p, a) : -1;
    if (i < 0) {
        snprintf(p->failure, sizeof p->failure, "%s: %s: 0x%llX is not a block of the heap (heap corruption)", p->name,
                 c->fn, (unsigned long long)a);
        c->failed = true;
        return false;
    }
    p->blocks[i].used = false;
    if (i + 1 < p->nblocks && !p->blocks[i + 1].used) { /* merge with the next */
        p->blocks[i].size += p->blocks[i + 1].size;
        memmove(&p->blocks[i + 1], &p->blocks[i + 2], (size_t)(p->nblocks - i - 2) * sizeof *p->blocks);
        p->nblocks--;
    }
    if (i > 0 && !p->blocks[i - 1].used) { /* and the previous */
        p->blocks[i - 1].size += p->blocks[i].size;
        memmove(&p->blocks[i], &p->blocks[i + 1], (size_t)(p->nblocks - i - 1) * sizeof *p->blocks);
        p->nblocks--;
    }
    return true;
}

static bool zero_fill(ctx *c, uint64_t at, uint64_t n) {
    static const uint8_t z[4096];
    for (uint64_t off = 0; off < n; off += sizeof z)
        if (!wrm(c, at + off, z, n - off < sizeof z ? (size_t)(n - off) : sizeof z)) return false;
    return true;
}

/* ---- process end -------------------------------------------------------------------------------- */

/* ExitProcess: every other thread of the process ends with `code` (a real
 * teardown: Ready, Waiting and preempted threads alike), then the caller's
 * guest call ends. */
static uint64_t end_process(ctx *c, uint32_t code) {
    hcp_process *p = c->p;
    p->exited = true;
    p->exit_code = code;
    for (int i = 0; i < p->nthr; i++)
        if (p->thr[i].t != c->t && sim_thread_state_of(p->thr[i].t) != SIM_TS_TERMINATED)
            sim_thread_exit(p->thr[i].t, code);
    hcp_pthread *r = hcp_process_thread(p, c->t);
    if (r) {
        r->exit_req = true;
        r->exit_code = code;
    }
    sim_gate_end_call(c->t);
    return code;
}

/* ---- KERNEL32 ------------------------------------------------------------------------------------ */

#define STD_HANDLE(fd) (4u * (fd) + 3u) /* 3, 7, 11: console handles as Windows 7 numbered them */

static uint64_t k_ExitProcess(ctx *c) { return end_process(c, (uint32_t)c->a[0]); }
static uint64_t k_nop(ctx *c) {
    (void)c;
    return 0;
}
static uint64_t k_true(ctx *c) {
    (void)c;
    return 1;
}
static uint64_t k_GetStartupInfoA(ctx *c) { /* STARTUPINFOA: cb, the rest 0 (no STARTF_ flags) */
    uint8_t b[104] = {0};
    unsigned n = c->w == 8 ? 104 : 68;
    hcp_put32(b, n);
    wrm(c, c->a[0], b, n);
    return 0;
}
static uint64_t k_GetStdHandle(ctx *c) {
    uint32_t h = (uint32_t)c->a[0];
    if (h == 0xFFFFFFF6u) return STD_HANDLE(0);
    if (h == 0xFFFFFFF5u) return STD_HANDLE(1);
    if (h == 0xFFFFFFF4u) return STD_HANDLE(2);
    hcp_SetLastError(c->os, ERROR_INVALID_HANDLE);
    return c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu; /* INVALID_HANDLE_VALUE */
}
static uint64_t k_WriteFile(ctx *c) {
    uint64_t h = c->a[0] & 0xFFFFFFFFu, buf = c->a[1], done = c->a[3];
    uint32_t n = (uint32_t)c->a[2];
    int fd = h == STD_HANDLE(1) ? 1 : h == STD_HANDLE(2) ? 2 : -1;
    if (fd < 0) {
        hcp_SetLastError(c->os, ERROR_INVALID_HANDLE);
        return 0;
    }
    if (n > MAX_STR) n = MAX_STR;
    char *b = malloc(n ? n : 1);
    if (!b || !rd(c, buf, b, n)) {
        free(b);
        return 0;
    }
    emit(c, fd, b, n);
    free(b);
    if (done) wr32(c, done, n);
    return 1;
}
static bool table_fn(int svc);
static uint64_t win_fail(ctx *c, uint32_t err);
static bool obj_name(ctx *c, uint64_t at, bool wide, char *out, size_t cap);

/* The simulated system DLLs: a fixed pseudo module handle each (no image is mapped there). */
static const struct {
    const char *name, *table; /* the file name, the DLL name of win32.c's table */
    uint32_t handle;
} sysdlls[] = {
    {"kernel32", "KERNEL32.dll", 0x77000000u},
    {"ntdll", "ntdll.dll", 0x77100000u},
    {"msvcrt", "msvcrt.dll", 0x77200000u},
};

/* A module name (ANSI or UTF-16) without its folder; "" after a failure. */
static bool module_name(ctx *c, uint64_t at, bool wide, char *out, size_t cap) {
    char full[260];
    if (!obj_name(c, at, wide, full, sizeof full)) return false;
    const char *b = full;
    for (const char *q = full; *q; q++)
        if (*q == '\\' || *q == '/') b = q + 1;
    size_t n = strlen(b) < cap - 1 ? strlen(b) : cap - 1;
    memcpy(out, b, n);
    out[n] = '\0';
    return true;
}

/* The handle of module `name`: the image itself, a simulated system DLL, or 0. */
static uint64_t module_handle(ctx *c, const char *name) {
    size_t n = strlen(name);
    if (strcasecmp(name, c->p->name) == 0) return c->p->base;
    for (size_t i = 0; i < sizeof sysdlls / sizeof sysdlls[0]; i++) {
        size_t k = strlen(sysdlls[i].name);
        if (strncasecmp(name, sysdlls[i].name, k) == 0 && (n == k || strcasecmp(name + k, ".dll") == 0))
            return sysdlls[i].handle;
    }
    return 0;
}

static uint64_t get_module(ctx *c, bool wide, bool load) {
    if (!c->a[0]) return load ? win_fail(c, ERROR_INVALID_PARAMETER) : c->p->base;
    char name[128];
    if (!module_name(c, c->a[0], wide, name, sizeof name)) return 0;
    uint64_t h = module_handle(c, name);
    return h ? h : win_fail(c, 126); /* ERROR_MOD_NOT_FOUND: hcpsim loads no other DLL */
}
static uint64_t k_GetModuleHandleA(ctx *c) { return get_module(c, false, false); }
static uint64_t k_GetModuleHandleW(ctx *c) { return get_module(c, true, false); }
static uint64_t k_LoadLibraryA(ctx *c) { return get_module(c, false, true); }
static uint64_t k_LoadLibraryW(ctx *c) { return get_module(c, true, true); }

/* GetProcAddress: the image's exports, or a simulated DLL's function (its call-gate thunk) or
 * variable, as an import of that name would resolve; ordinals and unknown names: 127. */
static uint64_t k_GetProcAddress(ctx *c) {
    uint64_t h = c->a[0], at = c->a[1];
    if (at < 0x10000) return win_fail(c, 127); /* by ordinal: hcpsim's DLLs have none */
    char name[128];
    if (!obj_name(c, at, false, name, sizeof name)) return 0;
    if (h == c->p->base) {
        for (int i = 0; i < c->p->nexports; i++)
            if (strcmp(c->p->exports[i].name, name) == 0) return c->p->exports[i].addr;
        return win_fail(c, 127);
    }
    for (size_t i = 0; i < sizeof sysdlls / sizeof sysdlls[0]; i++) {
        if (h != sysdlls[i].handle) continue;
        bool data;
        int svc = hcp_win32_lookup(sysdlls[i].table, name, &data);
        if (svc < 0 || (svc >= (int)HCP_SVC_WIN32 && !table_fn(svc) && !data)) break;
        if (data) return hcp_win32_data(c->p, svc);
        if (svc >= (int)HCP_SVC_WIN32) sim_gate_set_pop(c->m, (uint32_t)svc, hcp_win32_pop(svc));
        return sim_gate_thunk(c->m, (uint32_t)svc);
    }
    return win_fail(c, 127); /* ERROR_PROC_NOT_FOUND */
}
static uint64_t k_GetCommandLineA(ctx *c) { return c->p->d.cmdline_a; }
static uint64_t k_GetCommandLineW(ctx *c) { return c->p->d.cmdline_w; }
static uint64_t k_GetCurrentProcess(ctx *c) { return c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu; }
static uint64_t k_GetCurrentProcessId(ctx *c) {
    (void)c;
    return HCP_ETW_PROCESS_ID;
}
static uint64_t k_QueryPerformanceFrequency(ctx *c) {
    uint8_t b[8];
    hcp_put64(b, 10000000u);
    return wrm(c, c->a[0], b, 8) ? 1 : 0;
}
static uint64_t k_QueryPerformanceCounter(ctx *c) { /* 10 MHz from the virtual clock */
    uint8_t b[8];
    hcp_put64(b, sim_mul_div(sim_clock(c->m), 10000000u, sim_machine_config(c->m)->frequency));
    return wrm(c, c->a[0], b, 8) ? 1 : 0;
}
static uint64_t k_GetTickCount(ctx *c) {
    return (uint32_t)sim_mul_div(sim_clock(c->m), 1000u, sim_machine_config(c->m)->frequency);
}
static uint64_t k_MultiByteToWideChar(ctx *c) { /* ASCII only: byte b becomes code unit b */
    int32_t n = (int32_t)c->a[3], cap = (int32_t)c->a[5];
    uint64_t src = c->a[2], dst = c->a[4];
    size_t len = 0;
    char *s = NULL;
    if (n < 0) {
        if (!(s = gstr(c, src, &len))) return 0;
        len++;
    } else {
        len = (size_t)n;
        if (!(s = malloc(len + 1)) || !rd(c, src, s, len)) {
            free(s);
            return 0;
        }
    }
    if (cap == 0) {
        free(s);
        return (uint32_t)len;
    }
    if ((size_t)cap < len) {
        free(s);
        hcp_SetLastError(c->os, 122); /* ERROR_INSUFFICIENT_BUFFER */
        return 0;
    }
    for (size_t i = 0; i < len && !c->failed; i++) {
        uint8_t b[2];
        hcp_put16(b, (uint8_t)s[i]);
        wrm(c, dst + 2 * i, b, 2);
    }
    free(s);
    return (uint32_t)len;
}
static uint64_t k_WideCharToMultiByte(ctx *c) { /* code units below 256 as bytes, others '?' */
    int32_t n = (int32_t)c->a[3], cap = (int32_t)c->a[5];
    uint64_t src = c->a[2], dst = c->a[4];
    size_t len = 0;
    if (n < 0) {
        uint8_t b[2];
        while (len < MAX_STR && rd(c, src + 2 * len, b, 2) && hcp_get16(b)) len++;
        len++;
    } else {
        len = (size_t)n;
    }
    if (c->failed) return 0;
    if (cap == 0) return (uint32_t)len;
    if ((size_t)cap < len) {
        hcp_SetLastError(c->os, 122);
        return 0;
    }
    for (size_t i = 0; i < len && !c->failed; i++) {
        uint8_t b[2];
        rd(c, src + 2 * i, b, 2);
        uint16_t u = hcp_get16(b);
        uint8_t ch = u < 256 ? (uint8_t)u : '?';
        wrm(c, dst + i, &ch, 1);
    }
    return (uint32_t)len;
}

/* ---- threads and synchronisation (api/README.md "Windows programs": one implementation each) -------- */

#define THREAD_PRIORITY_TIME_CRITICAL 15
#define THREAD_PRIORITY_IDLE (-15)
#define PROCESS_BASE_PRIORITY 8 /* NORMAL_PRIORITY_CLASS */
#define CREATE_SUSPENDED 0x4u
#define ERROR_FILE_NOT_FOUND 2u
#define ERROR_INVALID_ADDRESS 487u

static uint64_t win_fail(ctx *c, uint32_t err) {
    hcp_SetLastError(c->os, err);
    return 0;
}
static uint64_t nt_fail(ctx *c, uint32_t status) { return win_fail(c, hcp_nt_to_win32(status)); }

/* A blocking call: pending when the api/ function reported HCP_PENDING. */
static uint64_t blocking(ctx *c, uint32_t r, int resume) {
    if (r == HCP_PENDING) {
        c->pending = true;
        c->resume = resume;
        return 0;
    }
    return r;
}

/* The thread ends its own guest call: ExitThread, TerminateThread of itself. */
static uint64_t end_thread(ctx *c, uint32_t code) {
    hcp_pthread *r = hcp_process_thread(c->p, c->t);
    if (!r) return win_fail(c, ERROR_INVALID_HANDLE); /* not a thread of the process (a Lua body's t:run) */
    r->exit_req = true;
    r->exit_code = code;
    sim_gate_end_call(c->t);
    return 0;
}

static uint64_t k_CreateThread(ctx *c) { /* (attr, stack, start, param, flags, *tid) */
    hcp_process *p = c->p;
    uint64_t start = c->a[2], param = c->a[3], tidp = c->a[5];
    uint32_t flags = (uint32_t)c->a[4];
    if (!start) return win_fail(c, ERROR_INVALID_PARAMETER);
    if (tidp && sim_mem_probe(c->m, tidp, 4, true) != SIM_OK) return win_fail(c, ERROR_NOACCESS);
    if (!p->spawn) return win_fail(c, ERROR_NOT_SUPPORTED);
    char name[96], why[256] = "";
    snprintf(name, sizeof name, "%s#%d", p->name, p->nthr);
    sim_thread *nt = p->spawn(p->spawn_ud, name, start, param, why, sizeof why);
    if (!nt) {
        snprintf(p->failure, sizeof p->failure, "%s: CreateThread: %s", p->name, why);
        c->failed = true;
        return 0;
    }
    if (hcp_process_add_thread(p, nt) != 0) {
        snprintf(p->failure, sizeof p->failure, "%s: CreateThread: no guest memory for the thread's TEB", p->name);
        c->failed = true;
        return 0;
    }
    if ((flags & CREATE_SUSPENDED) && sim_thread_hold(nt) == SIM_OK) hcp_process_thread(p, nt)->suspend = 1;
    uint64_t h = hcp_thread_handle(c->os, nt, THREAD_ALL_ACCESS);
    if (!h) return win_fail(c, hcp_handle_error(c->os));
    if (tidp) wr32(c, tidp, sim_thread_id(nt));
    return h;
}

static uint64_t k_ResumeThread(ctx *c) { /* the previous suspend count; 0 makes a suspended thread Ready */
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, hcp_handle_arg(c->os, c->a[0]), THREAD_SUSPEND_RESUME, &t);
    if (st != STATUS_SUCCESS) {
        nt_fail(c, st);
        return 0xFFFFFFFFu;
    }
    hcp_pthread *r = hcp_process_thread(c->p, t);
    if (!r || !r->suspend) return 0;
    uint32_t prev = r->suspend--;
    if (!r->suspend) {
        sim_thread_release(t);
        sim_sched_preempt_pending(c->t);
    }
    return prev;
}

static uint64_t k_GetCurrentProcessorNumber(ctx *c) { return (uint32_t)sim_thread_cpu(c->t); }

static uint64_t k_GetProcessAffinityMask(ctx *c) { /* (process, *process mask, *system mask) */
    if (hcp_handle_arg(c->os, c->a[0]) != HCP_CURRENT_PROCESS) return win_fail(c, ERROR_INVALID_HANDLE);
    int n = sim_cpu_count(c->m);
    uint64_t mask = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
    if (sim_mem_probe(c->m, c->a[1], c->w, true) != SIM_OK || sim_mem_probe(c->m, c->a[2], c->w, true) != SIM_OK)
        return win_fail(c, ERROR_NOACCESS);
    wrp(c, c->a[1], mask);
    wrp(c, c->a[2], mask);
    return 1;
}

static uint64_t k_ReadProcessMemory(ctx *c) { /* (process, base, buffer, size, *read): this process only */
    uint64_t n = c->a[3], done = c->a[4];
    if (hcp_handle_arg(c->os, c->a[0]) != HCP_CURRENT_PROCESS) return win_fail(c, ERROR_INVALID_HANDLE);
    if (n > MAX_STR * 64) return win_fail(c, ERROR_INVALID_PARAMETER);
    uint8_t *b = malloc(n ? (size_t)n : 1);
    if (!b) return win_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    bool ok =
        sim_mem_read(c->m, c->a[1], b, (size_t)n) == SIM_OK && sim_mem_write(c->m, c->a[2], b, (size_t)n) == SIM_OK;
    free(b);
    if (done) wrp(c, done, ok ? n : 0);
    return ok ? 1 : win_fail(c, 299); /* ERROR_PARTIAL_COPY */
}

/* SYSTEMTIME (8 WORDs: year, month, day of week, day, hour, minute, second, ms) to a FILETIME. */
static uint64_t k_SystemTimeToFileTime(ctx *c) {
    uint8_t b[16];
    if (!rd(c, c->a[0], b, 16)) return 0;
    unsigned y = hcp_get16(b), mo = hcp_get16(b + 2), d = hcp_get16(b + 6), h = hcp_get16(b + 8),
             mi = hcp_get16(b + 10), s = hcp_get16(b + 12), ms = hcp_get16(b + 14);
    static const unsigned mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1601 || y > 30827 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 ||
        mi > 59 || s > 59 || ms > 999)
        return win_fail(c, ERROR_INVALID_PARAMETER);
    uint64_t days = 0;
    for (unsigned yy = 1601; yy < y; yy++) days += 365 + ((yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0);
    for (unsigned m = 1; m < mo; m++) days += mdays[m - 1] + (m == 2 && leap);
    days += d - 1;
    uint64_t ft = (((days * 24 + h) * 60 + mi) * 60 + s) * 10000000u + (uint64_t)ms * 10000u;
    uint8_t o[8];
    hcp_put32(o, (uint32_t)ft);
    hcp_put32(o + 4, (uint32_t)(ft >> 32));
    return wrm(c, c->a[1], o, 8) ? 1 : 0;
}

static uint64_t k_GetTempPathA(ctx *c) { /* the fixed environment's TEMP, with its backslash */
    static const char dir[] = "C:\\Temp\\";
    uint32_t n = (uint32_t)c->a[0];
    if (n < sizeof dir) return sizeof dir; /* the size needed, its NUL included */
    return wrm(c, c->a[1], dir, sizeof dir) ? sizeof dir - 1 : 0;
}

/* ntdll: RtlNtStatusToDosError (api/errors.c's one table), NtQueryTimerResolution (the machine's tick
 * is its coarsest, finest and current resolution: the clock never changes rate) */
static uint64_t n_RtlNtStatusToDosError(ctx *c) { return hcp_nt_to_win32((uint32_t)c->a[0]); }
static uint64_t n_NtQueryTimerResolution(ctx *c) {
    uint32_t tick = sim_machine_config(c->m)->tick;
    for (int i = 0; i < 3; i++)
        if (sim_mem_probe(c->m, c->a[i], 4, true) != SIM_OK) return STATUS_ACCESS_VIOLATION;
    for (int i = 0; i < 3; i++) wr32(c, c->a[i], tick);
    return STATUS_SUCCESS;
}

static uint64_t k_DeleteFileA(ctx *c) { return win_fail(c, ERROR_FILE_NOT_FOUND); } /* no files are simulated */

static uint64_t k_ExitThread(ctx *c) { return end_thread(c, (uint32_t)c->a[0]); }

static uint64_t k_TerminateThread(ctx *c) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, hcp_handle_arg(c->os, c->a[0]), THREAD_TERMINATE, &t);
    if (st != STATUS_SUCCESS) return nt_fail(c, st);
    if (t == c->t) return end_thread(c, (uint32_t)c->a[1]);
    sim_thread_exit(t, (uint32_t)c->a[1]);
    return 1;
}

static sim_thread *thread_arg(ctx *c, uint64_t h, uint32_t access) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, hcp_handle_arg(c->os, h), access, &t);
    if (st != STATUS_SUCCESS) {
        nt_fail(c, st);
        return NULL;
    }
    return t;
}

static uint64_t k_GetThreadPriority(ctx *c) {
    sim_thread *t = thread_arg(c, c->a[0], THREAD_QUERY_LIMITED_INFORMATION);
    if (!t) return 0x7FFFFFFFu; /* THREAD_PRIORITY_ERROR_RETURN */
    int pr = sim_thread_priority(t), rel = pr - PROCESS_BASE_PRIORITY;
    if (pr >= 15) rel = THREAD_PRIORITY_TIME_CRITICAL;
    if (pr <= 1) rel = THREAD_PRIORITY_IDLE;
    return (uint32_t)rel;
}

static uint64_t k_SetThreadPriority(ctx *c) {
    int32_t n = (int32_t)c->a[1];
    sim_thread *t = thread_arg(c, c->a[0], THREAD_SET_LIMITED_INFORMATION);
    if (!t) return 0;
    int pr;
    if (n >= -2 && n <= 2)
        pr = PROCESS_BASE_PRIORITY + n;
    else if (n == THREAD_PRIORITY_TIME_CRITICAL)
        pr = 15;
    else if (n == THREAD_PRIORITY_IDLE)
        pr = 1;
    else
        return win_fail(c, ERROR_INVALID_PARAMETER);
    sim_thread_set_priority(t, pr);
    sim_sched_preempt_pending(c->t); /* a Ready thread above the caller now takes its CPU */
    return 1;
}

static uint64_t k_SetThreadAffinityMask(ctx *c) {
    sim_thread *t = thread_arg(c, c->a[0], THREAD_SET_LIMITED_INFORMATION);
    if (!t) return 0;
    uint64_t mask = c->w == 4 ? (c->a[1] & 0xFFFFFFFFu) : c->a[1], old;
    if (sim_thread_set_affinity(t, mask, &old) != SIM_OK) return win_fail(c, ERROR_INVALID_PARAMETER);
    return old;
}

static uint64_t k_SetThreadIdealProcessor(ctx *c) {
    sim_thread *t = thread_arg(c, c->a[0], THREAD_SET_LIMITED_INFORMATION);
    if (!t) return 0xFFFFFFFFu;
    uint32_t n = (uint32_t)c->a[1];
    if (n == 64) return (uint32_t)sim_thread_ideal(t); /* MAXIMUM_PROCESSORS: a query */
    int prev = n < 64 ? sim_thread_set_ideal(t, (int)n) : -1;
    if (prev < 0) {
        win_fail(c, ERROR_INVALID_PARAMETER);
        return 0xFFFFFFFFu;
    }
    return (uint32_t)prev;
}

static uint64_t k_DuplicateHandle(ctx *c) { /* (srcProc, src, dstProc, *dst, access, inherit, options) */
    uint64_t sp = hcp_handle_arg(c->os, c->a[0]), dp = hcp_handle_arg(c->os, c->a[2]), out = c->a[3];
    uint32_t access = (uint32_t)c->a[4], options = (uint32_t)c->a[6];
    if (sp != HCP_CURRENT_PROCESS || dp != HCP_CURRENT_PROCESS) return win_fail(c, ERROR_INVALID_HANDLE);
    obj_type type;
    sim_thread *t;
    sim_object *o;
    uint32_t have;
    uint32_t st = hcp_handle_info(c->os, c->a[1], &type, &t, &o, &have);
    if (st != STATUS_SUCCESS) return nt_fail(c, st);
    if (out && sim_mem_probe(c->m, out, c->w, true) != SIM_OK) return win_fail(c, ERROR_NOACCESS);
    uint32_t want = (options & 2) ? have : access; /* DUPLICATE_SAME_ACCESS */
    if (type == OBJ_THREAD && (want & MAXIMUM_ALLOWED)) want = THREAD_ALL_ACCESS;
    uint64_t h = hcp_handle_new(c->os, type, t, o, want);
    if (!h) return win_fail(c, hcp_handle_error(c->os));
    if (options & 1) hcp_CloseHandle(c->os, c->a[1]); /* DUPLICATE_CLOSE_SOURCE */
    if (out) wrp(c, out, h);
    return 1;
}

/* ---- named objects ---- */

/* The object's name (ANSI or UTF-16 as bytes), "" for NULL; false after a failure. */
static bool obj_name(ctx *c, uint64_t at, bool wide, char *out, size_t cap) {
    out[0] = '\0';
    if (!at) return true;
    for (size_t i = 0; i + 1 < cap; i++) {
        uint8_t b[2] = {0, 0};
        if (!rd(c, at + (wide ? 2 * i : i), b, wide ? 2 : 1)) return false;
        uint16_t u = wide ? hcp_get16(b) : b[0];
        out[i] = (char)(u < 256 ? u : '?');
        out[i + 1] = '\0';
        if (!u) return true;
    }
    return true;
}

static hcp_named *named_find(hcp_process *p, const char *name) {
    for (int i = 0; i < p->nnamed; i++)
        if (strcmp(p->named[i].name, name) == 0) return &p->named[i];
    return NULL;
}

static uint32_t all_access(obj_type t) {
    return t == OBJ_EVENT ? EVENT_ALL_ACCESS : t == OBJ_MUTEX ? MUTEX_ALL_ACCESS : SEMAPHORE_ALL_ACCESS;
}

/* Create*: a name already used returns a new handle to that object with ERROR_ALREADY_EXISTS
 * (another type: ERROR_INVALID_HANDLE); otherwise made() made the handle. */
static uint64_t create_named(ctx *c, obj_type type, uint64_t name_at, bool wide, uint64_t (*make)(ctx *)) {
    hcp_process *p = c->p;
    char name[128];
    if (!obj_name(c, name_at, wide, name, sizeof name)) return 0;
    hcp_named *n = name[0] ? named_find(p, name) : NULL;
    if (n) {
        if (n->type != type) return win_fail(c, ERROR_INVALID_HANDLE);
        uint64_t h = hcp_handle_new(c->os, type, NULL, n->o, all_access(type));
        if (!h) return win_fail(c, hcp_handle_error(c->os));
        hcp_SetLastError(c->os, ERROR_ALREADY_EXISTS);
        return h;
    }
    uint64_t h = make(c);
    if (!h || !name[0]) {
        if (h) hcp_SetLastError(c->os, ERROR_SUCCESS);
        return h;
    }
    if (p->nnamed == p->capnamed) {
        int nc = p->capnamed ? 2 * p->capnamed : 8;
        hcp_named *nn = realloc(p->named, (size_t)nc * sizeof *nn);
        if (!nn) return h;
        p->named = nn;
        p->capnamed = nc;
    }
    obj_type ty;
    sim_thread *t;
    sim_object *o;
    uint32_t acc;
    hcp_handle_info(c->os, h, &ty, &t, &o, &acc);
    hcp_named *e = &p->named[p->nnamed++];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->type = type;
    e->o = o;
    hcp_SetLastError(c->os, ERROR_SUCCESS);
    return h;
}

static uint64_t open_named(ctx *c, obj_type type, bool wide) { /* (access, inherit, name) */
    char name[128];
    if (!obj_name(c, c->a[2], wide, name, sizeof name)) return 0;
    if (!name[0]) return win_fail(c, ERROR_INVALID_PARAMETER);
    hcp_named *n = named_find(c->p, name);
    if (!n) return win_fail(c, ERROR_FILE_NOT_FOUND);
    if (n->type != type) return win_fail(c, ERROR_INVALID_HANDLE);
    uint32_t access = (uint32_t)c->a[0];
    if (access & MAXIMUM_ALLOWED) access = all_access(type);
    uint64_t h = hcp_handle_new(c->os, type, NULL, n->o, access & all_access(type));
    if (!h) return win_fail(c, hcp_handle_error(c->os));
    return h;
}

static uint64_t make_event(ctx *c) { return hcp_create_event(c->os, (uint32_t)c->a[1] != 0, (uint32_t)c->a[2] != 0); }
static uint64_t make_mutex(ctx *c) { return hcp_create_mutex(c->os, (uint32_t)c->a[1] != 0); }
static uint64_t make_semaphore(ctx *c) {
    return hcp_create_semaphore(c->os, (int32_t)(uint32_t)c->a[1], (int32_t)(uint32_t)c->a[2]);
}
static uint64_t k_CreateEventA(ctx *c) { return create_named(c, OBJ_EVENT, c->a[3], false, make_event); }
static uint64_t k_CreateEventW(ctx *c) { return create_named(c, OBJ_EVENT, c->a[3], true, make_event); }
static uint64_t k_CreateMutexA(ctx *c) { return create_named(c, OBJ_MUTEX, c->a[2], false, make_mutex); }
static uint64_t k_CreateMutexW(ctx *c) { return create_named(c, OBJ_MUTEX, c->a[2], true, make_mutex); }
static uint64_t k_CreateSemaphoreA(ctx *c) { return create_named(c, OBJ_SEMAPHORE, c->a[3], false, make_semaphore); }
static uint64_t k_CreateSemaphoreW(ctx *c) { return create_named(c, OBJ_SEMAPHORE, c->a[3], true, make_semaphore); }
static uint64_t k_OpenEventA(ctx *c) { return open_named(c, OBJ_EVENT, false); }
static uint64_t k_OpenEventW(ctx *c) { return open_named(c, OBJ_EVENT, true); }
static uint64_t k_OpenMutexA(ctx *c) { return open_named(c, OBJ_MUTEX, false); }
static uint64_t k_OpenMutexW(ctx *c) { return open_named(c, OBJ_MUTEX, true); }
static uint64_t k_OpenSemaphoreA(ctx *c) { return open_named(c, OBJ_SEMAPHORE, false); }
static uint64_t k_OpenSemaphoreW(ctx *c) { return open_named(c, OBJ_SEMAPHORE, true); }

static uint64_t k_PulseEvent(ctx *c) { /* set (waking what a set wakes), then reset */
    sim_object *o;
    obj_type type;
    uint32_t st = hcp_ref_object(c->os, hcp_handle_arg(c->os, c->a[0]), OBJ_EVENT, EVENT_MODIFY_STATE, &type, &o);
    if (st != STATUS_SUCCESS) return nt_fail(c, st);
    sim_event_set(o);
    sim_event_reset(o);
    sim_sched_preempt_pending(c->t);
    return 1;
}

/* The Ex waits: alertable waits end only as the plain ones do (no APCs are simulated). */
static uint64_t k_WaitForSingleObjectEx(ctx *c) {
    return blocking(c, hcp_WaitForSingleObject(c->os, hcp_handle_arg(c->os, c->a[0]), (uint32_t)c->a[1]),
                    HCP_RESUME_WAIT);
}
static uint64_t k_WaitForMultipleObjectsEx(ctx *c) {
    return blocking(
        c, hcp_WaitForMultipleObjects(c->os, (uint32_t)c->a[0], c->a[1], (uint32_t)c->a[2] != 0, (uint32_t)c->a[3]),
        HCP_RESUME_WAIT);
}
static uint64_t k_SleepEx(ctx *c) { return blocking(c, hcp_Sleep(c->os, (uint32_t)c->a[0]), HCP_RESUME_VOID); }

/* ---- critical sections: a mutex of the machine per CRITICAL_SECTION address ---- */

static hcp_cs *cs_find(hcp_process *p, uint64_t addr) {
    for (int i = 0; i < p->ncs; i++)
        if (p->cs[i].addr == addr) return &p->cs[i];
    return NULL;
}

static uint64_t k_InitializeCriticalSection(ctx *c) { /* 40 bytes (x64) / 24 (x86): LockCount -1, the rest 0 */
    hcp_process *p = c->p;
    uint8_t b[40] = {0};
    unsigned n = c->w == 8 ? 40 : 24;
    hcp_put32(b + c->w, 0xFFFFFFFFu);
    if (!wrm(c, c->a[0], b, n)) return 0;
    hcp_cs *e = cs_find(p, c->a[0]);
    if (!e) {
        if (p->ncs == p->capcs) {
            int nc = p->capcs ? 2 * p->capcs : 16;
            hcp_cs *ncs = realloc(p->cs, (size_t)nc * sizeof *ncs);
            if (!ncs) return 0;
            p->cs = ncs;
            p->capcs = nc;
        }
        e = &p->cs[p->ncs++];
        e->addr = c->a[0];
    }
    e->mx = sim_mutex_new(c->m, false); /* a new, unowned lock (re-initialization forgets the old one) */
    return 1;                           /* InitializeCriticalSectionAndSpinCount's TRUE */
}

static sim_object *cs_mutex(ctx *c) {
    hcp_cs *e = cs_find(c->p, c->a[0]);
    if (!e || !e->mx) {
        snprintf(c->p->failure, sizeof c->p->failure,
                 "%s: %s: 0x%llX is not an initialized CRITICAL_SECTION (an access violation on Windows)", c->p->name,
                 c->fn, (unsigned long long)c->a[0]);
        c->failed = true;
        return NULL;
    }
    return e->mx;
}

static uint64_t k_EnterCriticalSection(ctx *c) {
    sim_object *mx = cs_mutex(c);
    if (!mx) return 0;
    if (sim_wait(c->t, &mx, 1, false, SIM_INFINITE, SIM_WR_USER_REQUEST) == SIM_WAIT_BLOCKED) {
        c->pending = true;
        c->resume = HCP_RESUME_VOID;
    }
    return 0;
}
static uint64_t k_TryEnterCriticalSection(ctx *c) {
    sim_object *mx = cs_mutex(c);
    if (!mx) return 0;
    sim_wait(c->t, &mx, 1, false, 0, SIM_WR_USER_REQUEST); /* a zero timeout never blocks */
    return sim_wait_status(c->t) == SIM_WAIT_OBJECT_0;
}
static uint64_t k_LeaveCriticalSection(ctx *c) {
    sim_object *mx = cs_mutex(c);
    if (!mx) return 0;
    if (sim_mutex_release(c->t, mx) != 0) {
        snprintf(c->p->failure, sizeof c->p->failure, "%s: %s: thread %u does not own the CRITICAL_SECTION at 0x%llX",
                 c->p->name, c->fn, (unsigned)sim_thread_id(c->t), (unsigned long long)c->a[0]);
        c->failed = true;
        return 0;
    }
    sim_sched_preempt_pending(c->t);
    return 0;
}
static uint64_t k_DeleteCriticalSection(ctx *c) {
    hcp_cs *e = cs_find(c->p, c->a[0]);
    if (e) e->mx = NULL;
    return 0;
}

/* ---- TLS ---- */

static uint64_t k_TlsAlloc(ctx *c) {
    for (int i = 0; i < HCP_TLS_SLOTS; i++)
        if (!c->p->tls_used[i]) {
            c->p->tls_used[i] = 1;
            for (int k = 0; k < c->p->nthr; k++) /* a new index reads 0 in every thread */
                if (c->p->thr[k].tls) c->p->thr[k].tls[i] = 0;
            return (uint32_t)i;
        }
    win_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    return 0xFFFFFFFFu; /* TLS_OUT_OF_INDEXES */
}
static uint64_t k_TlsFree(ctx *c) {
    uint32_t i = (uint32_t)c->a[0];
    if (i >= HCP_TLS_SLOTS || !c->p->tls_used[i]) return win_fail(c, ERROR_INVALID_PARAMETER);
    c->p->tls_used[i] = 0;
    return 1;
}
static uint64_t k_TlsGetValue(ctx *c) {
    uint32_t i = (uint32_t)c->a[0];
    hcp_pthread *r = hcp_process_thread(c->p, c->t);
    if (i >= HCP_TLS_SLOTS) return win_fail(c, ERROR_INVALID_PARAMETER);
    hcp_SetLastError(c->os, ERROR_SUCCESS);
    return r && r->tls ? r->tls[i] : 0;
}
static uint64_t k_TlsSetValue(ctx *c) {
    uint32_t i = (uint32_t)c->a[0];
    hcp_pthread *r = hcp_process_thread(c->p, c->t);
    if (i >= HCP_TLS_SLOTS || !r) return win_fail(c, ERROR_INVALID_PARAMETER);
    if (!r->tls && !(r->tls = calloc(HCP_TLS_SLOTS, sizeof *r->tls))) return win_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    r->tls[i] = c->w == 4 ? c->a[1] & 0xFFFFFFFFu : c->a[1];
    return 1;
}

/* ---- time from the virtual clock ---- */

static uint64_t now_100ns(ctx *c) {
    return sim_mul_div(sim_clock(c->m), 10000000u, sim_machine_config(c->m)->frequency);
}

static uint64_t k_GetTickCount64(ctx *c) {
    uint64_t v = sim_mul_div(sim_clock(c->m), 1000u, sim_machine_config(c->m)->frequency);
    sim_gate_result_high(c->t, (uint32_t)(v >> 32));
    return v;
}
static uint64_t filetime_out(ctx *c, uint64_t ft) {
    uint8_t b[8];
    hcp_put32(b, (uint32_t)ft);
    hcp_put32(b + 4, (uint32_t)(ft >> 32));
    wrm(c, c->a[0], b, 8);
    return 0; /* VOID */
}
/* The system time as the clock interrupt last set it: whole ticks since boot. */
static uint64_t k_GetSystemTimeAsFileTime(ctx *c) {
    uint32_t tick = sim_machine_config(c->m)->tick;
    uint64_t t = now_100ns(c);
    return filetime_out(c, sim_machine_config(c->m)->boot_time + t / tick * tick);
}
static uint64_t k_GetSystemTimePreciseAsFileTime(ctx *c) {
    return filetime_out(c, sim_machine_config(c->m)->boot_time + now_100ns(c));
}

/* ---- memory ---- */

#define MEM_COMMIT 0x1000u
#define MEM_RESERVE 0x2000u
#define MEM_DECOMMIT 0x4000u
#define MEM_RELEASE 0x8000u
#define MEM_FREE 0x10000u
#define MEM_PRIVATE 0x20000u
#define MEM_IMAGE 0x1000000u

/* PAGE_* to SIM_PROT_*: -1 for a protection hcpsim cannot give (executable memory, guard pages). */
static int page_prot(uint32_t pp) {
    switch (pp) {
    case 0x01: return 0;                              /* PAGE_NOACCESS */
    case 0x02: return SIM_PROT_READ;                  /* PAGE_READONLY */
    case 0x04: return SIM_PROT_READ | SIM_PROT_WRITE; /* PAGE_READWRITE */
    default: return -1;
    }
}

static hcp_vregion *va_find(hcp_process *p, uint64_t a) {
    for (int i = 0; i < p->nva; i++)
        if (!p->va[i].released && a >= p->va[i].base && a - p->va[i].base < p->va[i].size) return &p->va[i];
    return NULL;
}

#define VA_SEARCH_BASE UINT64_C(0x20000000)

static uint64_t k_VirtualAlloc(ctx *c) { /* (addr, size, type, protect) */
    hcp_process *p = c->p;
    uint64_t want = c->a[0], size = c->a[1];
    uint32_t type = (uint32_t)c->a[2], protect = (uint32_t)c->a[3];
    int prot = page_prot(protect);
    if (!size || !(type & (MEM_COMMIT | MEM_RESERVE)) || (type & ~(MEM_COMMIT | MEM_RESERVE)))
        return win_fail(c, ERROR_INVALID_PARAMETER);
    if (prot < 0) return win_fail(c, ERROR_NOT_SUPPORTED);
    if (want) { /* inside a region already made: a commit of reserved pages (reserved pages are committed) */
        hcp_vregion *r = va_find(p, want);
        if (r && size <= r->base + r->size - want) return want & ~(uint64_t)0xFFF;
        if (r) return win_fail(c, ERROR_INVALID_ADDRESS);
    }
    uint64_t len = (size + 0xFFFu) & ~(uint64_t)0xFFF, top = c->w == 4 ? UINT64_C(0x7FFF0000) : UINT64_C(1) << 46;
    if (len > (uint64_t)1 << 32) return win_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    uint64_t base = want ? want & ~(uint64_t)0xFFFF : VA_SEARCH_BASE;
    if (want && !sim_range_free(c->m, base, len)) return win_fail(c, ERROR_INVALID_ADDRESS);
    for (int k = 0; !want && k < 65536 && !sim_range_free(c->m, base, len); k++) base += 0x10000;
    if (base + len > top || sim_map_fixed(c->m, base, len, (unsigned)prot, NULL, 0) != SIM_OK)
        return win_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if (p->nva == p->capva) {
        int nc = p->capva ? 2 * p->capva : 16;
        hcp_vregion *n = realloc(p->va, (size_t)nc * sizeof *n);
        if (!n) return win_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        p->va = n;
        p->capva = nc;
    }
    p->va[p->nva++] = (hcp_vregion){base, len, protect, false};
    return base;
}

static uint64_t k_VirtualFree(ctx *c) { /* (addr, size, type) */
    hcp_vregion *r = va_find(c->p, c->a[0]);
    uint32_t type = (uint32_t)c->a[2];
    if (!r || (type != MEM_RELEASE && type != MEM_DECOMMIT)) return win_fail(c, ERROR_INVALID_PARAMETER);
    if (type == MEM_RELEASE) {
        if (c->a[0] != r->base || c->a[1]) return win_fail(c, ERROR_INVALID_PARAMETER);
        sim_protect_fixed(c->m, r->base, r->size, 0); /* its pages fault from now on; the range stays taken */
        r->released = true;
    }
    return 1;
}

static uint64_t k_VirtualProtect(ctx *c) { /* (addr, size, new, *old) */
    hcp_vregion *r = va_find(c->p, c->a[0]);
    uint32_t np = (uint32_t)c->a[2];
    if (c->a[3] && sim_mem_probe(c->m, c->a[3], 4, true) != SIM_OK) return win_fail(c, ERROR_NOACCESS);
    if (!r) { /* the image's pages keep their protection (mingw's pseudo-relocations ask): old = READWRITE */
        if (c->a[3]) wr32(c, c->a[3], 0x04);
        return 1;
    }
    int prot = page_prot(np);
    if (prot < 0) return win_fail(c, ERROR_NOT_SUPPORTED);
    if (c->a[0] != r->base || ((c->a[1] + 0xFFFu) & ~(uint64_t)0xFFF) != r->size)
        return win_fail(c, ERROR_NOT_SUPPORTED); /* part of a region: see the README */
    if (sim_protect_fixed(c->m, r->base, r->size, (unsigned)prot) != SIM_OK)
        return win_fail(c, ERROR_INVALID_PARAMETER);
    if (c->a[3]) wr32(c, c->a[3], r->protect);
    r->protect = np;
    return 1;
}

static uint32_t section_page_prot(uint32_t flags) {
    bool w = flags & 0x80000000u, x = flags & 0x20000000u;
    return x ? (w ? 0x40u : 0x20u) : (w ? 0x04u : 0x02u);
}

static uint64_t k_VirtualQuery(ctx *c) { /* (addr, MEMORY_BASIC_INFORMATION *, length) */
    hcp_process *p = c->p;
    uint64_t a = c->a[0] & ~(uint64_t)0xFFF, out = c->a[1];
    unsigned n = c->w == 8 ? 48 : 28;
    if (c->a[2] < n) return win_fail(c, ERROR_BAD_LENGTH);
    uint64_t alloc = 0, size = 0x1000;
    uint32_t aprot = 0, state = MEM_FREE, prot = 0x01, type = 0;
    hcp_vregion *r = va_find(p, a);
    if (r) {
        alloc = r->base;
        aprot = r->protect;
        prot = r->protect;
        size = r->base + r->size - a;
        state = MEM_COMMIT;
        type = MEM_PRIVATE;
    } else if (a >= p->base && a - p->base < p->pe.size_of_image) {
        uint32_t rva = (uint32_t)(a - p->base), end = rva + 0x1000;
        prot = 0x02; /* headers and gaps: read-only */
        for (int s = 0; s < p->pe.nsections; s++) {
            const hcp_pe_section *sc = &p->pe.sec[s];
            uint32_t span = ((sc->vsize ? sc->vsize : sc->rawsize) + 0xFFFu) & ~0xFFFu;
            if (rva >= sc->rva && rva - sc->rva < span) {
                prot = section_page_prot(sc->flags);
                end = sc->rva + span;
            }
        }
        alloc = p->base;
        aprot = 0x80; /* PAGE_EXECUTE_WRITECOPY */
        size = end - rva;
        state = MEM_COMMIT;
        type = MEM_IMAGE;
    } else if (sim_mem_probe(c->m, a, 1, false) == SIM_OK) { /* the process block, stacks, heaps: committed */
        bool wr = sim_mem_probe(c->m, a, 1, true) == SIM_OK;
        alloc = a;
        aprot = prot = wr ? 0x04 : 0x02;
        state = MEM_COMMIT;
        type = MEM_PRIVATE;
    }
    uint8_t b[48] = {0};
    if (c->w == 8) {
        hcp_put64(b, a);
        hcp_put64(b + 8, alloc);
        hcp_put32(b + 16, aprot);
        hcp_put64(b + 24, size);
        hcp_put32(b + 32, state);
        hcp_put32(b + 36, state == MEM_FREE ? 0x01 : prot);
        hcp_put32(b + 40, type);
    } else {
        hcp_put32(b, (uint32_t)a);
        hcp_put32(b + 4, (uint32_t)alloc);
        hcp_put32(b + 8, aprot);
        hcp_put32(b + 12, (uint32_t)size);
        hcp_put32(b + 16, state);
        hcp_put32(b + 20, state == MEM_FREE ? 0x01 : prot);
        hcp_put32(b + 24, type);
    }
    return wrm(c, out, b, n) ? n : 0;
}

/* ---- heaps: every heap handle allocates from the process heap (malloc's) ---- */

#define HEAP_ZERO_MEMORY 0x8u
#define PROCESS_HEAP_HANDLE(c) ((c)->p->d.peb + 0x700u) /* a fixed address inside the PEB's block */

static uint64_t k_GetProcessHeap(ctx *c) { return PROCESS_HEAP_HANDLE(c); }
static uint64_t k_HeapCreate(ctx *c) { return PROCESS_HEAP_HANDLE(c) + 0x10u; }
static uint64_t k_HeapDestroy(ctx *c) { return c->a[0] ? 1 : win_fail(c, ERROR_INVALID_HANDLE); }
static uint64_t k_HeapAlloc(ctx *c) { /* (heap, flags, bytes) */
    uint64_t a = heap_alloc(c, c->a[2]);
    if (!a) return win_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if ((uint32_t)c->a[1] & HEAP_ZERO_MEMORY) zero_fill(c, a, c->a[2]);
    return a;
}
static uint64_t k_HeapFree(ctx *c) { return heap_free(c, c->a[2]) ? 1 : 0; }
static uint64_t k_HeapSize(ctx *c) {
    int i = c->p->blocks ? heap_find(c->p, c->a[2]) : -1;
    if (i < 0) return win_fail(c, ERROR_INVALID_PARAMETER), c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu;
    return c->p->blocks[i].req;
}
static uint64_t k_HeapReAlloc(ctx *c) { /* (heap, flags, mem, bytes) */
    uint64_t old = c->a[2], n = c->a[3];
    int i = c->p->blocks ? heap_find(c->p, old) : -1;
    if (i < 0) return win_fail(c, ERROR_INVALID_PARAMETER);
    uint32_t have = c->p->blocks[i].req;
    uint64_t a = heap_alloc(c, n);
    if (!a) return win_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    uint64_t k = have < n ? have : n;
    char *b = malloc(k ? (size_t)k : 1);
    if (b && rd(c, old, b, (size_t)k)) wrm(c, a, b, (size_t)k);
    free(b);
    if (((uint32_t)c->a[1] & HEAP_ZERO_MEMORY) && n > k) zero_fill(c, a + k, n - k);
    heap_free(c, old);
    return a;
}

/* ---- the system ---- */

static uint64_t k_GetSystemInfo(ctx *c) { /* SYSTEM_INFO: 48 bytes (x64), 36 (x86) */
    uint8_t b[48] = {0};
    int n = sim_cpu_count(c->m);
    uint64_t mask = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
    bool x64 = c->w == 8;
    hcp_put16(b, x64 ? 9 : 0); /* PROCESSOR_ARCHITECTURE_AMD64 / _INTEL */
    hcp_put32(b + 4, 0x1000);  /* dwPageSize */
    if (x64) {
        hcp_put64(b + 8, 0x10000);
        hcp_put64(b + 16, UINT64_C(0x7FFFFFFEFFFF));
        hcp_put64(b + 24, mask);
        hcp_put32(b + 32, (uint32_t)n);
        hcp_put32(b + 36, 8664); /* PROCESSOR_AMD_X8664 */
        hcp_put32(b + 40, 0x10000);
        hcp_put16(b + 44, 6);
    } else {
        hcp_put32(b + 8, 0x10000);
        hcp_put32(b + 12, 0x7FFEFFFF);
        hcp_put32(b + 16, (uint32_t)mask);
        hcp_put32(b + 20, (uint32_t)n);
        hcp_put32(b + 24, 586); /* PROCESSOR_INTEL_PENTIUM */
        hcp_put32(b + 28, 0x10000);
        hcp_put16(b + 32, 6);
    }
    wrm(c, c->a[0], b, x64 ? 48 : 36);
    return 0;
}

/* ---- msvcrt ----------------------------------------------------------------------------------------- */

static uint64_t c_getmainargs(ctx *c) { /* (int *argc, char ***argv, char ***env, int glob, startinfo *) */
    wr32(c, c->a[0], (uint32_t)c->p->argc);
    wrp(c, c->a[1], c->p->d.argv);
    wrp(c, c->a[2], c->p->d.envp);
    return 0;
}
static uint64_t c_iob_func(ctx *c) { return c->p->d.iob; }
static uint64_t c_errno(ctx *c) { return c->p->d.v_errno; }
static uint64_t c_p_acmdln(ctx *c) { return c->p->d.v_acmdln; }
static uint64_t c_p_commode(ctx *c) { return c->p->d.v_commode; }
static uint64_t c_p_fmode(ctx *c) { return c->p->d.v_fmode; }
static uint64_t c_one(ctx *c) {
    (void)c;
    return 1;
}
static uint64_t c_onexit(ctx *c) {
    hcp_process *p = c->p;
    if (p->natexit >= HCP_MAX_ATEXIT) return 0;
    p->atexit_fn[p->natexit++] = c->a[0];
    return c->a[0];
}
static uint64_t c_atexit(ctx *c) { return c_onexit(c) ? 0 : (uint32_t)-1; }
static uint64_t c_onexit_next(ctx *c) { /* the stubs' _cexit: the functions, last registered first */
    hcp_process *p = c->p;
    return p->natexit ? p->atexit_fn[--p->natexit] : 0;
}
static uint64_t c_exit_now(ctx *c) { return end_process(c, (uint32_t)c->a[0]); } /* _exit: no atexit functions */
static uint64_t c_abort(ctx *c) {
    static const char m[] = "\nThis application has requested the Runtime to terminate it in an unusual way.\n"
                            "Please contact the application's support team for more information.\n";
    emit(c, 2, m, sizeof m - 1);
    return end_process(c, 3);
}
static uint64_t c_amsg_exit(ctx *c) {
    char m[64];
    int n = snprintf(m, sizeof m, "\nruntime error R60%02u\n", (unsigned)c->a[0] % 100);
    emit(c, 2, m, (size_t)n);
    return end_process(c, 255);
}
static uint64_t c_malloc(ctx *c) { return heap_alloc(c, c->a[0]); }
static uint64_t c_calloc(ctx *c) {
    uint64_t n = c->a[0], k = c->a[1];
    if (k && n > UINT32_MAX / k) return 0;
    uint64_t a = heap_alloc(c, n * k);
    if (a) zero_fill(c, a, n * k);
    return a;
}
static uint64_t c_free(ctx *c) {
    heap_free(c, c->a[0]);
    return 0;
}
static uint64_t c_realloc(ctx *c) {
    uint64_t old = c->a[0], n = c->a[1];
    if (!old) return heap_alloc(c, n);
    int i = c->p->blocks ? heap_find(c->p, old) : -1;
    if (i < 0) return heap_free(c, old), 0;
    if (!n) return heap_free(c, old), 0;
    uint32_t have = c->p->blocks[i].size;
    uint64_t a = heap_alloc(c, n);
    if (!a) return 0;
    uint64_t k = have < n ? have : n;
    char *b = malloc(k ? (size_t)k : 1);
    if (b && rd(c, old, b, (size_t)k)) wrm(c, a, b, (size_t)k);
    free(b);
    heap_free(c, old);
    return a;
}
static uint64_t c_memcpy(ctx *c) {
    uint64_t n = c->a[2];
    if (n > MAX_STR * 64) return bad(c, c->a[1] + n, false), c->a[0];
    char *b = malloc(n ? (size_t)n : 1);
    if (b && rd(c, c->a[1], b, (size_t)n)) wrm(c, c->a[0], b, (size_t)n);
    free(b);
    return c->a[0];
}
static uint64_t c_memset(ctx *c) {
    uint64_t n = c->a[2];
    if (n > MAX_STR * 64) return bad(c, c->a[0] + n, true), c->a[0];
    char *b = malloc(n ? (size_t)n : 1);
    if (b) {
        memset(b, (int)(uint8_t)c->a[1], (size_t)n);
        wrm(c, c->a[0], b, (size_t)n);
    }
    free(b);
    return c->a[0];
}
static uint64_t c_memcmp(ctx *c) {
    uint64_t n = c->a[2];
    if (n > MAX_STR * 64) return bad(c, c->a[0] + n, false), 0;
    char *x = malloc(n ? (size_t)n : 1), *y = malloc(n ? (size_t)n : 1);
    int r = 0;
    if (x && y && rd(c, c->a[0], x, (size_t)n) && rd(c, c->a[1], y, (size_t)n)) r = memcmp(x, y, (size_t)n);
    free(x);
    free(y);
    return (uint32_t)(r < 0 ? -1 : r > 0);
}
static uint64_t c_strlen(ctx *c) {
    size_t n = 0;
    char *s = gstr(c, c->a[0], &n);
    free(s);
    return n;
}
static uint64_t c_strcmp_n(ctx *c, bool bounded) {
    char *x = gstr(c, c->a[0], NULL), *y = x ? gstr(c, c->a[1], NULL) : NULL;
    int r = 0;
    if (x && y) r = bounded ? strncmp(x, y, (size_t)c->a[2]) : strcmp(x, y);
    free(x);
    free(y);
    return (uint32_t)(r < 0 ? -1 : r > 0);
}
static uint64_t c_strcmp(ctx *c) { return c_strcmp_n(c, false); }
static uint64_t c_strncmp(ctx *c) { return c_strcmp_n(c, true); }
static uint64_t c_strchr(ctx *c) {
    size_t n;
    char *s = gstr(c, c->a[0], &n);
    if (!s) return 0;
    char ch = (char)c->a[1];
    char *f = ch ? memchr(s, ch, n) : s + n;
    uint64_t r = f ? c->a[0] + (uint64_t)(f - s) : 0;
    free(s);
    return r;
}
static uint64_t c_strcpy(ctx *c) {
    size_t n;
    char *s = gstr(c, c->a[1], &n);
    if (s) wrm(c, c->a[0], s, n + 1);
    free(s);
    return c->a[0];
}
static uint64_t c_wcslen(ctx *c) {
    uint64_t n = 0;
    uint8_t b[2];
    while (n < MAX_STR && rd(c, c->a[0] + 2 * n, b, 2) && hcp_get16(b)) n++;
    return n;
}
static uint64_t c_atoi(ctx *c) {
    char *s = gstr(c, c->a[0], NULL);
    long long v = s ? strtoll(s, NULL, 10) : 0;
    free(s);
    return (uint32_t)(int32_t)v;
}
static uint64_t c_strerror(ctx *c) {
    char m[64];
    uint32_t e = (uint32_t)c->a[0];
    snprintf(m, sizeof m, e == 0 ? "No error" : "Unknown error");
    wrm(c, c->p->d.strerr, m, strlen(m) + 1);
    return c->p->d.strerr;
}
static uint64_t c_localeconv(ctx *c) { return c->p->d.lconv; }
static uint64_t c_setlocale(ctx *c) { return c->p->d.clocale; } /* only the "C" locale */
static uint64_t c_signal(ctx *c) {
    (void)c;
    return 0; /* SIG_DFL: no handler was installed before */
}
static uint64_t c_fputc(ctx *c) {
    int fd = file_fd(c, c->a[1]);
    char ch = (char)c->a[0];
    if (fd < 1) return (uint32_t)-1;
    emit_text(c, fd, &ch, 1);
    return (uint8_t)ch;
}
static uint64_t c_putchar(ctx *c) {
    char ch = (char)c->a[0];
    emit_text(c, 1, &ch, 1);
    return (uint8_t)ch;
}
static uint64_t c_fputs_fd(ctx *c, uint64_t s, int fd, bool nl) {
    size_t n;
    char *b = gstr(c, s, &n);
    if (!b) return (uint32_t)-1;
    if (fd < 1) {
        free(b);
        return (uint32_t)-1;
    }
    emit_text(c, fd, b, n);
    if (nl) emit_text(c, fd, "\n", 1);
    free(b);
    return 0;
}
static uint64_t c_puts(ctx *c) { return c_fputs_fd(c, c->a[0], 1, true); }
static uint64_t c_fputs(ctx *c) { return c_fputs_fd(c, c->a[0], file_fd(c, c->a[1]), false); }
static uint64_t c_fwrite(ctx *c) {
    uint64_t size = c->a[1], count = c->a[2];
    int fd = file_fd(c, c->a[3]);
    if (!size || !count) return 0;
    if (fd < 1 || count > MAX_STR / size) return 0;
    char *b = malloc((size_t)(size * count));
    if (b && rd(c, c->a[0], b, (size_t)(size * count))) emit_text(c, fd, b, (size_t)(size * count));
    free(b);
    return c->failed ? 0 : count;
}
static uint64_t c_fileno(ctx *c) { return (uint32_t)file_fd(c, c->a[0]); }
static uint64_t c_setmode(ctx *c) { /* (fd, mode): the previous mode, _O_TEXT 0x4000 or _O_BINARY 0x8000 */
    int32_t fd = (int32_t)c->a[0];
    uint32_t mode = (uint32_t)c->a[1];
    if (fd < 0 || fd > 2 || (mode != 0x4000 && mode != 0x8000)) {
        wr32(c, c->p->d.v_errno, fd < 0 || fd > 2 ? 9u : 22u); /* EBADF, EINVAL */
        return (uint32_t)-1;
    }
    uint32_t prev = c->p->binary[fd] ? 0x8000 : 0x4000;
    c->p->binary[fd] = mode == 0x8000;
    return prev;
}
static uint64_t c_fflush(ctx *c) {
    (void)c;
    return 0;
}
static uint64_t c_printf(ctx *c) {
    vargs v = {c, false, 1, 0};
    return print_to_file(c, c->p->d.iob + c->p->d.file_size, c->a[0], &v);
}
static uint64_t c_fprintf(ctx *c) {
    vargs v = {c, false, 2, 0};
    return print_to_file(c, c->a[0], c->a[1], &v);
}
static uint64_t c_vprintf(ctx *c) {
    vargs v = {c, true, 0, c->a[1]};
    return print_to_file(c, c->p->d.iob + c->p->d.file_size, c->a[0], &v);
}
static uint64_t c_vfprintf(ctx *c) {
    vargs v = {c, true, 0, c->a[2]};
    return print_to_file(c, c->a[0], c->a[1], &v);
}
static uint64_t c_sprintf(ctx *c) {
    vargs v = {c, false, 2, 0};
    return print_to_mem(c, c->a[0], 0, false, c->a[1], &v);
}
static uint64_t c_snprintf(ctx *c) {
    vargs v = {c, false, 3, 0};
    return print_to_mem(c, c->a[0], c->a[1], true, c->a[2], &v);
}
static uint64_t c_vsprintf(ctx *c) {
    vargs v = {c, true, 0, c->a[2]};
    return print_to_mem(c, c->a[0], 0, false, c->a[1], &v);
}
static uint64_t c_vsnprintf(ctx *c) {
    vargs v = {c, true, 0, c->a[3]};
    return print_to_mem(c, c->a[0], c->a[1], true, c->a[2], &v);
}

/* Data imports: the IAT entry holds the variable's address. */
enum { D_INITENV, D_ACMDLN, D_COMMODE, D_FMODE, D_MB_CUR_MAX, D_IOB, D_ENVIRON, D_ARGC, D_ARGV };

#define K "KERNEL32.dll"
#define C "msvcrt.dll"
static const w32_entry table[] = {
    {K, "ExitProcess", CC_STD, 1, k_ExitProcess, 0},
    {K, "InitializeCriticalSection", CC_STD, 1, k_InitializeCriticalSection, 0},
    {K, "InitializeCriticalSectionAndSpinCount", CC_STD, 2, k_InitializeCriticalSection, 0},
    {K, "InitializeCriticalSectionEx", CC_STD, 3, k_InitializeCriticalSection, 0},
    {K, "DeleteCriticalSection", CC_STD, 1, k_DeleteCriticalSection, 0},
    {K, "EnterCriticalSection", CC_STD, 1, k_EnterCriticalSection, 0},
    {K, "TryEnterCriticalSection", CC_STD, 1, k_TryEnterCriticalSection, 0},
    {K, "LeaveCriticalSection", CC_STD, 1, k_LeaveCriticalSection, 0},
    {K, "GetStartupInfoA", CC_STD, 1, k_GetStartupInfoA, 0},
    {K, "IsDBCSLeadByteEx", CC_STD, 2, k_nop, 0},
    {K, "MultiByteToWideChar", CC_STD, 6, k_MultiByteToWideChar, 0},
    {K, "WideCharToMultiByte", CC_STD, 8, k_WideCharToMultiByte, 0},
    {K, "SetUnhandledExceptionFilter", CC_STD, 1, k_nop, 0},
    {K, "TlsAlloc", CC_STD, 0, k_TlsAlloc, 0},
    {K, "TlsFree", CC_STD, 1, k_TlsFree, 0},
    {K, "TlsGetValue", CC_STD, 1, k_TlsGetValue, 0},
    {K, "TlsSetValue", CC_STD, 2, k_TlsSetValue, 0},
    {K, "VirtualProtect", CC_STD, 4, k_VirtualProtect, 0},
    {K, "VirtualQuery", CC_STD, 3, k_VirtualQuery, 0},
    {K, "VirtualAlloc", CC_STD, 4, k_VirtualAlloc, 0},
    {K, "VirtualFree", CC_STD, 3, k_VirtualFree, 0},
    {K, "GetProcessHeap", CC_STD, 0, k_GetProcessHeap, 0},
    {K, "HeapCreate", CC_STD, 3, k_HeapCreate, 0},
    {K, "HeapDestroy", CC_STD, 1, k_HeapDestroy, 0},
    {K, "HeapAlloc", CC_STD, 3, k_HeapAlloc, 0},
    {K, "HeapFree", CC_STD, 3, k_HeapFree, 0},
    {K, "HeapReAlloc", CC_STD, 4, k_HeapReAlloc, 0},
    {K, "HeapSize", CC_STD, 3, k_HeapSize, 0},
    {K, "GetSystemInfo", CC_STD, 1, k_GetSystemInfo, 0},
    {K, "GetNativeSystemInfo", CC_STD, 1, k_GetSystemInfo, 0},
    {K, "CreateThread", CC_STD, 6, k_CreateThread, 0},
    {K, "ExitThread", CC_STD, 1, k_ExitThread, 0},
    {K, "ResumeThread", CC_STD, 1, k_ResumeThread, 0},
    {K, "GetCurrentProcessorNumber", CC_STD, 0, k_GetCurrentProcessorNumber, 0},
    {K, "GetProcessAffinityMask", CC_STD, 3, k_GetProcessAffinityMask, 0},
    {K, "ReadProcessMemory", CC_STD, 5, k_ReadProcessMemory, 0},
    {K, "SystemTimeToFileTime", CC_STD, 2, k_SystemTimeToFileTime, 0},
    {K, "GetTempPathA", CC_STD, 2, k_GetTempPathA, 0},
    {K, "DeleteFileA", CC_STD, 1, k_DeleteFileA, 0},
    {"ntdll.dll", "RtlNtStatusToDosError", CC_STD, 1, n_RtlNtStatusToDosError, 0},
    {"ntdll.dll", "NtQueryTimerResolution", CC_STD, 3, n_NtQueryTimerResolution, 0},
    {K, "TerminateThread", CC_STD, 2, k_TerminateThread, 0},
    {K, "GetThreadPriority", CC_STD, 1, k_GetThreadPriority, 0},
    {K, "SetThreadPriority", CC_STD, 2, k_SetThreadPriority, 0},
    {K, "SetThreadAffinityMask", CC_STD, 2, k_SetThreadAffinityMask, 0},
    {K, "SetThreadIdealProcessor", CC_STD, 2, k_SetThreadIdealProcessor, 0},
    {K, "DuplicateHandle", CC_STD, 7, k_DuplicateHandle, 0},
    {K, "CreateEventA", CC_STD, 4, k_CreateEventA, 0},
    {K, "CreateEventW", CC_STD, 4, k_CreateEventW, 0},
    {K, "OpenEventA", CC_STD, 3, k_OpenEventA, 0},
    {K, "OpenEventW", CC_STD, 3, k_OpenEventW, 0},
    {K, "PulseEvent", CC_STD, 1, k_PulseEvent, 0},
    {K, "CreateMutexA", CC_STD, 3, k_CreateMutexA, 0},
    {K, "CreateMutexW", CC_STD, 3, k_CreateMutexW, 0},
    {K, "OpenMutexA", CC_STD, 3, k_OpenMutexA, 0},
    {K, "OpenMutexW", CC_STD, 3, k_OpenMutexW, 0},
    {K, "CreateSemaphoreA", CC_STD, 4, k_CreateSemaphoreA, 0},
    {K, "CreateSemaphoreW", CC_STD, 4, k_CreateSemaphoreW, 0},
    {K, "OpenSemaphoreA", CC_STD, 3, k_OpenSemaphoreA, 0},
    {K, "OpenSemaphoreW", CC_STD, 3, k_OpenSemaphoreW, 0},
    {K, "WaitForSingleObjectEx", CC_STD, 3, k_WaitForSingleObjectEx, 0},
    {K, "WaitForMultipleObjectsEx", CC_STD, 5, k_WaitForMultipleObjectsEx, 0},
    {K, "SleepEx", CC_STD, 2, k_SleepEx, 0},
    {K, "GetTickCount64", CC_STD, 0, k_GetTickCount64, 0},
    {K, "GetSystemTimeAsFileTime", CC_STD, 1, k_GetSystemTimeAsFileTime, 0},
    {K, "GetSystemTimePreciseAsFileTime", CC_STD, 1, k_GetSystemTimePreciseAsFileTime, 0},
    {K, "GetModuleHandleA", CC_STD, 1, k_GetModuleHandleA, 0},
    {K, "GetModuleHandleW", CC_STD, 1, k_GetModuleHandleW, 0},
    {K, "GetProcAddress", CC_STD, 2, k_GetProcAddress, 0},
    {K, "LoadLibraryA", CC_STD, 1, k_LoadLibraryA, 0},
    {K, "LoadLibraryW", CC_STD, 1, k_LoadLibraryW, 0},
    {K, "FreeLibrary", CC_STD, 1, k_true, 0},
    {K, "GetStdHandle", CC_STD, 1, k_GetStdHandle, 0},
    {K, "WriteFile", CC_STD, 5, k_WriteFile, 0},
    {K, "GetCommandLineA", CC_STD, 0, k_GetCommandLineA, 0},
    {K, "GetCommandLineW", CC_STD, 0, k_GetCommandLineW, 0},
    {K, "GetCurrentProcess", CC_STD, 0, k_GetCurrentProcess, 0},
    {K, "GetCurrentProcessId", CC_STD, 0, k_GetCurrentProcessId, 0},
    {K, "QueryPerformanceCounter", CC_STD, 1, k_QueryPerformanceCounter, 0},
    {K, "QueryPerformanceFrequency", CC_STD, 1, k_QueryPerformanceFrequency, 0},
    {K, "GetTickCount", CC_STD, 0, k_GetTickCount, 0},
    {C, "__getmainargs", CC_C, 5, c_getmainargs, 0},
    {C, "__iob_func", CC_C, 0, c_iob_func, 0},
    {C, "__set_app_type", CC_C, 1, k_nop, 0},
    {C, "__setusermatherr", CC_C, 1, k_nop, 0},
    {C, "___lc_codepage_func", CC_C, 0, k_nop, 0},
    {C, "___mb_cur_max_func", CC_C, 0, c_one, 0},
    {C, "__p__acmdln", CC_C, 0, c_p_acmdln, 0},
    {C, "__p__commode", CC_C, 0, c_p_commode, 0},
    {C, "__p__fmode", CC_C, 0, c_p_fmode, 0},
    {C, "_errno", CC_C, 0, c_errno, 0},
    {C, "_lock", CC_C, 1, k_nop, 0},
    {C, "_unlock", CC_C, 1, k_nop, 0},
    {C, "_onexit", CC_C, 1, c_onexit, 0},
    {C, "atexit", CC_C, 1, c_atexit, 0},
    {C, "_exit", CC_C, 1, c_exit_now, 0},
    {C, "abort", CC_C, 0, c_abort, 0},
    {C, "_amsg_exit", CC_C, 1, c_amsg_exit, 0},
    {C, "malloc", CC_C, 1, c_malloc, 0},
    {C, "calloc", CC_C, 2, c_calloc, 0},
    {C, "realloc", CC_C, 2, c_realloc, 0},
    {C, "free", CC_C, 1, c_free, 0},
    {C, "memcpy", CC_C, 3, c_memcpy, 0},
    {C, "memmove", CC_C, 3, c_memcpy, 0},
    {C, "memset", CC_C, 3, c_memset, 0},
    {C, "memcmp", CC_C, 3, c_memcmp, 0},
    {C, "strlen", CC_C, 1, c_strlen, 0},
    {C, "strcmp", CC_C, 2, c_strcmp, 0},
    {C, "strncmp", CC_C, 3, c_strncmp, 0},
    {C, "strchr", CC_C, 2, c_strchr, 0},
    {C, "strcpy", CC_C, 2, c_strcpy, 0},
    {C, "wcslen", CC_C, 1, c_wcslen, 0},
    {C, "atoi", CC_C, 1, c_atoi, 0},
    {C, "strerror", CC_C, 1, c_strerror, 0},
    {C, "localeconv", CC_C, 0, c_localeconv, 0},
    {C, "setlocale", CC_C, 2, c_setlocale, 0},
    {C, "signal", CC_C, 2, c_signal, 0},
    {C, "fputc", CC_C, 2, c_fputc, 0},
    {C, "putchar", CC_C, 1, c_putchar, 0},
    {C, "puts", CC_C, 1, c_puts, 0},
    {C, "fputs", CC_C, 2, c_fputs, 0},
    {C, "fwrite", CC_C, 4, c_fwrite, 0},
    {C, "fflush", CC_C, 1, c_fflush, 0},
    {C, "_fileno", CC_C, 1, c_fileno, 0},
    {C, "_setmode", CC_C, 2, c_setmode, 0},
    {C, "printf", CC_C, 1, c_printf, 0},
    {C, "fprintf", CC_C, 2, c_fprintf, 0},
    {C, "vprintf", CC_C, 2, c_vprintf, 0},
    {C, "vfprintf", CC_C, 3, c_vfprintf, 0},
    {C, "sprintf", CC_C, 2, c_sprintf, 0},
    {C, "_snprintf", CC_C, 3, c_snprintf, 0},
    {C, "vsprintf", CC_C, 3, c_vsprintf, 0},
    {C, "_vsnprintf", CC_C, 4, c_vsnprintf, 0},
    {C, "__initenv", CC_DATA, 0, NULL, D_INITENV},
    {C, "_acmdln", CC_DATA, 0, NULL, D_ACMDLN},
    {C, "_commode", CC_DATA, 0, NULL, D_COMMODE},
    {C, "_fmode", CC_DATA, 0, NULL, D_FMODE},
    {C, "__mb_cur_max", CC_DATA, 0, NULL, D_MB_CUR_MAX},
    {C, "_iob", CC_DATA, 0, NULL, D_IOB},
    {C, "_environ", CC_DATA, 0, NULL, D_ENVIRON},
    {C, "__argc", CC_DATA, 0, NULL, D_ARGC},
    {C, "__argv", CC_DATA, 0, NULL, D_ARGV},
    /* guest code (hcp_win32_stubs): the table gives their names; the IAT gets the stub's address */
    {C, "_initterm", CC_DATA, 0, NULL, -1},
    {C, "_cexit", CC_DATA, 0, NULL, -2},
    {C, "exit", CC_DATA, 0, NULL, -3},
    /* internal: the stubs' _cexit asks for the next atexit function */
    {"hcpsim", "onexit_next", CC_C, 0, c_onexit_next, 0},
};
#undef K
#undef C
#define NTABLE ((int)(sizeof table / sizeof table[0]))
_Static_assert(HCP_SVC_WIN32 + sizeof table / sizeof table[0] <= HCP_SVC_MISSING, "the table fits its services");

static bool table_fn(int svc) { return svc >= (int)HCP_SVC_WIN32 && table[svc - (int)HCP_SVC_WIN32].fn != NULL; }

static int svc_of(const char *name) {
    for (int i = 0; i < NTABLE; i++)
        if (strcmp(table[i].name, name) == 0) return (int)HCP_SVC_WIN32 + i;
    return -1;
}

int hcp_win32_lookup(const char *dll, const char *name, bool *data) {
    *data = false;
    bool k32 = strcasecmp(dll, "KERNEL32.dll") == 0, crt = strcasecmp(dll, "msvcrt.dll") == 0,
         nt = strcasecmp(dll, "ntdll.dll") == 0;
    if (k32)
        for (int i = 0; hcp_import_name(i); i++)
            if (strcmp(hcp_import_name(i), name) == 0) return i; /* the call gate's own */
    for (int i = 0; i < NTABLE; i++) {
        const w32_entry *e = &table[i];
        if ((k32 && strcmp(e->dll, "KERNEL32.dll") == 0) || (crt && strcmp(e->dll, "msvcrt.dll") == 0) ||
            (nt && strcmp(e->dll, "ntdll.dll") == 0)) {
            if (strcmp(e->name, name) != 0) continue;
            *data = e->cc == CC_DATA;
            return (int)HCP_SVC_WIN32 + i;
        }
    }
    return -1;
}

uint64_t hcp_win32_data(hcp_process *p, int svc) {
    const w32_entry *e = &table[svc - (int)HCP_SVC_WIN32];
    const hcp_proc_data *d = &p->d;
    switch (e->data) {
    case D_INITENV: return d->v_initenv;
    case D_ACMDLN: return d->v_acmdln;
    case D_COMMODE: return d->v_commode;
    case D_FMODE: return d->v_fmode;
    case D_MB_CUR_MAX: return d->v_mb_cur_max;
    case D_IOB: return d->iob;
    case D_ENVIRON: return d->v_environ;
    case D_ARGC: return d->v_argc;
    case D_ARGV: return d->v_argv;
    case -1: return d->stub_initterm;
    case -2: return d->stub_cexit;
    case -3: return d->stub_exit;
    default: return 0;
    }
}

uint32_t hcp_win32_pop(int svc) {
    if (svc < (int)HCP_SVC_WIN32 || svc >= (int)HCP_SVC_WIN32 + NTABLE) return 0; /* missing: never returns */
    const w32_entry *e = &table[svc - (int)HCP_SVC_WIN32];
    return e->cc == CC_STD ? 4u * (uint32_t)e->nargs : 0;
}

const char *hcp_pe_import_entry(int i) {
    static char buf[96];
    int k = 0;
    for (int j = 0; j < NTABLE; j++) {
        if (strcmp(table[j].dll, "hcpsim") == 0) continue;
        if (k++ == i) {
            snprintf(buf, sizeof buf, "%s!%s", table[j].dll, table[j].name);
            return buf;
        }
    }
    for (int j = 0; hcp_import_name(j); j++)
        if (k++ == i) {
            snprintf(buf, sizeof buf, "KERNEL32.dll!%s", hcp_import_name(j));
            return buf;
        }
    return NULL;
}

/* The gate's imports that charge no api_call cycles (api/README.md "Call gate"). */
static bool gate_free(const char *name) {
    static const char *const free_ones[] = {"GetCurrentThread", "GetCurrentThreadId",      "GetLastError",
                                            "SetLastError",     "ReadThreadProfilingData", "GetExitCodeThread"};
    for (size_t i = 0; i < sizeof free_ones / sizeof free_ones[0]; i++)
        if (strcmp(free_ones[i], name) == 0) return true;
    return false;
}

bool hcp_pe_import_row(int i, hcp_pe_import *o) {
    static const char *const dlls[] = {"KERNEL32.dll", "msvcrt.dll", "ntdll.dll"};
    int k = 0;
    for (int d = 0; d < 3; d++) {
        int ord = 0;
        if (d == 0)
            for (int j = 0; hcp_import_name(j); j++) {
                ord++;
                if (k++ != i) continue;
                *o = (hcp_pe_import){dlls[0],
                                     hcp_import_name(j),
                                     ord,
                                     "function",
                                     gate_free(hcp_import_name(j)) ? "none (user mode only)" : "1 api_call",
                                     "yes"};
                return true;
            }
        for (int j = 0; j < NTABLE; j++) {
            const w32_entry *e = &table[j];
            if (strcmp(e->dll, dlls[d]) != 0) continue;
            ord++;
            if (k++ != i) continue;
            *o = (hcp_pe_import){e->dll, e->name, ord, "function", "1 api_call", "yes"};
            if (e->cc == CC_DATA && e->data < 0) {
                o->kind = "guest code";
                o->cost = "user instructions (api/README.md)";
            } else if (e->cc == CC_DATA) {
                o->kind = "data";
                o->cost = "-";
            } else if (e->fn == k_nop) {
                o->does = "no-op";
            } else if (e->fn == k_true) {
                o->does = "returns TRUE";
            }
            return true;
        }
    }
    return false;
}

/* The service an import by ordinal resolves to (hcp_pe_import_row's ordinals), -1 when none. */
int hcp_win32_lookup_ordinal(const char *dll, unsigned ordinal, bool *data, char *name, size_t cap) {
    hcp_pe_import r;
    for (int i = 0; hcp_pe_import_row(i, &r); i++)
        if (strcasecmp(r.dll, dll) == 0 && (unsigned)r.ordinal == ordinal) {
            snprintf(name, cap, "%s", r.name);
            return hcp_win32_lookup(r.dll, r.name, data);
        }
    *data = false;
    return -1;
}

uint64_t hcp_win32_call(hcp_os *os, sim_thread *t, uint32_t service, bool resumed, bool *pending) {
    hcp_process *p = os->proc;
    *pending = false;
    if (!p) return 0xC000001Cu; /* STATUS_INVALID_SYSTEM_SERVICE: no process */
    if (resumed) {              /* a call that blocked, now that its thread runs again */
        os_thread *ot = hcp_os_thread(os, t);
        return ot && ot->w32_resume == HCP_RESUME_WAIT ? hcp_wait_result(os) : 0;
    }
    if (service >= HCP_SVC_MISSING) {
        uint32_t k = service - HCP_SVC_MISSING;
        if (k >= (uint32_t)p->nmissing) return 0xC000001Cu;
        snprintf(p->failure, sizeof p->failure, "%s called %s, which hcpsim does not implement", p->name,
                 p->missing[k]);
        sim_gate_end_call(t);
        return 0;
    }
    int i = (int)(service - HCP_SVC_WIN32);
    if (i >= NTABLE || !table[i].fn) return 0xC000001Cu;
    ctx c = {p, os, os->m, t, sim_arch_ptr_size(sim_machine_config(os->m)->arch), {0}, NULL, false, false, 0};
    char fn[64];
    snprintf(fn, sizeof fn, "%s!%s", table[i].dll, table[i].name);
    c.fn = fn;
    for (int k = 0; k < table[i].nargs && k < 8; k++) {
        if (sim_gate_arg(t, k, &c.a[k]) != SIM_OK) {
            bad(&c, 0, false);
            break;
        }
        if (c.w == 4) c.a[k] &= 0xFFFFFFFFu;
    }
    hcp_kernel_entry(os);
    os->entered = true; /* the api/ functions it calls charge no second entry */
    uint64_t r = c.failed ? 0 : table[i].fn(&c);
    os->entered = false;
    if (c.failed) {
        sim_gate_end_call(t);
        return 0;
    }
    if (c.pending) { /* any thread's: a Lua thread may call a program's export that waits */
        os_thread *ot = hcp_os_thread(os, t);
        if (ot) ot->w32_resume = c.resume;
        *pending = true;
    }
    return r;
}

/* ---- guest code: _initterm, _cexit, exit ----------------------------------------------------------- */

static void imm(uint8_t *at, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) at[i] = (uint8_t)(v >> (8 * i));
}

sim_err hcp_win32_stubs(hcp_process *p) {
    sim_machine *m = p->os->m;
    uint64_t next = sim_gate_thunk(m, (uint32_t)svc_of("onexit_next")),
             exitp = sim_gate_thunk(m, (uint32_t)svc_of("ExitProcess"));
    sim_gate_set_pop(m, (uint32_t)svc_of("onexit_next"), 0);
    sim_gate_set_pop(m, (uint32_t)svc_of("ExitProcess"), 4);
    /* x64 (the listing is in api/README.md "Windows programs"): initterm 0x00, cexit 0x28, exit 0x46 */
    static const uint8_t s64[] = {0x56,
                                  0x57,
                                  0x48,
                                  0x83,
                                  0xEC,
                                  0x28,
                                  0x48,
                                  0x89,
                                  0xCE,
                                  0x48,
                                  0x89,
                                  0xD7,
                                  0x48,
                                  0x39,
                                  0xFE,
                                  0x73,
                                  0x10,
                                  0x48,
                                  0x8B,
                                  0x06,
                                  0x48,
                                  0x85,
                                  0xC0,
                                  0x74,
                                  0x02,
                                  0xFF,
                                  0xD0,
                                  0x48,
                                  0x83,
                                  0xC6,
                                  0x08,
                                  0xEB,
                                  0xEB,
                                  0x48,
                                  0x83,
                                  0xC4,
                                  0x28,
                                  0x5F,
                                  0x5E,
                                  0xC3,
                                  /* cexit */ 0x48,
                                  0x83,
                                  0xEC,
                                  0x28,
                                  0x48,
                                  0xB8,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0xFF,
                                  0xD0,
                                  0x48,
                                  0x85,
                                  0xC0,
                                  0x74,
                                  0x04,
                                  0xFF,
                                  0xD0,
                                  0xEB,
                                  0xEB,
                                  0x48,
                                  0x83,
                                  0xC4,
                                  0x28,
                                  0xC3,
                                  /* exit */ 0x53,
                                  0x48,
                                  0x83,
                                  0xEC,
                                  0x20,
                                  0x89,
                                  0xCB,
                                  0x48,
                                  0xB8,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0xFF,
                                  0xD0,
                                  0x89,
                                  0xD9,
                                  0x48,
                                  0xB8,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0xFF,
                                  0xD0,
                                  0xCC};
    /* x86 (cdecl): initterm 0x00, cexit 0x1E, exit 0x2E */
    static const uint8_t s32[] = {0x56,
                                  0x57,
                                  0x8B,
                                  0x74,
                                  0x24,
                                  0x0C,
                                  0x8B,
                                  0x7C,
                                  0x24,
                                  0x10,
                                  0x39,
                                  0xFE,
                                  0x73,
                                  0x0D,
                                  0x8B,
                                  0x06,
                                  0x85,
                                  0xC0,
                                  0x74,
                                  0x02,
                                  0xFF,
                                  0xD0,
                                  0x83,
                                  0xC6,
                                  0x04,
                                  0xEB,
                                  0xEF,
                                  0x5F,
                                  0x5E,
                                  0xC3,
                                  /* cexit */ 0xB8,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0xFF,
                                  0xD0,
                                  0x85,
                                  0xC0,
                                  0x74,
                                  0x04,
                                  0xFF,
                                  0xD0,
                                  0xEB,
                                  0xF1,
                                  0xC3,
                                  /* exit */ 0x8B,
                                  0x74,
                                  0x24,
                                  0x04,
                                  0xB8,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0xFF,
                                  0xD0,
                                  0x56,
                                  0xB8,
                                  0,
                                  0,
                                  0,
                                  0,
                                  0xFF,
                                  0xD0,
                                  0xCC};
    uint8_t code[sizeof s64];
    bool x64 = p->pe.pe32plus;
    size_t n = x64 ? sizeof s64 : sizeof s32;
    memcpy(code, x64 ? s64 : s32, n);
    /* the stubs' address is not known before sim_code places them: _cexit's own
     * address goes into exit, so place first with a zero and patch by a second copy */
    uint64_t at;
    if (x64) {
        imm(code + 0x2E, next, 8);
        imm(code + 0x5D, exitp, 8);
    } else {
        imm(code + 0x1F, next, 4);
        imm(code + 0x3B, exitp, 4);
    }
    /* exit calls _cexit by an absolute address: the stubs go at a fixed, free address */
    uint64_t base = x64 ? p->base + (((uint64_t)p->pe.size_of_image + 0xFFFFu) & ~(uint64_t)0xFFFFu)
                        : p->base + (((uint64_t)p->pe.size_of_image + 0xFFFFu) & ~(uint64_t)0xFFFFu);
    for (int k = 0; k < 256 && !sim_range_free(m, base, 0x1000); k++) base += 0x10000;
    if (x64)
        imm(code + 0x4F, base + 0x28, 8);
    else
        imm(code + 0x33, base + 0x1E, 4);
    sim_err e = sim_map_fixed(m, base, 0x1000, SIM_PROT_READ | SIM_PROT_EXEC, code, n);
    if (e != SIM_OK) return e;
    at = base;
    p->d.stubs = at;
    p->d.stub_initterm = at;
    p->d.stub_cexit = at + (x64 ? 0x28 : 0x1E);
    p->d.stub_exit = at + (x64 ? 0x46 : 0x2E);
    return SIM_OK;
}
