#!/usr/bin/perl
# conformance/exports.pl — every row of the export spec has a test (api/README.md "The export
# spec", conformance/README.md "Export coverage").
#
#   perl conformance/exports.pl [--spec api/exports.spec] [--tap-dir DIR]
#
# A TAP test program run after the suite (make test; DIR defaults to $HCPSIM_TAP_DIR): it reads
# every TAP stream saved in DIR (scenarios/tests/runtest saves each test program's there) and the
# spec, and prints one
# line per importable row of the spec, ok when a passing line of some stream names the row as
# "DLL!Name:" (the form every test of a Windows function uses: "imports64.exe:
# KERNEL32.dll!CreateThread: ..."), then one line that fails when a passing line names a
# "DLL!Name:" the spec does not have (a test of a function that is gone or misspelt).  A stub row
# (known, not implemented) needs a test too: one that shows a call of it stops the run naming it.
# Then one line per documented outcome of api/outcomes.tsv (beside the spec): ok when a passing
# line names the row and, after it and before the next "DLL!Name:" it names, the outcome by its
# name, as "error N" (the last error), as "(N)", or (N >= 100) as the number standing alone.  An
# errno outcome (a name E..., the C runtime's errno values: EINVAL, ERANGE, ENOENT, ...) is named
# by its name or as "errno N", never by its bare number (errno 22 is not the last error 22).  An
# outcome with no single number ("-" in the number column: a required size, a pseudo handle) is
# named by its name only.
use strict;
use warnings;

my ($spec, $tapdir) = ('api/exports.spec', $ENV{HCPSIM_TAP_DIR});
while (@ARGV) {
    my $a = shift @ARGV;
    if ($a eq '--spec') { $spec = shift @ARGV }
    elsif ($a eq '--tap-dir') { $tapdir = shift @ARGV }
    else { die "usage: exports.pl [--spec FILE] [--tap-dir DIR]\n" }
}
die "exports.pl: no TAP directory (--tap-dir DIR or HCPSIM_TAP_DIR)\n" unless defined $tapdir;

# The rows: "DLL!Name", in spec order; a DLL marked internal is not importable and not listed.
my (@rows, %row, $dll, $internal);
open my $s, '<', $spec or die "exports.pl: $spec: $!\n";
while (<$s>) {
    s/\s+#.*$//;
    next if /^\s*(#|$)/;
    if (/^dll\s+(\S+)(.*)$/) { ($dll, $internal) = ($1, $2 =~ /\binternal\b/ ? 1 : 0); next; }
    next if $internal || !defined $dll;
    my ($name) = /^\s*\d+\s+(?:stub\s+)?(?:stdcall|cdecl|data|guest)\s+(\w+)/ or next;
    push @rows, "$dll!$name";
    $row{lc "$dll!$name"} = "$dll!$name";
}
close $s;

# The documented outcomes (api/outcomes.tsv): row, outcome name, number, source.
(my $outfile = $spec) =~ s{[^/]*$}{outcomes.tsv};
my @outcomes;
if (open my $o, '<', $outfile) {
    while (<$o>) {
        chomp;
        next if /^\s*(#|$)/;
        my ($r, $name, $num, $src) = split /\t/;
        die "exports.pl: $outfile:$.: want ROW, OUTCOME, NUMBER (an integer or -), SOURCE (tab-separated)\n"
            unless defined $src && $num =~ /^(-?\d+|-)$/ && $src =~ /\S/;
        die "exports.pl: $outfile:$.: $r is not a row of the spec\n" unless $row{lc $r};
        push @outcomes, [$row{lc $r}, $name, $num];
    }
    close $o;
}
my @passing; # the passing lines that name a row: [row (lower case), the line's text after it]

my (%named, %unknown);
opendir my $dh, $tapdir or die "exports.pl: $tapdir: $!\n";
for my $f (sort grep { /\.tap$/ && $_ ne 'conformance_exports.pl.tap' } readdir $dh) {
    my $t = $f;
    open my $in, '<', "$tapdir/$f" or next;
    while (<$in>) {
        next unless /^ok \d+/ && !/#\s*(SKIP|TODO)/i;
        while (/\b([A-Za-z0-9_.-]+\.dll)!(\w+):/g) {
            my $k = lc "$1!$2";
            # the text after the row, up to the next row the line names
            if ($row{$k}) { $named{$k} = 1; push @passing, [$k, (split /\b[A-Za-z0-9_.-]+\.dll!\w+:/, substr($_, pos($_)), 2)[0] // ''] } else { $unknown{"$1!$2"} = $t }
        }
    }
    close $in;
}

print "TAP version 13\n";
my $n = 0;
for my $r (@rows) {
    $n++;
    printf "%s %d - export %s has a passing test naming it [PE-IMPORT-TABLE]\n", $named{lc $r} ? 'ok' : 'not ok', $n, $r;
}
$n++;
my @stale = sort keys %unknown;
printf "%s %d - every DLL!Name a passing test names is a row of the export spec (%d rows) [PE-IMPORT-TABLE]\n",
    @stale ? 'not ok' : 'ok', $n, scalar @rows;
print "# not in the spec: $_ (named by $unknown{$_})\n" for @stale;
# each documented outcome: a passing line names the row and then the outcome, by its name, as
# "error N" or as "(N)", or a number of three digits or more standing alone (WAIT_TIMEOUT's 258);
# an errno outcome by its name or as "errno N"; an outcome without a number by its name
my $missed = 0;
for my $oc (@outcomes) {
    my ($r, $name, $num) = @$oc;
    my $errno = $name =~ /^E[A-Z0-9]+$/;
    my $hit = grep {
        $_->[0] eq lc $r && ($_->[1] =~ /\b\Q$name\E\b/
            || ($errno && $_->[1] =~ /\berrno \Q$num\E\b/)
            || (!$errno && $num ne '-' && ($_->[1] =~ /\berror \Q$num\E\b/ || $_->[1] =~ /\(\Q$num\E\)/
                || ($num >= 100 && $_->[1] =~ /(?<![\w.])\Q$num\E(?![\w.])/))))
    } @passing;
    $n++;
    $missed++ unless $hit;
    printf "%s %d - %s: its documented outcome %s (%s) has a passing test [PE-IMPORT-OUTCOMES]\n",
        $hit ? 'ok' : 'not ok', $n, $r, $name, $num;
}
# coverage: per DLL, the rows with at least one documented outcome (a diagnostic, not a test)
my (%rows_of, %with);
$rows_of{(split /!/, $_)[0]}++ for @rows;
$with{$_->[0]} = 1 for @outcomes;
my %covered;
$covered{(split /!/, $_)[0]}++ for keys %with;
my @order;
for my $r (@rows) { my $d = (split /!/, $r)[0]; push @order, $d unless grep { $_ eq $d } @order }
for my $d (@order) {
    my $lines = grep { (split /!/, $_->[0])[0] eq $d } @outcomes;
    printf "# outcomes: %s %d of %d rows have a documented outcome (%d outcome lines)\n", $d, $covered{$d} // 0,
        $rows_of{$d}, $lines;
}
print "1..$n\n";
exit(grep({ !$named{lc $_} } @rows) || @stale || $missed ? 1 : 0);
