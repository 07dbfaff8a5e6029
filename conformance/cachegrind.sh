#!/bin/sh
# Independent cross-check of the L1D model (pmu_model/README.md, "Data caches")
# with valgrind's cachegrind.  With the same L1D geometry on both sides,
# hcpsim's l1d-misses for a kernel call must equal cachegrind's D1 misses
# (D1mr + D1mw) for the same call natively, for deterministic access patterns:
# sequential walks that fit in L1D (two passes: the second misses 0 times), one
# exactly L1D and one twice L1D, strides of 64 and 4096 (a conflict on one set),
# 8-byte loads at stride 60 that straddle lines, a 4096-apart chase cycle with
# more lines than ways, stores, copy (a direct-mapped ping-pong among them), the
# stack traffic of recurse, and a pseudo-random chase.  Geometries: 32768,8,64
# (the default), 4096,2,64 and 1024,1,64 (SIZE,WAYS,LINE).
#
# The cases live in scenarios/kernels/native.c (native cache-list / cache-lua /
# cache-run), whose comments derive each call's misses by hand; the test checks
#   - cachegrind's D1 misses = hcpsim's l1d-misses, call by call;
#   - cachegrind's D1 misses = the hand formula (one case, a pseudo-random
#     chase, has none: cachegrind alone is its reference);
#   - both sides return the same values (they made the same calls);
#   - hcpsim's entry rsp is 0xFC8 modulo 4096, which the formulas assume.
# How the native cache state at kernel entry is made equal to hcpsim's (cold,
# but for the line of the return address the caller's call just stored) is
# explained above the case table in native.c: page-aligned buffers, the stack
# at hcpsim's entry rsp modulo 4096, an eviction read of 2 x SIZE bytes just
# before the call, all in one asm block.  cachegrind counts per function, so
# only the kernel's own accesses are compared, its final ret included; a case's
# two calls use different kernels (memwalk and stride with stride 8 make the
# same walk) so each is counted alone.  I1 and LL do not affect D1 counts; they
# are fixed (LL 8 MiB 16-way, a power-of-two set count, so cachegrind keeps it).
# One valgrind process per geometry runs all its cases (native cache-runall),
# each in a forked child of its own whose profile (cg.PID) holds only that
# case's kernel calls: the parent never calls a kernel.
#
# Run from the repository root; HCPSIM names the simulator (default
# build/hcpsim), whose build directory holds the kernel objects.
HCPSIM=${HCPSIM:-build/hcpsim}

echo "TAP version 13"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "1..0 # SKIP valgrind not installed"
  exit 0
fi
bin=${HCPSIM##* } # the binary, when HCPSIM carries a wrapper
objdir=$(dirname "$bin")/scenarios/kernels
objs=
for s in scenarios/kernels/*.S; do
  k=${s##*/}
  k=${k%.S}
  [ -f "$objdir/$k.o" ] || { echo "Bail out! $objdir/$k.o missing: build first (make)"; exit 1; }
  objs="$objs $objdir/$k.o"
done

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
n=0
fail=0
clause=SIM-PMU-CACHEGRIND
result() { # pass(0/1), name; the line names the clause (conformance/clauses.tsv)
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2 [$clause]"; else fail=$((fail + 1)); echo "not ok $n - $2 [$clause]"; fi
}

${CC:-cc} -std=c17 -O2 -Wall -Wextra ${CI:+-Werror} -o "$dir/native" scenarios/kernels/native.c $objs 2>"$dir/cc.err"
st=$?
[ -s "$dir/cc.err" ] && sed 's/^/# /' "$dir/cc.err"
[ "$st" = 0 ] || { echo "Bail out! cannot build the native helper"; exit 1; }
"$dir/native" cache-list >"$dir/cases" || { echo "Bail out! native cache-list failed"; exit 1; }
cases=$(wc -l <"$dir/cases")
calls=$(awk '{ c += ($8 == "-") ? 1 : 2 } END { print c }' "$dir/cases")
echo "1..$((3 + cases + 2 * calls))"

result 0 "native helper built from scenarios/kernels/native.c and the assembled kernels"

"$dir/native" cache-lua >"$dir/cases.lua"
$HCPSIM run "$dir/cases.lua" >"$dir/hcpsim.out" 2>"$dir/hcpsim.err"
st=$?
[ "$st" = 0 ] && [ "$(wc -l <"$dir/hcpsim.out")" = "$cases" ]
result $? "hcpsim runs every case (status $st)"
[ "$st" = 0 ] || sed 's/^/# /' "$dir/hcpsim.err"

# The entry rsp of a call with at most 4 arguments is the top of the thread's
# page-aligned stack minus 56 (sim/cpu.c): return-address line at page offset
# 0xFC0, in the last set of every geometry here.  The native side follows
# whatever the probe reports; only the hand formulas rest on this.
bad=$(awk '{ sub("rsp=", "", $2); if ($2 % 4096 != 4040) print $1 }' "$dir/hcpsim.out")
[ -s "$dir/hcpsim.out" ] && [ -z "$bad" ]
result $? "hcpsim's entry rsp is 0xFC8 modulo 4096 in every case (the formulas' assumption)${bad:+; not in cases $bad}"

