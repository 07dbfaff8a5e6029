/* format.c — the printf family's entry points beside the engine pe_printf.sh checks: the _s forms
 * with their invalid-parameter outcomes, the counting forms, the wide forms and the stream forms,
 * each called through the DLL's export (crt_test.h).  The UCRT has none of these: its printf
 * functions are mingw-w64's inline ones over __stdio_common_* (ucrt.c), so its builds print the
 * last line only. */
#include <stdarg.h>

#include "crt_test.h"

#ifndef _UCRT
typedef int (*vsn_fn)(char *, size_t, const char *, va_list);
typedef int (*vsns_fn)(char *, size_t, size_t, const char *, va_list);
typedef int (*vsc_fn)(const char *, va_list);
typedef int (*vswn_fn)(wchar_t *, size_t, const wchar_t *, va_list);
typedef int (*vsw_fn)(wchar_t *, const wchar_t *, va_list);
typedef int (*vscw_fn)(const wchar_t *, va_list);
typedef int (*vf_fn)(FILE *, const char *, va_list);
typedef int (*vfw_fn)(FILE *, const wchar_t *, va_list);
typedef int (*vp_fn)(const char *, va_list);
typedef int (*vpw_fn)(const wchar_t *, va_list);

static void quiet(const wchar_t *e, const wchar_t *f, const wchar_t *fi, unsigned l, uintptr_t r) {
    (void)e, (void)f, (void)fi, (void)l, (void)r;
}

/* v-forms through a va_list */
static int v_sprintf_s(char *b, size_t n, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vsn_fn, vsprintf_s)(b, n, f, ap);
    va_end(ap);
    return r;
}
static int v_snprintf_s(char *b, size_t n, size_t count, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vsns_fn, _vsnprintf_s)(b, n, count, f, ap);
    va_end(ap);
    return r;
}
static int v_scprintf(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vsc_fn, _vscprintf)(f, ap);
    va_end(ap);
    return r;
}
static int v_swprintf(wchar_t *b, const wchar_t *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vsw_fn, vswprintf)(b, f, ap);
    va_end(ap);
    return r;
}
static int v_snwprintf(wchar_t *b, size_t n, const wchar_t *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vswn_fn, _vsnwprintf)(b, n, f, ap);
    va_end(ap);
    return r;
}
static int v_swprintf_s(wchar_t *b, size_t n, const wchar_t *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vswn_fn, vswprintf_s)(b, n, f, ap);
    va_end(ap);
    return r;
}
static int v_scwprintf(const wchar_t *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vscw_fn, _vscwprintf)(f, ap);
    va_end(ap);
    return r;
}
static int v_out(const char *name, const char *f, ...) { /* vprintf_s */
    va_list ap;
    va_start(ap, f);
    int r = ((vp_fn)(void (*)(void))crt_fn(name))(f, ap);
    va_end(ap);
    return r;
}
static int v_fout(const char *name, const char *f, ...) { /* vfprintf_s */
    va_list ap;
    va_start(ap, f);
    int r = ((vf_fn)(void (*)(void))crt_fn(name))(stdout, f, ap);
    va_end(ap);
    return r;
}
static int v_wout(const wchar_t *f, ...) { /* vwprintf */
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vpw_fn, vwprintf)(f, ap);
    va_end(ap);
    return r;
}
static int v_fwout(const wchar_t *f, ...) { /* vfwprintf */
    va_list ap;
    va_start(ap, f);
    int r = CRT_FN(vfw_fn, vfwprintf)(stdout, f, ap);
    va_end(ap);
    return r;
}

static void narrow(void) {
    char b[16];
    int (*sprintf_s_)(char *, size_t, const char *, ...) = CRT_FN(int (*)(char *, size_t, const char *, ...), sprintf_s);
    memset(b, '~', sizeof b);
    int r = sprintf_s_(b, 8, "%d|%s", 12, "ab");
    printf(DLL "sprintf_s: fits %d %s; ", r, show(b, 8));
    memset(b, '~', sizeof b);
    mark();
    r = sprintf_s_(b, 4, "%d", 123456);
    printf("too long %d %s errno %d; ", r, show(b, 5), err());
    mark();
    r = sprintf_s_(NULL, 4, "x");
    printf("NULL buffer %d errno %d\n", r, err());
    memset(b, '~', sizeof b);
    r = v_sprintf_s(b, 8, "%x", 255);
    printf(DLL "vsprintf_s: %d %s; ", r, show(b, 4));
    mark();
    r = v_sprintf_s(b, 3, "%x", 0x12345);
    printf("too long %d %s errno %d\n", r, show(b, 3), err());
    int (*snprintf_s_)(char *, size_t, size_t, const char *, ...) =
        CRT_FN(int (*)(char *, size_t, size_t, const char *, ...), _snprintf_s);
    memset(b, '~', sizeof b);
    r = snprintf_s_(b, 8, 3, "abcdef");
    printf(DLL "_snprintf_s: count 3 %d %s; ", r, show(b, 6));
    memset(b, '~', sizeof b);
    r = snprintf_s_(b, 5, _TRUNCATE, "abcdef");
    printf("_TRUNCATE %d %s; ", r, show(b, 6));
    memset(b, '~', sizeof b);
    mark();
    r = snprintf_s_(b, 5, 7, "abcdef");
    printf("too long %d %s errno %d\n", r, show(b, 6), err());
    memset(b, '~', sizeof b);
    r = v_snprintf_s(b, 8, 8, "%c%c", 'x', 'y');
    printf(DLL "_vsnprintf_s: %d %s; ", r, show(b, 4));
    r = v_snprintf_s(b, 4, _TRUNCATE, "%s", "longer");
    printf("_TRUNCATE %d %s\n", r, show(b, 4));
    int (*scprintf_)(const char *, ...) = CRT_FN(int (*)(const char *, ...), _scprintf);
    printf(DLL "_scprintf: %d %d; " DLL "_vscprintf: %d\n", scprintf_("%d%s", 12345, "abc"), scprintf_(""),
           v_scprintf("%05.1f", 2.25));
}

