/* compute.c — ALU-bound: FNV-1a over a 4 KiB buffer, 9,000 rounds per unit of scale (one load,
 * an xor and a multiply per byte; the buffer stays in L1).  Prints the hash. */
#include "bench.h"

int main(int argc, char **argv) {
    unsigned scale = bench_scale(argc, argv);
    static unsigned char buf[4096];
    uint32_t x = 12345;
    for (unsigned i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (unsigned r = 0; r < 9000u * scale; r++)
        for (unsigned i = 0; i < sizeof buf; i++) h = (h ^ buf[i]) * UINT64_C(0x100000001b3);
    printf("compute: fnv %016llx\n", (unsigned long long)h);
    return 0;
}
