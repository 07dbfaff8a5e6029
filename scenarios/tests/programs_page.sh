#!/bin/sh
# api/PROGRAMS.md, what a Windows program can use: its generated part is what api/programs_page.pl
# writes from `hcpsim describe --imports` today (make programs-page rewrites it), every row of the
# table is on the page, and the functions its text says a program cannot have are no row of the
# table while those it says work are.
CLAUSE=PE-PROGRAMS-PAGE
. scenarios/tests/lib/tap.sh
echo "TAP version 13"
page=$top/api/PROGRAMS.md
cp "$page" page.md
$HCPSIM describe --imports >table.txt
perl "$top/api/programs_page.pl" page.md <table.txt 2>err.txt
st=$?
cmp -s page.md "$page"
result "$([ "$st" = 0 ] && cmp -s page.md "$page"; echo $?)" \
  "api/PROGRAMS.md is what api/programs_page.pl writes from hcpsim describe --imports (make programs-page)" \
  "status $st: $(cat err.txt) $(diff "$page" page.md | head -5 | tr '\n' '|')"
missing=""
rows=0
for f in $(awk 'NR > 5 { print $3 }' table.txt); do
  rows=$((rows + 1))
  grep -q "\`$f\`" "$page" || missing="$missing $f"
done
result "$([ -z "$missing" ] && [ "$rows" -gt 100 ]; echo $?)" "every one of the table's $rows rows is on the page" \
  "missing:$missing"
bad=""
for f in CreateFileA CreateFileW RaiseException RtlUnwindEx RtlVirtualUnwind RtlLookupFunctionEntry RtlCaptureContext; do
  awk -v f="$f" 'NR > 5 && $3 == f { found = 1 } END { exit !found }' table.txt && bad="$bad $f"
done
for f in DeleteFileA LoadLibraryA LoadLibraryW; do
  awk -v f="$f" 'NR > 5 && $3 == f { found = 1 } END { exit !found }' table.txt || bad="$bad !$f"
done
result "$([ -z "$bad" ]; echo $?)" "the functions the page says a program lacks are no row of the table; those it says work are" \
  "wrong:$bad"
echo "1..$n"
[ "$fail" = 0 ]
