/* pool.c — the thread pool (scenarios/tests/pe_pool.sh; api/README.md "The thread pool"): work,
 * timer and wait objects, private pools, cleanup groups, callback instances, QueueUserWorkItem,
 * RegisterWaitForSingleObject.  Each line is "DLL!Function: what = value", independent of the
 * schedule; lines starting "sim " are hcpsim's exact schedule (workers made, switches, wait
 * reasons) and read "sim n/a" under Wine. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

static int is_wine(void) { return GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL; }

#define MAXT 16
static DWORD tids[MAXT];
static volatile LONG ntids;
static void note_thread(void) {
    DWORD me = GetCurrentThreadId();
    for (LONG i = 0; i < ntids; i++)
        if (tids[i] == me) return;
    if (ntids < MAXT) tids[ntids++] = me;
}
static int distinct(void) { return (int)ntids; }
static void reset_threads(void) { ntids = 0; }

/* ---- work ---- */

static volatile LONG work_calls, bad_args;
static DWORD main_tid;
static PTP_WORK the_work;
static void CALLBACK work_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK work) {
    if (!inst || ctx != (PVOID)0x55 || work != the_work || GetCurrentThreadId() == main_tid) bad_args++;
    note_thread();
    InterlockedIncrement(&work_calls);
}

static HANDLE started, go;
static void CALLBACK slow_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK work) {
    (void)inst, (void)ctx, (void)work;
    InterlockedIncrement(&work_calls);
    SetEvent(started);
    WaitForSingleObject(go, INFINITE);
}
static DWORD WINAPI go_later(LPVOID p) {
    (void)p;
    Sleep(20);
    SetEvent(go);
    return 0;
}

static HANDLE simple_done;
static volatile PVOID simple_ctx;
static void CALLBACK simple_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx) {
    (void)inst;
    simple_ctx = ctx;
    SetEvent(simple_done);
}

static void work_tests(void) {
    main_tid = GetCurrentThreadId();
    the_work = CreateThreadpoolWork(work_cb, (PVOID)0x55, NULL);
    for (int i = 0; i < 5; i++) SubmitThreadpoolWork(the_work);
    WaitForThreadpoolWorkCallbacks(the_work, FALSE);
    printf("KERNEL32.dll!CreateThreadpoolWork: KERNEL32.dll!SubmitThreadpoolWork: "
           "KERNEL32.dll!WaitForThreadpoolWorkCallbacks: %d, 5 submitted, %ld ran with their arguments on workers "
           "(bad %ld)\n",
           the_work != NULL, work_calls, bad_args);
    if (!is_wine()) printf("sim workers used by 5 callbacks submitted at once on one CPU: %d\n", distinct());
    else printf("sim n/a\n");
    CloseThreadpoolWork(the_work);
    /* one worker at most: the first callback runs and waits, the other 5 stay queued until cancelled */
    work_calls = 0;
    started = CreateEventA(NULL, FALSE, FALSE, NULL);
    go = CreateEventA(NULL, TRUE, FALSE, NULL);
    PTP_POOL one = CreateThreadpool(NULL);
    SetThreadpoolThreadMaximum(one, 1);
    TP_CALLBACK_ENVIRON env;
    InitializeThreadpoolEnvironment(&env);
    SetThreadpoolCallbackPool(&env, one);
    PTP_WORK slow = CreateThreadpoolWork(slow_cb, NULL, &env);
    for (int i = 0; i < 6; i++) SubmitThreadpoolWork(slow);
    WaitForSingleObject(started, INFINITE);
    HANDLE g = CreateThread(NULL, 0, go_later, NULL, 0, NULL);
    WaitForThreadpoolWorkCallbacks(slow, TRUE);
    LONG ran = work_calls;
    Sleep(50);
    printf("KERNEL32.dll!CloseThreadpoolWork: KERNEL32.dll!WaitForThreadpoolWorkCallbacks: cancelling drops the 5 "
           "queued callbacks and waits for the running one: ran %ld, none after %d\n",
           ran, work_calls == ran);
    WaitForSingleObject(g, INFINITE);
    CloseHandle(g);
    CloseThreadpoolWork(slow);
    DestroyThreadpoolEnvironment(&env);
    CloseThreadpool(one);
    simple_done = CreateEventA(NULL, FALSE, FALSE, NULL);
    BOOL ok = TrySubmitThreadpoolCallback(simple_cb, (PVOID)0x66, NULL);
    DWORD w = WaitForSingleObject(simple_done, INFINITE);
    printf("KERNEL32.dll!TrySubmitThreadpoolCallback: %d, ran %lu with its context %d\n", ok, w,
           simple_ctx == (PVOID)0x66);
}

/* ---- the worker's own schedule ---- */

