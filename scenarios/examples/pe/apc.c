/* apc.c — user APCs, alertable waits, waitable timers and timer queues
 * (scenarios/tests/pe_apc.sh; api/README.md "APCs and timers").  Each line is "DLL!Function: what =
 * value", independent of the schedule; lines starting "sim " are hcpsim's exact schedule (and
 * "sim n/a" under Wine). */
#include <stdio.h>
#include <string.h>
#include <windows.h>

typedef LONG NTSTATUS;
static NTSTATUS(NTAPI *pNtQueueApcThread)(HANDLE, PVOID, ULONG_PTR, ULONG_PTR, ULONG_PTR);
static NTSTATUS(NTAPI *pNtTestAlert)(void);
static NTSTATUS(NTAPI *pNtDelayExecution)(BOOLEAN, PLARGE_INTEGER);
static NTSTATUS(NTAPI *pNtWaitForSingleObject)(HANDLE, BOOLEAN, PLARGE_INTEGER);

/* The HCP dispatch data of the calling thread around a wait: "sim" lines (Wine: its HCP functions
 * are stubs that end the process, so none are read there). */
static int is_wine(void) { return GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL; }
static HANDLE prof_begin(void) {
    HANDLE ph = NULL;
    if (is_wine() || EnableThreadProfiling(GetCurrentThread(), THREAD_PROFILING_FLAG_DISPATCH, 0, &ph) != ERROR_SUCCESS)
        return NULL;
    return ph;
}
static void prof_end(HANDLE ph, char *out, size_t cap) {
    if (!ph) {
        snprintf(out, cap, "sim n/a");
        return;
    }
    PERFORMANCE_DATA pd = {0};
    pd.Size = sizeof pd;
    pd.Version = PERFORMANCE_DATA_VERSION;
    ReadThreadProfilingData(ph, READ_THREAD_PROFILING_FLAG_DISPATCHING, &pd);
    DisableThreadProfiling(ph);
    snprintf(out, cap, "switch-ins %lu, wait reasons 0x%llx", pd.ContextSwitchCount,
             (unsigned long long)pd.WaitReasonBitMap);
}

static char seq[64];
static int nseq;
static DWORD apc_thread;

static void note(char c) {
    if (nseq < (int)sizeof seq - 1) seq[nseq++] = c, seq[nseq] = 0;
}
static void reset(void) { nseq = 0, seq[0] = 0; }

static void CALLBACK apc_note(ULONG_PTR c) {
    note((char)c);
    apc_thread = GetCurrentThreadId();
}
static void CALLBACK apc_queues(ULONG_PTR c) { /* queues another: it runs before the wait returns */
    note((char)c);
    QueueUserAPC(apc_note, GetCurrentThread(), (ULONG_PTR)'b');
}
static void CALLBACK apc_nested(ULONG_PTR c) { /* waits alertably itself: the other APC runs inside */
    note((char)c);
    note('[');
    DWORD r = SleepEx(0, TRUE);
    note(r == WAIT_IO_COMPLETION ? ']' : '?');
}
static ULONG_PTR nt_args[3];
static void NTAPI apc3(ULONG_PTR a, ULONG_PTR b, ULONG_PTR c) {
    nt_args[0] = a, nt_args[1] = b, nt_args[2] = c;
    note('n');
}

static HANDLE ready;
static char sleeper_sched[96];
static DWORD WINAPI alertable_sleeper(LPVOID p) {
    HANDLE ph = prof_begin();
    SetEvent(ready);
    DWORD r = SleepEx(INFINITE, TRUE);
    prof_end(ph, sleeper_sched, sizeof sleeper_sched);
    *(DWORD *)p = r;
    return 0;
}

