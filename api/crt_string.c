/* api/crt_string.c — msvcrt's memory and string functions, on guest memory. */
#include <stdlib.h>

#include "api/exports_gen.h"

#define MAX_BLOCK ((uint64_t)HCP_MAX_STR * 64) /* bytes one call copies, fills or compares at most */

uint64_t hcp_crt_memcpy(hcp_ctx *c, const hcp_crt_memcpy_args *a) {
    uint64_t n = a->_Size;
    if (n > MAX_BLOCK) return hcp_bad(c, a->_Src + n, false), a->_Dst;
    char *b = malloc(n ? (size_t)n : 1);
    if (b && hcp_rd(c, a->_Src, b, (size_t)n)) hcp_wr(c, a->_Dst, b, (size_t)n);
    free(b);
    return a->_Dst;
}

uint64_t hcp_crt_memset(hcp_ctx *c, const hcp_crt_memset_args *a) {
    uint64_t n = a->_Size;
    if (n > MAX_BLOCK) return hcp_bad(c, a->_Dst + n, true), a->_Dst;
    char *b = malloc(n ? (size_t)n : 1);
    if (b) {
        memset(b, (int)(uint8_t)a->_Val, (size_t)n);
        hcp_wr(c, a->_Dst, b, (size_t)n);
    }
    free(b);
    return a->_Dst;
}

static uint64_t sign(int r) { return (uint32_t)(r < 0 ? -1 : r > 0); }

uint64_t hcp_crt_memcmp(hcp_ctx *c, const hcp_crt_memcmp_args *a) {
    uint64_t n = a->_Size;
    if (n > MAX_BLOCK) return hcp_bad(c, a->_Buf1 + n, false), 0;
    char *x = malloc(n ? (size_t)n : 1), *y = malloc(n ? (size_t)n : 1);
    int r = 0;
    if (x && y && hcp_rd(c, a->_Buf1, x, (size_t)n) && hcp_rd(c, a->_Buf2, y, (size_t)n)) r = memcmp(x, y, (size_t)n);
    free(x);
    free(y);
    return sign(r);
}

uint64_t hcp_crt_strlen(hcp_ctx *c, const hcp_crt_strlen_args *a) {
    size_t n = 0;
    free(hcp_gstr(c, a->_Str, &n));
    return n;
}

static uint64_t compare(hcp_ctx *c, uint64_t s1, uint64_t s2, bool bounded, uint64_t n) {
    char *x = hcp_gstr(c, s1, NULL), *y = x ? hcp_gstr(c, s2, NULL) : NULL;
    int r = 0;
    if (x && y) r = bounded ? strncmp(x, y, (size_t)n) : strcmp(x, y);
    free(x);
    free(y);
    return sign(r);
}
uint64_t hcp_crt_strcmp(hcp_ctx *c, const hcp_crt_strcmp_args *a) { return compare(c, a->_Str1, a->_Str2, false, 0); }
uint64_t hcp_crt_strncmp(hcp_ctx *c, const hcp_crt_strncmp_args *a) {
    return compare(c, a->_Str1, a->_Str2, true, a->_MaxCount);
}

uint64_t hcp_crt_strchr(hcp_ctx *c, const hcp_crt_strchr_args *a) {
    size_t n;
    char *s = hcp_gstr(c, a->_Str, &n);
    if (!s) return 0;
    char ch = (char)a->_Val;
    char *f = ch ? memchr(s, ch, n) : s + n;
    uint64_t r = f ? a->_Str + (uint64_t)(f - s) : 0;
    free(s);
    return r;
}

uint64_t hcp_crt_strcpy(hcp_ctx *c, const hcp_crt_strcpy_args *a) {
    size_t n;
    char *s = hcp_gstr(c, a->_Source, &n);
    if (s) hcp_wr(c, a->_Dest, s, n + 1);
    free(s);
    return a->_Dest;
}

uint64_t hcp_crt_wcslen(hcp_ctx *c, const hcp_crt_wcslen_args *a) {
    uint64_t n = 0;
    uint8_t b[2];
    while (n < HCP_MAX_STR && hcp_rd(c, a->_Str + 2 * n, b, 2) && hcp_get16(b)) n++;
    return n;
}

uint64_t hcp_crt_atoi(hcp_ctx *c, const hcp_crt_atoi_args *a) {
    char *s = hcp_gstr(c, a->_Str, NULL);
    long long v = s ? strtoll(s, NULL, 10) : 0;
    free(s);
    return (uint32_t)(int32_t)v;
}

uint64_t hcp_crt_strerror(hcp_ctx *c, const hcp_crt_strerror_args *a) {
    const char *m = a->_ErrMsg == 0 ? "No error" : "Unknown error";
    hcp_wr(c, c->p->d.strerr, m, strlen(m) + 1);
    return c->p->d.strerr;
}
