#!/usr/bin/perl
# conformance/clauses.pl — the clause coverage check (conformance/README.md "Clauses").
#
#   perl conformance/clauses.pl [--report] [--catalogue FILE] --tap-dir DIR TEST...
#
# Reads the clause catalogue (conformance/clauses.tsv) and the TAP stream each
# TEST program wrote during the run (scenarios/tests/runtest saves them in DIR
# as the test's path with '/' turned into '_' plus ".tap").  Without --report
# it is a TAP test program: it fails when the catalogue is malformed, when an
# HCP-SPEC edge case (1-58) is in no clause's edge column, when a stream is
# missing, when a TAP line of any test program names no clause, when a line
# names a clause the catalogue lacks, and when a catalogue clause is named by
# no line of the streams (a skipped or todo test counts: it names the clause
# and ran; the report shows which).  With --report it prints the coverage per
# clause (passing, failing, skipped, todo), the totals, the clauses without
# tests and the lines without a clause, and exits 0.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Clauses;

my ($report, $tapdir, $catalogue) = (0, undef, 'conformance/clauses.tsv');
my @tests;
while (@ARGV) {
    my $a = shift @ARGV;
    if ($a eq '--report') { $report = 1 }
    elsif ($a eq '--tap-dir') { $tapdir = shift @ARGV }
    elsif ($a eq '--catalogue') { $catalogue = shift @ARGV }
    elsif ($a =~ /^-/) { die "clauses.pl: unknown option $a\n" }
    else { push @tests, $a }
}
die "usage: clauses.pl [--report] [--catalogue FILE] --tap-dir DIR TEST...\n" unless defined $tapdir && @tests;

my $EDGES = $Clauses::EDGES;
my @SELF = qw(SIM-CLAUSE-CATALOGUE SIM-CLAUSE-COVERAGE); # the clauses this program checks
# The native conformance program's stream (conformance/native/README.md): the catalogue's native
# column must agree with it when that test is among the programs given.
my $NATIVE = 'conformance/native/hcpsim_observed.sh';

# ---- the catalogue (Clauses.pm reads and checks it) --------------------------------------
my $cat = Clauses::read_catalogue($catalogue);
my %clause = %{ $cat->{by_id} };
my @order = map { $_->{id} } @{ $cat->{clauses} };
my $header_ok = !grep { $_->{kind} =~ /^(?:open|header)$/ } @{ $cat->{errors} };
my @format_errors = map { $_->{message} } grep { $_->{kind} ne 'duplicate' && $_->{kind} ne 'header' } @{ $cat->{errors} };
my @dup_errors = map { $_->{message} } grep { $_->{kind} eq 'duplicate' } @{ $cat->{errors} };
my %edge_seen;
for my $c (@{ $cat->{clauses} }) { $edge_seen{$_}{ $c->{id} } = 1 for @{ $c->{edges} } }
my @edges_missing = grep { !$edge_seen{$_} } 1 .. $EDGES;

