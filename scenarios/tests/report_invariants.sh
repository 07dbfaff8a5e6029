#!/bin/sh
# The run report and the trace file under clock interrupts, lock-step rounds
# whose CPU clocks lag one another, a preemption, a thread readied "in the
# past" of its own CPU and threads still running when the run stops
# (reports/README.md, reports/SCHEMA.md).  The checks are identities that
# follow from the rules, whatever the exact schedule:
#   report, per CPU:    time = busy + idle + interrupt; busy_bp = floor(busy x 10^4 / time)
#   report, per thread: cycle_time = user + kernel; kernel = 0 (cost "unit": API calls are
#                       free, interrupts are not kernel_cycles); interrupt = 2000 x ticks;
#                       switches: in = intervals; exit 1 for a Terminated thread, else 0;
#                       out (by wait reason) + exit + (1 if still running) = intervals
#   report, machine:    sum of run_cycles = sum of CPU busy + sum of threads' interrupt
#                       cycles (a thread's interval is its work and the interrupts that hit
#                       it; a running thread's interval ends at ITS CPU's clock)
#   trace:              a thread's state spans meet end to start; a CPU span's priority is
#                       the priority of the thread it names
# The schedule that makes these cases happen (2 CPUs, tick 300000 cycles,
# rounds of 10000, interrupt 2000; spin(n): boundaries at start + 3 + 2i;
# even(n), hand-assembled: boundaries at start + 4 + 2i, 2n + 3 cycles):
#   H (priority 12, CPU 0 only) sleeps 1 ms at 0.  X (CPU 0) runs spin: odd
#   boundaries, its segments stop at 10000k + 1.  Y (CPU 1) runs even(52500):
#   even boundaries, its segments stop at 10000k, so CPU 1 runs each round
#   first.  Round 10: Y waits on E at 105003; Z runs even(10) on CPU 1 and
#   exits at 105026; then CPU 0: X sets E at 100004, readying Y at 100004,
#   before the time Y left CPU 1 (its trace span must not go back).  Y runs
#   even(2000000) from 105026: even boundaries again.  CPU 0's tick at
#   3000001 readies H, which preempts X at 3002001 and runs even(1000000):
#   odd boundaries.  max_cycles 4000000: the run stops when the first CPU
#   reaches it ("limit reached: ... on CPU 1"): CPU 1, which runs each round
#   first, at 4000000, while CPU 0 is still at the end of its previous round,
#   3990001.  H is then running on CPU 0 and Y on CPU 1: H's interval must end
#   at 3990001, not at the machine's end (4000000).
CLAUSE=SIM-REPORT-INVARIANTS
. scenarios/tests/lib/tap.sh
echo "TAP version 13"
echo "1..21"

cat > lag.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { cpus = 2, tick = 1000, cost = "unit" }
local k = m:load "kernels"
local even = m:code "\x48\x89\xC8\x90\x48\xFF\xC9\x75\xFB\xC3" -- mov rax,rcx; nop; L: dec rcx; jnz L; ret
local E = m:event {}
m:thread { name = "H", priority = 12, affinity = 0x1, body = function(t) t:Sleep(1); t:run(even, 1000000) end }
m:thread { name = "X", affinity = 0x1, body = function(t)
  t:run(k.spin, 50000)
  t:SetEvent(E)
  t:run(k.spin, 2000000)
end }
m:thread { name = "Y", affinity = 0x2, body = function(t)
  t:run(even, 52500)
  t:WaitForSingleObject(E)
  t:run(even, 2000000)
end }
m:thread { name = "Z", affinity = 0x2, body = function(t) t:run(even, 10) end }
local ok, err = pcall(m.run, m, { max_cycles = 4000000 })
print(ok, err)
local c = m:cpus()
print(c[1].time, c[2].time)
EOF

$HCPSIM run --report r.json --trace t.json lag.lua >out.txt 2>err.txt
st=$?
result $st "the scenario runs with --report and --trace: status 0" "status $st; stderr: $(cat err.txt)"
grep -q "limit reached: 4000000 cycles" out.txt
result $? "m:run stopped at max_cycles" "$(cat out.txt)"
grep -q "^3990001	4000000$" out.txt
result $? "with CPU 0 at 3990001 and CPU 1 at 4000000 (the schedule above)" "$(cat out.txt)"

