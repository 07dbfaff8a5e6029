#!/bin/sh
# Exactness of a program's counts (api/README.md "Windows programs"), x86-64 and i386.
# exact.c's work(n, x) is a loop mingw-w64 compiled; this test reads its disassembly in the built
# image (objdump -d) and derives, from the listing alone, the instructions before the loop
# (`pre`), in the loop body between the backward branch's target and the branch (`body`, once per
# iteration) and after it up to the first `ret` (`post`); it requires that no other branch lies in
# the function.  So work(n) retires pre + n*body + post instructions and n*(branches in the body)
# + 1 branches (the `ret`: pmu_model/README.md counts every control transfer).  Checked three ways:
# the function's bytes placed with m:code and run with t:run (absolute counts), the program's own
# ReadThreadProfilingData samples around work(1) and work(n+1) (they differ by exactly n loop
# shares: the reads and the code between them are the same instructions both times), and the
# program's exit code.
CLAUSE=PE-EXACT
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
N=1000
echo "TAP version 13"
echo "1..14"
for bits in 64 32; do
  if [ $bits = 64 ]; then sym=work plat=win10-x64 od=x86_64-w64-mingw32-objdump; else sym=_work plat=win7-x86 od=i686-w64-mingw32-objdump; fi
  cp "$pe/exact$bits.exe" .
  $od -d "exact$bits.exe" > dis.txt
  # pre body post bodybranches hexbytes, or "bad REASON"
  perl -e '
    my ($sym) = @ARGV; my (@ins, $in);
    while (<STDIN>) {
      if (/^[0-9a-f]+ <\Q$sym\E>:/) { $in = 1; next }
      next unless $in; last if /^\s*$/;
      next unless /^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(\S+)\s*(.*)$/;
      push @ins, { addr => hex $1, bytes => $2, op => $3, arg => $4 };
      last if $3 =~ /^ret/;
    }
    # an instruction objdump continues on the next line (long bytes) is not a branch; only the
    # function up to its first ret matters
    @ins && $ins[-1]{op} =~ /^ret/ or do { print "bad no ret in $sym\n"; exit };
    my @br = grep { $ins[$_]{op} =~ /^(j|call|loop|ret)/ } 0 .. $#ins;
    @br == 2 or do { print "bad ", scalar(@br), " branches in $sym, the derivation needs the loop branch and ret\n"; exit };
    my $j = $ins[$br[0]];
    my ($target) = $j->{arg} =~ /^([0-9a-f]+)/; $target = hex $target;
    $j->{op} =~ /^j[a-z]+$/ && $j->{op} ne "jmp" && $target < $j->{addr} or do { print "bad no backward conditional branch\n"; exit };
    my ($t) = grep { $ins[$_]{addr} == $target } 0 .. $#ins;
    defined $t or do { print "bad the branch target is not an instruction\n"; exit };
    my $hex = join "", map { $_->{bytes} =~ s/ //gr } @ins;
    printf "%d %d %d %d %s\n", $t, $br[0] - $t + 1, $#ins - $br[0], 1, $hex;
  ' "$sym" < dis.txt > derive.txt
  read pre body post bb hex < derive.txt
  [ "$pre" != bad ]; result $? "exact$bits.exe: objdump finds $sym, one backward conditional branch and a ret" "$(cat derive.txt)"
  [ "$pre" = bad ] && { pre=0 body=0 post=0 bb=0 hex=c3; }
  luahex=$(printf '%s' "$hex" | sed 's/\(..\)/\\x\1/g')
  cat > exact.lua <<LUA
local hcp = require "hcpsim"
local function machine()
  local m = hcp.machine { platform = "$plat", pmc = { "instructions", "branches" } }
  m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 }, { Type = hcp.PMCCounter, Index = 1 } }
  return m
end
local m = machine()
local p = m:process { path = "exact$bits.exe", args = { "$N" }, echo = false }
m:run()
print(p.stdout)
print("exit " .. tostring(p.exit_code))
local m2 = machine()
local f = m2:code "$luahex"
m2:thread { body = function(t)
  local _, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 3)
  for _, n in ipairs { 1, $((N + 1)) } do
    local _, a = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
    t:run(f, n, 7)
    local _, b = t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
    print(string.format("code %d: %d %d", n, b.HwCounters[0].Value - a.HwCounters[0].Value,
      b.HwCounters[1].Value - a.HwCounters[1].Value))
  end
end }
m2:run()
LUA
  $HCPSIM run exact.lua > out.txt 2> err.txt; st=$?
  tr -d '\r' < out.txt > o.txt
  [ "$st" = 0 ] && grep -q '^exit 0$' o.txt; result $? "exact$bits.exe $N runs to exit code 0 (status $st)" "$(cat err.txt)"
  for k in 1 $((N + 1)); do
    want="code $k: $((pre + k * body + post)) $((k * bb + 1))"
    got=$(grep "^code $k:" o.txt)
    [ "$got" = "$want" ]
    result $? "exact$bits.exe: $sym's bytes placed with m:code: work($k) retires pre $pre + $k x body $body + post $post instructions, $k + 1 branches" "got '$got', want '$want'"
  done
  read _ _ r1 r2 i1 b1 <<X
$(grep '^measure 1:' o.txt)
X
  read _ _ s1 s2 i2 b2 <<X
$(grep "^measure $((N + 1)):" o.txt)
X
  [ "$r1$r2$s1$s2" = 0000 ]; result $? "exact$bits.exe: its four ReadThreadProfilingData calls return ERROR_SUCCESS" "$(cat o.txt)"
  [ -n "$i1" ] && [ -n "$i2" ] && [ $((i2 - i1)) = $((N * body)) ] && [ $((b2 - b1)) = $((N * bb)) ]
  result $? "exact$bits.exe: samples around work($((N + 1))) and work(1) differ by $N x $body instructions and $N x $bb branches" "instructions $i1 -> $i2, branches $b1 -> $b2"
  # the sample also holds the code around work: at least work(1)'s own pre + body + post
  [ -n "$i1" ] && [ "$i1" -gt $((pre + body + post)) ]
  result $? "exact$bits.exe: a sample around work(1) holds more than work(1)'s $((pre + body + post)) instructions (the reads' own code)" "measure 1: $i1"
done
exit $((fail > 0))
