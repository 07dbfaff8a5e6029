#!/bin/sh
# hcpsim check PROGRAM.exe (scenarios/README.md "Checking a program"): a program's imports DLL by
# DLL and what a run gives each, without running it.  Its lists are compared with objdump -p's (an
# independent reader of the import directory) and its marks with hcpsim describe --imports (the
# table a run resolves against: yes = implemented, no-op and returns TRUE = no-op; stub (known, not
# implemented) and a name no row has = missing); a program that imports a function hcpsim lacks and a DLL no run finds (built here
# with an import library dlltool makes from a .def) is predicted to stop, and does stop, at the
# first of them.  hcp.check(path) and p.imports give a scenario the same facts.
CLAUSE=PE-CHECK
. scenarios/tests/lib/tap.sh
pe=$(dirname "$HCPSIM")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
# DLL!Name<TAB>implemented column ("yes", "no-op", "returns TRUE", "stub"; the kind "guest code" is two words)
$HCPSIM describe --imports | awk 'NR > 5 { print $1 "!" $3 "\t" ($4 == "guest" ? $6 : $5) }' >table.txt

# imports FILE: "DLL!Name" per import of FILE as objdump -p reads its import tables (by name only).
imports() {
  x86_64-w64-mingw32-objdump -p "$1" | awk '/DLL Name:/ { dll = $3; next }
    /^$/ { dll = "" } dll != "" && /^\t[0-9a-f]+\t? *[0-9]+ +[A-Za-z_]/ { print dll "!" $NF }' | sort
}
# The expected mark of each import of a list on stdin: the table's row, msvcrt's
# __C_specific_handler never called (only exception dispatch calls it), else missing.
marks() {
  awk -F'\t' 'NR == FNR { t[tolower($1)] = $2; next } {
      k = tolower($0); m = "missing"
      if (k in t) m = (t[k] == "yes" ? "implemented" : t[k] == "stub" ? "missing" : "no-op")
      else if (k == "msvcrt.dll!__c_specific_handler") m = "never-called"
      print $0 "\t" m }' table.txt -
}
# The marks check --json gives: "DLL!Name<TAB>state" per import, sorted.
json_marks() {
  perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(<STDIN>);
    for my $dl (@{$d->{dlls}}) { print "$dl->{name}!$_->{name}\t$_->{state}\n" for @{$dl->{imports}} }' | sort
}

