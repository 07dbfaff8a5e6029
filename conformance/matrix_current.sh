#!/bin/sh
# The committed conformance matrix (reports/conformance/matrix.md, made by make conformance-report)
# is current with the catalogue: it counts the catalogue's clauses and names each of them, so a
# clause added without regenerating the matrix fails here (reports/README.md).
CLAUSE=SIM-MATRIX-CURRENT
. scenarios/tests/lib/tap.sh
cat="$top/conformance/clauses.tsv"
md="$top/reports/conformance/matrix.md"
perl -I"$top/conformance" -MClauses -e 'print "$_\n" for Clauses::ids(shift)' "$cat" | sort >ids.txt
want=$(wc -l <ids.txt | tr -d ' ')
got=$(sed -n 's/^Catalogue: \([0-9]*\) clauses\.$/\1/p' "$md")
result "$([ "$got" = "$want" ]; echo $?)" "the matrix counts the catalogue's $want clauses" \
  "matrix.md says '$got': run make conformance-report"
missing=""
while read -r id; do grep -q -- "$id" "$md" || missing="$missing $id"; done <ids.txt
result "$([ -z "$missing" ]; echo $?)" "the matrix names every clause of the catalogue" \
  "missing:$(echo "$missing" | cut -c1-200): run make conformance-report"
echo "1..$n"
[ "$fail" = 0 ]
