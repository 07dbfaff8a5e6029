/* api/crt_string.c — the C runtime's memory, string and wide-string functions, their *_s forms
 * and msvcrt's _str and _wcs extensions, on guest memory, in the "C" locale (api/README.md "The C
 * runtime": "Strings").  Narrow and wide functions share one implementation over code units (1
 * or 2 bytes).  Each call reports the bytes it reads and writes as its work (cost class
 * work=byte in exports.spec).  A NULL or unreadable pointer where the function has no
 * invalid-parameter check is an access violation, as on Windows: the run stops naming it. */
#include <stdlib.h>

#include "api/crt_int.h"

#define MAX_BLOCK ((uint64_t)HCP_MAX_STR * 64) /* bytes one call copies, fills or compares at most */
/* _TRUNCATE: a size_t of all ones (32 bits on a 32-bit guest) */
#define CRT_TRUNCATE(c) ((c)->w == 8 ? UINT64_MAX : (uint64_t)0xFFFFFFFFu)
#define NLSCMPERROR 0x7FFFFFFF /* _NLSCMPERROR */

/* ---- guest strings as code units ---- */

/* Units (w = 1 or 2 bytes) at `at`, up to the terminator (not included) or `max` units; NULL after
 * a failure (the run stops).  *n: units read. */
static uint16_t *rd_units(hcp_ctx *c, uint64_t at, unsigned w, uint64_t max, size_t *n) {
    size_t cap = 64, k = 0;
    uint16_t *u = malloc(cap * sizeof *u);
    uint8_t page[4096];
    while (u && k < max) {
        uint64_t a = at + k * w;
        size_t chunk = (size_t)(0x1000 - (a & 0xFFF)) / w;
        if (!chunk) chunk = 1;
        if (chunk > max - k) chunk = (size_t)(max - k);
        if (sim_mem_read(c->m, a, page, chunk * w) != SIM_OK) { /* the string may end before the bad page */
            chunk = 1;
            if (!hcp_rd(c, a, page, w)) {
                free(u);
                return NULL;
            }
        }
        bool end = false;
        for (size_t i = 0; i < chunk; i++) {
            uint16_t ch = w == 2 ? hcp_get16(page + 2 * i) : page[i];
            if (!ch) {
                end = true;
                break;
            }
            if (k == cap) {
                cap *= 2;
                uint16_t *nu = realloc(u, cap * sizeof *nu);
                if (!nu) {
                    free(u);
                    return NULL;
                }
                u = nu;
            }
            u[k++] = ch;
        }
        if (end) break;
        if (k > HCP_MAX_STR) {
            free(u);
            hcp_bad(c, at + k * w, false);
            return NULL;
        }
    }
    if (!u) return NULL;
    *n = k;
    hcp_work(c, (k + 1) * w);
    return u;
}
static uint16_t *rd_str(hcp_ctx *c, uint64_t at, unsigned w, size_t *n) { return rd_units(c, at, w, UINT64_MAX, n); }

/* Writes n units and, with nul, a terminator. */
static bool wr_units(hcp_ctx *c, uint64_t at, unsigned w, const uint16_t *u, size_t n, bool nul) {
    size_t total = (n + (nul ? 1 : 0)) * w;
    uint8_t *b = malloc(total ? total : 1);
    if (!b) return hcp_stop(c, "out of host memory"), false;
    for (size_t i = 0; i < n; i++) {
        if (w == 2)
            hcp_put16(b + 2 * i, u[i]);
        else
            b[i] = (uint8_t)u[i];
    }
    if (nul) memset(b + n * w, 0, w);
    bool ok = hcp_wr(c, at, b, total);
    free(b);
    hcp_work(c, total);
    return ok;
}
static bool wr_unit(hcp_ctx *c, uint64_t at, unsigned w, uint16_t u) { return wr_units(c, at, w, &u, 1, false); }

/* The unit of the function called: 2 bytes for the wide ones (their names hold "wcs"), else 1. */
static unsigned uw(const hcp_ctx *c) { return c->ex && strstr(c->ex->name, "wcs") ? 2u : 1u; }
static bool memchr_u16(const uint16_t *d, size_t m, uint16_t ch) {
    for (size_t j = 0; j < m; j++)
        if (d[j] == ch) return true;
    return false;
}

static uint16_t lower_c(uint16_t ch) { return ch >= 'A' && ch <= 'Z' ? (uint16_t)(ch + 32) : ch; }
static uint16_t upper_c(uint16_t ch) { return ch >= 'a' && ch <= 'z' ? (uint16_t)(ch - 32) : ch; }
static int sign(int64_t r) { return r < 0 ? -1 : r > 0; }
static uint64_t ret_int(int64_t v) { return (uint32_t)(int32_t)v; }
static int64_t schar(uint16_t ch) { return (int8_t)(uint8_t)ch; } /* a char of msvcrt: signed */

