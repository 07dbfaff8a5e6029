#!/usr/bin/perl
# api/specgen.pl — turns api/exports.spec into C (api/README.md "The export spec").
#
#   perl api/specgen.pl [--check] SPEC OUT.h OUT.c
#
# OUT.h: each implementation's argument structure (named, typed fields) and prototype, the
# variable and guest-code enumerations; OUT.c: the export table (hcp_exports[], in spec order:
# a row's index is its gate service), the parameter lists, one marshalling function per
# implementation and the index by (DLL, name).  A malformed line is `SPEC:LINE: message`, exit 2.
# --check: parse and check only (no output files).
use strict;
use warnings;

my $check = @ARGV && $ARGV[0] eq '--check' ? shift @ARGV : 0;
my ($spec, $out_h, $out_c) = @ARGV;
die "usage: specgen.pl [--check] SPEC OUT.h OUT.c\n" unless defined $spec && ($check || defined $out_c);

# Spec type -> [hcp_type constant, C field type, words on a 32-bit guest]
my %base = (
    HANDLE  => ['HCP_T_HANDLE',  'uint64_t', 1],
    DWORD   => ['HCP_T_DWORD',   'uint32_t', 1],
    MASK    => ['HCP_T_MASK',    'uint32_t', 1],
    TIMEOUT => ['HCP_T_TIMEOUT', 'uint32_t', 1],
    INT     => ['HCP_T_INT',     'int32_t',  1],
    BOOL    => ['HCP_T_BOOL',    'uint32_t', 1],
    PTR     => ['HCP_T_PTR',     'uint64_t', 1],
    LPCSTR  => ['HCP_T_STR',     'uint64_t', 1],
    LPCWSTR => ['HCP_T_WSTR',    'uint64_t', 1],
    SIZE_T  => ['HCP_T_SIZE',    'uint64_t', 1],
    SSIZE_T => ['HCP_T_SSIZE',   'int64_t',  1],
    DWORD64 => ['HCP_T_U64',     'uint64_t', 2],
    MASK64  => ['HCP_T_MASK64',  'uint64_t', 2],
    INT64   => ['HCP_T_I64',     'int64_t',  2],
    DOUBLE  => ['HCP_T_F64',     'double',   2],
    FLOAT   => ['HCP_T_F32',     'float',    1],
    VA_LIST => ['HCP_T_VALIST',  'uint64_t', 1],
    ERRCODE => ['HCP_T_ERRCODE', 'uint32_t', 1],
    NTSTATUS => ['HCP_T_NTSTATUS', 'uint32_t', 1],
    WAITRES => ['HCP_T_WAITRES', 'uint32_t', 1],
    PFLAGS  => ['HCP_T_PFLAGS',  'uint32_t', 1],
    RFLAGS  => ['HCP_T_RFLAGS',  'uint32_t', 1],
);
# Windows spellings of the same types.
my %alias = (
    UINT => 'DWORD', ULONG => 'DWORD', WORD => 'DWORD', BYTE => 'DWORD', UCHAR => 'DWORD', USHORT => 'DWORD',
    LONG => 'INT', CHAR => 'INT', SHORT => 'INT',
    LPVOID => 'PTR', PVOID => 'PTR', LPCVOID => 'PTR', PDWORD => 'PTR', LPDWORD => 'PTR', PHANDLE => 'PTR',
    LPHANDLE => 'PTR', LPFILETIME => 'PTR', PLARGE_INTEGER => 'PTR', LPSTR => 'PTR', LPWSTR => 'PTR',
    PULONG => 'PTR', PLONG => 'PTR', LPLONG => 'PTR', LPBOOL => 'PTR', PBOOL => 'PTR',
    ULONG_PTR => 'SIZE_T', UINT_PTR => 'SIZE_T', DWORD_PTR => 'SIZE_T',
    LONG_PTR => 'SSIZE_T', INT_PTR => 'SSIZE_T',
    ULONGLONG => 'DWORD64', ULONG64 => 'DWORD64', UINT64 => 'DWORD64',
    LONGLONG => 'INT64', LONG64 => 'INT64',
);
sub type_of {
    my ($t) = @_;
    $t = $alias{$t} if exists $alias{$t};
    return exists $base{$t} ? $t : undef;
}

my (@rows, %dll_info, @dll_order, %impl_sig, %impl_first, %seen_ord, %seen_name, @vars, @guests, %var_seen,
    %guest_seen);
