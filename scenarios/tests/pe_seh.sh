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
if [ -n "$wine" ]; then
  WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" seh64.exe > wine.txt 2> wine.err; wst=$?
  CLAUSE=PE-WINE
  if [ "$wst" = 0 ] && [ -s wine.txt ]; then
    tr -d "$cr" < wine.txt > w64.txt
    cmp -s o64.txt w64.txt
    result $? "seh64: hcpsim writes what Wine writes" "$(diff o64.txt w64.txt | head -6 | tr '\n' ' ')"
  else
    n=$((n + 1))
    echo "ok $n - seh64: hcpsim writes what Wine writes [PE-WINE] # SKIP wine did not run the program (status $wst)"
  fi
  command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
fi
echo "1..$n"
exit $((fail > 0))
