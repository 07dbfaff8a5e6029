/* sync.c — the user-mode synchronisation of Windows (scenarios/tests/pe_sync.sh; api/README.md
 * "Synchronisation"): SRW locks, condition variables, one-time initialisation, WaitOnAddress,
 * interlocked SLists, SignalObjectAndWait, keyed events and ntdll's Nt and Rtl forms (found with
 * GetProcAddress, as a program that uses them without an import library does).  Each line is
 * "DLL!Function: what = value", independent of the schedule; lines starting "sim " are the exact
 * schedule hcpsim gives (ContextSwitchCount and WaitReasonBitMap through the HCP functions), and
 * read "sim n/a" where those functions do not work (Wine). */
#include <stdio.h>
#include <windows.h>

typedef LONG NTSTATUS;
typedef struct _UNICODE_STRING_ {
    USHORT Length, MaximumLength;
    PWSTR Buffer;
} USTR;
typedef struct _OBJECT_ATTRIBUTES_ {
    ULONG Length;
    HANDLE RootDirectory;
    USTR *ObjectName;
    ULONG Attributes;
    PVOID SecurityDescriptor, SecurityQualityOfService;
} OATTR;

#define NTFN(ret, name, args) static ret(NTAPI *p##name) args
NTFN(NTSTATUS, NtWaitForSingleObject, (HANDLE, BOOLEAN, PLARGE_INTEGER));
NTFN(NTSTATUS, NtWaitForMultipleObjects, (ULONG, const HANDLE *, int, BOOLEAN, PLARGE_INTEGER));
NTFN(NTSTATUS, NtDelayExecution, (BOOLEAN, PLARGE_INTEGER));
NTFN(NTSTATUS, NtYieldExecution, (void));
NTFN(NTSTATUS, NtSignalAndWaitForSingleObject, (HANDLE, HANDLE, BOOLEAN, PLARGE_INTEGER));
NTFN(NTSTATUS, NtCreateKeyedEvent, (PHANDLE, ACCESS_MASK, OATTR *, ULONG));
NTFN(NTSTATUS, NtOpenKeyedEvent, (PHANDLE, ACCESS_MASK, OATTR *));
NTFN(NTSTATUS, NtWaitForKeyedEvent, (HANDLE, PVOID, BOOLEAN, PLARGE_INTEGER));
NTFN(NTSTATUS, NtReleaseKeyedEvent, (HANDLE, PVOID, BOOLEAN, PLARGE_INTEGER));
NTFN(NTSTATUS, NtAlertThreadByThreadId, (HANDLE));
NTFN(NTSTATUS, NtWaitForAlertByThreadId, (PVOID, PLARGE_INTEGER));
NTFN(void, RtlInitializeSRWLock, (PSRWLOCK));
NTFN(void, RtlAcquireSRWLockExclusive, (PSRWLOCK));
NTFN(void, RtlAcquireSRWLockShared, (PSRWLOCK));
NTFN(void, RtlReleaseSRWLockExclusive, (PSRWLOCK));
NTFN(void, RtlReleaseSRWLockShared, (PSRWLOCK));
NTFN(BOOLEAN, RtlTryAcquireSRWLockExclusive, (PSRWLOCK));
NTFN(BOOLEAN, RtlTryAcquireSRWLockShared, (PSRWLOCK));
NTFN(void, RtlInitializeConditionVariable, (PCONDITION_VARIABLE));
NTFN(NTSTATUS, RtlSleepConditionVariableCS, (PCONDITION_VARIABLE, PCRITICAL_SECTION, PLARGE_INTEGER));
NTFN(NTSTATUS, RtlSleepConditionVariableSRW, (PCONDITION_VARIABLE, PSRWLOCK, PLARGE_INTEGER, ULONG));
NTFN(void, RtlWakeConditionVariable, (PCONDITION_VARIABLE));
NTFN(void, RtlWakeAllConditionVariable, (PCONDITION_VARIABLE));
NTFN(void, RtlRunOnceInitialize, (PINIT_ONCE));
NTFN(NTSTATUS, RtlRunOnceBeginInitialize, (PINIT_ONCE, ULONG, PVOID *));
NTFN(NTSTATUS, RtlRunOnceComplete, (PINIT_ONCE, ULONG, PVOID));
NTFN(NTSTATUS, RtlRunOnceExecuteOnce, (PINIT_ONCE, PINIT_ONCE_FN, PVOID, PVOID *));
NTFN(NTSTATUS, RtlWaitOnAddress, (const void *, const void *, SIZE_T, PLARGE_INTEGER));
NTFN(void, RtlWakeAddressSingle, (const void *));
NTFN(void, RtlWakeAddressAll, (const void *));
NTFN(void, RtlInitializeSListHead, (PSLIST_HEADER));
NTFN(PSLIST_ENTRY, RtlInterlockedPushEntrySList, (PSLIST_HEADER, PSLIST_ENTRY));
NTFN(PSLIST_ENTRY, RtlInterlockedPopEntrySList, (PSLIST_HEADER));
NTFN(PSLIST_ENTRY, RtlInterlockedFlushSList, (PSLIST_HEADER));
NTFN(WORD, RtlQueryDepthSList, (PSLIST_HEADER));
NTFN(PSLIST_ENTRY, RtlFirstEntrySList, (const SLIST_HEADER *));
NTFN(NTSTATUS, RtlInitializeCriticalSection, (PCRITICAL_SECTION));
NTFN(NTSTATUS, RtlInitializeCriticalSectionAndSpinCount, (PCRITICAL_SECTION, ULONG));
NTFN(NTSTATUS, RtlInitializeCriticalSectionEx, (PCRITICAL_SECTION, ULONG, ULONG));
NTFN(NTSTATUS, RtlEnterCriticalSection, (PCRITICAL_SECTION));
NTFN(NTSTATUS, RtlLeaveCriticalSection, (PCRITICAL_SECTION));
NTFN(BOOLEAN, RtlTryEnterCriticalSection, (PCRITICAL_SECTION));
NTFN(NTSTATUS, RtlDeleteCriticalSection, (PCRITICAL_SECTION));
static BOOL(WINAPI *pWaitOnAddress)(volatile void *, void *, SIZE_T, DWORD);
static void(WINAPI *pWakeByAddressSingle)(void *);
static void(WINAPI *pWakeByAddressAll)(void *);

