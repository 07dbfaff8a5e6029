#!/bin/sh
# make test: hcpcheck.c still compiles as a Windows program, with the same
# warnings-as-errors as `make native-conformance`, where mingw-w64 is
# installed; skipped elsewhere (CI's fresh machine need not have it).  Then
# the same for i386 (i686-w64-mingw32-gcc) and with clang for both targets
# (against the mingw-w64 headers), each a SKIP where its compiler is missing.
# HCPSIM names the simulator (default build/hcpsim); its directory is BUILD.
HCPSIM=${HCPSIM:-build/hcpsim}
bin=${HCPSIM##* }
build=$(dirname "$bin")
cc=${MINGW_CC:-x86_64-w64-mingw32-gcc}
echo "TAP version 13"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "1..0 # SKIP $cc not installed (make native-deps installs it)"
  exit 0
fi
echo "1..5"
mkdir -p "$build/conformance/native"
exe=$build/conformance/native/hcpcheck-test.exe
warn="-Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wconversion -Wno-sign-conversion
      -Wformat=2 -Wswitch-enum -Wvla -Wundef -Werror"
# shellcheck disable=SC2086
if "$cc" -std=c17 -O2 $warn -static -o "$exe" conformance/native/hcpcheck.c 2>"$exe.log"; then
  echo "ok 1 - hcpcheck.c compiles with $cc against the Windows headers, no warnings [SIM-NATIVE-PROGRAM]"
else
  echo "not ok 1 - hcpcheck.c compiles with $cc against the Windows headers, no warnings [SIM-NATIVE-PROGRAM]"
  sed 's/^/# /' "$exe.log"
fi
# The four HCP functions are only reached through GetProcAddress: none is a link-time import.
if command -v x86_64-w64-mingw32-objdump >/dev/null 2>&1 && [ -f "$exe" ]; then
  table=$(x86_64-w64-mingw32-objdump -p "$exe")
  imports=$(printf '%s\n' "$table" | grep -E 'ThreadProfiling|GetThreadTimes|QueryThreadCycleTime')
  # GetProcAddress itself must be listed, or the import table was not read at all
  if [ -z "$imports" ] && printf '%s\n' "$table" | grep -q 'GetProcAddress'; then
    echo "ok 2 - the .exe imports no function under test (all resolved with GetProcAddress) [SIM-NATIVE-PROGRAM]"
  else
    echo "not ok 2 - the .exe imports no function under test (all resolved with GetProcAddress) [SIM-NATIVE-PROGRAM]"
    printf '%s\n' "$imports" | sed 's/^/# /'
  fi
else
  echo "ok 2 - the .exe imports no function under test [SIM-NATIVE-PROGRAM] # SKIP no x86_64-w64-mingw32-objdump or no .exe"
fi
# i386 with gcc, then clang for both targets (syntax and warnings only: no clang linker is assumed)
if command -v i686-w64-mingw32-gcc >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  if i686-w64-mingw32-gcc -std=c17 -O2 $warn -static -o "$exe.i386" conformance/native/hcpcheck.c 2>"$exe.log"; then
    echo "ok 3 - hcpcheck.c compiles for i386 with i686-w64-mingw32-gcc, no warnings [SIM-NATIVE-PROGRAM]"
  else
    echo "not ok 3 - hcpcheck.c compiles for i386 with i686-w64-mingw32-gcc, no warnings [SIM-NATIVE-PROGRAM]"
    sed 's/^/# /' "$exe.log"
  fi
else
  echo "ok 3 - hcpcheck.c compiles for i386 [SIM-NATIVE-PROGRAM] # SKIP i686-w64-mingw32-gcc not installed"
fi
n=3
for target in x86_64-w64-mingw32 i686-w64-mingw32; do
  n=$((n + 1))
  if command -v clang >/dev/null 2>&1 && [ -d "/usr/$target/include" ]; then
    # shellcheck disable=SC2086
    if clang --target="$target" -std=c17 -O2 $warn -fsyntax-only conformance/native/hcpcheck.c 2>"$exe.log"; then
      echo "ok $n - hcpcheck.c compiles with clang --target=$target, no warnings [SIM-NATIVE-PROGRAM]"
    else
      echo "not ok $n - hcpcheck.c compiles with clang --target=$target, no warnings [SIM-NATIVE-PROGRAM]"
      sed 's/^/# /' "$exe.log"
    fi
  else
    echo "ok $n - hcpcheck.c compiles with clang --target=$target [SIM-NATIVE-PROGRAM] # SKIP no clang or no /usr/$target/include"
  fi
done
