/* threads.c — KERNEL32's threads, synchronisation, TLS, time, memory and heap functions
 * (scenarios/tests/pe_threads.sh states the output each line must have, from the Win32 rules). */
#include <stdio.h>
#include <windows.h>

static CRITICAL_SECTION cs;
static volatile LONG shared;
static DWORD tls;

static DWORD WINAPI worker(LPVOID p) { /* adds 1000 to `shared` under the critical section, 10 at a time */
    TlsSetValue(tls, p);
    for (int i = 0; i < 100; i++) {
        EnterCriticalSection(&cs);
        LONG v = shared;
        Sleep(0); /* gives the CPU to an equal-priority thread while holding the lock */
        shared = v + 10;
        LeaveCriticalSection(&cs);
    }
    return (DWORD)(ULONG_PTR)TlsGetValue(tls) + 100;
}

static DWORD WINAPI exiter(LPVOID p) {
    (void)p;
    ExitThread(42);
    return 1; /* not reached */
}

static DWORD WINAPI sleeper(LPVOID p) {
    HANDLE e = (HANDLE)p;
    WaitForSingleObject(e, INFINITE); /* never set: TerminateThread ends it */
    return 7;
}

static DWORD WINAPI spinner(LPVOID p) {
    (void)p;
    for (;;) Sleep(1); /* until ExitProcess ends it */
}

static DWORD WINAPI pulsed(LPVOID p) { return WaitForSingleObject((HANDLE)p, INFINITE) == WAIT_OBJECT_0 ? 5 : 6; }

