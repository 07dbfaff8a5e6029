/* procinfo.c — the process and its processors (scenarios/tests/pe_procinfo.sh; api/README.md
 * "Processes and processors"): priority classes, suspension, processor counts and topology, group
 * affinity, fiber-local storage and its callbacks, thread descriptions, WOW64, ntdll's thread
 * information.  Each line is "DLL!Function: what = value".  Lines starting "cpu" depend on the
 * machine's CPU count, "model" on hcpsim's cost model (its caches), "prio" on absolute
 * priorities (Wine reports relative ones), "sim" on hcpsim's exact schedule. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

typedef LONG NTSTATUS;
typedef struct {
    NTSTATUS ExitStatus;
    PVOID TebBaseAddress;
    HANDLE UniqueProcess, UniqueThread;
    ULONG_PTR AffinityMask;
    LONG Priority, BasePriority;
} TBI;
static NTSTATUS(NTAPI *pNtQueryInformationThread)(HANDLE, int, PVOID, ULONG, PULONG);
static NTSTATUS(NTAPI *pNtSetInformationThread)(HANDLE, int, PVOID, ULONG);
static ULONG(NTAPI *pNtGetCurrentProcessorNumber)(void);
static HRESULT(WINAPI *pSetThreadDescription)(HANDLE, PCWSTR);
static HRESULT(WINAPI *pGetThreadDescription)(HANDLE, PWSTR *);

static int same_wstr(const WCHAR *a, const WCHAR *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static int is_wine(void) { return GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL; }

static LONG priority_of(HANDLE t) {
    TBI b;
    return pNtQueryInformationThread(t, 0, &b, sizeof b, NULL) == 0 ? b.Priority : -1;
}

/* ---- priority classes ---- */

static void priority_tests(void) {
    HANDLE me = GetCurrentThread();
    DWORD c0 = GetPriorityClass(GetCurrentProcess());
    BOOL s = SetPriorityClass(GetCurrentProcess(), HIGH_PRIORITY_CLASS);
    printf("KERNEL32.dll!GetPriorityClass: KERNEL32.dll!SetPriorityClass: 0x%lx, set HIGH %d, now 0x%lx, thread's "
           "relative priority %d\n",
           c0, s, GetPriorityClass(GetCurrentProcess()), GetThreadPriority(me));
    static const struct {
        DWORD cls;
        int rel;
    } cells[] = {{NORMAL_PRIORITY_CLASS, 0},           {HIGH_PRIORITY_CLASS, 0},
                 {HIGH_PRIORITY_CLASS, 2},             {IDLE_PRIORITY_CLASS, -2},
                 {BELOW_NORMAL_PRIORITY_CLASS, 1},     {ABOVE_NORMAL_PRIORITY_CLASS, -1},
                 {NORMAL_PRIORITY_CLASS, 15},          {NORMAL_PRIORITY_CLASS, -15},
                 {REALTIME_PRIORITY_CLASS, 0},         {REALTIME_PRIORITY_CLASS, 15},
                 {REALTIME_PRIORITY_CLASS, -15},       {REALTIME_PRIORITY_CLASS, -7},
                 {REALTIME_PRIORITY_CLASS, 6}};
    char line[256];
    int k = 0;
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        SetPriorityClass(GetCurrentProcess(), cells[i].cls);
        SetThreadPriority(me, cells[i].rel);
        k += snprintf(line + k, sizeof line - (size_t)k, " %ld", priority_of(me));
    }
    SetThreadPriority(me, 0);
    SetPriorityClass(GetCurrentProcess(), NORMAL_PRIORITY_CLASS);
    printf("prio KERNEL32.dll!SetThreadPriority: the base priorities of Windows' table:%s\n", line);
    SetLastError(0);
    BOOL bad = SetThreadPriority(me, -7);
    DWORD be = GetLastError();
    SetLastError(0);
    BOOL badc = SetPriorityClass(GetCurrentProcess(), 0x12345);
    DWORD ce = GetLastError();
    printf("KERNEL32.dll!SetThreadPriority: -7 outside the realtime class %d error %lu; "
           "KERNEL32.dll!SetPriorityClass: 0x12345 %d error %lu\n",
           bad, be, badc, ce);
    SetPriorityClass(GetCurrentProcess(), ABOVE_NORMAL_PRIORITY_CLASS);
    HANDLE t = CreateThread(NULL, 0, (LPTHREAD_START_ROUTINE)ExitThread, 0, CREATE_SUSPENDED, NULL);
    printf("prio KERNEL32.dll!CreateThread: a new thread of an above-normal process: %ld\n", priority_of(t));
    ResumeThread(t);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    SetPriorityClass(GetCurrentProcess(), NORMAL_PRIORITY_CLASS);
}

