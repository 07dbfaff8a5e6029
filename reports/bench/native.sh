#!/bin/sh
# The bench workloads run natively on the host, then under valgrind's
# cachegrind (--cache-sim=yes, hcpsim's default L1D and LLC geometry): the
# reference points next to `hcpsim bench`.  The kernels are the objects the
# build assembled (scenarios/kernels/*.S), called by scenarios/kernels/native.c,
# which times the kernel call alone (data set-up excluded, as in hcpsim bench).
# MIPS = the kernel's instructions (its formula) / the call's host time; each
# is run ROUNDS times (default 3, as hcpsim bench) and the fastest run counts.
# Usage: reports/bench/native.sh BUILD_DIR
build=${1:-build}
objdir=$build/scenarios/kernels
rounds=${ROUNDS:-3}
case $rounds in '' | *[!0-9]* | 0) echo "native.sh: ROUNDS must be a positive number" >&2; exit 2 ;; esac
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
${CC:-cc} -std=c17 -O2 -o "$dir/native" scenarios/kernels/native.c "$objdir"/*.o || exit 1
printf '\nnative host code, the same kernels and data (reports/bench/native.sh; the fastest of %s runs)\n' "$rounds"
printf '  %-10s %12s %16s %10s\n' workload "native MIPS" "cachegrind MIPS" "slowdown"
for w in spin memwalk stores branchy calls; do
  ns="" cg=""
  r=0
  while [ $r -lt "$rounds" ]; do
    set -- $("$dir/native" bench $w) || exit 1
    insns=$1
    [ -z "$ns" ] || [ "$2" -lt "$ns" ] && ns=$2
    if command -v valgrind >/dev/null 2>&1; then
      set -- $(valgrind -q --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
        --cachegrind-out-file=/dev/null "$dir/native" bench $w 2>"$dir/vg.err") || { cat "$dir/vg.err"; exit 1; }
      [ -z "$cg" ] || [ "$2" -lt "$cg" ] && cg=$2
    fi
    r=$((r + 1))
  done
  awk -v n="$insns" -v a="$ns" -v b="$cg" -v w="$w" 'BEGIN {
    if (b == "") printf "  %-10s %12.1f %16s\n", w, n * 1000 / a, "(no valgrind)"
    else printf "  %-10s %12.1f %16.1f %9.0fx\n", w, n * 1000 / a, n * 1000 / b, b / a }'
done
