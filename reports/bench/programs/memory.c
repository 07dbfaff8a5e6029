/* memory.c — memory-bound: a 64 MiB array of 8-byte words, summed with a stride of 64 bytes (one
 * word per cache line: 8 sweeps, each over every line), then linearly; one pass of both per 2 units of
 * scale (at least one).  Prints the sums. */
#include "bench.h"

#define WORDS (8u << 20) /* 64 MiB */

int main(int argc, char **argv) {
    unsigned scale = bench_scale(argc, argv);
    uint64_t *a = bench_big((size_t)WORDS * sizeof *a);
    if (!a) {
        printf("memory: no memory\n");
        return 1;
    }
    for (unsigned i = 0; i < WORDS; i++) a[i] = (uint64_t)i * 2654435761u;
    uint64_t strided = 0, linear = 0;
    for (unsigned p = 0; p < (scale + 1) / 2; p++) {
        for (unsigned off = 0; off < 8; off++)
            for (unsigned i = off; i < WORDS; i += 8) strided += a[i];
        for (unsigned i = 0; i < WORDS; i++) linear ^= a[i] + i;
    }
    printf("memory: strided %016llx linear %016llx\n", (unsigned long long)strided, (unsigned long long)linear);
    return 0;
}
