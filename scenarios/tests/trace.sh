#!/bin/sh
# hcpsim run --trace PATH: the Perfetto/Chrome trace-event JSON file
# (reports/README.md).  A small scenario written here (2 CPUs; a spinner, a
# sleeper that then sets an event, a waiter on that event) runs with --trace;
# a perl script (core JSON::PP) checks the file's structure against what the
# scenario must produce: tracks, spans, wait reasons, counters, timestamps.
CLAUSE=SIM-TRACE-FILE
. scenarios/tests/lib/tap.sh
echo "TAP version 13"
echo "1..30"

# spin(n) retires 4 + 2n instructions and 2 + n branches (scenarios/kernels/README.md).
cat > sched.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { cpus = 2, pmc = { "instructions", "cycles", "branches" } }
local k = m:load "kernels"
local e = m:event {}
m:thread { name = "spinner", body = function(t) t:run(k.spin, 3000000) end }
m:thread { name = "sleeper", body = function(t)
  t:run(k.spin, 1000)
  t:Sleep(20)
  t:run(k.spin, 1000)
  t:SetEvent(e)
end }
m:thread { name = "waiter", body = function(t)
  t:WaitForSingleObject(e)
  t:run(k.spin, 500)
end }
m:run()
EOF

$HCPSIM run --trace a.json sched.lua >out.txt 2>err.txt
st=$?
result $st "the scenario runs with --trace: status 0" "status $st; stderr: $(cat err.txt)"
[ -s a.json ] && [ ! -e a.json.tmp ]
result $? "the trace is at PATH and PATH.tmp is gone"

