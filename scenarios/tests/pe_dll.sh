#!/bin/sh
# A program with its own DLLs (api/README.md "DLLs"): scenarios/examples/pe/dll/dlluse.c imports
# hcpdll.dll (a data export, an export by ordinal only, forwarders to itself and to KERNEL32, TLS
# data of its own TLS directory, a TLS callback and a DllMain that say when they run) and loads
# and frees hcpdll2.dll; its "ok DLL!Name:" lines become TAP lines (x86-64 and i386), the order
# in which the DLLs' DllMain and TLS callbacks run is the one Windows documents (derived below,
# and compared with Wine's where Wine runs the program), two runs write the same bytes; then the
# search order (the program's folder first, then --dll-path), and a DLL that cannot be found or
# lacks an import, each with Windows' message and exit status.
CLAUSE=PE-DLL
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
cr=$(printf '\r')
wine=$(command -v wine64 || command -v wine)
# The loader's calls, as Windows documents them ("DllMain entry point", "Dynamic-Link Library
# Entry-Point Function", "TLS callbacks" in the PE format): before the entry point, each DLL's TLS
# callbacks then its DllMain with DLL_PROCESS_ATTACH and a non-NULL lpReserved (a static load); in
# a new thread DLL_THREAD_ATTACH before its start routine, DLL_THREAD_DETACH when it returns
# (lpReserved NULL; two DLLs told: attach in initialization order, detach in reverse); LoadLibrary
# of a DLL runs its DllMain before returning (lpReserved NULL for a dynamic load), FreeLibrary
# of the last reference runs DLL_PROCESS_DETACH, a DLL that called
# DisableThreadLibraryCalls is told of no thread, LoadLibraryEx with DONT_RESOLVE_DLL_REFERENCES
# calls no DllMain; at the process's end DLL_PROCESS_DETACH with a non-NULL lpReserved.
want_events() {
  cat <<'EOF'
hcpdll: TLS callback DLL_PROCESS_ATTACH
hcpdll: DllMain DLL_PROCESS_ATTACH, lpReserved non-NULL
main: starts
hcpdll: TLS callback DLL_THREAD_ATTACH
hcpdll: DllMain DLL_THREAD_ATTACH, lpReserved NULL
worker: runs
hcpdll: TLS callback DLL_THREAD_DETACH
hcpdll: DllMain DLL_THREAD_DETACH, lpReserved NULL
hcpdll2: DllMain DLL_PROCESS_ATTACH, lpReserved NULL
hcpdll: TLS callback DLL_THREAD_ATTACH
hcpdll: DllMain DLL_THREAD_ATTACH, lpReserved NULL
worker: runs
hcpdll: TLS callback DLL_THREAD_DETACH
hcpdll: DllMain DLL_THREAD_DETACH, lpReserved NULL
hcpdll2: DllMain DLL_PROCESS_DETACH, lpReserved NULL
hcpdll2: DllMain DLL_PROCESS_ATTACH, lpReserved NULL
hcpdll2: DllMain DLL_PROCESS_DETACH, lpReserved NULL
hcpdll2: DllMain DLL_PROCESS_ATTACH, lpReserved NULL
hcpdll: TLS callback DLL_THREAD_ATTACH
hcpdll: DllMain DLL_THREAD_ATTACH, lpReserved NULL
hcpdll2: DllMain DLL_THREAD_ATTACH, lpReserved NULL
worker: runs
hcpdll2: DllMain DLL_THREAD_DETACH, lpReserved NULL
hcpdll: TLS callback DLL_THREAD_DETACH
hcpdll: DllMain DLL_THREAD_DETACH, lpReserved NULL
hcpdll2: DllMain DLL_PROCESS_DETACH, lpReserved NULL
main: 0 failed
hcpdll: TLS callback DLL_PROCESS_DETACH
hcpdll: DllMain DLL_PROCESS_DETACH, lpReserved non-NULL
EOF
}
want_events > want.txt
for bits in 64 32; do
  rm -rf p$bits && mkdir p$bits && cp "$pe/dll$bits/dlluse.exe" "$pe/dll$bits/hcpdll.dll" "$pe/dll$bits/hcpdll2.dll" p$bits/
  $HCPSIM run p$bits/dlluse.exe > out.txt 2> err.txt; st=$?
  tr -d "$cr" < out.txt > o$bits.txt
  while IFS= read -r line; do
    case "$line" in
      "ok "*) result 0 "dlluse$bits: ${line#ok }" ;;
      "not ok "*) result 1 "dlluse$bits: ${line#not ok }" ;;
    esac
  done < o$bits.txt
  [ "$st" = 0 ] && [ ! -s err.txt ]
  result $? "dlluse$bits: runs to exit code 0, nothing on stderr (status $st)" "$(cat err.txt)"
  grep -v '^ok \|^not ok \|^note: ' o$bits.txt > ev$bits.txt
  cmp -s ev$bits.txt want.txt
  result $? "dlluse$bits: TLS callbacks and DllMain run in the documented order: attach before the entry point, thread attach and detach around a thread's routine, LoadLibrary and FreeLibrary, detach at the end" "$(diff ev$bits.txt want.txt | head -8 | tr '\n' ' ')"
  grep -qx 'note: the truncated name ends in a NUL: yes' o$bits.txt
  result $? "dlluse$bits: KERNEL32.dll!GetModuleFileNameA: a truncated name ends in a NUL (Windows Vista and later; Wine 8.0 does not)"
  $HCPSIM run p$bits/dlluse.exe > out2.txt 2>&1
  cmp -s out.txt out2.txt
  result $? "dlluse$bits: a second run writes the same bytes"
  if [ -n "$wine" ]; then
    WINEDEBUG=-all WINEPREFIX=$dir/wineprefix timeout 120 "$wine" p$bits/dlluse.exe > wine.txt 2> wine.err; wst=$?
    if [ "$wst" -le 1 ] && [ -s wine.txt ]; then
      tr -d "$cr" < wine.txt | grep -v '^note: \|GetModuleFileNameA: a buffer' > w$bits.txt
      grep -v '^note: \|GetModuleFileNameA: a buffer' o$bits.txt > s$bits.txt
      CLAUSE=PE-WINE
      cmp -s s$bits.txt w$bits.txt
      result $? "dlluse$bits: hcpsim writes what Wine writes (the truncated name's NUL aside)" "$(diff s$bits.txt w$bits.txt | head -6 | tr '\n' ' ')"
      CLAUSE=PE-DLL
    else
      n=$((n + 1))
      echo "ok $n - dlluse$bits: hcpsim writes what Wine writes [PE-WINE] # SKIP wine did not run the program (status $wst)"
    fi
    command -v wineserver >/dev/null 2>&1 && WINEPREFIX=$dir/wineprefix timeout 30 wineserver -k 2>/dev/null
  fi
  # the search order: the program's folder, then --dll-path (as given, in order)
  rm -rf alone && mkdir alone && cp "$pe/dll$bits/dlluse.exe" alone/
  $HCPSIM run --dll-path nowhere --dll-path "$pe/dll$bits" alone/dlluse.exe > out.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && tr -d "$cr" < out.txt | grep -q '^main: 0 failed$'
  result $? "dlluse$bits: --dll-path DIR (repeatable): DLLs are found in the folders given, in order, after the program's own (status $st)" "$(cat err.txt)"
  other=$([ "$bits" = 64 ] && echo 32 || echo 64)
  cp "$pe/dll$other/hcpdll.dll" alone/
  $HCPSIM run --dll-path "$pe/dll$bits" alone/dlluse.exe > out.txt 2> err.txt; st=$?
  m=$([ "$bits" = 64 ] && echo "an i386 image; this process runs x86-64 code" || echo "an x86-64 image; this process runs i386 code")
  [ "$st" = 123 ] && grep -q "^hcpsim: dlluse.exe: The application was unable to start correctly (0xc000007b): hcpdll.dll (in alone): $m\$" err.txt
  result $? "dlluse$bits: the program's folder comes first: a hcpdll.dll of the other machine type there ends the start with 0xc000007b (STATUS_INVALID_IMAGE_FORMAT), status 123 (status $st)" "$(cat err.txt)"
  # a DLL no folder has: Windows' message, STATUS_DLL_NOT_FOUND (0xC0000135) as the exit code: 0x35
  rm alone/hcpdll.dll
  $HCPSIM run alone/dlluse.exe > out.txt 2> err.txt; st=$?
  [ "$st" = 53 ] && [ ! -s out.txt ] &&
    [ "$(cat err.txt)" = "hcpsim: dlluse.exe: The code execution cannot proceed because hcpdll.dll was not found. Reinstalling the program may fix this problem. (dlluse.exe imports it; hcpsim looked in alone)" ]
  result $? "dlluse$bits: a DLL that cannot be found ends the run before the program starts: Windows' message, exit status 53 (STATUS_DLL_NOT_FOUND 0xC0000135, its low 8 bits) (status $st)" "$(cat err.txt)"
  # an export the program imports that the DLL lacks: STATUS_ENTRYPOINT_NOT_FOUND (0xC0000139): 0x39
  perl -0777 -pe 's/(?<!\.)hcpdll_add\0/hcpdll_adX\0/g' "$pe/dll$bits/hcpdll.dll" > alone/hcpdll.dll
  $HCPSIM run alone/dlluse.exe > out.txt 2> err.txt; st=$?
  [ "$st" = 57 ] && grep -q "^hcpsim: dlluse.exe: The procedure entry point hcpdll_add could not be located in the dynamic link library hcpdll.dll (" err.txt
  result $? "dlluse$bits: an import the DLL does not export: Windows' message, exit status 57 (STATUS_ENTRYPOINT_NOT_FOUND 0xC0000139) (status $st)" "$(cat err.txt)"
done
echo "1..$n"
exit $((fail > 0))
