#!/usr/bin/perl
# scenarios/tests/windiff/compare.pl — compares a program's output under hcpsim with Wine's, case
# by case (scenarios/tests/windiff/README.md).
#
#   perl compare.pl --wine W.txt --sim S.txt --known K.txt [--todo T.txt --seed S] [--label L] [--tap]
#
# Lines are "K FAMILY: results" (CR LF from msvcrt's text mode stripped); the header lines (seed,
# argc, argv) are compared too, as case 0.  A case listed in K.txt (gen.pl --known: Wine is known
# to differ from Windows there) is reported and not compared.  With --tap: one TAP line per case,
# without its number (the caller numbers them): ok, not ok with both lines as diagnostics, or
# ok # SKIP for a known difference; a case listed in T.txt as "SEED CASE reason" is a TODO
# (hcpsim's known bug: its fix makes the TODO pass, which fails the run until the entry goes).
# Without --tap: a line per mismatch and a summary, exit 1 when any case differs.
use strict;
use warnings;

my %o = (label => '', seed => 0);
while (@ARGV) {
    my $a = shift @ARGV;
    if ($a =~ /^--(wine|sim|known|todo|seed|label)$/) { $o{$1} = shift @ARGV }
    elsif ($a eq '--tap') { $o{tap} = 1 }
    else { die "usage: compare.pl --wine W --sim S --known K [--todo T --seed S] [--label L] [--tap]\n" }
}
sub cases {
    my ($f) = @_;
    my %c;
    open my $in, '<', $f or die "compare.pl: $f: $!\n";
    while (my $l = <$in>) {
        $l =~ s/\r?\n$//;
        if ($l =~ /^(\d+) /) { $c{$1} = $l } else { $c{0} .= (defined $c{0} ? "\n" : '') . $l }
    }
    return \%c;
}
my ($w, $s) = (cases($o{wine}), cases($o{sim}));
my (%known, %todo);
if ($o{known} && open my $k, '<', $o{known}) { while (<$k>) { $known{$1} = $2 if /^(\d+) (.*)$/ } }
if ($o{todo} && open my $t, '<', $o{todo}) { while (<$t>) { $todo{$2} = $3 if /^(\d+) (\d+) (.*)$/ && $1 == $o{seed} } }
my @ids = sort { $a <=> $b } keys %{ { map { $_ => 1 } keys %$w, keys %$s } };
my ($n, $bad) = (0, 0);
for my $id (@ids) {
    my ($wl, $sl) = ($w->{$id} // '(missing)', $s->{$id} // '(missing)');
    my $name = $id ? "case $id" : 'header (seed, argc, argv)';
    $n++;
    if ($known{$id}) {
        print "ok - $o{label}$name [PE-WINDIFF] # SKIP Wine differs from Windows: $known{$id}\n" if $o{tap};
        next;
    }
    my $same = $wl eq $sl;
    $bad++ if !$same && !$todo{$id};
    if ($o{tap}) {
        my $t = $todo{$id} ? " # TODO $todo{$id}" : '';
        print(($same ? 'ok' : 'not ok'), " - $o{label}$name: hcpsim writes what Wine writes [PE-WINDIFF]$t\n");
        print "# wine:   $wl\n# hcpsim: $sl\n" unless $same;
    } elsif (!$same) {
        print "$o{label}$name differs\n  wine:   $wl\n  hcpsim: $sl\n";
    }
}
print "# $o{label}" . scalar(@ids) . " cases, " . scalar(keys %known) . " known Wine differences, $bad differ\n" unless $o{tap};
exit($bad ? 1 : 0) unless $o{tap};