/* ---- memory ---- */

static uint8_t *rd_block(hcp_ctx *c, uint64_t at, uint64_t n) {
    if (n > MAX_BLOCK) {
        hcp_stop(c, "a block of %llu bytes: hcpsim handles at most %llu", (unsigned long long)n,
                 (unsigned long long)MAX_BLOCK);
        return NULL;
    }
    uint8_t *b = malloc(n ? (size_t)n : 1);
    if (!b) {
        hcp_stop(c, "out of host memory");
        return NULL;
    }
    if (!hcp_rd(c, at, b, (size_t)n)) {
        free(b);
        return NULL;
    }
    hcp_work(c, n);
    return b;
}
static bool wr_block(hcp_ctx *c, uint64_t at, const uint8_t *b, uint64_t n) {
    hcp_work(c, n);
    return hcp_wr(c, at, b, (size_t)n);
}

uint64_t hcp_crt_memcpy(hcp_ctx *c, const hcp_crt_memcpy_args *a) { /* memmove too: a copy through the host */
    uint8_t *b = rd_block(c, a->_Src, a->_Size);
    if (b) wr_block(c, a->_Dst, b, a->_Size);
    free(b);
    return a->_Dst;
}

uint64_t hcp_crt_memset(hcp_ctx *c, const hcp_crt_memset_args *a) {
    if (a->_Size > MAX_BLOCK) return hcp_stop(c, "a block of %llu bytes", (unsigned long long)a->_Size), a->_Dst;
    uint8_t *b = malloc(a->_Size ? (size_t)a->_Size : 1);
    if (!b) return hcp_stop(c, "out of host memory");
    memset(b, (uint8_t)a->_Val, (size_t)a->_Size);
    wr_block(c, a->_Dst, b, a->_Size);
    free(b);
    return a->_Dst;
}

uint64_t hcp_crt_memcmp(hcp_ctx *c, const hcp_crt_memcmp_args *a) {
    int r = 0;
    for (uint64_t off = 0; off < a->_Size && !r; off += 4096) { /* stops at the first difference */
        uint64_t k = a->_Size - off < 4096 ? a->_Size - off : 4096;
        uint8_t *x = rd_block(c, a->_Buf1 + off, k), *y = x ? rd_block(c, a->_Buf2 + off, k) : NULL;
        if (x && y) r = memcmp(x, y, (size_t)k);
        free(x);
        free(y);
        if (!x || !y) return 0;
    }
    return ret_int(sign(r));
}

uint64_t hcp_crt_memchr(hcp_ctx *c, const hcp_crt_memchr_args *a) {
    for (uint64_t off = 0; off < a->_MaxCount; off += 4096) {
        uint64_t k = a->_MaxCount - off < 4096 ? a->_MaxCount - off : 4096;
        uint8_t *x = rd_block(c, a->_Buf + off, k);
        if (!x) return 0;
        uint8_t *f = memchr(x, (uint8_t)a->_Val, (size_t)k);
        uint64_t r = f ? a->_Buf + off + (uint64_t)(f - x) : 0;
        free(x);
        if (f) return r;
    }
    return 0;
}

uint64_t hcp_crt__memicmp(hcp_ctx *c, const hcp_crt__memicmp_args *a) {
    if (!a->_Buf1 || !a->_Buf2) {
        if (!a->_Size) return 0;
        hcp_crt_invalid(c, CRT_EINVAL);
        return NLSCMPERROR;
    }
    uint8_t *x = rd_block(c, a->_Buf1, a->_Size), *y = x ? rd_block(c, a->_Buf2, a->_Size) : NULL;
    int64_t r = 0;
    for (uint64_t i = 0; x && y && i < a->_Size && !r; i++) r = schar(lower_c(x[i])) - schar(lower_c(y[i]));
    free(x);
    free(y);
    return ret_int(r);
}

uint64_t hcp_crt__memccpy(hcp_ctx *c, const hcp_crt__memccpy_args *a) {
    uint8_t *x = rd_block(c, a->_Src, a->_MaxCount); /* msvcrt reads as it copies: a copy up to the match */
    if (!x) return 0;
    uint8_t *f = memchr(x, (uint8_t)a->_Val, (size_t)a->_MaxCount);
    uint64_t n = f ? (uint64_t)(f - x) + 1 : a->_MaxCount;
    wr_block(c, a->_Dst, x, n);
    free(x);
    return f ? a->_Dst + n : 0;
}

/* memcpy_s, memmove_s: the invalid parameters, then a copy; memcpy_s zeroes the destination on
 * a NULL source or a count above its size, memmove_s does not. */
