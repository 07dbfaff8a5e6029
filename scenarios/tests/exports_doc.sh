#!/bin/sh
# api/EXPORTS.md, the page of what a program can import, is the export spec's: regenerated from
# api/exports.spec it is byte-identical to the committed page, and it lists as many exports as
# `hcpsim describe --imports` (api/README.md "The export spec").
CLAUSE=PE-EXPORT-SPEC
. scenarios/tests/lib/tap.sh
echo "TAP version 13"
perl "$top/api/exportsdoc.pl" "$top/api/exports.spec" > now.md
cmp -s now.md "$top/api/EXPORTS.md"
result $? "api/EXPORTS.md is current with api/exports.spec (make exports-doc)" "$(diff "$top/api/EXPORTS.md" now.md | head -5)"
rows=$($HCPSIM describe --imports | sed -n 's/^import table: \([0-9]*\) rows.*/\1/p')
listed=$(grep -c '^| [0-9]' "$top/api/EXPORTS.md")
result $([ "$rows" = "$listed" ]; echo $?) "api/EXPORTS.md lists the $rows exports hcpsim describe --imports counts (got $listed)"
echo "1..$n"
exit $((fail > 0))