static void apc_tests(void) {
    DWORD me = GetCurrentThreadId();
    reset();
    QueueUserAPC(apc_note, GetCurrentThread(), '1');
    QueueUserAPC(apc_note, GetCurrentThread(), '2');
    QueueUserAPC(apc_note, GetCurrentThread(), '3');
    Sleep(10);
    SleepEx(10, FALSE);
    int before = nseq;
    DWORD r = SleepEx(0, TRUE);
    printf("KERNEL32.dll!QueueUserAPC: KERNEL32.dll!SleepEx: not alertable runs none (%d); alertable runs them in order "
           "(%s) on the caller (%d), then %lu\n",
           before, seq, apc_thread == me, r);
    HANDLE set = CreateEventA(NULL, TRUE, TRUE, NULL), unset = CreateEventA(NULL, TRUE, FALSE, NULL);
    reset();
    QueueUserAPC(apc_note, GetCurrentThread(), 'x');
    DWORD w1 = WaitForSingleObjectEx(set, 0, TRUE);
    int after1 = nseq;
    DWORD w2 = WaitForSingleObjectEx(unset, INFINITE, TRUE);
    printf("KERNEL32.dll!WaitForSingleObjectEx: a signalled object before an APC %lu (ran %d); then %lu (%s)\n", w1,
           after1, w2, seq);
    reset();
    QueueUserAPC(apc_note, GetCurrentThread(), 'm');
    HANDLE two[2] = {unset, unset};
    DWORD w3 = WaitForMultipleObjectsEx(1, two, FALSE, INFINITE, TRUE);
    printf("KERNEL32.dll!WaitForMultipleObjectsEx: %lu (%s)\n", w3, seq);
    reset();
    QueueUserAPC(apc_queues, GetCurrentThread(), 'a');
    DWORD w4 = SleepEx(INFINITE, TRUE);
    printf("KERNEL32.dll!QueueUserAPC: an APC that queues one: both run (%s), %lu\n", seq, w4);
    reset();
    QueueUserAPC(apc_nested, GetCurrentThread(), '1');
    QueueUserAPC(apc_note, GetCurrentThread(), '2');
    DWORD w5 = SleepEx(0, TRUE);
    printf("KERNEL32.dll!SleepEx: an APC that waits alertably runs the next inside its wait (%s), %lu\n", seq, w5);
    reset();
    QueueUserAPC(apc_note, GetCurrentThread(), 's');
    HANDLE other = CreateEventA(NULL, TRUE, FALSE, NULL);
    DWORD w6 = SignalObjectAndWait(other, unset, INFINITE, TRUE);
    printf("KERNEL32.dll!SignalObjectAndWait: alertable %lu (%s), the object signalled %lu\n", w6, seq,
           WaitForSingleObject(other, 0));
    CloseHandle(other);
    ready = CreateEventA(NULL, FALSE, FALSE, NULL);
    DWORD got = 0;
    HANDLE t = CreateThread(NULL, 0, alertable_sleeper, &got, 0, NULL);
    WaitForSingleObject(ready, INFINITE);
    Sleep(20); /* it sleeps now */
    reset();
    apc_thread = 0;
    QueueUserAPC(apc_note, t, 'w');
    WaitForSingleObject(t, INFINITE);
    printf("KERNEL32.dll!QueueUserAPC: to a thread in an alertable wait: it runs there (%d, %s), the wait returns %lu\n",
           apc_thread == GetThreadId(t), seq, got);
    printf("sim the sleeper woken by the APC: %s\n", sleeper_sched);
    BOOL dead = QueueUserAPC(apc_note, t, 'z');
    DWORD de = GetLastError();
    CloseHandle(t);
    HANDLE weak = OpenThread(THREAD_QUERY_INFORMATION, FALSE, me);
    BOOL denied = QueueUserAPC(apc_note, weak, 'z');
    DWORD ae = GetLastError();
    CloseHandle(weak);
    printf("KERNEL32.dll!QueueUserAPC: to a thread that ended %d error %lu; without THREAD_SET_CONTEXT %d error %lu\n",
           dead, de, denied, ae);
    reset();
    NTSTATUS q = pNtQueueApcThread(GetCurrentThread(), (PVOID)apc3, 11, 22, 33);
    NTSTATUS ta = pNtTestAlert();
    printf("ntdll.dll!NtQueueApcThread: 0x%lx; ntdll.dll!NtTestAlert: runs it (%s, %lu %lu %lu), 0x%lx\n", q, seq,
           (unsigned long)nt_args[0], (unsigned long)nt_args[1], (unsigned long)nt_args[2], ta);
    reset();
    LARGE_INTEGER to;
    to.QuadPart = -100000;
    QueueUserAPC(apc_note, GetCurrentThread(), 'd');
    NTSTATUS nd = pNtDelayExecution(TRUE, &to);
    QueueUserAPC(apc_note, GetCurrentThread(), 'o');
    NTSTATUS no = pNtWaitForSingleObject(unset, TRUE, NULL);
    printf("ntdll.dll!NtDelayExecution: ntdll.dll!NtWaitForSingleObject: alertable with an APC 0x%lx 0x%lx (%s)\n", nd,
           no, seq);
    CloseHandle(set);
    CloseHandle(unset);
}

/* ---- waitable timers ---- */

static int routine_calls;
static DWORD routine_arg;
static ULONGLONG routine_times[8];
static void CALLBACK timer_routine(LPVOID arg, DWORD lo, DWORD hi) {
    routine_arg = (DWORD)(ULONG_PTR)arg;
    if (routine_calls < 8) routine_times[routine_calls] = ((ULONGLONG)hi << 32) | lo;
    routine_calls++;
}

static LARGE_INTEGER rel_ms(LONGLONG ms) {
    LARGE_INTEGER t;
    t.QuadPart = -ms * 10000;
    return t;
}