static uint64_t copy_s(hcp_ctx *c, uint64_t dst, uint64_t size, uint64_t src, uint64_t count, bool zero) {
    if (!count) return 0;
    if (!dst) return hcp_crt_invalid(c, CRT_EINVAL);
    if (!src || count > size) {
        if (zero && size <= MAX_BLOCK) {
            hcp_zero(c, dst, size);
            hcp_work(c, size);
        }
        return hcp_crt_invalid(c, !src ? CRT_EINVAL : CRT_ERANGE);
    }
    uint8_t *b = rd_block(c, src, count);
    if (b) wr_block(c, dst, b, count);
    free(b);
    return 0;
}
uint64_t hcp_crt_memcpy_s(hcp_ctx *c, const hcp_crt_memcpy_s_args *a) {
    return copy_s(c, a->_Dst, a->_DstSize, a->_Src, a->_MaxCount, true);
}
uint64_t hcp_crt_memmove_s(hcp_ctx *c, const hcp_crt_memmove_s_args *a) {
    return copy_s(c, a->_Dst, a->_DstSize, a->_Src, a->_MaxCount, false);
}

/* ---- lengths and comparisons ---- */

uint64_t hcp_crt_strlen(hcp_ctx *c, const hcp_crt_strlen_args *a) { /* wcslen too */
    size_t n = 0;
    free(rd_str(c, a->_Str, uw(c), &n));
    return n;
}
uint64_t hcp_crt_strnlen(hcp_ctx *c, const hcp_crt_strnlen_args *a) { /* wcsnlen too */
    size_t n = 0;
    free(rd_units(c, a->_Str, uw(c), a->_MaxCount, &n));
    return n;
}

/* strcmp/wcscmp: -1, 0 or 1; strncmp/wcsncmp: msvcrt's i386 strncmp and every wcsncmp return the
 * difference of the first differing units, the others the sign. */
static uint64_t compare(hcp_ctx *c, uint64_t s1, uint64_t s2, uint64_t max, bool diff) {
    unsigned w = uw(c);
    size_t n1, n2;
    uint16_t *x = rd_units(c, s1, w, max, &n1), *y = x ? rd_units(c, s2, w, max, &n2) : NULL;
    int64_t r = 0;
    if (x && y) {
        size_t i = 0;
        while (i < n1 && i < n2 && x[i] == y[i]) i++;
        uint16_t a = i < n1 ? x[i] : 0, b = i < n2 ? y[i] : 0;
        if (i >= max) a = b = 0;
        r = diff ? (int64_t)a - b : sign((int64_t)a - b);
    }
    free(x);
    free(y);
    return ret_int(r);
}
uint64_t hcp_crt_strcmp(hcp_ctx *c, const hcp_crt_strcmp_args *a) {
    return compare(c, a->_Str1, a->_Str2, UINT64_MAX, false);
}
uint64_t hcp_crt_strncmp(hcp_ctx *c, const hcp_crt_strncmp_args *a) {
    if (!a->_MaxCount) return 0;
    bool diff = uw(c) == 2 || (c->w == 4 && !hcp_crt_is_ucrt(c));
    return compare(c, a->_Str1, a->_Str2, a->_MaxCount, diff);
}

/* _stricmp, _strnicmp, _wcsicmp, _wcsnicmp (and _strcmpi, _stricoll, _strnicoll in the "C"
 * locale): ASCII letters compared as lower case; the difference of the first differing units
 * (narrow ones as signed chars). */
static uint64_t icompare(hcp_ctx *c, uint64_t s1, uint64_t s2, uint64_t max) {
    unsigned w = uw(c);
    if (!max) return 0;
    if (!s1 || !s2) {
        if (w == 2) hcp_crt_invalid(c, CRT_EINVAL);
        return NLSCMPERROR;
    }
    size_t n1, n2;
    uint16_t *x = rd_units(c, s1, w, max, &n1), *y = x ? rd_units(c, s2, w, max, &n2) : NULL;
    int64_t r = 0;
    if (x && y) {
        for (size_t i = 0; i < max; i++) {
            uint16_t a = lower_c(i < n1 ? x[i] : 0), b = lower_c(i < n2 ? y[i] : 0);
            r = w == 1 ? schar(a) - schar(b) : (int64_t)a - b;
            if (r || !a) break;
        }
    }
    free(x);
    free(y);
    return ret_int(r);
}
uint64_t hcp_crt__stricmp(hcp_ctx *c, const hcp_crt__stricmp_args *a) {
    return icompare(c, a->_Str1, a->_Str2, UINT64_MAX);
}
uint64_t hcp_crt__strnicmp(hcp_ctx *c, const hcp_crt__strnicmp_args *a) {
    return icompare(c, a->_Str1, a->_Str2, a->_MaxCount);
}
uint64_t hcp_crt_strcoll(hcp_ctx *c, const hcp_crt_strcoll_args *a) { /* the "C" locale: strcmp */
    return compare(c, a->_Str1, a->_Str2, UINT64_MAX, false);
}
uint64_t hcp_crt__strncoll(hcp_ctx *c, const hcp_crt__strncoll_args *a) {
    if (!a->_MaxCount) return 0;
    bool diff = uw(c) == 2 || (c->w == 4 && !hcp_crt_is_ucrt(c));
    return compare(c, a->_Str1, a->_Str2, a->_MaxCount, diff);
}

