#!/bin/sh
# Every class of malformed image has a test (api/README.md "Windows programs"): pe_malformed.pl
# makes one defective copy of loop64.exe per class (offsets from the image's own headers), a
# scenario loads each with m:process (after an m:code block that takes the preferred base where
# the class needs a relocation) and each load must fail with the message of its class.  Four more
# classes come from the machine or the call: an i386 image on an x64 machine, on an ARM64
# machine, a command line too long, a second process.  The last test is table-driven: every
# message format of the loader (api/pe_image.c, api/pe_process.c: their fail(...) calls) must be one
# some test above got, or be listed
# below as a failure of the host or the machine's limits rather than of the image.
CLAUSE=PE-MALFORMED
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
# formats no image can reach here: host memory, guest memory and address space, and counts that
# need images far larger than the classes above (each a fragment of the format)
exempt="out of host memory|no guest memory for|mapping RVA|writing the process block|imports hcpsim does not implement|more than 65536 entries|more than %u TLS callbacks|no free guest address range"
mkdir cases
cp "$pe/loop64.exe" "$pe/loop32.exe" cases/
perl "$top/scenarios/tests/pe_malformed.pl" cases/loop64.exe cases > cases.txt || exit 1
# the export directory's classes, from crash64.exe (the example with exports: add, poke, waitex)
cp "$pe/crash64.exe" cases/
perl -e '
  my ($in, $out) = @ARGV;
  open my $f, "<:raw", $in or die; my $img = do { local $/; <$f> };
  sub u16 { unpack "v", substr($img, $_[0], 2) } sub u32 { unpack "V", substr($img, $_[0], 4) }
  my $pe = u32(0x3C); my $opt = $pe + 24; my $nsec = u16($pe + 6); my $st = $opt + u16($pe + 20);
  sub off { my $r = shift; for my $i (0 .. $nsec - 1) { my $s = $st + 40 * $i; my ($va, $raw) = (u32($s + 12), u32($s + 20));
      return $raw + $r - $va if $r >= $va && $r < $va + u32($s + 16) } die "rva $r" }
  my ($erva, $esize) = (u32($opt + 112), u32($opt + 116)); my $e = off($erva);
  my $size = u32($opt + 56); my $names = off(u32($e + 32)); my $ords = off(u32($e + 36)); my $funs = off(u32($e + 28));
  my $first = substr($img, off(u32($names)), 3); my $o0 = u16($ords);
  sub emit { my ($id, $what, $frag, @p) = @_; my $d = $img;
    while (my ($at, $fmt, $v) = splice @p, 0, 3) { substr($d, $at, length pack($fmt, 0)) = pack($fmt, $v) }
    open my $o, ">:raw", "$out/$id.exe" or die; print $o $d; close $o; print join("\t", $id, "x64", $what, $frag), "\n" }
  emit("e1", "an export directory smaller than its 40-byte table", "export directory size 0x8 is too small (40 bytes)", $opt + 116, "V", 8);
  emit("e2", "an export directory with 70000 names", "export directory: more than 65536 exports", $e + 24, "V", 70000);
  emit("e3", "export tables outside the image", "export directory: its tables lie outside the image", $e + 28, "V", 0x7FFFFFF0);
  emit("e4", "an export name outside the image", "export 0: its name or ordinal lies outside the image", $names, "V", 0x7FFFFFF0);
  emit("e5", "an exported function outside the image", sprintf("export \x27%s\x27 (RVA 0x%X) lies outside the image", $first, $size + 0x1000), $funs + 4 * $o0, "V", $size + 0x1000);
