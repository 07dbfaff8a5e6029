#!/bin/sh
# The process and its processors (api/README.md "Processes and processors") on
# scenarios/examples/pe/procinfo.c, x86-64 (win10-x64) and i386 (win7-x86), one CPU.  Expected
# lines and their sources:
#  - priority classes ("Scheduling Priorities": the base priority of each class and relative
#    priority; SetPriorityClass, GetPriorityClass, SetThreadPriority): normal 8, high 13 (+2: 15),
#    idle -2: 2, below normal +1: 7, above normal -1: 9, time critical 15 and idle 1 outside the
#    realtime class, realtime 24, its time critical 31, its idle 16, -7: 17, +6: 30; the relative
#    priority is kept across classes (0); -7 outside realtime and an unknown class fail with
#    ERROR_INVALID_PARAMETER (87); a new thread takes its process's class (above normal: 10).
#  - suspension (SuspendThread, ResumeThread): each returns the previous count (a created-suspended
#    thread: 1, 2, 1, then 0 when it runs); a running thread stops until resumed; a thread that has
#    ended fails (0xffffffff, ERROR_ACCESS_DENIED 5: STATUS_THREAD_IS_TERMINATING); a waiting
#    thread's wait is interrupted while it is suspended, so main takes the event it waited for
#    (WAIT_OBJECT_0) and the thread waits again when resumed (the kernel's suspend APC ends the
#    wait and the wait restarts after it), and a timeout that passes meanwhile ends it only then
#    (WAIT_TIMEOUT, 258); SuspendThread of itself returns 0 once resumed; the count
#    stops at MAXIMUM_SUSPEND_COUNT (127: the 128th call fails with ERROR_SIGNAL_REFUSED, 156).
#  - processors: one group, the machine's CPUs (1): the counts agree with GetSystemInfo; a size
#    query of GetLogicalProcessorInformation(Ex) fails with ERROR_INSUFFICIENT_BUFFER (122); one
#    core record per CPU, one package, one NUMA node; the caches are the cost model's
#    (pmu_model/README.md "Defaults": L1D 32 KiB 8 ways, L2 1 MiB 16 ways, LLC 8 MiB 16 ways, lines of
#    64 bytes; one of each per CPU: 3 caches); GetCurrentProcessorNumberEx's group 0 and number;
#    a thread's group affinity is the process's, CPU 0 alone moves it there, group 1 fails (87);
#    GetProcessGroupAffinity: one group, 0; never WOW64 (an x64 image on x64 Windows, an i386 one on
#    32-bit Windows 7): IsWow64Process FALSE, IsWow64Process2 IMAGE_FILE_MACHINE_UNKNOWN and the
#    native machine 0x8664 (x64) or 0x14c (x86).
#  - SetThreadDescription and GetThreadDescription return S_OK (0), the text in a LocalAlloc block,
#    "" for a thread without one, HRESULT_FROM_NT(STATUS_ACCESS_DENIED) = 0xd0000022 without the
#    right; NtQueryInformationThread's ThreadBasicInformation (28 or 48 bytes: its TEB, ids,
#    STILL_ACTIVE = 0x103, an ended thread's exit code), ThreadIsTerminated, ThreadTimes (exactly
#    32 bytes, else STATUS_INFO_LENGTH_MISMATCH 0xc0000004, as the Windows Research Kernel checks),
#    an unknown class STATUS_INVALID_INFO_CLASS (0xc0000003); NtSetInformationThread's classes
#    ThreadHideFromDebugger, ThreadPriority (an absolute priority: 10), ThreadBasePriority.
#  - FLS (FlsAlloc, and Wine's tests, which Windows passes): indices from 1; an index never set
#    reads NULL with the last error 0; the callback runs for a thread's value when it returns from
#    its start routine or calls ExitThread (on that thread), for every thread's value at FlsFree (on
#    the caller), and for the value of the thread that calls ExitProcess (here after main returns);
#    index 0 is refused (87); after FlsFree a get reads NULL with the last error 0 (gets and sets
#    check bounds only).
# The schedule ("sim" line, one CPU): the thread enables profiling and suspends itself (it leaves
# its CPU waiting with reason Suspended, 5); main resumes it after 20 ms: it is switched in once,
# 1 << 5 = 0x20.
# Wine is compared in pe_families_wine.sh.
CLAUSE=PE-PROCINFO
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
for bits in 64 32; do
  if [ $bits = 64 ]; then native=0x8664; else native=0x14c; fi
  cat > want$bits.txt <<EOT
