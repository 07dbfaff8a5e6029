#!/bin/sh
# The home rule of clauses.pl (README.md "Where a test goes") on hand-made input: a home table
# in a README of its own and TAP streams written here, against the real catalogue.  A line
# outside the home of its first clause and a clause a witness names but its home does not are
# each one diagnostic of test 10; a line in a home matched by a pattern, a clause named second
# that its home tests too, a C test's clause and an id no row matches are none.
CLAUSE=SIM-CLAUSE-COVERAGE
. scenarios/tests/lib/tap.sh
cl="$top/conformance/clauses.pl"
cat="$top/conformance/clauses.tsv"

cat >README.md <<'EOF'
# x

### Where a test goes

| clauses | home | subject |
|---|---|---|
| `HCP-READ-`, `HCP-COUNT-EXACT` | `x/read.lua` | Read |
| `HCP-ENABLE-` | `x/enable.lua`, `x/more_*.lua` | Enable |

| program | kind | why |
|---|---|---|
| `x/witness.lua` | witness | a second check |
| `*/tests/*_test.c` | own | C |

## next
EOF
mkdir -p tap
printf 'TAP version 13\n1..3\nok 1 - a [HCP-READ-SIZE-EXACT]\nok 2 - b [HCP-ENABLE-FLAGS]\nok 3 - c [HCP-COUNT-EXACT]\n' >tap/x_read.lua.tap
printf '1..2\nok 1 - d [HCP-ENABLE-MASK,HCP-READ-SIZE-EXACT]\nok 2 - e [SIM-CLI]\n' >tap/x_enable.lua.tap
printf '1..1\nok 1 - f [HCP-ENABLE-FLAGS]\n' >tap/x_more_b.lua.tap
printf '1..2\nok 1 - g [HCP-READ-FLAGS]\nok 2 - h [HCP-ENABLE-MASK]\n' >tap/x_witness.lua.tap
printf '1..1\nok 1 - i [HCP-READ-SLOT-BY-INDEX]\n' >tap/build_y_tests_z_test.t.tap
progs="x/read.lua x/enable.lua x/more_b.lua x/witness.lua build/y/tests/z_test.t"

# shellcheck disable=SC2086 # the program list splits on purpose
perl "$cl" --catalogue "$cat" --readme README.md --tap-dir tap $progs >out 2>err
grep -q '^not ok 10 - every test is in the home of its clause' out
result $? "test 10 fails on the hand-made streams" "$(grep '^[a-z ]*ok 10' out)"
printf '%s\n' \
  '# x/read.lua: test 2 names HCP-ENABLE-FLAGS first, whose home is x/enable.lua x/more_*.lua: b [HCP-ENABLE-FLAGS]' \
  '# HCP-READ-FLAGS: named by x/witness.lua, but by no test of its home x/read.lua' >want
grep '^# x/\|^# HCP-\|^# SIM-\|^# README' err >got
cmp -s want got
result $? "exactly two diagnostics: the misplaced line, the clause only a witness tests" \
  "$(tr '\n' '|' <got)"

# The same streams without those two problems pass.
printf 'TAP version 13\n1..3\nok 1 - a [HCP-READ-SIZE-EXACT]\nok 2 - b [HCP-READ-FLAGS]\nok 3 - c [HCP-COUNT-EXACT]\n' >tap/x_read.lua.tap
# shellcheck disable=SC2086
perl "$cl" --catalogue "$cat" --readme README.md --tap-dir tap $progs >out 2>err
grep -q '^ok 10 - every test is in the home of its clause' out
result $? "with the line in its home and the witness's clause tested there, test 10 passes" "$(tr '\n' '|' <err)"

# --homes: each row with the programs naming its clauses (lines per program).
# shellcheck disable=SC2086
perl "$cl" --homes --catalogue "$cat" --readme README.md --tap-dir tap $progs >homes 2>err
grep -qxF '  HCP-ENABLE-MASK                      enable.lua(1) witness.lua(1)' homes &&
  grep -qxF '  HCP-READ-SLOT-BY-INDEX               z_test.c(1)' homes &&
  grep -qxF 'HCP-ENABLE- -> x/enable.lua x/more_*.lua (14 clauses)' homes
result $? "--homes lists each row's clauses and the programs naming them" "$(head -c 300 homes | tr '\n' '|')"

# A README without the table is an error of test 10, not a silent pass.
printf '# x\n' >empty.md
# shellcheck disable=SC2086
perl "$cl" --catalogue "$cat" --readme empty.md --tap-dir tap $progs >out 2>err
grep -q '^not ok 10 ' out && grep -qF 'no home table under "### Where a test goes"' err
result $? "a README without the home table fails test 10" "$(tr '\n' '|' <err)"

echo "1..$n"
[ "$fail" = 0 ]