static void wide(void) {
    wchar_t w[16];
    int (*swprintf_)(wchar_t *, const wchar_t *, ...) = CRT_FN(int (*)(wchar_t *, const wchar_t *, ...), swprintf);
    int r = swprintf_(w, L"%d|%s|%S", 7, L"wide", "narrow");
    printf(DLL "swprintf: msvcrt's, no size: %d %s\n", r, wshow(w, wcslen(w)));
    r = v_swprintf(w, L"%c%C", L'a', 'b');
    printf(DLL "vswprintf: %d %s\n", r, wshow(w, wcslen(w)));
    int (*snwprintf_)(wchar_t *, size_t, const wchar_t *, ...) =
        CRT_FN(int (*)(wchar_t *, size_t, const wchar_t *, ...), _snwprintf);
    wmemset(w, L'~', 16);
    r = snwprintf_(w, 4, L"abcd");
    printf(DLL "_snwprintf: exact %d %s; ", r, wshow(w, 5));
    wmemset(w, L'~', 16);
    r = snwprintf_(w, 4, L"abcdef");
    printf("too long %d %s\n", r, wshow(w, 5));
    wmemset(w, L'~', 16);
    r = v_snwprintf(w, 8, L"%04d", 42);
    printf(DLL "_vsnwprintf: %d %s\n", r, wshow(w, 5));
    int (*swprintf_s_)(wchar_t *, size_t, const wchar_t *, ...) =
        CRT_FN(int (*)(wchar_t *, size_t, const wchar_t *, ...), swprintf_s);
    wmemset(w, L'~', 16);
    r = swprintf_s_(w, 8, L"%d", 99);
    printf(DLL "swprintf_s: %d %s; ", r, wshow(w, 4));
    wmemset(w, L'~', 16);
    mark();
    r = swprintf_s_(w, 3, L"%d", 12345);
    printf("too long %d %s errno %d\n", r, wshow(w, 4), err());
    wmemset(w, L'~', 16);
    r = v_swprintf_s(w, 8, L"%s", L"ok");
    printf(DLL "vswprintf_s: %d %s\n", r, wshow(w, 4));
    int (*scwprintf_)(const wchar_t *, ...) = CRT_FN(int (*)(const wchar_t *, ...), _scwprintf);
    printf(DLL "_scwprintf: %d; " DLL "_vscwprintf: %d\n", scwprintf_(L"%d", -100), v_scwprintf(L"%s", L"four"));
}

static void streams(void) {
    int (*printf_s_)(const char *, ...) = CRT_FN(int (*)(const char *, ...), printf_s);
    int r = printf_s_(DLL "printf_s: %s", "text");
    printf(" (%d)\n", r);
    r = v_out("vprintf_s", DLL "vprintf_s: %d", 5);
    printf(" (%d)\n", r);
    int (*fprintf_s_)(FILE *, const char *, ...) = CRT_FN(int (*)(FILE *, const char *, ...), fprintf_s);
    r = fprintf_s_(stdout, DLL "fprintf_s: %c", 'z');
    printf(" (%d)\n", r);
    r = v_fout("vfprintf_s", DLL "vfprintf_s: %u", 7u);
    printf(" (%d)\n", r);
    mark();
    r = printf_s_("%y");
    printf(DLL "printf_s: an unknown conversion %d errno %d\n", r, err());
    int (*wprintf_)(const wchar_t *, ...) = CRT_FN(int (*)(const wchar_t *, ...), wprintf);
    r = wprintf_(L"%S%s: %d", DLL "wprintf", L"", 1);
    printf(" (%d)\n", r);
    int (*fwprintf_)(FILE *, const wchar_t *, ...) = CRT_FN(int (*)(FILE *, const wchar_t *, ...), fwprintf);
    r = fwprintf_(stdout, L"%S%s: %d", DLL "fwprintf", L"", 2);
    printf(" (%d)\n", r);
    r = v_wout(L"%S: %d", DLL "vwprintf", 3);
    printf(" (%d)\n", r);
    r = v_fwout(L"%S: %d", DLL "vfwprintf", 4);
    printf(" (%d)\n", r);
}
#endif

int main(void) {
#ifndef _UCRT
    _set_invalid_parameter_handler(quiet);
    narrow();
    wide();
    streams();
#endif
    printf("format: done\n");
    return 0;
}