/* ---- copies and concatenation ---- */

uint64_t hcp_crt_strcpy(hcp_ctx *c, const hcp_crt_strcpy_args *a) {
    unsigned w = uw(c);
    size_t n;
    uint16_t *s = rd_str(c, a->_Source, w, &n);
    if (s) wr_units(c, a->_Dest, w, s, n, true);
    free(s);
    return a->_Dest;
}
uint64_t hcp_crt_strcat(hcp_ctx *c, const hcp_crt_strcat_args *a) {
    unsigned w = uw(c);
    size_t nd, ns;
    uint16_t *d = rd_str(c, a->_Dest, w, &nd), *s = d ? rd_str(c, a->_Source, w, &ns) : NULL;
    if (s) wr_units(c, a->_Dest + nd * w, w, s, ns, true);
    free(d);
    free(s);
    return a->_Dest;
}
/* strncpy: at most n units, the rest of the n filled with terminators (no terminator when the
 * source is n units or longer). */
uint64_t hcp_crt_strncpy(hcp_ctx *c, const hcp_crt_strncpy_args *a) {
    unsigned w = uw(c);
    if (a->_Count > MAX_BLOCK / w) return hcp_stop(c, "a count of %llu", (unsigned long long)a->_Count);
    size_t n;
    uint16_t *s = rd_units(c, a->_Source, w, a->_Count, &n);
    if (!s) return a->_Dest;
    uint16_t *o = calloc((size_t)a->_Count + 1, sizeof *o);
    if (o) {
        memcpy(o, s, n * sizeof *o);
        wr_units(c, a->_Dest, w, o, (size_t)a->_Count, false);
    }
    free(o);
    free(s);
    return a->_Dest;
}
uint64_t hcp_crt_strncat(hcp_ctx *c, const hcp_crt_strncat_args *a) {
    unsigned w = uw(c);
    size_t nd, ns;
    uint16_t *d = rd_str(c, a->_Dest, w, &nd), *s = d ? rd_units(c, a->_Source, w, a->_Count, &ns) : NULL;
    if (s) wr_units(c, a->_Dest + nd * w, w, s, ns, true);
    free(d);
    free(s);
    return a->_Dest;
}

