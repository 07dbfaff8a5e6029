/* printf.c — a table of formats printed by msvcrt.dll's own printf (__USE_MINGW_ANSI_STDIO 0:
 * no libmingwex formatter), one "N: [output]" line each (scenarios/tests/pe_printf.sh compares
 * the x86-64 output with the same program's output under Wine's msvcrt, committed in
 * scenarios/tests/pe_printf.wine.txt).  Lines starting with "p" depend on the pointer size. */
#define __USE_MINGW_ANSI_STDIO 0
#include <stddef.h>
#include <stdio.h>

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
    printf("%d: done\n", ++n);
    return 0;
}