static void timer_tests(void) {
    HANDLE m = CreateWaitableTimerW(NULL, TRUE, NULL);
    LARGE_INTEGER due = rel_ms(10);
    BOOL s = SetWaitableTimer(m, &due, 0, NULL, NULL, FALSE);
    DWORD w0 = WaitForSingleObject(m, 0);
    HANDLE ph = prof_begin();
    DWORD w1 = WaitForSingleObject(m, INFINITE);
    char sched[96];
    prof_end(ph, sched, sizeof sched);
    DWORD w2 = WaitForSingleObject(m, 0);
    printf("KERNEL32.dll!CreateWaitableTimerW: KERNEL32.dll!SetWaitableTimer: manual reset: set %d, before %lu, waits "
           "%lu, stays signalled %lu\n",
           s, w0, w1, w2);
    printf("sim the wait for the timer: %s\n", sched);
    HANDLE a = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
    due = rel_ms(10);
    SetWaitableTimer(a, &due, 0, NULL, NULL, FALSE);
    w1 = WaitForSingleObject(a, INFINITE);
    w2 = WaitForSingleObject(a, 0);
    printf("KERNEL32.dll!CreateWaitableTimerExW: a synchronization timer: waits %lu, then reset %lu\n", w1, w2);
    due = rel_ms(10);
    SetWaitableTimer(a, &due, 20, timer_routine, (LPVOID)7, FALSE);
    DWORD r[3];
    for (int i = 0; i < 3; i++) r[i] = SleepEx(INFINITE, TRUE);
    CancelWaitableTimer(a);
    int increasing = routine_times[0] < routine_times[1] && routine_times[1] < routine_times[2];
    FILETIME now;
    GetSystemTimeAsFileTime(&now);
    ULONGLONG nw = ((ULONGLONG)now.dwHighDateTime << 32) | now.dwLowDateTime;
    printf("KERNEL32.dll!SetWaitableTimer: a period and a completion routine: %lu %lu %lu, calls %d, arg %lu, times "
           "increasing %d and past %d\n",
           r[0], r[1], r[2], routine_calls, routine_arg, increasing, routine_times[2] <= nw + 156250);
    WaitForSingleObject(a, 0); /* drop a signal left by the last period */
    DWORD c = WaitForSingleObject(a, 50);
    printf("KERNEL32.dll!CancelWaitableTimer: no more expiries: %lu\n", c);
    routine_calls = 0;
    due = rel_ms(10);
    SetWaitableTimer(a, &due, 0, timer_routine, (LPVOID)8, FALSE);
    Sleep(50); /* it expires: its routine is queued to this thread, which is not alertable */
    CancelWaitableTimer(a);
    DWORD z = SleepEx(0, TRUE);
    printf("KERNEL32.dll!CancelWaitableTimer: cancels an outstanding completion routine: %lu, calls %d\n", z,
           routine_calls);
    SetLastError(0);
    due = rel_ms(10);
    BOOL rs = SetWaitableTimer(a, &due, 0, NULL, NULL, TRUE);
    DWORD re = GetLastError();
    WaitForSingleObject(a, INFINITE);
    SetLastError(0);
    BOOL bad = SetWaitableTimer(a, &due, -1, NULL, NULL, FALSE);
    DWORD be = GetLastError();
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    BOOL notimer = SetWaitableTimer(ev, &due, 0, NULL, NULL, FALSE);
    DWORD ne = GetLastError();
    printf("KERNEL32.dll!SetWaitableTimer: fResume %d error %lu; a negative period %d error %lu; an event %d error %lu\n",
           rs, re, bad, be, notimer, ne);
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    LARGE_INTEGER abs;
    abs.LowPart = ft.dwLowDateTime;
    abs.HighPart = (LONG)ft.dwHighDateTime;
    abs.QuadPart += 200000; /* 20 ms from now, absolute */
    SetWaitableTimer(a, &abs, 0, NULL, NULL, FALSE);
    DWORD wa = WaitForSingleObject(a, 5), wb = WaitForSingleObject(a, INFINITE);
    printf("KERNEL32.dll!SetWaitableTimerEx: an absolute due time: not yet %lu, then %lu\n", wa, wb);
    due = rel_ms(10);
    BOOL sx = SetWaitableTimerEx(a, &due, 0, NULL, NULL, NULL, 0);
    printf("KERNEL32.dll!SetWaitableTimerEx: %d, waits %lu\n", sx, WaitForSingleObject(a, INFINITE));
    HANDLE n1 = CreateWaitableTimerA(NULL, FALSE, "k33.timer");
    HANDLE n2 = CreateWaitableTimerA(NULL, FALSE, "k33.timer");
    DWORD ee = GetLastError();
    HANDLE n3 = OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, "k33.timer");
    HANDLE n4 = OpenWaitableTimerW(SYNCHRONIZE, FALSE, L"k33.timer");
    HANDLE n5 = CreateWaitableTimerExA(NULL, "k33.timer2", CREATE_WAITABLE_TIMER_MANUAL_RESET, TIMER_ALL_ACCESS);
    printf("KERNEL32.dll!CreateWaitableTimerA: KERNEL32.dll!OpenWaitableTimerA: KERNEL32.dll!OpenWaitableTimerW: "
           "KERNEL32.dll!CreateWaitableTimerExA: again %d error %lu; open %d %d; ex %d\n",
           n2 != NULL, ee, n3 != NULL, n4 != NULL, n5 != NULL);
    CloseHandle(n1), CloseHandle(n2), CloseHandle(n3), CloseHandle(n4), CloseHandle(n5);
    CloseHandle(ev), CloseHandle(a), CloseHandle(m);
}