static int resolve(void) {
    HMODULE nt = GetModuleHandleA("ntdll.dll"), k = GetModuleHandleA("kernel32.dll");
    int missing = 0;
#define R(mod, name)                                                                                                  \
    do {                                                                                                             \
        *(FARPROC *)&p##name = GetProcAddress(mod, #name);                                                           \
        if (!p##name) printf("missing %s\n", #name), missing++;                                                      \
    } while (0)
    R(nt, NtWaitForSingleObject);
    R(nt, NtWaitForMultipleObjects);
    R(nt, NtDelayExecution);
    R(nt, NtYieldExecution);
    R(nt, NtSignalAndWaitForSingleObject);
    R(nt, NtCreateKeyedEvent);
    R(nt, NtOpenKeyedEvent);
    R(nt, NtWaitForKeyedEvent);
    R(nt, NtReleaseKeyedEvent);
    R(nt, NtAlertThreadByThreadId);
    R(nt, NtWaitForAlertByThreadId);
    R(nt, RtlInitializeSRWLock);
    R(nt, RtlAcquireSRWLockExclusive);
    R(nt, RtlAcquireSRWLockShared);
    R(nt, RtlReleaseSRWLockExclusive);
    R(nt, RtlReleaseSRWLockShared);
    R(nt, RtlTryAcquireSRWLockExclusive);
    R(nt, RtlTryAcquireSRWLockShared);
    R(nt, RtlInitializeConditionVariable);
    R(nt, RtlSleepConditionVariableCS);
    R(nt, RtlSleepConditionVariableSRW);
    R(nt, RtlWakeConditionVariable);
    R(nt, RtlWakeAllConditionVariable);
    R(nt, RtlRunOnceInitialize);
    R(nt, RtlRunOnceBeginInitialize);
    R(nt, RtlRunOnceComplete);
    R(nt, RtlRunOnceExecuteOnce);
    R(nt, RtlWaitOnAddress);
    R(nt, RtlWakeAddressSingle);
    R(nt, RtlWakeAddressAll);
    R(nt, RtlInitializeSListHead);
    R(nt, RtlInterlockedPushEntrySList);
    R(nt, RtlInterlockedPopEntrySList);
    R(nt, RtlInterlockedFlushSList);
    R(nt, RtlQueryDepthSList);
    R(nt, RtlFirstEntrySList);
    R(nt, RtlInitializeCriticalSection);
    R(nt, RtlInitializeCriticalSectionAndSpinCount);
    R(nt, RtlInitializeCriticalSectionEx);
    R(nt, RtlEnterCriticalSection);
    R(nt, RtlLeaveCriticalSection);
    R(nt, RtlTryEnterCriticalSection);
    R(nt, RtlDeleteCriticalSection);
    *(FARPROC *)&pWaitOnAddress = GetProcAddress(k, "WaitOnAddress");
    *(FARPROC *)&pWakeByAddressSingle = GetProcAddress(k, "WakeByAddressSingle");
    *(FARPROC *)&pWakeByAddressAll = GetProcAddress(k, "WakeByAddressAll");
    if (!pWaitOnAddress) { /* Wine: in the API set (KernelBase) only */
        HMODULE kb = LoadLibraryA("kernelbase.dll");
        *(FARPROC *)&pWaitOnAddress = GetProcAddress(kb, "WaitOnAddress");
        *(FARPROC *)&pWakeByAddressSingle = GetProcAddress(kb, "WakeByAddressSingle");
        *(FARPROC *)&pWakeByAddressAll = GetProcAddress(kb, "WakeByAddressAll");
    }
    if (!pWaitOnAddress || !pWakeByAddressSingle || !pWakeByAddressAll) printf("missing WaitOnAddress\n"), missing++;
    return missing;
#undef R
}

static LARGE_INTEGER ms_rel(LONGLONG ms) {
    LARGE_INTEGER t;
    t.QuadPart = -ms * 10000;
    return t;
}

/* ---- SRW locks ---- */

static SRWLOCK srw = SRWLOCK_INIT;
static volatile LONG counter, inside, overlap;

static DWORD WINAPI srw_worker(LPVOID p) {
    for (int i = 0; i < 200; i++) {
        AcquireSRWLockExclusive(&srw);
        if (InterlockedIncrement(&inside) != 1) overlap = 1;
        LONG v = counter;
        SwitchToThread(); /* inside the lock: another thread meets it held */
        counter = v + 1;
        InterlockedDecrement(&inside);
        ReleaseSRWLockExclusive(&srw);
    }
    (void)p;
    return 0;
}

static volatile LONG readers_in, max_readers;
static DWORD WINAPI srw_reader(LPVOID p) {
    AcquireSRWLockShared(&srw);
    LONG n = InterlockedIncrement(&readers_in);
    if (n > max_readers) max_readers = n;
    Sleep(30); /* every reader holds it at once */
    InterlockedDecrement(&readers_in);
    ReleaseSRWLockShared(&srw);
    (void)p;
    return 0;
}

static volatile LONG writer_done;
static DWORD WINAPI srw_writer(LPVOID p) {
    AcquireSRWLockExclusive(&srw);
    writer_done = 1;
    ReleaseSRWLockExclusive(&srw);
    (void)p;
    return 0;
}

static void srw_tests(void) {
    SRWLOCK l;
    InitializeSRWLock(&l);
    AcquireSRWLockExclusive(&l);
    int te = TryAcquireSRWLockExclusive(&l), ts = TryAcquireSRWLockShared(&l);
    ReleaseSRWLockExclusive(&l);
    printf("KERNEL32.dll!InitializeSRWLock: KERNEL32.dll!TryAcquireSRWLockExclusive: on an exclusive lock %d; "
           "KERNEL32.dll!TryAcquireSRWLockShared: %d; KERNEL32.dll!ReleaseSRWLockExclusive: frees it\n",
           te, ts);
    int s1 = TryAcquireSRWLockShared(&l), s2 = TryAcquireSRWLockShared(&l), e1 = TryAcquireSRWLockExclusive(&l);
    ReleaseSRWLockShared(&l);
    ReleaseSRWLockShared(&l);
    int e2 = TryAcquireSRWLockExclusive(&l);
    ReleaseSRWLockExclusive(&l);
    printf("KERNEL32.dll!ReleaseSRWLockShared: two readers (%d %d) keep a writer out (%d) until both leave (%d)\n", s1,
           s2, e1, e2);
    HANDLE t[4];
    for (int i = 0; i < 4; i++) t[i] = CreateThread(NULL, 0, srw_worker, NULL, 0, NULL);
    WaitForMultipleObjects(4, t, TRUE, INFINITE);
    for (int i = 0; i < 4; i++) CloseHandle(t[i]);
    printf("KERNEL32.dll!AcquireSRWLockExclusive: 4 threads x 200 increments that yield inside the lock: %ld, "
           "overlaps %ld\n",
           counter, overlap);
    for (int i = 0; i < 3; i++) t[i] = CreateThread(NULL, 0, srw_reader, NULL, 0, NULL);
    WaitForMultipleObjects(3, t, TRUE, INFINITE);
    for (int i = 0; i < 3; i++) CloseHandle(t[i]);
    printf("KERNEL32.dll!AcquireSRWLockShared: 3 readers hold it together: %ld\n", max_readers);
    /* a writer waits for the readers: a new reader does not pass it (Windows' SRW lock and Wine's
     * refuse a shared acquire while an exclusive waiter is queued) */
    AcquireSRWLockShared(&srw);
    HANDLE wr = CreateThread(NULL, 0, srw_writer, NULL, 0, NULL);
    Sleep(50); /* the writer blocks on the shared lock */
    int late = TryAcquireSRWLockShared(&srw);
    if (late) ReleaseSRWLockShared(&srw);
    ReleaseSRWLockShared(&srw);
    WaitForSingleObject(wr, INFINITE);
    CloseHandle(wr);
    printf("KERNEL32.dll!TryAcquireSRWLockShared: a shared lock a writer waits for: %d (the writer got it %ld)\n",
           late, writer_done);
    SRWLOCK r;
    pRtlInitializeSRWLock(&r);
    pRtlAcquireSRWLockExclusive(&r);
    int a = pRtlTryAcquireSRWLockShared(&r);
    pRtlReleaseSRWLockExclusive(&r);
    pRtlAcquireSRWLockShared(&r);
    int b = pRtlTryAcquireSRWLockExclusive(&r);
    pRtlReleaseSRWLockShared(&r);
    int c = pRtlTryAcquireSRWLockExclusive(&r);
    pRtlReleaseSRWLockExclusive(&r);
    printf("ntdll.dll!RtlAcquireSRWLockExclusive: ntdll.dll!RtlAcquireSRWLockShared: ntdll.dll!RtlReleaseSRWLockShared: "
           "ntdll.dll!RtlTryAcquireSRWLockExclusive: ntdll.dll!RtlTryAcquireSRWLockShared: "
           "ntdll.dll!RtlReleaseSRWLockExclusive: ntdll.dll!RtlInitializeSRWLock: %d %d %d\n",
           a, b, c);
}

/* ---- condition variables ---- */

static CRITICAL_SECTION pc_cs;
static SRWLOCK pc_srw = SRWLOCK_INIT;
static CONDITION_VARIABLE not_empty = CONDITION_VARIABLE_INIT, not_full = CONDITION_VARIABLE_INIT;
static int slot_full, slot_value, use_srw;
#define ITEMS 20

static void lock(void) {
    if (use_srw)
        AcquireSRWLockExclusive(&pc_srw);
    else
        EnterCriticalSection(&pc_cs);
}
static void unlock(void) {
    if (use_srw)
        ReleaseSRWLockExclusive(&pc_srw);
    else
        LeaveCriticalSection(&pc_cs);
}
static void wait_on(CONDITION_VARIABLE *cv) {
    if (use_srw)
        SleepConditionVariableSRW(cv, &pc_srw, INFINITE, 0);
    else
        SleepConditionVariableCS(cv, &pc_cs, INFINITE);
}

static DWORD WINAPI producer(LPVOID p) {
    for (int i = 1; i <= ITEMS; i++) {
        lock();
        while (slot_full) wait_on(&not_full);
        slot_value = i;
        slot_full = 1;
        WakeConditionVariable(&not_empty);
        unlock();
    }
    (void)p;
    return 0;
}

/* A producer/consumer over a one-item buffer; the consumer (this thread) counts its own switches. */
static void producer_consumer(int srw_lock) {
    use_srw = srw_lock;
    HANDLE ph;
    /* Wine exports the HCP functions as stubs that end the process: there, no schedule is read */
    int wine = GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL;
    int prof = !wine && EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph) == ERROR_SUCCESS;
    HANDLE t = CreateThread(NULL, 0, producer, NULL, 0, NULL);
    long sum = 0;
    for (int i = 1; i <= ITEMS; i++) {
        lock();
        while (!slot_full) wait_on(&not_empty);
        sum += slot_value;
        slot_full = 0;
        WakeConditionVariable(&not_full);
        unlock();
    }
    PERFORMANCE_DATA pd = {0};
    pd.Size = sizeof pd;
    pd.Version = PERFORMANCE_DATA_VERSION;
    if (prof) ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    printf("KERNEL32.dll!%s: KERNEL32.dll!WakeConditionVariable: %d items through a one-item buffer: sum %ld\n",
           srw_lock ? "SleepConditionVariableSRW" : "SleepConditionVariableCS", ITEMS, sum);
    if (prof) {
        printf("sim %s producer/consumer: consumer switch-ins %lu, wait reasons 0x%llx\n", srw_lock ? "SRW" : "CS",
               pd.ContextSwitchCount, (unsigned long long)pd.WaitReasonBitMap);
        DisableThreadProfiling(ph);
    } else {
        printf("sim n/a\n");
    }
}

