#!/bin/sh
# The environment, the small system functions and the time conversions (api/README.md "The
# environment", "System information", "Time zone"): scenarios/examples/pe/sysinfo.c checks each
# function's documented outcomes (its "ok"/"not ok" lines); this file turns them into TAP on
# x86-64 and i386, checks the lines it prints for values (the system messages in Microsoft's
# words, lstrcmp's order, the time zone), the options that shape a process (--env, --timezone,
# --debug-output; the trace's debug events), a second run's bytes, and Wine's lines where Wine is
# installed (x86-64; "[hcpsim]" and "[not Wine]" lines do not run there).
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
cr=$(printf '\r')
echo "TAP version 13"
clause_of() { # the family of a check line
  case "$1" in
    *Environment*|*getenv*|*putenv*|*environ*) echo PE-ENV ;;
    *Time*|*DosDate*|*CompareFileTime*|*Interrupt*|*"time zone"*) echo PE-TIME ;;
    *) echo PE-SYSINFO ;;
  esac
}
tap_lines() { # file, program name
  while IFS= read -r line; do
    CLAUSE=$(clause_of "$line")
    line=$(printf '%s' "$line" | sed 's/\\/\\\\/g') # tap.sh's echo reads backslashes
    case "$line" in
      "ok "*) result 0 "$2: ${line#ok }" ;;
      "not ok "*) result 1 "$2: ${line#not ok }" ;;
    esac
  done < "$1"
}
# Windows' words for these codes (Microsoft's "System Error Codes" pages), each with "\r\n"
cat > messages.txt <<'EOF'
message 0 [not Wine]: The operation completed successfully.
message 3 [not Wine]: The system cannot find the path specified.
message 5 [not Wine]: Access is denied.
message 6 [not Wine]: The handle is invalid.
message 8 [not Wine]: Not enough memory resources are available to process this command.
message 18 [not Wine]: There are no more files.
message 32 [not Wine]: The process cannot access the file because it is being used by another process.
message 80 [not Wine]: The file exists.
message 87 [not Wine]: The parameter is incorrect.
message 112 [not Wine]: There is not enough space on the disk.
message 122 [not Wine]: The data area passed to a system call is too small.
message 123 [not Wine]: The filename, directory name, or volume label syntax is incorrect.
message 145 [not Wine]: The directory is not empty.
message 183 [not Wine]: Cannot create a file when that file already exists.
message 203 [not Wine]: The system could not find the environment option that was entered.
message 267 [not Wine]: The directory name is invalid.
message 998 [not Wine]: Invalid access to memory location.
EOF
for bits in 64 32 u64 u32; do # u: built against the UCRT (ucrtbase.dll's rows)
  case $bits in u*) cp "$pe/../crt/sysinfo$bits.exe" . ;; *) cp "$pe/sysinfo$bits.exe" . ;; esac
  for run in 1 2; do
    rm -rf "s$run" && mkdir "s$run"
    timeout 120 $HCPSIM run --cwd "s$run" --env ZZ_HCP=from-outside "sysinfo$bits.exe" > "out$run.txt" 2> "err$run.txt"
    echo $? > "st$run.txt"
  done
  tr -d "$cr" < out1.txt > o.txt
  tap_lines o.txt "sysinfo$bits.exe"
  CLAUSE=PE-SYSINFO
  [ "$(cat st1.txt)" = 0 ] && [ "$(tail -n 1 o.txt)" = "0 failed" ] && [ ! -s err1.txt ]
  result $? "sysinfo$bits.exe: runs to exit code 0, no check failed, nothing on stderr (OutputDebugString goes to the trace only)" "status $(cat st1.txt): $(cat err1.txt)"
  cmp -s out1.txt out2.txt
  result $? "sysinfo$bits.exe: a second run writes the same bytes"
  grep '^message ' out1.txt > got.txt
  sed "s/\$/$cr$cr/" messages.txt | cmp -s - got.txt # the message's "\r\n", then printf's text mode
  result $? "sysinfo$bits.exe: KERNEL32.dll!FormatMessageA: the system messages of 17 codes in Windows' words, each ending in \"\\\\r\\\\n\"" "$(sed "s/\$/$cr$cr/" messages.txt | diff - got.txt | head -3)"
  grep -qx "lstrcmpA: 0 -1 1 -1 1 -1 -1 1 -1 -1 -1 1" o.txt
  result $? "sysinfo$bits.exe: KERNEL32.dll!lstrcmpA: the word-sort order of 12 pairs, as Wine's (abc/abc a/B B/a a/A A/a abc/abd ab/abc co-op/coop 'a b'/ab 10/9 _a/a a!/a)" "$(grep lstrcmpA: o.txt)"
  CLAUSE=PE-TIME
  grep -qx "time zone \[hcpsim\]: Coordinated Universal Time, bias 0, id 0" o.txt
  result $? "sysinfo$bits.exe: KERNEL32.dll!GetTimeZoneInformation: UTC, bias 0, TIME_ZONE_ID_UNKNOWN (no daylight time) by default" "$(grep 'time zone' o.txt)"
done

