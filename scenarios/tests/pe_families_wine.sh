#!/bin/sh
# Issue 33's family programs (objrules.c, sync.c, apc.c, pool.c, procinfo.c) under Wine, an outside
# oracle: each x86-64 image's output under Wine equals hcpsim's on a machine of the host's CPU
# count, lines left out of both where they are hcpsim's own or where Wine 8.0 differs from Windows
# (each named below; pe_objrules.sh ... pe_procinfo.sh check every line against Windows'
# documented values).  One Wine prefix serves the five runs.
#  - objrules: the CRITICAL_SECTION's DebugInfo and LockCount: Wine keeps Windows NT 4's LockCount
#    (0 held, +1 per recursion and per waiter) and always a debug block.
#  - sync: the "sim" lines (hcpsim's schedule; the HCP functions are stubs that end a process
#    under Wine, so the program reads none there).
#  - apc: the "sim" lines; Wine's completion routine gets the due time it was set with (a
#    relative, negative value), not the UTC time of the expiry; fResume gives
#    ERROR_TIMER_RESUME_IGNORED (722) and a negative period is accepted; DeleteTimerQueueEx
#    returns FALSE with ERROR_IO_PENDING even when no callback runs (Windows XP's behaviour).
#  - pool: the "sim" lines; Wine never ends a repeating registered wait with a timeout (it does
#    not re-arm the timeout after a callback): that check is left out of both runs
#    (the program's argument no-repeating-timeout).
#  - procinfo: the "sim", "prio" (absolute priorities: Wine reports relative ones) and "model"
#    (hcpsim's cost model's caches: Wine shows the host's) lines; GetProcessGroupAffinity is not
#    implemented in Wine, SetThreadDescription returns HRESULT_FROM_NT(STATUS_SUCCESS) =
#    0x10000000 for S_OK, ThreadIsTerminated and NtSetInformationThread's ThreadPriority are not
#    implemented, ThreadTimes accepts any length and an unknown class gives
#    STATUS_NOT_IMPLEMENTED.
CLAUSE=PE-WINE
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
for p in objrules sync apc pool procinfo; do cp "$pe/${p}64.exe" .; done
pe_wine objrules 'DebugInfo|LockCount'
pe_wine sync '^sim '
pe_wine apc '^sim |times increasing|fResume|DeleteTimerQueue'
pe_wine pool '^sim ' no-repeating-timeout
pe_wine procinfo '^(sim|prio|model) |GetProcessGroupAffinity|SetThreadDescription|an ended thread|NtSetInformationThread'
command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
echo "1..$n"
exit $((fail > 0))