cat > report.pl <<'EOF'
use strict;
use warnings;
use CheckJson;
my ($d) = load_json($ARGV[0]);
my $mc = $d->{machines}[0] // {};
my @cpus = @{ $mc->{cpus} // [] };
my @ths = @{ $mc->{threads} // [] };
check(@cpus == 2 && @ths == 4, 'one machine with 2 CPUs and 4 threads', scalar(@cpus) . ' CPUs, ' . scalar(@ths) . ' threads');
my ($bad, $bp) = ('', '');
for my $c (@cpus) {
  $bad .= "CPU $c->{index}: $c->{time} != $c->{busy} + $c->{idle} + $c->{interrupt}; "
    if $c->{time} != $c->{busy} + $c->{idle} + $c->{interrupt};
  my $want = $c->{time} ? int($c->{busy} * 10000 / $c->{time}) : 0;
  $bp .= "CPU $c->{index}: $c->{busy_bp}, want $want; " if $c->{busy_bp} != $want;
}
check($bad eq '', 'every CPU has time = busy + idle + interrupt', $bad);
check($bp eq '', 'every CPU has busy_bp = floor(busy x 10000 / time), interrupt time not busy', $bp);
my ($ct, $kern, $intr, $ins, $ex, $outs) = ('') x 6;
my ($run, $busy, $tintr) = (0, 0, 0);
for my $t (@ths) {
  my $n = $t->{name};
  $ct .= "$n; " if $t->{cycle_time} != $t->{user_cycles} + $t->{kernel_cycles};
  $kern .= "$n: $t->{kernel_cycles}; " if $t->{kernel_cycles} != 0;
  $intr .= "$n: $t->{interrupt_cycles} for $t->{ticks} ticks; " if $t->{interrupt_cycles} != 2000 * $t->{ticks};
  my $sw = $t->{switches};
  $ins .= "$n: in $sw->{in}, intervals $t->{intervals}; " if $sw->{in} != $t->{intervals};
  my $term = $t->{state} eq 'Terminated' ? 1 : 0;
  $ex .= "$n ($t->{state}): exit $sw->{exit}; " if $sw->{exit} != $term;
  my $out = 0;
  $out += $_ for values %{ $sw->{out} };
  my $running = $t->{state} eq 'Running' ? 1 : 0;
  $outs .= "$n: out $out + exit $sw->{exit} + running $running != $t->{intervals}; "
    if $out + $sw->{exit} + $running != $t->{intervals};
  $run += $t->{run_cycles};
  $tintr += $t->{interrupt_cycles};
}
$busy += $_->{busy} for @cpus;
check($ct eq '', 'every thread has cycle_time = user_cycles + kernel_cycles', $ct);
check($kern eq '', 'every thread has kernel_cycles 0 (free API calls; interrupts are not kernel work here)', $kern);
check($intr eq '', 'every thread has interrupt_cycles = 2000 x ticks', $intr);
check($ins eq '', 'every thread has switches.in = intervals', $ins);
check($ex eq '', 'switches.exit is 1 for a Terminated thread and 0 for the others', $ex);
check($outs eq '', 'every thread has switch-outs by reason + exit + still running = intervals', $outs);
check($run == $busy + $tintr, 'sum of run_cycles = sum of busy + the threads\' interrupt cycles (a running thread ends at its CPU\'s clock)',
      "$run != $busy + $tintr");
my %st = map { $_->{name} => $_->{state} } @ths;
check(($st{H} // '') eq 'Running' && ($st{Y} // '') eq 'Running' && ($st{X} // '') eq 'Ready' && ($st{Z} // '') eq 'Terminated',
      'H and Y still run, X was preempted, Z exited', join(',', map { "$_=$st{$_}" } sort keys %st));
finish();
EOF
check_json report.pl r.json

cat > trace.pl <<'EOF'
use strict;
use warnings;
use CheckJson;
my ($d) = load_json($ARGV[0]);
my @x = grep { ($_->{ph} // '') eq 'X' } @{ $d->{traceEvents} // [] };
# ts and dur in ns: the 3-decimal microseconds without the point
my $ns = sub { my $v = sprintf('%.3f', $_[0]); $v =~ s/\.//; $v + 0 };
my %prio = (1000 => 12, 1004 => 8, 1008 => 8, 1012 => 8);
my @cpu = grep { $_->{pid} == 1 } @x;
my @wrong = grep { ($_->{args}{priority} // -1) != ($prio{ $_->{args}{tid} // 0 } // -2) } @cpu;
check(@cpu && !@wrong, 'every CPU span carries the priority of the thread it names',
      join(', ', map { "$_->{name} at $_->{ts}: $_->{args}{priority}" } @wrong));
my $h = grep { $_->{args}{tid} == 1000 && $_->{args}{priority} == 12 } @cpu;
check($h >= 1, 'H (priority 12) has a CPU span');
my ($gap, $neg) = ('', '');
for my $tid (sort keys %prio) {
  my @s = grep { $_->{pid} == 2 && $_->{tid} == $tid } @x; # in the order written: each span when it ends
  for my $i (0 .. $#s) {
    $neg .= "$tid $s[$i]{name} at $s[$i]{ts}: dur $s[$i]{dur}; " if $ns->($s[$i]{dur}) < 0 || $ns->($s[$i]{dur}) > 2000000;
    next unless $i;
    my $end = $ns->($s[$i-1]{ts}) + $ns->($s[$i-1]{dur});
    $gap .= "$tid $s[$i]{name} at $s[$i]{ts} after $s[$i-1]{name} ending at $end ns; " if $ns->($s[$i]{ts}) != $end;
  }
}
check($neg eq '', 'no state span is negative or longer than the run (2000000 ns)', $neg);
check($gap eq '', "each thread's state spans, in the order written, start where the previous one ended", $gap);
my @yr = grep { $_->{pid} == 2 && $_->{tid} == 1008 && $_->{name} eq 'Ready' } @x;
check(grep({ $_->{args}{readied_by} eq 'wake' && $ns->($_->{ts}) == 35001 && $ns->($_->{dur}) == 7 } @yr),
      'Y readied at 100004 cycles (33334 ns) by X: its Ready span starts when it left CPU 1 (105003 = 35001 ns) and lasts to 105026 (35008 ns)',
      join(', ', map { "$_->{ts}+$_->{dur} $_->{args}{readied_by}" } @yr));
finish();
EOF
check_json trace.pl t.json

exit $((fail > 0))