# One valgrind process per geometry, its cases' calls each in a child process.
for geom in $(awk '{ print $3 "," $4 "," $5 }' "$dir/cases" | sort -u); do
  args=$(awk -v g="$geom" 'NR == FNR { sub("rsp=", "", $2); rsp[$1] = $2; next }
                           $3 "," $4 "," $5 == g { print $1 ":" ($1 in rsp ? rsp[$1] : 0) }' "$dir/hcpsim.out" "$dir/cases")
  # shellcheck disable=SC2086 # one argument per case
  valgrind --tool=cachegrind --cache-sim=yes --D1="$geom" --I1=32768,8,64 --LL=8388608,16,64 \
    --cachegrind-out-file="$dir/cg.%p" "$dir/native" cache-runall $args >>"$dir/native.out" 2>"$dir/vg.$geom" ||
    { echo "$geom" >>"$dir/failed"; echo "# valgrind --D1=$geom:"; sed 's/^/# /' "$dir/vg.$geom" | tail -5; }
done
touch "$dir/failed"

# One line per case, read in one pass: the case's cache-list fields, then its profile's state
# (ok; missing: no profile; valgrind: its geometry's valgrind failed; geometry: cachegrind did
# not simulate exactly SIZE,WAYS,LINE), the D1 misses (D1mr + D1mw) of each call's kernel
# function in that profile, hcpsim's returns and misses, the native returns ("?": none).
# shellcheck disable=SC2046 # the profiles
awk -v dir="$dir" '
  FNR == 1 { f = FILENAME; seen[f] = 1; fn = "" }
  /^desc: D1 cache:/ { d = $0; sub("^desc: D1 cache: *", "", d); desc[f] = d }
  /^events:/ { delete idx; for (i = 2; i <= NF; i++) idx[$i] = i - 1 }
  /^fn=/ { fn = substr($0, 4) }
  /^[0-9]/ { d1[f, fn] += $(idx["D1mr"] + 1) + $(idx["D1mw"] + 1) }
  END {
    while ((getline l < (dir "/failed")) > 0) failed[l] = 1
    while ((getline l < (dir "/hcpsim.out")) > 0) {
      split(l, x, " "); sub("ret=", "", x[3]); sub("misses=", "", x[4]); hr[x[1]] = x[3]; hm[x[1]] = x[4]
    }
    while ((getline l < (dir "/native.out")) > 0) {
      split(l, x, " ")
      if (x[1] == "pid") pid[x[2]] = x[3]; else { sub("ret=", "", x[2]); nr[x[1]] = x[2] }
    }
    while ((getline l < (dir "/cases")) > 0) {
      split(l, c, " "); p = dir "/cg." (c[1] in pid ? pid[c[1]] : "none")
      assoc = c[4] == 1 ? "direct-mapped" : c[4] "-way associative"
      st = "ok"
      if (!(p in seen)) st = "missing"
      if ((c[3] "," c[4] "," c[5]) in failed) st = "valgrind"
      if (desc[p] != c[3] " B, " c[5] " B, " assoc) st = "geometry"
      k1 = c[6]; sub("[(].*", "", k1); k2 = c[8]; sub("[(].*", "", k2)
      printf "%s %s %d %d %s %s %s\n", l, st, d1[p, k1], d1[p, k2], (c[1] in hr) ? hr[c[1]] : "?",
             (c[1] in hm) ? hm[c[1]] : "?", (c[1] in nr) ? nr[c[1]] : "?"
    }
  }' $(ls "$dir" | sed -n "s|^cg[.]|$dir/cg.|p") /dev/null >"$dir/table"

while read -r id name size ways line call1 exp1 call2 exp2 st m1 m2 hret hmiss nret; do
  [ "$hret" = "?" ] && hret=
  [ "$hmiss" = "?" ] && hmiss=
  [ "$nret" = "?" ] && nret=
  [ "$st" = ok ] && st=0
  [ "$st" = missing ] && echo "# $name: no cachegrind profile"
  [ "$st" = geometry ] && echo "# $name: cachegrind did not simulate D1 $size,$ways,$line"

  [ "$st" = 0 ] && [ -n "$nret" ] && [ "$nret" = "$hret" ]
  result $? "$name: native and hcpsim return the same values (${nret:-?}; ${hret:-?})"

  i=1
  for pair in "$call1 $exp1 $m1 ${hmiss%,*}" "$call2 $exp2 $m2 ${hmiss#*,}"; do
    set -- $pair
    [ "$1" = - ] && break
    label="$name [$size,$ways,$line] call $i $1"
    cg=$3 hc=$4
    [ "$st" = 0 ] && [ -n "$hc" ] && [ "$cg" = "$hc" ]
    result $? "$label: cachegrind D1 misses $cg = hcpsim l1d-misses ${hc:-?}"
    if [ "$2" = - ]; then
      n=$((n + 1))
      echo "ok $n - $label: no hand formula (pseudo-random walk) [$clause] # SKIP cachegrind is the reference"
    else
      [ "$st" = 0 ] && [ "$cg" = "$2" ]
      result $? "$label: cachegrind D1 misses $cg = hand formula $2 (native.c)"
    fi
    i=$((i + 1))
  done
done <"$dir/table"

[ "$fail" = 0 ]
