#!/bin/sh
# Files in the program's folder (api/README.md "Files"): scenarios/examples/pe/files.c writes a
# CSV, reads it back, lists the folder and checks each file function's documented outcomes (its
# own "ok"/"not ok" lines, expected values from Microsoft's documentation), then tries the
# folder's boundary (its "[hcpsim]" lines).  This file runs it on x86-64 and i386 in a folder
# holding two host symbolic links that lead out of it, checks the folder's contents afterwards
# byte for byte (derived here from what the program writes, not from a run), that nothing
# outside changed, that a second run in a fresh folder writes the same bytes, the options that map
# the folder (hcpsim run --cwd, m:process{cwd}), and compares the program's lines with Wine's
# where Wine is installed (x86-64; the "[hcpsim]" lines do not run there).
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
cr=$(printf '\r')
echo "TAP version 13"
echo "secret" > secret.txt
mkdir outside
# what the folder holds after a run: the CSV as the program formats it (WriteFile: "\n" as is)
{
  printf 'run,kernel,cycles\n'
  i=1
  while [ $i -le 10 ]; do
    k=walk
    [ $((i % 2)) = 1 ] && k=spin
    printf '%d,%s,%d\n' $i $k $((1000 * i + i))
    i=$((i + 1))
  done
} > want.csv
printf '%s\n' . ./dirlink ./link-out ./results.csv ./sub2 ./sub2/inner.txt ./sub2/moved.txt ./wide.txt > want.list
for bits in 64 32; do
  cp "$pe/files$bits.exe" .
  for run in 1 2; do
    rm -rf "f$bits"
    mkdir "f$bits"
    ln -s ../secret.txt "f$bits/link-out"
    ln -s ../outside "f$bits/dirlink"
    timeout 120 $HCPSIM run --cwd "f$bits" "files$bits.exe" > "out$run.txt" 2> err.txt
    echo $? > "st$run.txt"
  done
  CLAUSE=PE-FILES
  tr -d "$cr" < out1.txt > o.txt
  while IFS= read -r line; do
    case "$line" in *"[hcpsim]"*) CLAUSE=PE-FILES-BOUNDARY ;; *) CLAUSE=PE-FILES ;; esac
    line=$(printf '%s' "$line" | sed 's/\\/\\\\/g') # tap.sh's echo reads backslashes
    case "$line" in
      "ok "*) result 0 "files$bits.exe: ${line#ok }" ;;
      "not ok "*) result 1 "files$bits.exe: ${line#not ok }" ;;
    esac
  done < o.txt
  CLAUSE=PE-FILES
  [ $bits = 64 ] && cp out1.txt sim64.txt
  [ "$(cat st1.txt)" = 0 ] && [ "$(tail -n 1 o.txt)" = "0 failed" ] && [ ! -s err.txt ]
  result $? "files$bits.exe: runs to exit code 0, no check failed, nothing on stderr" "status $(cat st1.txt): $(cat err.txt)"
  grep -qx "listing: results.csv sub2/ wide.txt" o.txt
  result $? "files$bits.exe: FindFirstFile/FindNextFile list the folder sorted by name (the links aside)" "$(grep listing o.txt)"
  cmp -s out1.txt out2.txt && [ "$(cat st1.txt)" = "$(cat st2.txt)" ]
  result $? "files$bits.exe: a second run in a fresh folder writes the same bytes"
  (cd "f$bits" && find . | LC_ALL=C sort) > got.list
  cmp -s got.list want.list
  result $? "files$bits.exe: the folder holds what the program left: results.csv, sub2/inner.txt, sub2/moved.txt, wide.txt and the links" "$(tr '\n' ' ' < got.list)"
  cmp -s "f$bits/results.csv" want.csv && [ "$(cat "f$bits/wide.txt")" = abc ] &&
    [ "$(cat "f$bits/sub2/moved.txt")" = alpha ] && [ "$(cat "f$bits/sub2/inner.txt")" = inner ]
  result $? "files$bits.exe: results.csv holds the 11 CSV lines, the other files their bytes" "$(od -c "f$bits/results.csv" | head -3)"
  CLAUSE=PE-FILES-BOUNDARY
  [ "$(cat secret.txt)" = secret ] && [ -z "$(ls outside)" ] && [ ! -e escape.txt ] && [ ! -e x.txt ] &&
    [ -L "f$bits/link-out" ] && [ -L "f$bits/dirlink" ]
  result $? "files$bits.exe: nothing outside the folder was read, written or made; the links are untouched" "$(ls)"