/* ---- suspension ---- */

static volatile LONG spins, stop_spin;
static DWORD WINAPI spinner(LPVOID p) {
    (void)p;
    while (!stop_spin) {
        InterlockedIncrement(&spins);
        if ((spins & 1023) == 0) SwitchToThread();
    }
    return 0;
}

static HANDLE wait_event;
static volatile LONG waiter_done;
static DWORD WINAPI event_waiter(LPVOID p) {
    (void)p;
    WaitForSingleObject(wait_event, INFINITE);
    waiter_done = 1;
    return 0;
}

static volatile LONG timed_done;
static volatile DWORD timed_result;
static DWORD WINAPI timed_waiter(LPVOID p) {
    timed_result = WaitForSingleObject((HANDLE)p, 30);
    timed_done = 1;
    return 0;
}

static char self_sched[96];
static volatile DWORD self_ret = 77;
static DWORD WINAPI self_suspender(LPVOID p) {
    (void)p;
    HANDLE ph = NULL;
    if (!is_wine() && EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph) != ERROR_SUCCESS)
        ph = NULL;
    self_ret = SuspendThread(GetCurrentThread());
    if (ph) {
        PERFORMANCE_DATA pd = {0};
        pd.Size = sizeof pd;
        pd.Version = PERFORMANCE_DATA_VERSION;
        ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd);
        DisableThreadProfiling(ph);
        snprintf(self_sched, sizeof self_sched, "switch-ins %lu, wait reasons 0x%llx", pd.ContextSwitchCount,
                 (unsigned long long)pd.WaitReasonBitMap);
    } else {
        snprintf(self_sched, sizeof self_sched, "n/a");
    }
    return 0;
}

static void suspend_tests(void) {
    HANDLE t = CreateThread(NULL, 0, spinner, NULL, CREATE_SUSPENDED, NULL);
    DWORD a = SuspendThread(t), b = ResumeThread(t), c = ResumeThread(t), d = ResumeThread(t);
    printf("KERNEL32.dll!SuspendThread: KERNEL32.dll!ResumeThread: a suspended thread's counts %lu %lu %lu, running "
           "%lu\n",
           a, b, c, d);
    Sleep(20);
    DWORD s = SuspendThread(t);
    Sleep(20);
    LONG c1 = spins;
    Sleep(50);
    LONG c2 = spins;
    DWORD r = ResumeThread(t);
    Sleep(20);
    LONG c3 = spins;
    printf("KERNEL32.dll!SuspendThread: a running thread (%lu) stops (%d) until resumed (%lu, runs %d)\n", s, c2 == c1,
           r, c3 > c2);
    stop_spin = 1;
    WaitForSingleObject(t, INFINITE);
    SetLastError(0);
    DWORD e = SuspendThread(t);
    DWORD ee = GetLastError();
    printf("KERNEL32.dll!SuspendThread: a thread that ended 0x%lx error %lu\n", e, ee);
    CloseHandle(t);
    wait_event = CreateEventA(NULL, FALSE, FALSE, NULL);
    t = CreateThread(NULL, 0, event_waiter, NULL, 0, NULL);
    Sleep(20); /* it waits */
    SuspendThread(t);
    SetEvent(wait_event);
    Sleep(20);
    DWORD mine = WaitForSingleObject(wait_event, 0);
    SetEvent(wait_event);
    ResumeThread(t);
    WaitForSingleObject(t, INFINITE);
    printf("KERNEL32.dll!SuspendThread: a waiting thread's wait takes nothing while it is suspended (main takes the "
           "event: %lu), and goes on after ResumeThread (%ld)\n",
           mine, waiter_done);
    CloseHandle(t);
    HANDLE never = CreateEventA(NULL, FALSE, FALSE, NULL);
    t = CreateThread(NULL, 0, timed_waiter, never, 0, NULL);
    Sleep(10); /* it waits, 30 ms */
    SuspendThread(t);
    Sleep(100);
    LONG early = timed_done;
    ResumeThread(t);
    WaitForSingleObject(t, INFINITE);
    printf("KERNEL32.dll!SuspendThread: a wait whose timeout passes while it is suspended does not run it (%ld), it "
           "times out when resumed (%lu)\n",
           early, timed_result);
    CloseHandle(t);
    CloseHandle(never);
    t = CreateThread(NULL, 0, self_suspender, NULL, 0, NULL);
    Sleep(20); /* it suspends itself */
    DWORD rs = ResumeThread(t);
    WaitForSingleObject(t, INFINITE);
    printf("KERNEL32.dll!SuspendThread: of itself: returns %lu when resumed (KERNEL32.dll!ResumeThread: %lu)\n",
           self_ret, rs);
    printf("sim the thread that suspended itself: %s\n", is_wine() ? "n/a" : self_sched);
    CloseHandle(t);
    t = CreateThread(NULL, 0, spinner, NULL, CREATE_SUSPENDED, NULL);
    DWORD last = 0;
    for (int i = 0; i < 126; i++) last = SuspendThread(t);
    SetLastError(0);
    DWORD over = SuspendThread(t);
    DWORD oe = GetLastError();
    printf("KERNEL32.dll!SuspendThread: the count stops at MAXIMUM_SUSPEND_COUNT: last %lu, then 0x%lx error %lu\n",
           last, over, oe);
    TerminateThread(t, 0);
    CloseHandle(t);
}