static volatile LONG flag, woken;
static DWORD WINAPI shared_sleeper(LPVOID p) {
    AcquireSRWLockShared(&pc_srw);
    while (!flag)
        if (!SleepConditionVariableSRW(&not_empty, &pc_srw, INFINITE, CONDITION_VARIABLE_LOCKMODE_SHARED)) break;
    InterlockedIncrement(&woken);
    ReleaseSRWLockShared(&pc_srw);
    (void)p;
    return 0;
}

static void cv_tests(void) {
    InitializeCriticalSection(&pc_cs);
    InitializeConditionVariable(&not_empty);
    InitializeConditionVariable(&not_full);
    producer_consumer(0);
    producer_consumer(1);
    HANDLE t[3];
    for (int i = 0; i < 3; i++) t[i] = CreateThread(NULL, 0, shared_sleeper, NULL, 0, NULL);
    Sleep(20);
    AcquireSRWLockExclusive(&pc_srw);
    flag = 1;
    WakeAllConditionVariable(&not_empty);
    ReleaseSRWLockExclusive(&pc_srw);
    WaitForMultipleObjects(3, t, TRUE, INFINITE);
    for (int i = 0; i < 3; i++) CloseHandle(t[i]);
    printf("KERNEL32.dll!WakeAllConditionVariable: wakes 3 sleepers in CONDITION_VARIABLE_LOCKMODE_SHARED: %ld\n",
           woken);
    CONDITION_VARIABLE cv;
    InitializeConditionVariable(&cv);
    EnterCriticalSection(&pc_cs);
    BOOL r = SleepConditionVariableCS(&cv, &pc_cs, 10);
    DWORD e = GetLastError();
    printf("KERNEL32.dll!InitializeConditionVariable: KERNEL32.dll!SleepConditionVariableCS: nobody wakes it: %d, error "
           "%lu, the section held again %d\n",
           r, e, pc_cs.RecursionCount == 1 && (DWORD)(ULONG_PTR)pc_cs.OwningThread == GetCurrentThreadId());
    LeaveCriticalSection(&pc_cs);
    AcquireSRWLockShared(&pc_srw);
    SetLastError(0);
    r = SleepConditionVariableSRW(&cv, &pc_srw, 10, CONDITION_VARIABLE_LOCKMODE_SHARED);
    e = GetLastError();
    int held = TryAcquireSRWLockShared(&pc_srw) && !TryAcquireSRWLockExclusive(&pc_srw);
    ReleaseSRWLockShared(&pc_srw);
    ReleaseSRWLockShared(&pc_srw);
    printf("KERNEL32.dll!SleepConditionVariableSRW: shared, nobody wakes it: %d, error %lu, held shared again %d\n", r,
           e, held);
    WakeConditionVariable(&cv); /* nobody sleeps: nothing happens */
    WakeAllConditionVariable(&cv);
    pRtlInitializeConditionVariable(&cv);
    EnterCriticalSection(&pc_cs);
    LARGE_INTEGER to = ms_rel(10);
    NTSTATUS s1 = pRtlSleepConditionVariableCS(&cv, &pc_cs, &to);
    LeaveCriticalSection(&pc_cs);
    pRtlAcquireSRWLockShared(&pc_srw);
    to = ms_rel(10);
    NTSTATUS s2 = pRtlSleepConditionVariableSRW(&cv, &pc_srw, &to, CONDITION_VARIABLE_LOCKMODE_SHARED);
    pRtlReleaseSRWLockShared(&pc_srw);
    pRtlWakeConditionVariable(&cv);
    pRtlWakeAllConditionVariable(&cv);
    printf("ntdll.dll!RtlSleepConditionVariableCS: ntdll.dll!RtlSleepConditionVariableSRW: "
           "ntdll.dll!RtlInitializeConditionVariable: ntdll.dll!RtlWakeConditionVariable: "
           "ntdll.dll!RtlWakeAllConditionVariable: timeouts 0x%lx 0x%lx\n",
           s1, s2);
}

