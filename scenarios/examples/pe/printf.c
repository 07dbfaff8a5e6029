/* printf.c — a table of formats printed by msvcrt.dll's own printf (__USE_MINGW_ANSI_STDIO 0:
 * no libmingwex formatter), one "N: [output]" line each (scenarios/tests/pe_printf.sh compares
 * the x86-64 output with the same program's output under Wine's msvcrt, committed in
 * scenarios/tests/pe_printf.wine.txt).  Lines starting with "p" depend on the pointer size. */
#define __USE_MINGW_ANSI_STDIO 0
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* buffer-bounded forms: the result and the bytes written ('.' marks an untouched byte, '0' the
 * terminator), so an exact fit shows no terminator */
static void show(int n, int r, const char *b, int len) {
    char t[64];
    for (int i = 0; i < len; i++) t[i] = b[i] == '#' ? '.' : b[i] ? b[i] : '0';
    t[len] = 0;
    printf("%d: [%d|%s]\n", n, r, t);
}
static int vsn(char *b, size_t k, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int r = _vsnprintf(b, k, f, ap);
    va_end(ap);
    return r;
}
static double bits(unsigned long long u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

int main(void) {
    int n = 0;
    printf("%d: [%d|%i|%u|%5d|%-5d|%05d|%+d|% d|%+05d]\n", ++n, 42, -42, 42u, 42, 42, 42, 42, 42, -42);
    printf("%d: [%.3d|%8.3d|%-8.3d|%.0d|%5.0d|%#o|%#x|%#X|%#.0o]\n", ++n, 7, 7, -7, 0, 0, 8, 255, 255, 0);
    printf("%d: [%x|%X|%o|%08x|%-8X|%#010x]\n", ++n, 3735928559u, 3735928559u, 511u, 48879u, 48879u, 48879u);
    printf("%d: [%I64d|%I64u|%I64x|%I64X]\n", ++n, -9223372036854775807LL - 1, 18446744073709551615ULL,
           0x0123456789ABCDEFULL, 0xFEDCBA9876543210ULL);
    printf("%d: [%lld|%llu|%I32d|%I32u|%hd|%hu|%ld]\n", ++n, -1234567890123LL, 1234567890123ULL, -5, 5u, (short)-3,
           (unsigned short)65535, -2147483647L - 1);
    printf("%d: [%Iu|%Id|%zu]\n", ++n, (size_t)123456, (ptrdiff_t)-654321, (size_t)42);
    printf("%d: [%c|%3c|%-3c|%%|%5%]\n", ++n, 'A', 'B', 'C');
    printf("%d: [%s|%10s|%-10s|%.2s|%10.2s|%-10.2s]\n", ++n, "text", "text", "text", "text", "text", "text");
    printf("%d: [%ls|%8ls|%.3ls|%S]\n", ++n, L"wide", L"wide", L"wide", L"WIDE");
    printf("%d: [%hs|%s]\n", ++n, "narrow", (char *)0);
    printf("%d: [%f|%.0f|%.1f|%.3f|%10.2f|%-10.2f|%+.2f|% .2f|%010.2f]\n", ++n, 3.14159265, 2.5, 0.05, -1.0005, 3.14159,
           3.14159, 2.0, 2.0, -3.5);
    printf("%d: [%e|%.0e|%.2e|%E|%12.3e|%e|%e]\n", ++n, 12345.678, 12345.678, 0.000123, 1e100, -5.5, 0.0, 1e-300);
    printf("%d: [%g|%g|%g|%g|%.3g|%G|%g|%#g|%g]\n", ++n, 0.0001, 0.00001, 123456.0, 1234567.0, 3.14159, 1e-10, 100.0,
           1.0, 0.0);
    printf("%d: [%f|%.20f|%.15g|%f]\n", ++n, 1e15, 0.1, 0.1, 123456789.125);
    printf("%d: [%#.0f|%#.0e|%#x|%#o]\n", ++n, 3.0, 3.0, 0, 0);
    printf("%d: [%*d|%-*d|%.*d|%*.*f]\n", ++n, 6, 42, 6, 42, 4, 42, 8, 2, 3.14159);
    printf("%d: [%5s|%-5s|%.0s]\n", ++n, "", "", "abc");
    printf("%d: [%u|%d|%x]\n", ++n, 4294967295u, -1, -1);
    printf("%d: [%.1f|%.1f|%.1f|%.1f|%.2f|%.0f|%.0f]\n", ++n, 0.25, 0.35, 2.45, -0.05, 1.005, 0.5, 1.5);
    printf("%d: [%.0e|%.0e|%.1e|%.2g|%g|%g|%.1g|%#.3g|%G]\n", ++n, 2.5, 5.0, 0.25, 9.95, 999999.5, 9999995.0, 0.15,
           1.0, 0.00001);
    printf("%d: [%e|%g|%.3f|%g|%e|%.0f|%.10e]\n", ++n, 1e308, 5e-324, 1e-4, 1e21, 2.2250738585072014e-308, 1e22,
           1.0 / 3.0);
    printf("%d: [%8.3e|%-12.2E|%+g|% g|%012.4f|%-+9.1f|%08g]\n", ++n, 1234.5, 0.000125, 12.0, 12.0, -3.14159, 2.25,
           -1.5);
    printf("p%d: [%p|%p]\n", ++n, (void *)0x1234, (void *)0);
    /* issue 29: the cases msvcrt writes differently from C99 */
    char b[32];
    memset(b, '#', sizeof b);
    int r = _snprintf(b, 8, "justfits");
    show(++n, r, b, 10);
    memset(b, '#', sizeof b);
    r = _snprintf(b, 8, "%s", "overflows");
    show(++n, r, b, 10);
    memset(b, '#', sizeof b);
    r = _snprintf(b, 8, "short");
    show(++n, r, b, 10);
    memset(b, '#', sizeof b);
    r = vsn(b, 8, "%d%d", 1234, 5678);
    show(++n, r, b, 10);
    memset(b, '#', sizeof b);
    r = vsn(b, 0, "x");
    show(++n, r, b, 3);
    r = vsn(NULL, 0, "%d-%s", 12345, "abc");
    printf("%d: [%d]\n", ++n, r);
    memset(b, '#', sizeof b);
    r = sprintf(b, "%5s|%-3d", "ab", 7);
    show(++n, r, b, 12);
    printf("%d: [%I|%z|%b|%w|%h|%y|%5q|%-3.2k|%ll|%#]\n", ++n);
    printf("%d: [%Id|%I|%Iq|%zd|%z|%zq|%td|%t|%jd]\n", ++n, (ptrdiff_t)1, (size_t)2, (ptrdiff_t)3, 4LL);
    printf("%d: [%F|%Ff|%Nd|%FNld|%Lf|%Le]\n", ++n, 1.5, 7, 8, 2.5, 2.5);
    printf("%d: [%04s|%05c|%-04s|%04.1s|%00s|%0-4c]\n", ++n, "ab", 'x', "ab", "ab", "z", 'y');
    printf("%d: [%*1d|%0*0d|% *2d|%-*3d|%*d]\n", ++n, 2, 7, 1, 5, 1, 3, 2, 8, -4, 9);
    printf("%d: [%.*d|%.*f|%.*s]\n", ++n, -2, 5, -1, 1.5, -3, "abc");
    printf("%d: [%e|%E|%f|%g|%G|%le|%Le]\n", ++n, bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull),
           bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull),
           bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull));
    printf("%d: [%e|%f|%g|%+f|% e|%10f|%-10f|%010f]\n", ++n, bits(0xFFF0000000000000ull), bits(0xFFF0000000000000ull),
           bits(0xFFF0000000000000ull), bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull),
           bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull));
    printf("%d: [%.0f|%.1f|%.2f|%.3f|%.4f|%.10f|%.0e|%.1e|%.2e|%.3g|%#g|%#.2g]\n", ++n, bits(0x7FF0000000000000ull),
           bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull),
           bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull),
           bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull),
           bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull));
    printf("%d: [%f|%e|%g|%.1f|%.2f|%.3f|%G]\n", ++n, bits(0xFFF8000000000000ull), bits(0xFFF8000000000000ull),
           bits(0xFFF8000000000000ull), bits(0xFFF8000000000000ull), bits(0xFFF8000000000000ull),
           bits(0xFFF8000000000000ull), bits(0xFFF8000000000000ull));
    printf("%d: [%f|%e|%g|%.1f|%.2f|%.3f|%.4f|%.5f|%E]\n", ++n, bits(0x7FF8000000000000ull), bits(0x7FF8000000000000ull),
           bits(0x7FF8000000000000ull), bits(0x7FF8000000000000ull), bits(0x7FF8000000000000ull),
           bits(0x7FF8000000000000ull), bits(0x7FF8000000000000ull), bits(0x7FF8000000000000ull),
           bits(0x7FF8000000000000ull));
    printf("%d: [%a|%A|%a|%.0a|%.1a|%.3a|%#.0a|%.15a|%a|%a|%20a|%-20a|%020a|%+a]\n", ++n, 1.0, 255.5, 0.1, 1.5, 1.96875,
           1.0 / 3, 1.0, 1.0, 0.0, bits(1), 2.0, 2.0, -2.0, 2.0);
    printf("%d: [%a|%.1a|%020a|%-20a]\n", ++n, bits(0x7FF0000000000000ull), bits(0x7FF0000000000000ull),
           bits(0x7FF0000000000000ull), bits(0xFFF8000000000000ull));
    r = printf("%d: [%S|%ls]", ++n, L"ok", L"\x263A");
    printf(" -> %d\n", r);
    r = printf("%d: [%C|%5C|%lc|%c]", ++n, 0x263A, 0x263A, L'w', 0x141);
    printf(" -> %d\n", r);
    r = printf("%d: [%hs|%hS|%ws|%wS|%hc|%wc|%hC]", ++n, "h", "hS", L"w", L"wS", 'H', L'W', 'C');
    printf(" -> %d\n", r);
    int cnt = -1, cnt2 = -1;
    printf("%d: [abc%n|%5d%n]", ++n, &cnt, 42, &cnt2);
    printf(" %d %d\n", cnt, cnt2);
    printf("%d: [%05.3d|%-05d|%+u|% x|%#5o|%#08x|%#-8x|%#.3x|%.0x|%+.0d|% 5.0d|%#08.3x]\n", ++n, 7, 7, 7u, 255u, 8u, 255u,
           255u, 10u, 0u, 0, 0, 15u);
    printf("%d: [%hhd|%hhu|%lld|%lu|%ld|%hd|%hx]\n", ++n, 257, 65537, -1LL, 4294967295ul, 7L, 70000, 70000);
    printf("%d: [%+.3e|%+g|% .0f|%-+8.2f|%+08.2f|%#.0e|%#10.3g|%-#10.3G]\n", ++n, 1234.5678, -0.0, 0.5, 3.14159, -3.14159,
           12345.0, 1.0, 1e-10);
    printf("%d: [%.0f|%.0f|%.0f|%.0f|%.1f|%.2f|%.3e|%.0e|%g|%g]\n", ++n, 0.5, 1.5, 2.5, 3.5, 0.05, 0.125, 1.0005, 5.5, 1e-5,
           123456789.0);
    printf("%d: [%.0g|%.0g|%.1g|%.0g|%g|%.20g|%.17g|%.30f]\n", ++n, 5.0, 50.0, 0.0001, 0.0, 1e100, 0.1, 1.0 / 3, 1e-10);
    printf("%d: [%f|%.3f|%e|%g]\n", ++n, 1e308, 5e-324, 5e-324, 2.2250738585072014e-308);
    printf("%d: [%5%|%-5%|%.3%|%l%|%%%%]\n", ++n);
    printf("%d: [%d %s]\n", ++n, 1, "end");
    printf("%d: done\n", ++n);
    return 0;
}
