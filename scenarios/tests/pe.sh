#!/bin/sh
# Windows programs (api/README.md "Windows programs"): `hcpsim run PROGRAM.exe` on the images
# the Makefile builds from scenarios/examples/pe/ with mingw-w64.  Expected output is derived
# from the C source by the C and msvcrt rules (text-mode streams write "\r\n"); malformed images
# are made by patching bytes of a valid one, each expecting its exact message and status 2.
CLAUSE=PE-RUN
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
echo "1..22"
cr=$(printf '\r')
for bits in 64 32; do
  CLAUSE=PE-RUN
  cp "$pe/hello$bits.exe" "$pe/missing$bits.exe" "$pe/loop$bits.exe" .
  {
    printf 'hello from hcpsim, 2 args\r\n'
    printf '[   42|42   |00042|ff|FF|0xff|10|z|str|abc|%%]\r\n'
    printf '[-1234567890123|4000000000|+5| 5]\r\n'
    printf '[3.14|1.234568e+04|0.0001]\r\n'
    printf 'argv[1]=a\r\nargv[2]=b c\r\n'
  } > want.txt
  $HCPSIM run "hello$bits.exe" a "b c" > out1.txt 2> err1.txt; st=$?
  cmp -s out1.txt want.txt; result $? "hello$bits.exe: stdout byte for byte as its printf calls give (CRLF line ends)"
  [ "$st" = 7 ]; result $? "hello$bits.exe: hcpsim exits with main's return value 7 (got $st)"
  printf 'to stderr\r\n' > wanterr.txt
  cmp -s err1.txt wanterr.txt; result $? "hello$bits.exe: its stderr is hcpsim's stderr"
  $HCPSIM run "hello$bits.exe" a "b c" > out2.txt 2> err2.txt
  cmp -s out1.txt out2.txt && cmp -s err1.txt err2.txt
  result $? "hello$bits.exe: a second run writes the same bytes"
  CLAUSE=PE-MISSING-IMPORT
  $HCPSIM run "missing$bits.exe" > out.txt 2> err.txt; st=$?
  [ "$st" = 125 ] && [ "$(cat err.txt)" = "hcpsim: missing$bits.exe called KERNEL32.dll!Beep, which hcpsim does not implement" ] &&
    [ "$(tr -d "$cr" < out.txt)" = "before" ]
  result $? "missing$bits.exe: the call of Beep stops the run (status 125), after the output before it" "status $st: $(cat err.txt)"
  CLAUSE=PE-RUN
  $HCPSIM run "loop$bits.exe" 1000 > out.txt 2> err.txt; st=$?
  [ "$st" = 0 ]; result $? "loop$bits.exe 1000: spin(1000) returns 0, the exit code (got $st)"
done

# Malformed images: one class of defect each, from hello64.exe.
CLAUSE=PE-MALFORMED
lfanew=$(perl -e 'open F, "<", $ARGV[0]; binmode F; seek F, 0x3C, 0; read F, $b, 4; print unpack("V", $b)' hello64.exe)
patch() { # out, offset, pack format, value
  perl -e 'open F, "<", $ARGV[0]; binmode F; local $/; $d = <F>; substr($d, $ARGV[1], length(pack($ARGV[2], 0))) = pack($ARGV[2], $ARGV[3]); open O, ">", $ARGV[4]; binmode O; print O $d' hello64.exe "$2" "$3" "$4" "$1"
}
bad() { # name, file, message
  $HCPSIM run "$2" > out.txt 2> err.txt; st=$?
  [ "$st" = 2 ] && [ "$(cat err.txt)" = "hcpsim: $2: $3" ]
  result $? "$1" "status $st: $(cat err.txt)"
}
head -c 40 hello64.exe > trunc.exe
bad "a file shorter than the DOS header" trunc.exe "truncated DOS header: the file has 40 bytes, the header needs 64"
patch nosig.exe "$lfanew" a2 PX
bad "no PE signature at e_lfanew" nosig.exe "no 'PE\\0\\0' signature at e_lfanew 0x$(printf %X "$lfanew")"
patch lfanew.exe 60 V 4294967040
bad "e_lfanew past the end of the file" lfanew.exe "truncated PE header: e_lfanew 0xFFFFFF00 leaves no 24-byte file header in $(wc -c < hello64.exe | tr -d ' ') bytes"
patch arm.exe $((lfanew + 4)) v 43620
bad "a machine type no platform runs PE images for (ARM64)" arm.exe "machine type 0xAA64 (ARM64): hcpsim runs x86-64 (0x8664, win10-x64) and i386 (0x014C, win7-x86) images only"
patch dll.exe $((lfanew + 22)) v 8226
bad "a DLL given as a program" dll.exe "a DLL, not a program (IMAGE_FILE_DLL is set in Characteristics 0x2022)"
patch entry.exe $((lfanew + 24 + 16)) V 0
bad "an entry point outside every executable section" entry.exe "AddressOfEntryPoint 0x0 is not inside an executable section"
patch imp.exe $((lfanew + 24 + 112 + 8)) V 2147483632
bad "an import directory outside the image" imp.exe "import directory (RVA 0x7FFFFFF0, size 0x$(perl -e 'open F, "<", $ARGV[0]; binmode F; seek F, $ARGV[1], 0; read F, $b, 4; printf "%X", unpack("V", $b)' hello64.exe $((lfanew + 24 + 112 + 12)))) lies outside the image (SizeOfImage 0x$(perl -e 'open F, "<", $ARGV[0]; binmode F; seek F, $ARGV[1], 0; read F, $b, 4; printf "%X", unpack("V", $b)' hello64.exe $((lfanew + 24 + 56))))"
optsize=$(perl -e 'open F, "<", $ARGV[0]; binmode F; seek F, $ARGV[1], 0; read F, $b, 2; print unpack("v", $b)' hello64.exe $((lfanew + 20)))
sec=$((lfanew + 24 + optsize))
patch raw.exe $((sec + 20)) V 2147483647
bad "a section's raw data past the end of the file" raw.exe "section 1 '.text': raw data 0x7FFFFFFF+0x$(perl -e 'open F, "<", $ARGV[0]; binmode F; seek F, $ARGV[1], 0; read F, $b, 4; printf "%X", unpack("V", $b)' hello64.exe $((sec + 16))) lies past the end of the file (0x$(printf %X "$(wc -c < hello64.exe)") bytes)"
head -c $((sec + 50)) hello64.exe > sectrunc.exe
bad "a truncated section table" sectrunc.exe "truncated section table: $(perl -e 'open F, "<", $ARGV[0]; binmode F; seek F, $ARGV[1], 0; read F, $b, 2; print unpack("v", $b)' hello64.exe $((lfanew + 6))) sections of 40 bytes at 0x$(printf %X $sec), the file ends at 0x$(printf %X $((sec + 50)))"
CLAUSE=PE-NOT-PE
printf '\177ELF\000\000\000' > elf.bin
$HCPSIM run elf.bin > out.txt 2> err.txt; st=$?
[ "$st" = 2 ] && [ "$(cat err.txt)" = "elf.bin: neither a Lua scenario (text) nor a Windows program (a PE image starts with 'MZ')" ]
result $? "a file that is neither Lua nor PE gets a clear error, status 2" "status $st: $(cat err.txt)"
exit $((fail > 0))