/* ---- one-time initialisation ---- */

static volatile LONG init_calls;
static BOOL init_ret = TRUE;
static BOOL CALLBACK init_fn(PINIT_ONCE once, PVOID param, PVOID *ctx) {
    InterlockedIncrement(&init_calls);
    Sleep((DWORD)(ULONG_PTR)param); /* others meet it in progress */
    if (ctx) *ctx = (PVOID)0x40;
    (void)once;
    return init_ret;
}

static INIT_ONCE shared_once = INIT_ONCE_STATIC_INIT;
static volatile LONG saw_ctx;
static DWORD WINAPI once_user(LPVOID p) {
    PVOID ctx = NULL;
    if (InitOnceExecuteOnce(&shared_once, init_fn, (PVOID)20, &ctx) && ctx == (PVOID)0x40) InterlockedIncrement(&saw_ctx);
    (void)p;
    return 0;
}

static void once_tests(void) {
    INIT_ONCE o;
    InitOnceInitialize(&o);
    PVOID ctx = NULL;
    BOOL r1 = InitOnceExecuteOnce(&o, init_fn, 0, &ctx), r2 = InitOnceExecuteOnce(&o, init_fn, 0, &ctx);
    printf("KERNEL32.dll!InitOnceInitialize: KERNEL32.dll!InitOnceExecuteOnce: %d %d, calls %ld, context 0x%lx, word 0x%lx\n", r1, r2, init_calls,
           (unsigned long)(ULONG_PTR)ctx, (unsigned long)(ULONG_PTR)o.Ptr);
    HANDLE t[4];
    init_calls = 0;
    for (int i = 0; i < 4; i++) t[i] = CreateThread(NULL, 0, once_user, NULL, 0, NULL);
    WaitForMultipleObjects(4, t, TRUE, INFINITE);
    for (int i = 0; i < 4; i++) CloseHandle(t[i]);
    printf("KERNEL32.dll!InitOnceExecuteOnce: 4 threads, a function that sleeps: calls %ld, context seen by %ld\n",
           init_calls, saw_ctx);
    InitOnceInitialize(&o);
    init_ret = FALSE;
    SetLastError(0xdeadbeef);
    BOOL f = InitOnceExecuteOnce(&o, init_fn, 0, &ctx);
    printf("KERNEL32.dll!InitOnceExecuteOnce: a function that fails: %d, last error 0x%lx, word %lu\n", f,
           GetLastError(), (unsigned long)(ULONG_PTR)o.Ptr);
    init_ret = TRUE;
    BOOL pending = 7;
    ctx = NULL;
    BOOL b1 = InitOnceBeginInitialize(&o, 0, &pending, &ctx);
    int p1 = pending;
    SetLastError(0);
    BOOL chk = InitOnceBeginInitialize(&o, INIT_ONCE_CHECK_ONLY, &pending, &ctx);
    DWORD ce = GetLastError();
    BOOL bad = InitOnceComplete(&o, 0, (PVOID)0x81);
    DWORD be = GetLastError();
    BOOL c1 = InitOnceComplete(&o, 0, (PVOID)0x80);
    BOOL b2 = InitOnceBeginInitialize(&o, 0, &pending, &ctx);
    printf("KERNEL32.dll!InitOnceBeginInitialize: KERNEL32.dll!InitOnceComplete: begin %d pending %d; check-only %d "
           "error %lu; a context with low bits %d error %lu; complete %d; begin %d pending %d context 0x%lx\n",
           b1, p1, chk, ce, bad, be, c1, b2, pending, (unsigned long)(ULONG_PTR)ctx);
    InitOnceInitialize(&o);
    BOOL a1 = InitOnceBeginInitialize(&o, INIT_ONCE_ASYNC, &pending, &ctx);
    unsigned long w1 = (unsigned long)(ULONG_PTR)o.Ptr;
    SetLastError(0);
    BOOL sync = InitOnceBeginInitialize(&o, 0, &pending, &ctx);
    DWORD se = GetLastError();
    BOOL ac = InitOnceComplete(&o, INIT_ONCE_ASYNC, (PVOID)0x100);
    SetLastError(0);
    BOOL again = InitOnceComplete(&o, INIT_ONCE_ASYNC, (PVOID)0x200);
    DWORD ae = GetLastError();
    printf("KERNEL32.dll!InitOnceBeginInitialize: async %d word %lu; sync on it %d error %lu; "
           "KERNEL32.dll!InitOnceComplete: async %d, again %d error %lu, word 0x%lx\n",
           a1, w1, sync, se, ac, again, ae, (unsigned long)(ULONG_PTR)o.Ptr);
    pRtlRunOnceInitialize(&o);
    ctx = NULL;
    NTSTATUS s1 = pRtlRunOnceBeginInitialize(&o, 0, &ctx), s2 = pRtlRunOnceComplete(&o, 0, (PVOID)0x10);
    NTSTATUS s3 = pRtlRunOnceBeginInitialize(&o, 0, &ctx);
    unsigned long done_ctx = (unsigned long)(ULONG_PTR)ctx;
    INIT_ONCE o2 = INIT_ONCE_STATIC_INIT;
    init_ret = FALSE;
    NTSTATUS s4 = pRtlRunOnceExecuteOnce(&o2, init_fn, 0, &ctx);
    init_ret = TRUE;
    NTSTATUS s5 = pRtlRunOnceExecuteOnce(&o2, init_fn, 0, &ctx);
    printf("ntdll.dll!RtlRunOnceInitialize: ntdll.dll!RtlRunOnceBeginInitialize: ntdll.dll!RtlRunOnceComplete: "
           "ntdll.dll!RtlRunOnceExecuteOnce: 0x%lx 0x%lx 0x%lx context 0x%lx; fails 0x%lx, then 0x%lx\n",
           s1, s2, s3, done_ctx, s4, s5);
}

