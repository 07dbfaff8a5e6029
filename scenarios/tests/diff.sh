#!/bin/sh
# hcpsim diff A.json B.json (reports/README.md "hcpsim diff"), on report pairs written here by hand,
# so every expected number below comes from the two documents, not from a run:
#   A: thread w (1000): instructions 1000, cycles 2000; CPU 0 busy 5000; API calls Sleep([1]) then
#      SetEvent([100]) from Lua.
#   B: the same with instructions 1100 (+100 = +10.00 % of 1000) and cycles 1990 (-10 = -0.50 %).
# Then the report's run record (clause SIM-REPORT-RUN): the scenario path relative to its
# repository, and the scenario's TAP results.
top=$(pwd)
CLAUSE=SIM-DIFF
. "$top/scenarios/tests/lib/tap.sh"
echo "TAP version 13"

# doc NAME INSTRUCTIONS CYCLES CALLS [EXTRA THREADS]: a minimal report (schema hcpsim-report, version 1).
doc() {
  cat >"$1" <<DOC
{"schema": "hcpsim-report", "version": 1, "generator": "hcpsim",
 "run": {"scenario": "s.lua", "seed": 1, "args": [], "status": "complete", "exit_status": 0, "error": null,
         "partial": null, "tap": null},
 "machines": [{"index": 0, "platform": "win10-x64", "semantics": "documented", "end_cycles": 9000,
   "threads": [{"index": 0, "id": 1000, "name": "w", "state": "Terminated", "exit_code": 0,
                "counters": {"instructions": $2, "cycles": $3}, "cycle_time": 2000, "run_cycles": 2000,
                "ticks": 0, "intervals": 1, "api_calls": 2, "switches": {"in": 1, "out": {}, "exit": 1}}$5],
   "cpus": [{"index": 0, "time": 9000, "busy": 5000, "idle": 4000, "interrupt": 0, "ticks": 0, "switches": 1,
             "intervals": 1}],
   "api": {"total": 2, "by_function": {"Sleep": {"lua": 1, "guest": 0}, "SetEvent": {"lua": 1, "guest": 0}},
           "calls": [$4]}}]}
DOC
}
calls='{"seq": 0, "tid": 1000, "via": "lua", "function": "Sleep", "args": [1], "results": [], "completed": true, "start": 5, "end": 9},
       {"seq": 1, "tid": 1000, "via": "lua", "function": "SetEvent", "args": [100], "results": [1], "completed": true, "start": 10, "end": 11}'
doc a.json 1000 2000 "$calls"
doc a2.json 1000 2000 "$calls"
doc b.json 1100 1990 "$calls"

$HCPSIM diff a.json a2.json >out.txt 2>err.txt
st=$?
[ "$st" = 0 ] && [ "$(tail -1 out.txt)" = "the same: 0 differences." ] && [ ! -s err.txt ]
result $? "two equal reports: exit 0, 'the same: 0 differences.'" "status $st: $(cat out.txt err.txt)"

$HCPSIM diff a.json b.json >out.txt 2>err.txt
st=$?
[ "$st" = 1 ] && [ "$(tail -1 out.txt)" = "different: 2 differences." ]
result $? "instructions and cycles moved: exit 1, 2 differences" "status $st: $(tail -1 out.txt)"
grep -Eq '^machine 0 +thread w \(1000\) +instructions +1,000 +1,100 +\+100 +\+10\.00%$' out.txt
result $? "the terminal table: thread w (1000), instructions 1,000 -> 1,100, +100, +10.00 % (digits grouped)" "$(cat out.txt)"
grep -Eq '^machine 0 +thread w \(1000\) +cycles +2,000 +1,990 +-10 +-0\.50%$' out.txt
result $? "the terminal table: cycles 2,000 -> 1,990, -10, -0.50 %"

$HCPSIM diff --format json a.json b.json >d.json 2>err.txt
st=$?
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(scalar <STDIN>);
  my %r = map { $_->{metric} => $_ } @{$d->{rows}};
  my ($i, $c) = ($r{instructions}, $r{cycles});
  exit(!$d->{same} && $d->{differences} == 2 && $d->{within_tolerance} == 0 && $d->{schema} eq "hcpsim-diff"
       && $i->{a} == 1000 && $i->{b} == 1100 && $i->{change} == 100 && $i->{relative_bp} == 1000
       && $c->{change} == -10 && $c->{relative_bp} == -50 && $i->{item} eq "thread w (1000)" ? 0 : 1)' <d.json
r=$?
[ "$st" = 1 ] && [ "$r" = 0 ]
result $? "--format json: rows with a, b, change and relative_bp (+1000 = +10 %, -50 = -0.5 %), same false" "status $st"

