/* crt_test.h — what the C runtime's test programs share (README.md here).  Each program prints
 * one line per check: "DLL!function: what = result", DLL the runtime it was linked against
 * (msvcrt.dll, or ucrtbase.dll for the _UCRT builds), so a test can compare every line with the
 * same program's output under Wine and name the function it checks.  Lines starting with "p " hold
 * values that depend on the pointer size.  The programs are built with -fno-builtin, so every
 * call reaches the runtime's own function. */
#ifndef CRT_TEST_H
#define CRT_TEST_H
#ifndef __USE_MINGW_ANSI_STDIO
#define __USE_MINGW_ANSI_STDIO 0
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

#ifdef _UCRT
#define CRT_DLL "ucrtbase.dll"
#else
#define CRT_DLL "msvcrt.dll"
#endif
#define DLL CRT_DLL "!"
/* A function msvcrt.dll lacks and mingw-w64's library supplies in the msvcrt builds (its own code,
 * not the DLL's): the line names the DLL only in the UCRT builds. */
#ifdef _UCRT
#define UCRT_DLL DLL
#else
#define UCRT_DLL "mingw-w64!"
#endif

/* A function of the runtime by name, for those mingw-w64's import library leaves out (it links
 * its own instead): the DLL's export, as GetProcAddress finds it. */
static inline FARPROC crt_fn(const char *name) {
    FARPROC f = GetProcAddress(GetModuleHandleA(CRT_DLL), name);
    if (!f) {
        printf("%s!%s: not exported\n", CRT_DLL, name);
        exit(1);
    }
    return f;
}
#define CRT_FN(type, name) ((type)(void (*)(void))crt_fn(#name))

/* errno before a call (a value no call sets) and as the call left it */
#define ERRNO_MARK 12345
static inline void mark(void) { errno = ERRNO_MARK; }
static inline int err(void) { return errno == ERRNO_MARK ? -1 : errno; }

/* bytes as text: printable ASCII as is, others as \xHH, NUL as \0 */
static inline const char *show(const void *p, size_t n) {
    static char out[4][512];
    static int k;
    char *o = out[k++ & 3];
    size_t j = 0;
    const unsigned char *b = p;
    for (size_t i = 0; i < n && j < 500; i++) {
        if (b[i] >= 32 && b[i] < 127 && b[i] != '\\')
            o[j++] = (char)b[i];
        else
            j += (size_t)sprintf(o + j, b[i] ? "\\x%02X" : "\\0", b[i]);
    }
    o[j] = 0;
    return o;
}
static inline const char *wshow(const wchar_t *p, size_t n) {
    static char out[4][512];
    static int k;
    char *o = out[k++ & 3];
    size_t j = 0;
    for (size_t i = 0; i < n && j < 500; i++) {
        if (p[i] >= 32 && p[i] < 127 && p[i] != '\\')
            o[j++] = (char)p[i];
        else
            j += (size_t)sprintf(o + j, p[i] ? "\\u%04X" : "\\0", (unsigned)p[i]);
    }
    o[j] = 0;
    return o;
}
static inline unsigned long long dbits(double d) {
    unsigned long long u;
    memcpy(&u, &d, sizeof u);
    return u;
}
#endif
