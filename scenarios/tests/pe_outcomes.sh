#!/bin/sh
# Documented failure outcomes of kernel32 functions (api/outcomes.tsv, with each one's source):
# scenarios/examples/pe/outcomes.c on both ISAs, each line the function and the last error it
# leaves, and the same lines under Wine (x86-64).  conformance/exports.pl then requires every
# outcome of api/outcomes.tsv to have a passing line like these.
CLAUSE=PE-OUTCOMES
. scenarios/tests/lib/tap.sh
. "$top/scenarios/tests/lib/pe_family.sh"
echo "TAP version 13"
for bits in 64 32; do
  pe_selfcheck outcomes $bits 9
  pe_twice outcomes $bits
done
pe_wine outcomes '^$'
command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
echo "1..$n"
exit $((fail > 0))
