#!/bin/sh
# Structured exception handling (api/README.md "Exceptions"): scenarios/examples/pe/seh.c catches
# its own access violation, division by zero, breakpoint and illegal instruction with vectored
# handlers, raises exceptions with RaiseException, orders vectored and continue handlers, uses its
# unhandled-exception filter, and frame-based handlers (x64: __try1/__except1 through
# __C_specific_handler and RtlUnwindEx; x86: a registration record on FS:[0], RtlUnwind, and an exit
# unwind, RtlUnwind with no target frame, whose handlers must see EXCEPTION_EXIT_UNWIND); each of
# its "ok DLL!Name:" lines is a TAP line (x86-64 and i386).  Two runs write the same bytes and the
# same run report (the dispatch is deterministic), the x86-64 output equals Wine's where Wine runs
# it, an exception nobody handles ends the run with Windows' report, and one more handler costs
# what api/README.md says.
CLAUSE=PE-SEH
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
cr=$(printf '\r')
wine=$(command -v wine64 || command -v wine)
for bits in 64 32; do
  cp "$pe/seh$bits.exe" .
  $HCPSIM run --report r1.json seh$bits.exe > out.txt 2> err.txt; st=$?
  tr -d "$cr" < out.txt > o$bits.txt
  while IFS= read -r line; do
    case "$line" in
      "ok "*) result 0 "seh$bits: ${line#ok }" ;;
      "not ok "*) result 1 "seh$bits: ${line#not ok }" ;;
    esac
  done < o$bits.txt
  [ "$st" = 0 ] && [ "$(tail -n 1 o$bits.txt)" = "0 failed" ] && [ ! -s err.txt ]
  result $? "seh$bits: runs to exit code 0, every check passed, nothing on stderr (status $st)" "$(cat err.txt)"
  $HCPSIM run --report r2.json seh$bits.exe > out2.txt 2>&1
  cmp -s out.txt out2.txt && cmp -s r1.json r2.json
  result $? "seh$bits: a second run writes the same bytes and the same run report (counters, calls): dispatch is deterministic"
  # an access violation nobody handles: the C runtime's filter searches on, Windows reports it
  $HCPSIM run seh$bits.exe crash > out.txt 2> err.txt; st=$?
  at=$([ "$bits" = 64 ] && echo "mov dword ptr \[rax\], 1" || echo "mov dword ptr \[eax\], 1")
  [ "$st" = 125 ] && grep -q "^hcpsim: seh$bits.exe: unhandled exception 0xC0000005 (STATUS_ACCESS_VIOLATION) at 0x[0-9A-F]* (seh$bits.exe+0x[0-9A-F]*) in thread 'seh$bits.exe' (id 1000): writing 0x0; instruction: $at \[C7 00 01 00 00 00\]\$" err.txt
  result $? "seh$bits crash: an access violation no handler takes (the C runtime's unhandled-exception filter searches on) ends the run with Windows' report, status 125 (status $st)" "$(cat err.txt)"
  $HCPSIM run seh$bits.exe raise > out.txt 2> err.txt; st=$?
  [ "$st" = 125 ] && grep -q "^hcpsim: seh$bits.exe: unhandled exception 0xE0000003 (?) at 0x[0-9A-F]* (seh$bits.exe+0x[0-9A-F]*) in thread 'seh$bits.exe' (id 1000): raised with 2 parameters\$" err.txt
  result $? "seh$bits raise: an exception RaiseException raised that nobody handles ends the run with its code and where it was raised, status 125 (status $st)" "$(cat err.txt)"
  $HCPSIM run seh$bits.exe filter > out.txt 2> err.txt; st=$?
  [ "$st" = 4 ] && [ "$(tr -d "$cr" < out.txt)" = "filter: EXCEPTION_EXECUTE_HANDLER" ] && [ ! -s err.txt ]
  result $? "seh$bits filter: KERNEL32.dll!UnhandledExceptionFilter's part: a filter returning EXCEPTION_EXECUTE_HANDLER ends the process with the exception's code, 0xE0000004 (status its low 8 bits, 4; status $st)" "$(cat err.txt)"
  # the cost of a dispatch (api/README.md "Exceptions": "Cost"): one more handler called is one
  # more runner_next api_call and the runner's 13 (x64) or 15 (x86) instructions besides its own 2
  cost() { # m -> "api_calls user_instructions" of a run with "cost m"
    $HCPSIM run --report c$1.json seh$bits.exe cost $1 > /dev/null 2>&1
    jq -r '.machines[0].threads[0] | "\(.api_calls) \(.counters.instructions)"' c$1.json
  }
  c0=$(cost 0); c1=$(cost 1)
  per=$([ "$bits" = 64 ] && echo 13 || echo 15)
  set -- $c0 $c1
  [ $# = 4 ] && [ $(($3 - $1)) = 1 ] && [ $(($4 - $2)) = $((2 + per)) ]
  result $? "seh$bits cost: one more vectored handler in a dispatch costs one api_call and $per runner instructions besides its 2" "cost 0: $c0, cost 1: $c1 (api calls, user instructions)"
done
# __try/__except/__finally as clang compiles them (x86-64): its scope tables through msvcrt's
# (try64) or the UCRT's (tryu64) __C_specific_handler, the filters' order, __finally during the
# unwind, __leave
for prog in try64 tryu64; do
  csh=msvcrt.dll!__C_specific_handler
  [ "$prog" = tryu64 ] && csh=ucrtbase.dll!__C_specific_handler
  cp "$pe/clang64/$prog.exe" .
  $HCPSIM run $prog.exe > out.txt 2> err.txt; st=$?
  tr -d "$cr" < out.txt > t64.txt
  while IFS= read -r line; do
    case "$line" in
      "ok "*) result 0 "$prog (clang): $csh: ${line#ok }" ;;
      "not ok "*) result 1 "$prog (clang): $csh: ${line#not ok }" ;;
    esac
  done < t64.txt
  [ "$st" = 0 ] && [ "$(tail -n 1 t64.txt)" = "0 failed" ] && [ "$(grep -c '^ok ' t64.txt)" = 7 ] && [ ! -s err.txt ]
  result $? "$prog (clang): runs to exit code 0, its 7 checks passed, nothing on stderr (status $st)" "$(cat err.txt)"
  $HCPSIM run $prog.exe > out2.txt 2>&1
  cmp -s out.txt out2.txt
  result $? "$prog (clang): a second run writes the same bytes"
  if [ -n "$wine" ]; then
    WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" $prog.exe > wine.txt 2> wine.err; wst=$?
    CLAUSE=PE-WINE
    if [ "$wst" = 0 ] && [ -s wine.txt ]; then
      tr -d "$cr" < wine.txt > wt64.txt
      cmp -s t64.txt wt64.txt
      result $? "$prog (clang): hcpsim writes what Wine writes" "$(diff t64.txt wt64.txt | head -6 | tr '\n' ' ')"
    else
      n=$((n + 1))
      echo "ok $n - $prog (clang): hcpsim writes what Wine writes [PE-WINE] # SKIP wine did not run the program (status $wst)"
    fi
    CLAUSE=PE-SEH
  fi
