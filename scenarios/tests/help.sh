#!/bin/sh
# Discovering the command line (scenarios/README.md "Command line"): --version, help for every
# command, "did you mean" for a misspelt command or option.
CLAUSE=SIM-CLI-HELP
. scenarios/tests/lib/tap.sh
v1=$($HCPSIM --version) s1=$?
v2=$($HCPSIM -V)
v3=$($HCPSIM version)
result "$([ "$s1" = 0 ] && [ "$v1" = "$v2" ] && [ "$v1" = "$v3" ]; echo $?)" "--version, -V and version print one line" \
  "'$v1' '$v2' '$v3'"
case "$v1" in "hcpsim 0.1.0 ("*"; Unicorn "*", capstone "*", Lua 5.4"*")") r=0 ;; *) r=1 ;; esac
result $r "the version names the release, the build's git description and the libraries" "$v1"
for c in run check describe diff bench version help; do
  $HCPSIM help "$c" >h1.txt 2>err.txt
  s=$?
  $HCPSIM "$c" --help >h2.txt 2>>err.txt
  result "$([ "$s" = 0 ] && [ -s h1.txt ] && cmp -s h1.txt h2.txt && [ ! -s err.txt ]; echo $?)" \
    "hcpsim help $c = hcpsim $c --help, status 0" "$(cat err.txt)"
done
# Every option run accepts (the list its unknown-option message gives) is described by help run.
$HCPSIM run --no-such-option x.lua 2>err.txt
$HCPSIM help run >h.txt
missing="" seen=0
for o in $(sed -n "s/.*(valid: \(.*\); machine options.*/\1/p" err.txt | tr ',' '\n' | sed 's/^ *//; s/ .*//'); do
  [ "$o" = "--" ] && continue
  seen=$((seen + 1))
  grep -q -- "$o" h.txt || missing="$missing $o"
done
result "$([ -z "$missing" ] && [ "$seen" = 12 ]; echo $?)" "help run describes every run option (12)" \
  "missing:$missing; $seen options read from: $(cat err.txt)"
$HCPSIM help describe >h.txt
result "$(grep -q '^Platforms: win10-x64, win7-x64, win7-x86, win11-arm64, ce2.12-arm$' h.txt; echo $?)" \
  "help describe lists the platforms" "$(tail -1 h.txt)"
$HCPSIM help >h.txt
result "$(grep -q 'hcpsim help COMMAND' h.txt; echo $?)" "help alone prints the usage and how to get more"
check() { # name, status, first stderr line up to " (valid:", arguments...
  name=$1 want=$2 line=$3
  shift 3
  "$HCPSIM" "$@" >out.txt 2>err.txt
  st=$?
  got=$(head -1 err.txt | sed 's/ (valid: .*//')
  result "$([ "$st" = "$want" ] && [ "$got" = "$line" ]; echo $?)" "$name" "status $st, stderr: $got; want: $line"
}
check "a misspelt command: did you mean" 2 "hcpsim: unknown command 'rnu' (did you mean 'run'?)" rnu x.lua
check "a command nothing is close to: no suggestion" 2 "hcpsim: unknown command 'frobnicate'" frobnicate
check "help for an unknown command" 2 "hcpsim: unknown command 'describ' (did you mean 'describe'?)" help describ
check "a misspelt run option" 2 "hcpsim: unknown option '--sede' (did you mean '--seed'?)" run --sede 3 x.lua
check "a misspelt machine option" 2 "hcpsim: unknown option '--max-cycle' (did you mean '--max-cycles'?)" \
  run --max-cycle 5 x.exe
echo "1..$n"
[ "$fail" = 0 ]
