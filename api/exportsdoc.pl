#!/usr/bin/perl
# api/exportsdoc.pl — api/EXPORTS.md from api/exports.spec: what a Windows program can import from
# hcpsim's simulated system DLLs, DLL by DLL in ordinal order (make exports-doc writes it;
# scenarios/tests/exports_doc.sh checks the committed page is current).
#
#   perl api/exportsdoc.pl api/exports.spec > api/EXPORTS.md
use strict;
use warnings;

my $spec = shift @ARGV or die "usage: exportsdoc.pl SPEC\n";
open my $in, '<', $spec or die "$spec: $!\n";
my ($dll, $internal, %rows, @dlls);
while (my $line = <$in>) {
    chomp $line;
    $line =~ s/\s+#.*$//;
    next if $line =~ /^\s*(#|$)/;
    if ($line =~ /^dll\s+(\S+)(.*)$/) {
        ($dll, $internal) = ($1, $2 =~ /\binternal\b/ ? 1 : 0);
        push @dlls, $dll unless $internal;
        next;
    }
    next if $internal;
    my ($ord, $rest) = $line =~ /^\s*(\d+)\s+(.*)$/ or next;
    my %r = (ord => $ord);
    if ($rest =~ /^(data|guest)\s+(\w+)/) {
        @r{qw(name sig does cost)} = ($2, $1 eq 'data' ? 'a variable' : 'guest code (runs as the program\'s own)', 'yes',
                                      $1 eq 'data' ? '-' : 'user instructions');
    } else {
        my $stub = $rest =~ s/^stub\s+//;
        my ($conv, $name, $params, $ret, $attrs) = $rest =~ /^(\w+)\s+(\w+)\(([^)]*)\)\s+(\w+)\s*(.*)$/ or next;
        my $cost = $attrs =~ /cost=none/ ? 'none' : '1 api_call';
        my $does = $stub ? 'not implemented (a call stops the run)' : $attrs =~ /\bnop\b/ ? 'does nothing, returns 0'
                 : $attrs =~ /\btrue\b/ ? 'does nothing, returns TRUE' : 'yes';
        my @flags = grep { $attrs =~ /\b$_\b/ } qw(blocks noreturn);
        @r{qw(name sig does cost)} = ($name, "$ret $name($params)" . (@flags ? " [@flags]" : '') . ($conv eq 'cdecl' ? ' cdecl' : ''),
                                      $does, $stub ? '-' : $cost);
    }
    push @{ $rows{$dll} }, \%r;
}
print "# What a Windows program can import\n\n";
print "Generated from `api/exports.spec` by `api/exportsdoc.pl` (`make exports-doc`); do not edit. Every function\n",
      "and variable hcpsim's simulated system DLLs export, DLL by DLL in ordinal order (hcpsim's own\n",
      "ordinals). A program that imports anything else still loads: calling it stops the run and names\n",
      "it (`api/README.md` \"Windows programs\"). `hcpsim describe --imports` prints the same table.\n",
      "Signatures: stdcall unless marked `cdecl`; `[blocks]` may wait, `[noreturn]` never returns.\n",
      "Cost: besides the thunk's 3 user instructions, what a call adds as kernel work of the caller\n",
      "(`pmu_model/README.md` gives `api_call`'s cycles).\n\n";
for my $d (@dlls) {
    my @r = sort { $a->{ord} <=> $b->{ord} } @{ $rows{$d} || [] };
    printf "## %s (%d exports)\n\n| ordinal | export | signature | implemented | cost |\n|---:|---|---|---|---|\n", $d, scalar @r;
    for my $r (@r) {
        (my $sig = $r->{sig}) =~ s/\|/\\|/g;
        print "| $r->{ord} | `$r->{name}` | `$sig` | $r->{does} | $r->{cost} |\n";
    }
    print "\n";
}
