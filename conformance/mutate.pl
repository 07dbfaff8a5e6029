#!/usr/bin/perl
# conformance/mutate.pl — the mutation check (`make check-mutation`): does the
# test suite notice when api/ gets a rule of the specification wrong?
#
#   perl conformance/mutate.pl [--list] [--check] [--quick] [--keep] [--no-baseline] [NAME...]
#
# --list prints the mutations; --check only verifies, in this tree, that each
# edit's text occurs exactly once (seconds; no build); --quick runs only the
# Lua conformance files (conformance/*.lua) instead of make test, a first look
# that is not the check.
# Copies the repository's tracked files (and new files not yet committed, not
# ignored ones) as they are in the working tree to a temporary directory,
# builds there and runs `make test` once unmutated (it must pass), then for
# each mutation below, one at a time: applies it (every edit's text must occur
# exactly once in its file, or the mutation "did not apply"), runs `make test`
# (which builds first) and requires it to FAIL; then restores the file.  Prints
# a Markdown table: mutation, what it breaks, the test files that failed
# (killed by), the time it took.  Exits 1 if a mutant survived, did not apply
# or did not build; 2 on bad usage.  NAME... runs only those mutations.
# conformance/README.md "Mutation check" keeps the last run's table.
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Path qw(remove_tree);
use Time::HiRes qw(time);
use Cwd qw(abs_path);
use File::Basename qw(dirname);