# Tolerance: cycles moved by 10 of 2000; 0.5 % of 2000 is exactly 10 (within), 0.49 % is 9.8 (not).
$HCPSIM diff --tolerance cycles=0.5 a.json b.json >out.txt
st=$?
[ "$st" = 1 ] && [ "$(tail -1 out.txt)" = "different: 1 difference, 1 more within tolerance." ] && ! grep -q ' cycles ' out.txt
result $? "--tolerance cycles=0.5: a change of exactly 0.5 % passes (inclusive); instructions still differ" "$(tail -1 out.txt)"
$HCPSIM diff --tolerance cycles=0.49 a.json b.json >out.txt
[ "$(tail -1 out.txt)" = "different: 2 differences." ]
result $? "--tolerance cycles=0.49: 10 cycles is more than 0.49 % of 2000 (9.8)" "$(tail -1 out.txt)"
$HCPSIM diff --tolerance all=10 a.json b.json >out.txt
st=$?
[ "$st" = 0 ] && [ "$(tail -1 out.txt)" = "the same: 0 differences, 2 more within tolerance." ]
result $? "--tolerance all=10: +10.00 % and -0.50 % both pass: exit 0" "status $st: $(tail -1 out.txt)"

# API calls: the first call where the sequences diverge (times are not compared).
calls2='{"seq": 0, "tid": 1000, "via": "lua", "function": "Sleep", "args": [1], "results": [], "completed": true, "start": 7, "end": 20},
        {"seq": 1, "tid": 1000, "via": "lua", "function": "SetEvent", "args": [104], "results": [0], "completed": true, "start": 21, "end": 22}'
doc c.json 1000 2000 "$calls2"
$HCPSIM diff --format json a.json c.json >d.json
st=$?
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(scalar <STDIN>); my @r = @{$d->{rows}};
  exit(@r == 1 && $r[0]{item} eq "API call #1" && $r[0]{metric} eq "first divergent call"
       && $r[0]{a} eq "SetEvent[100] = [1] by 1000 via lua" && $r[0]{b} eq "SetEvent[104] = [0] by 1000 via lua" ? 0 : 1)' <d.json
r=$?
[ "$st" = 1 ] && [ "$r" = 0 ]
result $? "API calls: call 1 (from 0) is the first that differs (Sleep at other times is the same call)" "$(cat d.json | head -30)"
calls3='{"seq": 0, "tid": 1000, "via": "lua", "function": "Sleep", "args": [1], "results": [], "completed": true, "start": 5, "end": 9}'
doc e.json 1000 2000 "$calls3"
$HCPSIM diff --format json a.json e.json >d.json
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(scalar <STDIN>); my ($r) = grep { $_->{item} =~ /^API call/ } @{$d->{rows}};
  exit($r && $r->{item} eq "API call #1" && defined $r->{a} && !defined $r->{b} ? 0 : 1)' <d.json
result $? "a call sequence that is a prefix of the other diverges where it ends (B: absent)"

# A thread only in B.
doc f.json 1000 2000 "$calls" ', {"index": 1, "id": 1004, "name": "x", "counters": {"instructions": 7}}'
$HCPSIM diff a.json f.json >out.txt
grep -Eq '^machine 0 +thread x \(1004\) +thread +\(absent\) +present +- +-$' out.txt
result $? "a thread only in B is a row: thread x (1004), (absent) -> present" "$(cat out.txt)"

$HCPSIM diff --format md a.json b.json >out.md
st=$?
grep -q '^| scope | item | metric | A | B | change | relative |$' out.md &&
  grep -q '^| machine 0 | thread w (1000) | instructions | 1,000 | 1,100 | +100 | +10.00% |$' out.md &&
  grep -q '^| result | different: 2 differences |$' out.md
result $? "--format md: a title table and one Markdown row per difference" "$(cat out.md)"

# Determinism: the same pair twice gives the same bytes in every format.
for f in text md json; do
  $HCPSIM diff --format $f a.json b.json >o1; $HCPSIM diff --format $f a.json b.json >o2
  cmp -s o1 o2
  result $? "--format $f twice: byte-identical"
done

# ---- errors: exit 2 and one message ----
$HCPSIM diff a.json missing.json >out.txt 2>err.txt
st=$?
[ "$st" = 2 ] && grep -q '^hcpsim diff: missing.json: unable to open missing.json' err.txt && [ ! -s out.txt ]
result $? "a missing file: exit 2, 'hcpsim diff: FILE: ...', nothing on stdout" "status $st: $(cat err.txt)"
printf '{"schema": "hcpsim-report",\n "version": 1,\n "run": {,}\n}\n' >bad.json
$HCPSIM diff a.json bad.json >/dev/null 2>err.txt
st=$?
[ "$st" = 2 ] && grep -q '^bad.json:3: ' err.txt
result $? "malformed JSON: exit 2, 'FILE:LINE: message' with the line of the error (3)" "status $st: $(cat err.txt)"
echo '{"schema": "hcpsim-diff", "version": 1}' >other.json
$HCPSIM diff other.json a.json >/dev/null 2>err.txt
st=$?
[ "$st" = 2 ] && [ "$(cat err.txt)" = 'other.json:1: not an hcpsim run report (schema "hcpsim-report", version 1 or 2 expected)' ]
result $? "a JSON file that is not a run report: exit 2 and says what was expected" "status $st: $(cat err.txt)"
for args in "a.json" "a.json b.json c.json" "--tolerance cycles a.json b.json" "--tolerance cycles=x a.json b.json" \
            "--format xml a.json b.json" "--bogus a.json b.json" "a.json b.json --format"; do
  $HCPSIM diff $args >/dev/null 2>err.txt
  st=$?
  [ "$st" = 2 ] && grep -q '^usage: hcpsim diff' err.txt
  result $? "usage error (hcpsim diff $args): exit 2 and the usage" "status $st: $(cat err.txt)"
