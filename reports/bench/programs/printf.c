/* printf.c — output-bound: 2,000 lines per unit of scale through printf, with integer, string,
 * character, hexadecimal, padded and fixed-point formats whose text is the same in msvcrt and in
 * glibc (exact binary fractions; no %e or %g). */
#include "bench.h"

int main(int argc, char **argv) {
    unsigned scale = bench_scale(argc, argv);
    static const char *words[] = {"alpha", "beta", "gamma", "delta"};
    for (unsigned i = 0; i < 2000u * scale; i++)
        printf("%6u %-6s %c %08x %5d %.3f|%s\n", i, words[i & 3], 'a' + (int)(i % 26), i * 2654435761u,
               (int)(i % 1000) - 500, (double)(i % 4096) / 8.0, i % 7 ? "" : "seven");
    return 0;
}
