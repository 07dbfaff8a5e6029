#!/bin/sh
# hcpcheck inside hcpsim (conformance/native/README.md): runs the check
# program built against the shim in one semantics, prints its TAP stream for
# prove and keeps a copy in BUILD/conformance/hcpsim-SEMANTICS.tap for the
# conformance report.  Usage: sh conformance/native/hcpsim.sh documented|observed
# HCPSIM names the simulator (default build/hcpsim); its directory is BUILD.
sem=$1
HCPSIM=${HCPSIM:-build/hcpsim}
bin=${HCPSIM##* } # the binary, when HCPSIM carries a wrapper
build=$(dirname "$bin")
prog=$build/conformance/native/hcpcheck-sim
out=$build/conformance/hcpsim-$sem.tap
if [ ! -x "$prog" ]; then
  echo "Bail out! $prog is not built (run make)"
  exit 2
fi
mkdir -p "$build/conformance"
"$prog" "$sem" >"$out.raw"
rc=$?
# the implementation goes right after "TAP version 13" (which must stay first), as in wine.sh
{
  head -n 1 "$out.raw"
  echo "# implementation: hcpsim, $sem semantics, platform win10-x64 (make test)"
  tail -n +2 "$out.raw"
} >"$out.tmp" && rm -f "$out.raw" && mv "$out.tmp" "$out"
cat "$out"
exit $rc