/* strcpy_s, wcscpy_s */
uint64_t hcp_crt_strcpy_s(hcp_ctx *c, const hcp_crt_strcpy_s_args *a) {
    unsigned w = uw(c);
    if (!a->_Dst || !a->_SizeInBytes) return hcp_crt_invalid(c, CRT_EINVAL);
    if (!a->_Src) {
        wr_unit(c, a->_Dst, w, 0);
        return hcp_crt_invalid(c, CRT_EINVAL);
    }
    size_t n;
    uint16_t *s = rd_units(c, a->_Src, w, a->_SizeInBytes, &n);
    if (!s) return 0;
    uint32_t r = 0;
    if (n >= a->_SizeInBytes) { /* no room for the terminator: strcpy_s leaves the copy so far, wcscpy_s
                                   checks the length first; then dst[0] = 0 */
        if (w == 1) wr_units(c, a->_Dst, w, s, (size_t)a->_SizeInBytes, false);
        wr_unit(c, a->_Dst, w, 0);
        r = hcp_crt_invalid(c, CRT_ERANGE);
    } else {
        wr_units(c, a->_Dst, w, s, n, true);
    }
    free(s);
    return r;
}
/* strcat_s, wcscat_s */
uint64_t hcp_crt_strcat_s(hcp_ctx *c, const hcp_crt_strcat_s_args *a) {
    unsigned w = uw(c);
    if (!a->_Dst || !a->_SizeInBytes) return hcp_crt_invalid(c, CRT_EINVAL);
    if (!a->_Src) {
        wr_unit(c, a->_Dst, w, 0);
        return hcp_crt_invalid(c, CRT_EINVAL);
    }
    size_t nd, ns;
    uint16_t *d = rd_units(c, a->_Dst, w, a->_SizeInBytes, &nd);
    if (!d) return 0;
    free(d);
    if (nd >= a->_SizeInBytes) { /* not terminated within its size */
        wr_unit(c, a->_Dst, w, 0);
        return hcp_crt_invalid(c, CRT_ERANGE);
    }
    uint16_t *s = rd_units(c, a->_Src, w, a->_SizeInBytes - nd, &ns);
    if (!s) return 0;
    uint32_t r = 0;
    if (nd + ns >= a->_SizeInBytes) { /* the part that fits is copied first, then dst[0] = 0 */
        wr_units(c, a->_Dst + nd * w, w, s, (size_t)(a->_SizeInBytes - nd), false);
        wr_unit(c, a->_Dst, w, 0);
        r = hcp_crt_invalid(c, CRT_ERANGE);
    } else {
        wr_units(c, a->_Dst + nd * w, w, s, ns, true);
    }
    free(s);
    return r;
}
/* strncpy_s, wcsncpy_s: count _TRUNCATE copies what fits and returns STRUNCATE */
uint64_t hcp_crt_strncpy_s(hcp_ctx *c, const hcp_crt_strncpy_s_args *a) {
    unsigned w = uw(c);
    uint64_t elem = a->_SizeInBytes, count = a->_MaxCount;
    if (!count) {
        if (a->_Dst && elem) wr_unit(c, a->_Dst, w, 0);
        return 0;
    }
    if (!a->_Dst || !elem) return hcp_crt_invalid(c, CRT_EINVAL);
    if (!a->_Src) {
        wr_unit(c, a->_Dst, w, 0);
        return hcp_crt_invalid(c, CRT_EINVAL);
    }
    bool trunc = count == CRT_TRUNCATE(c);
    size_t n;
    uint16_t *s = rd_units(c, a->_Src, w, elem < count ? elem : count, &n);
    if (!s) return 0;
    uint32_t r = 0;
    if (n >= elem) { /* the destination filled up before the source or the count ended */
        if (trunc) {
            wr_units(c, a->_Dst, w, s, (size_t)elem - 1, true);
            r = CRT_STRUNCATE;
        } else {
            wr_units(c, a->_Dst, w, s, (size_t)elem, false);
            wr_unit(c, a->_Dst, w, 0);
            r = hcp_crt_invalid(c, CRT_ERANGE);
        }
    } else {
        wr_units(c, a->_Dst, w, s, n, true);
    }
    free(s);
    return r;
}
/* strncat_s, wcsncat_s */
uint64_t hcp_crt_strncat_s(hcp_ctx *c, const hcp_crt_strncat_s_args *a) {
    unsigned w = uw(c);
    uint64_t elem = a->_SizeInBytes, count = a->_MaxCount;
    if (!a->_Dst || !elem) return hcp_crt_invalid(c, CRT_EINVAL);
    if (!count) return 0;
    if (!a->_Src) {
        wr_unit(c, a->_Dst, w, 0);
        return hcp_crt_invalid(c, CRT_EINVAL);
    }
    size_t nd, ns;
    uint16_t *d = rd_units(c, a->_Dst, w, elem, &nd);
    if (!d) return 0;
    free(d);
    if (nd >= elem) {
        wr_unit(c, a->_Dst, w, 0);
        return hcp_crt_invalid(c, CRT_EINVAL);
    }
    bool trunc = count == CRT_TRUNCATE(c);
    uint16_t *s = rd_units(c, a->_Src, w, trunc ? elem - nd : (count < elem - nd ? count : elem - nd), &ns);
    if (!s) return 0;
    uint32_t r = 0;
    if (nd + ns < elem) {
        wr_units(c, a->_Dst + nd * w, w, s, ns, true);
    } else if (trunc) {
        wr_units(c, a->_Dst + nd * w, w, s, (size_t)(elem - 1 - nd), true);
        r = CRT_STRUNCATE;
    } else {
        wr_units(c, a->_Dst + nd * w, w, s, (size_t)(elem - nd), false);
        wr_unit(c, a->_Dst, w, 0);
        r = hcp_crt_invalid(c, CRT_ERANGE);
    }
    free(s);
    return r;
}

/* _strdup, _wcsdup: a copy on the heap (NULL for NULL) */
uint64_t hcp_crt__strdup(hcp_ctx *c, const hcp_crt__strdup_args *a) {
    unsigned w = uw(c);
    if (!a->_Src) return 0;
    size_t n;
    uint16_t *s = rd_str(c, a->_Src, w, &n);
    if (!s) return 0;
    uint64_t at = hcp_heap_alloc(c, (n + 1) * w);
    if (at) wr_units(c, at, w, s, n, true);
    free(s);
    return at;
}

/* ---- searches ---- */

