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

# The value of callgrind event $1 in output file $2 (trailing zero events are omitted).
event() {
  [ -f "$2" ] || { echo "missing"; return; }
  awk -v want="$1" '/^events:/ { for (i = 2; i <= NF; i++) idx[$i] = i }
                    /^(totals|summary):/ { for (i = 2; i <= NF; i++) v[i] = $i }
                    END { x = v[idx[want]]; print (x == "" ? 0 : x) }' "$2"
}
# Formula $1 (instructions, loads, stores, conditional) of kernel $2 with variables $3.
formula() {
  f=$(sed -n "s/^# $1:[[:space:]]*//p" "scenarios/kernels/$2.S")
  [ -n "$f" ] || { echo "none"; return; }
  (eval "$3"; echo $(($f)))
}

toggles=$(awk '{ print "--toggle-collect=" $2 }' "$dir/cases" | sort -u)
# shellcheck disable=SC2086 # one option per kernel
valgrind --tool=callgrind --callgrind-out-file="$dir/cg" --collect-atstart=no $toggles \
  --dump-before=native_case_end --cache-sim=yes --branch-sim=yes "$dir/native" runall >"$dir/native.out" 2>"$dir/vg.err"
vst=$?
[ "$vst" = 0 ] || sed 's/^/# /' "$dir/vg.err" | tail -5
# Nothing may be collected outside the cases' calls: the part after the last case is empty.
[ "$(event Ir "$dir/cg")" = 0 ] || { echo "# callgrind collected outside the cases' calls"; vst=outside; }

while read -r id k vars; do
  label="$k($vars)"
  st=$vst
  [ -f "$dir/cg.$((id + 1))" ] || st=missing
  ir=$(event Ir "$dir/cg.$((id + 1))")
  hret=$(awk -v id="$id" '$1 == id { sub("ret=", "", $2); print $2 }' "$dir/hcpsim.out")
  hins=$(awk -v id="$id" '$1 == id { sub("instructions=", "", $3); print $3 }' "$dir/hcpsim.out")
  nret=$(awk -v id="$id" '$1 == id { sub("ret=", "", $2); print $2 }' "$dir/native.out")

  [ "$st" = 0 ] && [ -n "$hins" ] && [ "$ir" = "$hins" ]
  result $? "$label: callgrind Ir $ir = hcpsim instructions ${hins:-?}"

  [ -n "$nret" ] && [ "$nret" = "$hret" ]
  result $? "$label: native and hcpsim return the same value (${nret:-?}, ${hret:-?})"

  bad=
  got=
  for pair in instructions:Ir loads:Dr stores:Dw conditional:Bc; do
    name=${pair%:*} ev=${pair#*:}
    want=$(formula "$name" "$k" "$vars")
    have=$(event "$ev" "$dir/cg.$((id + 1))")
    got="$got $name=$have"
    [ "$want" = "$have" ] || bad="$bad $name: callgrind $ev $have, formula $want;"
  done
  [ "$st" = 0 ] && [ -z "$bad" ]
  result $? "$label: callgrind Ir/Dr/Dw/Bc match the formulas in $k.S:$got"
  [ -z "$bad" ] || echo "#$bad"
done <"$dir/cases"

[ "$fail" = 0 ]