/* ---- processors ---- */

static void processor_tests(void) {
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    printf("cpu KERNEL32.dll!GetActiveProcessorCount: KERNEL32.dll!GetMaximumProcessorCount: %lu %lu %lu, as "
           "GetSystemInfo %d\n",
           n, GetActiveProcessorCount(0), GetMaximumProcessorCount(0), n == si.dwNumberOfProcessors);
    printf("KERNEL32.dll!GetActiveProcessorGroupCount: KERNEL32.dll!GetMaximumProcessorGroupCount: %u %u\n",
           GetActiveProcessorGroupCount(), GetMaximumProcessorGroupCount());
    DWORD len = 0;
    SetLastError(0);
    BOOL q = GetLogicalProcessorInformation(NULL, &len);
    DWORD qe = GetLastError();
    SYSTEM_LOGICAL_PROCESSOR_INFORMATION buf[300];
    DWORD need = len;
    BOOL f = len <= sizeof buf && GetLogicalProcessorInformation(buf, &len);
    int cores = 0, packages = 0, nodes = 0, caches = 0;
    DWORD l[4] = {0}, line[4] = {0}, ways[4] = {0};
    ULONG_PTR all = 0;
    for (DWORD i = 0; f && i < len / sizeof buf[0]; i++) {
        switch (buf[i].Relationship) {
        case RelationProcessorCore: cores++, all |= buf[i].ProcessorMask; break;
        case RelationProcessorPackage: packages++; break;
        case RelationNumaNode: nodes++; break;
        case RelationCache:
            caches++;
            if (buf[i].Cache.Level <= 3 && buf[i].ProcessorMask == 1) {
                l[buf[i].Cache.Level] = buf[i].Cache.Size;
                line[buf[i].Cache.Level] = buf[i].Cache.LineSize;
                ways[buf[i].Cache.Level] = buf[i].Cache.Associativity;
            }
            break;
        default: break;
        }
    }
    printf("KERNEL32.dll!GetLogicalProcessorInformation: a size query %d error %lu, its size a whole number of entries "
           "%d; filled %d\n",
           q, qe, need % sizeof buf[0] == 0, f);
    printf("cpu KERNEL32.dll!GetLogicalProcessorInformation: cores %d (mask 0x%lx), packages %d, NUMA nodes %d\n", cores,
           (unsigned long)all, packages, nodes);
    printf("model KERNEL32.dll!GetLogicalProcessorInformation: %d caches; CPU 0's L1 %lu B (line %lu, %lu ways), L2 %lu B "
           "(%lu, %lu), L3 %lu B (%lu, %lu)\n",
           caches, l[1], line[1], ways[1], l[2], line[2], ways[2], l[3], line[3], ways[3]);
    static char ex[16384];
    DWORD exlen = sizeof ex;
    BOOL g = GetLogicalProcessorInformationEx(RelationGroup, (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)ex, &exlen);
    PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX gr = (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)ex;
    printf("cpu KERNEL32.dll!GetLogicalProcessorInformationEx: RelationGroup %d: groups %u, active %u, mask 0x%lx\n", g,
           gr->Group.ActiveGroupCount, gr->Group.GroupInfo[0].ActiveProcessorCount,
           (unsigned long)gr->Group.GroupInfo[0].ActiveProcessorMask);
    exlen = sizeof ex;
    g = GetLogicalProcessorInformationEx(RelationProcessorCore, (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)ex, &exlen);
    int ncore = 0, sizes_ok = 1;
    for (DWORD off = 0; g && off < exlen;) {
        PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX e = (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)(ex + off);
        if (e->Relationship != RelationProcessorCore || e->Processor.GroupCount != 1) sizes_ok = 0;
        ncore++;
        off += e->Size;
    }
    printf("cpu KERNEL32.dll!GetLogicalProcessorInformationEx: RelationProcessorCore %d: %d records, each one group %d\n",
           g, ncore, sizes_ok);
    DWORD small = 8;
    SetLastError(0);
    BOOL sq = GetLogicalProcessorInformationEx(RelationAll, (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)ex, &small);
    printf("KERNEL32.dll!GetLogicalProcessorInformationEx: RelationAll into 8 bytes %d error %lu, needs more %d\n", sq,
           GetLastError(), small > 8);
    PROCESSOR_NUMBER pn = {9, 9, 9};
    GetCurrentProcessorNumberEx(&pn);
    printf("KERNEL32.dll!GetCurrentProcessorNumberEx: group %u, number as GetCurrentProcessorNumber %d, reserved %u; "
           "ntdll.dll!NtGetCurrentProcessorNumber: the same %d\n",
           pn.Group, pn.Number == GetCurrentProcessorNumber(), pn.Reserved,
           pNtGetCurrentProcessorNumber() == GetCurrentProcessorNumber());
    GROUP_AFFINITY ga, prev, one = {1, 0, {0, 0, 0}}, bad = {1, 1, {0, 0, 0}};
    DWORD_PTR pmask, smask;
    GetProcessAffinityMask(GetCurrentProcess(), &pmask, &smask);
    BOOL gt = GetThreadGroupAffinity(GetCurrentThread(), &ga);
    BOOL st = SetThreadGroupAffinity(GetCurrentThread(), &one, &prev);
    DWORD on = GetCurrentProcessorNumber();
    SetLastError(0);
    BOOL sb = SetThreadGroupAffinity(GetCurrentThread(), &bad, NULL);
    DWORD sbe = GetLastError();
    SetThreadGroupAffinity(GetCurrentThread(), &prev, NULL);
    printf("KERNEL32.dll!GetThreadGroupAffinity: KERNEL32.dll!SetThreadGroupAffinity: %d group %u mask as the process "
           "%d; set CPU 0 %d (previous the same %d), now on %lu; group 1 %d error %lu\n",
           gt, ga.Group, ga.Mask == pmask, st, prev.Mask == pmask, on, sb, sbe);
    USHORT count = 1, groups[1] = {9};
    BOOL pg = GetProcessGroupAffinity(GetCurrentProcess(), &count, groups);
    BOOL w = 7;
    BOOL iw = IsWow64Process(GetCurrentProcess(), &w);
    USHORT pm = 9, nm = 9;
    BOOL iw2 = IsWow64Process2(GetCurrentProcess(), &pm, &nm);
    printf("KERNEL32.dll!GetProcessGroupAffinity: %d, %u group(s), group %u\n", pg, count, groups[0]);
    printf("KERNEL32.dll!IsWow64Process: %d, %d; KERNEL32.dll!IsWow64Process2: %d, process 0x%x, native 0x%x\n", iw, w,
           iw2, pm, nm);
}

