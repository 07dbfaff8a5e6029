# conformance/Clauses.pm — the one reader of the clause catalogue (conformance/clauses.tsv),
# core Perl only.  Every Perl script that reads the catalogue uses it: conformance/clauses.pl
# (the coverage check), reports/matrix.pl (the conformance matrix); a shell script can ask it
# through perl -M (conformance/matrix_current.sh).  conformance/README.md "The catalogue format"
# states the format this checks.
#
#   use FindBin;
#   use lib "$FindBin::Bin";                  # or "$FindBin::Bin/../conformance"
#   use Clauses;
#   my $cat = Clauses::read_catalogue('conformance/clauses.tsv');
#   for my $c (@{ $cat->{clauses} }) { ... $c->{id}, $c->{edges} ... }
#   print STDERR "$_->{message}\n" for @{ $cat->{errors} };
#
#   perl -Iconformance -MClauses -e 'print "$_\n" for Clauses::ids(shift)' conformance/clauses.tsv
#
# read_catalogue(FILE) never dies.  It returns a hash:
#   clauses  the valid rows in file order, each a hash: id, semantics, evidence, source, edge
#            (the column as written), edges (its numbers, a list), native, statement, line
#   by_id    the same rows by id
#   errors   every problem in file order, each { kind, message }: kind is `open`, `encoding`,
#            `header` (the first line that is not a comment must be the header), `format` (a row's
#            fields) or `duplicate` (an id seen before; the first row counts); message is
#            `FILE:LINE: text` (`FILE: text` for `open` and a missing header)
# A row with the wrong number of fields or a malformed id is left out; a row with another bad
# field is kept (so its id still resolves) and reported.
package Clauses;
use strict;
use warnings;