# name, what the mutant gets wrong, [file, text, replacement]...
my @MUTANTS = (
    ['hw-packed', 'ReadThreadProfilingData packs HwCounters (k-th set mask bit in slot k) instead of slot = bit index',
     ['api/profiling.c', 'uint8_t *e = pd + PD_OFF(HwCounters) + 16 * i;',
      'uint8_t *e = pd + PD_OFF(HwCounters) + 16 * (uint32_t)__builtin_popcountll(p->mask & ((UINT64_C(1) << i) - 1));']],
    ['bitmap-not-cleared', 'a DISPATCHING read does not clear WaitReasonBitMap (bits accumulate across reads)',
     ['api/profiling.c', 'p->wr_bitmap = 0; /* read and clear: "since the last read" */', '/* mutant: not cleared */']],
    ['version-before-size', 'Read checks Version before Size (Size 0 and Version 2 gives 87, not 1784)',
     ['api/profiling.c',
      "    if (hcp_get16(pd + PD_OFF(Size)) != HCP_PERFORMANCE_DATA_SIZE) return win32(STATUS_INVALID_BUFFER_SIZE);\n"
        . "    if (pd[PD_OFF(Version)] != PERFORMANCE_DATA_VERSION) return win32(STATUS_INVALID_PARAMETER_3);\n",
      "    if (pd[PD_OFF(Version)] != PERFORMANCE_DATA_VERSION) return win32(STATUS_INVALID_PARAMETER_3);\n"
        . "    if (hcp_get16(pd + PD_OFF(Size)) != HCP_PERFORMANCE_DATA_SIZE) return win32(STATUS_INVALID_BUFFER_SIZE);\n"]],
    ['size-at-least', 'Read accepts Size >= 288 instead of exactly 288',
     ['api/profiling.c', 'if (hcp_get16(pd + PD_OFF(Size)) != HCP_PERFORMANCE_DATA_SIZE)',
      'if (hcp_get16(pd + PD_OFF(Size)) < HCP_PERFORMANCE_DATA_SIZE)']],
    ['unconfigured-not-zeroed', 'documented semantics leaves the slot of an unconfigured mask bit untouched instead of {PMCCounter, 0, 0}',
     ['api/profiling.c', "    [HCP_DOCUMENTED] = {.times_always = false,\n                        .unconfigured_zero = true,",
      "    [HCP_DOCUMENTED] = {.times_always = false,\n                        .unconfigured_zero = false,"]],
    ['cswitch-on-switch-out', 'ContextSwitchCount and the wait-reason bit are counted when the thread is switched out, not in',
     ['api/handles.c',
      'static void on_switch_in(void *ud, sim_thread *t, int reason) { hcp_prof_switch_in(ud, t, reason); }',
      "static void on_switch_in(void *ud, sim_thread *t, int reason) { (void)ud; (void)t; (void)reason; }\n"
        . "static void on_switch_out(void *ud, const sim_record *r) {\n"
        . "    if (r->type == SIM_REC_SWITCH && r->old) hcp_prof_switch_in(ud, (sim_thread *)(uintptr_t)r->old, r->old_wait_reason);\n"
        . "}"],
     ['api/handles.c', 'sim_observer o = {on_switch_in, on_thread_exit, NULL, os};',
      'sim_observer o = {on_switch_in, on_thread_exit, on_switch_out, os};']],
    ['keset-count-16', 'KeSetHardwareCounterConfiguration rejects Count 16 (Count >= 16 instead of > 16)',
     ['api/kecfg.c', 'if (Count > MAX_HW_COUNTERS) return STATUS_INVALID_PARAMETER;',
      'if (Count >= MAX_HW_COUNTERS) return STATUS_INVALID_PARAMETER;']],
    ['query-empty-mask', 'QueryThreadProfiling says FALSE for a thread profiling with an empty counter mask',
     ['api/profiling.c', 'uint8_t b = ot && ot->prof.enabled ? 1 : 0;',
      'uint8_t b = ot && ot->prof.enabled && ot->prof.mask ? 1 : 0;']],
    ['exit-time-running', 'GetThreadTimes gives a running thread an exit time (boot time + 0) instead of 0',
     ['api/times.c',
      'v[1] = sim_thread_state_of(t) == SIM_TS_TERMINATED ? c->boot_time + to_100ns(c, sim_thread_exit_time(t)) : 0;',
      'v[1] = c->boot_time + to_100ns(c, sim_thread_exit_time(t));']],
    ['enable-mask-bit16', 'EnableThreadProfiling accepts mask bit 16 (17 counters)',
     ['api/profiling.c', 'if (HardwareCounters & ~UINT64_C(0xFFFF))', 'if (HardwareCounters & ~UINT64_C(0x1FFFF))']],
    ['observed-count-with-data', 'observed semantics sets HwCountersCount to the slots with data, not the configured counters',
     ['api/profiling.c', "                      .unconfigured_zero = false,\n                      .count_configured = true,",
      "                      .unconfigured_zero = false,\n                      .count_configured = false,"]],
    ['disable-any-block', 'DisableThreadProfiling accepts a handle that is not the one Enable returned',
     ['api/profiling.c', 'if (ot->prof.block != PerformanceDataHandle) return win32(STATUS_INVALID_PARAMETER);',
      '/* mutant: no handle check */']],
    ['query-handle-first', 'QueryThreadProfiling checks the handle before probing the output byte (bad both: 6, not 998)',
     ['api/profiling.c',
      "    if (sim_mem_probe(os->m, Enabled, 1, true) != SIM_OK) return win32(STATUS_ACCESS_VIOLATION);\n"
        . "    sim_thread *t;\n"
        . "    uint32_t st = hcp_ref_thread(os, ThreadHandle, THREAD_QUERY_INFORMATION, &t);\n"
        . "    if (st != STATUS_SUCCESS) return win32(st);\n",
      "    sim_thread *t;\n"
        . "    uint32_t st = hcp_ref_thread(os, ThreadHandle, THREAD_QUERY_INFORMATION, &t);\n"
        . "    if (st != STATUS_SUCCESS) return win32(st);\n"
        . "    if (sim_mem_probe(os->m, Enabled, 1, true) != SIM_OK) return win32(STATUS_ACCESS_VIOLATION);\n"]],
    ['read-handle-before-flags', 'Read checks the handle before the flags (bad flags and a dead handle: 6, not 87)',
     ['api/profiling.c',
      "    if (Flags & ~(READ_THREAD_PROFILING_FLAG_DISPATCHING | READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS))\n"
        . "        return win32(STATUS_INVALID_PARAMETER_2);\n",
      "    { sim_thread *t0 = NULL; if (!find_record(os, PerformanceDataHandle, &t0)) return win32(STATUS_INVALID_HANDLE); }\n"
        . "    if (Flags & ~(READ_THREAD_PROFILING_FLAG_DISPATCHING | READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS))\n"
        . "        return win32(STATUS_INVALID_PARAMETER_2);\n"]],
    ['keset-zero-keeps', 'KeSetHardwareCounterConfiguration with Count 0 keeps the configuration instead of clearing it',
     ['api/kecfg.c', '    os->cfg_count = Count;', '    if (Count) os->cfg_count = Count;']],
    ['kequery-small-no-count', 'KeQueryHardwareCounterConfiguration does not write the required *Count when the array is too small',
     ['api/kecfg.c',
      "    if (sim_mem_write(os->m, Count, c, 4) != SIM_OK) return STATUS_ACCESS_VIOLATION;\n"
        . "    if (os->cfg_count > MaximumCount) return STATUS_BUFFER_TOO_SMALL;",
      "    if (os->cfg_count > MaximumCount) return STATUS_BUFFER_TOO_SMALL;\n"
        . "    if (sim_mem_write(os->m, Count, c, 4) != SIM_OK) return STATUS_ACCESS_VIOLATION;"]],
    ['kernel-time-unrounded', 'GetThreadTimes kernel time is not rounded down to whole ticks',
     ['api/times.c', 'v[2] = to_100ns(c, b->kev[PMU_EV_CYCLES] - b->intr_cycles) / c->tick * c->tick;',
      'v[2] = to_100ns(c, b->kev[PMU_EV_CYCLES] - b->intr_cycles);']],
    ['disable-align-8', 'DisableThreadProfiling requires 8-byte alignment instead of ProbeForWrite\'s 4',
     ['api/profiling.c', 'if (PerformanceDataHandle & 3) return win32(STATUS_DATATYPE_MISALIGNMENT);',
      'if (PerformanceDataHandle & 7) return win32(STATUS_DATATYPE_MISALIGNMENT);']],
    ['observed-flags0-keeps-bitmap', 'observed semantics: a Read without DISPATCHING leaves WaitReasonBitMap instead of zeroing it',
     ['api/profiling.c', "    if (rule->times_always) /* ntdll's reader (HCP-SPEC §2.4 step 4) */\n        hcp_put64(pd + PD_OFF(WaitReasonBitMap), 0);\n",
      '']],
    ['wait-bits-below-32', 'wait reasons 32 and above set no bit of WaitReasonBitMap',
     ['api/profiling.c', 'if (reason >= 0 && reason < 64)', 'if (reason >= 0 && reason < 32)']],
    ['cycletime-query-no-entry', 'QueryThreadCycleTime charges no kernel entry (its own call is not in the value)',
     ['api/times.c', "        return 0;\n    }\n    hcp_kernel_entry(os);\n    sim_thread *t;\n    uint32_t st = ref_query(os, ThreadHandle, &t);\n",
      "        return 0;\n    }\n    sim_thread *t;\n    uint32_t st = ref_query(os, ThreadHandle, &t);\n"]],
    ['cycletime-from-start', 'CycleTime counts from the thread\'s start instead of from EnableThreadProfiling',
     ['api/profiling.c', 'pmu_bank_cycle_time(sim_thread_bank(t)) - pmu_bank_cycle_time(&p->start);',
      'pmu_bank_cycle_time(sim_thread_bank(t));']],
);