/* ---- FLS ---- */

static volatile ULONG_PTR fls_seen[8];
static volatile DWORD fls_thread[8];
static volatile LONG nfls;
static void WINAPI fls_cb(PVOID v) {
    LONG i = InterlockedIncrement(&nfls) - 1;
    if (i < 8) fls_seen[i] = (ULONG_PTR)v, fls_thread[i] = GetCurrentThreadId();
}
static DWORD fls_index;
static DWORD WINAPI fls_returns(LPVOID p) {
    FlsSetValue(fls_index, p);
    return 0;
}
static DWORD WINAPI fls_exits(LPVOID p) {
    FlsSetValue(fls_index, p);
    ExitThread(5);
}
static void WINAPI fls_at_exit(PVOID v) {
    char line[160];
    int n = snprintf(line, sizeof line, "KERNEL32.dll!FlsAlloc: the callback runs at process exit for the exiting "
                                        "thread's value: 0x%lx\r\n",
                     (unsigned long)(ULONG_PTR)v);
    DWORD w;
    WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), line, (DWORD)n, &w, NULL);
}

static void fls_tests(void) {
    fls_index = FlsAlloc(fls_cb);
    SetLastError(5);
    PVOID v0 = FlsGetValue(fls_index);
    DWORD e0 = GetLastError();
    BOOL s = FlsSetValue(fls_index, (PVOID)0x10);
    printf("KERNEL32.dll!FlsAlloc: KERNEL32.dll!FlsGetValue: KERNEL32.dll!FlsSetValue: index > 0 %d; unset NULL %d "
           "error %lu; set %d, reads 0x%lx\n",
           fls_index > 0 && fls_index != FLS_OUT_OF_INDEXES, v0 == NULL, e0, s,
           (unsigned long)(ULONG_PTR)FlsGetValue(fls_index));
    DWORD tid;
    HANDLE t = CreateThread(NULL, 0, fls_returns, (PVOID)0x20, 0, &tid);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    int r1 = nfls == 1 && fls_seen[0] == 0x20 && fls_thread[0] == tid;
    t = CreateThread(NULL, 0, fls_exits, (PVOID)0x30, 0, &tid);
    WaitForSingleObject(t, INFINITE);
    DWORD code;
    GetExitCodeThread(t, &code);
    CloseHandle(t);
    int r2 = nfls == 2 && fls_seen[1] == 0x30 && fls_thread[1] == tid;
    printf("KERNEL32.dll!FlsSetValue: the callback runs on a thread that returns (%d) and on one that calls ExitThread "
           "(%d, exit code %lu)\n",
           r1, r2, code);
    BOOL fr = FlsFree(fls_index);
    int r3 = nfls == 3 && fls_seen[2] == 0x10 && fls_thread[2] == GetCurrentThreadId();
    SetLastError(0);
    PVOID gone = FlsGetValue(fls_index);
    DWORD ge = GetLastError();
    printf("KERNEL32.dll!FlsFree: %d, runs the callback for the caller's value on the caller %d; then FlsGetValue %d "
           "error %lu\n",
           fr, r3, gone == NULL, ge);
    SetLastError(0);
    BOOL z = FlsSetValue(0, (PVOID)1);
    DWORD ze = GetLastError();
    SetLastError(0);
    BOOL zf = FlsFree(0);
    DWORD zfe = GetLastError();
    printf("KERNEL32.dll!FlsSetValue: index 0 %d error %lu; KERNEL32.dll!FlsFree: index 0 %d error %lu\n", z, ze, zf,
           zfe);
    DWORD last = FlsAlloc(fls_at_exit);
    FlsSetValue(last, (PVOID)0x40);
}

