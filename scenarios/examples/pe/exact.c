/* exact.c — exactness of the counters on a loop compiled by mingw-w64 (scenarios/tests/pe_exact.sh).
 * work(n, x) runs its loop body n times (n >= 1); measure(n) reads PMC-backed HwCounters with
 * ReadThreadProfilingData just before and just after work(n) and prints the differences, so
 * measure(n + 1) - measure(1) is n times the loop's share, whatever the reads themselves cost. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

volatile unsigned sink = 7;
static HANDLE ph;

__attribute__((noinline)) unsigned work(unsigned n, unsigned x) {
    do {
        x = x * 3u + 1u;
    } while (--n);
    return x;
}

__attribute__((noinline)) static void measure(unsigned n) {
    PERFORMANCE_DATA a, b;
    a.Size = b.Size = sizeof a;
    a.Version = b.Version = PERFORMANCE_DATA_VERSION;
    DWORD r1 = ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &a);
    unsigned x = work(n, sink);
    DWORD r2 = ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &b);
    sink = x;
    printf("measure %u: %lu %lu %llu %llu\n", n, r1, r2, b.HwCounters[0].Value - a.HwCounters[0].Value,
           b.HwCounters[1].Value - a.HwCounters[1].Value);
}

int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000u;
    DWORD rc = EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 3, &ph);
    if (rc != ERROR_SUCCESS) {
        printf("EnableThreadProfiling: %lu\n", rc);
        return 1;
    }
    measure(1);
    measure(n + 1);
    DisableThreadProfiling(ph);
    return 0;
}
