/* counters.c — reads its own hardware counters around a loop of `dec; jnz` (argv[1] turns, default
 * 1) and prints HwCountersCount, the value of each configured counter and whether the read wrote
 * CycleTime (1) or left it 0, one per line; argv[2] repeats it that many times (default 1).  Which
 * events those are is up to the machine: `hcpsim run --pmc EV,EV --counters I,I counters.exe N`
 * (scenarios/tests/pe_cli.sh runs it). */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

static void put_u64(unsigned long long v) {
    char buf[24];
    int i = 23;
    buf[i] = 0;
    do buf[--i] = (char)('0' + v % 10); while ((v /= 10) != 0);
    puts(buf + i);
}

__attribute__((noinline)) static unsigned spin(unsigned n) {
    __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
    return n;
}

int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1u;
    int times = argc > 2 ? atoi(argv[2]) : 1;
    for (int k = 0; k < times; k++) {
        HANDLE ph;
        if (EnableThreadProfiling(GetCurrentThread(), 0, 0x3, &ph) != ERROR_SUCCESS) return 10;
        spin(n);
        PERFORMANCE_DATA pd = {0};
        pd.Size = sizeof pd;
        pd.Version = PERFORMANCE_DATA_VERSION;
        if (ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &pd) != ERROR_SUCCESS) return 11;
        put_u64(pd.HwCountersCount);
        put_u64(pd.HwCounters[0].Value);
        put_u64(pd.HwCounters[1].Value);
        put_u64(pd.CycleTime != 0);
        DisableThreadProfiling(ph);
    }
    return 0;
}