/* ---- WaitOnAddress ---- */

static volatile LONG word, address_woken;
static DWORD WINAPI address_waiter(LPVOID p) {
    LONG undesired = 0;
    while (word == 0) pWaitOnAddress(&word, &undesired, sizeof word, INFINITE);
    InterlockedIncrement(&address_woken);
    (void)p;
    return 0;
}

static void address_tests(void) {
    LONG v = 5, other = 6;
    BOOL d = pWaitOnAddress(&v, &other, sizeof v, INFINITE);
    SetLastError(0);
    BOOL t = pWaitOnAddress(&v, &v, sizeof v, 10);
    DWORD te = GetLastError();
    SetLastError(0);
    BOOL s3 = pWaitOnAddress(&v, &v, 3, 10);
    DWORD se = GetLastError();
    printf("KERNEL32.dll!WaitOnAddress: values differ %d; equal, 10 ms %d error %lu; size 3 %d error %lu\n", d, t, te,
           s3, se);
    HANDLE th[3];
    th[0] = CreateThread(NULL, 0, address_waiter, NULL, 0, NULL);
    Sleep(20);
    word = 1;
    pWakeByAddressSingle((void *)&word);
    WaitForSingleObject(th[0], INFINITE);
    CloseHandle(th[0]);
    word = 0;
    for (int i = 0; i < 3; i++) th[i] = CreateThread(NULL, 0, address_waiter, NULL, 0, NULL);
    Sleep(20);
    word = 2;
    pWakeByAddressAll((void *)&word);
    WaitForMultipleObjects(3, th, TRUE, INFINITE);
    for (int i = 0; i < 3; i++) CloseHandle(th[i]);
    printf("KERNEL32.dll!WakeByAddressSingle: KERNEL32.dll!WakeByAddressAll: waiters that saw the new value: %ld\n",
           address_woken);
    LARGE_INTEGER to = ms_rel(10);
    NTSTATUS a = pRtlWaitOnAddress(&v, &v, sizeof v, &to), b = pRtlWaitOnAddress(&v, &other, sizeof v, NULL);
    NTSTATUS c = pRtlWaitOnAddress(&v, &v, 5, &to);
    pRtlWakeAddressSingle(&v);
    pRtlWakeAddressAll(&v);
    printf("ntdll.dll!RtlWaitOnAddress: ntdll.dll!RtlWakeAddressSingle: ntdll.dll!RtlWakeAddressAll: 0x%lx 0x%lx 0x%lx\n",
           a, b, c);
}