KERNEL32.dll!GetPriorityClass: KERNEL32.dll!SetPriorityClass: 0x20, set HIGH 1, now 0x80, thread's relative priority 0
prio KERNEL32.dll!SetThreadPriority: the base priorities of Windows' table: 8 13 15 2 7 9 15 1 24 31 16 17 30
KERNEL32.dll!SetThreadPriority: -7 outside the realtime class 0 error 87; KERNEL32.dll!SetPriorityClass: 0x12345 0 error 87
prio KERNEL32.dll!CreateThread: a new thread of an above-normal process: 10
KERNEL32.dll!SuspendThread: KERNEL32.dll!ResumeThread: a suspended thread's counts 1 2 1, running 0
KERNEL32.dll!SuspendThread: a running thread (0) stops (1) until resumed (1, runs 1)
KERNEL32.dll!SuspendThread: a thread that ended 0xffffffff error 5
KERNEL32.dll!SuspendThread: a waiting thread's wait takes nothing while it is suspended (main takes the event: 0), and goes on after ResumeThread (1)
KERNEL32.dll!SuspendThread: a wait whose timeout passes while it is suspended does not run it (0), it times out when resumed (258)
KERNEL32.dll!SuspendThread: of itself: returns 0 when resumed (KERNEL32.dll!ResumeThread: 1)
sim the thread that suspended itself: switch-ins 1, wait reasons 0x20
KERNEL32.dll!SuspendThread: the count stops at MAXIMUM_SUSPEND_COUNT: last 126, then 0xffffffff error 156
cpu KERNEL32.dll!GetActiveProcessorCount: KERNEL32.dll!GetMaximumProcessorCount: 1 1 1, as GetSystemInfo 1
KERNEL32.dll!GetActiveProcessorGroupCount: KERNEL32.dll!GetMaximumProcessorGroupCount: 1 1
KERNEL32.dll!GetLogicalProcessorInformation: a size query 0 error 122, its size a whole number of entries 1; filled 1
cpu KERNEL32.dll!GetLogicalProcessorInformation: cores 1 (mask 0x1), packages 1, NUMA nodes 1
model KERNEL32.dll!GetLogicalProcessorInformation: 3 caches; CPU 0's L1 32768 B (line 64, 8 ways), L2 1048576 B (64, 16), L3 8388608 B (64, 16)
cpu KERNEL32.dll!GetLogicalProcessorInformationEx: RelationGroup 1: groups 1, active 1, mask 0x1
cpu KERNEL32.dll!GetLogicalProcessorInformationEx: RelationProcessorCore 1: 1 records, each one group 1
KERNEL32.dll!GetLogicalProcessorInformationEx: RelationAll into 8 bytes 0 error 122, needs more 1
KERNEL32.dll!GetCurrentProcessorNumberEx: group 0, number as GetCurrentProcessorNumber 1, reserved 0; ntdll.dll!NtGetCurrentProcessorNumber: the same 1
KERNEL32.dll!GetThreadGroupAffinity: KERNEL32.dll!SetThreadGroupAffinity: 1 group 0 mask as the process 1; set CPU 0 1 (previous the same 1), now on 0; group 1 0 error 87
KERNEL32.dll!GetProcessGroupAffinity: 1, 1 group(s), group 0
KERNEL32.dll!IsWow64Process: 1, 0; KERNEL32.dll!IsWow64Process2: 1, process 0x0, native $native
KERNEL32.dll!SetThreadDescription: KERNEL32.dll!GetThreadDescription: KERNEL32.dll!LocalFree: 0x0 0x0 the same 1, freed 1; another thread's is empty (0x0 1); without THREAD_QUERY_LIMITED_INFORMATION 0xd0000022
ntdll.dll!NtQueryInformationThread: ThreadBasicInformation 0x0, length 1, TEB 1, ids 1 1, exit status 0x103
ntdll.dll!NtQueryInformationThread: an ended thread's exit status 7, ThreadIsTerminated 0x0 1; ThreadTimes 0x0, 16 bytes 0xc0000004; class 200 0xc0000003
ntdll.dll!NtSetInformationThread: ThreadHideFromDebugger 0x0, ThreadPriority 10 0x0, ThreadBasePriority 0 0x0, class 200 0xc0000003
prio ntdll.dll!NtSetInformationThread: ThreadPriority 10 gives priority 10
KERNEL32.dll!LocalAlloc: LMEM_ZEROINIT gives zeroed memory 1, freed 1
KERNEL32.dll!FlsAlloc: KERNEL32.dll!FlsGetValue: KERNEL32.dll!FlsSetValue: index > 0 1; unset NULL 1 error 0; set 1, reads 0x10
KERNEL32.dll!FlsSetValue: the callback runs on a thread that returns (1) and on one that calls ExitThread (1, exit code 5)
KERNEL32.dll!FlsFree: 1, runs the callback for the caller's value on the caller 1; then FlsGetValue 1 error 0
KERNEL32.dll!FlsSetValue: index 0 0 error 87; KERNEL32.dll!FlsFree: index 0 0 error 87
KERNEL32.dll!FlsAlloc: the callback runs at process exit for the exiting thread's value: 0x40
EOT
  pe_expect procinfo $bits want$bits.txt
  pe_twice procinfo $bits
done
echo "1..$n"
exit $((fail > 0))
