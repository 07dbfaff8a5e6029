#!/bin/sh
# Windows' user-mode synchronisation (api/README.md "Synchronisation") on
# scenarios/examples/pe/sync.c, x86-64 (win10-x64) and i386 (win7-x86), one CPU.  Expected lines
# and their sources:
#  - SRW locks: a lock held exclusive refuses TryAcquire of either kind (FALSE, 0); shared owners
#    share it and keep a writer out until the last leaves; exclusive acquisition excludes (4 x 200
#    increments that yield inside: 800, no overlap); readers hold it at once (3) ("Slim
#    Reader/Writer (SRW) Locks").
#  - condition variables: a one-item buffer carries 1..20 (sum 210); WakeAllConditionVariable wakes
#    every sleeper; an unanswered sleep returns FALSE with ERROR_TIMEOUT (1460), the lock held
#    again in the same mode ("SleepConditionVariableCS", "...SRW"); the Rtl forms return
#    STATUS_TIMEOUT (0x102).
#  - InitOnce ("One-Time Initialization", and Wine's kernel32 tests, which Windows passes): the
#    function runs once whatever the callers (calls 1, every caller sees its context 0x40); the word
#    holds the context with 2 in its low bits once done (0x42), 1 or 3 while a synchronous or an
#    asynchronous initialization runs; a function that fails leaves the word 0 and the last error
#    alone (0xdeadbeef); INIT_ONCE_CHECK_ONLY before completion fails with ERROR_GEN_FAILURE (31), a
#    context with its low bits set with ERROR_INVALID_PARAMETER (87), a synchronous begin during an
#    asynchronous one with 87, a second asynchronous completion with 31; RtlRunOnceBeginInitialize
#    returns STATUS_PENDING (0x103) to the initializer, a failed RtlRunOnceExecuteOnce
#    STATUS_UNSUCCESSFUL (0xc0000001).
#  - WaitOnAddress: TRUE at once when the values differ, FALSE with ERROR_TIMEOUT after its time,
#    ERROR_INVALID_PARAMETER for a size other than 1, 2, 4, 8; the wakes reach their waiters (4);
#    RtlWaitOnAddress returns STATUS_TIMEOUT / STATUS_SUCCESS / STATUS_INVALID_PARAMETER (0xc000000d).
#  - SLists: a push returns the old first entry, a pop the last pushed, a flush the whole list;
#    QueryDepthSList counts them ("Interlocked Singly Linked Lists").
#  - SignalObjectAndWait: WAIT_OBJECT_0 (0); WAIT_FAILED (4294967295) with ERROR_NOT_OWNER (288) for
#    a mutex it does not own, ERROR_TOO_MANY_POSTS (298) for a full semaphore, ERROR_INVALID_HANDLE
#    (6) for an object that cannot be signalled; WAIT_TIMEOUT (258).
#  - the Nt waits return the NTSTATUS of the wait (STATUS_WAIT_0 + index, STATUS_TIMEOUT), count 0
#    STATUS_INVALID_PARAMETER_1 (0xc00000ef); NtYieldExecution STATUS_SUCCESS or
#    STATUS_NO_YIELD_PERFORMED; an alert pending ends NtWaitForAlertByThreadId at once with
#    STATUS_ALERTED (0x101); keyed events pair a wait and a release of one key (STATUS_SUCCESS
#    both), time out alone, refuse an odd key (STATUS_INVALID_PARAMETER_1).
# The schedule ("sim" lines): on one CPU the consumer (main) and the producer run at priority 8.
# Each item: the consumer finds the slot empty and sleeps on not_empty (it leaves its CPU: a
# park, WrAlertByThreadId on Windows 8+ / WrKeyedEvent on Windows 7); the producer, which the
# consumer's previous wake made Ready, puts the item, wakes the consumer (Ready: equal priority,
# no preemption), leaves the lock, and on its next item finds the slot full and sleeps on
# not_full, so the consumer runs again: one switch-in of the consumer per item, 20 in all (the
# last one when the producer's thread ends after putting item 20), each after a park.  Nothing
# else takes the consumer off its CPU (no clock interrupt comes due: the run is far shorter than
# a tick), so WaitReasonBitMap is the park's bit alone: 1 << 37 = 0x2000000000 on win10-x64,
# 1 << 21 = 0x200000 on win7-x86.  The SRW lock's run is the same.
# Wine is compared in pe_families_wine.sh.
CLAUSE=PE-SYNC
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
for bits in 64 32; do
  if [ $bits = 64 ]; then bit=0x2000000000; else bit=0x200000; fi
  cat > want$bits.txt <<EOT
