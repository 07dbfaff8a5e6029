#!/bin/sh
# `hcpsim describe --platform P` prints each profile completely (api/platform.c;
# api/README.md "Platforms"): for every profile, the lines that state its
# facts, with the values HCP-SPEC gives (§4, §7.2-7.3, §8.1-8.4, seed 004).
# Payload sizes are derived from the spec's field lists: Thread_TypeGroup1 =
# 4 + 4 + 7P + 4 + 4 x 1, Thread_V2_TypeGroup1 = 4 + 4 + 7P + 4, Thread_V1_TypeGroup1 =
# 4 + 4 + 6P + 1 (P = 8 on a 64-bit logger, 4 on a 32-bit one).  An unknown
# profile is refused naming the valid ones.  Run from the repository root.
HCPSIM=${HCPSIM:-build/hcpsim}
n=0
fail=0
check() { # check NAME COMMAND...: one TAP line
    n=$((n + 1))
    name=$1
    shift
    if "$@" >/dev/null 2>&1; then echo "ok $n - $name [SIM-DESCRIBE-PLATFORMS]"; else echo "not ok $n - $name [SIM-DESCRIBE-PLATFORMS]"; fail=1; fi
}
has() { printf '%s\n' "$out" | grep -F -- "$1"; }

for p in win10-x64 win7-x64 win7-x86 win11-arm64 ce2.12-arm; do
    out=$($HCPSIM describe --platform "$p")
    case $p in
    win7-x86 | ce2.12-arm) P=4 ;;
    *) P=8 ;;
    esac
    check "$p: describe succeeds and names the profile" has "platform      $p: "
    check "$p: $P-byte pointers" has ", $P-byte pointers; "
    check "$p: $P-byte handles in guest memory" has "handles       $P bytes in guest memory"
    if [ "$p" = ce2.12-arm ]; then
        check "$p: HCP absent: 120 and STATUS_NOT_IMPLEMENTED" has "absent: the four functions fail with ERROR_CALL_NOT_IMPLEMENTED (120)"
        check "$p: CE thread times (seed 004)" has "Windows CE 2.10-2.12 rules (HCP-SPEC §8.2, seed 004): CreationTime, ExitTime, KernelTime 0;"
        check "$p: THREAD_QUERY_INFORMATION only" has "need THREAD_QUERY_INFORMATION (0x40); THREAD_QUERY_LIMITED_INFORMATION does not exist"
        check "$p: no QueryThreadCycleTime" has "cycle time    absent"
        check "$p: no kernel logger" has "kernel logger none"
        check "$p: no NT thread-time rule" sh -c '! printf "%s\n" "$1" | grep -F "creation/exit = boot time + clock"' - "$out"
    else
        check "$p: the HCP functions" has "hcp           EnableThreadProfiling, QueryThreadProfiling"
        check "$p: NT thread times" has "thread times  Windows NT rules"
        check "$p: how the NT thread times are derived" has "Windows NT rules (HCP-SPEC §8.1): creation/exit = boot time + clock;"
        check "$p: THREAD_QUERY_LIMITED_INFORMATION suffices" has "need THREAD_QUERY_LIMITED_INFORMATION (0x800) or"
        check "$p: QueryThreadCycleTime" has "cycle time    QueryThreadCycleTime"
        check "$p: a $((P * 8))-bit kernel logger of Thread V3 by default" has "NT Kernel Logger, $((P * 8))-bit"
        check "$p: Thread_TypeGroup1 $((4 + 4 + 7 * P + 4 + 4)) bytes" has "Thread_TypeGroup1      $((4 + 4 + 7 * P + 4 + 4)) bytes: ProcessId@0 TThreadId@4 StackBase@8"
        check "$p: Thread_V2_TypeGroup1 $((4 + 4 + 7 * P + 4)) bytes" has "Thread_V2_TypeGroup1   $((4 + 4 + 7 * P + 4)) bytes"
        check "$p: Thread_V1_TypeGroup1 $((4 + 4 + 6 * P + 1)) bytes" has "Thread_V1_TypeGroup1   $((4 + 4 + 6 * P + 1)) bytes"
        check "$p: Thread_V1_TypeGroup2 8 bytes" has "Thread_V1_TypeGroup2    8 bytes: ProcessId@0 TThreadId@4"
        check "$p: Thread_V0_TypeGroup1 8 bytes, TThreadId first" has "Thread_V0_TypeGroup1    8 bytes: TThreadId@0 ProcessId@4"
        check "$p: CSwitch 24 bytes" has "CSwitch                24 bytes: NewThreadId@0"
        check "$p: ReadyThread 8 bytes" has "ReadyThread             8 bytes: TThreadId@0"
    fi
    case $p in
    win7-*) check "$p: observed semantics: the Windows 10/11 implementation, assumed (open question 1)" has "assumed for Windows 7" ;;
    ce2.12-arm) check "$p: observed semantics: nothing" has "follows nothing" ;;
    *) check "$p: observed semantics: the Windows 10/11 implementation" has "follows the Windows 10/11 implementation (HCP-SPEC" ;;
    esac
done
out=$($HCPSIM describe --platform win95-x86 2>&1)
rc=$?
check "an unknown profile: exit status 2" test "$rc" = 2
check "an unknown profile: the error names the valid profiles" has "unknown platform 'win95-x86' (valid: win10-x64, win7-x64, win7-x86, win11-arm64, ce2.12-arm)"
echo "1..$n"
exit $fail
