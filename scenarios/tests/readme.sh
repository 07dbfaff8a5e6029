#!/bin/sh
# The README's example scenario runs and prints what the README says it
# prints (spin(1000): 4 + 2*1000 instructions, 2 + 1000 branches).
HCPSIM=${HCPSIM:-build/hcpsim}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
awk '/^```lua$/{on=1; next} /^```$/{if(on){exit}} on{print}' README.md > "$dir/example.lua"
echo "TAP version 13"
echo "1..4"
[ -s "$dir/example.lua" ] && echo "ok 1 - README.md has a Lua example [SIM-README-EXAMPLE]" || echo "not ok 1 - README.md has a Lua example [SIM-README-EXAMPLE]"
out=$($HCPSIM run "$dir/example.lua" 2>&1); st=$?
[ "$st" = 0 ] && echo "ok 2 - it runs (status 0) [SIM-README-EXAMPLE]" || echo "not ok 2 - it runs (status $st: $out) [SIM-README-EXAMPLE]"
want=$(printf '%d\t%d' $((4 + 2 * 1000)) $((2 + 1000)))
if [ "$out" = "$want" ]; then echo "ok 3 - it prints what the README says [SIM-README-EXAMPLE]"; else echo "not ok 3 - it prints '$out', want '$want' [SIM-README-EXAMPLE]"; fi
# The tour table in the README is what `make run` prints today (documentation stays current).
awk '/^## What `make run` shows/{on=1; next} on && /^```$/{n++; if (n == 2) exit; next} on && n == 1 {print}' README.md > "$dir/table"
$HCPSIM run scenarios/examples/tour.lua > "$dir/tour" 2>&1
missing=0
while IFS= read -r line; do grep -qxF "$line" "$dir/tour" || missing=$((missing + 1)); done < "$dir/table"
if [ -s "$dir/table" ] && [ "$missing" = 0 ]; then echo "ok 4 - README's tour table matches make run [SIM-README-EXAMPLE]"; else echo "not ok 4 - README's tour table: $missing line(s) differ from make run [SIM-README-EXAMPLE]"; fi
grep -q "It prints \`$want\`" README.md || { echo "# README text does not quote $want"; exit 1; }
[ "$st" = 0 ] && [ "$out" = "$want" ]