# ---- the TAP streams -------------------------------------------------------------------
my (@missing_streams, @untagged, @unknown, %named, %native_named);
for my $test (@tests) {
    (my $name = $test) =~ tr{/}{_};
    my $path = "$tapdir/$name.tap";
    my $fh;
    unless (open $fh, '<:encoding(UTF-8)', $path) { push @missing_streams, "$test: no TAP stream ($path)"; next }
    while (my $line = <$fh>) {
        $line =~ s/\r?\n\z//;
        next unless $line =~ /^(not )?ok\b\s*(\d*)\s*(.*)$/;
        my ($not, $num, $rest) = ($1, $2, $3);
        my ($desc, $dir) = ($rest, '');
        if ($rest =~ /(?<!\\)#/) { ($desc, $dir) = (substr($rest, 0, $-[0]), substr($rest, $+[0])) }
        $desc =~ s/^\s*-\s*//;
        $desc =~ s/\s+$//;
        $dir =~ s/^\s+//;
        my $status = $dir =~ /^skip/i ? 'skip' : $dir =~ /^todo/i ? 'todo' : $not ? 'fail' : 'pass';
        if ($desc =~ /\[([A-Z0-9][A-Z0-9,-]*)\]$/) {
            for my $id (split /,/, $1) {
                if ($clause{$id}) {
                    $named{$id}{$status}++;
                    $named{$id}{files}{$test} = 1;
                    $native_named{$id}{$status}++ if $test eq $NATIVE;
                }
                else { push @unknown, "$test: test $num names unknown clause $id: $desc" }
            }
        } else {
            push @untagged, "$test: test $num has no clause: " . ($desc eq '' ? '(no description)' : $desc);
        }
    }
    close $fh;
}

my %self = map { $_ => 1 } @SELF;
my @native_errors;
if (grep { $_ eq $NATIVE } @tests) {
    for my $id (@order) {
        my $yes = $clause{$id}{native} eq 'yes';
        my $n = $native_named{$id} || {};
        my $checked = ($n->{pass} || 0) + ($n->{fail} || 0) + ($n->{todo} || 0);
        push @native_errors, "$id: native column 'yes' but no line of $NATIVE names it" if $yes && !%$n;
        push @native_errors, "$id: native column gives a reason, but $NATIVE checks it (set it to yes)"
            if !$yes && $checked;
    }
}
my @uncovered = grep { !$named{$_} && !$self{$_} } @order;

# ---- output ----------------------------------------------------------------------------
if ($report) {
    my $ok = !@format_errors && !@dup_errors && $header_ok;
    printf "clause coverage: %d clauses in %s%s\n", scalar @order, $catalogue, $ok ? '' : ' (malformed: run make test)';
    print "\n";
    printf "%-40s %5s %5s %5s %5s  %s\n", 'clause', 'pass', 'fail', 'skip', 'todo', 'files';
    my %tot = (pass => 0, fail => 0, skip => 0, todo => 0);
    my %by_status;
    for my $id (@order) {
        if ($self{$id}) { printf "%-40s %5s %5s %5s %5s  %s\n", $id, '-', '-', '-', '-', '(this check)'; next }
        my $c = $named{$id} || {};
        $tot{$_} += $c->{$_} || 0 for keys %tot;
        my @files = sort keys %{ $c->{files} || {} };
        printf "%-40s %5d %5d %5d %5d  %s\n", $id, map({ $c->{$_} || 0 } qw(pass fail skip todo)),
            @files ? join(' ', map { s{^.*/}{}r } @files) : 'NO TEST';
        my $kind = !@files ? 'none' : ($c->{pass} || $c->{fail}) ? 'run' : 'skip/todo only';
        $by_status{$kind}++;
    }
    print "\n";
    printf "totals: %d test lines name a clause: %d pass, %d fail, %d skip, %d todo\n",
        $tot{pass} + $tot{fail} + $tot{skip} + $tot{todo}, @tot{qw(pass fail skip todo)};
    printf "clauses: %d with tests that ran, %d with only skipped or todo tests, %d without tests\n",
        $by_status{run} || 0, $by_status{'skip/todo only'} || 0, $by_status{none} || 0;
    print "\nclauses without tests:\n", map { "  $_\n" } @uncovered if @uncovered;
    print "\nTAP lines without a clause (tag them: conformance/README.md):\n", map { "  $_\n" } @untagged
        if @untagged;
    print "\nlines naming a clause the catalogue lacks:\n", map { "  $_\n" } @unknown if @unknown;
    print "\nmissing TAP streams:\n", map { "  $_\n" } @missing_streams if @missing_streams;
    print "\nedge cases in no clause's edge column: @edges_missing\n" if @edges_missing;
    print "\ncatalogue errors:\n", map { "  $_\n" } @format_errors, @dup_errors if @format_errors || @dup_errors;
    exit 0;
}

my ($n, $failed) = (0, 0);
print "TAP version 13\n1..9\n";
sub check {
    my ($pass, $name, $clause, @diag) = @_;
    $n++;
    $failed++ unless $pass;
    print $pass ? 'ok' : 'not ok', " $n - $name [$clause]\n";
    unless ($pass) {
        my @shown = @diag > 30 ? (@diag[0 .. 29], '... and ' . (@diag - 30) . ' more (make clauses lists them)') : @diag;
        print STDERR "# $_\n" for @shown;
    }
}
check($header_ok, "the catalogue starts with the agreed header line", 'SIM-CLAUSE-CATALOGUE',
      "the first line must be: " . join('<TAB>', @Clauses::COLUMNS));
check(!@format_errors, "every catalogue row has an id, semantics, evidence, source, edge, native and statement",
      'SIM-CLAUSE-CATALOGUE', @format_errors);
check(!@dup_errors, "catalogue ids are unique", 'SIM-CLAUSE-CATALOGUE', @dup_errors);
check(!@edges_missing, "every HCP-SPEC edge case 1-$EDGES is in some clause's edge column", 'SIM-CLAUSE-CATALOGUE',
      map { "edge case $_ is in no clause's edge column" } @edges_missing);
check(!@missing_streams, "every test program's TAP stream was saved (" . scalar(@tests) . " programs)",
      'SIM-CLAUSE-COVERAGE', @missing_streams);
check(!@untagged, "every TAP line of every test program names a clause", 'SIM-CLAUSE-COVERAGE', @untagged);
check(!@unknown, "every clause a test names is in the catalogue", 'SIM-CLAUSE-COVERAGE', @unknown);
check(!@uncovered, "every catalogue clause is named by a test that ran (" . scalar(@order) . " clauses)",
      'SIM-CLAUSE-COVERAGE', map { "clause $_ has no test" } @uncovered);
check(!@native_errors, "the catalogue's native column agrees with the native program's stream",
      'SIM-CLAUSE-COVERAGE', @native_errors);
exit($failed ? 1 : 0);
