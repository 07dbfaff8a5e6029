#!/bin/sh
# make test: hcpcheck on a Windows without the HCP exports (as Wine 8.0 is),
# inside hcpsim (`hcpcheck-sim --without-hcp`).  The program must not crash:
# it runs to its plan, exits 1, and gives the same checks, in the same order
# with the same clause ids, as on a Windows that has them (so every
# implementation's stream lines up in the conformance report).  Each failure
# is an HCP-EXPORTS check or carries `# missing export` of one of the four HCP
# functions; every check that needs none of them passes as before.
# Also: the committed Wine streams (reports/conformance/wine-*.tap) have the
# checks hcpcheck.c has today (else: make wine-conformance); and with the
# exports every check runs in hcpsim: the only SKIPs are the kernel-mode
# DDIs' and the other builds' platform checks, so that a relation the
# simulator stops arranging (threads that no longer alternate, ...) fails
# here instead of turning into a SKIP.
# HCPSIM names the simulator (default build/hcpsim); its directory is BUILD.
HCPSIM=${HCPSIM:-build/hcpsim}
bin=${HCPSIM##* }
build=$(dirname "$bin")
prog=$build/conformance/native/hcpcheck-sim
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
echo "TAP version 13"
echo "1..7"
"$prog" observed >"$dir/with" 2>&1
"$prog" observed --without-hcp >"$dir/without" 2>"$dir/err"
st=$?
[ "$st" = 1 ] && echo "ok 1 - exit status 1 (checks failed), not a crash [SIM-NATIVE-PROGRAM]" ||
  { echo "not ok 1 - exit status 1 (checks failed), not a crash [SIM-NATIVE-PROGRAM]"; echo "# status $st"; sed 's/^/# /' "$dir/err"; }
# the test lines without their verdicts and directives: number, description, clause
strip() { grep -E '^(not )?ok ' "$1" | sed -E 's/^(not )?ok //; s/ # (missing export|SKIP).*$//'; }
strip "$dir/with" >"$dir/with.lines"
strip "$dir/without" >"$dir/without.lines"
plan_with=$(grep -E '^1\.\.[0-9]+$' "$dir/with")
plan_without=$(grep -E '^1\.\.[0-9]+$' "$dir/without")
if [ -n "$plan_with" ] && [ "$plan_with" = "$plan_without" ] && cmp -s "$dir/with.lines" "$dir/without.lines"; then
  echo "ok 2 - the same plan ($plan_with) and the same checks and clause ids, in the same order [SIM-NATIVE-PROGRAM]"
else
  echo "not ok 2 - the same plan and the same checks and clause ids, in the same order [SIM-NATIVE-PROGRAM]"
  diff "$dir/with.lines" "$dir/without.lines" | head -10 | sed 's/^/# /'
fi
hcp='(Enable|Disable|Query)ThreadProfiling|ReadThreadProfilingData'
bad=$(grep -E '^not ok ' "$dir/without" | grep -vE "\[HCP-EXPORTS\]$|# missing export ($hcp)$")
[ -z "$bad" ] && echo "ok 3 - every failure is an HCP-EXPORTS check or names a missing HCP export [SIM-NATIVE-PROGRAM]" ||
  { echo "not ok 3 - every failure is an HCP-EXPORTS check or names a missing HCP export [SIM-NATIVE-PROGRAM]"; printf '%s\n' "$bad" | sed 's/^/# /'; }
n_exports=$(grep -cE '^not ok .*\[HCP-EXPORTS\]$' "$dir/without")
n_missing=$(grep -cE "^not ok .*# missing export ($hcp)$" "$dir/without")
[ "$n_exports" = 4 ] && [ "$n_missing" -gt 0 ] && echo "ok 4 - the four HCP-EXPORTS checks fail; $n_missing checks name a missing export [SIM-NATIVE-PROGRAM]" ||
  echo "not ok 4 - HCP-EXPORTS failures: $n_exports (want 4), missing-export lines: $n_missing [SIM-NATIVE-PROGRAM]"
# checks that need no HCP function: ok with and without the exports
grep -E '^ok ' "$dir/with" | grep -vE '# SKIP' | sed -E 's/^ok [0-9]+ //' >"$dir/ok.with"
keep=$(grep -E '^(not )?ok ' "$dir/without" | grep -vE "\[HCP-EXPORTS\]$|# missing export" | sed -E 's/^(not )?ok [0-9]+ //' | grep -vE '# SKIP')
lost=$(printf '%s\n' "$keep" | grep -vxF -f "$dir/ok.with")
[ -n "$keep" ] && [ -z "$lost" ] && echo "ok 5 - the checks that need no HCP function still pass [SIM-NATIVE-PROGRAM]" ||
  { echo "not ok 5 - the checks that need no HCP function still pass [SIM-NATIVE-PROGRAM]"; printf '%s\n' "$lost" | sed 's/^/# /'; }
# the recorded Wine verdicts are those of today's hcpcheck.c
stale=""
n=0
for f in reports/conformance/wine-*.tap; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  strip "$f" >"$dir/wine.lines"
  cmp -s "$dir/with.lines" "$dir/wine.lines" && [ "$(grep -E '^1\.\.[0-9]+$' "$f")" = "$plan_with" ] || stale="$stale $f"
done
if [ "$n" = 0 ]; then
  echo "ok 6 - the recorded Wine streams have today's checks [SIM-NATIVE-PROGRAM] # SKIP no reports/conformance/wine-*.tap"
elif [ -z "$stale" ]; then
  echo "ok 6 - the recorded Wine streams ($n) have today's checks, in order [SIM-NATIVE-PROGRAM]"
else
  echo "not ok 6 - the recorded Wine streams have today's checks, in order [SIM-NATIVE-PROGRAM]"
  echo "# stale:$stale (hcpcheck.c changed: run make wine-conformance)"
fi
# every check runs in hcpsim (the SKIPs a real machine may take must not happen in the simulator)
allowed='HCP-KE-SET-QUERY|HCP-KE-SET-TOO-MANY|PLAT-X86-HCP|PLAT-ARM64-HCP|PLAT-ETW-32BIT-PAYLOAD'
skips=$(grep -E '^ok .*# SKIP' "$dir/with" | grep -vE "\[($allowed)\] # SKIP")
if [ -z "$skips" ] && [ "$(grep -cE '^ok .*# SKIP' "$dir/with")" = 5 ]; then
  echo "ok 7 - with the exports, the only SKIPs are the 2 kernel-mode DDIs' and the 3 other builds' platform checks [SIM-NATIVE-PROGRAM]"
else
  echo "not ok 7 - with the exports, the only SKIPs are the 2 kernel-mode DDIs' and the 3 other builds' platform checks [SIM-NATIVE-PROGRAM]"
  printf '%s\n' "$skips" | sed 's/^/# /'
fi
