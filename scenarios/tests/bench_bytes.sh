#!/bin/sh
# `hcpsim bench` carries the machine code of nine kernels as byte arrays
# (scenarios/main.c, cmd_bench); each must equal the bytes the build
# assembled from scenarios/kernels/NAME.S (NAME_ISA: ISA/NAME.S), so the benchmark measures the
# kernels whose formulas the tests check.
HCPSIM=${HCPSIM:-build/hcpsim}
bin=${HCPSIM##* }
dir=$(dirname "$bin")/scenarios/kernels
echo "TAP version 13"
echo "1..9"
n=0
for k in spin memwalk stores branchy calls spin_x86 spin_arm64 spin_arm memwalk_arm64; do
  n=$((n + 1))
  f=$(echo "$k" | sed 's#^\([a-z]*\)_\(.*\)$#\2/\1#')
  want=$(od -An -v -tx1 "$dir/$f.bin" 2>/dev/null | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
  got=$(perl -0ne 'if (/static const uint8_t '"$k"'\[\] = \{(.*?)\};/s) { my @b = ($1 =~ /0x([0-9a-f]{2})/g); print join(" ", @b) }' scenarios/main.c)
  if [ -n "$want" ] && [ "$got" = "$want" ]; then
    echo "ok $n - bench's $k bytes are the assembled scenarios/kernels/$f.S [SIM-BENCH-BYTES]"
  else
    echo "not ok $n - bench's $k bytes differ from $dir/$f.bin [SIM-BENCH-BYTES]"
    echo "#   bench: $got"
    echo "#   built: $want"
  fi
done