/* ---- SLists ---- */

typedef struct item {
    SLIST_ENTRY entry;
    int value;
} __attribute__((aligned(16))) item;

static void slist_tests(void) {
    static item items[4];
    static SLIST_HEADER head __attribute__((aligned(16)));
    InitializeSListHead(&head);
    PSLIST_ENTRY first = InterlockedPushEntrySList(&head, &items[0].entry);
    InterlockedPushEntrySList(&head, &items[1].entry);
    PSLIST_ENTRY prev = InterlockedPushEntrySList(&head, &items[2].entry);
    printf("KERNEL32.dll!InitializeSListHead: KERNEL32.dll!InterlockedPushEntrySList: returns the old first (NULL %d, "
           "item 1 %d): KERNEL32.dll!QueryDepthSList: %u\n",
           first == NULL, prev == &items[1].entry, QueryDepthSList(&head));
    PSLIST_ENTRY pop = InterlockedPopEntrySList(&head);
    PSLIST_ENTRY all = InterlockedFlushSList(&head);
    PSLIST_ENTRY none = InterlockedPopEntrySList(&head);
    printf("KERNEL32.dll!InterlockedPopEntrySList: the last pushed %d; KERNEL32.dll!InterlockedFlushSList: the rest from "
           "item 1 %d, then item 0 %d; depth %u; empty pop NULL %d\n",
           pop == &items[2].entry, all == &items[1].entry, all->Next == &items[0].entry, QueryDepthSList(&head),
           none == NULL);
    pRtlInitializeSListHead(&head);
    pRtlInterlockedPushEntrySList(&head, &items[3].entry);
    pRtlInterlockedPushEntrySList(&head, &items[2].entry);
    int f = pRtlFirstEntrySList(&head) == &items[2].entry, dp = pRtlQueryDepthSList(&head);
    PSLIST_ENTRY rp = pRtlInterlockedPopEntrySList(&head), rf = pRtlInterlockedFlushSList(&head);
    printf("ntdll.dll!RtlInitializeSListHead: ntdll.dll!RtlInterlockedPushEntrySList: ntdll.dll!RtlFirstEntrySList: "
           "ntdll.dll!RtlQueryDepthSList: ntdll.dll!RtlInterlockedPopEntrySList: ntdll.dll!RtlInterlockedFlushSList: "
           "%d %d %d %d\n",
           f, dp, rp == &items[2].entry, rf == &items[3].entry);
}

