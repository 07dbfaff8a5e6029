#!/bin/sh
# Traversal order does not depend on the process: a scenario keys tables by many unnamed objects
# (fresh tables, closures, coroutines, m:thread objects, library functions) and prints the order
# pairs and next visit them.  Lua seeds its string hash and places objects at new addresses in
# every process, so each of five processes would print its own order if any of it came from the
# host; all five must print the same bytes, and that order must be creation order
# (scenarios/README.md "Sandbox").
CLAUSE=SIM-RT-SANDBOX-DETERMINISTIC-ORDER
. scenarios/tests/lib/tap.sh
cat >keys.lua <<'LUA'
local hcp = require "hcpsim"
local function visit(t)
  local seq = {}
  for _, v in pairs(t) do seq[#seq + 1] = v end
  return table.concat(seq, " ")
end
local function seq(n)
  local s = {}
  for i = 1, n do s[i] = i end
  return table.concat(s, " ")
end
local tabs, fns, cos, ths = {}, {}, {}, {}
for i = 1, 500 do tabs[{}] = i end
for i = 1, 100 do fns[function() return i end] = i end
for i = 1, 100 do cos[coroutine.create(function() end)] = i end
local m = hcp.machine {}
for i = 1, 64 do ths[m:thread { body = function() end }] = i end
local mixed = {}
for i = 1, 50 do mixed[i % 2 == 0 and {} or function() end] = i end
print(visit(tabs) == seq(500), visit(fns) == seq(100), visit(cos) == seq(100), visit(ths) == seq(64),
      visit(mixed) == seq(50))
local nx, k = {}, nil
repeat k = next(tabs, k); if k then nx[#nx + 1] = tabs[k] end until not k
print(table.concat(nx, " ") == seq(500))
print(visit { [math.max] = 1, [table.concat] = 2, [print] = 3, [string.rep] = 4, [coroutine.wrap] = 5 })
m:run()
LUA
for i in 1 2 3 4 5; do $HCPSIM run keys.lua >out$i.txt 2>err$i.txt; echo $? >st$i.txt; done
result "$(cat st1.txt)" "the scenario runs" "$(cat err1.txt)"
same=0
for i in 2 3 4 5; do cmp -s out1.txt out$i.txt || same=1; done
result $same "five processes print the same bytes" "$(diff out1.txt out2.txt | head -5)"
line() { sed -n "$1p" out1.txt; }
result "$([ "$(line 1)" = "true	true	true	true	true" ]; echo $?)" \
  "tables, closures, coroutines, m:thread objects and a mix as keys: creation order" "$(line 1)"
result "$([ "$(line 2)" = "true" ]; echo $?)" "next visits the same order as pairs" "$(line 2)"
# Library functions are numbered by a walk of the globals, breadth first, names sorted: print
# (a global) first, then the tables of _G in name order: coroutine.wrap, math.max, string.rep,
# table.concat.
result "$([ "$(line 3)" = "3 5 1 4 2" ]; echo $?)" "library functions as keys: the walk's order" "$(line 3)"
echo "1..$n"
[ "$fail" = 0 ]
