#!/usr/bin/perl
# scenarios/tests/windiff/gen.pl — seeded programs for the differential runs against Wine
# (scenarios/tests/windiff/README.md).
#
#   perl gen.pl --seed S [--cases N] [--only K] [--family F,F...]      a C program on stdout
#   perl gen.pl --seed S --args                                        its argument list, one a line
#   perl gen.pl --seed S [--cases N] --known                           "K reason" for each case whose
#                                                                      calls Wine does differently from Windows
#
# A program is N cases, each a short block of calls whose results do not depend on the schedule
# (one thread; waits only with timeout 0), printing one line "K FAMILY: results" with every
# return value and, for Win32 calls, the last error after a SetLastError(0xDEADBEEF) poison, so
# a line says exactly what each call returned and whether it touched the last error.  Nothing
# printed depends on an address (addresses differ between implementations): pointers are
# printed as offsets from the allocation they belong to, or as NULL / not NULL.  Case K of seed S
# is the same whatever N is (each case draws from its own stream: seed and K), so --only K
# regenerates a mismatching case alone: the minimal program.  The random numbers are
# Park-Miller's (exact in Perl's integers), so a seed means the same program on every host.
use strict;
use warnings;

my ($seed, $ncases, $only, $families, $args_mode, $known_mode) = (1, 100, undef, undef, 0, 0);
while (@ARGV) {
    my $a = shift @ARGV;
    if ($a eq '--seed') { $seed = shift @ARGV }
    elsif ($a eq '--cases') { $ncases = shift @ARGV }
    elsif ($a eq '--only') { $only = shift @ARGV }
    elsif ($a eq '--family') { $families = shift @ARGV }
    elsif ($a eq '--args') { $args_mode = 1 }
    elsif ($a eq '--known') { $known_mode = 1 }
    else { die "usage: gen.pl --seed S [--cases N] [--only K] [--family F,...] [--args]\n" }
}
die "gen.pl: the seed is a positive integer\n" unless $seed =~ /^\d+$/ && $seed > 0;

# ---- random numbers: Park-Miller minimal standard, one stream per (seed, case) -------------------
my $state;
sub reseed { my ($s, $k) = @_; $state = ($s * 7919 + $k * 104729 + 12345) % 2147483647; $state ||= 1; rnd() for 1 .. 4; }
sub rnd { $state = ($state * 48271) % 2147483647; return $state; }
sub pick { my ($n) = @_; return rnd() % $n; }
sub one { return $_[ pick(scalar @_) ]; }
sub chance { my ($p) = @_; return pick(1000) < $p * 1000; }

# ---- the argument list (family argv): words with spaces, quotes, backslashes --------------------
if ($args_mode) {
    reseed($seed, 0);
    my @pieces = ('a', 'b c', '"', '\\', '\\\\', '\\"', ' ', '', 'x y z', "tab\there", 'end\\', '"q"', 'a\\b', '--seed', '-x');
    my $n = 1 + pick(6);
    for (1 .. $n) {
        my $w = join '', map { one(@pieces) } 1 .. 1 + pick(3);
        print "$w\n";
    }
    exit 0;
}

