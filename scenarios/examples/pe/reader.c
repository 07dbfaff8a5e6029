/* reader.c — reads PERFORMANCE_DATA around each kind of wait and prints every field: Size,
 * Version, HwCountersCount, ContextSwitchCount, WaitReasonBitMap, CycleTime, RetryCount, Reserved
 * and each HwCounters element (Type, Reserved, Value); the cumulative fields as the difference
 * between the reads before and after the wait.  Each probe is one straight-line function: read,
 * wait, read.  Run by reader.lua (PMC0 instructions, PMC1 branches); scenarios/tests/pe_examples.sh
 * derives every number from the scheduler rules and the probes' disassembly. */
#include <stdio.h>
#include <windows.h>

#define FLAGS (READ_THREAD_PROFILING_FLAG_DISPATCHING | READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)

static HANDLE ph, ev, set_ev;
static PERFORMANCE_DATA a, b;

__attribute__((noinline)) static void probe_sleep(void) {
    ReadThreadProfilingData(ph, FLAGS, &a);
    Sleep(1);
    ReadThreadProfilingData(ph, FLAGS, &b);
}
__attribute__((noinline)) static void probe_sleep0(void) {
    ReadThreadProfilingData(ph, FLAGS, &a);
    Sleep(0);
    ReadThreadProfilingData(ph, FLAGS, &b);
}
__attribute__((noinline)) static void probe_wait(void) {
    ReadThreadProfilingData(ph, FLAGS, &a);
    WaitForSingleObject(ev, INFINITE);
    ReadThreadProfilingData(ph, FLAGS, &b);
}
__attribute__((noinline)) static void probe_timeout(void) {
    ReadThreadProfilingData(ph, FLAGS, &a);
    WaitForSingleObject(ev, 0);
    ReadThreadProfilingData(ph, FLAGS, &b);
}
__attribute__((noinline)) static void probe_yield(void) {
    ReadThreadProfilingData(ph, FLAGS, &a);
    SwitchToThread();
    ReadThreadProfilingData(ph, FLAGS, &b);
}

static void show(const char *what) {
    printf("%s: Size %u Version %u HwCountersCount %u ContextSwitchCount +%lu WaitReasonBitMap 0x%llX "
           "CycleTime +%llu RetryCount %lu Reserved %lu",
           what, b.Size, b.Version, b.HwCountersCount, b.ContextSwitchCount - a.ContextSwitchCount,
           (unsigned long long)b.WaitReasonBitMap, (unsigned long long)(b.CycleTime - a.CycleTime), b.RetryCount,
           b.Reserved);
    for (int i = 0; i < 2; i++)
        printf(" HwCounters[%d] Type %d Reserved %lu Value +%llu", i, (int)b.HwCounters[i].Type,
               b.HwCounters[i].Reserved, (unsigned long long)(b.HwCounters[i].Value - a.HwCounters[i].Value));
    printf("\n");
}

static DWORD WINAPI setter(LPVOID p) { /* higher priority: wakes at a tick, sets the event */
    (void)p;
    Sleep(1);
    SetEvent(set_ev);
    return 0;
}
static DWORD WINAPI yielder(LPVOID p) { /* equal priority: gives the CPU back at once */
    (void)p;
    SwitchToThread();
    return 0;
}

int main(void) {
    a.Size = b.Size = sizeof a;
    a.Version = b.Version = PERFORMANCE_DATA_VERSION;
    EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0x3, &ph);
    probe_sleep();
    show("Sleep(1)");
    probe_sleep0();
    show("Sleep(0), nothing else ready");
    ev = CreateEventA(NULL, TRUE, TRUE, NULL);
    probe_timeout();
    show("WaitForSingleObject(set event, 0)");
    ResetEvent(ev);
    probe_timeout();
    show("WaitForSingleObject(reset event, 0)");
    set_ev = ev;
    HANDLE s = CreateThread(NULL, 0, setter, NULL, 0, NULL);
    SetThreadPriority(s, THREAD_PRIORITY_ABOVE_NORMAL);
    probe_wait();
    show("WaitForSingleObject(event a thread sets)");
    CreateThread(NULL, 0, yielder, NULL, 0, NULL);
    probe_yield();
    show("SwitchToThread, one thread ready");
    DisableThreadProfiling(ph);
    return 0;
}
