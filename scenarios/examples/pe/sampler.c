/* sampler.c — a benchmark harness's inner loop: time a workload N times with
 * ReadThreadProfilingData before and after each run, and throw away every sample during which the
 * thread was switched out (its ContextSwitchCount moved), as profilers do.  A second thread of
 * higher priority contends for the CPU: it wakes at every clock tick (Sleep(1)) and preempts the
 * sampler when a sample is long enough to contain one.  Run by sampler.lua, which configures PMC0 =
 * instructions, PMC1 = branches and the counters; scenarios/tests/pe_examples.sh derives every
 * number it prints. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

/* The workload, in assembly so its count is fixed: 2 + 2n instructions, n + 1 branches (n >= 1). */
unsigned work(unsigned n);
#ifdef __x86_64__
__asm__(".globl work\nwork:\n\tmovl %ecx, %eax\n1:\tdecl %eax\n\tjnz 1b\n\tret\n");
#else
__asm__(".globl _work\n_work:\n\tmovl 4(%esp), %eax\n1:\tdecl %eax\n\tjnz 1b\n\tret\n");
#endif

#define FLAGS (READ_THREAD_PROFILING_FLAG_DISPATCHING | READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)

/* One sample: nothing but the workload between the two reads. */
__attribute__((noinline)) static void sample(HANDLE ph, PERFORMANCE_DATA *a, PERFORMANCE_DATA *b, unsigned n) {
    ReadThreadProfilingData(ph, FLAGS, a);
    work(n);
    ReadThreadProfilingData(ph, FLAGS, b);
}

static DWORD WINAPI contender(LPVOID p) {
    (void)p;
    for (;;) Sleep(1); /* wakes at the next clock tick, every tick; ExitProcess ends it */
}

int main(int argc, char **argv) {
    unsigned samples = argc > 1 ? (unsigned)atoi(argv[1]) : 6, small = argc > 2 ? (unsigned)atoi(argv[2]) : 100,
             large = argc > 3 ? (unsigned)atoi(argv[3]) : 10000;
    HANDLE ph, c = CreateThread(NULL, 0, contender, NULL, 0, NULL);
    SetThreadPriority(c, THREAD_PRIORITY_ABOVE_NORMAL);
    if (EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0x3, &ph) != ERROR_SUCCESS) return 1;
    unsigned kept = 0;
    for (unsigned i = 0; i < samples; i++) {
        PERFORMANCE_DATA a = {sizeof a, PERFORMANCE_DATA_VERSION}, b = {sizeof b, PERFORMANCE_DATA_VERSION};
        unsigned n = i % 2 ? large : small;
        Sleep(1); /* start each sample just after a clock tick */
        sample(ph, &a, &b, n);
        DWORD switches = b.ContextSwitchCount - a.ContextSwitchCount;
        if (switches) {
            printf("sample %u: n %u discarded: %lu context switch(es)\n", i, n, switches);
            continue;
        }
        kept++;
        printf("sample %u: n %u kept: cycles %llu instructions %llu branches %llu\n", i, n,
               (unsigned long long)(b.CycleTime - a.CycleTime),
               (unsigned long long)(b.HwCounters[0].Value - a.HwCounters[0].Value),
               (unsigned long long)(b.HwCounters[1].Value - a.HwCounters[1].Value));
    }
    printf("kept %u of %u\n", kept, samples);
    DisableThreadProfiling(ph);
    return 0;
}
