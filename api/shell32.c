/* api/shell32.c — SHELL32.dll: CommandLineToArgvW (api/README.md "SHELL32").
 *
 * The rules are Microsoft's documented ones for CommandLineToArgvW, with the program name's and the
 * doubled quotes' rules as Windows applies them (and Wine 8.0 and its tests, which pass on Windows,
 * state them):
 * - the program name (argument 0) is taken whole: after an opening quote, up to the next quote;
 *   otherwise up to the first blank or tab; backslashes and quotes have no meaning in it;
 * - the other arguments are separated by blanks and tabs outside quotes; 2n backslashes before a
 *   quote are n backslashes and the quote opens or closes a quoted part, 2n+1 are n backslashes
 *   and a literal quote; backslashes before any other character are themselves;
 * - a run of m unescaped quotes, counting 1 more when it begins inside a quoted part, gives m / 3
 *   literal quotes (rounded down) and leaves the part quoted only when m % 3 is 1;
 * - an empty command line gives the program's own path as the only argument.
 * The result is one LocalAlloc block (the C runtime's heap, as LocalAlloc's): the pointer array,
 * NULL-terminated, then the strings, so one LocalFree frees both. */
#include "api/exports_gen.h"
#include "api/files_int.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool blank(uint16_t ch) { return ch == ' ' || ch == '\t'; }

/* Splits s[0..n) into out (each argument NUL-terminated, out holds n + 1 + the arguments' count
 * units at most) and returns the count; starts[k] is argument k's offset in out, *units the units
 * written. */
static size_t split(const uint16_t *s, size_t n, uint16_t *out, size_t *starts, size_t *units) {
    size_t i = 0, o = 0, argc = 0;
    starts[argc++] = o;
    if (n && s[0] == '"') { /* the program name: up to the next quote */
        for (i = 1; i < n && s[i] != '"'; i++) out[o++] = s[i];
        if (i < n) i++;
    } else {
        for (; i < n && !blank(s[i]); i++) out[o++] = s[i];
    }
    out[o++] = 0;
    for (;;) {
        while (i < n && blank(s[i])) i++;
        if (i >= n) break;
        starts[argc++] = o;
        bool quoted = false;
        while (i < n && !(blank(s[i]) && !quoted)) {
            if (s[i] == '\\') {
                size_t j = i;
                while (j < n && s[j] == '\\') j++;
                size_t bs = j - i;
                bool before_quote = j < n && s[j] == '"';
                for (size_t k = 0; k < (before_quote ? bs / 2 : bs); k++) out[o++] = '\\';
                i = j;
                if (before_quote && bs % 2) { /* an escaped quote: literal */
                    out[o++] = '"';
                    i++;
                }
            } else if (s[i] == '"') {
                size_t j = i;
                while (j < n && s[j] == '"') j++;
                size_t m = (j - i) + (quoted ? 1 : 0);
                for (size_t k = 0; k < m / 3; k++) out[o++] = '"';
                quoted = m % 3 == 1;
                i = j;
            } else {
                out[o++] = s[i++];
            }
        }
        out[o++] = 0;
    }
    *units = o;
    return argc;
}

uint64_t hcp_sh32_CommandLineToArgvW(hcp_ctx *c, const hcp_sh32_CommandLineToArgvW_args *a) {
    if (!a->pNumArgs) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    size_t n;
    uint16_t *s = hcp_gwstr(c, a->lpCmdLine, true, &n);
    if (!s) return 0;
    hcp_work(c, n);
    bool own_path = n == 0;
    if (own_path) { /* the program's own path (GetModuleFileNameW(NULL)) */
        free(s);
        if (!(s = hcp_gwstr(c, c->p->d.image_w, true, &n))) return 0;
    }
    /* at most n + 1 units and one argument per two units (an argument and its separator) */
    size_t *starts = malloc((n / 2 + 2) * sizeof *starts);
    uint16_t *out = malloc((n + n / 2 + 2) * sizeof *out);
    if (!starts || !out) {
        free(starts);
        free(out);
        free(s);
        return hcp_stop(c, "out of host memory");
    }
    size_t argc, units;
    if (own_path) { /* taken whole: the path may hold blanks */
        memcpy(out, s, n * sizeof *s);
        out[n] = 0;
        starts[0] = 0;
        argc = 1;
        units = n + 1;
    } else {
        argc = split(s, n, out, starts, &units);
    }
    free(s);
    uint64_t ptrs = (uint64_t)(argc + 1) * c->w, block = hcp_heap_alloc(c, ptrs + 2 * units);
    if (!block) {
        free(starts);
        free(out);
        return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    }
    /* the pointers, then the strings, little-endian, written at once */
    uint8_t *b = calloc(1, ptrs + 2 * units);
    if (b) {
        for (size_t k = 0; k < argc; k++) {
            uint64_t v = block + ptrs + 2 * starts[k];
            if (c->w == 8)
                hcp_put64(b + 8 * k, v);
            else
                hcp_put32(b + 4 * k, (uint32_t)v);
        }
        for (size_t u = 0; u < units; u++) hcp_put16(b + ptrs + 2 * u, out[u]);
    }
    free(starts);
    free(out);
    if (!b) return hcp_stop(c, "out of host memory");
    bool ok = hcp_wr(c, block, b, ptrs + 2 * units);
    free(b);
    if (!ok || !hcp_wr32(c, a->pNumArgs, (uint32_t)argc)) return 0;
    return block;
}
