#!/bin/sh
# make bench-programs: whole C programs (reports/bench/programs/), each built from one source for
# Windows (mingw-w64, -O2: run by hcpsim on a default machine, max_cycles out of reach) and for the host (cc -O2: run
# natively), timed side by side in one run: ROUNDS rounds (default 3), the variants of a program
# in turn within each round, the fastest and the median CPU time (user + system of the process,
# wait4) and the median wall time, and the ratios hcpsim/native.  Then the cache model on the same
# programs next to valgrind's cachegrind on the native build (CACHE_SCALE, default 2: cachegrind
# runs the full scale for minutes), and the deterministic figure: host instructions (callgrind's
# Ir) of the native program and of hcpsim running the .exe, at IR_SCALE (default 1; IR_SCALE=0
# skips them).  Every program prints a checksum; the script first checks that both builds print
# the same text at scale 1 (msvcrt ends lines with CR LF).
# Usage: reports/bench/programs.sh BUILD_DIR [PROGRAM ...]   (default: all six; HCPSIM=PATH runs another
# hcpsim binary, e.g. the build before a change)
build=${1:-build}
[ $# -gt 0 ] && shift
hcpsim=${HCPSIM:-$build/hcpsim}
src=reports/bench/programs
out=$build/bench-programs
rounds=${ROUNDS:-3}
scale=${SCALE:-10}
cscale=${CACHE_SCALE:-2}
irscale=${IR_SCALE:-1}
programs=${*:-compute memory branchy api printf threads}
for v in "$rounds" "$scale" "$cscale"; do
  case $v in '' | *[!0-9]* | 0) echo "programs.sh: ROUNDS, SCALE and CACHE_SCALE must be positive numbers" >&2; exit 2 ;; esac
done
case $irscale in '' | *[!0-9]*) echo "programs.sh: IR_SCALE must be a number (0: no callgrind)" >&2; exit 2 ;; esac
for c in x86_64-w64-mingw32-gcc valgrind; do
  command -v $c >/dev/null 2>&1 || { echo "programs.sh: $c is needed (Debian: gcc-mingw-w64-x86-64, valgrind)" >&2; exit 2; }
done
[ -x "$hcpsim" ] || { echo "programs.sh: no $hcpsim (make first)" >&2; exit 2; }
mkdir -p "$out" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# A default machine, but no cycle limit within reach (msvcrt's printf costs its formatter's cycles).
lim="--max-cycles 1000000000000000"

# ---- build: one source, two programs ----------------------------------------------------------
${CC:-cc} -std=c17 -O2 -o "$out/timeit" "$src/timeit.c" || exit 1
for p in $programs; do
  [ -f "$src/$p.c" ] || { echo "programs.sh: no program $src/$p.c" >&2; exit 2; }
  x86_64-w64-mingw32-gcc -std=c17 -O2 -o "$out/$p.exe" "$src/$p.c" || exit 1
  ${CC:-cc} -std=c17 -O2 -o "$out/$p" "$src/$p.c" -pthread || exit 1
done

# ---- the same output from both builds --------------------------------------------------------
for p in $programs; do
  "$out/$p" 1 >"$tmp/native.out" || { echo "programs.sh: $p (native) failed" >&2; exit 1; }
  "$hcpsim" run "$out/$p.exe" 1 | tr -d '\r' >"$tmp/hcpsim.out" # msvcrt's text mode writes CR LF
  [ -s "$tmp/hcpsim.out" ] || { echo "programs.sh: $p.exe (hcpsim) failed" >&2; exit 1; }
  cmp -s "$tmp/native.out" "$tmp/hcpsim.out" || { echo "programs.sh: $p prints differently under hcpsim" >&2; exit 1; }
done

# One timed run: "wall user sys" in microseconds appended to $tmp/NAME.VARIANT.
timed() { # program variant command...
  p=$1 v=$2
  shift 2
  set -- $("$out/timeit" "$tmp/run.out" "$@" 2>"$tmp/run.err") || exit 1
  [ "$4" = 0 ] || { cat "$tmp/run.err" >&2; echo "programs.sh: $p ($v) exited with $4" >&2; exit 1; }
  echo "$1 $2 $3" >>"$tmp/$p.$v"
}

# min and median of CPU (user + sys) and median of wall, in seconds: "cmin cmed wmed"
stats() {
  awk '{ c[NR] = ($2 + $3) / 1e6; w[NR] = $1 / 1e6 }
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { m = c[1]; for (i = 2; i <= NR; i++) if (c[i] < m) m = c[i]; printf "%.3f %.3f %.3f\n", m, med(c, NR), med(w, NR) }' "$1"
}

# ---- time: native, hcpsim, hcpsim without precise faults, in turn --------------------------------
printf 'hcpsim bench-programs: %s rounds at scale %s (reports/bench/programs/; CPU = user + system seconds)\n' "$rounds" "$scale"
r=0
while [ $r -lt "$rounds" ]; do
  for p in $programs; do
    timed "$p" native "$out/$p" "$scale"
    timed "$p" hcpsim "$hcpsim" run $lim "$out/$p.exe" "$scale"
    timed "$p" nopf "$hcpsim" run $lim --precise-faults false "$out/$p.exe" "$scale"
  done
  r=$((r + 1))
