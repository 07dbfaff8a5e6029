#!/bin/sh
# Independent cross-check of the guest kernels (scenarios/kernels/*.S) with
# valgrind.  A native host program (scenarios/kernels/native.c, built in a
# temporary directory) links the very objects the build assembled and calls
# each kernel as a Windows-x64 (ms_abi) function; callgrind, collecting only
# inside the kernels (--toggle-collect), counts what the call retires.  All
# cases run in one valgrind process (`native runall`); after each case's call
# the helper enters native_case_end, and --dump-before=native_case_end makes
# callgrind write the counts collected since the previous dump to a file of
# its own (part k = case k - 1) and zero them, so each case's counts are its
# one call's alone; the final part (program end) must be empty.  The
# same call on the same data runs in hcpsim, which reports the instructions
# it retired through ReadThreadProfilingData (HwCounters[0]).  For each case:
#   - callgrind's Ir equals hcpsim's instruction count;
#   - both executions return the same value;
#   - callgrind's Ir, Dr, Dw and Bc equal the formulas in the kernel's .S
#     comments for instructions, loads, stores and conditional branches.
# Run from the repository root; HCPSIM names the simulator (default
# build/hcpsim), whose build directory holds the kernel objects.
HCPSIM=${HCPSIM:-build/hcpsim}
bin=${HCPSIM##* } # the binary, when HCPSIM carries a wrapper
objdir=$(dirname "$bin")/scenarios/kernels

echo "TAP version 13"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "1..0 # SKIP valgrind not installed"
  exit 0
fi
# A kernel that calls imports (profile_loop: its import table holds guest
# thunk addresses) cannot run natively; its .S header says `# native: no`, and
# it is left out of the coverage check below (conformance/kernels.lua and
# conformance/gate.lua check its formulas).  Its object is still linked: it
# is self-contained, it is just never called.
kernels=$(for s in scenarios/kernels/*.S; do grep -q '^# native: no' "$s" || basename "$s" .S; done | sort)
objs=
for s in scenarios/kernels/*.S; do
  k=$(basename "$s" .S)
  [ -f "$objdir/$k.o" ] || { echo "Bail out! $objdir/$k.o missing: build first (make)"; exit 1; }
  objs="$objs $objdir/$k.o"
done

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
n=0
fail=0
clause=SIM-KERNEL-CALLGRIND
result() { # pass(0/1), name; the line names the clause (conformance/clauses.tsv)
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2 [$clause]"; else fail=$((fail + 1)); echo "not ok $n - $2 [$clause]"; fi
}

${CC:-cc} -std=c17 -O2 -Wall -Wextra ${CI:+-Werror} -o "$dir/native" scenarios/kernels/native.c $objs 2>"$dir/cc.err"
st=$?
[ -s "$dir/cc.err" ] && sed 's/^/# /' "$dir/cc.err"
[ "$st" = 0 ] || { echo "Bail out! cannot build the native helper"; exit 1; }
"$dir/native" list >"$dir/cases" || { echo "Bail out! native list failed"; exit 1; }
cases=$(wc -l <"$dir/cases")
echo "1..$((3 + 3 * cases))"

result 0 "native helper built from scenarios/kernels/native.c and the assembled kernels"
covered=$(awk '{print $2}' "$dir/cases" | sort -u)
[ "$covered" = "$kernels" ]
result $? "every kernel that can run natively has cases ($(echo $kernels))"

"$dir/native" lua >"$dir/cases.lua"
$HCPSIM run "$dir/cases.lua" >"$dir/hcpsim.out" 2>"$dir/hcpsim.err"
st=$?
[ "$st" = 0 ] && [ "$(wc -l <"$dir/hcpsim.out")" = "$cases" ]
result $? "hcpsim runs every case (status $st)"
[ "$st" = 0 ] || sed 's/^/# /' "$dir/hcpsim.err"

# The formulas in the kernels' .S comments, as shell variables F_KERNEL_NAME
# (NAME: instructions, loads, stores, conditional), read in one pass.
eval "$(awk '/^# (instructions|loads|stores|conditional):/ {
               k = FILENAME; sub(".*/", "", k); sub("[.]S$", "", k)
               name = substr($2, 1, length($2) - 1); f = $0; sub("^# [a-z]+:[ \t]*", "", f)
               printf "F_%s_%s=\047%s\047\n", k, name, f }' scenarios/kernels/*.S)"
# Formulas instructions, loads, stores, conditional of kernel $1 with variables
# $2 ("none" when the .S has no such line), evaluated in a subshell.
formulas() {
  eval "_fi=\${F_$1_instructions:-} _fl=\${F_$1_loads:-} _fs=\${F_$1_stores:-} _fc=\${F_$1_conditional:-}"
  (
    eval "$2"
    for _f in "$_fi" "$_fl" "$_fs" "$_fc"; do
      if [ -n "$_f" ]; then echo $(($_f)); else echo none; fi
    done
  )
}

toggles=$(awk '{ print "--toggle-collect=" $2 }' "$dir/cases" | sort -u)
# shellcheck disable=SC2086 # one option per kernel
valgrind --tool=callgrind --callgrind-out-file="$dir/cg" --collect-atstart=no $toggles \
  --dump-before=native_case_end --cache-sim=yes --branch-sim=yes "$dir/native" runall >"$dir/native.out" 2>"$dir/vg.err"
vst=$?
[ "$vst" = 0 ] || sed 's/^/# /' "$dir/vg.err" | tail -5

# One line per case: ID KERNEL Ir Dr Dw Bc (of its profile, cg.ID+1; trailing zero events are
# omitted from a profile; "missing" without one) HCPSIM-RET HCPSIM-INSTRUCTIONS NATIVE-RET ("?":
# none) VARS; then "outside Ir" for the profile of what followed the last case.
profiles=
for id in $(awk '{ print $1 }' "$dir/cases"); do
  [ -f "$dir/cg.$((id + 1))" ] && profiles="$profiles $dir/cg.$((id + 1))"
done
# shellcheck disable=SC2086 # one file per case
awk -v cases="$dir/cases" -v hout="$dir/hcpsim.out" -v nout="$dir/native.out" -v last="$dir/cg" '
  function flush() { if (part != "") for (e in want) ev[part, e] = (idx[e] && v[idx[e]] != "") ? v[idx[e]] : 0 }
  BEGIN { want["Ir"]; want["Dr"]; want["Dw"]; want["Bc"] }
  FNR == 1 { flush(); part = FILENAME; delete idx; delete v; seen[part] = 1 }
  /^events:/ { for (i = 2; i <= NF; i++) idx[$i] = i }
  /^(totals|summary):/ { for (i = 2; i <= NF; i++) v[i] = $i }
  END {
    flush()
    while ((getline l < hout) > 0) { split(l, f, " "); sub("ret=", "", f[2]); sub("instructions=", "", f[3]); hr[f[1]] = f[2]; hi[f[1]] = f[3] }
    while ((getline l < nout) > 0) { split(l, f, " "); sub("ret=", "", f[2]); nr[f[1]] = f[2] }
    while ((getline l < cases) > 0) {
      split(l, f, " "); vars = l; sub("^[^ ]+ [^ ]+ ", "", vars); p = last "." (f[1] + 1)
      printf "%s %s", f[1], f[2]
      split("Ir Dr Dw Bc", es, " ")
      for (e = 1; e <= 4; e++) printf " %s", (p in seen) ? ev[p, es[e]] : "missing"
      printf " %s %s %s %s\n", (f[1] in hr) ? hr[f[1]] : "?", (f[1] in hi) ? hi[f[1]] : "?", (f[1] in nr) ? nr[f[1]] : "?", vars
    }
    printf "outside %s\n", (last in seen) ? ev[last, "Ir"] : "missing"
  }' $profiles "$dir/cg" >"$dir/table" 2>"$dir/table.err" || sed 's/^/# /' "$dir/table.err"
# Nothing may be collected outside the cases' calls: the part after the last case is empty.
outside=$(sed -n 's/^outside //p' "$dir/table")
[ "$outside" = 0 ] || { echo "# callgrind collected outside the cases' calls (Ir ${outside:-?})"; vst=outside; }

while read -r id k ir dr dw bc hret hins nret vars; do
  [ "$id" = outside ] && continue
  [ "$hret" = "?" ] && hret=
  [ "$hins" = "?" ] && hins=
  [ "$nret" = "?" ] && nret=
  label="$k($vars)"
  st=$vst
  [ "$ir" = missing ] && st=missing

  [ "$st" = 0 ] && [ -n "$hins" ] && [ "$ir" = "$hins" ]
  result $? "$label: callgrind Ir $ir = hcpsim instructions ${hins:-?}"

  [ -n "$nret" ] && [ "$nret" = "$hret" ]
  result $? "$label: native and hcpsim return the same value (${nret:-?}, ${hret:-?})"

  # shellcheck disable=SC2046 # one word per formula
  set -- $(formulas "$k" "$vars")
  [ $# = 4 ] || set -- error error error error
  bad=
  got=
  for pair in "instructions Ir $1 $ir" "loads Dr $2 $dr" "stores Dw $3 $dw" "conditional Bc $4 $bc"; do
    set -- $pair
    got="$got $1=$4"
    [ "$3" = "$4" ] || bad="$bad $1: callgrind $2 $4, formula $3;"
  done
  [ "$st" = 0 ] && [ -z "$bad" ]
  result $? "$label: callgrind Ir/Dr/Dw/Bc match the formulas in $k.S:$got"
  [ -z "$bad" ] || echo "#$bad"
done <"$dir/table"

[ "$fail" = 0 ]
