#!/bin/sh
# The deterministic speed figure: host instructions (valgrind callgrind's Ir)
# that one guest iteration costs, per workload and counting mode, raw Unicorn
# on the same code beside it.  Each (workload, mode) runs twice under
# callgrind, `hcpsim bench --one W MODE N` with N = N1 and N = N2; the
# difference of the two totals over N2 - N1 iterations leaves out everything
# that does not grow with N (start-up, engine set-up, translation, the data
# buffer), so the figure is the steady-state loop alone.  Same binary, same
# input: the same figure on every run, unlike wall-clock MIPS.
# Usage: reports/bench/ir.sh BUILD_DIR [WORKLOAD ...]   (default: every workload)
build=${1:-build}
[ $# -gt 0 ] && shift
hcpsim=$build/hcpsim
N1=${IR_N1:-50000}
N2=${IR_N2:-150000}
if ! command -v valgrind >/dev/null 2>&1; then
  echo "ir.sh: valgrind is needed (Debian package valgrind)" >&2
  exit 2
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
workloads=${*:-spin memwalk stores branchy calls x86-spin arm64-spin arm-spin arm64-memwalk}

# Ir total and the run's own line (key, mode, name, insns, blocks) for N iterations.
run() { # workload mode n
  valgrind -q --tool=callgrind --callgrind-out-file="$dir/cg" "$hcpsim" bench --one "$1" "$2" "$3" >"$dir/line" \
    2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
  ir=$(sed -n 's/^summary: //p' "$dir/cg")
  [ -n "$ir" ] || { echo "ir.sh: no callgrind summary for $1 mode $2" >&2; exit 1; }
  echo "$ir $(cut -f4,5 "$dir/line")"
}

printf 'hcpsim bench-ir: host instructions (callgrind Ir) per guest iteration, N = %s minus N = %s\n' "$N2" "$N1"
printf '(an iteration: spin 1 block; memwalk, stores 1 block and 1 access; branchy 2 or 3 blocks and 1 load;\n'
printf ' calls 2 blocks, a push and a pop; blocks/iter as raw Unicorn runs them, from its block hook)\n'
for w in $workloads; do
  printf '\n%s\n' "$w"
  printf '  %-34s %12s %12s %12s %9s\n' mode "Ir/iter" "Ir/insn" "Ir/block" "vs raw"
  raw=""
  # blocks per iteration: raw Unicorn's block hook counts them (natively, no valgrind)
  bpi=$( { "$hcpsim" bench --one "$w" 1 "$N1" && "$hcpsim" bench --one "$w" 1 "$N2"; } |
    awk -F'\t' -v n1="$N1" -v n2="$N2" 'NR == 1 { a = $5 } NR == 2 { print ($5 - a) / (n2 - n1) }') || exit 1
  for mode in 0 1 2 3 4 5 6; do
    set -- $(run "$w" $mode "$N1") || exit 1
    a_ir=$1 a_in=$2
    set -- $(run "$w" $mode "$N2") || exit 1
    b_ir=$1 b_in=$2
    name=$(cut -f3 "$dir/line")
    out=$(awk -v ai="$a_ir" -v bi="$b_ir" -v an="$a_in" -v bn="$b_in" -v n1="$N1" -v n2="$N2" -v raw="$raw" \
      -v bpi="${bpi:-0}" -v name="$name" 'BEGIN {
        it = (bi - ai) / (n2 - n1); ins = (bi - ai) / (bn - an)
        blk = bpi > 0 ? sprintf("%12.1f", it / bpi) : sprintf("%12s", "")
        r = raw != "" ? sprintf("%8.2fx", it / raw) : sprintf("%9s", "1.00x")
        printf "  %-34s %12.1f %12.2f %s %s|%s\n", name, it, ins, blk, r, it }') || exit 1
    [ -z "$raw" ] && raw=${out##*|}
    echo "${out%|*}"
  done
done