uint64_t hcp_crt_strchr(hcp_ctx *c, const hcp_crt_strchr_args *a) {
    unsigned w = uw(c);
    size_t n;
    uint16_t *s = rd_str(c, a->_Str, w, &n);
    if (!s) return 0;
    uint16_t ch = w == 1 ? (uint8_t)a->_Val : (uint16_t)a->_Val;
    uint64_t r = 0;
    if (!ch) {
        r = a->_Str + n * w;
    } else {
        for (size_t i = 0; i < n; i++)
            if (s[i] == ch) {
                r = a->_Str + i * w;
                break;
            }
    }
    free(s);
    return r;
}
uint64_t hcp_crt_strrchr(hcp_ctx *c, const hcp_crt_strrchr_args *a) {
    unsigned w = uw(c);
    size_t n;
    uint16_t *s = rd_str(c, a->_Str, w, &n);
    if (!s) return 0;
    uint16_t ch = w == 1 ? (uint8_t)a->_Ch : (uint16_t)a->_Ch;
    uint64_t r = 0;
    if (!ch) {
        r = a->_Str + n * w;
    } else {
        for (size_t i = n; i-- > 0;)
            if (s[i] == ch) {
                r = a->_Str + i * w;
                break;
            }
    }
    free(s);
    return r;
}
uint64_t hcp_crt_strstr(hcp_ctx *c, const hcp_crt_strstr_args *a) {
    unsigned w = uw(c);
    size_t n, m;
    uint16_t *s = rd_str(c, a->_Str, w, &n), *t = s ? rd_str(c, a->_SubStr, w, &m) : NULL;
    uint64_t r = 0;
    if (s && t) {
        for (size_t i = 0; i + m <= n; i++)
            if (!memcmp(s + i, t, m * sizeof *t)) {
                r = a->_Str + i * w;
                break;
            }
    }
    free(s);
    free(t);
    return r;
}
/* strspn (accept) and strcspn (reject): the length of the leading part whose units are (not) in set */
static uint64_t span(hcp_ctx *c, uint64_t str, uint64_t set, bool accept, bool ptr) {
    unsigned w = uw(c);
    size_t n, m;
    uint16_t *s = rd_str(c, str, w, &n), *t = s ? rd_str(c, set, w, &m) : NULL;
    size_t i = 0;
    if (s && t) {
        for (; i < n; i++) {
            bool in = false;
            for (size_t j = 0; j < m && !in; j++) in = s[i] == t[j];
            if (in != accept) break;
        }
    }
    free(s);
    free(t);
    if (ptr) return i < n ? str + i * w : 0; /* strpbrk: the unit found, or NULL */
    return i;
}
uint64_t hcp_crt_strspn(hcp_ctx *c, const hcp_crt_strspn_args *a) { return span(c, a->_Str, a->_Control, true, false); }
uint64_t hcp_crt_strcspn(hcp_ctx *c, const hcp_crt_strcspn_args *a) {
    return span(c, a->_Str, a->_Control, false, false);
}
uint64_t hcp_crt_strpbrk(hcp_ctx *c, const hcp_crt_strpbrk_args *a) {
    return span(c, a->_Str, a->_Control, false, true);
}

/* strtok, wcstok (msvcrt: the thread's own place; the UCRT's wcstok takes one), strtok_s,
 * wcstok_s: skips delimiters, ends the token with a terminator, remembers the place after it. */
static uint64_t token(hcp_ctx *c, uint64_t str, uint64_t delim, uint64_t *place) {
    unsigned w = uw(c);
    if (!str) str = *place;
    if (!str) return 0;
    size_t n, m;
    uint16_t *s = rd_str(c, str, w, &n), *d = s ? rd_str(c, delim, w, &m) : NULL;
    uint64_t r = 0;
    if (s && d) {
        size_t i = 0;
#define IN_D(ch) (memchr_u16(d, m, (ch)))
        while (i < n && IN_D(s[i])) i++;
        if (i == n) {
            *place = str + i * w;
        } else {
            r = str + i * w;
            while (i < n && !IN_D(s[i])) i++;
            if (i < n) {
                wr_unit(c, str + i * w, w, 0);
                i++;
            }
            *place = str + i * w;
        }
#undef IN_D
    }
    free(s);
    free(d);
    return r;
}
uint64_t hcp_crt_strtok(hcp_ctx *c, const hcp_crt_strtok_args *a) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t) return 0;
    return token(c, a->_Str, a->_Delim, uw(c) == 2 ? &t->wcstok_next : &t->strtok_next);
}
uint64_t hcp_ucrt_wcstok(hcp_ctx *c, const hcp_ucrt_wcstok_args *a) { /* the UCRT's wcstok(str, delim, ctx) */
    if (!a->_Context) {
        hcp_crt_thread *t = hcp_crt_thread_of(c);
        return t ? token(c, a->_Str, a->_Delim, &t->wcstok_next) : 0;
    }
    uint64_t place = 0;
    if (!a->_Str && !hcp_rdp(c, a->_Context, &place)) return 0;
    uint64_t r = token(c, a->_Str, a->_Delim, &place);
    hcp_wrp(c, a->_Context, place);
    return r;
}
uint64_t hcp_crt_strtok_s(hcp_ctx *c, const hcp_crt_strtok_s_args *a) {
    if (!a->_Delim || !a->_Context) return hcp_crt_invalid(c, CRT_EINVAL), 0;
    uint64_t place = 0;
    if (!hcp_rdp(c, a->_Context, &place)) return 0;
    if (!a->_Str && !place) return hcp_crt_invalid(c, CRT_EINVAL), 0;
    uint64_t r = token(c, a->_Str, a->_Delim, &place);
    hcp_wrp(c, a->_Context, place);
    return r;
}

