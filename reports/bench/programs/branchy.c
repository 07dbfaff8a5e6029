/* branchy.c — branch-bound: quicksort (Hoare partition, insertion sort below 16) of 64 Ki random
 * 32-bit keys, 8 sorts per unit of scale, each of fresh keys.  Prints a checksum of the orders. */
#include "bench.h"

#define N 65536u

static uint32_t rng = 2463534242u;
static uint32_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void sort(uint32_t *a, long lo, long hi) {
    while (hi - lo > 16) {
        uint32_t p = a[lo + (hi - lo) / 2];
        long i = lo - 1, j = hi + 1;
        for (;;) {
            do i++;
            while (a[i] < p);
            do j--;
            while (a[j] > p);
            if (i >= j) break;
            uint32_t t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        if (j - lo < hi - j) {
            sort(a, lo, j);
            lo = j + 1;
        } else {
            sort(a, j + 1, hi);
            hi = j;
        }
    }
    for (long i = lo + 1; i <= hi; i++) {
        uint32_t v = a[i];
        long k = i - 1;
        while (k >= lo && a[k] > v) {
            a[k + 1] = a[k];
            k--;
        }
        a[k + 1] = v;
    }
}

int main(int argc, char **argv) {
    unsigned scale = bench_scale(argc, argv);
    static uint32_t a[N];
    uint64_t sum = 0;
    for (unsigned r = 0; r < 8 * scale; r++) {
        for (unsigned i = 0; i < N; i++) a[i] = next();
        sort(a, 0, N - 1);
        for (unsigned i = 0; i < N; i += 97) sum = sum * 31 + a[i];
    }
    printf("branchy: %016llx\n", (unsigned long long)sum);
    return 0;
}
