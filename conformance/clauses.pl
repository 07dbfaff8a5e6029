#!/usr/bin/perl
# conformance/clauses.pl — the clause coverage check (conformance/README.md "Clauses").
#
#   perl conformance/clauses.pl [--report | --homes | --edges] [--catalogue FILE] [--readme FILE]
#                               --tap-dir DIR TEST...
#
# Reads the clause catalogue (conformance/clauses.tsv, through Clauses.pm), the
# home table (conformance/README.md "Where a test goes", or --readme FILE) and
# the TAP stream each TEST program wrote during the run (scenarios/tests/runtest
# saves them in DIR as the test's path with '/' turned into '_' plus ".tap").
# Without an option it is a TAP test program: it fails when the catalogue is
# malformed, when an HCP-SPEC edge case (1-58) is in no clause's edge column,
# when a stream is missing, when a TAP line of any test program names no
# clause, when a line names a clause the catalogue lacks, when a catalogue
# clause is named by no line of the streams (a skipped or todo test counts: it
# names the clause and ran; the report shows which), when the native column
# disagrees with the native program's stream, and when a test lies outside the
# home of the first clause it names or a clause is not tested in its home.
# Each option prints a report and exits 0: --report the coverage per clause
# (passing, failing, skipped, todo), the totals, the clauses without tests and
# the lines without a clause (make clauses); --homes each home row with the
# programs naming its clauses, then the problems; --edges per edge case the
# clauses whose edge column names it and the programs testing them.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use Clauses;

my ($report, $homes_report, $edges_report, $tapdir, $catalogue) = (0, 0, 0, undef, 'conformance/clauses.tsv');
my $readme = "$FindBin::Bin/README.md"; # the home table (section "Where a test goes")
my @tests;
while (@ARGV) {
    my $a = shift @ARGV;
    if ($a eq '--report') { $report = 1 }
    elsif ($a eq '--homes') { $homes_report = 1 }
    elsif ($a eq '--edges') { $edges_report = 1 }
    elsif ($a eq '--readme') { $readme = shift @ARGV }
    elsif ($a eq '--tap-dir') { $tapdir = shift @ARGV }
    elsif ($a eq '--catalogue') { $catalogue = shift @ARGV }
    elsif ($a =~ /^-/) { die "clauses.pl: unknown option $a\n" }
    else { push @tests, $a }
}
die "usage: clauses.pl [--report | --homes | --edges] [--catalogue FILE] [--readme FILE] --tap-dir DIR TEST...\n" unless defined $tapdir && @tests;

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
my (@missing_streams, @untagged, @unknown, %named, %native_named, @tagged);
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
            push @tagged, { test => $test, num => $num, desc => $desc, ids => [ grep { $clause{$_} } split /,/, $1 ] };
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

# ---- homes (README.md "Where a test goes") ---------------------------------------------
# A test line of a program that is not exempt lives in the home of the first clause it names
# (the others are checked on the way); every clause that a Lua or shell program names (a
# witness included) is named by a line of its home.  Ids no home row matches are not checked.
my $homes = Clauses::read_homes($readme);
my (@misplaced, %outside, %in_home, %lua_named, %files_of);
for my $l (@tagged) {
    my $kind = Clauses::exempt_kind($homes, $l->{test});
    my $c_or_native = ($kind // '') eq 'own';
    for my $id (@{ $l->{ids} }) {
        my $row = Clauses::home_of($homes, $id) or next;
        $files_of{$id}{ Clauses::program_path($l->{test}) }++;
        $in_home{$id} = 1 if Clauses::in_home($row, $l->{test});
        $lua_named{$id}{ Clauses::program_path($l->{test}) } = 1 unless $c_or_native;
    }
    next if $kind || !@{ $l->{ids} };
    my $first = $l->{ids}[0];
    my $row = Clauses::home_of($homes, $first) or next;
    next if Clauses::in_home($row, $l->{test});
    $outside{ $l->{test} }{$first}++;
    push @misplaced, "$l->{test}: test $l->{num} names $first first, whose home is @{ $row->{programs} }: $l->{desc}";
}
my @homeless = map { "$_: named by " . join(' ', sort keys %{ $lua_named{$_} }) . ", but by no test of its home "
                     . join(' ', @{ Clauses::home_of($homes, $_)->{programs} }) }
               grep { $lua_named{$_} && !$in_home{$_} } @order;
my @home_errors = (map({ $_->{message} } @{ $homes->{errors} }), @misplaced, @homeless);

if ($edges_report) {
    # Per HCP-SPEC edge case: the clauses whose edge column names it, each with the programs
    # whose tests name it (the audit of which test checks which edge case).
    for my $e (1 .. $EDGES) {
        my @ids = grep { my $c = $clause{$_}; grep { $_ == $e } @{ $c->{edges} } } @order;
        printf "edge %2d:%s\n", $e, @ids ? '' : ' NO CLAUSE';
        for my $id (@ids) {
            my @files = sort keys %{ ($named{$id} || {})->{files} || {} };
            printf "  %-36s %s\n", $id, @files ? join(' ', map { s{^.*/}{}r } @files) : 'NO TEST';
        }
    }
    exit 0;
}

if ($homes_report) {
    # Per home row: its clauses, and per clause the programs naming it (count of lines).
    printf "homes: %d rows in %s\n", scalar @{ $homes->{homes} }, $readme;
    for my $row (@{ $homes->{homes} }) {
        my @ids = grep { my $r = Clauses::home_of($homes, $_); $r && $r == $row } @order;
        printf "\n%s -> %s (%d clauses)\n", join(' ', @{ $row->{entries} }), join(' ', @{ $row->{programs} }), scalar @ids;
        for my $id (@ids) {
            my $f = $files_of{$id} || {};
            printf "  %-36s %s\n", $id, join(' ', map { ($_ =~ s{^.*/}{}r) . "($f->{$_})" } sort keys %$f) || 'NO TEST';
        }
    }
    print "\nproblems:\n", map { "  $_\n" } @home_errors if @home_errors;
    exit 0;
}

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
print "TAP version 13\n1..10\n";
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
check(!@home_errors, "every test is in the home of its clause, and every clause is tested in its home "
      . "(README.md \"Where a test goes\")", 'SIM-CLAUSE-COVERAGE', @home_errors);
exit($failed ? 1 : 0);