# --timezone: the zone's bias and, on 2026-01-01, standard time in Europe and daylight time in Sydney
CLAUSE=PE-PROCESS-OPTIONS
for z in "W. Europe Standard Time|W. Europe Standard Time, bias -60, id 1" \
         "america/new_york|Eastern Standard Time, bias 300, id 1" \
         "Australia/Sydney|AUS Eastern Standard Time, bias -600, id 2"; do
  zone=${z%%|*}
  want=${z#*|}
  mkdir -p tz && $HCPSIM run --cwd tz --env ZZ_HCP=from-outside --timezone "$zone" sysinfo64.exe > o.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && grep -q "^time zone \[hcpsim\]: $want" o.txt && grep -q "^ok FileTimeToLocalFileTime: UTC - bias \[hcpsim\]" o.txt &&
    grep -q "^ok msvcrt.dll!_localtime64: " o.txt && grep -q "^ok msvcrt.dll!_mktime64: " o.txt && ! grep -q "^not ok" o.txt
  result $? "--timezone '$zone': $want; FileTimeToLocalFileTime, the C runtime's localtime and mktime, and every other check hold" "status $st: $(grep 'time zone\|not ok' o.txt | head -3)"
done
$HCPSIM run --timezone Mars/Base sysinfo64.exe > o.txt 2> err.txt; st=$?
[ "$st" = 2 ] && grep -q "^hcpsim: --timezone Mars/Base: unknown time zone (valid: 'UTC' (Etc/UTC), " err.txt
result $? "--timezone of an unknown zone: refused with the valid names, status 2" "status $st: $(cat err.txt)"
$HCPSIM run --env NOEQUALS sysinfo64.exe > o.txt 2> err.txt; st=$?
[ "$st" = 2 ] && [ "$(cat err.txt)" = "hcpsim: --env NOEQUALS: NAME=VALUE with a non-empty NAME" ]
result $? "--env without '=': refused, status 2" "status $st: $(cat err.txt)"
$HCPSIM run --env ZZ_HCP=from-outside --debug-output stderr sysinfo64.exe > o.txt 2> err.txt
[ "$(cat err.txt)" = "$(printf 'debug A\ndebug W')" ]
result $? "--debug-output stderr: OutputDebugStringA and W write their text to stderr as given" "$(od -c err.txt | head -3)"
$HCPSIM run --debug-output file sysinfo64.exe > o.txt 2> err.txt; st=$?
[ "$st" = 2 ] && [ "$(cat err.txt)" = "hcpsim: --debug-output file: trace (the default) or stderr" ]
result $? "--debug-output of another value: refused, status 2" "status $st: $(cat err.txt)"
$HCPSIM run --env ZZ_HCP=from-outside --trace t.json sysinfo64.exe > o.txt 2> err.txt
grep -q '"ph":"i","pid":2,"tid":1000,"ts":[0-9.]*,"s":"t","cat":"debug","name":"debug A\\u000a"' t.json &&
  grep -q '"cat":"debug","name":"debug W\\u000a"' t.json
result $? "--trace: each OutputDebugString is an instant event on its thread's track, its text the name" "$(grep -c debug t.json)"
cat > env.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine {}
local p = m:process { path = "sysinfo64.exe", echo = false, env = { "ZZ_LIST=1", ZZ_HCP = "from-outside", ZZ_B = 2 },
                      timezone = "Asia/Tokyo" }
m:run()
print(p.exit_code, p.stdout:match("time zone %[hcpsim%]: [^\r]*"))
EOF
$HCPSIM run env.lua > o.txt 2> err.txt
[ "$(cat o.txt)" = "0	time zone [hcpsim]: Tokyo Standard Time, bias -540, id 0" ]
result $? "m:process{env = {...}, timezone = ...}: a list and NAME = value pairs, a zone" "$(cat o.txt err.txt)"

# sysinfo64.exe under Wine: every line but the [hcpsim] and [not Wine] ones
CLAUSE=PE-WINE
wine=$(command -v wine64 || command -v wine)
if [ -n "$wine" ]; then
  mkdir w64
  (cd w64 && ZZ_HCP=from-outside WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" ../sysinfo64.exe > ../wine.txt 2> ../wine.err); wst=$?
  command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
  if [ -s wine.txt ]; then # it ran (its status is the program's own)
    rm -rf s && mkdir s
    $HCPSIM run --cwd s --env ZZ_HCP=from-outside sysinfo64.exe | grep -v '\[hcpsim\]\|\[not Wine\]' | tr -d "$cr" > sim.txt
    tr -d "$cr" < wine.txt | cmp -s - sim.txt
    result $? "sysinfo64.exe: Wine 8.0 writes the same lines (its [hcpsim] and [not Wine] checks aside)" "$(tr -d "$cr" < wine.txt | diff - sim.txt | head -5)"
  else
    echo "ok $((n + 1)) - sysinfo64.exe: Wine writes the same lines [PE-WINE] # SKIP wine did not run the program (status $wst)"
    n=$((n + 1))
  fi
else
  echo "ok $((n + 1)) - sysinfo64.exe: Wine writes the same lines [PE-WINE] # SKIP no wine"
  n=$((n + 1))
fi
echo "1..$n"
exit $((fail > 0))