/* ---- descriptions, thread information, LocalAlloc ---- */

static DWORD WINAPI nothing(LPVOID p) {
    (void)p;
    return 7;
}

static void info_tests(void) {
    HRESULT h = pSetThreadDescription(GetCurrentThread(), L"main thread");
    PWSTR d = NULL;
    HRESULT g = pGetThreadDescription(GetCurrentThread(), &d);
    int same = d && same_wstr(d, L"main thread");
    HLOCAL lf = LocalFree(d);
    HANDLE t = CreateThread(NULL, 0, nothing, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    PWSTR e = NULL;
    HRESULT g2 = pGetThreadDescription(t, &e);
    int empty = e && e[0] == 0;
    LocalFree(e);
    HANDLE weak = OpenThread(SYNCHRONIZE, FALSE, GetCurrentThreadId());
    HRESULT g3 = pGetThreadDescription(weak, &e);
    CloseHandle(weak);
    printf("KERNEL32.dll!SetThreadDescription: KERNEL32.dll!GetThreadDescription: KERNEL32.dll!LocalFree: 0x%lx 0x%lx "
           "the same %d, freed %d; another thread's is empty (0x%lx %d); without THREAD_QUERY_LIMITED_INFORMATION 0x%lx\n",
           (unsigned long)h, (unsigned long)g, same, lf == NULL, (unsigned long)g2, empty, (unsigned long)g3);
    TBI b;
    ULONG rl = 0;
    NTSTATUS q = pNtQueryInformationThread(GetCurrentThread(), 0, &b, sizeof b, &rl);
    printf("ntdll.dll!NtQueryInformationThread: ThreadBasicInformation 0x%lx, length %d, TEB %d, ids %d %d, exit "
           "status 0x%lx\n",
           q, rl == sizeof b, b.TebBaseAddress == NtCurrentTeb(), (DWORD)(ULONG_PTR)b.UniqueThread == GetCurrentThreadId(),
           (DWORD)(ULONG_PTR)b.UniqueProcess == GetCurrentProcessId(), b.ExitStatus);
    TBI bt;
    ULONG term = 9;
    pNtQueryInformationThread(t, 0, &bt, sizeof bt, NULL);
    NTSTATUS qt = pNtQueryInformationThread(t, 20, &term, sizeof term, NULL);
    LARGE_INTEGER times[4];
    NTSTATUS tm = pNtQueryInformationThread(GetCurrentThread(), 1, times, sizeof times, NULL);
    NTSTATUS tl = pNtQueryInformationThread(GetCurrentThread(), 1, times, 16, NULL);
    NTSTATUS bad = pNtQueryInformationThread(GetCurrentThread(), 200, times, sizeof times, NULL);
    printf("ntdll.dll!NtQueryInformationThread: an ended thread's exit status %ld, ThreadIsTerminated 0x%lx %lu; "
           "ThreadTimes 0x%lx, 16 bytes 0x%lx; class 200 0x%lx\n",
           bt.ExitStatus, qt, term, tm, tl, bad);
    CloseHandle(t);
    NTSTATUS hd = pNtSetInformationThread(GetCurrentThread(), 17, NULL, 0);
    LONG p10 = 10;
    NTSTATUS sp = pNtSetInformationThread(GetCurrentThread(), 2, &p10, sizeof p10);
    LONG now = priority_of(GetCurrentThread());
    LONG p0 = 0;
    NTSTATUS sb = pNtSetInformationThread(GetCurrentThread(), 3, &p0, sizeof p0);
    NTSTATUS sx = pNtSetInformationThread(GetCurrentThread(), 200, &p0, sizeof p0);
    printf("ntdll.dll!NtSetInformationThread: ThreadHideFromDebugger 0x%lx, ThreadPriority 10 0x%lx, "
           "ThreadBasePriority 0 0x%lx, class 200 0x%lx\n",
           hd, sp, sb, sx);
    printf("prio ntdll.dll!NtSetInformationThread: ThreadPriority 10 gives priority %ld\n", now);
    BYTE *mem = LocalAlloc(LMEM_ZEROINIT, 64);
    int zero = 1;
    for (int i = 0; mem && i < 64; i++) zero &= mem[i] == 0;
    printf("KERNEL32.dll!LocalAlloc: LMEM_ZEROINIT gives zeroed memory %d, freed %d\n", mem && zero,
           LocalFree(mem) == NULL);
}

int main(void) {
    HMODULE nt = GetModuleHandleA("ntdll.dll");
    *(FARPROC *)&pNtQueryInformationThread = GetProcAddress(nt, "NtQueryInformationThread");
    *(FARPROC *)&pNtSetInformationThread = GetProcAddress(nt, "NtSetInformationThread");
    *(FARPROC *)&pNtGetCurrentProcessorNumber = GetProcAddress(nt, "NtGetCurrentProcessorNumber");
    HMODULE k = GetModuleHandleA("kernel32.dll");
    *(FARPROC *)&pSetThreadDescription = GetProcAddress(k, "SetThreadDescription");
    *(FARPROC *)&pGetThreadDescription = GetProcAddress(k, "GetThreadDescription");
    if (!pNtQueryInformationThread || !pNtSetInformationThread || !pNtGetCurrentProcessorNumber ||
        !pSetThreadDescription || !pGetThreadDescription)
        return 1;
    priority_tests();
    suspend_tests();
    processor_tests();
    info_tests();
    fls_tests();
    return 0;
}