/* ---- SignalObjectAndWait, the Nt waits, alerts ---- */

static HANDLE ev_a, ev_b;
static DWORD WINAPI answer(LPVOID p) {
    WaitForSingleObject(ev_a, INFINITE);
    SetEvent(ev_b);
    (void)p;
    return 0;
}

static void nt_tests(void) {
    ev_a = CreateEventA(NULL, FALSE, FALSE, NULL);
    ev_b = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE t = CreateThread(NULL, 0, answer, NULL, 0, NULL);
    DWORD r = SignalObjectAndWait(ev_a, ev_b, INFINITE, FALSE);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    HANDLE mx = CreateMutexA(NULL, FALSE, NULL), sem = CreateSemaphoreA(NULL, 1, 1, NULL);
    DWORD rm = SignalObjectAndWait(mx, ev_b, 0, FALSE), em = GetLastError();
    DWORD rs = SignalObjectAndWait(sem, ev_b, 0, FALSE), es = GetLastError();
    DWORD rt = SignalObjectAndWait(GetCurrentThread(), ev_b, 0, FALSE), et = GetLastError();
    DWORD ro = SignalObjectAndWait(ev_a, ev_b, 10, FALSE);
    printf("KERNEL32.dll!SignalObjectAndWait: %lu; a mutex it does not own %lu error %lu; a full semaphore %lu error "
           "%lu; a thread %lu error %lu; a timeout %lu\n",
           r, rm, em, rs, es, rt, et, ro);
    SetEvent(ev_a);
    LARGE_INTEGER to = ms_rel(10), zero = {{0, 0}};
    NTSTATUS w1 = pNtWaitForSingleObject(ev_a, FALSE, NULL), w2 = pNtWaitForSingleObject(ev_a, FALSE, &to);
    SetEvent(ev_b);
    HANDLE both[2] = {ev_a, ev_b};
    NTSTATUS w3 = pNtWaitForMultipleObjects(2, both, 1, FALSE, &zero);
    NTSTATUS w4 = pNtWaitForMultipleObjects(0, both, 1, FALSE, &zero);
    to = ms_rel(10);
    NTSTATUS d = pNtDelayExecution(FALSE, &to);
    NTSTATUS y = pNtYieldExecution();
    printf("ntdll.dll!NtWaitForSingleObject: 0x%lx then 0x%lx; ntdll.dll!NtWaitForMultipleObjects: any 0x%lx, count 0 "
           "0x%lx; ntdll.dll!NtDelayExecution: 0x%lx; ntdll.dll!NtYieldExecution: yielded or not %d\n",
           w1, w2, w3, w4, d, y == 0 || y == 0x40000024);
    SetEvent(ev_a);
    to = ms_rel(10);
    NTSTATUS sw = pNtSignalAndWaitForSingleObject(ev_a, ev_b, FALSE, &to);
    printf("ntdll.dll!NtSignalAndWaitForSingleObject: a timeout 0x%lx, the signalled event %lu\n", sw,
           WaitForSingleObject(ev_a, 0));
    NTSTATUS al = pNtAlertThreadByThreadId((HANDLE)(ULONG_PTR)GetCurrentThreadId());
    NTSTATUS wa = pNtWaitForAlertByThreadId(NULL, NULL);
    to = ms_rel(10);
    NTSTATUS wt = pNtWaitForAlertByThreadId(NULL, &to);
    printf("ntdll.dll!NtAlertThreadByThreadId: 0x%lx; ntdll.dll!NtWaitForAlertByThreadId: an alert pending 0x%lx, none "
           "0x%lx\n",
           al, wa, wt);
    CloseHandle(mx);
    CloseHandle(sem);
}

