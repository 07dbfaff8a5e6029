#!/usr/bin/perl
# Generates the Lua module hcpsim.kernels from the assembled guest kernels.
#
#   perl scenarios/kernels/genlua.pl [--isa ISA] OBJDIR SRC.S... > kernels.lua
#
# ISA is x64 (default: the module hcpsim.kernels), x86, arm64 or arm (the
# modules hcpsim.kernels_ISA, sources in scenarios/kernels/ISA/).
# For each scenarios/kernels/NAME.S the build has made OBJDIR/NAME.o (as) and
# OBJDIR/NAME.bin (objcopy -O binary -j .text).  This script checks that the
# object is a self-contained kernel (no relocations, nothing outside .text,
# a global symbol NAME at offset 0, last instruction a return), then emits
# `k.NAME = m:code("...")` with the .S text and the objdump listing as
# comments.  OBJDUMP names the objdump to use (default objdump).
use strict;
use warnings;

my $objdump = $ENV{OBJDUMP} || 'objdump';
my $isa = 'x64';
if (@ARGV && $ARGV[0] eq '--isa') {
    shift @ARGV;
    $isa = shift @ARGV // '';
}
# Per ISA: what the module says, how a kernel must end, how objdump lists it.
my %isas = (
    x64 => {
        what => "x86-64, Windows x64 calling\n-- convention (arguments in rcx, rdx, r8, r9; result in rax)",
        ret  => sub { $_[0] =~ /\xc3\z/ },
        retname => 'ret (c3)',
        dis  => ['-M', 'intel'],
        dir  => 'scenarios/kernels',
    },
    x86 => {
        what => "IA-32, stdcall (arguments on\n-- the stack, the callee pops them; result in eax)",
        ret  => sub { $_[0] =~ /\xc3\z/ || $_[0] =~ /\xc2..\z/s },
        retname => 'ret or ret n (c3, c2 iw)',
        dis  => ['-M', 'intel'],
        dir  => 'scenarios/kernels/x86',
    },
    arm64 => {
        what => "AArch64, AAPCS64 (arguments in\n-- x0-x7; result in x0; return address in x30)",
        ret  => sub { $_[0] =~ /\xc0\x03\x5f\xd6\z/ },
        retname => 'ret (d65f03c0)',
        dis  => [],
        dir  => 'scenarios/kernels/arm64',
    },
    arm => {
        what => "32-bit ARM in ARM state, AAPCS\n-- (arguments in r0-r3, then the stack; result in r0; return address in lr)",
        ret  => sub {
            my @b = map { ord } split //, substr($_[0], -4);
            return @b == 4 && (($b[0] == 0x1e && $b[1] == 0xff && $b[2] == 0x2f && $b[3] == 0xe1)
                || ($b[1] & 0x80 && $b[2] == 0xbd && $b[3] == 0xe8));
        },
        retname => 'bx lr or pop {..., pc} (e12fff1e, e8bd8xxx)',
        dis  => [],
        dir  => 'scenarios/kernels/arm',
    },
);
my $I = $isas{$isa} or die "genlua.pl: unknown ISA '$isa' (x64, x86, arm64, arm)\n";
my ($objdir, @srcs) = @ARGV;
die "usage: genlua.pl [--isa ISA] OBJDIR SRC.S...\n" unless defined $objdir && @srcs;
my $module = $isa eq 'x64' ? 'hcpsim.kernels' : "hcpsim.kernels_$isa";

sub slurp {
    my ($file, $mode) = @_;
    open(my $fh, $mode, $file) or die "genlua.pl: $file: $!\n";
    local $/;
    my $s = <$fh>;
    close $fh;
    return $s;
}

sub run {
    my @cmd = @_;
    open(my $fh, '-|', @cmd) or die "genlua.pl: cannot run $cmd[0]: $!\n";
    local $/;
    my $s = <$fh>;
    close $fh or die "genlua.pl: '@cmd' failed\n";
    return $s // '';
}

sub expand_tabs {
    my ($line) = @_;
    1 while $line =~ s/^([^\t]*)\t/$1 . ' ' x (8 - length($1) % 8)/e;
    $line =~ s/\s+$//;
    return $line;
}

my $out = <<"EOF";
-- $module: the built-in guest kernels, $I->{what}.
--
-- GENERATED at build time by scenarios/kernels/genlua.pl from
-- $I->{dir}/*.S (assembled with as, bytes taken with objcopy); do not
-- edit, change the .S sources.  `m:load "kernels"` places each kernel at a
-- fresh address with m:code and returns a table of entry points.  Each
-- kernel's source below carries its exact counts (instructions, branches,
-- conditional branches, loads, stores); the counting rules are in
-- scenarios/kernels/README.md.
return function(m)
  local k = {}
EOF

my %seen;
for my $src (@srcs) {
    (my $name = $src) =~ s{.*/}{};
    $name =~ s{\.S$}{} or die "genlua.pl: $src: not a .S file\n";
    $name =~ /^[a-z_][a-z0-9_]*$/ or die "genlua.pl: $src: kernel name '$name' is not a Lua identifier\n";
    die "genlua.pl: kernel '$name' given twice\n" if $seen{$name}++;
    my $obj = "$objdir/$name.o";
    my $bin = "$objdir/$name.bin";

    my $relocs = run($objdump, '-r', $obj);
    die "genlua.pl: $src: relocations (a kernel must be position-independent and self-contained):\n$relocs"
        if $relocs =~ /^[0-9a-f]+\s+R_/m;

    my $headers = run($objdump, '-h', $obj);
    while ($headers =~ /^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s.*\n\s+([^\n]*)/mg) {
        my ($sec, $size, $flags) = ($1, hex $2, $3);
        die "genlua.pl: $src: section $sec holds $size bytes; a kernel is .text only\n"
            if $sec ne '.text' && $size && $flags =~ /\bALLOC\b/;
    }

    my $syms = run($objdump, '-t', $obj);
    die "genlua.pl: $src: needs a global symbol '$name' at offset 0 of .text\n"
        unless $syms =~ /^0+\s+g\s+\S*\s*\.text\s+[0-9a-f]+\s+\Q$name\E$/m;

    my $bytes = slurp($bin, '<:raw');
    die "genlua.pl: $bin: empty\n" unless length $bytes;
    die "genlua.pl: $src: the last instruction must be $I->{retname}\n" unless $I->{ret}->($bytes);

    $out .= "\n  -- $name: $I->{dir}/$name.S\n";
    for my $line (split /\n/, slurp($src, '<')) {
        $line = expand_tabs($line);
        $out .= $line eq '' ? "  --\n" : "  --   $line\n";
    }
    $out .= "  -- objdump -d" . join('', map {" $_"} @{$I->{dis}}) . " (offset: bytes, instruction):\n";
    for my $line (split /\n/, run($objdump, '-d', @{$I->{dis}}, $obj)) {
        next unless $line =~ /^\s+[0-9a-f]+:\t/;
        $out .= "  --   " . expand_tabs($line) . "\n";
    }
    $out .= sprintf("  k.%s = m:code(\"%s\")\n", $name, join('', map { sprintf('\\x%02x', ord) } split //, $bytes));
}
$out .= "  return k\nend\n";
print $out;