KERNEL32.dll!InitializeSRWLock: KERNEL32.dll!TryAcquireSRWLockExclusive: on an exclusive lock 0; KERNEL32.dll!TryAcquireSRWLockShared: 0; KERNEL32.dll!ReleaseSRWLockExclusive: frees it
KERNEL32.dll!ReleaseSRWLockShared: two readers (1 1) keep a writer out (0) until both leave (1)
KERNEL32.dll!AcquireSRWLockExclusive: 4 threads x 200 increments that yield inside the lock: 800, overlaps 0
KERNEL32.dll!AcquireSRWLockShared: 3 readers hold it together: 3
KERNEL32.dll!TryAcquireSRWLockShared: a shared lock a writer waits for: 0 (the writer got it 1)
ntdll.dll!RtlAcquireSRWLockExclusive: ntdll.dll!RtlAcquireSRWLockShared: ntdll.dll!RtlReleaseSRWLockShared: ntdll.dll!RtlTryAcquireSRWLockExclusive: ntdll.dll!RtlTryAcquireSRWLockShared: ntdll.dll!RtlReleaseSRWLockExclusive: ntdll.dll!RtlInitializeSRWLock: 0 0 1
KERNEL32.dll!SleepConditionVariableCS: KERNEL32.dll!WakeConditionVariable: 20 items through a one-item buffer: sum 210
sim CS producer/consumer: consumer switch-ins 20, wait reasons $bit
KERNEL32.dll!SleepConditionVariableSRW: KERNEL32.dll!WakeConditionVariable: 20 items through a one-item buffer: sum 210
sim SRW producer/consumer: consumer switch-ins 20, wait reasons $bit
KERNEL32.dll!WakeAllConditionVariable: wakes 3 sleepers in CONDITION_VARIABLE_LOCKMODE_SHARED: 3
KERNEL32.dll!InitializeConditionVariable: KERNEL32.dll!SleepConditionVariableCS: nobody wakes it: 0, error 1460, the section held again 1
KERNEL32.dll!SleepConditionVariableSRW: shared, nobody wakes it: 0, error 1460, held shared again 1
ntdll.dll!RtlSleepConditionVariableCS: ntdll.dll!RtlSleepConditionVariableSRW: ntdll.dll!RtlInitializeConditionVariable: ntdll.dll!RtlWakeConditionVariable: ntdll.dll!RtlWakeAllConditionVariable: timeouts 0x102 0x102
KERNEL32.dll!InitOnceInitialize: KERNEL32.dll!InitOnceExecuteOnce: 1 1, calls 1, context 0x40, word 0x42
KERNEL32.dll!InitOnceExecuteOnce: 4 threads, a function that sleeps: calls 1, context seen by 4
KERNEL32.dll!InitOnceExecuteOnce: a function that fails: 0, last error 0xdeadbeef, word 0
KERNEL32.dll!InitOnceBeginInitialize: KERNEL32.dll!InitOnceComplete: begin 1 pending 1; check-only 0 error 31; a context with low bits 0 error 87; complete 1; begin 1 pending 0 context 0x80
KERNEL32.dll!InitOnceBeginInitialize: async 1 word 3; sync on it 0 error 87; KERNEL32.dll!InitOnceComplete: async 1, again 0 error 31, word 0x102
ntdll.dll!RtlRunOnceInitialize: ntdll.dll!RtlRunOnceBeginInitialize: ntdll.dll!RtlRunOnceComplete: ntdll.dll!RtlRunOnceExecuteOnce: 0x103 0x0 0x0 context 0x10; fails 0xc0000001, then 0x0
KERNEL32.dll!WaitOnAddress: values differ 1; equal, 10 ms 0 error 1460; size 3 0 error 87
KERNEL32.dll!WakeByAddressSingle: KERNEL32.dll!WakeByAddressAll: waiters that saw the new value: 4
ntdll.dll!RtlWaitOnAddress: ntdll.dll!RtlWakeAddressSingle: ntdll.dll!RtlWakeAddressAll: 0x102 0x0 0xc000000d
KERNEL32.dll!InitializeSListHead: KERNEL32.dll!InterlockedPushEntrySList: returns the old first (NULL 1, item 1 1): KERNEL32.dll!QueryDepthSList: 3
KERNEL32.dll!InterlockedPopEntrySList: the last pushed 1; KERNEL32.dll!InterlockedFlushSList: the rest from item 1 1, then item 0 1; depth 0; empty pop NULL 1
ntdll.dll!RtlInitializeSListHead: ntdll.dll!RtlInterlockedPushEntrySList: ntdll.dll!RtlFirstEntrySList: ntdll.dll!RtlQueryDepthSList: ntdll.dll!RtlInterlockedPopEntrySList: ntdll.dll!RtlInterlockedFlushSList: 1 2 1 1
KERNEL32.dll!SignalObjectAndWait: 0; a mutex it does not own 4294967295 error 288; a full semaphore 4294967295 error 298; a thread 4294967295 error 6; a timeout 258
ntdll.dll!NtWaitForSingleObject: 0x0 then 0x102; ntdll.dll!NtWaitForMultipleObjects: any 0x1, count 0 0xc00000ef; ntdll.dll!NtDelayExecution: 0x0; ntdll.dll!NtYieldExecution: yielded or not 1
ntdll.dll!NtSignalAndWaitForSingleObject: a timeout 0x102, the signalled event 0
ntdll.dll!NtAlertThreadByThreadId: 0x0; ntdll.dll!NtWaitForAlertByThreadId: an alert pending 0x101, none 0x102
ntdll.dll!NtCreateKeyedEvent: 0x0; ntdll.dll!NtReleaseKeyedEvent: pairs with a waiter 0x0, which returns 0x0; ntdll.dll!NtWaitForKeyedEvent: alone 0x102; a release alone 0x102; an odd key 0xc00000ef
ntdll.dll!NtOpenKeyedEvent: the system's keyed event 0x0, a handle 1
ntdll.dll!RtlInitializeCriticalSection: ntdll.dll!RtlInitializeCriticalSectionAndSpinCount: ntdll.dll!RtlInitializeCriticalSectionEx: ntdll.dll!RtlEnterCriticalSection: ntdll.dll!RtlTryEnterCriticalSection: ntdll.dll!RtlLeaveCriticalSection: ntdll.dll!RtlDeleteCriticalSection: 0 0 0 0 1 0 0 0
EOT
  pe_expect sync $bits want$bits.txt
  pe_twice sync $bits
done
echo "1..$n"
exit $((fail > 0))