done

# ---- what a report records of its run ----
CLAUSE=SIM-REPORT-RUN
if [ -e "$top/.git" ]; then
  (cd "$top" && $HCPSIM run --report "$dir/p1.json" scenarios/examples/priority.lua >/dev/null)
  (cd "$top/scenarios" && $HCPSIM run --report "$dir/p2.json" examples/priority.lua >/dev/null)
  sc=$(perl -MJSON::PP -e 'local $/; print JSON::PP->new->decode(scalar <STDIN>)->{run}{scenario}' <p2.json)
  $HCPSIM diff p1.json p2.json >out.txt
  st=$?
  [ "$st" = 0 ] && [ "$sc" = scenarios/examples/priority.lua ]
  result $? "the same scenario run from two folders: run.scenario relative to the repository, diff exit 0" "status $st, scenario $sc"
else
  n=$((n + 1)); echo "ok $n - scenario path relative to the repository [$CLAUSE] # SKIP not a git checkout"
fi
cp "$top/scenarios/examples/priority.lua" outside.lua
$HCPSIM run --report o.json outside.lua >/dev/null
sc=$(perl -MJSON::PP -e 'local $/; print JSON::PP->new->decode(scalar <STDIN>)->{run}{scenario}' <o.json)
[ "$sc" = outside.lua ]
result $? "a scenario in no repository keeps its path as given" "got $sc"

# TAP results: 4 tests: 1 passes, 1 fails, 1 is a known gap (todo), 1 is skipped.
cat > t.lua <<'LUA'
local tap = require "hcpsim.tap"
tap.plan(4)
tap.ok(true, "passes")
tap.is(1, 2, "one is two")
tap.todo("not yet", function() tap.ok(false, "a gap") end)
tap.skip("no reason", "skipped one")
LUA
$HCPSIM run --report t.json t.lua >/dev/null
st=$?
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(scalar <STDIN>); my $t = $d->{run}{tap};
  exit($t->{planned} == 4 && $t->{tests} == 4 && $t->{passed} == 1 && $t->{failed} == 1 && $t->{todo} == 1
       && $t->{skipped} == 1 && "@{$t->{failures}}" eq "one is two" && $d->{run}{exit_status} == 1 ? 0 : 1)' <t.json
r=$?
[ "$st" = 1 ] && [ "$r" = 0 ]
result $? "run.tap: planned 4, 1 passed, 1 failed ('one is two'), 1 todo, 1 skipped; exit status 1" "status $st"
$HCPSIM run --report t.md t.lua >/dev/null
grep -q '^| TAP tests | 4 run of 4 planned: 1 passed, 1 failed, 1 todo, 1 skipped |$' t.md && grep -q '^| failed | one is two |$' t.md
result $? "the Markdown report's title table has the TAP counts and the failing description"
sed 's/tap.is(1, 2/tap.is(2, 2/' t.lua >t2.lua
$HCPSIM run --report t2.json t2.lua >/dev/null
$HCPSIM run --report t3.json t2.lua >/dev/null
sed -i 's/"t2.lua"/"t.lua"/' t2.json t3.json # the same scenario name, so only the results differ
$HCPSIM diff --format json t.json t2.json >d.json
st=$?
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(scalar <STDIN>); my %r = map { ($_->{item} . "/" . $_->{metric}, $_) } @{$d->{rows}};
  exit($r{"TAP/passed"}{change} == 1 && $r{"TAP/failed"}{change} == -1 && $r{"/exit_status"}{b} == 0
       && $r{"TAP/failures"}{a} eq q(["one is two"]) && $r{"TAP/failures"}{b} eq "[]" ? 0 : 1)' <d.json
r=$?
[ "$st" = 1 ] && [ "$r" = 0 ]
result $? "diff of a failing and a passing run: TAP passed +1, failed -1, the failures, exit_status" "status $st"
$HCPSIM diff t2.json t3.json >/dev/null
result $? "two runs of the same scenario: diff exit 0"

echo "1..$n"
[ "$fail" = 0 ]
