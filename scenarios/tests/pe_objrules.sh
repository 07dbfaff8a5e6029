#!/bin/sh
# The object rules Windows keeps (api/README.md "Object rules"), on scenarios/examples/pe/objrules.c,
# x86-64 (win10-x64) and i386 (win7-x86).  Expected lines, with their sources:
#  - names: "The mutex object is destroyed when its last handle has been closed" (CreateMutexA; the
#    same for events, semaphores, waitable timers); OpenMutex/OpenEvent/OpenSemaphore of a name that
#    does not exist fail with ERROR_FILE_NOT_FOUND (2); Create* of an existing name sets
#    ERROR_ALREADY_EXISTS (183), of a new one leaves 0 ("Synchronization Object Security and Access
#    Rights", "Object Names").
#  - generic rights: each type's GENERIC_MAPPING ("Synchronization Object Security and Access
#    Rights": GENERIC_EXECUTE of a mutex or event is STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE,
#    GENERIC_READ of a mutex STANDARD_RIGHTS_READ | MUTANT_QUERY_STATE, GENERIC_WRITE of an event
#    STANDARD_RIGHTS_WRITE | EVENT_MODIFY_STATE; "Thread Security and Access Rights": GENERIC_READ
#    of a thread includes THREAD_QUERY_INFORMATION and no SYNCHRONIZE); a wait without SYNCHRONIZE
#    fails with ERROR_ACCESS_DENIED (5), WAIT_FAILED = 4294967295.
#  - process handles: "The handle must have the SYNCHRONIZE access right" and a process that runs
#    is not signalled: WAIT_TIMEOUT (258); GetExitCodeProcess of a running process: STILL_ACTIVE
#    (259); OpenProcess of a process that does not exist: ERROR_INVALID_PARAMETER (87).
#  - DuplicateHandle: bInheritHandle gives HANDLE_FLAG_INHERIT (1); DUPLICATE_CLOSE_SOURCE
#    "closes the source handle ... regardless of any error status returned"; a duplicate of
#    GetCurrentThread() is a real handle; SetHandleInformation's HANDLE_FLAG_PROTECT_FROM_CLOSE makes
#    CloseHandle fail (ERROR_INVALID_HANDLE, 6).
#  - CRITICAL_SECTION ("Displaying a Critical Section", Debugging Tools for Windows: from Windows
#    Server 2003 SP1 LockCount's bit 0 clear means locked, bit 1 set means no waiter woken, the rest
#    the ones' complement of the waiters: -1 free, -2 held, -6 held with one waiter; RecursionCount
#    and OwningThread the owner's); DebugInfo is (PRTL_CRITICAL_SECTION_DEBUG)-1 on Windows 8 and
#    later (RTL_CRITICAL_SECTION_FLAG_NO_DEBUG_INFO is their default), a debug block naming the
#    section on Windows 7; a spin count is 0 on a single processor ("the spin count is ignored and
#    set to 0 on single-processor systems", InitializeCriticalSectionAndSpinCount).
# Wine is compared in pe_families_wine.sh.
CLAUSE=PE-OBJRULES
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
for bits in 64 32; do
  if [ $bits = 64 ]; then
    dbg="KERNEL32.dll!InitializeCriticalSection: DebugInfo [win8+] (PRTL_CRITICAL_SECTION_DEBUG)-1"
  else
    dbg="KERNEL32.dll!InitializeCriticalSection: DebugInfo [win7] a debug block naming it: 1"
  fi
  cat > want$bits.txt <<EOT
KERNEL32.dll!OpenMutexA: after the only handle closed, the name is gone: handle 0, error 2
KERNEL32.dll!CreateMutexA: the name again makes a new mutex: last error 0
KERNEL32.dll!OpenEventA: a second handle keeps the name: 1
KERNEL32.dll!CloseHandle: the last of three handles takes the name: handle 0, error 2
KERNEL32.dll!DuplicateHandle: a duplicate keeps a name: 1
KERNEL32.dll!CreateSemaphoreA: after its last handle the name is new: last error 0
KERNEL32.dll!OpenMutexA: GENERIC_EXECUTE includes SYNCHRONIZE: wait 0
KERNEL32.dll!OpenMutexA: GENERIC_READ has no SYNCHRONIZE: wait 4294967295, error 5
KERNEL32.dll!OpenEventA: GENERIC_WRITE gives EVENT_MODIFY_STATE (set 1) and no SYNCHRONIZE (wait 4294967295, error 5)
KERNEL32.dll!OpenEventA: GENERIC_ALL is EVENT_ALL_ACCESS: reset 1, wait 0
KERNEL32.dll!DuplicateHandle: GENERIC_EXECUTE maps for the new handle: set 0 error 5, wait 258
KERNEL32.dll!OpenThread: GENERIC_READ gives THREAD_QUERY_INFORMATION (times 1), no SYNCHRONIZE (wait 4294967295, error 5)
KERNEL32.dll!OpenThread: GENERIC_EXECUTE gives SYNCHRONIZE: wait 258
KERNEL32.dll!GetCurrentProcess: the pseudo handle waits: 258
KERNEL32.dll!OpenProcess: a real handle waits 258; KERNEL32.dll!GetProcessId: 1; KERNEL32.dll!GetExitCodeProcess: 259
KERNEL32.dll!OpenProcess: without SYNCHRONIZE: wait 4294967295 error 5
KERNEL32.dll!OpenProcess: an unknown id: handle 0, error 87
KERNEL32.dll!WaitForMultipleObjects: a duplicated process handle (pseudo 0) and a set event: 1
KERNEL32.dll!GetHandleInformation: bInheritHandle TRUE 1, FALSE 0
KERNEL32.dll!CreateEventA: SECURITY_ATTRIBUTES.bInheritHandle gives HANDLE_FLAG_INHERIT: 1
KERNEL32.dll!SetHandleInformation: a protected handle does not close (0, error 6), then does (1)
KERNEL32.dll!DuplicateHandle: access 0 without DUPLICATE_SAME_ACCESS: wait 4294967295 error 5
KERNEL32.dll!DuplicateHandle: DUPLICATE_CLOSE_SOURCE closes the source even when it fails (0, error 6): close again 0
KERNEL32.dll!DuplicateHandle: the thread pseudo handle gives a real handle to the caller: real 1, KERNEL32.dll!GetThreadId: the same thread 1
$dbg
KERNEL32.dll!InitializeCriticalSection: LockCount -1 RecursionCount 0 OwningThread 0
KERNEL32.dll!EnterCriticalSection: held twice: LockCount -2 RecursionCount 2 OwningThread is the caller 1
KERNEL32.dll!EnterCriticalSection: one thread waits: LockCount -6
KERNEL32.dll!LeaveCriticalSection: free again: LockCount -1 RecursionCount 0 OwningThread 0
KERNEL32.dll!TryEnterCriticalSection: 1: LockCount -2 RecursionCount 1
cpu KERNEL32.dll!InitializeCriticalSectionAndSpinCount: SpinCount 0 (0 on one CPU)
EOT
  pe_expect objrules $bits want$bits.txt
  pe_twice objrules $bits
done
echo "1..$n"
exit $((fail > 0))
