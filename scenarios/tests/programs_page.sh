#!/bin/sh
# api/PROGRAMS.md, what a Windows program can use and what it cannot, against the export table
# (`hcpsim describe --imports`, generated from api/exports.spec): the functions the page says a
# program cannot have are not implemented (no row, or a row that is a stub), those it says work
# are, and the page sends the reader to api/EXPORTS.md for the whole list.
CLAUSE=PE-PROGRAMS-PAGE
. scenarios/tests/lib/tap.sh
echo "TAP version 13"
page=$top/api/PROGRAMS.md
# DLL!Name<TAB>implemented column ("yes", "no-op", "returns TRUE", "stub"; "guest code" is two words)
$HCPSIM describe --imports | awk 'NR > 5 { print $3 "\t" ($4 == "guest" ? $6 : $5) }' >table.txt
implemented() { awk -F'\t' -v f="$1" '$1 == f && $2 != "stub" { found = 1 } END { exit !found }' table.txt; }
result "$([ "$(wc -l <table.txt)" -gt 100 ]; echo $?)" "hcpsim describe --imports lists the table ($(wc -l <table.txt) rows)"
bad=""
for f in _CxxThrowException; do
  grep -q "$(echo "$f" | sed 's/[AW]$//')" "$page" || bad="$bad unnamed:$f"
  implemented "$f" && bad="$bad implemented:$f"
done
for f in CreateFileA CreateFileW DeleteFileA LoadLibraryA LoadLibraryW fopen RaiseException RtlUnwindEx RtlVirtualUnwind RtlLookupFunctionEntry RtlCaptureContext; do
  implemented "$f" || bad="$bad missing:$f"
done
result "$([ -z "$bad" ]; echo $?)" \
  "the functions the page says a program lacks are not implemented; those it says work are" "wrong:$bad"
grep -q '`EXPORTS.md`' "$page" && [ -f "$top/api/EXPORTS.md" ]
result $? "the page points to api/EXPORTS.md for the list"
echo "1..$n"
[ "$fail" = 0 ]