my ($list, $check, $quick, $keep, $baseline, @only) = (0, 0, 0, 0, 1);
for my $a (@ARGV) {
    if ($a eq '--list') { $list = 1 }
    elsif ($a eq '--check') { $check = 1 }
    elsif ($a eq '--quick') { $quick = 1 }
    elsif ($a eq '--keep') { $keep = 1 }
    elsif ($a eq '--no-baseline') { $baseline = 0 }
    elsif ($a =~ /^-/) { print STDERR "usage: perl conformance/mutate.pl [--list] [--check] [--quick] [--keep] [--no-baseline] [NAME...]\n"; exit 2 }
    else { push @only, $a }
}
my %known = map { $_->[0] => 1 } @MUTANTS;
for (@only) {
    next if $known{$_};
    print STDERR "mutate.pl: no mutation named $_ (--list shows them)\n";
    exit 2;
}
if ($list) {
    printf "%-26s %s\n", $_->[0], $_->[1] for @MUTANTS;
    exit 0;
}
my $top = abs_path(dirname(abs_path($0)) . '/..');
sub slurp { my ($f) = @_; open my $fh, '<:raw', $f or die "mutate.pl: $f: $!\n"; local $/; my $s = <$fh>; $s }
sub spew { my ($f, $s) = @_; open my $fh, '>:raw', $f or die "mutate.pl: $f: $!\n"; print $fh $s; close $fh or die }
sub occurrences { my ($text, $from) = @_; my $c = () = $text =~ /\Q$from\E/g; $c }

