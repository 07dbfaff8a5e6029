/* api/wstr.c — UTF-16 strings for the file, environment and system functions (files_int.h):
 * growing buffers, the upcase table Windows compares names by, UTF-8 for host names, and guest
 * strings in their ANSI and UTF-16 forms. */
#include <stdlib.h>

#include "api/files_int.h"

void hcp_wbuf_add(hcp_wbuf *b, const uint16_t *s, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t nc = (b->n + n + 1) * 2;
        uint16_t *ns = realloc(b->s, nc * sizeof *ns);
        if (!ns) {
            b->oom = true;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
    if (n) memcpy(b->s + b->n, s, n * sizeof *s);
    b->n += n;
    b->s[b->n] = 0;
}

void hcp_wbuf_adda(hcp_wbuf *b, const char *s) {
    for (; *s; s++) {
        uint16_t u = (uint8_t)*s;
        hcp_wbuf_add(b, &u, 1);
    }
}

void hcp_wbuf_free(hcp_wbuf *b) {
    free(b->s);
    *b = (hcp_wbuf){0};
}

size_t hcp_wlen(const uint16_t *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

uint16_t *hcp_wdup(const uint16_t *s, size_t n) {
    uint16_t *d = malloc((n + 1) * sizeof *d);
    if (!d) return NULL;
    if (n) memcpy(d, s, n * sizeof *d);
    d[n] = 0;
    return d;
}

uint16_t *hcp_wfroma(const char *s) {
    size_t n = strlen(s);
    uint16_t *d = malloc((n + 1) * sizeof *d);
    if (!d) return NULL;
    for (size_t i = 0; i <= n; i++) d[i] = (uint8_t)s[i];
    return d;
}

/* Windows' upcase table (the one NTFS and RtlUpcaseUnicodeChar use) for the scripts names here are
 * likely written in; other code units compare as they are. */
uint16_t hcp_wupper(uint16_t u) {
    if (u >= 'a' && u <= 'z') return (uint16_t)(u - 32);
    if (u < 0xB5) return u;
    if (u == 0xB5) return 0x39C;                                          /* micro sign -> Greek capital mu */
    if ((u >= 0xE0 && u <= 0xFE && u != 0xF7)) return (uint16_t)(u - 32); /* Latin-1 */
    if (u == 0xFF) return 0x178;
    if (u >= 0x100 && u <= 0x17F) { /* Latin Extended-A: pairs, capital first (but for the odd runs) */
        if ((u >= 0x139 && u <= 0x148) || (u >= 0x179 && u <= 0x17E)) return (u & 1) ? u : (uint16_t)(u - 1);
        if (u == 0x131) return 'I';
        if (u == 0x17F) return 'S';
        if (u == 0x138 || u == 0x149) return u;
        return (u & 1) ? (uint16_t)(u - 1) : u;
    }
    if (u >= 0x3B1 && u <= 0x3CB && u != 0x3C2) return (uint16_t)(u - 32); /* Greek */
    if (u == 0x3C2) return 0x3A3;
    if (u >= 0x430 && u <= 0x44F) return (uint16_t)(u - 32); /* Cyrillic */
    if (u >= 0x450 && u <= 0x45F) return (uint16_t)(u - 80);
    if (u >= 0xFF41 && u <= 0xFF5A) return (uint16_t)(u - 32); /* fullwidth Latin */
    return u;
}

int hcp_wcmp_ci(const uint16_t *a, size_t an, const uint16_t *b, size_t bn) {
    for (size_t i = 0; i < an && i < bn; i++) {
        uint16_t x = hcp_wupper(a[i]), y = hcp_wupper(b[i]);
        if (x != y) return x < y ? -1 : 1;
    }
    return an == bn ? 0 : an < bn ? -1 : 1;
}

char *hcp_w_to_utf8(const uint16_t *s, size_t n) {
    char *o = malloc(3 * n + 1);
    size_t k = 0;
    if (!o) return NULL;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = s[i];
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (i + 1 >= n || s[i + 1] < 0xDC00 || s[i + 1] > 0xDFFF) goto bad;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (s[++i] - 0xDC00u);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            goto bad;
        }
        if (cp < 0x80) {
            o[k++] = (char)cp;
        } else if (cp < 0x800) {
            o[k++] = (char)(0xC0 | cp >> 6);
            o[k++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            o[k++] = (char)(0xE0 | cp >> 12);
            o[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            o[k++] = (char)(0x80 | (cp & 0x3F));
        } else {
            o[k++] = (char)(0xF0 | cp >> 18);
            o[k++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            o[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            o[k++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    o[k] = '\0';
    return o;
bad:
    free(o);
    return NULL;
}

uint16_t *hcp_utf8_to_w(const char *s, size_t *n) {
    size_t len = strlen(s), k = 0;
    uint16_t *o = malloc((len + 1) * sizeof *o);
    if (!o) return NULL;
    const uint8_t *p = (const uint8_t *)s;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int more;
        if (p[i] < 0x80)
            cp = p[i], more = 0;
        else if ((p[i] & 0xE0) == 0xC0)
            cp = p[i] & 0x1Fu, more = 1;
        else if ((p[i] & 0xF0) == 0xE0)
            cp = p[i] & 0x0Fu, more = 2;
        else if ((p[i] & 0xF8) == 0xF0)
            cp = p[i] & 0x07u, more = 3;
        else
            goto bad;
        if (i + (size_t)more >= len + (more ? 0 : 1)) goto bad;
        for (int j = 1; j <= more; j++) {
            if ((p[i + (size_t)j] & 0xC0) != 0x80) goto bad;
            cp = cp << 6 | (p[i + (size_t)j] & 0x3Fu);
        }
        static const uint32_t least[4] = {0, 0x80, 0x800, 0x10000};
        if (cp < least[more] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) goto bad;
        i += (size_t)more + 1;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            o[k++] = (uint16_t)(0xD800 + (cp >> 10));
            o[k++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
        } else {
            o[k++] = (uint16_t)cp;
        }
    }
    o[k] = 0;
    if (n) *n = k;
    return o;
bad:
    free(o);
    return NULL;
}

uint16_t *hcp_gwstr(hcp_ctx *c, uint64_t at, bool wide, size_t *n) {
    if (!wide) {
        size_t len;
        char *s = hcp_gstr(c, at, &len);
        if (!s) return NULL;
        uint16_t *w = hcp_wfroma(s);
        free(s);
        if (!w) hcp_stop(c, "out of host memory");
        if (n) *n = len;
        return w;
    }
    hcp_wbuf b = {0};
    uint8_t chunk[512];
    for (uint64_t a = at;;) {
        size_t take = 0x1000 - (size_t)(a & 0xFFF); /* to the end of the page */
        if (take > sizeof chunk) take = sizeof chunk;
        if (take < 2) take = 2; /* a unit across the page end */
        if (sim_mem_read(c->m, a, chunk, take) != SIM_OK) {
            take = 2;
            if (sim_mem_read(c->m, a, chunk, 2) != SIM_OK) {
                hcp_wbuf_free(&b);
                hcp_bad(c, a, false);
                return NULL;
            }
        }
        take &= ~(size_t)1;
        for (size_t i = 0; i < take; i += 2) {
            uint16_t u = hcp_get16(chunk + i);
            if (!u) {
                if (!b.s) hcp_wbuf_add(&b, &u, 0);
                if (b.oom) {
                    hcp_wbuf_free(&b);
                    hcp_stop(c, "out of host memory");
                    return NULL;
                }
                if (n) *n = b.n;
                return b.s;
            }
            hcp_wbuf_add(&b, &u, 1);
        }
        a += take;
        if (b.n > HCP_MAX_STR / 2 || b.oom) {
            hcp_wbuf_free(&b);
            hcp_bad(c, a, false);
            return NULL;
        }
    }
}

bool hcp_put_str(hcp_ctx *c, uint64_t at, bool wide, const uint16_t *s, size_t n) {
    size_t unit = wide ? 2 : 1;
    uint8_t *b = malloc((n + 1) * unit);
    if (!b) {
        hcp_stop(c, "out of host memory");
        return false;
    }
    for (size_t i = 0; i <= n; i++) {
        uint16_t u = i < n ? s[i] : 0;
        if (wide)
            hcp_put16(b + 2 * i, u);
        else
            b[i] = (uint8_t)(u < 256 ? u : '?');
    }
    bool ok = hcp_wr(c, at, b, (n + 1) * unit);
    free(b);
    return ok;
}

uint64_t hcp_str_out(hcp_ctx *c, uint64_t at, uint32_t cap, bool wide, const uint16_t *s, size_t n) {
    if ((uint64_t)cap < (uint64_t)n + 1) return (uint32_t)(n + 1);
    return hcp_put_str(c, at, wide, s, n) ? (uint32_t)n : 0;
}

void hcp_kernel_bytes(hcp_ctx *c, uint64_t n) {
    const sim_config *cfg = sim_machine_config(c->m);
    if (!n || !cfg->cost.api_call_cycles || !c->t) return;
    sim_kernel_work(c->t, (n + 15) / 16);
}
