#!/bin/sh
# scenarios/fuzz/run.sh — runs the libFuzzer targets built by `make fuzz` for a
# bounded time each and reports executions and coverage per target.
#
#   sh scenarios/fuzz/run.sh BUILD SECONDS [TARGET...]
#
# BUILD is the fuzz build directory (its fuzz/fuzz_TARGET binaries, its
# assembled kernels); each target runs SECONDS seconds (libFuzzer's
# -max_total_time) on a corpus kept in BUILD/fuzz/corpus/TARGET, seeded from
# the conformance suite and examples (lua), the assembled kernels (guest) and
# scenarios/fuzz/seeds/TARGET (pe: also the programs of build/pe/).  An input that crashes, hangs (-timeout), runs
# out of memory or leaks is copied to scenarios/fuzz/regressions/TARGET/,
# which make test replays (regress_test.t).  Exit status 1 when any target
# found something.  FUZZ_JOBS=N runs N targets at a time (default 1).
set -u
B=${1:?usage: run.sh BUILD SECONDS [TARGET...]}
S=${2:?usage: run.sh BUILD SECONDS [TARGET...]}
shift 2
targets=${*:-lua api marshal guest pe dll}
F=$B/fuzz
TIMEOUT=${FUZZ_TIMEOUT:-20}
mkdir -p "$F/artifacts" "$F/seeds-lua" "$F/seeds-guest" "$F/seeds-pe" "$F/seeds-dll"

