#!/bin/sh
# A program's own calls reach --report and --trace, decoded by the export spec (api/README.md "The
# export spec": one call path).  The counts come from scenarios/examples/pe/threads.c's source:
# CreateThread 7 times (2 workers, the exiter, the sleeper, the pulsed thread, then a sleeper and
# a spinner), CreateEventA 3 times (two with the name "hcpsim-ev", one unnamed), and
# EnterCriticalSection 200 times (2 workers x 100) and the C runtime's TLS callback 5 more times
# (__mingw_TLScallback enters its lock at DLL_THREAD_DETACH of the 4 threads that end by returning
# or ExitThread and at DLL_PROCESS_DETACH: api/README.md "DLLs"); each on x86-64 and i386.
CLAUSE=PE-EXPORT-SPEC
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
count() { # report.json function: its guest calls, from by_function
  perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $r = decode_json(<$f>);
    my $c = $r->{machines}[0]{api}{by_function}{$ARGV[1]}; print $c ? $c->{guest} : 0' "$1" "$2"
}
spans() { # trace.json function: its spans on the threads' call tracks
  perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $t = decode_json(<$f>);
    print scalar grep { ($_->{cat} // "") eq "api" && $_->{name} eq $ARGV[1] } @{ $t->{traceEvents} }' "$1" "$2"
}
for bits in 64 32; do
  exe=threads$bits.exe
  cp "$pe/$exe" .
  $HCPSIM run --report r$bits.json --trace t$bits.json "$exe" > out.txt 2> err.txt; st=$?
  $HCPSIM run --report r$bits.md "$exe" > /dev/null 2>&1
  result $([ "$st" = 3 ]; echo $?) "$exe runs with --report and --trace to its exit status 3 (status $st)" "$(head -c 300 err.txt)"
  for want in CreateThread:7 CreateEventA:3 EnterCriticalSection:205; do
    fn=${want%:*} k=${want#*:}
    got=$(count r$bits.json "$fn")
    result $([ "$got" = "$k" ]; echo $?) "$exe: KERNEL32.dll!$fn: the report counts the process's $k calls (got $got)"
    got=$(spans t$bits.json "$fn")
    result $([ "$got" = "$k" ]; echo $?) "$exe: KERNEL32.dll!$fn: the trace has $k call spans (got $got)"
  done
  grep -qF 'CreateEventA(lpEventAttributes=0x0, bManualReset=TRUE, bInitialState=FALSE, lpName="hcpsim-ev")' r$bits.md
  result $? "$exe: the Markdown report decodes CreateEventA by the spec: parameter names, BOOLs, the name's text"
  grep -qF 'CreateEventA(lpEventAttributes=0x0, bManualReset=TRUE, bInitialState=FALSE, lpName=0x0)' r$bits.md
  result $? "$exe: an unnamed event's lpName is a NULL pointer, shown as 0x0"
  grep -q 'WaitForSingleObject(hHandle=0x[0-9A-F]*, dwMilliseconds=INFINITE) → WAIT\\_OBJECT\\_0' r$bits.md
  result $? "$exe: WaitForSingleObject's timeout decodes as INFINITE and its result as WAIT_OBJECT_0"
done
echo "1..$n"
exit $((fail > 0))
