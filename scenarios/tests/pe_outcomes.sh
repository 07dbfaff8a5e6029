#!/bin/sh
# Documented outcomes (api/outcomes.tsv, with each one's source), checked by programs that check
# themselves against the documented values: scenarios/examples/pe/outcomes.c (kernel32's last
# errors, ntdll's NTSTATUS values) on both ISAs; scenarios/examples/pe/crtoutcomes.c (the C
# runtime's errno values and special results) on both ISAs against msvcrt.dll and, built with
# -D_UCRT, against ucrtbase.dll; each twice, and the x86-64 builds under Wine, line by line (both
# programs make and remove files in their current folder).  The lines where Wine is known to
# differ from Microsoft's documentation say so and are left out of the Wine comparison (under
# Wine the programs do not count them as failures): GetModuleFileNameA's truncated name (Wine does
# not end it, as Windows XP did not), NtQueryInformationThread of a class that is not one (Wine:
# STATUS_NOT_IMPLEMENTED), QueryThreadCycleTime of a closed handle (Wine:
# ERROR_CALL_NOT_IMPLEMENTED), the C runtime's fread, fwrite, fseek and ftell of a NULL stream,
# _mkgmtime64 of a NULL tm and bsearch_s of a NULL key (Wine faults), strncpy_s, wcscat_s,
# realloc, _get_errno, _get_doserrno, _eof, _chsize, _fstat64, _fstat, _isatty and cosh (Wine
# leaves errno), _ui64toa_s of a buffer too small (Wine: EINVAL), msvcrt's sprintf_s of a NULL
# buffer (Wine returns 1), wctomb of a NULL buffer (Wine: -1).  conformance/exports.pl then
# requires every outcome of api/outcomes.tsv to have a passing line like these.
CLAUSE=PE-OUTCOMES
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
crt=$(dirname "$pe")/crt
for bits in 64 32; do
  # x86-64 has 3 checks more: kernel32's RtlPcToFileHeader and RtlLookupFunctionEntry of kernel32
  # and ntdll, which Windows has on x86-64 only
  pe_selfcheck outcomes $bits $(if [ $bits = 64 ]; then echo 250; else echo 247; fi)
  pe_twice outcomes $bits
  pe_selfcheck crtoutcomes $bits 157
  pe_twice crtoutcomes $bits
done
pe_msvcrt=$pe
pe=$crt
for bits in u64 u32; do
  pe_selfcheck crtoutcomes $bits 148
  pe_twice crtoutcomes $bits
done
pe=$pe_msvcrt
known='Wine does not end it|Wine: ERROR_CALL_NOT_IMPLEMENTED|Wine: STATUS_NOT_IMPLEMENTED|Wine faults|Wine leaves errno|Wine returns 1|Wine: EINVAL|Wine: -1'
# the programs make and remove files in their current folder, which a scenario's process does not
# have: Wine's output is compared with the hcpsim run's above (hcpsim run maps the folder)
wine=$(command -v wine64 || command -v wine)
for prog in outcomes64 crtoutcomes64 crtoutcomesu64; do
  CLAUSE=PE-WINE
  if [ -z "$wine" ]; then
    echo "ok $((n + 1)) - $prog.exe under Wine writes what hcpsim writes [PE-WINE] # SKIP no wine"
    n=$((n + 1))
    continue
  fi
  WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" "$prog.exe" > wine_$prog.txt 2> wine_$prog.err; wst=$?
  tr -d "$cr" < wine_$prog.txt | grep -Ev "$known" > wine_$prog.cmp
  grep -Ev "$known" got_$prog.txt > sim_$prog.cmp
  [ "$wst" = 0 ] && cmp -s wine_$prog.cmp sim_$prog.cmp
  result $? "$prog.exe under Wine writes what hcpsim writes ($(wc -l < sim_$prog.cmp) lines compared)" \
    "status $wst: $(diff wine_$prog.cmp sim_$prog.cmp | head -8 | tr '\n' '|')"
done
CLAUSE=PE-OUTCOMES
command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
echo "1..$n"
exit $((fail > 0))
