#!/bin/sh
# The run report's per-thread cycle accounting on the scheduler model's generated scenarios
# (sched_model.lua "report" mode; conformance/README.md "Scheduler model"): clock interrupts,
# API calls, preemptions and several CPUs all present.  For every machine and thread of
# `hcpsim run --report FILE.json`, from first principles:
#   cycle_time = user_cycles + kernel_cycles (clock interrupts excluded: sim/README.md
#   "Kernel work"); user_cycles = the sum of 4 + 2n over its k.spin(n) calls (unit cost table);
#   kernel_cycles = api_call x its calls that enter the kernel; interrupt_cycles = ticks x the
#   machine's interrupt_cycles; run_cycles = cycle_time + interrupt_cycles (the intervals it
#   held a CPU are its work and the interrupts it took);
# per machine: the threads' cycle_time adds up to the CPUs' busy time, their interrupt cycles
# and ticks to at most the CPUs', and each CPU's time = busy + idle + interrupt.
# SEEDS (default 40) seeds from 1; run from the repository root.
HCPSIM=${HCPSIM:-build/hcpsim}
SEEDS=${SEEDS:-40}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! "$HCPSIM" run --report "$tmp/r.json" conformance/sched_model.lua report 1 "$SEEDS" >"$tmp/expect.txt" 2>"$tmp/err.txt"; then
    echo "not ok 1 - the generated scenarios run with a report [SCHED-MODEL-REPORT]"
    sed 's/^/# /' "$tmp/err.txt"
    echo "1..1"
    exit 1
fi
perl -MJSON::PP -e '
    my ($json, $expect) = @ARGV;
    open my $f, "<", $json or die "$json: $!";
    my $d = JSON::PP->new->decode(do { local $/; <$f> });
    open my $e, "<", $expect or die "$expect: $!";
    my %want;
    while (<$e>) { my @w = split; $want{"$w[1] $w[2]"} = [@w[3 .. 5]] if $w[0] eq "expect" }
    my ($n, $fail, $threads, $with_intr, $with_kernel, $multi) = (0, 0, 0, 0, 0, 0);
    my $ok = sub {
        my ($c, $name) = @_;
        $n++;
        print(($c ? "ok" : "not ok") . " $n - $name [SCHED-MODEL-REPORT]\n");
        $fail = 1 unless $c;
    };
    my @bad;
    for my $m (@{ $d->{machines} }) {
        my $mi = $m->{index};
        my $ic = $m->{config}{interrupt_cycles};
        $multi++ if $m->{config}{cpus} > 1;
        my ($ct, $intr, $ticks) = (0, 0, 0);
        for my $t (@{ $m->{threads} }) {
            $threads++;
            my $w = $want{"$mi $t->{index}"} or do { push @bad, "machine $mi thread $t->{index}: not expected"; next };
            my ($user, $kcalls, $api) = @$w;
            my $id = "machine $mi thread $t->{id}";
            push @bad, "$id: cycle_time $t->{cycle_time} != user $t->{user_cycles} + kernel $t->{kernel_cycles}"
                if $t->{cycle_time} != $t->{user_cycles} + $t->{kernel_cycles};
            push @bad, "$id: user_cycles $t->{user_cycles}, its spins retire $user" if $t->{user_cycles} != $user;
            push @bad, "$id: kernel_cycles $t->{kernel_cycles}, $kcalls calls x $api" if $t->{kernel_cycles} != $kcalls * $api;
            push @bad, "$id: interrupt_cycles $t->{interrupt_cycles} != $t->{ticks} ticks x $ic"
                if $t->{interrupt_cycles} != $t->{ticks} * $ic;
            push @bad, "$id: run_cycles $t->{run_cycles} != cycle_time + interrupt_cycles"
                if $t->{run_cycles} != $t->{cycle_time} + $t->{interrupt_cycles};
            $with_intr++ if $t->{interrupt_cycles} > 0;
            $with_kernel++ if $t->{kernel_cycles} > 0;
            $ct += $t->{cycle_time};
            $intr += $t->{interrupt_cycles};
            $ticks += $t->{ticks};
        }
        my ($busy, $cintr, $cticks) = (0, 0, 0);
        for my $c (@{ $m->{cpus} }) {
            push @bad, "machine $mi cpu $c->{index}: time != busy + idle + interrupt"
                if $c->{time} != $c->{busy} + $c->{idle} + $c->{interrupt};
            $busy += $c->{busy};
            $cintr += $c->{interrupt};
            $cticks += $c->{ticks};
        }
        push @bad, "machine $mi: threads cycle_time $ct != CPUs busy $busy" if $ct != $busy;
        push @bad, "machine $mi: threads interrupt cycles $intr > CPUs $cintr" if $intr > $cintr;
        push @bad, "machine $mi: threads ticks $ticks > CPUs $cticks" if $ticks > $cticks;
    }
    $ok->(scalar(keys %want) == $threads, "the report lists every generated thread (" . scalar(keys %want) . ")");
    $ok->($with_intr > 0 && $with_kernel > 0 && $multi > 0,
          "the runs have threads hit by interrupts ($with_intr), threads with kernel work ($with_kernel), multi-CPU machines ($multi)");
    $ok->(!@bad, "cycle_time = user_cycles + kernel_cycles, each from its spins and calls; interrupts apart; threads add up to the CPUs");
    print "# $_\n" for @bad[0 .. ($#bad < 9 ? $#bad : 9)];
    print "1..$n\n";
    exit $fail;
' "$tmp/r.json" "$tmp/expect.txt"
