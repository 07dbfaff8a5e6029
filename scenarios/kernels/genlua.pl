#!/usr/bin/perl
# Generates the Lua module hcpsim.kernels from the assembled guest kernels.
#
#   perl scenarios/kernels/genlua.pl OBJDIR SRC.S... > kernels.lua
#
# For each scenarios/kernels/NAME.S the build has made OBJDIR/NAME.o (as) and
# OBJDIR/NAME.bin (objcopy -O binary -j .text).  This script checks that the
# object is a self-contained kernel (no relocations, nothing outside .text,
# a global symbol NAME at offset 0, last byte a ret), then emits
# `k.NAME = m:code("...")` with the .S text and the objdump listing as
# comments.  OBJDUMP names the objdump to use (default objdump).
use strict;
use warnings;

my $objdump = $ENV{OBJDUMP} || 'objdump';
my ($objdir, @srcs) = @ARGV;
die "usage: genlua.pl OBJDIR SRC.S...\n" unless defined $objdir && @srcs;

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

my $out = <<'EOF';
-- hcpsim.kernels: the built-in guest kernels, x86-64, Windows x64 calling
-- convention (arguments in rcx, rdx, r8, r9; result in rax).
--
-- GENERATED at build time by scenarios/kernels/genlua.pl from
-- scenarios/kernels/*.S (assembled with as, bytes taken with objcopy); do not
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
    die "genlua.pl: $src: the last instruction must be ret (c3)\n" unless substr($bytes, -1) eq "\xc3";

    $out .= "\n  -- $name: scenarios/kernels/$name.S\n";
    for my $line (split /\n/, slurp($src, '<')) {
        $line = expand_tabs($line);
        $out .= $line eq '' ? "  --\n" : "  --   $line\n";
    }
    $out .= "  -- objdump -d -M intel (offset: bytes, instruction):\n";
    for my $line (split /\n/, run($objdump, '-d', '-M', 'intel', $obj)) {
        next unless $line =~ /^\s+[0-9a-f]+:\t/;
        $out .= "  --   " . expand_tabs($line) . "\n";
    }
    $out .= sprintf("  k.%s = m:code(\"%s\")\n", $name, join('', map { sprintf('\\x%02x', ord) } split //, $bytes));
}
$out .= "  return k\nend\n";
print $out;
