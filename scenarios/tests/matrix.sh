#!/bin/sh
# reports/matrix.pl, the conformance matrix (reports/README.md "Conformance
# matrix"), on the hand-written fixtures in scenarios/tests/matrix/: a
# catalogue of 8 clauses and TAP streams for four columns, whose cells were
# derived by hand (matrix/README.md lists each one and why); then bad input.
top=$(pwd)
fx=$top/scenarios/tests/matrix
script=$top/reports/matrix.pl
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
n=0
fail=0
result() { # status (0 ok), name [, diagnostic file]
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2 [SIM-MATRIX]"; else
    fail=$((fail + 1)); echo "not ok $n - $2 [SIM-MATRIX]"
    [ -n "$3" ] && [ -f "$3" ] && sed 's/^/# /' "$3" | head -40
  fi
}
echo "TAP version 13"
echo "1..30"

cd "$fx" || exit 1
ARGS="suite=a.tap suite=b.tap documented=c.tap"
run() { perl "$script" "$@" clauses.tsv $ARGS 'Wine 8.0=d.tap' Windows=; }

run > "$dir/out.md" 2> "$dir/err"
result $? "matrix.pl exits 0 on the fixtures" "$dir/err"
diff -u expected.md "$dir/out.md" > "$dir/diff"
result $? "Markdown matrix equals the hand-derived matrix/expected.md" "$dir/diff"

run --md "$dir/m.md" --html "$dir/m.html" --junit "$dir/junit" 2> "$dir/err"
result $? "--md --html --junit exit 0" "$dir/err"
cmp -s expected.md "$dir/m.md"
result $? "--md writes the same document as stdout"
[ ! -e "$dir/m.md.tmp" ] && [ ! -e "$dir/m.html.tmp" ]
result $? "no .tmp files are left"
xmllint --noout "$dir/m.html" 2> "$dir/err"
result $? "HTML is well-formed XML" "$dir/err"
! grep -Eq '(src|href)="(https?:)?//|<script|<link' "$dir/m.html"
result $? "HTML is self-contained: no scripts, links or external resources"

# Cells of the HTML, by hand: T-FAIL's suite cell fails with the failing line
# (a.tap line 5), T-PASS is todo in Wine 8.0 (note 1), T-ESC's row escapes
# every special character and its Wine 8.0 cell passes, Windows has no cell.
grep -qF '<td class="v fail" title="2 tests; a.tap:5: third fails [T-FAIL]">fail <a href="#note-2">[2]</a></td>' "$dir/m.html"
result $? "HTML: T-FAIL suite cell is fail with the failing test as tooltip and note 2"
grep -qF '<td class="v todo" title="1 test; missing export">todo <a href="#note-1">[1]</a></td><td></td></tr>' "$dir/m.html"
result $? "HTML: T-PASS Wine 8.0 cell is todo with its reason, Windows blank"
grep -qF '<td>Escaping: pipes | and &lt;tags&gt; &amp; &#39;quotes&#39; *stars* ü</td><td>a|b &lt;c&gt; &amp; &quot;d&quot;</td>' "$dir/m.html"
result $? "HTML: statement and source escaped, UTF-8 kept"
grep -qF 'title="1 test; no &lt;platform&gt; &amp; &quot;x&quot;">skip <a href="#note-8">[8]</a>' "$dir/m.html"
result $? "HTML: the skip reason is escaped in the tooltip"
[ "$(grep -o "<td class=\"v " "$dir/m.html" | wc -l)" -eq 13 ]
result $? "HTML: 13 non-blank cells (6 suite + 5 documented + 2 Wine + 0 Windows, as in expected.md)"