/* ---- timer queues ---- */

static volatile LONG tq_calls;
static volatile DWORD tq_thread;
static volatile BOOLEAN tq_fired;
static HANDLE tq_done;
static void CALLBACK tq_cb(PVOID param, BOOLEAN fired) {
    tq_thread = GetCurrentThreadId();
    tq_fired = fired;
    if (InterlockedIncrement(&tq_calls) == (LONG)(ULONG_PTR)param) SetEvent(tq_done);
}

static void timer_queue_tests(void) {
    tq_done = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE q = CreateTimerQueue(), t = NULL;
    BOOL c = CreateTimerQueueTimer(&t, q, tq_cb, (PVOID)1, 10, 0, 0);
    DWORD w = WaitForSingleObject(tq_done, INFINITE);
    printf("KERNEL32.dll!CreateTimerQueue: KERNEL32.dll!CreateTimerQueueTimer: %d %d, its callback %lu on another thread "
           "%d, TimerOrWaitFired %d\n",
           q != NULL, c, w, tq_thread != GetCurrentThreadId(), tq_fired);
    BOOL d = DeleteTimerQueueTimer(q, t, INVALID_HANDLE_VALUE);
    tq_calls = 0;
    CreateTimerQueueTimer(&t, q, tq_cb, (PVOID)3, 10, 10, WT_EXECUTEINTIMERTHREAD);
    w = WaitForSingleObject(tq_done, INFINITE);
    BOOL d2 = DeleteTimerQueueTimer(q, t, INVALID_HANDLE_VALUE);
    LONG calls = tq_calls;
    Sleep(50);
    printf("KERNEL32.dll!DeleteTimerQueueTimer: %d; a periodic timer in the timer thread: 3 calls %lu, deleted %d, no "
           "more %d\n",
           d, w, d2, tq_calls == calls);
    tq_calls = 0;
    CreateTimerQueueTimer(&t, q, tq_cb, (PVOID)1, 100000, 0, 0);
    BOOL ch = ChangeTimerQueueTimer(q, t, 10, 0);
    w = WaitForSingleObject(tq_done, 5000);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    BOOL dq = DeleteTimerQueueEx(q, ev);
    printf("KERNEL32.dll!ChangeTimerQueueTimer: %d, brings it to 10 ms: %lu; KERNEL32.dll!DeleteTimerQueueEx: %d, its "
           "event %lu\n",
           ch, w, dq, WaitForSingleObject(ev, 1000));
    tq_calls = 0;
    HANDLE d3 = CreateTimerQueue();
    CreateTimerQueueTimer(&t, NULL, tq_cb, (PVOID)1, 10, 0, WT_EXECUTEONLYONCE);
    w = WaitForSingleObject(tq_done, INFINITE);
    BOOL dd = DeleteTimerQueueTimer(NULL, t, INVALID_HANDLE_VALUE);
    BOOL dn = DeleteTimerQueue(d3);
    printf("KERNEL32.dll!DeleteTimerQueue: the default queue's timer %lu, deleted %d; an empty queue %d\n", w, dd, dn);
    CloseHandle(ev);
    CloseHandle(tq_done);
}

int main(void) {
    HMODULE nt = GetModuleHandleA("ntdll.dll");
    *(FARPROC *)&pNtQueueApcThread = GetProcAddress(nt, "NtQueueApcThread");
    *(FARPROC *)&pNtTestAlert = GetProcAddress(nt, "NtTestAlert");
    *(FARPROC *)&pNtDelayExecution = GetProcAddress(nt, "NtDelayExecution");
    *(FARPROC *)&pNtWaitForSingleObject = GetProcAddress(nt, "NtWaitForSingleObject");
    if (!pNtQueueApcThread || !pNtTestAlert || !pNtDelayExecution || !pNtWaitForSingleObject) return 1;
    apc_tests();
    timer_tests();
    timer_queue_tests();
    return 0;
}
