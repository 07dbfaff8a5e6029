/* api/k32_console.c — KERNEL32's console handles and code-page conversions (api/README.md
 * "Windows programs": "Output"; the files, the console handles' reads and writes among them, are
 * k32_file.c's). */
#include <stdlib.h>

#include "api/exports_gen.h"

#define STD_HANDLE(fd) (4u * (fd) + 3u) /* 3, 7, 11: console handles as Windows 7 numbered them */
#define STD_INPUT_HANDLE 0xFFFFFFF6u    /* (DWORD)-10 */
#define STD_OUTPUT_HANDLE 0xFFFFFFF5u   /* (DWORD)-11 */
#define STD_ERROR_HANDLE 0xFFFFFFF4u    /* (DWORD)-12 */

uint64_t hcp_k32_GetStdHandle(hcp_ctx *c, const hcp_k32_GetStdHandle_args *a) {
    switch (a->nStdHandle) {
    case STD_INPUT_HANDLE: return STD_HANDLE(0);
    case STD_OUTPUT_HANDLE: return STD_HANDLE(1);
    case STD_ERROR_HANDLE: return STD_HANDLE(2);
    default: hcp_SetLastError(c->os, ERROR_INVALID_HANDLE); return c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu;
    }
}

/* ASCII only: byte b becomes code unit b. */
uint64_t hcp_k32_MultiByteToWideChar(hcp_ctx *c, const hcp_k32_MultiByteToWideChar_args *a) {
    int32_t n = a->cbMultiByte, cap = a->cchWideChar;
    size_t len = 0;
    char *s = NULL;
    if (n == 0) return hcp_fail(c, ERROR_INVALID_PARAMETER); /* documented: a length of 0 fails */
    if (n < 0) {
        if (!(s = hcp_gstr(c, a->lpMultiByteStr, &len))) return 0;
        len++;
    } else {
        len = (size_t)n;
        if (!(s = malloc(len + 1)) || !hcp_rd(c, a->lpMultiByteStr, s, len)) {
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
        return hcp_fail(c, ERROR_INSUFFICIENT_BUFFER);
    }
    for (size_t i = 0; i < len && !c->failed; i++) hcp_wr16(c, a->lpWideCharStr + 2 * i, (uint8_t)s[i]);
    free(s);
    return (uint32_t)len;
}

/* Code units below 256 as bytes, others '?'. */
uint64_t hcp_k32_WideCharToMultiByte(hcp_ctx *c, const hcp_k32_WideCharToMultiByte_args *a) {
    int32_t n = a->cchWideChar, cap = a->cbMultiByte;
    uint64_t src = a->lpWideCharStr;
    size_t len = 0;
    uint8_t b[2];
    if (n == 0) return hcp_fail(c, ERROR_INVALID_PARAMETER); /* documented: a length of 0 fails */
    if (n < 0) {
        while (len < HCP_MAX_STR && hcp_rd(c, src + 2 * len, b, 2) && hcp_get16(b)) len++;
        len++;
    } else {
        len = (size_t)n;
    }
    if (c->failed) return 0;
    if (cap == 0) return (uint32_t)len;
    if ((size_t)cap < len) return hcp_fail(c, ERROR_INSUFFICIENT_BUFFER);
    for (size_t i = 0; i < len && !c->failed; i++) {
        hcp_rd(c, src + 2 * i, b, 2);
        uint16_t u = hcp_get16(b);
        uint8_t ch = u < 256 ? (uint8_t)u : '?';
        hcp_wr(c, a->lpMultiByteStr + i, &ch, 1);
    }
    return (uint32_t)len;
}