# ---- seeds ----------------------------------------------------------------------------
cp conformance/*.lua scenarios/examples/*.lua scenarios/tests/sandbox.lua "$F/seeds-lua/"
# Guest code: each kernel of each ISA behind three headers (fz_guest.c documents the layout):
# buffer arguments, counts, and profile_loop's import table, on 1-3 threads.  The second
# byte's top bits choose the platform: x64 0, ARM64 0100, x86 0200, ARM 0300 (octal).
for isa in x64:000 arm64:100 x86:200 arm:300; do
  dir=$B/scenarios/kernels
  [ "${isa%%:*}" = x64 ] || dir=$dir/${isa%%:*}
  e=${isa#*:}
  for bin in "$dir"/*.bin; do
    [ -f "$bin" ] || continue
    k=${isa%%:*}-$(basename "$bin" .bin)
    { printf "\\201\\$e\\001\\000\\000\\000\\100\\001\\000\\020\\000\\010"; cat "$bin"; } > "$F/seeds-guest/$k-buf"
    { printf "\\223\\$e\\000\\310\\000\\005\\000\\000\\000\\000"; cat "$bin"; } > "$F/seeds-guest/$k-n"
    { printf "\\241\\$e\\012\\000\\024\\001\\000\\020\\004\\007\\000\\000\\000\\000\\000\\000\\000"; cat "$bin"; } > "$F/seeds-guest/$k-imports"
  done
done

# Windows programs: the images `make tests` builds (build/pe/, when they exist) beside the
# stripped images and malformed variants kept in scenarios/fuzz/seeds/pe.
for exe in build/pe/*.exe; do
  [ -f "$exe" ] && cp "$exe" "$F/seeds-pe/"
done

# DLLs: the ones `make tests` builds (build/pe/dll64/, dll32/).
for dll in build/pe/dll64/*.dll build/pe/dll32/*.dll; do
  [ -f "$dll" ] && cp "$dll" "$F/seeds-dll/$(basename "$(dirname "$dll")")-$(basename "$dll")"
done

seeds_of() { # target -> seed directories
  d=""
  [ -d "scenarios/fuzz/seeds/$1" ] && d="scenarios/fuzz/seeds/$1"
  case $1 in
    lua) d="$d $F/seeds-lua" ;;
    guest) d="$d $F/seeds-guest" ;;
    pe) d="$d $F/seeds-pe" ;;
    dll) d="$d $F/seeds-dll" ;;
  esac
  echo "$d"
}

# Structured targets get long inputs at once (more calls per input); lua keeps libFuzzer's
# default length (the longest seed) and gets a dictionary of Lua tokens and hcpsim names.
flags_of() {
  case $1 in
    lua) echo "-dict=scenarios/fuzz/lua.dict" ;;
    api | marshal | paths) echo "-max_len=2048 -len_control=0" ;;
    guest) echo "-max_len=1024 -len_control=0" ;;
    pe) echo "-max_len=65536" ;;
  esac
}

# A 64 MiB quarantine instead of ASan's 256: most of an input's time is Unicorn's set-up, whose
# large blocks otherwise come back as fresh pages (about 1.5x the executions; use-after-free
# within an input is still caught).
export ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=64}"

# Machines take recycled Unicorn engines (fz_common.c, ../../sim/engine.c): an engine's state
# outlives the input, so libFuzzer's per-input leak check (an input's mallocs against its frees)
# would fire on every input; it is off, and LeakSanitizer checks the whole process at exit.
# FUZZ_FRESH_ENGINES=1: a fresh engine per machine and the per-input leak check (slower).
if [ "${FUZZ_FRESH_ENGINES:-0}" = 1 ]; then
  export HCPFZ_FRESH_ENGINES=1
  LEAKS=1
else
  LEAKS=0
fi

run_one() { # target
  t=$1
  mkdir -p "$F/corpus/$t"
  log=$F/$t.log
  rm -f "$F/artifacts/$t-"*
  # shellcheck disable=SC2046
  "$F/fuzz_$t" -max_total_time="$S" -timeout="$TIMEOUT" -rss_limit_mb=4096 -print_final_stats=1 -detect_leaks=$LEAKS \
    $(flags_of "$t") \
    -artifact_prefix="$F/artifacts/$t-" "$F/corpus/$t" $(seeds_of "$t") >"$log" 2>&1
  echo $? >"$F/$t.status"
}

jobs=${FUZZ_JOBS:-1}
running=0
for t in $targets; do
  echo "fuzz: $t for ${S}s ..."
  if [ "$jobs" -gt 1 ]; then
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
      wait
      running=0
    fi
  else
    run_one "$t"
  fi
done
wait

# ---- report ---------------------------------------------------------------------------
found=0
printf '\n%-8s %8s %12s %9s %7s %7s %7s  %s\n' target seconds executions exec/s cov ft corpus result
for t in $targets; do
  log=$F/$t.log
  st=$(cat "$F/$t.status" 2>/dev/null || echo 99)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/.*Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  line=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(echo "$line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$line" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
  [ -z "$execs" ] && execs=$(echo "$line" | sed -n 's/^#\([0-9]*\).*/\1/p')
  rate=$(echo "$line" | sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p')
  if [ -n "$secs" ] && [ "$secs" -gt 0 ]; then
    rate=$(( ${execs:-0} / secs ))
  elif [ -n "$rate" ] && [ "$rate" -gt 0 ]; then
    secs="~$(( ${execs:-0} / rate ))" # stopped early: about this long
  fi
  result=ok
  if [ "$st" != 0 ]; then
    found=1
    result="FOUND (status $st; log $log)"
    mkdir -p "scenarios/fuzz/regressions/$t"
    for a in "$F/artifacts/$t-"*; do
      [ -f "$a" ] || continue
      name=$(basename "$a" | sed "s/^$t-//")
      cp "$a" "scenarios/fuzz/regressions/$t/$name"
      result="$result; kept scenarios/fuzz/regressions/$t/$name"
    done
  fi
  printf '%-8s %8s %12s %9s %7s %7s %7s  %s\n' "$t" "${secs:-?}" "${execs:-?}" "$rate" "${cov:-?}" "${ft:-?}" \
    "${corp:-?}" "$result"
  if [ "$st" != 0 ]; then
    grep -E 'ERROR: |SUMMARY: |runtime error|hcpsim fuzz:|^    #[0-9] ' "$log" | head -12 | sed 's/^/    /'
  fi
done
exit $found