our @COLUMNS = qw(id semantics evidence source edge native statement);
our $HEADER = join "\t", @COLUMNS;
our $ID_RE = qr/[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+/;    # unanchored, to embed: /^$Clauses::ID_RE$/
our @SEMANTICS = qw(documented observed both simulator-defined);
our @EVIDENCE = qw(documented header inferred simulator);
our $EDGES = 58;    # HCP-SPEC's numbered edge cases: 1 .. $EDGES

my %SEMANTICS = map { $_ => 1 } @SEMANTICS;
my %EVIDENCE = map { $_ => 1 } @EVIDENCE;

# The lines of FILE, each decoded from UTF-8 (a line that is not valid UTF-8 is kept as bytes and
# reported), without their line ends ("\n" or "\r\n").  Problems are pushed on @$errors as
# { kind, message }.  The TAP readers use it too.
sub read_lines {
    my ($file, $errors) = @_;
    open my $fh, '<:raw', $file or do {
        push @$errors, { kind => 'open', message => "$file: cannot open: $!" };
        return ();
    };
    local $/;
    my $bytes = <$fh>;
    close $fh;
    $bytes = '' unless defined $bytes;
    my @lines = split /\n/, $bytes, -1;
    pop @lines if @lines && $lines[-1] eq '';
    my @text;
    for my $i (0 .. $#lines) {
        my $s = $lines[$i];
        $s =~ s/\r$//;
        my $copy = $s;
        if (!utf8::decode($copy)) {
            push @$errors, { kind => 'encoding', message => "$file:" . ($i + 1) . ": not valid UTF-8" };
            $copy = $s;
        }
        push @text, $copy;
    }
    return @text;
}

sub read_catalogue {
    my ($file) = @_;
    my $cat = { file => $file, clauses => [], by_id => {}, errors => [] };
    my $errors = $cat->{errors};
    my $problem = sub { my ($kind, $n, $text) = @_; push @$errors, { kind => $kind, message => "$file:$n: $text" } };
    my @lines = read_lines($file, $errors);
    return $cat if grep { $_->{kind} eq 'open' } @$errors;
    my $seen_header = 0;
    for my $i (0 .. $#lines) {
        my ($line, $n) = ($lines[$i], $i + 1);
        next if $line =~ /^#/;
        if (!$seen_header) {
            $seen_header = 1;
            next if $line eq $HEADER;
            $problem->('header', $n, "expected the header line \"" . join('<TAB>', @COLUMNS) . '"');
            next;
        }
        next if $line =~ /^\s*$/;
        my @f = split /\t/, $line, -1;
        if (@f != @COLUMNS) {
            $problem->('format', $n, 'expected ' . scalar(@COLUMNS) . ' tab-separated fields, found ' . scalar @f);
            next;
        }
        my ($id, $sem, $ev, $src, $edge, $native, $stmt) = @f;
        if ($id !~ /^$ID_RE$/) { $problem->('format', $n, "bad clause id \"$id\""); next }
        $problem->('format', $n, "$id: semantics \"$sem\" is not " . join('|', @SEMANTICS)) unless $SEMANTICS{$sem};
        $problem->('format', $n, "$id: evidence \"$ev\" is not " . join('|', @EVIDENCE)) unless $EVIDENCE{$ev};
        my @edges;
        if ($edge ne '-') {
            @edges = split /,/, $edge, -1;
            if (grep { !/^[1-9][0-9]*$/ || $_ > $EDGES } @edges) {
                $problem->('format', $n, "$id: edge \"$edge\" is not - or comma-separated numbers 1-$EDGES");
                @edges = grep { /^[1-9][0-9]*$/ && $_ <= $EDGES } @edges;
            }
        }
        $problem->('format', $n, "$id: empty statement") unless $stmt =~ /\S/;
        $problem->('format', $n, "$id: empty source") unless $src =~ /\S/;
        $problem->('format', $n, "$id: empty native column") unless $native =~ /\S/;
        if (my $first = $cat->{by_id}{$id}) {
            $problem->('duplicate', $n, "duplicate clause id $id (first on line $first->{line})");
            next;
        }
        my $c = { id => $id, semantics => $sem, evidence => $ev, source => $src, edge => $edge, edges => \@edges,
                  native => $native, statement => $stmt, line => $n };
        push @{ $cat->{clauses} }, $c;
        $cat->{by_id}{$id} = $c;
    }
    push @$errors, { kind => 'header', message => "$file: no header line" } unless $seen_header;
    return $cat;
}

# ---- homes: where the tests of a clause go --------------------------------------------------
# conformance/README.md "Where a test goes" holds two tables, read here (the README is the one
# place the rule is written):
#   | clauses | home | ...        each row: backquoted ids in the first cell (an entry ending in
#                                  `-` is a prefix: HCP-READ- is every HCP-READ-... id; any other
#                                  entry is one id), backquoted test programs in the second
#   | program | kind | ... |      programs that may test clauses of any family: backquoted paths,
#                                  then the kind: `witness` (a second check: its clauses must also
#                                  be tested in their home) or `own` (a program that is the home of
#                                  what it alone tests: C unit tests, the native program)
# Paths are the programs' source paths and may hold `*` (any characters but '/').  A C test is
# named by its source (sim/tests/cpu_test.c); program_path() maps the built program to it.
# read_homes(README) returns { homes => [ { entries => [...], programs => [...], line } ],
# exempt => [ { pattern, kind, line } ], errors => [ { kind, message } ] }; the home table is the
# one under the heading "### Where a test goes" whose header starts "| clauses | home |", the
# exempt one the table after it whose header starts "| program |".
sub read_homes {
    my ($file) = @_;
    my $h = { homes => [], exempt => [], errors => [] };
    my @lines = read_lines($file, $h->{errors});
    my ($in, $table) = (0, '');
    for my $i (0 .. $#lines) {
        my ($line, $n) = ($lines[$i], $i + 1);
        if ($line =~ /^#+ /) { $in = $line =~ /^### Where a test goes\b/; $table = ''; next }
        next unless $in;
        if ($line !~ /^\|/) { $table = '' if $table eq 'homes-body' || $table eq 'exempt-body'; next }
        if ($line =~ /^\|\s*clauses\s*\|\s*home\s*\|/) { $table = 'homes'; next }
        if ($line =~ /^\|\s*program\s*\|/) { $table = 'exempt'; next }
        if ($line =~ /^\|[-| ]+\|$/) { $table .= '-body' if $table eq 'homes' || $table eq 'exempt'; next }
        my @cell = map { s/^\s+|\s+$//gr } split /\|/, substr($line, 1), -1;
        pop @cell if @cell && $cell[-1] eq '';
        my @ticks = map { [ $_ =~ /`([^`]+)`/g ] } @cell;
        if ($table eq 'homes-body') {
            my @entries = @{ $ticks[0] || [] };
            my @programs = grep { m{/} } @{ $ticks[1] || [] };
            if (!@entries || !@programs) {
                push @{ $h->{errors} }, { kind => 'format', message => "$file:$n: a home row needs backquoted ids and programs" };
                next;
            }
            push @{ $h->{homes} }, { entries => \@entries, programs => \@programs, line => $n };
        } elsif ($table eq 'exempt-body') {
            my ($kind) = ($cell[1] // '') =~ /^(\w+)/;
            if (!@{ $ticks[0] || [] } || !$kind || $kind !~ /^(?:witness|own)$/) {
                push @{ $h->{errors} }, { kind => 'format', message => "$file:$n: an exempt row needs backquoted programs and a kind (witness or own)" };
                next;
            }
            push @{ $h->{exempt} }, { pattern => $_, kind => $kind, line => $n } for @{ $ticks[0] };
        }
    }
    push @{ $h->{errors} }, { kind => 'format', message => "$file: no home table under \"### Where a test goes\"" }
        unless @{ $h->{homes} };
    return $h;
}

# The source path of a test program as make passes it: BUILD/dir/x_test.t -> dir/x_test.c.
sub program_path {
    my ($test) = @_;
    return $test =~ m{^[^/]+/(.+)\.t$} ? "$1.c" : $test;
}

sub _glob_match {
    my ($pattern, $path) = @_;
    my $re = join '[^/]*', map { quotemeta } split /\*/, $pattern, -1;
    return $path =~ /^$re$/;
}

# The home row of clause ID (the longest matching entry), or undef when no row names it.
sub home_of {
    my ($h, $id) = @_;
    my ($best, $len) = (undef, -1);
    for my $row (@{ $h->{homes} }) {
        for my $e (@{ $row->{entries} }) {
            my $match = $e =~ /-$/ ? index($id, $e) == 0 : $id eq $e;
            ($best, $len) = ($row, length $e) if $match && length($e) > $len;
        }
    }
    return $best;
}

# Whether test program TEST (as make passes it) is one of ROW's home programs.
sub in_home {
    my ($row, $test) = @_;
    my $path = program_path($test);
    return scalar grep { _glob_match($_, $path) } @{ $row->{programs} };
}

# The exempt kind of TEST (witness, own) or undef.
sub exempt_kind {
    my ($h, $test) = @_;
    my $path = program_path($test);
    for my $x (@{ $h->{exempt} }) { return $x->{kind} if _glob_match($x->{pattern}, $path) }
    return undef;
}

# The ids of FILE's valid rows, in file order (for shell scripts: perl -MClauses -e ...).
sub ids {
    my ($file) = @_;
    return map { $_->{id} } @{ read_catalogue($file)->{clauses} };
}

1;