static HANDLE e1, e2;
static HANDLE worker_ph;
static char worker_sched[96];
static void CALLBACK first_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK work) {
    (void)inst, (void)ctx, (void)work;
    if (EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &worker_ph) != ERROR_SUCCESS)
        worker_ph = NULL;
    SetEvent(e1);
}
static void CALLBACK second_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK work) {
    (void)inst, (void)ctx, (void)work;
    PERFORMANCE_DATA pd = {0};
    pd.Size = sizeof pd;
    pd.Version = PERFORMANCE_DATA_VERSION;
    if (worker_ph) {
        ReadThreadProfilingData(worker_ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd);
        DisableThreadProfiling(worker_ph);
        snprintf(worker_sched, sizeof worker_sched, "switch-ins %lu, wait reasons 0x%llx", pd.ContextSwitchCount,
                 (unsigned long long)pd.WaitReasonBitMap);
    }
    SetEvent(e2);
}

static void worker_schedule(void) {
    if (is_wine()) {
        printf("sim n/a\n");
        return;
    }
    e1 = CreateEventA(NULL, FALSE, FALSE, NULL);
    e2 = CreateEventA(NULL, FALSE, FALSE, NULL);
    PTP_WORK a = CreateThreadpoolWork(first_cb, NULL, NULL), b = CreateThreadpoolWork(second_cb, NULL, NULL);
    SubmitThreadpoolWork(a);
    WaitForSingleObject(e1, INFINITE);
    SubmitThreadpoolWork(b);
    WaitForSingleObject(e2, INFINITE);
    printf("sim an idle worker woken for the next callback: %s\n", worker_sched);
    WaitForThreadpoolWorkCallbacks(a, FALSE);
    WaitForThreadpoolWorkCallbacks(b, FALSE);
    CloseThreadpoolWork(a);
    CloseThreadpoolWork(b);
}

/* ---- timers and waits ---- */

static volatile LONG timer_calls;
static HANDLE timer_done;
static PTP_TIMER the_timer;
static volatile LONG timer_signal_at = 1;
static void CALLBACK timer_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_TIMER timer) {
    (void)inst;
    if (timer != the_timer || ctx != (PVOID)0x77) return;
    if (InterlockedIncrement(&timer_calls) == timer_signal_at) SetEvent(timer_done);
}

static volatile DWORD wait_result[4];
static volatile LONG wait_calls;
static HANDLE wait_done;
static void CALLBACK wait_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WAIT wait, TP_WAIT_RESULT result) {
    (void)inst, (void)ctx, (void)wait;
    LONG n = InterlockedIncrement(&wait_calls);
    if (n <= 4) wait_result[n - 1] = result;
    SetEvent(wait_done);
}

static FILETIME rel(LONGLONG ms) {
    ULARGE_INTEGER u;
    u.QuadPart = (ULONGLONG)(-ms * 10000);
    FILETIME f = {u.LowPart, u.HighPart};
    return f;
}

static void timer_wait_tests(void) {
    timer_done = CreateEventA(NULL, FALSE, FALSE, NULL);
    the_timer = CreateThreadpoolTimer(timer_cb, (PVOID)0x77, NULL);
    FILETIME due = rel(10);
    BOOL before = IsThreadpoolTimerSet(the_timer);
    SetThreadpoolTimer(the_timer, &due, 0, 0);
    BOOL set = IsThreadpoolTimerSet(the_timer);
    WaitForSingleObject(timer_done, INFINITE);
    WaitForThreadpoolTimerCallbacks(the_timer, FALSE);
    BOOL after = IsThreadpoolTimerSet(the_timer);
    printf("KERNEL32.dll!CreateThreadpoolTimer: KERNEL32.dll!SetThreadpoolTimer: KERNEL32.dll!IsThreadpoolTimerSet: "
           "before %d, set %d, after its one expiry %d (calls %ld)\n",
           before, set, after, timer_calls);
    timer_calls = 0;
    timer_signal_at = 3;
    due = rel(10);
    SetThreadpoolTimer(the_timer, &due, 10, 0);
    WaitForSingleObject(timer_done, INFINITE);
    SetThreadpoolTimer(the_timer, NULL, 0, 0);
    WaitForThreadpoolTimerCallbacks(the_timer, TRUE);
    LONG calls = timer_calls;
    Sleep(50);
    printf("KERNEL32.dll!WaitForThreadpoolTimerCallbacks: KERNEL32.dll!CloseThreadpoolTimer: a period of 10 ms: at "
           "least 3 calls %d, none after the timer stops %d\n",
           calls >= 3, timer_calls == calls);
    CloseThreadpoolTimer(the_timer);
    wait_done = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL), never = CreateEventA(NULL, FALSE, FALSE, NULL);
    PTP_WAIT w = CreateThreadpoolWait(wait_cb, NULL, NULL);
    SetThreadpoolWait(w, ev, NULL);
    SetEvent(ev);
    WaitForSingleObject(wait_done, INFINITE);
    FILETIME to = rel(10);
    SetThreadpoolWait(w, never, &to);
    WaitForSingleObject(wait_done, INFINITE);
    SetThreadpoolWait(w, ev, NULL);
    SetThreadpoolWait(w, NULL, NULL); /* stops it */
    SetEvent(ev);
    Sleep(50);
    WaitForThreadpoolWaitCallbacks(w, FALSE);
    printf("KERNEL32.dll!CreateThreadpoolWait: KERNEL32.dll!SetThreadpoolWait: KERNEL32.dll!WaitForThreadpoolWaitCallbacks: "
           "KERNEL32.dll!CloseThreadpoolWait: signalled %lu, timed out %lu, stopped: calls %ld, the event still set %lu\n",
           wait_result[0], wait_result[1], wait_calls, WaitForSingleObject(ev, 0));
    CloseThreadpoolWait(w);
    CloseHandle(ev);
    CloseHandle(never);
}