done

# the options that map a folder
CLAUSE=PE-PROCESS-OPTIONS
mkdir -p cwdtest/sub
$HCPSIM run --cwd cwdtest/sub files64.exe > o.txt 2> err.txt
[ -f cwdtest/sub/results.csv ] && [ ! -f cwdtest/results.csv ]
result $? "hcpsim run --cwd DIR: the program's folder (C:\\hcpsim) is DIR, relative to where hcpsim runs"
(cd cwdtest && $HCPSIM run ../files64.exe > ../o.txt 2> ../err.txt)
[ -f cwdtest/results.csv ]
result $? "hcpsim run without --cwd: the program's folder is the one hcpsim runs in"
$HCPSIM run --cwd no/such/folder files64.exe > o.txt 2> err.txt; st=$?
[ "$st" = 2 ] && grep -q "no/such/folder: cannot use it as the program's folder: No such file or directory" err.txt
result $? "hcpsim run --cwd of a missing folder: refused with its reason, status 2" "status $st: $(cat err.txt)"
cat > nocwd.lua <<EOF
local hcp = require "hcpsim"
local m = hcp.machine {}
local p = m:process { path = "files64.exe", echo = false }
m:run()
io.write(p.stdout:match("[^\n]*\n"))
EOF
$HCPSIM run --unsafe-io nocwd.lua > o.txt 2> err.txt
[ "$(tr -d "$cr" < o.txt)" = "not ok KERNEL32.dll!CreateFileA: CREATE_NEW makes a new file, last error 0 (got 5)" ]
result $? "m:process without cwd: no folder is mapped, every file is refused (ERROR_ACCESS_DENIED)" "$(cat o.txt err.txt)"
mkdir luafolder
ln -s ../secret.txt luafolder/link-out
ln -s ../outside luafolder/dirlink
cat > cwd.lua <<EOF
local hcp = require "hcpsim"
local m = hcp.machine {}
local p = m:process { path = "files64.exe", cwd = "luafolder", echo = false }
m:run()
print(p.exit_code)
EOF
$HCPSIM run cwd.lua > o.txt 2> err.txt; st=$?
[ "$st" = 2 ] && grep -q "cwd.lua:3: m:process: 'cwd' maps a host folder into the program: it needs hcpsim run --unsafe-io" err.txt
result $? "m:process{cwd} without --unsafe-io: a scenario error naming the option" "status $st: $(cat err.txt)"
$HCPSIM run --unsafe-io cwd.lua > o.txt 2> err.txt
[ "$(cat o.txt)" = 0 ] && [ -f luafolder/results.csv ]
result $? "m:process{cwd} with --unsafe-io: the folder (relative to the scenario's) is the program's" "$(cat o.txt err.txt)"

# files64.exe under Wine (an outside oracle): every line but the [hcpsim] ones
CLAUSE=PE-WINE
wine=$(command -v wine64 || command -v wine)
if [ -n "$wine" ]; then
  mkdir w64
  (cd w64 && WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" ../files64.exe > ../wine.txt 2> ../wine.err); wst=$?
  command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
  if [ -s wine.txt ]; then # it ran (its status is the program's own)
    grep -v '\[hcpsim\]\|\[not Wine\]' sim64.txt | tr -d "$cr" > sim.txt
    tr -d "$cr" < wine.txt | cmp -s - sim.txt
    result $? "files64.exe: Wine 8.0 writes the same lines (its [hcpsim] checks aside)" "$(tr -d "$cr" < wine.txt | diff - sim.txt | head -5)"
  else
    echo "ok $((n + 1)) - files64.exe: Wine writes the same lines [PE-WINE] # SKIP wine did not run the program (status $wst)"
    n=$((n + 1))
  fi
else
  echo "ok $((n + 1)) - files64.exe: Wine writes the same lines [PE-WINE] # SKIP no wine"
  n=$((n + 1))
fi
echo "1..$n"
exit $((fail > 0))