# ---- families ------------------------------------------------------------------------------------
sub cstr { my ($s) = @_; $s =~ s/([\\"])/\\$1/g; $s =~ s/\t/\\t/g; $s =~ s/\n/\\n/g; return "\"$s\""; }
sub word { my $n = pick(8); return join '', map { one('a' .. 'z', 'A' .. 'Z', '0' .. '9', ' ', '-', '_', '.') } 1 .. $n; }

my @int_values = ('0', '1', '-1', '42', '-42', '255', '65535', '2147483647', '(-2147483647 - 1)', '123456789', '-98765');
my @dbl_values = ('0.0', '-0.0', '1.0', '0.5', '1.5', '2.5', '-2.5', '0.1', '3.14159265358979', '123456.789', '1e10',
                  '1e-5', '9.999', '99.995', '1e300', '1e-300', '0.000123456', '-7.25', '1e21', '5e-324', '1.7976931348623157e308');

# printf: one conversion with random flags, width, precision and length, into a buffer
sub fam_printf {
    my $conv = one(qw(d i u x X o c s e E f g G));
    my $flags = join '', grep { chance(0.25) } ('-', '+', ' ', '#', '0');
    my $width = chance(0.5) ? (chance(0.15) ? '*' : 1 + pick(14)) : '';
    my $prec = chance(0.5) ? '.' . (chance(0.15) ? '*' : pick(12)) : '';
    my ($len, $val, @star);
    push @star, 1 + pick(12) if $width eq '*';
    push @star, pick(10) if $prec eq '.*';
    if ($conv =~ /[di]/) { ($len, $val) = chance(0.2) ? ('I64', '(long long)' . one(@int_values, '(-9223372036854775807LL - 1)', '1234567890123LL')) : chance(0.2) ? ('h', '(short)' . one(@int_values)) : ('', one(@int_values)); }
    elsif ($conv =~ /[uxXo]/) { ($len, $val) = chance(0.2) ? ('I64', '(unsigned long long)' . one(@int_values, '0xFFFFFFFFFFFFFFFFULL', '0x123456789ABCDEFULL')) : ('', '(unsigned)' . one(@int_values)); }
    elsif ($conv eq 'c') { ($len, $val) = ('', one(65, 97, 48, 32, 126)); }
    elsif ($conv eq 's') { ($len, $val) = ('', chance(0.1) ? '(char *)0' : cstr(word())); }
    else { ($len, $val) = ('', one(@dbl_values)); }
    my $fmt = "%$flags$width$prec$len$conv";
    my $a = join ', ', @star, $val;
    return ("printf", <<"C");
    r = _snprintf(buf, sizeof buf - 1, "[$fmt]", $a);
    out_s(" r="); out_i(r); out_s(" "); out_s(r >= 0 ? buf : "(truncated)");
C
}

# _snprintf at the buffer's edge: the output one shorter than, exactly as long as, and one longer
# than the count
sub fam_snprintf {
    my $w = word() . 'xyz';
    my $n = length $w;
    my $count = $n + one(-1, 0, 1);
    return ("snprintf", <<"C");
    memset(buf, '#', 32); buf[32] = 0;
    r = _snprintf(buf, $count, "%s", ${\ cstr($w)});
    out_s(" r="); out_i(r); out_s(" buf="); out_s(buf);
C
}

# strings and memory
sub fam_string {
    my ($x, $y) = (word(), chance(0.5) ? word() : undef);
    $y //= $x;
    my $n = pick(10);
    my $ch = one(map { ord } split //, "$x$y\0a ");
    return ("string", <<"C");
    out_s(" strlen="); out_i((long long)strlen(${\ cstr($x)}));
    out_s(" strcmp="); out_i(strcmp(${\ cstr($x)}, ${\ cstr($y)}) < 0 ? -1 : strcmp(${\ cstr($x)}, ${\ cstr($y)}) > 0);
    out_s(" strncmp="); out_i(strncmp(${\ cstr($x)}, ${\ cstr($y)}, $n) < 0 ? -1 : strncmp(${\ cstr($x)}, ${\ cstr($y)}, $n) > 0);
    { const char *s = ${\ cstr($x)}; const char *f = strchr(s, $ch); out_s(" strchr="); out_i(f ? (long long)(f - s) : -1); }
    strcpy(buf, ${\ cstr($y)}); out_s(" strcpy="); out_s(buf);
    memset(buf, 'a' + $n, $n); buf[$n] = 0; out_s(" memset="); out_s(buf);
    out_s(" memcmp="); out_i(memcmp(${\ cstr($x . 'zzzzzzzzzz')}, ${\ cstr($y . 'zzzzzzzzzz')}, $n) < 0 ? -1 : memcmp(${\ cstr($x . 'zzzzzzzzzz')}, ${\ cstr($y . 'zzzzzzzzzz')}, $n) > 0);
    out_s(" atoi="); out_i(atoi(${\ cstr(one(' 42', '-17x', '+8', '0x10', '2147483647', '-2147483648', '', 'abc', '  -0012'))}));
C
}

# events, mutexes and semaphores: creation, names, opening, signalling, zero-timeout waits, errors
our $known; # set by a family when the case calls something Wine is known to do differently from Windows
sub fam_objects {
    my $name = 'hcpsim-windiff-' . pick(3);
    my @ops;
    my $kind = one(qw(event mutex semaphore));
    my $named = chance(0.6);
    my $nm = $named ? cstr($name . $kind) : 'NULL';
    if ($kind eq 'event') {
        my ($manual, $initial) = (pick(2), pick(2));
        push @ops, "W(\"create\", (h[0] = CreateEventA(NULL, $manual, $initial, $nm)) != NULL);";
        push @ops, "W(\"again\", (h[1] = CreateEventA(NULL, 0, 0, $nm)) != NULL);" if $named && chance(0.5);
        push @ops, "W(\"open\", (h[2] = OpenEventA(EVENT_ALL_ACCESS, FALSE, $nm)) != NULL);" if chance(0.5);
        for (1 .. 1 + pick(4)) {
            push @ops, one("W(\"set\", SetEvent(h[0]));", "W(\"reset\", ResetEvent(h[0]));",
                           "W(\"wait\", WaitForSingleObject(h[0], 0));", "W(\"pulse\", PulseEvent(h[0]));",
                           "W(\"close\", CloseHandle(h[0])); h[0] = h[1] ? h[1] : h[2];");
        }
    } elsif ($kind eq 'mutex') {
        my $own = pick(2);
        push @ops, "W(\"create\", (h[0] = CreateMutexA(NULL, $own, $nm)) != NULL);";
        push @ops, "W(\"again\", (h[1] = CreateMutexA(NULL, 0, $nm)) != NULL);" if $named && chance(0.5);
        for (1 .. 1 + pick(4)) {
            push @ops, one("W(\"release\", ReleaseMutex(h[0]));", "W(\"wait\", WaitForSingleObject(h[0], 0));",
                           "W(\"close\", CloseHandle(h[0])); h[0] = h[1];");
        }
    } else {
        my $max = 1 + pick(4);
        my $init = pick($max + 2);
        push @ops, "W(\"create\", (h[0] = CreateSemaphoreA(NULL, $init, $max, $nm)) != NULL);";
        for (1 .. 1 + pick(4)) {
            my $k = chance(0.1) ? pick(2) - 1 : 1 + pick(3); # a count <= 0 rarely: Wine differs there
            $known = "ReleaseSemaphore with lReleaseCount <= 0: Windows fails (the documentation: 'must be greater than zero'; Microsoft's own PAL test releasesemaphore/test1 expects FALSE), Wine 8.0 succeeds for 0 and fails with ERROR_TOO_MANY_POSTS for -1" if $k <= 0;
            push @ops, one("{ LONG prev = -7; W(\"release\", ReleaseSemaphore(h[0], $k, &prev)); out_s(\" prev=\"); out_i(prev); }",
                           "W(\"wait\", WaitForSingleObject(h[0], 0));");
        }
    }
    push @ops, "for (int i = 0; i < 3; i++) if (h[i]) CloseHandle(h[i]);";
    return ("objects", join("\n", map { "    $_" } "HANDLE h[3] = {0, 0, 0};", @ops) . "\n");
}

# thread-local storage: allocation, values, freeing, bad indices
sub fam_tls {
    my @ops = ("DWORD t;", "W(\"alloc\", (t = TlsAlloc()) != TLS_OUT_OF_INDEXES);");
    for (1 .. 1 + pick(4)) {
        my $v = pick(1000);
        push @ops, one("W(\"set\", TlsSetValue(t, (LPVOID)(ULONG_PTR)$v));",
                       "W(\"get\", (long long)(ULONG_PTR)TlsGetValue(t));",
                       "W(\"getbad\", (long long)(ULONG_PTR)TlsGetValue(1087 + 5));",
                       "W(\"free\", TlsFree(t));");
    }
    push @ops, "TlsFree(t);";
    return ("tls", join("\n", map { "    $_" } @ops) . "\n");
}

# heaps: sizes, zeroing, contents kept across reallocation
sub fam_heap {
    my ($n, $m) = (pick(200), pick(300));
    my $zero = pick(2) ? 'HEAP_ZERO_MEMORY' : '0';
    return ("heap", <<"C");
    HANDLE hp = GetProcessHeap();
    unsigned char *p = HeapAlloc(hp, $zero, $n);
    W("alloc", p != NULL);
    if (p) {
        unsigned sum = 0;
        if ($zero) for (int i = 0; i < $n; i++) sum += p[i];
        out_s(" zero_sum="); out_i(sum);
        for (int i = 0; i < $n; i++) p[i] = (unsigned char)(i * 7 + 1);
        W("size", (long long)HeapSize(hp, 0, p));
        unsigned char *q = HeapReAlloc(hp, $zero, p, $m);
        W("realloc", q != NULL);
        if (q) {
            unsigned keep = 1;
            for (int i = 0; i < ($n < $m ? $n : $m); i++) keep &= q[i] == (unsigned char)(i * 7 + 1);
            out_s(" kept="); out_i(keep);
            W("size2", (long long)HeapSize(hp, 0, q));
            W("free", HeapFree(hp, 0, q));
        }
    }
    { char *c = calloc($n + 1, 3); int z = 1; for (int i = 0; c && i < 3 * ($n + 1); i++) z &= c[i] == 0; out_s(" calloc_zero="); out_i(c ? z : -1); free(c); }
C
}

# virtual memory: reserve and commit, what VirtualQuery says (relative to the region), protections
sub fam_virtual {
    my $size = (1 + pick(5)) * 4096 + one(0, 1, 4095);
    my $type = one('MEM_COMMIT | MEM_RESERVE', 'MEM_RESERVE', 'MEM_COMMIT');
    my $prot = one('PAGE_READWRITE', 'PAGE_READONLY', 'PAGE_NOACCESS');
    my $np = one('PAGE_READONLY', 'PAGE_READWRITE', 'PAGE_NOACCESS');
    return ("virtual", <<"C");
    char *v = VirtualAlloc(NULL, $size, $type, $prot);
    W("alloc", v != NULL);
    if (v) {
        out_s(" aligned="); out_i(((ULONG_PTR)v & 0xFFFF) == 0);
        MEMORY_BASIC_INFORMATION mbi;
        SIZE_T q = VirtualQuery(v + 4096, &mbi, sizeof mbi);
        out_s(" q="); out_i(q == sizeof mbi);
        out_s(" base_off="); out_i((long long)((char *)mbi.BaseAddress - v)); out_s(" state="); out_x(mbi.State);
        if (mbi.State != MEM_FREE) { /* a free range's allocation base and size depend on the address space around it */
            out_s(" alloc_off="); out_i((long long)((char *)mbi.AllocationBase - v));
            out_s(" aprot="); out_x(mbi.AllocationProtect); out_s(" prot="); out_x(mbi.Protect);
            out_s(" type="); out_x(mbi.Type); out_s(" rsize="); out_i((long long)mbi.RegionSize);
        }
        DWORD old = 0xDEAD;
        W("protect", VirtualProtect(v, $size, $np, &old)); out_s(" old="); out_x(old);
        W("free_bad", VirtualFree(v, 4096, MEM_RELEASE));
        W("free", VirtualFree(v, 0, MEM_RELEASE));
    }
C
}

my %fam = (printf => \&fam_printf, snprintf => \&fam_snprintf, string => \&fam_string, objects => \&fam_objects,
           tls => \&fam_tls, heap => \&fam_heap, virtual => \&fam_virtual);
my @fam_order = qw(printf snprintf string objects tls heap virtual);
my @use = $families ? split(/,/, $families) : @fam_order;
for (@use) { die "gen.pl: unknown family '$_' (" . join(' ', @fam_order) . ")\n" unless $fam{$_} }

if (!$known_mode) { print <<'C';
/* Generated by scenarios/tests/windiff/gen.pl: a differential test program (seed and cases in
 * the first line it prints).  msvcrt's own printf family: __USE_MINGW_ANSI_STDIO 0. */
#define __USE_MINGW_ANSI_STDIO 0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

/* Output through fputs only, with numbers formatted here, so a case's line does not depend on the
 * printf being tested. */
static void out_s(const char *s) { fputs(s, stdout); }
static void out_u(unsigned long long v) {
    char b[24];
    int k = sizeof b - 1;
    b[k] = 0;
    do b[--k] = (char)('0' + v % 10); while (v /= 10);
    out_s(b + k);
}
static void out_i(long long v) {
    if (v < 0) {
        out_s("-");
        out_u(0ULL - (unsigned long long)v);
    } else {
        out_u((unsigned long long)v);
    }
}
static void out_x(unsigned long long v) {
    char b[24];
    int k = sizeof b - 1;
    b[k] = 0;
    do b[--k] = "0123456789ABCDEF"[v % 16]; while (v /= 16);
    out_s("0x");
    out_s(b + k);
}
/* A Win32 result and the last error it left: "name=value/error" (error 0xDEADBEEF: untouched). */
#define W(name, expr)                                                                                                  \
    do {                                                                                                               \
        SetLastError(0xDEADBEEF);                                                                                      \
        long long w_ = (long long)(expr);                                                                              \
        DWORD e_ = GetLastError();                                                                                     \
        out_s(" " name "=");                                                                                           \
        out_i(w_);                                                                                                     \
        out_s("/");                                                                                                    \
        if (e_ == 0xDEADBEEF)                                                                                          \
            out_s("-");                                                                                                \
        else                                                                                                           \
            out_u(e_);                                                                                                 \
    } while (0)

C
}
my @cases;
my @ks = defined $only ? ($only) : (1 .. $ncases);
for my $k (@ks) {
    reseed($seed, $k);
    my $f = $use[ pick(scalar @use) ];
    local $known;
    my ($name, $body) = $fam{$f}->();
    if ($known_mode) { print "$k $known\n" if $known; next; }
    push @cases, $k;
    $body = "    /* Wine differs from Windows here: $known */\n$body" if $known;
    print "static void case_$k(void) {\n    char buf[512];\n    int r;\n    (void)buf;\n    (void)r;\n    out_s(\"$k $name:\");\n$body    out_s(\"\\n\");\n}\n\n";
}
exit 0 if $known_mode;
print "int main(int argc, char **argv) {\n";
print "    out_s(\"seed $seed cases ", scalar @cases, "\\n\");\n";
print "    out_s(\"argc=\"); out_i(argc); out_s(\"\\n\");\n";
print "    for (int i = 1; i < argc; i++) { out_s(\"argv[\"); out_i(i); out_s(\"]=<\"); out_s(argv[i]); out_s(\">\\n\"); }\n";
print "    case_$_();\n" for @cases;
print "    return 0;\n}\n";