done
# seh64.exe under Wine 8.0: the checks below are known to fail there (exit status 3, "3 failed"),
# because Wine registers vectored continue handlers but never calls them: after a vectored handler
# returned EXCEPTION_CONTINUE_EXECUTION the trail is "aab", not "aabc". Microsoft's
# AddVectoredContinueHandler documentation (learn.microsoft.com, "AddVectoredContinueHandler" and
# "Vectored Exception Handling") decides: continue handlers are called when the search ends with
# EXCEPTION_CONTINUE_EXECUTION, as hcpsim does (api/README.md "Exceptions"). Those lines (by their
# check's text) and the "N failed" line are left out; every other line must be the same bytes, and
# Wine's status must be the number of its failed checks, each one of those listed.
cat > wine_known.txt <<'EOF_KNOWN'
KERNEL32.dll!RaiseException: the vectored handlers in their order (First at the head), then the continue handler once one says go on; RaiseException returns
KERNEL32.dll!AddVectoredContinueHandler: the continue handler runs after a handler returned EXCEPTION_CONTINUE_EXECUTION
ntdll.dll!RtlAddVectoredContinueHandler: the continue handler runs after the handler said go on
EOF_KNOWN
# FILE -> its lines but the known ones and the count line
wine_strip() {
  awk 'BEGIN { while ((getline k < "wine_known.txt") > 0) known[k] = 1 }
       /^[0-9]+ failed$/ { next }
       { s = $0; sub(/^(not )?ok /, "", s); sub(/ \(got .*\)$/, "", s); if (s in known) next; print }' "$1"
}
if [ -n "$wine" ]; then
  WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" seh64.exe > wine.txt 2> wine.err; wst=$?
  CLAUSE=PE-WINE
  tr -d "$cr" < wine.txt > w64.txt
  if grep -q '^[0-9][0-9]* failed$' w64.txt; then # it ran to its end (its status is its failed checks)
    wine_strip o64.txt > o64s.txt
    wine_strip w64.txt > w64s.txt
    [ "$(wc -l < o64s.txt)" = $(($(wc -l < o64.txt) - 4)) ] && cmp -s o64s.txt w64s.txt
    result $? "seh64: hcpsim writes what Wine writes, the 3 continue-handler checks Wine 8.0 fails and the count line aside" "$(diff o64s.txt w64s.txt | head -6 | tr '\n' ' ')"
    nf=$(grep -c '^not ok ' w64.txt)
    [ "$wst" = "$nf" ] && [ "$(tail -n 1 w64.txt)" = "$nf failed" ] &&
      [ "$(grep '^not ok ' w64.txt | wine_strip /dev/stdin | wc -l)" = 0 ]
    result $? "seh64 under Wine: its status is the number of its failed checks, each a known continue-handler one (status $wst, $nf not ok)" "$(grep '^not ok ' w64.txt | head -4 | tr '\n' ' ')"
  else
    n=$((n + 1))
    echo "ok $n - seh64: hcpsim writes what Wine writes [PE-WINE] # SKIP wine did not run the program to its end (status $wst)"
    n=$((n + 1))
    echo "ok $n - seh64 under Wine: its status is the number of its failed checks [PE-WINE] # SKIP wine did not run the program to its end"
  fi
  command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
fi
echo "1..$n"
exit $((fail > 0))
