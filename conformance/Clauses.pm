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

# The ids of FILE's valid rows, in file order (for shell scripts: perl -MClauses -e ...).
sub ids {
    my ($file) = @_;
    return map { $_->{id} } @{ read_catalogue($file)->{clauses} };
}

1;