# The checker (CheckJson.pm) prints one line per check: "ok NAME" or "not ok NAME: detail".
cat > check.pl <<'EOF'
use strict;
use warnings;
use JSON::PP;
use CheckJson;
my ($d, $text) = load_json($ARGV[0]);
my $evs = $d->{traceEvents};
check(ref $evs eq 'ARRAY' && @$evs > 0, 'it has a non-empty traceEvents array');
$evs = [] unless ref $evs eq 'ARRAY';
check(($d->{displayTimeUnit} // '') eq 'ns' && ref $d->{otherData} eq 'HASH', 'displayTimeUnit is "ns" and otherData an object');
check(ref $d->{otherData} eq 'HASH' && exists $d->{otherData}{partial} && !defined $d->{otherData}{partial},
      'a complete run: otherData.partial is null');

my @bad = grep { !defined $_->{ph} || !defined $_->{pid} || !defined $_->{tid}
                 || ($_->{ph} =~ /^[XC]$/ && !defined $_->{ts}) } @$evs;
check(!@bad, 'every event has ph, pid, tid, and ts when it is an X or C event', scalar(@bad) . ' without');
my %phs = map { $_->{ph} // '' => 1 } @$evs;
check(!grep({ !/^[MXC]$/ } keys %phs), 'only M, X and C events', join(',', sort keys %phs));
# ts and dur are microseconds written with exactly 3 decimals (ns resolution), never exponents
my @ts = $text =~ /"(?:ts|dur)":([^,}]*)/g;
my @badts = grep { !/^\d+\.\d{3}$/ } @ts;
check(@ts && !@badts, 'every ts and dur is written as an exact decimal with 3 fractional digits',
      @badts ? "e.g. $badts[0]" : 'none found');
my @x = grep { $_->{ph} eq 'X' } @$evs;
my @neg = grep { !defined $_->{dur} || $_->{dur} < 0 } @x;
check(@x && !@neg, 'every X event has dur >= 0', scalar(@neg) . ' bad');

# processes and tracks
my %pname = map { $_->{pid} => $_->{args}{name} } grep { $_->{ph} eq 'M' && $_->{name} eq 'process_name' } @$evs;
check(($pname{1} // '') eq 'machine' && ($pname{2} // '') eq 'threads', 'pid 1 is "machine", pid 2 is "threads"',
      join(',', map { "$_=$pname{$_}" } sort keys %pname));
my %tname;
$tname{"$_->{pid}/$_->{tid}"} = $_->{args}{name} for grep { $_->{ph} eq 'M' && $_->{name} eq 'thread_name' } @$evs;
my @cpu_tracks = sort grep { m{^1/} } keys %tname;
check(@cpu_tracks == 2 && $tname{'1/1'} eq 'CPU 0' && $tname{'1/2'} eq 'CPU 1', 'two CPU tracks: tid 1 "CPU 0", tid 2 "CPU 1"',
      join(',', map { "$_=$tname{$_}" } @cpu_tracks));
my %want = (1000 => 'spinner', 1004 => 'sleeper', 1008 => 'waiter');
my @thr_tracks = grep { m{^2/} } keys %tname;
check(@thr_tracks == 3 && !grep({ ($tname{"2/$_"} // '') ne $want{$_} } keys %want),
      'three thread tracks named after the threads, tid = thread id', join(',', map { "$_=$tname{$_}" } sort @thr_tracks));

# CPU tracks: spans named after the thread, no overlap on a CPU
my @cpu = grep { $_->{ph} eq 'X' && $_->{pid} == 1 } @x;
my @foreign = grep { !exists $want{$_->{args}{tid} // 0} || $_->{name} ne $want{$_->{args}{tid}} } @cpu;
check(@cpu && !@foreign, 'CPU spans name the thread that ran and carry its id', scalar(@foreign) . ' mismatched');
my %args_ok = map { $_ => 1 } grep { defined $_->{args}{priority} && (defined $_->{args}{left_with} || $_->{args}{running_at_end}) } @cpu;
check(keys %args_ok == @cpu, 'CPU spans carry the priority and the wait reason the thread left with');
my $overlap = '';
for my $tid (1, 2) {
  my @s = sort { $a->{ts} <=> $b->{ts} } grep { $_->{tid} == $tid } @cpu;
  for my $i (1 .. $#s) {
    $overlap .= "cpu tid $tid at $s[$i]{ts}; " if $s[$i]{ts} < $s[$i-1]{ts} + $s[$i-1]{dur} - 1e-9;
  }
}
check($overlap eq '', 'the spans of a CPU track do not overlap', $overlap);
my %ran_on = map { ($_->{args}{tid} => 1) } @cpu;
check(keys %ran_on == 3, 'each thread has a span on some CPU track');

# thread state tracks
my @st = grep { $_->{ph} eq 'X' && $_->{pid} == 2 } @x;
my @badname = grep { $_->{name} !~ /^(Ready|Running|Waiting)$/ } @st;
check(@st && !@badname, 'thread state spans are Ready, Running or Waiting', scalar(@badname) . ' others');
my @norun = grep { my $t = $_; !grep { $_->{tid} == $t && $_->{name} eq 'Running' } @st } keys %want;
check(!@norun, 'each thread has a Running span', "none for @norun");
my @slept = grep { $_->{tid} == 1004 && $_->{name} eq 'Waiting' } @st;
check(@slept == 1 && $slept[0]{args}{reason} eq 'DelayExecution' && $slept[0]{args}{reason_code} == 4,
      'the sleeper has one Waiting span, reason DelayExecution (4)', join(',', map { $_->{args}{reason} } @slept));
# Sleep(20) waits at least 20 ms of virtual time
check(@slept && $slept[0]{dur} >= 20000, 'the sleeper waits at least 20000 us', @slept ? $slept[0]{dur} : 'no span');
my @waited = grep { $_->{tid} == 1008 && $_->{name} eq 'Waiting' } @st;
check(@waited == 1 && $waited[0]{args}{reason} eq 'UserRequest', 'the waiter has one Waiting span, reason UserRequest (6)',
      join(',', map { $_->{args}{reason} } @waited));
my @spun = grep { $_->{tid} == 1000 && $_->{name} eq 'Waiting' } @st;
check(!@spun, 'the spinner never waits');
my $gap = '';
for my $t (keys %want) {
  my @s = sort { $a->{ts} <=> $b->{ts} } grep { $_->{tid} == $t } @st;
  for my $i (1 .. $#s) {
    my $end = $s[$i-1]{ts} + $s[$i-1]{dur};
    $gap .= "$t at $s[$i]{ts}; " if abs($s[$i]{ts} - $end) > 1e-6;
  }
  $gap .= "$t starts with $s[0]{name}; " if @s && $s[0]{name} ne 'Ready';
}
check($gap eq '', "each thread's state spans follow one another without gap or overlap, starting Ready", $gap);

# counters: per thread, sampled at switch-out, non-decreasing; last values from spin's formula
my @c = grep { $_->{ph} eq 'C' && $_->{pid} == 2 } @$evs;
my $dec = '';
my %last;
for my $t (keys %want) {
  my @s = sort { $a->{ts} <=> $b->{ts} } grep { $_->{tid} == $t } @c;
  for my $i (1 .. $#s) {
    for my $k (qw(instructions cycles branches)) {
      $dec .= "$t $k at $s[$i]{ts}; " if $s[$i]{args}{$k} < $s[$i-1]{args}{$k};
    }
  }
  $last{$t} = $s[-1]{args} if @s;
}
check(@c && $dec eq '', 'per-thread counters (instructions, cycles, branches) never decrease', $dec);
my %insns = (1000 => 4 + 2 * 3000000, 1004 => 2 * (4 + 2 * 1000), 1008 => 4 + 2 * 500);
my %br = (1000 => 2 + 3000000, 1004 => 2 * (2 + 1000), 1008 => 2 + 500);
my $val = '';
for my $t (sort keys %want) {
  my ($i, $b) = map { $last{$t}{$_} // -1 } qw(instructions branches);
  $val .= "$t: $i/$b want $insns{$t}/$br{$t}; " if $i != $insns{$t} || $b != $br{$t};
}
check($val eq '', "each thread's last counter sample has spin's instructions (4+2n) and branches (2+n)", $val);
my @ready = grep { $_->{ph} eq 'C' && $_->{pid} == 1 && $_->{name} eq 'ready threads' } @$evs;
my @rbad = grep { $_->{args}{ready} < 0 || $_->{args}{ready} > 3 } @ready;
check(@ready && !@rbad && $ready[-1]{args}{ready} == 0, 'the ready-threads counter stays within 0..3 and ends at 0');
finish();
EOF

check_json check.pl a.json

$HCPSIM run --trace b.json sched.lua >/dev/null 2>&1
cmp -s a.json b.json
result $? "a second run writes a byte-identical file"

$HCPSIM run --trace /nonexistent/dir/t.json sched.lua >out.txt 2>err.txt
st=$?
got=$(cat err.txt)
[ "$st" = 2 ] && [ "$got" = "hcpsim: --trace /nonexistent/dir/t.json: No such file or directory" ] && [ ! -s out.txt ]
result $? "an unwritable path: status 2 and a message naming the path, before the scenario runs" "status $st; stderr: $got"

# A scenario that fails after its machine ran still leaves the trace of what ran.
cat > limit.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { max_cycles = 1000000 }
local k = m:load "kernels"
m:thread { name = "runaway", body = function(t) t:run(k.spin, 100000000) end }
m:run()
EOF
$HCPSIM run --trace l.json limit.lua >/dev/null 2>err.txt
st=$?
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(scalar <STDIN>);
  my @r = grep { $_->{ph} eq "X" && $_->{pid} == 1 && $_->{name} eq "runaway" } @{$d->{traceEvents}};
  my $why = "limit.lua:4: limit reached: 1000000 cycles on CPU 0 (machine option max_cycles or m:run{max_cycles = N}; default 20000000000)";
  exit(@r == 1 && $r[0]{args}{running_at_end} && ($d->{otherData}{partial} // "") eq $why ? 0 : 1)' <l.json 2>/dev/null
ok=$?
[ "$st" = 2 ] && [ "$ok" = 0 ] && [ ! -e l.json.tmp ]
result $? "a run that fails at the cycle limit exits 2 and still writes its trace, the open span closed at the end, marked partial with the error" "status $st, check $ok"

[ "$fail" = 0 ]