/* ---- pools, cleanup groups, instances ---- */

static HANDLE inst_event, inst_sem, inst_mutex;
static CRITICAL_SECTION inst_cs;
static BOOL may_run_long;
static void CALLBACK instance_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK work) {
    (void)ctx, (void)work;
    WaitForSingleObject(inst_mutex, INFINITE);
    EnterCriticalSection(&inst_cs);
    SetEventWhenCallbackReturns(inst, inst_event);
    ReleaseSemaphoreWhenCallbackReturns(inst, inst_sem, 2);
    ReleaseMutexWhenCallbackReturns(inst, inst_mutex);
    LeaveCriticalSectionWhenCallbackReturns(inst, &inst_cs);
    may_run_long = CallbackMayRunLong(inst);
}

static HANDLE dis_go;
static volatile LONG dis_finished;
static void CALLBACK disassociate_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK work) {
    (void)ctx, (void)work;
    DisassociateCurrentThreadFromCallback(inst);
    WaitForSingleObject(dis_go, INFINITE);
    dis_finished = 1;
}

static void CALLBACK note_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK work) {
    (void)inst, (void)work;
    note_thread();
    InterlockedIncrement((volatile LONG *)ctx);
    Sleep(5);
}

static void pool_tests(void) {
    PTP_POOL pool = CreateThreadpool(NULL);
    SetThreadpoolThreadMaximum(pool, 1);
    BOOL min = SetThreadpoolThreadMinimum(pool, 1);
    TP_CALLBACK_ENVIRON env;
    InitializeThreadpoolEnvironment(&env);
    SetThreadpoolCallbackPool(&env, pool);
    volatile LONG count = 0;
    PTP_WORK w = CreateThreadpoolWork(note_cb, (PVOID)&count, &env);
    reset_threads();
    for (int i = 0; i < 3; i++) SubmitThreadpoolWork(w);
    WaitForThreadpoolWorkCallbacks(w, FALSE);
    printf("KERNEL32.dll!CreateThreadpool: KERNEL32.dll!SetThreadpoolThreadMaximum: "
           "KERNEL32.dll!SetThreadpoolThreadMinimum: %d %d, 3 callbacks %ld on 1 thread %d\n",
           pool != NULL, min, count, distinct() == 1);
    CloseThreadpoolWork(w);
    PTP_CLEANUP_GROUP group = CreateThreadpoolCleanupGroup();
    SetThreadpoolCallbackCleanupGroup(&env, group, NULL);
    volatile LONG gcount = 0;
    for (int i = 0; i < 3; i++) SubmitThreadpoolWork(CreateThreadpoolWork(note_cb, (PVOID)&gcount, &env));
    CloseThreadpoolCleanupGroupMembers(group, FALSE, NULL);
    printf("KERNEL32.dll!CreateThreadpoolCleanupGroup: KERNEL32.dll!CloseThreadpoolCleanupGroupMembers: "
           "KERNEL32.dll!CloseThreadpoolCleanupGroup: %d, waits for its members' callbacks: %ld\n",
           group != NULL, gcount);
    CloseThreadpoolCleanupGroup(group);
    DestroyThreadpoolEnvironment(&env);
    CloseThreadpool(pool);
    inst_event = CreateEventA(NULL, TRUE, FALSE, NULL);
    inst_sem = CreateSemaphoreA(NULL, 0, 5, NULL);
    inst_mutex = CreateMutexA(NULL, FALSE, NULL);
    InitializeCriticalSection(&inst_cs);
    PTP_WORK iw = CreateThreadpoolWork(instance_cb, NULL, NULL);
    SubmitThreadpoolWork(iw);
    WaitForThreadpoolWorkCallbacks(iw, FALSE);
    LONG prev = -1;
    ReleaseSemaphore(inst_sem, 1, &prev);
    DWORD mw = WaitForSingleObject(inst_mutex, 0);
    BOOL cs = TryEnterCriticalSection(&inst_cs);
    printf("KERNEL32.dll!SetEventWhenCallbackReturns: %lu; KERNEL32.dll!ReleaseSemaphoreWhenCallbackReturns: %ld; "
           "KERNEL32.dll!ReleaseMutexWhenCallbackReturns: %lu; KERNEL32.dll!LeaveCriticalSectionWhenCallbackReturns: %d; "
           "KERNEL32.dll!CallbackMayRunLong: %d\n",
           WaitForSingleObject(inst_event, 0), prev, mw, cs, may_run_long);
    CloseThreadpoolWork(iw);
    dis_go = CreateEventA(NULL, TRUE, FALSE, NULL);
    PTP_WORK dw = CreateThreadpoolWork(disassociate_cb, NULL, NULL);
    SubmitThreadpoolWork(dw);
    Sleep(20);
    WaitForThreadpoolWorkCallbacks(dw, FALSE); /* returns although the callback still runs */
    LONG before = dis_finished;
    SetEvent(dis_go);
    Sleep(20);
    printf("KERNEL32.dll!DisassociateCurrentThreadFromCallback: the wait for callbacks returns while it runs %d, then it "
           "finishes %ld\n",
           before == 0, dis_finished);
    CloseThreadpoolWork(dw);
}

