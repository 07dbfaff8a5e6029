#!/bin/sh
# The bench workloads run natively on the host, then under valgrind's
# cachegrind (--cache-sim=yes, hcpsim's default L1D and LLC geometry): the
# reference points next to `hcpsim bench`.  The kernels are the objects the
# build assembled (scenarios/kernels/*.S), called by scenarios/kernels/native.c,
# which times the kernel call alone (data set-up excluded, as in hcpsim bench).
# MIPS = the kernel's instructions (its formula) / the call's host time.
# Usage: reports/bench/native.sh BUILD_DIR
build=${1:-build}
objdir=$build/scenarios/kernels
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
${CC:-cc} -std=c17 -O2 -o "$dir/native" scenarios/kernels/native.c "$objdir"/*.o || exit 1
printf '\nnative host code, the same kernels and data (reports/bench/native.sh)\n'
printf '  %-10s %12s %16s %10s\n' workload "native MIPS" "cachegrind MIPS" "slowdown"
for w in spin memwalk stores branchy calls; do
  set -- $("$dir/native" bench $w) || exit 1
  insns=$1 ns=$2 cg=""
  if command -v valgrind >/dev/null 2>&1; then
    set -- $(valgrind -q --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
      --cachegrind-out-file=/dev/null "$dir/native" bench $w 2>"$dir/vg.err") || { cat "$dir/vg.err"; exit 1; }
    cg=$2
  fi
  awk -v n="$insns" -v a="$ns" -v b="$cg" -v w="$w" 'BEGIN {
    if (b == "") printf "  %-10s %12.1f %16s\n", w, n * 1000 / a, "(no valgrind)"
    else printf "  %-10s %12.1f %16.1f %9.0fx\n", w, n * 1000 / a, n * 1000 / b, b / a }'
done