/* ---- keyed events ---- */

static HANDLE keyed;
static volatile NTSTATUS waiter_status = -1;
static DWORD WINAPI keyed_waiter(LPVOID p) {
    waiter_status = pNtWaitForKeyedEvent(keyed, (PVOID)8, FALSE, NULL);
    (void)p;
    return 0;
}

static void keyed_tests(void) {
    NTSTATUS c = pNtCreateKeyedEvent(&keyed, 0x000F0003, NULL, 0);
    HANDLE t = CreateThread(NULL, 0, keyed_waiter, NULL, 0, NULL);
    Sleep(20);
    NTSTATUS r = pNtReleaseKeyedEvent(keyed, (PVOID)8, FALSE, NULL);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    LARGE_INTEGER to = ms_rel(10);
    NTSTATUS wt = pNtWaitForKeyedEvent(keyed, (PVOID)16, FALSE, &to);
    to = ms_rel(10);
    NTSTATUS rt = pNtReleaseKeyedEvent(keyed, (PVOID)16, FALSE, &to);
    NTSTATUS odd = pNtWaitForKeyedEvent(keyed, (PVOID)9, FALSE, &to);
    printf("ntdll.dll!NtCreateKeyedEvent: 0x%lx; ntdll.dll!NtReleaseKeyedEvent: pairs with a waiter 0x%lx, which "
           "returns 0x%lx; ntdll.dll!NtWaitForKeyedEvent: alone 0x%lx; a release alone 0x%lx; an odd key 0x%lx\n",
           c, r, waiter_status, wt, rt, odd);
    WCHAR name[] = L"\\KernelObjects\\CritSecOutOfMemoryEvent";
    USTR us = {sizeof name - 2, sizeof name, name};
    OATTR oa = {sizeof oa, NULL, &us, 0, NULL, NULL};
    HANDLE h = NULL;
    NTSTATUS o = pNtOpenKeyedEvent(&h, 0x000F0003, &oa);
    printf("ntdll.dll!NtOpenKeyedEvent: the system's keyed event 0x%lx, a handle %d\n", o, h != NULL);
    CloseHandle(h);
    CloseHandle(keyed);
}

/* ---- the Rtl critical sections ---- */

static void rtl_cs_tests(void) {
    CRITICAL_SECTION a, b, c;
    NTSTATUS i1 = pRtlInitializeCriticalSection(&a), i2 = pRtlInitializeCriticalSectionAndSpinCount(&b, 100);
    NTSTATUS i3 = pRtlInitializeCriticalSectionEx(&c, 0, 0);
    NTSTATUS e = pRtlEnterCriticalSection(&a);
    int tr = pRtlTryEnterCriticalSection(&a);
    NTSTATUS l1 = pRtlLeaveCriticalSection(&a), l2 = pRtlLeaveCriticalSection(&a);
    NTSTATUS d1 = pRtlDeleteCriticalSection(&a);
    pRtlDeleteCriticalSection(&b);
    pRtlDeleteCriticalSection(&c);
    printf("ntdll.dll!RtlInitializeCriticalSection: ntdll.dll!RtlInitializeCriticalSectionAndSpinCount: "
           "ntdll.dll!RtlInitializeCriticalSectionEx: ntdll.dll!RtlEnterCriticalSection: "
           "ntdll.dll!RtlTryEnterCriticalSection: ntdll.dll!RtlLeaveCriticalSection: "
           "ntdll.dll!RtlDeleteCriticalSection: %lx %lx %lx %lx %d %lx %lx %lx\n",
           i1, i2, i3, e, tr, l1, l2, d1);
}

int main(void) {
    if (resolve()) return 1;
    srw_tests();
    cv_tests();
    once_tests();
    address_tests();
    slist_tests();
    nt_tests();
    keyed_tests();
    rtl_cs_tests();
    return 0;
}