done
printf '\n  %-8s %17s %17s %15s %15s %9s\n' program "native CPU min/med" "hcpsim CPU min/med" "hcpsim/native" "no precise f." "wall"
for p in $programs; do
  set -- $(stats "$tmp/$p.native") $(stats "$tmp/$p.hcpsim") $(stats "$tmp/$p.nopf")
  awk -v p="$p" -v nc="$1" -v nm="$2" -v nw="$3" -v hc="$4" -v hm="$5" -v hw="$6" -v fm="$8" 'BEGIN {
    printf "  %-8s %8.3f %8.3f %8.3f %8.3f %6.1fx %6.1fx %14.1fx %8.1fx\n", p, nc, nm, hc, hm, hc / nc, hm / nm, fm / nm, hw / nw }'
done
echo "  (hcpsim/native: the fastest runs, then the medians; no precise f.: hcpsim --precise-faults false, median;"
echo "   wall: median wall time ratio)"

# ---- the cache model next to cachegrind ----------------------------------------------------------
printf '\nthe cache model: hcpsim --cache true against cachegrind on the native build, %s rounds at scale %s\n' "$rounds" "$cscale"
r=0
while [ $r -lt "$rounds" ]; do
  for p in $programs; do
    timed "$p" cachegrind valgrind -q --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
      --LL=8388608,16,64 --cachegrind-out-file=/dev/null "$out/$p" "$cscale"
    timed "$p" cache "$hcpsim" run $lim --cache true "$out/$p.exe" "$cscale"
  done
  r=$((r + 1))
done
printf '\n  %-8s %21s %21s %15s\n' program "cachegrind CPU min/med" "hcpsim cache min/med" "hcpsim/cachegr."
for p in $programs; do
  set -- $(stats "$tmp/$p.cachegrind") $(stats "$tmp/$p.cache")
  awk -v p="$p" -v gc="$1" -v gm="$2" -v hc="$4" -v hm="$5" 'BEGIN {
    printf "  %-8s %10.3f %10.3f %10.3f %10.3f %6.2fx %6.2fx\n", p, gc, gm, hc, hm, hc / gc, hm / gm }'
done

# What the model counts next to what cachegrind counts (one more run of each, untimed): hcpsim's
# l1d-misses, llc-misses, loads and stores from its run report; cachegrind's D1 and LLd misses
# and data reads and writes.  The two builds differ in their startup code and C library.
printf '\n  %-8s %13s %13s %13s %13s %13s %13s %13s %13s\n' program "cg D1 miss" "l1d-misses" "cg LLd miss" \
  "llc-misses" "cg D reads" "loads" "cg D writes" "stores"
for p in $programs; do
  valgrind -q --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
    --cachegrind-out-file="$tmp/cg.out" "$out/$p" "$cscale" >/dev/null 2>"$tmp/cg.err" || { cat "$tmp/cg.err" >&2; exit 1; }
  "$hcpsim" run $lim --cache true --report "$tmp/r.json" "$out/$p.exe" "$cscale" >/dev/null 2>&1 || exit 1
  # cachegrind's summary: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
  set -- $(sed -n 's/^summary: //p' "$tmp/cg.out")
  c="$4 $5 $6 $7 $8 $9"
  h=$(perl -ne 'for my $e (qw(l1d-misses llc-misses loads stores)) { $v{$e} //= $1 if /"\Q$e\E": (\d+)/ } END { print join " ", map { $v{$_} // 0 } qw(l1d-misses llc-misses loads stores) }' "$tmp/r.json")
  set -- $c $h
  awk -v p="$p" -v dr="$1" -v d1r="$2" -v dlr="$3" -v dw="$4" -v d1w="$5" -v dlw="$6" -v l1="$7" -v llc="$8" -v ld="$9" -v st="${10}" 'BEGIN {
    printf "  %-8s %13d %13d %13d %13d %13d %13d %13d %13d\n", p, d1r + d1w, l1, dlr + dlw, llc, dr, ld, dw, st }'
done

# ---- host instructions: callgrind's Ir ----------------------------------------------------------
[ "$irscale" = 0 ] && exit 0
printf '\nhost instructions (callgrind Ir) at scale %s: deterministic, the same on every run\n' "$irscale"
printf '\n  %-8s %15s %15s %8s %15s %8s %15s %8s\n' program "native" "hcpsim" "ratio" "no precise f." "ratio" "cache model" "ratio"
ir() { # command...: the Ir total
  valgrind -q --tool=callgrind --callgrind-out-file="$tmp/cg" "$@" >/dev/null 2>"$tmp/cg.err" || { cat "$tmp/cg.err" >&2; exit 1; }
  sed -n 's/^summary: //p' "$tmp/cg"
}
for p in $programs; do
  n=$(ir "$out/$p" "$irscale") || exit 1
  h=$(ir "$hcpsim" run $lim "$out/$p.exe" "$irscale") || exit 1
  f=$(ir "$hcpsim" run $lim --precise-faults false "$out/$p.exe" "$irscale") || exit 1
  c=$(ir "$hcpsim" run $lim --cache true "$out/$p.exe" "$irscale") || exit 1
  awk -v p="$p" -v n="$n" -v h="$h" -v f="$f" -v c="$c" 'BEGIN {
    printf "  %-8s %15.0f %15.0f %7.1fx %15.0f %7.1fx %15.0f %7.1fx\n", p, n, h, h / n, f, f / n, c, c / n }'
done