' cases/crash64.exe cases >> cases.txt || exit 1
# DLL images (api/pe_dll.c): dlluse.exe next to a hcpdll.dll that is a program, and next to one whose
# forwarder has no '.'
mkdir cases/d1 cases/d2
cp "$pe/dll64/dlluse.exe" cases/d1/ && cp "$pe/dll64/dlluse.exe" cases/d2/
cp "$pe/loop64.exe" cases/d1/hcpdll.dll
perl -0777 -pe 's/hcpdll\.hcpdll_add\0/hcpdllXhcpdll_add\0/' "$pe/dll64/hcpdll.dll" > cases/d2/hcpdll.dll
{
  echo 'local hcp = require "hcpsim"'
  echo 'local function try(name, m, spec) local ok, e = pcall(m.process, m, spec); print(name .. "\t" .. (ok and "loaded" or tostring(e))) end'
  while IFS="$(printf '\t')" read -r id machine what frag; do
    if [ "$machine" = taken ]; then
      echo "do local m = hcp.machine {}; m:code \"\\xC3\"; try(\"$id\", m, { path = \"cases/$id.exe\", echo = false }) end"
    else
      echo "try(\"$id\", hcp.machine {}, { path = \"cases/$id.exe\", echo = false })"
    fi
  done < cases.txt
  echo 'try("x86-on-x64", hcp.machine {}, { path = "cases/loop32.exe", echo = false })'
  echo 'try("x86-on-arm64", hcp.machine { platform = "win11-arm64" }, { path = "cases/loop32.exe", echo = false })'
  echo 'try("cmdline", hcp.machine {}, { path = "cases/loop64.exe", args = { string.rep("x", 5000) }, echo = false })'
  echo 'do local m = hcp.machine {}; m:process { path = "cases/loop64.exe", echo = false }; try("second", m, { path = "cases/loop64.exe", echo = false }) end'
  echo 'try("dll-program", hcp.machine {}, { path = "cases/d1/dlluse.exe", echo = false })'
  echo 'try("dll-forwarder", hcp.machine {}, { path = "cases/d2/dlluse.exe", echo = false })'
} > load.lua
$HCPSIM run load.lua > got.txt 2> err.txt
ncases=$(wc -l < cases.txt | tr -d ' ')
echo "TAP version 13"
echo "1..$((ncases + 7))"
tab=$(printf '\t')
while IFS="$tab" read -r id machine what frag; do
  msg=$(grep -a "^$id$tab" got.txt | cut -f2-)
  case "$msg" in
    "$id.exe: "*"$frag"*) result 0 "$what: m:process fails with '$frag...'" ;;
    *) result 1 "$what: m:process fails with '$frag...'" "got: $msg $(cat err.txt)" ;;
  esac
done < cases.txt
CLAUSE=PE-MACHINE
check() { # id, expected fragment, name
  msg=$(grep -a "^$1$tab" got.txt | cut -f2-)
  case "$msg" in *"$2"*) result 0 "$3" ;; *) result 1 "$3" "got: $msg $(cat err.txt)" ;; esac
}
check x86-on-x64 "loop32.exe: a i386 image cannot run on this machine (its guest is x64; platform win7-x86 runs it)" "an i386 image on an x64 machine names the platform that runs it"
check x86-on-arm64 "loop32.exe: this machine's guest is arm64: hcpsim loads images on x64 and x86 machines only" "an i386 image on an ARM64 machine: hcpsim loads images on x64 and x86 machines only"
check cmdline "loop64.exe: the command line is longer than 4094 bytes" "a command line longer than 4094 bytes is refused"
check second "loop64.exe: this machine already has a process (one per machine)" "a second m:process on one machine is refused"
CLAUSE=PE-DLL
check dll-program "dlluse.exe: The application was unable to start correctly (0xc000007b): hcpdll.dll (in cases/d1): a program, not a DLL (IMAGE_FILE_DLL is clear in Characteristics 0x0026)" "a DLL that is a program: 0xc000007b, naming the defect"
check dll-forwarder "dlluse.exe: hcpdll.dll: export ordinal 1: its forwarder (RVA 0x" "a DLL whose forwarder is not 'DLL.Name': the loader names the export"
CLAUSE=PE-MALFORMED
perl -e '
  my ($got, $exempt, @src) = @ARGV;
  my $c = ""; for my $s (@src) { open my $f, "<", $s or die; local $/; $c .= <$f> }
  open my $g, "<", $got or die; my @msgs = map { chomp; (split /\t/, $_, 2)[1] } <$g>;
  my (@missing, $nf);
  while ($c =~ /\bfail\((?:err, cap|msg, sizeof msg|why, sizeof why),\s*((?:"(?:[^"\\]|\\.)*"\s*)+)/g) {
    my $lit = $1; my $fmt = join "", $lit =~ /"((?:[^"\\]|\\.)*)"/g;
    $fmt =~ s/\\\\/\\/g; $nf++;
    next if $fmt =~ /$exempt/;
    my $re = join "", map { /^%%$/ ? "%" : /^%/ ? (/s$/ ? ".*" : /[dui]$/ ? "-?[0-9]+" : "[0-9A-Fa-f]+") : quotemeta } split /(%%|%[-0-9.]*(?:ll|z)?[duixXs])/, $fmt;
    push @missing, $fmt unless grep { defined && /$re/ } @msgs;
  }
  print "$nf formats\n"; print "missing: $_\n" for @missing; exit(@missing ? 1 : 0);
' got.txt "$exempt" "$top/api/pe_image.c" "$top/api/pe_process.c" > cover.txt
st=$?
result $st "every message format of the loader (api/pe_image.c, api/pe_process.c) ($(head -n 1 cover.txt)) is one a test above got, or a host or machine limit" "$(tail -n +2 cover.txt | tr '\n' ' ')"
exit $((fail > 0))