my ($dll, $prefix, $internal) = (undef, undef, 0);
open my $in, '<', $spec or die "$spec: $!\n";
my $ln = 0;
sub bad { print STDERR "$spec:$ln: $_[0]\n"; exit 2; }
while (my $line = <$in>) {
    $ln++;
    chomp $line;
    $line =~ s/\s+#.*$//;
    next if $line =~ /^\s*(#|$)/;
    if ($line =~ /^dll\s+(\S+)(.*)$/) {
        ($dll, $prefix, $internal) = ($1, undef, 0);
        for my $a (split ' ', $2) {
            if ($a =~ /^prefix=(\w+)$/) { $prefix = $1 }
            elsif ($a eq 'internal') { $internal = 1 }
            else { bad("unknown dll attribute '$a'") }
        }
        bad("dll $dll: needs prefix=") unless defined $prefix;
        bad("dll $dll is declared twice") if $dll_info{lc $dll};
        $dll_info{lc $dll} = { name => $dll, internal => $internal };
        push @dll_order, $dll;
        next;
    }
    bad("a row before the first 'dll' line") unless defined $dll;
    my ($ord, $rest) = $line =~ /^\s*(\d+)\s+(.*)$/ or bad("expected 'ORDINAL CONVENTION NAME(...)', 'dll NAME' or a comment");
    bad("ordinal $ord: ordinals are 1..65535") if $ord < 1 || $ord > 65535;
    bad("$dll ordinal $ord is taken by $seen_ord{lc $dll}{$ord}") if $seen_ord{lc $dll}{$ord};
    my %r = (dll => $dll, ord => $ord, line => $ln, internal => $internal, attrs => {});
    if ($rest =~ /^(data|guest)\s+(\w+)\s+(var|code)=(\w+)\s*$/) {
        my ($kind, $name, $key, $val) = ($1, $2, $3, $4);
        bad("'$kind' takes " . ($kind eq 'data' ? 'var=' : 'code=')) if ($kind eq 'data') != ($key eq 'var');
        %r = (%r, kind => $kind, name => $name, conv => 'none', params => [], ret => 'VOID', impl => '',
              val => $val);
        if ($kind eq 'data') { push @vars, $val unless $var_seen{$val}++ }
        else { push @guests, $val unless $guest_seen{$val}++ }
    } else {
        my $kind = 'function';
        if ($rest =~ s/^stub\s+//) { $kind = 'stub' }
        my ($conv, $name, $plist, $ret, $tail) = $rest =~ /^(stdcall|cdecl)\s+(\w+)\(([^)]*)\)\s+(\w+)\s*(.*)$/
            or bad("expected 'CONVENTION NAME(TYPE name, ...) RETURN [ATTRIBUTES]'");
        my @params;
        my $i = 0;
        for my $p (split /\s*,\s*/, $plist) {
            $p =~ s/^\s+|\s+$//g;
            next if $p eq '' && $plist =~ /^\s*$/;
            if ($p eq '...') { push @params, { type => 'VARARGS', name => 'va' }; next; }
            bad("$name: '...' must be the last parameter") if @params && $params[-1]{type} eq 'VARARGS';
            my ($t, $n) = $p =~ /^(\w+)\s+(\w+)$/ or bad("$name: parameter '$p' is not 'TYPE name'");
            my $bt = type_of($t) // bad("$name: unknown type '$t'");
            bad("$name: parameter name '$n' is used twice") if grep { $_->{name} eq $n } @params;
            push @params, { type => $bt, name => $n };
        }
        my $rt = $ret eq 'VOID' ? 'VOID' : (type_of($ret) // bad("$name: unknown return type '$ret'"));
        my %attrs;
        for my $a (split ' ', $tail) {
            if ($a =~ /^(blocks|noreturn|nop|true)$/) { $attrs{$1} = 1 }
            elsif ($a =~ /^cost=(none|call|self)$/) { $attrs{cost} = $1 }
            elsif ($a =~ /^impl=(\w+)$/) { $attrs{impl} = $1 }
            elsif ($a =~ /^work=(byte|char|element):(\d+)\/(\d+)$/) {
                bad("$name: work=$1:$2/$3: the rate needs 1..65535 cycles per 1..65535 units")
                    if $2 < 1 || $3 < 1 || $2 > 65535 || $3 > 65535;
                $attrs{work} = [$1, $2, $3];
            }
            else { bad("$name: unknown attribute '$a'") }
        }
        bad("$name: a stub takes no attributes") if $kind eq 'stub' && %attrs;
        bad("$name: 'nop' and 'true' need no impl=") if ($attrs{nop} || $attrs{true}) && $attrs{impl};
        bad("$name: work= needs cost=call (the work is priced with the call's kernel entry)")
            if $attrs{work} && ($attrs{cost} // 'call') ne 'call';
        my $impl = $kind eq 'stub' || $attrs{nop} || $attrs{true} ? '' : ($attrs{impl} // "$prefix$name");
        %r = (%r, kind => $kind, name => $name, conv => $conv, params => \@params, ret => $rt, impl => $impl,
              attrs => \%attrs);
        if ($impl ne '') {
            # rows share an implementation when its argument structure fits them all: the same
            # parameter names with the same C types (LPCSTR and LPCWSTR are both guest pointers)
            my $sig = join(',', map { $_->{type} eq 'VARARGS' ? '...' : "$base{$_->{type}}[1] $_->{name}" } @params);
            if (exists $impl_sig{$impl}) {
                bad("$name: impl=$impl is shared with line $impl_first{$impl}, whose parameters differ")
                    if $impl_sig{$impl} ne $sig;
            } else {
                $impl_sig{$impl} = $sig;
                $impl_first{$impl} = $ln;
                $r{own_impl} = 1;
            }
        }
    }
    bad("$dll!$r{name} is declared twice (line $seen_name{lc $dll}{$r{name}})") if $seen_name{lc $dll}{$r{name}};
    $seen_name{lc $dll}{$r{name}} = $ln;
    $seen_ord{lc $dll}{$ord} = $r{name};
    push @rows, \%r;
}
close $in;

# The call gate's own imports come first, in thunk order (their services are fixed).
my @gate = qw(GetCurrentThread GetCurrentThreadId GetLastError SetLastError EnableThreadProfiling
    DisableThreadProfiling QueryThreadProfiling ReadThreadProfilingData QueryThreadCycleTime GetThreadTimes Sleep
    SwitchToThread SetEvent ResetEvent WaitForSingleObject WaitForMultipleObjects ReleaseMutex ReleaseSemaphore
    OpenThread CloseHandle GetExitCodeThread);
for my $k (0 .. $#gate) {
    my $r = $rows[$k];
    $ln = $r ? $r->{line} : $ln;
    bad("row $k must be KERNEL32.dll!$gate[$k] (the call gate's thunk $k)")
        unless $r && $r->{dll} eq 'KERNEL32.dll' && $r->{name} eq $gate[$k] && $r->{kind} eq 'function';
}
exit 0 if $check;

sub words { my ($p) = @_; return $base{$p->{type}}[2] }

open my $h, '>', $out_h or die "$out_h: $!\n";
open my $c, '>', $out_c or die "$out_c: $!\n";
my $banner = "/* Generated by api/specgen.pl from api/exports.spec: do not edit. */\n";
print $h $banner, "#ifndef HCPSIM_EXPORTS_GEN_H\n#define HCPSIM_EXPORTS_GEN_H\n\n#include \"api/exports_int.h\"\n\n";
printf $h "#define HCP_EXPORT_ROWS %d\n#define HCP_GATE_IMPORTS %d\n\n", scalar @rows, scalar @gate;
print $h "/* Variables (data exports) and guest-code exports: hcp_export.index. */\nenum {\n";
print $h "    HCP_VAR_$_,\n" for @vars;
print $h "    HCP_VAR__COUNT\n};\nenum {\n";
print $h "    HCP_GUEST_$_,\n" for @guests;
print $h "    HCP_GUEST__COUNT\n};\n\n";
for my $r (grep { $_->{own_impl} } @rows) {
    my @p = @{ $r->{params} };
    if (@p) {
        print $h "typedef struct $r->{impl}_args {\n";
        for my $p (@p) {
            if ($p->{type} eq 'VARARGS') { print $h "    hcp_va va; /* ... */\n"; next; }
            printf $h "    %s %s;\n", $base{ $p->{type} }[1], $p->{name};
        }
        print $h "} $r->{impl}_args;\n";
        print $h "uint64_t $r->{impl}(hcp_ctx *c, const $r->{impl}_args *a);\n";
    } else {
        print $h "uint64_t $r->{impl}(hcp_ctx *c);\n";
    }
}
print $h "\n#endif\n";
close $h;

(my $hdr = $out_h) =~ s{.*/}{};
print $c $banner, "#include \"api/exports_gen.h\"\n\n";
# Marshalling functions, one per implementation: the normalised values v[] into the typed struct.
for my $r (grep { $_->{own_impl} } @rows) {
    my @p = @{ $r->{params} };
    print $c "static uint64_t call_$r->{impl}(hcp_ctx *c, const uint64_t *v) {\n";
    if (!@p) {
        print $c "    (void)v;\n    return $r->{impl}(c);\n}\n";
        next;
    }
    print $c "    const $r->{impl}_args a = {";
    my @f;
    for my $i (0 .. $#p) {
        my $t = $p[$i]{type};
        if ($t eq 'VARARGS') { push @f, "{(int)v[$i]}" }
        elsif ($t eq 'FLOAT') { push @f, "hcp_f32_of(v[$i])" }
        elsif ($t eq 'DOUBLE') { push @f, "hcp_f64_of(v[$i])" }
        else { push @f, "($base{$t}[1])v[$i]" }
    }
    print $c join(', ', @f), "};\n    return $r->{impl}(c, &a);\n}\n";
}
print $c "\n";
for my $i (0 .. $#rows) {
    my $r = $rows[$i];
    next unless @{ $r->{params} };
    print $c "static const hcp_param p$i\[] = {";
    print $c join(', ', map { sprintf '{"%s", %s}', $_->{name}, $_->{type} eq 'VARARGS' ? 'HCP_T_VARARGS' : $base{ $_->{type} }[0] }
        @{ $r->{params} });
    print $c "};\n";
}
print $c "\nconst hcp_export hcp_exports[HCP_EXPORT_ROWS] = {\n";
for my $i (0 .. $#rows) {
    my $r = $rows[$i];
    my %a = %{ $r->{attrs} };
    my @flags;
    push @flags, 'HCP_EX_BLOCKS' if $a{blocks};
    push @flags, 'HCP_EX_NORETURN' if $a{noreturn};
    push @flags, 'HCP_EX_NOP' if $a{nop};
    push @flags, 'HCP_EX_TRUE' if $a{true};
    push @flags, 'HCP_EX_INTERNAL' if $r->{internal};
    push @flags, 'HCP_EX_VARARGS' if grep { $_->{type} eq 'VARARGS' } @{ $r->{params} };
    my $kind = { function => 'HCP_EXPORT_FUNCTION', stub => 'HCP_EXPORT_STUB', data => 'HCP_EXPORT_DATA',
                 guest => 'HCP_EXPORT_GUEST' }->{ $r->{kind} };
    my $conv = { stdcall => 'HCP_CC_STDCALL', cdecl => 'HCP_CC_CDECL', none => 'HCP_CC_NONE' }->{ $r->{conv} };
    my $n = grep { $_->{type} ne 'VARARGS' } @{ $r->{params} };
    my $w = 0;
    $w += words($_) for grep { $_->{type} ne 'VARARGS' } @{ $r->{params} };
    my $index = $r->{kind} eq 'data' ? "HCP_VAR_$r->{val}" : $r->{kind} eq 'guest' ? "HCP_GUEST_$r->{val}" : '-1';
    my $ret = $r->{ret} eq 'VOID' ? 'HCP_T_VOID' : $base{ $r->{ret} }[0];
    my ($wu, $wn, $wd) = $a{work} ? @{ $a{work} } : ('', 0, 0);
    my $wtext = '';
    if ($a{work}) {
        my $units = $wd == 1 ? $wu : "$wd ${wu}s";
        $wtext = sprintf '1 api_call + %d cycle%s/%s', $wn, $wn == 1 ? '' : 's', $units;
    }
    printf $c "    {\"%s\", \"%s\", %d, %s, %s, %d, %d, %s, %s, %s, %s, %s, %s, \"%s\", %d, %d, %d, %s},\n", $r->{dll},
        $r->{name}, $r->{ord}, $kind, $conv, scalar @{ $r->{params} }, $w, @{ $r->{params} } ? "p$i" : 'NULL', $ret,
        @flags ? join('|', @flags) : '0', { none => 'HCP_COST_NONE', call => 'HCP_COST_CALL', self => 'HCP_COST_SELF' }->{ $a{cost} // 'call' },
        $r->{impl} ne '' ? "call_$r->{impl}" : 'NULL', $index, $r->{impl}, $r->{line}, $wn, $wd,
        $a{work} ? "\"$wtext\"" : 'NULL';
}
print $c "};\n\n";
# The index by (DLL, name): DLL names compare case-insensitively (lower case here), names exactly.
my @order = sort { lc($rows[$a]{dll}) cmp lc($rows[$b]{dll}) || $rows[$a]{name} cmp $rows[$b]{name} } 0 .. $#rows;
print $c "const uint16_t hcp_export_index[HCP_EXPORT_ROWS] = {";
print $c join(', ', @order), "};\n";
print $c "const char *const hcp_export_dlls[] = {", join(', ', map { "\"$_\"" } @dll_order), ", NULL};\n";
close $c;