/* ---- in place: case, reversal, fill ---- */

/* _strlwr, _strupr, _wcslwr, _wcsupr: ASCII letters only in the "C" locale */
static uint64_t recase(hcp_ctx *c, uint64_t str, bool up) {
    unsigned w = uw(c);
    size_t n;
    uint16_t *s = rd_str(c, str, w, &n);
    if (!s) return str;
    for (size_t i = 0; i < n; i++) s[i] = up ? upper_c(s[i]) : lower_c(s[i]);
    wr_units(c, str, w, s, n, false);
    free(s);
    return str;
}
uint64_t hcp_crt__strlwr(hcp_ctx *c, const hcp_crt__strlwr_args *a) { return recase(c, a->_String, false); }
uint64_t hcp_crt__strupr(hcp_ctx *c, const hcp_crt__strupr_args *a) { return recase(c, a->_String, true); }
/* _strlwr_s, _strupr_s (and the wide ones): EINVAL for NULL or an unterminated buffer (which is
 * emptied) */
static uint64_t recase_s(hcp_ctx *c, uint64_t str, uint64_t size, bool up) {
    unsigned w = uw(c);
    if (!str) return hcp_crt_invalid(c, CRT_EINVAL);
    size_t n;
    uint16_t *s = rd_units(c, str, w, size, &n);
    if (!s) return 0;
    uint32_t r = 0;
    if (n >= size) {
        if (size) wr_unit(c, str, w, 0);
        r = hcp_crt_invalid(c, CRT_EINVAL);
    } else {
        for (size_t i = 0; i < n; i++) s[i] = up ? upper_c(s[i]) : lower_c(s[i]);
        wr_units(c, str, w, s, n, false);
    }
    free(s);
    return r;
}
uint64_t hcp_crt__strlwr_s(hcp_ctx *c, const hcp_crt__strlwr_s_args *a) {
    return recase_s(c, a->_Str, a->_Size, false);
}
uint64_t hcp_crt__strupr_s(hcp_ctx *c, const hcp_crt__strupr_s_args *a) { return recase_s(c, a->_Str, a->_Size, true); }
uint64_t hcp_crt__strrev(hcp_ctx *c, const hcp_crt__strrev_args *a) {
    unsigned w = uw(c);
    size_t n;
    if (!a->_Str) return 0;
    uint16_t *s = rd_str(c, a->_Str, w, &n);
    if (!s) return a->_Str;
    for (size_t i = 0; i < n / 2; i++) {
        uint16_t t = s[i];
        s[i] = s[n - 1 - i];
        s[n - 1 - i] = t;
    }
    wr_units(c, a->_Str, w, s, n, false);
    free(s);
    return a->_Str;
}
uint64_t hcp_crt__strset(hcp_ctx *c, const hcp_crt__strset_args *a) {
    unsigned w = uw(c);
    size_t n;
    uint16_t *s = rd_str(c, a->_Str, w, &n);
    if (!s) return a->_Str;
    for (size_t i = 0; i < n; i++) s[i] = w == 1 ? (uint8_t)a->_Val : (uint16_t)a->_Val;
    wr_units(c, a->_Str, w, s, n, false);
    free(s);
    return a->_Str;
}
/* _strnset, _wcsnset: the first n units set (up to the terminator); the string, as Microsoft
 * documents (Wine returns the place after the last unit set) */
uint64_t hcp_crt__strnset(hcp_ctx *c, const hcp_crt__strnset_args *a) {
    unsigned w = uw(c);
    if (!a->_MaxCount || !a->_Str) return a->_Str;
    size_t n;
    uint16_t *s = rd_units(c, a->_Str, w, a->_MaxCount, &n);
    if (!s) return a->_Str;
    for (size_t i = 0; i < n; i++) s[i] = w == 1 ? (uint8_t)a->_Val : (uint16_t)a->_Val;
    wr_units(c, a->_Str, w, s, n, false);
    free(s);
    return a->_Str;
}
uint64_t hcp_crt__strnset_s(hcp_ctx *c, const hcp_crt__strnset_s_args *a) {
    unsigned w = uw(c);
    if (!a->_Str && !a->_SizeInBytes && !a->_MaxCount) return 0;
    if (!a->_Str || !a->_SizeInBytes) return hcp_crt_invalid(c, CRT_EINVAL);
    size_t n;
    uint16_t *s = rd_units(c, a->_Str, w, a->_SizeInBytes, &n);
    if (!s) return 0;
    uint32_t r = 0;
    if (n >= a->_SizeInBytes) {
        wr_unit(c, a->_Str, w, 0);
        r = hcp_crt_invalid(c, CRT_EINVAL);
    } else {
        size_t k = n < a->_MaxCount ? n : (size_t)a->_MaxCount;
        for (size_t i = 0; i < k; i++) s[i] = w == 1 ? (uint8_t)a->_Val : (uint16_t)a->_Val;
        wr_units(c, a->_Str, w, s, k, false);
    }
    free(s);
    return r;
}