ok_all=0 nprog=0 bad=""
for exe in "$pe"/*.exe; do
  name=$(basename "$exe")
  case $name in missing*|fallback*) continue ;; esac
  nprog=$((nprog + 1))
  $HCPSIM check "$exe" >out.txt 2>err.txt
  st=$?
  $HCPSIM check --json "$exe" >out.json 2>>err.txt
  json_marks <out.json >got.txt
  imports "$exe" | marks >want.txt
  if [ "$st" = 0 ] && cmp -s got.txt want.txt && [ ! -s err.txt ] &&
    grep -qx "verdict: $name can run: nothing it imports is missing.*" out.txt; then :; else
    ok_all=1 bad="$bad $name (status $st: $(diff want.txt got.txt | head -3 | tr '\n' ' ') $(cat err.txt))"
  fi
done
result "$([ "$ok_all" = 0 ] && [ "$nprog" -gt 30 ]; echo $?)" \
  "each of the $nprog example programs: status 0, 'can run', every import objdump lists, each marked as the import table says" \
  "$bad"

# missing.exe calls Beep: predicted, and then seen in the run.
cp "$pe/missing64.exe" "$pe/missing32.exe" .
for bits in 64 32; do
  $HCPSIM check "missing$bits.exe" >out.txt 2>err.txt
  st=$?
  nimp=$(imports "missing$bits.exe" | wc -l | tr -d ' ')
  want="verdict: missing$bits.exe: 1 of $nimp imports missing (KERNEL32.dll!Beep): its run stops at the first call of a missing one (status 125)"
  [ "$st" = 1 ] && [ "$(tail -1 out.txt)" = "$want" ] && grep -qx '  missing       Beep: known to hcpsim, not implemented' out.txt
  result $? "missing$bits.exe: status 1, Beep marked missing, the verdict names KERNEL32.dll!Beep" \
    "status $st: $(tail -1 out.txt); want: $want"
done

# A program of its own: a function of a DLL no folder has (made.dll, from an import library made
# with dlltool), Beep, and an ordinal no row of KERNEL32.dll has.  Each is named; the run does not
# start without made.dll, as check says, and with it stops at Beep, the missing one it calls.
cat >made.c <<'C'
#include <stdio.h>
#include <windows.h>
__declspec(dllimport) int made_function(int);
int main(int argc, char **argv) {
    (void)argv;
    puts("before");
    fflush(stdout);
    if (argc > 1) Beep(440, 10);
    return made_function(3);
}
C
printf 'LIBRARY made.dll\nEXPORTS\nmade_function\n' >made.def
x86_64-w64-mingw32-dlltool -d made.def -l libmade.a &&
  x86_64-w64-mingw32-gcc -O2 -o made.exe made.c libmade.a 2>cc.txt
result $? "made.exe builds against made.dll's import library" "$(cat cc.txt)"
x86_64-w64-mingw32-objdump -p made.exe | grep -q 'DLL Name: made.dll'
result $? "objdump -p: made.exe imports made.dll"
$HCPSIM check made.exe >out.txt 2>err.txt
st=$?
nimp=$(imports made.exe | wc -l | tr -d ' ')
want="verdict: made.exe does not start: made.dll is not found (status 53); 2 of $nimp imports missing (KERNEL32.dll!Beep, made.dll!made_function), 1 DLL not found (made.dll)"
[ "$st" = 1 ] && [ "$(tail -1 out.txt)" = "$want" ]
result $? "made.exe: status 1; the verdict says the run does not start (made.dll, status 53) and names the missing functions" \
  "status $st: $(tail -1 out.txt); want: $want"
grep -qx 'made.dll: not found: not a system DLL hcpsim simulates, and no folder has it (the run does not start); 1 import: 1 missing' out.txt &&
  grep -qx '  missing       made_function' out.txt &&
  grep -qx 'KERNEL32.dll: found: a system DLL hcpsim simulates; .*, 1 missing' out.txt
result $? "made.exe: made.dll not found, its function missing; KERNEL32.dll found with one missing" "$(grep -v '^  implemented' out.txt)"
$HCPSIM check --json made.exe >made.json 2>err.txt
st=$?
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(<STDIN>); my $c = $d->{counts};
  my ($made) = grep { $_->{name} eq "made.dll" } @{$d->{dlls}};
  my $sum = 0; $sum += $_ for values %$c; my $n = 0; $n += @{$_->{imports}} for @{$d->{dlls}};
  exit($d->{schema} eq "hcpsim-check" && $d->{version} == 1 && !$d->{runs} && $d->{machine} eq "x86-64"
       && $d->{start_status} == 0xC0000135 && $d->{start_error} eq "made.dll is not found" && !$made->{image}
       && $d->{platform} eq "win10-x64" && join(",", @{$d->{missing}}) eq "KERNEL32.dll!Beep,made.dll!made_function"
       && join(",", @{$d->{dlls_not_found}}) eq "made.dll" && !defined $made->{found} && $made->{by} eq "made.exe"
       && $c->{missing} == 2 && $sum == $n && $d->{verdict} =~ /^made\.exe does not start: made\.dll is not found \(status 53\); 2 of /
       && $made->{imports}[0]{state} eq "missing" && !defined $made->{imports}[0]{kind} ? 0 : 1)' <made.json
r=$?
result "$([ "$st" = 1 ] && [ $r = 0 ]; echo $?)" \
  "--json: schema hcpsim-check 1, runs false, start_status 0xC0000135, missing and dlls_not_found named, counts add up to the imports" \
  "status $st"
$HCPSIM run made.exe >out.txt 2>err.txt
st=$?
[ "$st" = 53 ] && [ "$(cat err.txt)" = "hcpsim: made.exe: The code execution cannot proceed because made.dll was not found. Reinstalling the program may fix this problem. (made.exe imports it; hcpsim looked in .)" ] &&
  [ ! -s out.txt ]
result $? "the run does not start: made.dll is not found (Windows' message, status 53, STATUS_DLL_NOT_FOUND's low byte)" "status $st: $(cat err.txt)"
# made.dll built beside it: the run loads it, calls made_function, and stops at Beep when asked
printf 'int made_function(int x) { return x + 4; }\n' >madedll.c
x86_64-w64-mingw32-gcc -O2 -shared -o made.dll madedll.c made.def 2>cc.txt
$HCPSIM run made.exe >out.txt 2>err.txt
st=$?
[ "$st" = 7 ] && [ "$(tr -d '\r' <out.txt)" = before ] && [ ! -s err.txt ]
result $? "with made.dll beside it the run loads it and made_function(3) returns 7" "status $st: $(cat err.txt cc.txt)"
$HCPSIM run made.exe beep >out.txt 2>err.txt
[ "$(cat err.txt)" = "hcpsim: made.exe called KERNEL32.dll!Beep, which hcpsim does not implement" ]
result $? "... and with an argument at Beep, which it calls first" "$(cat err.txt)"
$HCPSIM check made.exe >out.txt 2>err.txt
st=$?
[ "$st" = 1 ] && grep -qx 'made.dll: found: the DLL image ./made.dll; 1 import: 1 implemented' out.txt &&
  grep -qx '  implemented   made_function' out.txt &&
  grep -qx 'made.dll imports KERNEL32.dll: found: a system DLL hcpsim simulates; .*' out.txt &&
  [ "$(tail -1 out.txt)" = "verdict: made.exe: 1 of $(($(imports made.exe | wc -l) + $(imports made.dll | wc -l))) imports missing (KERNEL32.dll!Beep): its run stops at the first call of a missing one (status 125)" ]
result $? "check finds made.dll beside the program: its export made_function implemented, its own imports listed after it, only Beep missing" \
  "status $st: $(grep -v '^  implemented' out.txt)"
mkdir -p lib && mv made.dll lib/
$HCPSIM check made.exe >out.txt 2>err.txt
st1=$?
$HCPSIM check --dll-path lib made.exe >out2.txt 2>err.txt
st2=$?
[ "$st1" = 1 ] && grep -q 'does not start: made.dll is not found' out.txt &&
  grep -qx 'made.dll: found: the DLL image lib/made.dll; 1 import: 1 implemented' out2.txt
result $? "check --dll-path DIR searches DIR after the program's folder, as the run does" "status $st1/$st2: $(tail -1 out.txt) $(grep '^made.dll' out2.txt)"
printf 'int other_function(int x) { return x; }\n' >other.c
x86_64-w64-mingw32-gcc -O2 -shared -o lib/made.dll other.c 2>cc.txt
$HCPSIM check --dll-path lib made.exe >out.txt 2>err.txt
st=$?
$HCPSIM run --dll-path lib made.exe >run.txt 2>err.txt
rst=$?
[ "$st" = 1 ] && grep -qx '  missing       made_function: made.dll does not export it: the run does not start' out.txt &&
  grep -q 'does not start: the procedure entry point made_function is not in made.dll (status 57)' out.txt && [ "$rst" = 57 ]
result $? "a DLL image without the export: check says the run does not start (status 57), and the run does not" \
  "status $st, run $rst: $(tail -1 out.txt) $(cat err.txt)"
rm -rf lib
rm -f made.dll

# Imports by ordinal: KERNEL32.dll's GetCurrentProcessId by hcpsim's own ordinal is named and
# implemented; ordinal 9999 (no row) is '#9999', missing.
ord=$($HCPSIM describe --imports | awk '$1 == "KERNEL32.dll" && $3 == "GetCurrentProcessId" { print $2 }')
printf 'LIBRARY KERNEL32.dll\nEXPORTS\nGetCurrentProcessId @%s NONAME\nBeep @9999 NONAME\n' "$ord" >k.def
cat >ord.c <<'C'
#include <windows.h>
int main(int argc, char **argv) {
    (void)argv;
    if (argc > 1) Beep(1, 1);
    return (int)GetCurrentProcessId();
}
C
x86_64-w64-mingw32-dlltool -k -d k.def -l libk.a && x86_64-w64-mingw32-gcc -O2 -o ord.exe ord.c libk.a 2>cc.txt
$HCPSIM check ord.exe >out.txt 2>err.txt
st=$?
grep -qx "  implemented   GetCurrentProcessId (ordinal $ord)" out.txt && grep -qx '  missing       #9999' out.txt &&
  grep -q '(KERNEL32.dll!#9999)' out.txt
r=$?
result "$([ "$st" = 1 ] && [ $r = 0 ]; echo $?)" \
  "imports by ordinal: hcpsim's ordinal $ord is GetCurrentProcessId, implemented; 9999, which no row has, is missing" \
  "status $st: $(cat cc.txt) $(grep -v '^  implemented   [A-Za-z_]*$' out.txt)"

# The same facts in a scenario: hcp.check(path) before a machine exists, p.imports after m:process.
cp "$pe/hello64.exe" .
cat >c.lua <<'EOF'
local hcp = require "hcpsim"
local c = hcp.check("made.exe")
print(c.runs, table.concat(c.missing, ","), table.concat(c.dlls_not_found, ","), c.counts.missing, c.verdict, c.start_status)
local m = hcp.machine {}
local p = m:process { path = "hello64.exe", echo = false }
local i = p.imports
print(i.runs, #i.missing, i.counts.implemented + i.counts.no_op + i.counts.never_called, i.dlls[1].name, i.dlls[1].found)
EOF
$HCPSIM run c.lua >out.txt 2>err.txt
st=$?
verdict=$(perl -MJSON::PP -e 'local $/; print JSON::PP->new->decode(<STDIN>)->{verdict}' <made.json)
nimp=$(imports hello64.exe | wc -l | tr -d ' ')
want="false	KERNEL32.dll!Beep,made.dll!made_function	made.dll	2	$verdict	3221225781
true	0	$nimp	KERNEL32.dll	KERNEL32.dll"
[ "$st" = 0 ] && [ "$(cat out.txt)" = "$want" ]
result $? "hcp.check(path) and p.imports: runs, missing, dlls_not_found, counts and the verdict of hcpsim check" \
  "status $st: $(cat out.txt err.txt); want: $want"
printf 'local hcp = require "hcpsim"\nhcp.check("nothere.exe")\n' >nf.lua
$HCPSIM run nf.lua >out.txt 2>err.txt
st=$?
[ "$st" = 2 ] && [ "$(cat err.txt)" = "nf.lua:2: hcp.check: nothere.exe: cannot open the file" ]
result $? "hcp.check of a missing file: a scenario error naming it" "status $st: $(cat err.txt)"

# A malformed image gets the loader's message, as from hcpsim run; usage errors.
head -c 100 "$pe/hello64.exe" >short.exe
$HCPSIM check short.exe >out.txt 2>err.txt
st=$?
$HCPSIM run short.exe >/dev/null 2>run.txt
[ "$st" = 2 ] && [ "$(cat err.txt)" = "$(cat run.txt)" ] && [ -s err.txt ]
result $? "a truncated image: status 2 and hcpsim run's message" "status $st: $(cat err.txt) / $(cat run.txt)"
check_usage() { # name, stderr, arguments...
  name=$1 want=$2
  shift 2
  $HCPSIM check "$@" >out.txt 2>err.txt
  st=$?
  result "$([ "$st" = 2 ] && [ "$(cat err.txt)" = "$want" ]; echo $?)" "$name" "status $st: $(cat err.txt)"
}
check_usage "no program" "hcpsim: check needs a program: hcpsim check [--json] [--dll-path DIR]... PROGRAM.exe"
check_usage "an unknown option" "hcpsim: check: unknown option '--all' (valid: --json, --dll-path DIR)" --all made.exe
# An export's kind in a DLL image: hcpdll.dll's hcpdll_data is DATA (hcpdll.def) and lies in a
# section without IMAGE_SCN_MEM_EXECUTE (0x20000000, the PE format's mark of code); hcpdll_add is code.
cp "$pe/dll64/dlluse.exe" "$pe/dll64/hcpdll.dll" "$pe/dll64/hcpdll2.dll" .
$HCPSIM check --json dlluse.exe >dll.json 2>err.txt
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(<STDIN>);
  my ($h) = grep { $_->{name} eq "hcpdll.dll" } @{$d->{dlls}};
  my %k = map { ($_->{name} // "") => ($_->{kind} // "") } @{$h->{imports}};
  exit($k{hcpdll_data} eq "data" && $k{hcpdll_add} eq "function" ? 0 : 1)' <dll.json
result $? "check dlluse.exe: hcpdll.dll's DATA export is data (its section is not executable), hcpdll_add a function" \
  "$(grep -o '"name": *"hcpdll_[a-z]*"\|"kind": *"[a-z ]*"' dll.json | tr '\n' ' ' | head -c 300)"
check_usage "--dll-path without a folder" "hcpsim: check: --dll-path needs a folder name" made.exe --dll-path
check_usage "two programs" "hcpsim: check: one program at a time (got 'ord.exe' after 'made.exe')" made.exe ord.exe
check_usage "a missing file" "hcpsim: check: cannot open nothere.exe: No such file or directory" nothere.exe
echo "1..$n"
[ "$fail" = 0 ]
