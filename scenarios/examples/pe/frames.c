/* frames.c — a game's frame loop: each frame waits for the display's vertical sync, renders, and
 * records how often the thread was switched out during the frame (ContextSwitchCount) and why
 * (WaitReasonBitMap), the way a frame-time profiler attributes hitches.  A "vsync" thread of
 * higher priority sets an auto-reset event at every clock tick.  Frames of n = 100 render well
 * inside a tick; n = 10000 spans one tick and n = 25000 three, so vsync preempts them and the
 * next wait finds the event already set.  Run by frames.lua; scenarios/tests/pe_examples.sh states
 * the output from the scheduler rules. */
#include <stdio.h>
#include <windows.h>

unsigned work(unsigned n); /* 2 + 2n instructions: the same listing as sampler.c's */
#ifdef __x86_64__
__asm__(".globl work\nwork:\n\tmovl %ecx, %eax\n1:\tdecl %eax\n\tjnz 1b\n\tret\n");
#else
__asm__(".globl _work\n_work:\n\tmovl 4(%esp), %eax\n1:\tdecl %eax\n\tjnz 1b\n\tret\n");
#endif

static HANDLE vsync;

static DWORD WINAPI display(LPVOID p) {
    (void)p;
    for (;;) {
        Sleep(1); /* until the next clock tick */
        SetEvent(vsync);
    }
}

int main(void) {
    static const unsigned render[] = {100, 10000, 100, 25000, 100, 100};
    enum { FRAMES = sizeof render / sizeof render[0] };
    DWORD switches[FRAMES];
    DWORD64 reasons[FRAMES];
    HANDLE ph;
    vsync = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE d = CreateThread(NULL, 0, display, NULL, 0, NULL);
    SetThreadPriority(d, THREAD_PRIORITY_ABOVE_NORMAL);
    EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph);
    PERFORMANCE_DATA prev = {sizeof prev, PERFORMANCE_DATA_VERSION}, now = prev;
    WaitForSingleObject(vsync, INFINITE);
    ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &prev);
    for (int f = 0; f < FRAMES; f++) {
        work(render[f]);
        WaitForSingleObject(vsync, INFINITE); /* present: the frame ends at vertical sync */
        ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &now);
        switches[f] = now.ContextSwitchCount - prev.ContextSwitchCount;
        reasons[f] = now.WaitReasonBitMap; /* read-and-clear: this frame's reasons */
        prev = now;
    }
    for (int f = 0; f < FRAMES; f++)
        printf("frame %d: render %5u, context switches %lu, wait reasons 0x%09llX\n", f, render[f], switches[f],
               (unsigned long long)reasons[f]);
    DisableThreadProfiling(ph);
    return 0;
}
