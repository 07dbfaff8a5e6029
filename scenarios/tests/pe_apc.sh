#!/bin/sh
# User APCs, alertable waits, waitable timers and timer queues (api/README.md "APCs and timers") on
# scenarios/examples/pe/apc.c, x86-64 and i386, one CPU.  Expected lines and their sources:
#  - "Asynchronous Procedure Calls": a user APC runs only when its thread enters an alertable wait
#    (SleepEx, WaitForSingleObjectEx, WaitForMultipleObjectsEx, SignalObjectAndWait with bAlertable
#    TRUE), on that thread, all of them (FIFO: 123, and one queued by an APC: ab), before the wait
#    returns WAIT_IO_COMPLETION (192); a wait that an object satisfies returns WAIT_OBJECT_0 (0)
#    and runs none (WaitForSingleObjectEx: "the function returns ... when the object is
#    signaled"; KeWaitForSingleObject tests the object before the alert); an APC that waits
#    alertably runs the next one inside its wait (1[2]); SignalObjectAndWait signals before it
#    waits.  QueueUserAPC to a thread that has ended fails (NtQueueApcThread's
#    STATUS_UNSUCCESSFUL: ERROR_GEN_FAILURE, 31, as Wine's), without THREAD_SET_CONTEXT with
#    ERROR_ACCESS_DENIED (5).  NtQueueApcThread passes its three arguments; NtTestAlert runs the
#    queued APCs and returns STATUS_SUCCESS; an alertable NtDelayExecution or NtWaitForSingleObject
#    returns STATUS_USER_APC (0xc0).
#  - waitable timers ("Waitable Timer Objects", SetWaitableTimer): a manual-reset timer stays
#    signalled, a synchronization timer resets when a wait takes it (258 after); a periodic timer
#    queues its completion routine to the setting thread at each expiry with its argument and the
#    UTC time it was signalled (increasing, not in the future); CancelWaitableTimer stops it and
#    "cancels outstanding APCs"; fResume on a system without resume succeeds with
#    ERROR_NOT_SUPPORTED (50); a negative period fails (ERROR_INVALID_PARAMETER, 87); a handle of
#    another type ERROR_INVALID_HANDLE (6); an absolute due time is honoured; a second Create of a
#    name gives ERROR_ALREADY_EXISTS (183); Open* find it.
#  - timer queues (CreateTimerQueueTimer): the callback runs on a pool thread, not the caller,
#    with TimerOrWaitFired TRUE; WT_EXECUTEINTIMERTHREAD runs it on the timer thread; a periodic
#    timer fires until deleted, DeleteTimerQueueTimer(INVALID_HANDLE_VALUE) waits for its callback;
#    ChangeTimerQueueTimer moves it; DeleteTimerQueueEx and DeleteTimerQueue succeed when no
#    callback runs (Windows Vista and later, as Wine's tests record).
# The schedule ("sim" lines, one CPU): the sleeper enables profiling, sets `ready` and sleeps
# alertably (it leaves its CPU: DelayExecution, 4); main, readied by `ready`, sleeps 20 ms, then
# queues the APC (the sleeper becomes Ready) and waits for the sleeper: the sleeper is switched
# in once, after its DelayExecution wait: 1, 1 << 4 = 0x10.  Main's wait for the manual timer
# (UserRequest, 6) with no other thread left: the CPU idles until the timer expires at a clock
# interrupt, and main is switched in once: 1, 1 << 6 = 0x40.
# Wine is compared in pe_families_wine.sh.
CLAUSE=PE-APC
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
cat > want.txt <<EOT
KERNEL32.dll!QueueUserAPC: KERNEL32.dll!SleepEx: not alertable runs none (0); alertable runs them in order (123) on the caller (1), then 192
KERNEL32.dll!WaitForSingleObjectEx: a signalled object before an APC 0 (ran 0); then 192 (x)
KERNEL32.dll!WaitForMultipleObjectsEx: 192 (m)
KERNEL32.dll!QueueUserAPC: an APC that queues one: both run (ab), 192
KERNEL32.dll!SleepEx: an APC that waits alertably runs the next inside its wait (1[2]), 192
KERNEL32.dll!SignalObjectAndWait: alertable 192 (s), the object signalled 0
KERNEL32.dll!QueueUserAPC: to a thread in an alertable wait: it runs there (1, w), the wait returns 192
sim the sleeper woken by the APC: switch-ins 1, wait reasons 0x10
KERNEL32.dll!QueueUserAPC: to a thread that ended 0 error 31; without THREAD_SET_CONTEXT 0 error 5
ntdll.dll!NtQueueApcThread: 0x0; ntdll.dll!NtTestAlert: runs it (n, 11 22 33), 0x0
ntdll.dll!NtDelayExecution: ntdll.dll!NtWaitForSingleObject: alertable with an APC 0xc0 0xc0 (do)
KERNEL32.dll!CreateWaitableTimerW: KERNEL32.dll!SetWaitableTimer: manual reset: set 1, before 258, waits 0, stays signalled 0
sim the wait for the timer: switch-ins 1, wait reasons 0x40
KERNEL32.dll!CreateWaitableTimerExW: a synchronization timer: waits 0, then reset 258
KERNEL32.dll!SetWaitableTimer: a period and a completion routine: 192 192 192, calls 3, arg 7, times increasing 1 and past 1
KERNEL32.dll!CancelWaitableTimer: no more expiries: 258
KERNEL32.dll!CancelWaitableTimer: cancels an outstanding completion routine: 0, calls 0
KERNEL32.dll!SetWaitableTimer: fResume 1 error 50; a negative period 0 error 87; an event 0 error 6
KERNEL32.dll!SetWaitableTimerEx: an absolute due time: not yet 258, then 0
KERNEL32.dll!SetWaitableTimerEx: 1, waits 0
KERNEL32.dll!CreateWaitableTimerA: KERNEL32.dll!OpenWaitableTimerA: KERNEL32.dll!OpenWaitableTimerW: KERNEL32.dll!CreateWaitableTimerExA: again 1 error 183; open 1 1; ex 1
KERNEL32.dll!CreateTimerQueue: KERNEL32.dll!CreateTimerQueueTimer: 1 1, its callback 0 on another thread 1, TimerOrWaitFired 1
KERNEL32.dll!DeleteTimerQueueTimer: 1; a periodic timer in the timer thread: 3 calls 0, deleted 1, no more 1
KERNEL32.dll!ChangeTimerQueueTimer: 1, brings it to 10 ms: 0; KERNEL32.dll!DeleteTimerQueueEx: 1, its event 0
KERNEL32.dll!DeleteTimerQueue: the default queue's timer 0, deleted 1; an empty queue 1
EOT
for bits in 64 32; do
  pe_expect apc $bits want.txt
  pe_twice apc $bits
done
echo "1..$n"
exit $((fail > 0))
