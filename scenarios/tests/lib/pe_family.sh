# scenarios/tests/lib/pe_family.sh — sourced (after tap.sh) by the tests of issue 33's families
# (pe_objrules.sh, pe_sync.sh, pe_apc.sh, pe_pool.sh, pe_procinfo.sh).  Each runs one program of
# scenarios/examples/pe/ on both ISAs, compares its lines with the expected lines the test states
# (each from Microsoft's documentation or the documented model, never from a run), runs it again
# for byte-identical output, and compares the x86-64 image's output with Wine's where Wine runs.
#   pe_expect PROG BITS WANTFILE [ARGS...]  one TAP line per expected line ("PROGBITS.exe: LINE"; a
#                                          line "sim ..." is a schedule: clause PE-SCHED-WAITS),
#                                          then the status (0), stderr (empty) and the line count
#   pe_selfcheck PROG BITS N               a program that checks itself ("ok ..."/"not ok ..." lines
#                                          ending in "0 failed"): one TAP line per line, then its
#                                          status (0), stderr (empty) and count of checks (N)
#   pe_twice PROG BITS [ARGS...]           a second run writes the same bytes
#   pe_wine PROG DROP [ARGS...]            Wine's output equals hcpsim's on a machine of the host's
#                                          CPU count, lines matching the ERE DROP left out of both
#                                          (hcpsim-only lines, and where Wine is known to differ
#                                          from Windows: the test says which and why); the
#                                          caller ends the prefix's wineserver after its last run
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
cr=$(printf '\r')

pe_expect() { # prog bits want [args]
  prog=$1 bits=$2 want=$3
  shift 3
  cp "$pe/$prog$bits.exe" .
  timeout 300 $HCPSIM run "$prog$bits.exe" "$@" > out_$prog$bits.txt 2> err_$prog$bits.txt; st=$?
  tr -d "$cr" < out_$prog$bits.txt > got_$prog$bits.txt
  i=0
  while IFS= read -r line; do
    i=$((i + 1))
    got=$(sed -n "${i}p" got_$prog$bits.txt)
    [ "$got" = "$line" ]
    st_line=$?
    # a "sim" line is a schedule (switch-ins, wait reasons): the wait-reason clause
    case $line in
      sim\ *) family=$CLAUSE; CLAUSE=PE-SCHED-WAITS; result $st_line "$prog$bits.exe: $line" "got '$got'"; CLAUSE=$family ;;
      *) result $st_line "$prog$bits.exe: $line" "got '$got'" ;;
    esac
  done < "$want"
  [ "$st" = 0 ] && [ ! -s err_$prog$bits.txt ] && [ "$(wc -l < got_$prog$bits.txt)" = "$(wc -l < "$want")" ]
  result $? "$prog$bits.exe: runs to exit 0 writing nothing else (status $st, $(wc -l < got_$prog$bits.txt) lines)" \
    "$(head -c 600 err_$prog$bits.txt)"
}

pe_selfcheck() { # prog bits nchecks
  prog=$1 bits=$2 want=$3
  cp "$pe/$prog$bits.exe" .
  timeout 300 $HCPSIM run "$prog$bits.exe" > out_$prog$bits.txt 2> err_$prog$bits.txt; st=$?
  tr -d "$cr" < out_$prog$bits.txt > got_$prog$bits.txt
  while IFS= read -r line; do
    case "$line" in
      "ok "*) result 0 "$prog$bits.exe: ${line#ok }" ;;
      "not ok "*) result 1 "$prog$bits.exe: ${line#not ok }" ;;
    esac
  done < got_$prog$bits.txt
  [ "$st" = 0 ] && [ "$(tail -n 1 got_$prog$bits.txt)" = "0 failed" ] && [ "$(grep -c '^ok ' got_$prog$bits.txt)" = "$want" ] &&
    [ ! -s err_$prog$bits.txt ]
  result $? "$prog$bits.exe: runs to exit code 0, all $want checks passed, nothing on stderr" \
    "status $st: $(head -c 600 err_$prog$bits.txt)"
}

pe_twice() { # prog bits [args]
  prog=$1 bits=$2
  shift 2
  timeout 300 $HCPSIM run "$prog$bits.exe" "$@" > again_$prog$bits.txt 2>&1
  cmp -s out_$prog$bits.txt again_$prog$bits.txt
  result $? "$prog$bits.exe: a second run writes the same bytes"
}

pe_wine() { # prog drop [args]
  prog=$1 drop=$2
  shift 2
  wine=$(command -v wine64 || command -v wine)
  cpus=$(nproc 2>/dev/null || echo 1)
  if [ -z "$wine" ] || [ "$cpus" -gt 64 ]; then
    echo "ok $((n + 1)) - ${prog}64.exe under Wine writes what hcpsim writes [PE-WINE] # SKIP no wine"
    n=$((n + 1))
    return
  fi
  WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" "${prog}64.exe" "$@" > wine_$prog.txt 2> wine_$prog.err; wst=$?
  args=""
  for a in "$@"; do args="$args, \"$a\""; done
  cat > wine_$prog.lua <<EOF
local hcp = require "hcpsim"
local m = hcp.machine { cpus = $cpus }
local p = m:process { path = "${prog}64.exe", echo = false, args = { ${args#, } } }
m:run()
io.write(p.stdout)
EOF
  $HCPSIM run --unsafe-io wine_$prog.lua > sim_$prog.txt 2> simerr_$prog.txt
  if [ "$wst" != 0 ]; then
    echo "ok $((n + 1)) - ${prog}64.exe under Wine writes what hcpsim writes [PE-WINE] # SKIP wine did not run it (status $wst)"
    n=$((n + 1))
    tail -3 wine_$prog.err | sed 's/^/# wine: /'
    return
  fi
  tr -d "$cr" < wine_$prog.txt | grep -Ev "$drop" > wine_$prog.cmp
  tr -d "$cr" < sim_$prog.txt | grep -Ev "$drop" > sim_$prog.cmp
  cmp -s wine_$prog.cmp sim_$prog.cmp && [ -s sim_$prog.cmp ]
  wst=$?
  saved=$CLAUSE
  CLAUSE=PE-WINE
  result $wst "${prog}64.exe under Wine writes what hcpsim writes with cpus = $cpus ($(wc -l < sim_$prog.cmp) lines compared)" \
    "$(diff wine_$prog.cmp sim_$prog.cmp | head -8 | tr '\n' '|') $(head -c 300 simerr_$prog.txt)"
  CLAUSE=$saved
}
