#!/usr/bin/perl
# scenarios/tests/pe_malformed.pl IMAGE OUTDIR: writes one malformed copy of IMAGE (an x86-64
# mingw-w64 program) per class of defect api/pe.c names, as OUTDIR/NN.exe, and prints one line per
# copy: "NN<TAB>machine<TAB>what it breaks<TAB>the fragment of pe.c's message it must get".
# machine: "x64" a default machine, "taken" an x64 machine whose preferred base an m:code block
# holds (so the loader relocates).  Offsets come from the image's own headers.
use strict;
use warnings;
my ($in, $out) = @ARGV;
open my $f, '<:raw', $in or die "$in: $!";
my $img = do { local $/; <$f> };
close $f;
my $n = length $img;
sub u16 { unpack 'v', substr($img, $_[0], 2) }
sub u32 { unpack 'V', substr($img, $_[0], 4) }
sub u64 { unpack 'Q<', substr($img, $_[0], 8) }
my $lf = u32(0x3C);
my $opt = $lf + 24;
my $optsize = u16($lf + 20);
my $nsec = u16($lf + 6);
my $st = $opt + $optsize;
my $base = u64($opt + 24);
my $size = u32($opt + 56);
my @sec = map { my $s = $st + 40 * $_; { rva => u32($s + 12), vsize => u32($s + 8), raw => u32($s + 20), rawsize => u32($s + 16) } } 0 .. $nsec - 1;
sub dir { (u32($opt + 112 + 8 * $_[0]), u32($opt + 116 + 8 * $_[0])) }
sub off_of { # RVA -> file offset
    my ($r) = @_;
    for (@sec) { return $_->{raw} + $r - $_->{rva} if $r >= $_->{rva} && $r < $_->{rva} + $_->{rawsize} }
    die sprintf("RVA 0x%X is in no section's raw data\n", $r);
}
my ($imp) = dir(1);
my ($rel) = dir(5);
my ($tls) = dir(9);
my $tls_off = off_of($tls);
my $k = 0;
sub emit {
    my ($machine, $what, $frag, $data) = @_;
    my $name = sprintf '%02d', ++$k;
    open my $o, '>:raw', "$out/$name.exe" or die "$out/$name.exe: $!";
    print $o $data;
    close $o;
    print join("\t", $name, $machine, $what, $frag), "\n";
}
sub put { # copy of the image with (offset, pack format, value) patches
    my $d = $img;
    while (my ($at, $fmt, $v) = splice @_, 0, 3) { substr($d, $at, length pack($fmt, 0)) = pack($fmt, $v) }
    return $d;
}
emit('x64', 'a file shorter than the DOS header', 'truncated DOS header', substr($img, 0, 40));
emit('x64', 'no MZ signature', "not a PE image: no 'MZ' signature", put(0, 'a2', 'XY'));
emit('x64', 'e_lfanew past the end of the file', 'truncated PE header: e_lfanew', put(0x3C, 'V', 0xFFFFFF00));
emit('x64', 'no PE signature', "signature at e_lfanew 0x", put($lf, 'a2', 'PX'));
emit('x64', 'a machine type no platform runs', 'machine type 0xAA64 (ARM64): hcpsim runs', put($lf + 4, 'v', 0xAA64));
emit('x64', 'not an executable image', 'not an executable image (IMAGE_FILE_EXECUTABLE_IMAGE is clear', put($lf + 22, 'v', u16($lf + 22) & ~2));
emit('x64', 'a DLL', 'a DLL, not a program', put($lf + 22, 'v', u16($lf + 22) | 0x2000));
emit('x64', 'SizeOfOptionalHeader too small', 'SizeOfOptionalHeader 100 is too small', put($lf + 20, 'v', 100));
emit('x64', 'the file ends inside the optional header', 'truncated optional header', substr($img, 0, $opt + 100));
emit('x64', 'PE32 magic in an x86-64 image', 'optional header magic 0x10B does not match machine', put($opt, 'v', 0x10B));
emit('x64', 'SectionAlignment not 4 KiB', 'SectionAlignment 0x200: hcpsim maps 4 KiB pages', put($opt + 32, 'V', 0x200));
emit('x64', 'FileAlignment not a power of two', 'FileAlignment 0x300 is not a power of two', put($opt + 36, 'V', 0x300));
emit('x64', 'ImageBase not 64 KiB-aligned', 'ImageBase 0x12345 is not a 64 KiB-aligned', put($opt + 24, 'Q<', 0x12345));
emit('x64', 'SizeOfImage 0', 'SizeOfImage 0x0 is 0 or larger', put($opt + 56, 'V', 0));
emit('x64', 'SizeOfHeaders 0', 'SizeOfHeaders 0x0 is 0 or larger than SizeOfImage', put($opt + 60, 'V', 0));
emit('x64', 'NumberOfRvaAndSizes 17', 'NumberOfRvaAndSizes 17 is larger than 16', put($opt + 108, 'V', 17));
emit('x64', 'data directories past SizeOfOptionalHeader', 'the data directories run past SizeOfOptionalHeader 144', put($lf + 20, 'v', 144));
emit('x64', 'a directory outside the image', 'import directory (RVA 0x7FFFFFF0', put($opt + 120, 'V', 0x7FFFFFF0));
emit('x64', 'no sections', '0 sections: hcpsim loads 1 to', put($lf + 6, 'v', 0));
emit('x64', 'the file ends inside the section table', 'truncated section table', substr($img, 0, $st + 50));
emit('x64', 'the file ends inside the headers', 'lies past the end of the file', substr($img, 0, $st + 40 * $nsec + 8));
emit('x64', 'SizeOfHeaders short of the section table', 'SizeOfHeaders 0x100 does not cover the section table', put($opt + 60, 'V', 0x100));
emit('x64', 'a section not page-aligned', "section 1 '.text' at RVA 0x1800 is not page-aligned", put($st + 12, 'V', 0x1800));
emit('x64', 'a section outside the image', "section $nsec '", put($st + 40 * ($nsec - 1) + 8, 'V', 0x7FFFFFFF));
emit('x64', "a section's raw data past the end of the file", "section 1 '.text': raw data 0x7FFFFFFF", put($st + 20, 'V', 0x7FFFFFFF));
emit('x64', 'the entry point outside executable sections', 'AddressOfEntryPoint 0x0 is not inside an executable section', put($opt + 16, 'V', 0));
my $r0 = off_of($rel);
emit('taken', 'a base relocation type hcpsim lacks', 'base relocation type 5 at RVA', put($r0 + 8, 'v', (5 << 12) | (u16($r0 + 8) & 0xFFF)));
emit('taken', 'a base relocation block of size 6', 'has size 0x6 (it must be 8 or more', put($r0 + 4, 'V', 6));
emit('taken', 'a base relocation block of odd size', 'has size 0x9 (it must be 8 or more, even', put($r0 + 4, 'V', 9));
emit('taken', 'a base relocation outside the image', 'base relocation at RVA 0x7FFFF', put($r0, 'V', 0x7FFFF000));
emit('taken', 'preferred base taken, relocations stripped', sprintf('its preferred base 0x%X is taken and it has no base relocations', $base), put($lf + 22, 'v', u16($lf + 22) | 1));
my $i0 = off_of($imp);
emit('x64', 'no null import descriptor', 'has no terminating null descriptor', put($opt + 124, 'V', 20));
emit('x64', "an import descriptor's DLL name outside the image", 'import descriptor 0: its DLL name (RVA 0x7FFFFFF0)', put($i0 + 12, 'V', 0x7FFFFFF0));
my $ilt0 = off_of(u32($i0));
emit('x64', "an import's name outside the image", 'import 0 of ', put($ilt0, 'Q<', 0x7FFFFFF0));
{ # the first DLL's lookup and address tables at the image's last 8 bytes, which the last
  # section (grown to the end of the image, its raw data padded with 0xFF) makes nonzero
    my $s = $st + 40 * ($nsec - 1);
    my ($rva, $raw) = (u32($s + 12), u32($s + 20));
    my $need = $size - $rva;
    my $d = put($i0, 'V', $size - 8, $i0 + 16, 'V', $size - 8, $s + 8, 'V', $need, $s + 16, 'V', $need);
    $d .= "\xFF" x ($raw + $need - length $d) if length $d < $raw + $need;
    substr($d, $raw + $need - 8, 8) = "\xFF" x 8;
    emit('x64', 'imports without a null entry', 'run past the end of the image (no null entry)', $d);
}
emit('x64', 'a TLS directory of 4 bytes', 'TLS directory size 0x4 is too small', put($opt + 116 + 72, 'V', 4));
emit('x64', 'a TLS field outside the image', 'TLS directory field 0 (0x10) points outside the image', put($tls_off, 'Q<', 0x10));
emit('x64', 'TLS data ending before it starts', 'EndAddressOfRawData is below StartAddressOfRawData', put($tls_off + 8, 'Q<', u64($tls_off) - 1));
emit('x64', 'TLS AddressOfIndex at the image end', 'TLS AddressOfIndex lies outside the image', put($tls_off + 16, 'Q<', $base + $size - 2));
emit('x64', 'TLS callbacks without a null entry', 'TLS callbacks run past the end of the image', put($tls_off + 24, 'Q<', $base + $size - 4));
my $cb_off = off_of(u64($tls_off + 24) - $base);
emit('x64', 'a TLS callback outside the image', 'TLS callback 0 (0x10) points outside the image', put($cb_off, 'Q<', 0x10));
emit('x64', 'TLS data over 64 KiB', 'hcpsim supports 64 KiB', put($tls_off + 32, 'V', 0x20000));