int main(void) {
    DWORD code, tid;
    InitializeCriticalSection(&cs);
    tls = TlsAlloc();
    TlsSetValue(tls, (LPVOID)9);
    HANDLE t[2];
    for (int i = 0; i < 2; i++) t[i] = CreateThread(NULL, 0, worker, (LPVOID)(ULONG_PTR)(i + 1), 0, &tid);
    printf("wait all: %lu\n", WaitForMultipleObjects(2, t, TRUE, INFINITE));
    GetExitCodeThread(t[0], &code);
    printf("shared %ld, exit codes %lu", shared, code);
    GetExitCodeThread(t[1], &code);
    printf(" %lu, main tls %u\n", code, (unsigned)(ULONG_PTR)TlsGetValue(tls));
    DeleteCriticalSection(&cs);

    HANDLE x = CreateThread(NULL, 0, exiter, NULL, 0, NULL);
    WaitForSingleObject(x, INFINITE);
    GetExitCodeThread(x, &code);
    printf("ExitThread: %lu\n", code);

    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, "hcpsim-ev");
    HANDLE ev2 = CreateEventA(NULL, FALSE, FALSE, "hcpsim-ev");
    printf("named again: %d, last error %lu\n", ev2 != NULL && ev2 != ev, GetLastError());
    HANDLE ev3 = OpenEventA(EVENT_ALL_ACCESS, FALSE, "hcpsim-ev");
    HANDLE none = OpenEventA(EVENT_ALL_ACCESS, FALSE, "no-such");
    printf("open: %d, missing: %d error %lu\n", ev3 != NULL, none == NULL, GetLastError());
    HANDLE s = CreateThread(NULL, 0, sleeper, ev, 0, NULL);
    Sleep(1);
    GetExitCodeThread(s, &code);
    printf("before terminate: %lu\n", code);
    TerminateThread(s, 99);
    printf("after terminate: wait %lu", WaitForSingleObject(s, 0));
    GetExitCodeThread(s, &code);
    printf(", code %lu\n", code);

    HANDLE pe = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE pt = CreateThread(NULL, 0, pulsed, pe, 0, NULL);
    Sleep(1); /* pt waits on pe (in hcpsim always; on a busy host it may not yet: pulse again) */
    PulseEvent(pe);
    printf("pulse: event after %lu, ", WaitForSingleObject(pe, 0));
    for (int i = 0; i < 10000 && WaitForSingleObject(pt, 1) == WAIT_TIMEOUT; i++) PulseEvent(pe);
    GetExitCodeThread(pt, &code);
    printf("waiter %lu\n", code);

    HANDLE mx = CreateMutexA(NULL, TRUE, NULL), sem = CreateSemaphoreA(NULL, 1, 2, NULL);
    LONG prev = -1;
    /* one call per statement: C leaves the order of a call's arguments unspecified */
    BOOL r1 = ReleaseMutex(mx), r2 = ReleaseMutex(mx);
    DWORD w1 = WaitForSingleObject(sem, 0), w2 = WaitForSingleObject(sem, 0);
    BOOL r3 = ReleaseSemaphore(sem, 2, &prev);
    printf("mutex release %d again %d; sem wait %lu %lu release %d prev %ld\n", r1, r2, w1, w2, r3, prev);
    HANDLE dup = NULL;
    BOOL d = DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &dup, 0, FALSE,
                             DUPLICATE_SAME_ACCESS);
    int p0 = GetThreadPriority(dup);
    BOOL sp = SetThreadPriority(dup, THREAD_PRIORITY_HIGHEST);
    int p1 = GetThreadPriority(GetCurrentThread());
    printf("duplicate %d, prio %d -> set %d -> %d, ", d, p0, sp, p1);
    DWORD_PTR am = SetThreadAffinityMask(GetCurrentThread(), 1);
    DWORD ip = SetThreadIdealProcessor(GetCurrentThread(), 0);
    printf("affinity %llu, ideal %lu\n", (unsigned long long)am, ip);
    CloseHandle(dup);

    LARGE_INTEGER f, c0, c1;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c0);
    Sleep(100);
    QueryPerformanceCounter(&c1);
    ULONGLONG k = GetTickCount64();
    FILETIME ft, fp;
    GetSystemTimeAsFileTime(&ft);
    GetSystemTimePreciseAsFileTime(&fp);
    ULONGLONG a = ((ULONGLONG)ft.dwHighDateTime << 32) | ft.dwLowDateTime,
              b = ((ULONGLONG)fp.dwHighDateTime << 32) | fp.dwLowDateTime;
    printf("qpf %lld, slept >= 100 ms: %d, tick64 >= 100: %d, coarse <= precise: %d, same day: %d\n", f.QuadPart,
           c1.QuadPart - c0.QuadPart >= 1000000, k >= 100, a <= b, b - a < 156250);

    SYSTEM_INFO si;
    GetSystemInfo(&si);
    printf("cpus %lu, page %lu, granularity %lu\n", si.dwNumberOfProcessors, si.dwPageSize, si.dwAllocationGranularity);
    char *m = VirtualAlloc(NULL, 10000, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    m[9999] = 'x';
    MEMORY_BASIC_INFORMATION mbi;
    SIZE_T q = VirtualQuery(m + 5000, &mbi, sizeof mbi);
    DWORD old = 0;
    BOOL pr = VirtualProtect(m, 12288, PAGE_READONLY, &old);
    BOOL fr = VirtualFree(m, 0, MEM_RELEASE);
    printf("virtual: %d aligned, query %d size %lu state 0x%lx protect 0x%lx type 0x%lx, protect %d old 0x%lx, "
           "free %d\n",
           ((ULONG_PTR)m & 0xFFFF) == 0, q == sizeof mbi, (unsigned long)mbi.RegionSize, mbi.State, mbi.Protect,
           mbi.Type, pr, old, fr);
    HANDLE h = GetProcessHeap();
    int *z = HeapAlloc(h, HEAP_ZERO_MEMORY, 40);
    z = HeapReAlloc(h, HEAP_ZERO_MEMORY, z, 80);
    unsigned long hs = (unsigned long)HeapSize(h, 0, z);
    int zero = z[0] == 0 && z[19] == 0;
    printf("heap: size %lu zero %d free %d\n", hs, zero, HeapFree(h, 0, z));
    /* still running when main returns: exit() -> ExitProcess(3) ends them */
    CreateThread(NULL, 0, sleeper, ev, 0, NULL);
    CreateThread(NULL, 0, spinner, NULL, 0, NULL);
    Sleep(1);
    return 3;
}
