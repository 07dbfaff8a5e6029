/* costs.c — what issue 33's families cost (api/README.md "Costs of the synchronisation
 * families"): each line is one operation's kernel cycles and, where the code around it cancels
 * out, its user instructions, read from the thread's own hardware counters around it.  Run as
 * `hcpsim run --pmc cycles:k,instructions --counters 0,1 costs.exe` (scenarios/tests/pe_costs.sh);
 * every window's reading minus an empty window's, so the reads themselves drop out. */
#include <stdio.h>
#include <windows.h>

static HANDLE ph;
static unsigned long long k0, u0;

static void start(void) {
    PERFORMANCE_DATA pd = {0};
    pd.Size = sizeof pd;
    pd.Version = PERFORMANCE_DATA_VERSION;
    ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &pd);
    k0 = pd.HwCounters[0].Value;
    u0 = pd.HwCounters[1].Value;
}

static unsigned long long kernel, user;
static void stop(void) {
    PERFORMANCE_DATA pd = {0};
    pd.Size = sizeof pd;
    pd.Version = PERFORMANCE_DATA_VERSION;
    ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, &pd);
    kernel = pd.HwCounters[0].Value - k0;
    user = pd.HwCounters[1].Value - u0;
}

/* An APC that does nothing: one instruction (ret; ret 4 on x86, stdcall). */
#ifdef _WIN64
__asm__(".globl nop_apc\nnop_apc:\n\tret\n");
#else
__asm__(".globl _nop_apc@4\n_nop_apc@4:\n\tret $4\n");
#endif
void WINAPI nop_apc(ULONG_PTR arg);

static SRWLOCK lock = SRWLOCK_INIT;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static volatile LONG parked;

static DWORD WINAPI locker(LPVOID p) {
    (void)p;
    parked = 1;
    AcquireSRWLockExclusive(&lock); /* parks until main releases */
    ReleaseSRWLockExclusive(&lock);
    return 0;
}

static DWORD WINAPI sleeper(LPVOID p) {
    (void)p;
    AcquireSRWLockExclusive(&lock);
    parked = 2;
    SleepConditionVariableSRW(&cv, &lock, INFINITE, 0);
    ReleaseSRWLockExclusive(&lock);
    return 0;
}

static VOID CALLBACK work_cb(PTP_CALLBACK_INSTANCE i, PVOID c, PTP_WORK w) {
    (void)i;
    (void)c;
    (void)w;
}

int main(void) {
    if (EnableThreadProfiling(GetCurrentThread(), 0, 0x3, &ph) != ERROR_SUCCESS) return 10;
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);

    start();
    stop();
    unsigned long long ek = kernel;
    printf("empty window: kernel %llu\n", ek);

    start();
    AcquireSRWLockExclusive(&lock);
    ReleaseSRWLockExclusive(&lock);
    stop();
    printf("SRW acquire + release, uncontended: kernel %llu\n", kernel - ek);

    start();
    SetEvent(ev);
    stop();
    printf("SetEvent: kernel %llu\n", kernel - ek);

    DWORD idx = FlsAlloc(NULL);
    start();
    FlsSetValue(idx, (PVOID)1);
    FlsGetValue(idx);
    stop();
    printf("FlsSetValue + FlsGetValue: kernel %llu\n", kernel - ek);

    start();
    WakeConditionVariable(&cv);
    stop();
    printf("WakeConditionVariable, no sleeper: kernel %llu\n", kernel - ek);

    start();
    QueueUserAPC(nop_apc, GetCurrentThread(), 0);
    stop();
    printf("QueueUserAPC: kernel %llu\n", kernel - ek);
    SleepEx(0, TRUE);

    /* an alertable SleepEx(0) with no APC, then with 3 queued: the difference is their delivery */
    start();
    DWORD r0 = SleepEx(0, TRUE);
    stop();
    unsigned long long k_0 = kernel, u_0 = user;
    for (int i = 0; i < 3; i++) QueueUserAPC(nop_apc, GetCurrentThread(), 0);
    start();
    DWORD r3 = SleepEx(0, TRUE);
    stop();
    printf("SleepEx(0, TRUE): %lu then %lu; 3 APCs delivered: kernel %llu, user instructions %llu\n", r0, r3,
           kernel - k_0, user - u_0);

    /* one waiter parked on the lock: the release wakes it */
    AcquireSRWLockExclusive(&lock);
    HANDLE t = CreateThread(NULL, 0, locker, NULL, 0, NULL);
    while (!parked) Sleep(1);
    Sleep(1);
    start();
    ReleaseSRWLockExclusive(&lock);
    stop();
    printf("SRW release with a parked waiter: kernel %llu\n", kernel - ek);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);

    /* one sleeper on the condition variable: the wake alerts it */
    parked = 0;
    t = CreateThread(NULL, 0, sleeper, NULL, 0, NULL);
    while (parked != 2) Sleep(1);
    Sleep(1);
    start();
    WakeConditionVariable(&cv);
    stop();
    printf("WakeConditionVariable, one sleeper: kernel %llu\n", kernel - ek);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);

    PTP_WORK w = CreateThreadpoolWork(work_cb, NULL, NULL);
    start();
    SubmitThreadpoolWork(w);
    stop();
    printf("SubmitThreadpoolWork: kernel %llu\n", kernel - ek);
    WaitForThreadpoolWorkCallbacks(w, FALSE);
    CloseThreadpoolWork(w);

    DisableThreadProfiling(ph);
    return 0;
}