ls "$dir/junit" > "$dir/ls"
printf 'documented.xml\nsuite.xml\nwindows.xml\nwine-8.0.xml\n' | cmp -s - "$dir/ls"
result $? "--junit writes one XML file per column" "$dir/ls"
ok=0
for f in "$dir"/junit/*.xml; do xmllint --noout "$f" 2>> "$dir/err" || ok=1; done
result $ok "JUnit files are well-formed XML" "$dir/err"
# TAP::Formatter::JUnit: one testsuite per stream; a failure per not ok
# without TODO; a TODO test that passed is an error (TodoTestSucceeded).
[ "$(grep -c '<testsuite ' "$dir/junit/suite.xml")" = 2 ] && [ "$(grep -c 'type="TestFailed"' "$dir/junit/suite.xml")" = 1 ] &&
  [ "$(grep -c 'type="TestFailed"' "$dir/junit/documented.xml")" = 1 ] &&
  [ "$(grep -c 'type="TodoTestSucceeded"' "$dir/junit/documented.xml")" = 1 ]
result $? "JUnit: suite has 2 testsuites and 1 failure; documented 1 failure and 1 passing todo"
run --junit "$dir/junit2" 2> /dev/null
diff -r "$dir/junit" "$dir/junit2" > "$dir/diff"
result $? "JUnit output is the same on a second run" "$dir/diff"

perl "$script" clauses.tsv "suite=?a.tap" "Windows=?windows-none.tap" > "$dir/opt.md" 2> "$dir/err" &&
  grep -qxF '| suite | a.tap |' "$dir/opt.md" && grep -qxF '| Windows | windows-none.tap (absent) |' "$dir/opt.md" &&
  grep -qxF '| clauses without a test | 5 | 8 |' "$dir/opt.md"
result $? "COLUMN=?FILE: an existing file is read, an absent one leaves the column empty" "$dir/err"

# ---- bad input: FILE:LINE: message, exit 2, nothing written ----------------------------------
bad() { # name, expected stderr line (fixed string), catalogue, column args...
  name=$1 want=$2; shift 2
  rm -f "$dir/bad.md"
  perl "$script" --md "$dir/bad.md" "$@" > /dev/null 2> "$dir/err"
  st=$?
  [ $st = 2 ] && grep -qxF "$want" "$dir/err" && [ ! -e "$dir/bad.md" ]
  result $? "$name (exit $st)" "$dir/err"
}
printf '1..2\nok 1 - fine [T-PASS]\nok 2 - typo [T-PASSS,T-FAIL]\n' > "$dir/unknown.tap"
bad "unknown clause id" "$dir/unknown.tap:3: unknown clause T-PASSS (not in clauses.tsv)" clauses.tsv "x=$dir/unknown.tap"
printf '1..2\nok 1 - fine [T-PASS]\nSegmentation fault\nok 2\n' > "$dir/junk.tap"
bad "a line that is not TAP" "$dir/junk.tap:3: not a TAP line: \"Segmentation fault\"" clauses.tsv "x=$dir/junk.tap"
printf '1..3\nok 1\nok 3\nok 4\n' > "$dir/seq.tap"
bad "test numbers out of sequence" "$dir/seq.tap:3: test number 3 out of sequence (expected 2)" clauses.tsv "x=$dir/seq.tap"
printf '1..1\nok 1\n1..1\n' > "$dir/plans.tap"
bad "two plans" "$dir/plans.tap:3: second plan (first on line 1)" clauses.tsv "x=$dir/plans.tap"
printf 'ok 1\nokay 2\n' > "$dir/okay.tap"
bad "ok followed by letters" "$dir/okay.tap:2: not a TAP line: \"okay 2\"" clauses.tsv "x=$dir/okay.tap"
bad "a missing TAP file" "$dir/none.tap: cannot open: No such file or directory" clauses.tsv "x=$dir/none.tap"
printf 'id\tsemantics\tevidence\tsource\tedge\tnative\tstatement\nT-A\tboth\tdocumented\ts\t-\tyes\tone\nT-A\tboth\tdocumented\ts\t-\tyes\ttwo\nt-b\tboth\tdocumented\ts\t-\tyes\tx\nT-C\tsometimes\tdocumented\ts\t1,x\tyes\tx\nT-D\tboth\tdocumented\nT-E\tboth\tdocumented\ts\t-\t \tx\n' > "$dir/cat.tsv"
bad "duplicate clause id" "$dir/cat.tsv:3: duplicate clause id T-A (first on line 2)" "$dir/cat.tsv" "x=a.tap"
bad "bad clause id" "$dir/cat.tsv:4: bad clause id \"t-b\"" "$dir/cat.tsv" "x=a.tap"
bad "bad semantics and edge" "$dir/cat.tsv:5: T-C: semantics \"sometimes\" is not documented|observed|both|simulator-defined" "$dir/cat.tsv" "x=a.tap"
bad "too few fields" "$dir/cat.tsv:6: expected 7 tab-separated fields, found 3" "$dir/cat.tsv" "x=a.tap"
bad "an empty native column" "$dir/cat.tsv:7: T-E: empty native column" "$dir/cat.tsv" "x=a.tap"
printf 'id\tstatement\n' > "$dir/hdr.tsv"
bad "wrong header" "$dir/hdr.tsv:1: expected the header line \"id<TAB>semantics<TAB>evidence<TAB>source<TAB>edge<TAB>native<TAB>statement\"" "$dir/hdr.tsv" "x=a.tap"
perl "$script" clauses.tsv a.tap > /dev/null 2> "$dir/err"
[ $? = 2 ] && grep -qxF "matrix.pl: a.tap: expected COLUMN=FILE" "$dir/err"
result $? "an argument without COLUMN= is a usage error" "$dir/err"

[ $fail = 0 ]
