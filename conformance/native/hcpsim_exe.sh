#!/bin/sh
# make test: hcpcheck.exe itself inside hcpsim (conformance/native/README.md "The .exe inside
# hcpsim"): the image make native-conformance builds (-static; here for x86-64 and i386), run by
# m:process on a win10-x64 / win7-x86 machine of each semantics with that semantics' argument.
# Every check must pass, the plan must be complete, a second run must print the same bytes, and
# each verdict line must equal the shim build's (hcpcheck-sim) in the same semantics: the same
# checks, now with the program's own instructions counted.
CLAUSE=SIM-NATIVE-PROGRAM
. scenarios/tests/lib/tap.sh
build=$(dirname "$top/${BUILD:-build}/hcpsim")
[ -d "$build/pe" ] || build=$top/build
echo "TAP version 13"
echo "1..16"
for bits in 64 32; do
  platform=win10-x64
  [ $bits = 32 ] && platform=win7-x86
  cp "$build/pe/hcpcheck$bits.exe" .
  for sem in documented observed; do
    cat > run.lua <<EOF
local hcp = require "hcpsim"
local m = hcp.machine { platform = "$platform", semantics = "$sem" }
m:process { path = "hcpcheck$bits.exe", args = { "$sem" } }
m:run()
EOF
    timeout 600 $HCPSIM run run.lua > a.tap 2> a.err; st=$?
    plan=$(grep -E '^1\.\.[0-9]+$' a.tap)
    oks=$(grep -c '^ok ' a.tap)
    [ "$st" = 0 ] && [ "$plan" = "1..$oks" ] && ! grep -q '^not ok' a.tap && [ "$oks" -gt 70 ]
    result $? "hcpcheck$bits.exe $sem on $platform: all $oks checks ok (ETW ones skipped), plan $plan, status 0" "status $st: $(grep '^not ok' a.tap | head -3) $(cat a.err)"
    # the x86-64 streams are the conformance matrix's "hcpsim .exe" columns (make conformance-report)
    if [ $bits = 64 ]; then mkdir -p "$build/conformance" && cp a.tap "$build/conformance/hcpsim-exe-$sem.tap"; fi
    timeout 600 $HCPSIM run run.lua > b.tap 2> b.err
    cmp -s a.tap b.tap
    result $? "hcpcheck$bits.exe $sem: a second run prints the same bytes"
    "$build/conformance/native/hcpcheck-sim" "$sem" > shim.tap 2>/dev/null
    # the ETW checks skip in the .exe: a program gets no advapi32.dll (its StartTrace family is the
    # shim's, not a DLL hcpsim gives programs); the per-ISA lines (PLAT-X64-HCP, PLAT-X86-HCP,
    # PLAT-ARM64-HCP) follow the build's ISA, which the shim's is not for i386; every other verdict
    # line must be the shim's
    grep -E '# SKIP advapi32.dll lacks|\[PLAT-(X64|X86|ARM64)-HCP\]' a.tap | awk '{ print $2 }' > skipped
    nskip=$(wc -l < skipped | tr -d ' ')
    awk 'NR == FNR { s[$1] = 1; next } /^(not )?ok / { n = $1 == "ok" ? $2 : $3; if (!(n in s)) print }' skipped a.tap > a.verdicts
    awk 'NR == FNR { s[$1] = 1; next } /^(not )?ok / { n = $1 == "ok" ? $2 : $3; if (!(n in s)) print }' skipped shim.tap > shim.verdicts
    cmp -s a.verdicts shim.verdicts && [ "$(wc -l < a.verdicts)" -gt 70 ]
    result $? "hcpcheck$bits.exe $sem: every verdict line equals the shim build's, but $nskip: the ETW checks (no advapi32.dll for programs) and the per-ISA lines" "$(diff a.verdicts shim.verdicts | head -4 | tr '\n' ' ')"
    # the program's own work is counted now: CycleTime between two reads around its own code is not 0
    line=$(grep '^# QueryThreadCycleTime [0-9]' a.tap)
    last=${line##*CycleTime }
    first=${last%%,*}
    [ -n "$first" ] && [ "$first" -gt 0 ] 2>/dev/null
    result $? "hcpcheck$bits.exe $sem: its own instructions count (CycleTime $last; the shim's: $(grep '^# QueryThreadCycleTime [0-9]' shim.tap | sed 's/.*CycleTime //'))"
  done
done
exit $((fail > 0))