if ($check) {
    my $bad = 0;
    for my $m (@MUTANTS) {
        for my $e (@$m[2 .. $#$m]) {
            my $c = occurrences(slurp("$top/$e->[0]"), $e->[1]);
            next if $c == 1;
            print "$m->[0]: $e->[0] has the text $c times (must be once)\n";
            $bad++;
        }
    }
    print scalar(@MUTANTS), " mutations, ", $bad ? "$bad edits do not apply\n" : "every edit applies once\n";
    exit($bad ? 1 : 0);
}
my @run = @only ? grep { my $n = $_->[0]; grep { $_ eq $n } @only } @MUTANTS : @MUTANTS;

my $jobs = $ENV{JOBS} || 2;
my $tmp = tempdir('hcpsim-mutate-XXXXXX', TMPDIR => 1, CLEANUP => 0);
$SIG{INT} = $SIG{TERM} = sub { remove_tree($tmp) unless $keep; exit 130 };
END { remove_tree($tmp) if $tmp && -d $tmp && !$keep }

# The tree: tracked files plus new, not ignored ones, as they are on disk.
{
    chdir $top or die "mutate.pl: $top: $!\n";
    my @files = grep { -f $_ } split /\0/, `git ls-files -z --cached --others --exclude-standard`;
    die "mutate.pl: git ls-files found no files (is this a git checkout?)\n" unless @files;
    open my $tar, '|-', 'tar', '-cf', "$tmp/tree.tar", '--null', '-T', '-' or die "mutate.pl: tar: $!\n";
    print $tar join("\0", @files), "\0";
    close $tar or die "mutate.pl: tar failed\n";
    mkdir "$tmp/tree" or die;
    system('tar', '-xf', "$tmp/tree.tar", '-C', "$tmp/tree") == 0 or die "mutate.pl: tar -x failed\n";
    unlink "$tmp/tree.tar";
}
my $tree = "$tmp/tree";
my $what = $quick ? "prove -j$jobs conformance/*.lua (--quick)" : "make test -j$jobs";
print STDERR "mutate.pl: copied the tree to $tree; ", scalar(@run), " mutations, $what each\n";

# make test in the copy: (exit status, failed test files, log file).
my $n = 0;
sub make_test {
    my ($tag) = @_;
    my $log = "$tmp/" . (++$n) . "-$tag.log";
    my $cmd = $quick
      ? "cd '$tree' && make --no-print-directory -j$jobs all && HCPSIM=build/hcpsim prove -j$jobs --exec 'sh scenarios/tests/runtest' conformance/*.lua"
      : "make -C '$tree' --no-print-directory JOBS=$jobs test";
    my $st = system("($cmd) > '$log' 2>&1");
    my (@failed, $in_summary);
    open my $fh, '<', $log or die;
    while (<$fh>) {
        $in_summary = 1 if /^Test Summary Report/;
        push @failed, $1 if $in_summary && /^(\S+)\s+\(Wstat: /;
    }
    close $fh;
    return ($st, \@failed, $log);
}

my $t0 = time;
if ($baseline) {
    my $t = time;
    my ($st, $failed, $log) = make_test('baseline');
    if ($st != 0) {
        print STDERR "mutate.pl: make test fails without any mutation (", join(', ', @$failed) || 'build', "); see $log\n";
        $keep = 1;
        exit 1;
    }
    printf STDERR "mutate.pl: baseline make test passes (%.0f s)\n", time - $t;
}

my @rows;
my $bad = 0;
for my $m (@run) {
    my ($name, $what, @edits) = @$m;
    my $t = time;
    my (%orig, $problem);
    for my $e (@edits) {
        my ($file, $from, $to) = @$e;
        my $path = "$tree/$file";
        $orig{$file} //= slurp($path);
        my $text = slurp($path);
        my $count = occurrences($text, $from);
        if ($count != 1) { $problem = "did not apply: `$file` has the text $count times"; last }
        $text =~ s/\Q$from\E/$to/;
        spew($path, $text);
    }
    my $killed;
    if (!$problem) {
        my ($st, $failed, $log) = make_test($name);
        if ($st == 0) {
            $problem = 'SURVIVED: make test passed';
        } elsif (!@$failed) {
            $problem = "make test failed before any test (does it build? see $log)";
        } else {
            $killed = join(', ', map { s{^.*/}{}r } @$failed);
        }
    }
    spew("$tree/$_", $orig{$_}) for sort keys %orig;
    my $secs = time - $t;
    $bad++ if $problem;
    push @rows, [$name, $what, $problem // $killed, $secs];
    printf STDERR "mutate.pl: %-26s %s (%.0f s)\n", $name, $problem ? $problem : "killed by $killed", $secs;
}

my $total = time - $t0;
print "| mutation | what it gets wrong | killed by (failed test files) | time |\n|---|---|---|---:|\n";
printf "| `%s` | %s | %s | %.0f s |\n", @$_ for @rows;
printf "\n%d mutations, %d killed, %d not killed or not applied; total %.0f s (%s, %s each%s)\n",
    scalar @rows, @rows - $bad, $bad, $total, $baseline ? 'with the unmutated baseline' : 'no baseline', $what,
    $keep ? "; kept $tmp" : '';
exit($bad ? 1 : 0);