/* strxfrm, wcsxfrm in the "C" locale: strncpy's copy into the n units (terminators after the
 * string up to n); the string's length */
uint64_t hcp_crt_strxfrm(hcp_ctx *c, const hcp_crt_strxfrm_args *a) {
    unsigned w = uw(c);
    if (!a->_Src || (!a->_Dst && a->_MaxCount)) return hcp_crt_invalid(c, CRT_EINVAL), CRT_INT_MAX;
    uint64_t max = a->_MaxCount > CRT_INT_MAX ? CRT_INT_MAX : a->_MaxCount;
    size_t n;
    uint16_t *s = rd_str(c, a->_Src, w, &n);
    if (!s) return 0;
    if (max > MAX_BLOCK / w) max = MAX_BLOCK / w;
    uint16_t *o = max ? calloc((size_t)max, sizeof *o) : NULL;
    if (o) {
        memcpy(o, s, (n < max ? n : (size_t)max) * sizeof *o);
        wr_units(c, a->_Dst, w, o, (size_t)max, false);
    }
    free(o);
    free(s);
    return n;
}

/* ---- multibyte and wide characters in the "C" locale: a byte is the character of its value ---- */

uint64_t hcp_crt_mbtowc(hcp_ctx *c, const hcp_crt_mbtowc_args *a) {
    if (!a->_SrcCh || !a->_SrcSizeInBytes) return 0;
    uint8_t b;
    if (!hcp_rd(c, a->_SrcCh, &b, 1)) return 0;
    if (a->_DstCh) hcp_wr16(c, a->_DstCh, b);
    return b ? 1 : 0;
}
uint64_t hcp_crt_mblen(hcp_ctx *c, const hcp_crt_mblen_args *a) {
    if (!a->_Ch || !a->_MaxCount) return 0;
    uint8_t b;
    if (!hcp_rd(c, a->_Ch, &b, 1)) return 0;
    return b ? 1 : 0;
}
uint64_t hcp_crt_wctomb(hcp_ctx *c, const hcp_crt_wctomb_args *a) {
    if (!a->_MbCh) return 0; /* no shift states */
    uint16_t wc = (uint16_t)a->_WCh;
    if (wc > 0xFF) {
        hcp_crt_set_errno(c, CRT_EILSEQ);
        return (uint32_t)-1;
    }
    uint8_t b = (uint8_t)wc;
    hcp_wr(c, a->_MbCh, &b, 1);
    return 1;
}
uint64_t hcp_crt_btowc(hcp_ctx *c, const hcp_crt_btowc_args *a) {
    (void)c;
    int32_t ch = a->_Ch;
    return ch == -1 ? 0xFFFF : (uint16_t)(uint8_t)ch; /* WEOF for EOF */
}
uint64_t hcp_crt_wctob(hcp_ctx *c, const hcp_crt_wctob_args *a) {
    (void)c;
    uint16_t wc = (uint16_t)a->_WCh;
    return wc > 0xFF ? (uint32_t)-1 : wc;
}
/* mbstowcs: the characters of the string (with its terminator when it fits), their count; a NULL
 * destination counts */
uint64_t hcp_crt_mbstowcs(hcp_ctx *c, const hcp_crt_mbstowcs_args *a) {
    size_t n;
    uint16_t *s = rd_units(c, a->_Source, 1, a->_Dest ? a->_MaxCount : UINT64_MAX, &n);
    if (!s) return 0;
    if (a->_Dest) wr_units(c, a->_Dest, 2, s, n, n < a->_MaxCount);
    free(s);
    return n;
}
uint64_t hcp_crt_wcstombs(hcp_ctx *c, const hcp_crt_wcstombs_args *a) {
    size_t n;
    uint16_t *s = rd_units(c, a->_Source, 2, a->_Dest ? a->_MaxCount : UINT64_MAX, &n);
    if (!s) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] > 0xFF) {
            free(s);
            hcp_crt_set_errno(c, CRT_EILSEQ);
            return c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu;
        }
    if (a->_Dest) wr_units(c, a->_Dest, 1, s, n, n < a->_MaxCount);
    free(s);
    return n;
}
