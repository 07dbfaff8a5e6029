#!/bin/sh
# The thread pool (api/README.md "The thread pool") on scenarios/examples/pe/pool.c, x86-64 and
# i386, one CPU.  Expected lines and their sources ("Thread Pools", "Thread Pool API" and each
# function's page; Wine's ntdll threadpool tests where a page is silent):
#  - work: every submitted callback runs, with (instance, context, work), on a worker, not the
#    caller; WaitForThreadpoolWorkCallbacks waits for them; with fCancelPendingCallbacks TRUE
#    "pending callbacks that have not yet started are canceled" (a pool of one thread, whose first
#    callback runs: 1 ran); TrySubmitThreadpoolCallback runs its callback with its context.
#  - timers: IsThreadpoolTimerSet is FALSE before SetThreadpoolTimer, TRUE after, and stays TRUE
#    after a one-shot timer's expiry (Wine's TpIsTimerSet tests, which Windows passes); a 10 ms
#    period fires repeatedly until SetThreadpoolTimer(NULL) stops it.
#  - waits: the callback gets WAIT_OBJECT_0 (0) when its object is signalled, WAIT_TIMEOUT (258)
#    after pftTimeout; a wait fires once per SetThreadpoolWait; SetThreadpoolWait(NULL) stops it
#    (the event stays set: 0).
#  - pools and groups: a pool with at most one thread runs 3 callbacks on one thread;
#    CloseThreadpoolCleanupGroupMembers "waits for all callback functions to complete".
#  - instances: the *WhenCallbackReturns actions happen when the callback returns (the event set:
#    0; the semaphore's count 2: ReleaseSemaphore's previous count; the mutex free: 0; the
#    section free: 1); CallbackMayRunLong TRUE (a thread is available); after
#    DisassociateCurrentThreadFromCallback the wait for callbacks no longer waits for it.
#  - the legacy pool: QueueUserWorkItem runs its function with its context;
#    RegisterWaitForSingleObject calls back at each signal (TimerOrWaitFired FALSE) and, with a
#    timeout, at each timeout (TRUE) "until the wait is unregistered"; WT_EXECUTEONLYONCE: once,
#    a later signal left to the object; UnregisterWaitEx(INVALID_HANDLE_VALUE) and UnregisterWait
#    with no callback running succeed.
# The schedule ("sim" lines, one CPU, the policy of api/README.md): the first of 5 callbacks
# submitted at once finds no idle worker and no running or ready one: worker 1 is made; the
# other 4 find worker 1 ready (as many as the machine's CPUs: 1), so they queue, and worker 1 runs
# all 5 (none blocks): 1 worker.  An idle worker (waiting for work: WrQueue, 15) enables
# profiling in one callback and returns; main submits the next callback, which goes to that idle
# worker, and waits: the worker is switched in once, after its WrQueue wait: 1, 1 << 15 =
# 0x8000.  The run report names the workers PROGRAM.exe#workerN and the waiter thread
# PROGRAM.exe#waiter1, with their WrQueue and UserRequest waits.
# Wine is compared in pe_families_wine.sh.
CLAUSE=PE-POOL
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
cat > want.txt <<EOT
KERNEL32.dll!CreateThreadpoolWork: KERNEL32.dll!SubmitThreadpoolWork: KERNEL32.dll!WaitForThreadpoolWorkCallbacks: 1, 5 submitted, 5 ran with their arguments on workers (bad 0)
sim workers used by 5 callbacks submitted at once on one CPU: 1
KERNEL32.dll!CloseThreadpoolWork: KERNEL32.dll!WaitForThreadpoolWorkCallbacks: cancelling drops the 5 queued callbacks and waits for the running one: ran 1, none after 1
KERNEL32.dll!TrySubmitThreadpoolCallback: 1, ran 0 with its context 1
sim an idle worker woken for the next callback: switch-ins 1, wait reasons 0x8000
KERNEL32.dll!CreateThreadpoolTimer: KERNEL32.dll!SetThreadpoolTimer: KERNEL32.dll!IsThreadpoolTimerSet: before 0, set 1, after its one expiry 1 (calls 1)
KERNEL32.dll!WaitForThreadpoolTimerCallbacks: KERNEL32.dll!CloseThreadpoolTimer: a period of 10 ms: at least 3 calls 1, none after the timer stops 1
KERNEL32.dll!CreateThreadpoolWait: KERNEL32.dll!SetThreadpoolWait: KERNEL32.dll!WaitForThreadpoolWaitCallbacks: KERNEL32.dll!CloseThreadpoolWait: signalled 0, timed out 258, stopped: calls 2, the event still set 0
KERNEL32.dll!CreateThreadpool: KERNEL32.dll!SetThreadpoolThreadMaximum: KERNEL32.dll!SetThreadpoolThreadMinimum: 1 1, 3 callbacks 3 on 1 thread 1
KERNEL32.dll!CreateThreadpoolCleanupGroup: KERNEL32.dll!CloseThreadpoolCleanupGroupMembers: KERNEL32.dll!CloseThreadpoolCleanupGroup: 1, waits for its members' callbacks: 3
KERNEL32.dll!SetEventWhenCallbackReturns: 0; KERNEL32.dll!ReleaseSemaphoreWhenCallbackReturns: 2; KERNEL32.dll!ReleaseMutexWhenCallbackReturns: 0; KERNEL32.dll!LeaveCriticalSectionWhenCallbackReturns: 1; KERNEL32.dll!CallbackMayRunLong: 1
KERNEL32.dll!DisassociateCurrentThreadFromCallback: the wait for callbacks returns while it runs 1, then it finishes 1
KERNEL32.dll!QueueUserWorkItem: 1, ran 0 with its context 1
KERNEL32.dll!RegisterWaitForSingleObject: KERNEL32.dll!UnregisterWaitEx: 1, a repeating wait's callbacks 3 (timeouts 0), unregistered 1
KERNEL32.dll!RegisterWaitForSingleObject: a 10 ms timeout repeats: 1, callbacks with TimerOrWaitFired TRUE 1, unregistered 1
KERNEL32.dll!UnregisterWait: WT_EXECUTEONLYONCE: 1, one callback 1, unregistered 1, the second signal left 0
EOT
for bits in 64 32; do
  pe_expect pool $bits want.txt
  pe_twice pool $bits
  $HCPSIM run --report r$bits.json "pool$bits.exe" > /dev/null 2>&1
  perl -MJSON::PP -e '
    my ($f, $p) = @ARGV;
    local $/;
    open my $h, "<", $f or exit 1;
    my %t = map { $_->{name} => $_ } @{ decode_json(<$h>)->{machines}[0]{threads} };
    my $w1 = $t{"$p#worker1"};
    exit !($w1 && $w1->{switches}{out}{WrQueue} && $t{"$p#waiter1"} && $t{"$p#1"} &&
           $t{"$p#worker2"} && $t{"$p#worker2"}{switches}{exit} == 1 &&
           $t{"$p#worker3"} && $t{"$p#worker3"}{switches}{exit} == 1 && $w1->{switches}{exit} == 0);
  ' r$bits.json pool$bits.exe
  result $? "pool$bits.exe: KERNEL32.dll!CloseThreadpool: the run report lists the pool's threads (pool$bits.exe\\#worker1 with its WrQueue waits, pool$bits.exe\\#waiter1, CreateThread's pool$bits.exe\\#1); the workers of the two pools closed (\\#worker2, \\#worker3) end on their own, the default pool's at ExitProcess"
done
echo "1..$n"
exit $((fail > 0))