/* ---- the legacy pool ---- */

static volatile PVOID legacy_ctx;
static HANDLE legacy_done;
static DWORD WINAPI legacy_cb(LPVOID ctx) {
    legacy_ctx = ctx;
    SetEvent(legacy_done);
    return 0;
}

static volatile LONG rw_calls, rw_timeouts;
static HANDLE rw_done;
static void CALLBACK rw_cb(PVOID ctx, BOOLEAN timer_fired) {
    (void)ctx;
    if (timer_fired) rw_timeouts++;
    if (InterlockedIncrement(&rw_calls) >= 3) SetEvent(rw_done);
}

static void legacy_tests(int timeouts) {
    legacy_done = CreateEventA(NULL, FALSE, FALSE, NULL);
    BOOL q = QueueUserWorkItem(legacy_cb, (PVOID)0x88, WT_EXECUTEDEFAULT);
    DWORD w = WaitForSingleObject(legacy_done, INFINITE);
    printf("KERNEL32.dll!QueueUserWorkItem: %d, ran %lu with its context %d\n", q, w, legacy_ctx == (PVOID)0x88);
    rw_done = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL), h = NULL;
    BOOL r = RegisterWaitForSingleObject(&h, ev, rw_cb, NULL, INFINITE, 0);
    for (int i = 0; i < 3; i++) {
        SetEvent(ev);
        Sleep(20);
    }
    WaitForSingleObject(rw_done, INFINITE);
    BOOL u = UnregisterWaitEx(h, INVALID_HANDLE_VALUE);
    printf("KERNEL32.dll!RegisterWaitForSingleObject: KERNEL32.dll!UnregisterWaitEx: %d, a repeating wait's callbacks "
           "%ld (timeouts %ld), unregistered %d\n",
           r, rw_calls, rw_timeouts, u);
    if (timeouts) { /* Wine 8.0 does not end this wait (its timeout is not re-armed after a callback) */
        rw_calls = rw_timeouts = 0;
        r = RegisterWaitForSingleObject(&h, ev, rw_cb, NULL, 10, 0);
        WaitForSingleObject(rw_done, INFINITE);
        u = UnregisterWaitEx(h, INVALID_HANDLE_VALUE);
        printf("KERNEL32.dll!RegisterWaitForSingleObject: a 10 ms timeout repeats: %d, callbacks with "
               "TimerOrWaitFired TRUE %d, unregistered %d\n",
               r, rw_timeouts >= 3, u);
    }
    rw_calls = 0;
    r = RegisterWaitForSingleObject(&h, ev, rw_cb, NULL, INFINITE, WT_EXECUTEONLYONCE);
    SetEvent(ev);
    Sleep(50);
    SetEvent(ev);
    Sleep(50);
    u = UnregisterWait(h);
    printf("KERNEL32.dll!UnregisterWait: WT_EXECUTEONLYONCE: %d, one callback %ld, unregistered %d, the second signal "
           "left %lu\n",
           r, rw_calls, u, WaitForSingleObject(ev, 0));
    CloseHandle(ev);
}

int main(int argc, char **argv) {
    work_tests();
    worker_schedule();
    timer_wait_tests();
    pool_tests();
    legacy_tests(!(argc > 1 && strcmp(argv[1], "no-repeating-timeout") == 0));
    return 0;
}
