#!/bin/sh
# hcpsim run --report PATH: the run report as JSON, Markdown and HTML
# (reports/SCHEMA.md).  A small scenario written here (1 CPU, cost = "unit",
# so cycles = instructions; a thread that spins, sleeps, spins and calls an
# import from guest code; a thread that spins) runs with each format:
#   - the JSON is validated against the schema's required keys and types by a
#     small validator (perl's core JSON::PP), and its values against what the
#     kernel formulas and the scheduler rules give (derivations below);
#   - the Markdown is compared with scenarios/tests/report_golden.md, whose
#     <!-- comments --> say where each number comes from;
#   - the HTML is parsed as XML (xmllint) and its SVG timeline must have one
#     lane per CPU; a long run must be aggregated, not drawn switch by switch;
# and two runs must give byte-identical files; a bad extension or path is a
# usage error; a failed run still writes a report marked partial.
#
#   sh scenarios/tests/report.sh            the TAP tests (make test)
#   sh scenarios/tests/report.sh browser D  make check-browser: renders the tour's HTML report and a
#                                           program's (threads.exe) in headless Chromium (files in
#                                           directory D)
top=$(pwd)
HCPSIM=${HCPSIM:-$top/build/hcpsim}
case "$HCPSIM" in /*|valgrind*) ;; *) HCPSIM=$top/$HCPSIM ;; esac

# ---- make check-browser ------------------------------------------------------------------
if [ "$1" = browser ]; then
  out=${2:-$top/build/browser}
  case "$out" in /*) ;; *) out=$top/$out ;; esac
  browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
  if [ -z "$browser" ]; then
    echo "check-browser: skipped: no chromium (make deps-browser installs it)"
    exit 0
  fi
  mkdir -p "$out" || exit 1
  pe=$(dirname "$HCPSIM")/pe
  [ -d "$pe" ] || pe=$top/build/pe
  rm -f "$out"/tour.* "$out"/program.* "$out/chromium.log"
  # Two reports: the tour (a scenario of three threads) and a program's (threads.exe, built by the
  # Makefile from scenarios/examples/pe/threads.c: the threads it creates, counted with two PMCs).
  $HCPSIM run --report "$out/tour.html" "$top/scenarios/examples/tour.lua" >/dev/null || exit 1
  [ -f "$pe/threads64.exe" ] || { echo "check-browser: FAILED: no $pe/threads64.exe (make tests builds it)" >&2; exit 1; }
  $HCPSIM run --pmc instructions,branches --counters 0,1 --report "$out/program.html" "$pe/threads64.exe" \
    >/dev/null 2>"$out/program.err"
  st=$?
  [ "$st" = 3 ] || { echo "check-browser: FAILED: threads64.exe exited $st: $(cat "$out/program.err")" >&2; exit 1; }
  flags="--headless --no-sandbox --disable-gpu --disable-background-networking --hide-scrollbars"
  fail=0
  for page in tour program; do
    # Chromium's own diagnostics (D-Bus, GPU) go to stderr: kept in a file, shown only on failure.
    timeout 180 "$browser" $flags --window-size=1280,1600 --screenshot="$out/$page.png" "file://$out/$page.html" \
      >>"$out/chromium.log" 2>&1
    timeout 180 "$browser" $flags --dump-dom "file://$out/$page.html" >"$out/$page.dom" 2>>"$out/chromium.log"
    # The screenshot must not be blank: decode the PNG (core Compress::Zlib), undo the row
    # filters, and require several colours and a real share of non-background pixels.
    perl -MCompress::Zlib -e '
      open my $fh, "<:raw", $ARGV[0] or die "no screenshot: $!\n";
      local $/; my $png = <$fh>;
      substr($png, 0, 8) eq "\x89PNG\r\n\x1a\n" or die "not a PNG\n";
      my ($pos, $idat, $w, $h, $depth, $ctype) = (8, "");
      while ($pos < length $png) {
        my ($len, $type) = unpack "Na4", substr($png, $pos, 8);
        my $data = substr($png, $pos + 8, $len);
        ($w, $h, $depth, $ctype) = unpack "NNCC", $data if $type eq "IHDR";
        $idat .= $data if $type eq "IDAT";
        $pos += 12 + $len;
      }
      $depth == 8 && ($ctype == 2 || $ctype == 6) or die "unexpected PNG format (depth $depth, colour type $ctype)\n";
      my $bpp = $ctype == 6 ? 4 : 3;
      my $raw = uncompress($idat) // die "bad image data\n";
      my ($stride, @prev, %colours, $bg, $nonbg) = ($w * $bpp, (0) x ($w * $bpp));
      for my $y (0 .. $h - 1) {
        my $ft = ord substr($raw, $y * ($stride + 1), 1);
        my @cur = unpack "C*", substr($raw, $y * ($stride + 1) + 1, $stride);
        for my $i (0 .. $stride - 1) {
          my $a = $i >= $bpp ? $cur[$i - $bpp] : 0;
          my $b = $prev[$i];
          my $c = $i >= $bpp ? $prev[$i - $bpp] : 0;
          my $p = $a + $b - $c; my ($pa, $pb, $pc) = (abs($p - $a), abs($p - $b), abs($p - $c));
          my $pred = $ft == 0 ? 0 : $ft == 1 ? $a : $ft == 2 ? $b : $ft == 3 ? int(($a + $b) / 2)
                   : ($pa <= $pb && $pa <= $pc) ? $a : $pb <= $pc ? $b : $c;
          $cur[$i] = ($cur[$i] + $pred) & 255;
        }
        for (my $i = 0; $i < $stride; $i += $bpp) {
          my $px = join ",", @cur[$i .. $i + 2];
          $bg //= $px;
          $colours{$px}++ if keys %colours < 10000;
          $nonbg++ if $px ne $bg;
        }
        @prev = @cur;
      }
      my $n = keys %colours;
      my $share = $nonbg / ($w * $h);
      printf "check-browser: %s screenshot %dx%d, %d colours, %.1f%% non-background pixels\n", $ARGV[1], $w, $h, $n,
        100 * $share;
      exit($n >= 8 && $share >= 0.02 ? 0 : 1);
    ' "$out/$page.png" "$page" || { echo "check-browser: FAILED: the screenshot $out/$page.png is blank or unreadable" >&2; fail=1; }
    if grep -q 'id="timeline-0"' "$out/$page.dom" && [ "$(grep -o 'class="lane"' "$out/$page.dom" | wc -l)" -ge 1 ]; then
      echo "check-browser: $page: the DOM has the timeline (svg#timeline-0) and its lanes"
    else
      echo "check-browser: FAILED: no svg#timeline-0 with lanes in the DOM dump $out/$page.dom" >&2
      fail=1
    fi
    # Every chart the browser built must have a line of at least two points (an empty chart fails).
    if perl -e 'local $/; my $d = <STDIN>; my ($n, $empty) = (0, 0);
        while ($d =~ m{<svg[^>]*class="(?:counter|rate)-chart"[^>]*>(.*?)</svg>}gs) {
          $n++; my $c = $1; $empty++ unless $c =~ /<polyline[^>]*points="\s*\S+\s+\S+/ }
        print "check-browser: $ARGV[0]: $n charts, $empty empty\n"; exit($n >= 2 && !$empty ? 0 : 1)' "$page" \
        <"$out/$page.dom"; then :
    else
      echo "check-browser: FAILED: a counter or rate chart in the DOM of $page has no line of two points" >&2
      fail=1
    fi
  done
  # The program's page names the program, how it ended and the threads it created.
  if grep -q 'threads64.exe' "$out/program.dom" && grep -q 'exited with code 3 (exit status 3)' "$out/program.dom" &&
    grep -q 'threads64.exe#1' "$out/program.dom"; then
    echo "check-browser: program: the page names threads64.exe, its exit code and its created threads"
  else
    echo "check-browser: FAILED: the program's page lacks its name, its status or its threads ($out/program.dom)" >&2
    fail=1
  fi
  [ "$fail" = 0 ] || { echo "chromium's log:" >&2; cat "$out/chromium.log" >&2; exit 1; }
  echo "check-browser: ok ($out/tour.png, $out/program.png)"
  exit 0
fi

# ---- the TAP tests -------------------------------------------------------------------------
golden=$top/scenarios/tests/report_golden.md
CLAUSE=SIM-REPORT
. "$top/scenarios/tests/lib/tap.sh"
echo "TAP version 13"

# The derivations (scenarios/kernels/README.md, api/README.md "Call gate", sim/README.md):
#   spin(n) retires 4 + 2n instructions, 2 + n branches; cost "unit": 1 cycle per instruction, no
#   penalties, API calls cost 0 kernel cycles, so cycles = instructions; predictor = false: no
#   branch misses; no cache event is programmed, so the cache model is off: no cache misses.
#   "a": spin(1000) = 2004, Sleep(1), spin(1000) = 2004, then the GetCurrentThreadId thunk
#        (mov, syscall, ret: 3 instructions, 2 branches): 4011 instructions, 2006 branches.
#   "b": spin(3000) = 6004 instructions, 3002 branches.
#   Schedule on 1 CPU (a created first): a [0, 2004) leaves Waiting (DelayExecution);
#   b [2004, 8008) exits; Sleep(1) = 3,000,000 cycles (3 GHz) is due at 3,002,004 and resolves at
#   the next tick of CPU 0: ticks every 10000 x 100 ns = 3,000,000 cycles, so at 6,000,000, whose
#   interrupt costs 2000 cycles: a runs [6,002,000, 6,004,007), 2007 cycles, and exits.
#   CPU 0: time 6,004,007; ticks 2; interrupt 2 x 2000; busy 2004 + 6004 + 2007 = 10015;
#   idle = time - busy - interrupt = 5,989,992.  Switch-ins: a 2, b 1.
cat > small.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { cost = "unit", predictor = false, tick = 10000, pmc = { "instructions", "cycles", "branches" } }
local k = m:load "kernels"
local imp = m:imports()
m:thread { name = "a", body = function(t)
  t:run(k.spin, 1000)
  t:Sleep(1)
  t:run(k.spin, 1000)
  t:run(imp.GetCurrentThreadId)
end }
m:thread { name = "b", body = function(t)
  t:run(k.spin, 3000)
end }
m:run()
EOF
sed 's/cost = "unit", /cpus = 2, cost = "unit", /' small.lua > two.lua

$HCPSIM run --report small.json small.lua >out.txt 2>err.txt
st=$?
result $st "the scenario runs with --report PATH.json: status 0" "status $st; stderr: $(cat err.txt)"
[ -s small.json ] && [ ! -e small.json.tmp ] && [ ! -s out.txt ]
result $? "the report is at PATH, PATH.tmp is gone, and the scenario's stdout is untouched"

# The checker (CheckJson.pm) prints one line per check: "ok NAME" or "not ok NAME: detail".
cat > check.pl <<'EOF'
use strict;
use warnings;
use B;
use JSON::PP;
use CheckJson;
my ($d, $text) = load_json($ARGV[0]);

# ---- a small validator: the schema's required keys and their types (reports/SCHEMA.md) ----
# A spec is a type name ('int', 'str', 'bool', 'null', alternatives joined by '|', 'map:int' an
# object of integers, 'array' any array, 'any'), a hash (required keys) or [spec] (each element).
sub is_int { my $v = shift; defined $v && !ref $v && (B::svref_2object(\$v)->FLAGS & B::SVp_IOK) && $v =~ /^-?\d+\z/ }
sub is_str { my $v = shift; defined $v && !ref $v && (B::svref_2object(\$v)->FLAGS & B::SVp_POK) }
sub validate {
  my ($spec, $v, $path, $err) = @_;
  if (ref $spec eq 'HASH') {
    return push @$err, "$path: not an object" unless ref $v eq 'HASH';
    for my $k (sort keys %$spec) {
      if (!exists $v->{$k}) { push @$err, "$path.$k: missing"; next }
      validate($spec->{$k}, $v->{$k}, "$path.$k", $err);
    }
    return;
  }
  if (ref $spec eq 'ARRAY') {
    return push @$err, "$path: not an array" unless ref $v eq 'ARRAY';
    validate($spec->[0], $v->[$_], "$path\[$_]", $err) for 0 .. $#$v;
    return;
  }
  for my $alt (split /\|/, $spec) {
    return if $alt eq 'any'
      || ($alt eq 'int' && is_int($v)) || ($alt eq 'str' && is_str($v))
      || ($alt eq 'bool' && JSON::PP::is_bool($v)) || ($alt eq 'null' && !defined $v)
      || ($alt eq 'array' && ref $v eq 'ARRAY')
      || ($alt eq 'map:int' && ref $v eq 'HASH' && !grep { !is_int($_) } values %$v);
  }
  push @$err, "$path: not $spec (" . (defined $v ? (ref $v || "'$v'") : 'null') . ")";
}
my $level = { size => 'int', ways => 'int', line => 'int' };
my $derived = { map { $_ => 'int|null' } qw(ipc_milli cpi_milli branch_miss_bp l1d_mpki_milli l1d_miss_bp l2_mpki_milli
                                             l2_miss_bp llc_mpki_milli llc_miss_bp) };
my $machine = {
  index => 'int', platform => 'str', semantics => 'str', end_cycles => 'int', end_ns => 'int', detached => 'bool',
  config => { map({ $_ => 'int' } qw(cpus frequency tick_100ns tick_cycles quantum_ticks quantum_cycles
                                     interrupt_cycles slice_cycles max_cycles stack_size boot_time)),
              map({ $_ => 'bool' } qw(precise_faults predictor cache)) },
  pmc => [ { index => 'int', event => 'str', mode => 'str', name => 'str' } ],
  cost => { profile => 'str', table => 'str', class_cycles => 'map:int',
            map({ $_ => 'int' } qw(mispredict_cycles l2_hit_cycles llc_hit_cycles mem_cycles api_call_cycles
                                   interrupt_cycles)),
            predictor => { enabled => 'bool', map({ $_ => 'int' } qw(hist_bits index_bits pc_shift ras_depth btb_entries)) },
            cache => { enabled => 'bool', l1d => $level, l2 => $level, llc => $level } },
  threads => [ { map({ $_ => 'int' } qw(index id priority ideal exit_code create_cycles cycle_time user_cycles
                                        kernel_cycles interrupt_cycles user_ns kernel_ns interrupt_ns ticks
                                        run_cycles intervals api_calls)),
                 name => 'str', affinity => 'str', state => 'str', exit_cycles => 'int|null', counters => 'map:int',
                 switches => { in => 'int', out => 'map:int', exit => 'int' },
                 events => 'map:int', derived => $derived, cpu_share_bp => 'int|null' } ],
  cpus => [ { map({ $_ => 'int' } qw(index time busy idle interrupt ticks switches intervals busy_bp)),
              events => 'map:int', derived => $derived } ],
  schedule => { limit => 'int', total => 'int', kept => 'int', truncated => 'bool',
                lanes => [ { cpu => 'int', intervals => [ { tid => 'int', start => 'int', end => 'int', cycles => 'int',
                                                            left_with => 'str|null', next_state => 'str' } ] } ] },
  api => { limit => 'int', total => 'int', kept => 'int', truncated => 'bool', by_function => 'any',
           calls => [ { seq => 'int', tid => 'int|null', cpu => 'int|null', start => 'int', end => 'int', via => 'str',
                        function => 'str', args => 'array', results => 'array|null', completed => 'bool' } ] },
};
my $schema = {
  schema => 'str', version => 'int', generator => 'str',
  run => { scenario => 'str', seed => 'int', args => ['str'], status => 'str', exit_status => 'int', error => 'str|null',
           partial => 'str|null', tap => 'null', exit_code => 'null', limit => 'null' },
  limits => { intervals_per_machine => 'int', calls_per_machine => 'int' },
  machines => [ $machine ],
};
my @err;
validate($schema, $d, '$', \@err);
check(!@err, 'the document has every required key with its type (reports/SCHEMA.md)', join('; ', @err[0 .. ($#err < 4 ? $#err : 4)]));
check(($d->{schema} // '') eq 'hcpsim-report' && ($d->{version} // 0) == 2, 'schema "hcpsim-report", version 2');
# keys sorted: every object in the file lists its keys in byte order
my @unsorted;
{ # check the text itself: JSON::PP forgets key order, so scan each object's keys in the file
  my @stack = ([]);
  while ($text =~ /("(?:[^"\\]|\\.)*")\s*(:?)|([{}\[\]])/g) {
    if (defined $3) {
      if ($3 eq '{') { push @stack, [] } elsif ($3 eq '}') { my $ks = pop @stack;
        for (1 .. $#$ks) { push @unsorted, "$ks->[$_-1] > $ks->[$_]" if $ks->[$_-1] gt $ks->[$_] } }
    } elsif ($2) { push @{$stack[-1]}, $1 }
  }
}
check(!@unsorted, 'every object lists its keys sorted', join('; ', @unsorted[0 .. ($#unsorted < 2 ? $#unsorted : 2)]));
check($text !~ /[:\[,]\s*-?\d+[.eE]/, 'no floating-point numbers');
check($text !~ /0x[0-9a-f]{8,}/i, 'no pointer-like hex values');

my $run = $d->{run} // {};
check(($run->{status} // '') eq 'complete' && ($run->{exit_status} // -1) == 0 && !defined $run->{error}
      && ($run->{scenario} // '') eq 'small.lua' && ($run->{seed} // 0) == 1,
      'run: small.lua, seed 1, complete, exit status 0, no error');
my $m = $d->{machines}[0] // {};
check(@{$d->{machines} // []} == 1 && ($m->{platform} // '') eq 'win10-x64' && ($m->{semantics} // '') eq 'documented',
      'one machine: win10-x64, documented semantics');
my $cf = $m->{config} // {};
check(($cf->{cpus} // 0) == 1 && ($cf->{frequency} // 0) == 3000000000 && ($cf->{tick_cycles} // 0) == 3000000
      && ($cf->{quantum_cycles} // 0) == 6000000 && ($cf->{interrupt_cycles} // 0) == 2000,
      'config: 1 CPU, 3 GHz, tick 10000 x 100 ns = 3000000 cycles, quantum 2 ticks, interrupt 2000 cycles');
check(join(',', map { $_->{name} } @{$m->{pmc} // []}) eq 'instructions,cycles,branches', 'pmc: instructions, cycles, branches in PMC order');
my $co = $m->{cost} // {};
my @cls = values %{$co->{class_cycles} // {}};
check(($co->{table} // '') eq 'unit' && @cls == 14 && !grep({ $_ != 1 } @cls) && ($co->{api_call_cycles} // -1) == 0
      && ($co->{mispredict_cycles} // -1) == 0, 'cost table "unit": 14 classes of 1 cycle, no penalties, API calls 0');

my %th = map { $_->{name} => $_ } @{$m->{threads} // []};
my ($a, $b) = ($th{a} // {}, $th{b} // {});
my $ia = (4 + 2 * 1000) * 2 + 3;   # two spin(1000) and the 3-instruction thunk
my $ba = (2 + 1000) * 2 + 2;       # the thunk's syscall and ret are branches
my $ib = 4 + 2 * 3000;
my $bb = 2 + 3000;
my $ca = $a->{counters} // {};
my $cb = $b->{counters} // {};
check(($a->{id} // 0) == 1000 && ($ca->{instructions} // -1) == $ia && ($ca->{cycles} // -1) == $ia && ($ca->{branches} // -1) == $ba,
      "a: instructions = cycles = $ia, branches = $ba", "got " . join('/', map { $ca->{$_} // 'none' } qw(instructions cycles branches)));
check(($b->{id} // 0) == 1004 && ($cb->{instructions} // -1) == $ib && ($cb->{cycles} // -1) == $ib && ($cb->{branches} // -1) == $bb,
      "b: instructions = cycles = $ib, branches = $bb", "got " . join('/', map { $cb->{$_} // 'none' } qw(instructions cycles branches)));
check(($a->{cycle_time} // -1) == $ia && ($a->{user_cycles} // -1) == $ia && ($a->{kernel_cycles} // -1) == 0
      && ($a->{interrupt_cycles} // -1) == 0 && ($a->{ticks} // -1) == 0 && ($a->{run_cycles} // -1) == $ia,
      'a: cycle time = user cycles = on-CPU cycles; no kernel or interrupt cycles (the ticks hit an idle CPU)');
my $sa = $a->{switches} // {};
my $sb = $b->{switches} // {};
check(($sa->{in} // 0) == 2 && ($sa->{out}{DelayExecution} // 0) == 1 && keys(%{$sa->{out} // {}}) == 1 && ($sa->{exit} // 0) == 1,
      'a: 2 switch-ins; 1 switch-out with DelayExecution; then it exits');
check(($sb->{in} // 0) == 1 && !%{$sb->{out} // {1 => 1}} && ($sb->{exit} // 0) == 1, 'b: 1 switch-in, no switch-out but its exit');
check(($a->{state} // '') eq 'Terminated' && ($b->{state} // '') eq 'Terminated' && ($a->{exit_cycles} // 0) == 6004007,
      'both threads Terminated; a exited at 6002000 + 2007');

my $cpu = $m->{cpus}[0] // {};
check(($cpu->{time} // 0) == 6004007 && ($cpu->{busy} // 0) == 10015 && ($cpu->{interrupt} // 0) == 4000
      && ($cpu->{ticks} // 0) == 2 && ($cpu->{idle} // 0) == 6004007 - 10015 - 4000 && ($cpu->{switches} // 0) == 3,
      'CPU 0: time 6004007 = busy (2004 + 6004 + 2007) + interrupt (2 ticks x 2000) + idle; 3 switches',
      join(' ', map { "$_=" . ($cpu->{$_} // 'none') } sort keys %$cpu));
my $sc = $m->{schedule} // {};
my @iv = @{$sc->{lanes}[0]{intervals} // []};
my $got = join(' ', map { "$_->{tid}:$_->{start}-$_->{end}:" . ($_->{left_with} // '-') . ":$_->{next_state}" } @iv);
check($got eq '1000:0-2004:DelayExecution:Waiting 1004:2004-8008:-:Terminated 1000:6002000-6004007:-:Terminated',
      'schedule: a [0,2004) DelayExecution -> Waiting; b [2004,8008) exits; a [6002000,6004007) exits', $got);
check(($sc->{total} // 0) == 3 && ($sc->{kept} // 0) == 3 && !$sc->{truncated} && ($sc->{limit} // 0) == 100000,
      'schedule: 3 of 3 intervals kept, not truncated, limit 100000');
my $api = $m->{api} // {};
my @calls = @{$api->{calls} // []};
$got = join(' ', map { "$_->{via}:$_->{function}:" . encode_json($_->{args}) . ':' . encode_json($_->{results}) . ":$_->{start}-$_->{end}" } @calls);
check($got eq 'lua:Sleep:[1]:[]:2004-6002000 guest:GetCurrentThreadId:[]:[1000]:6004006-6004006',
      'api: Sleep(1) from Lua returns nothing when a runs again; GetCurrentThreadId from guest code returns 1000', $got);
# Derived metrics, recomputed here from the raw event totals of the same report (SCHEMA.md
# "Derived metrics"): floor(num x scale / den), null when den is 0.
sub ratio { my ($n, $d, $s) = @_; return undef unless $d; use integer; return $n * $s / $d }
sub derive {
  my $e = shift;
  my $ls = ($e->{loads} // 0) + ($e->{stores} // 0);
  return { ipc_milli => ratio($e->{instructions}, $e->{cycles}, 1000), cpi_milli => ratio($e->{cycles}, $e->{instructions}, 1000),
           branch_miss_bp => ratio($e->{'branch-misses'}, $e->{branches}, 10000),
           l1d_mpki_milli => ratio($e->{'l1d-misses'}, $e->{instructions}, 1000000), l1d_miss_bp => ratio($e->{'l1d-misses'}, $ls, 10000),
           l2_mpki_milli => ratio($e->{'l2-misses'}, $e->{instructions}, 1000000), l2_miss_bp => ratio($e->{'l2-misses'}, $e->{'l1d-misses'}, 10000),
           llc_mpki_milli => ratio($e->{'llc-misses'}, $e->{instructions}, 1000000),
           llc_miss_bp => ratio($e->{'llc-misses'}, $e->{'llc-references'}, 10000) };
}
sub same_derived {
  my ($got, $want) = @_;
  my @bad = grep { (defined $got->{$_}) != (defined $want->{$_}) || (defined $want->{$_} && $got->{$_} != $want->{$_}) } sort keys %$want;
  return join(', ', map { "$_: " . ($got->{$_} // 'null') . ' != ' . ($want->{$_} // 'null') } @bad);
}
my @dbad;
for my $t (@{$m->{threads} // []}) {
  my $b = same_derived($t->{derived} // {}, derive($t->{events} // {}));
  push @dbad, "thread $t->{name}: $b" if $b;
  push @dbad, "thread $t->{name}: events.instructions != counters.instructions"
    if ($t->{events}{instructions} // -1) != ($t->{counters}{instructions} // -2);
  my $share = ratio($t->{run_cycles}, $m->{end_cycles}, 10000);
  push @dbad, "thread $t->{name}: cpu_share_bp" if ($t->{cpu_share_bp} // -1) != $share;
}
for my $c (@{$m->{cpus} // []}) {
  my $b = same_derived($c->{derived} // {}, derive($c->{events} // {}));
  push @dbad, "CPU $c->{index}: $b" if $b;
}
check(!@dbad, 'derived metrics (IPC, CPI, miss rates, MPKI, CPU share) equal their recomputation from the events in the report', join('; ', @dbad));
my %sum;
for my $t (@{$m->{threads} // []}) { $sum{$_} += $t->{events}{$_} for keys %{$t->{events} // {}} }
my $ce = $m->{cpus}[0]{events} // {};
check(keys(%sum) == 12 && !grep({ ($ce->{$_} // -1) != $sum{$_} } keys %sum),
      'one CPU: its events are the sum of its threads\' events (12 events)');
check(($a->{derived}{ipc_milli} // 0) == 1000 && ($a->{derived}{branch_miss_bp} // -1) == 0 && !defined $a->{derived}{l2_miss_bp},
      'a: IPC 1.000 (cycles = instructions under "unit"), no branch misses (predictor off), L2 miss rate undefined (no L1D misses)');
check(($api->{total} // 0) == 2 && ($api->{by_function}{Sleep}{lua} // 0) == 1 && ($api->{by_function}{GetCurrentThreadId}{guest} // 0) == 1
      && ($a->{api_calls} // 0) == 2 && ($b->{api_calls} // -1) == 0, 'api: 2 calls, counted by function and by thread');
finish();
EOF

check_json check.pl small.json

# ---- Markdown: golden ----
$HCPSIM run --report small.md small.lua >/dev/null 2>err.txt
st=$?
grep -v '^<!--.*-->$' "$golden" >golden.md
if [ "$st" = 0 ] && cmp -s golden.md small.md; then
  result 0 "the Markdown report equals scenarios/tests/report_golden.md (its comment lines removed)"
else
  result 1 "the Markdown report equals scenarios/tests/report_golden.md (its comment lines removed)" "status $st"
  diff golden.md small.md | head -20 | sed 's/^/# /'
fi

# ---- HTML: well-formed, one lane per CPU ----
$HCPSIM run --report two.html two.lua >/dev/null 2>err.txt
st=$?
result $st "the 2-CPU scenario runs with --report PATH.html" "status $st; $(cat err.txt)"
if command -v xmllint >/dev/null; then
  xmllint --noout two.html 2>xml.err
  result $? "the HTML parses as XML (xmllint)" "$(head -3 xml.err)"
  lanes=$(xmllint --xpath "count(//*[local-name()='svg'][@id='timeline-0']/*[local-name()='g'][@class='lane'])" two.html 2>/dev/null)
  result $([ "$lanes" = 2 ] && echo 0 || echo 1) "the SVG timeline has one lane per CPU (2)" "got $lanes"
  ext=$(xmllint --xpath "count(//*[local-name()='script'] | //*[@src] | //*[local-name()='link'])" two.html 2>/dev/null)
  result $([ "$ext" = 0 ] && echo 0 || echo 1) "the page is self-contained: no script, src or link elements" "got $ext"
  charts=$(xmllint --xpath "count(//*[local-name()='svg'][@class='counter-chart'])" two.html 2>/dev/null)
  result $([ "$charts" = 3 ] && echo 0 || echo 1) "one counter chart per programmed counter (3)" "got $charts"
  rates=$(xmllint --xpath "count(//*[local-name()='svg'][@class='rate-chart'])" two.html 2>/dev/null)
  result $([ "$rates" = 3 ] && echo 0 || echo 1) "beside each, a rate chart (events per µs between samples) (3)" "got $rates"
  # A chart is empty when no line in it has two points: every counter and rate chart must have one.
  empty=$(xmllint --xpath "count(//*[local-name()='svg'][@class='counter-chart' or @class='rate-chart'][not(*[local-name()='polyline'][contains(normalize-space(@points), ' ')])])" two.html 2>/dev/null)
  result $([ "$empty" = 0 ] && echo 0 || echo 1) "no chart is empty: each has a line of at least two points" "$empty empty charts"
  titled=$(xmllint --xpath "count(//*[local-name()='svg'][@class='counter-chart' or @class='rate-chart'][*[local-name()='text'][@class='axistitle'][.='virtual time']][*[local-name()='g'][@class='grid']])" two.html 2>/dev/null)
  result $([ "$titled" = 6 ] && echo 0 || echo 1) "every chart has gridlines and labelled axes (a value title and 'virtual time')" "got $titled of 6"
  legend=$(xmllint --xpath "string(//*[local-name()='div'][@class='legend'])" two.html 2>/dev/null)
  case "$legend" in *DelayExecution*exit*) case "$legend" in *WrPreempted*|*WrYieldExecution*|*WrQuantumEnd*) r=1 ;; *) r=0 ;; esac ;; *) r=1 ;; esac
  result $r "the legend lists only the switch-outs that occur (DelayExecution and exit, not WrQuantumEnd)" "$legend"
  labels=$(xmllint --xpath "string(//*[local-name()='svg'][@id='timeline-0'])" two.html 2>/dev/null)
  case "$labels" in *DelayExecution*) r=0 ;; *) r=1 ;; esac
  result $r "a small run's timeline labels its switch-outs with wait reasons (DelayExecution)"
else
  for t in "the HTML parses as XML" "one lane per CPU" "self-contained" "one chart per counter" "switch labels" \
           "rate charts" "no empty chart" "chart axes" "legend"; do
    n=$((n + 1)); echo "ok $n - $t [SIM-REPORT] # SKIP xmllint not installed (Debian libxml2-utils; make deps installs it)"
  done
fi

# ---- CSV: the tables in long form ----
$HCPSIM run --report small.csv small.lua >/dev/null 2>err.txt
st=$?
perl -e 'my %v; my $h = <STDIN>; $h =~ s/\r\n\z//; my $ok = $h eq "machine,table,row,column,value";
  while (my $l = <STDIN>) { $ok &&= $l =~ s/\r\n\z//;
    my @f; while ($l =~ /\G(?:"((?:[^"]|"")*)"|([^,]*))(,|\z)/g) { my $x = defined $1 ? $1 : $2; $x =~ s/""/"/g; push @f, $x; last if $3 eq "" }
    $v{"$f[0]/$f[1]/$f[2]/$f[3]"} = $f[4]; }
  my $i = $v{"0/threads/1000/events_instructions"}; my $c = $v{"0/threads/1000/events_cycles"};
  my $ipc = sprintf("%d.%03d", int($i / $c), int($i * 1000 / $c) % 1000);
  my $call = $v{"0/api_calls/1/call"} // "";
  exit($ok && $i == 4011 && $v{"0/threads/1000/ipc"} eq $ipc && $v{"0/threads/1000/instructions"} == 4011
       && $v{"/run//scenario"} eq "small.lua" && $call eq "GetCurrentThreadId() \xe2\x86\x92 1,000"
       && $v{"0/schedule/1/tid"} == 1004 ? 0 : 1)' <small.csv
r=$?
[ "$st" = 0 ] && [ "$r" = 0 ]
result $? "--report PATH.csv: one header, CRLF lines, quoted fields; IPC recomputed from its events; the decoded call" "status $st"

# ---- API calls decoded (reports/SCHEMA.md "API calls in Markdown and HTML") ----
# p enables profiling of PMC0 and PMC1 (mask 0x3), spins 4 + 2 x 200000 = 400004 instructions =
# cycles ("unit"), which is more than the quantum (1 tick = 1000 x 100 ns at 3 GHz = 300000 cycles)
# while q is ready: it is switched out once with WrQuantumEnd (KWAIT_REASON 30, bit 0x40000000) and
# in again once (ContextSwitchCount 1); then waits 0 ms on its own, running, thread: WAIT_TIMEOUT.
cat > dec.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { cost = "unit", tick = 1000, quantum = 1, pmc = { "instructions", "cycles" } }
m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 }, { Type = hcp.PMCCounter, Index = 1 } }
local k = m:load "kernels"
m:thread { name = "p", body = function(t)
  local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), hcp.THREAD_PROFILING_FLAG_DISPATCH, 0x3)
  t:run(k.spin, 200000)
  t:ReadThreadProfilingData(ph, hcp.READ_THREAD_PROFILING_FLAG_DISPATCHING | hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)
  t:WaitForSingleObject(t:GetCurrentThread(), 0)
  t:DisableThreadProfiling(ph)
end }
m:thread { name = "q", body = function(t) t:run(k.spin, 200000) end }
m:run()
EOF
$HCPSIM run --report dec.md dec.lua >/dev/null 2>err.txt
st=$?
ok=0
for want in \
  'EnableThreadProfiling(ThreadHandle=0xFFFFFFFFFFFFFFFE, Flags=THREAD\_PROFILING\_FLAG\_DISPATCH, HardwareCounters=0x3) → ERROR\_SUCCESS, PerformanceDataHandle=0x' \
  'Flags=READ\_THREAD\_PROFILING\_FLAG\_DISPATCHING \| READ\_THREAD\_PROFILING\_FLAG\_HARDWARE\_COUNTERS) → ERROR\_SUCCESS, PerformanceData={Size=288, Version=1, WaitReasonBitMap=0x40000000 (WrQuantumEnd), ContextSwitchCount=1, CycleTime=400,004, RetryCount=0, HwCountersCount=2, HwCounters=[400,004, 400,004]} |' \
  '| WaitForSingleObject(hHandle=0xFFFFFFFFFFFFFFFE, dwMilliseconds=0 ms) → WAIT\_TIMEOUT |' \
  '| KeSetHardwareCounterConfiguration(CounterArray=[{"Index":0,"Type":0},{"Index":1,"Type":0}]) → STATUS\_SUCCESS |'; do
  grep -qF -- "$want" dec.md || { ok=1; echo "# missing: $want"; }
done
[ "$st" = 0 ] && [ "$ok" = 0 ]
result $? "API calls decoded: parameter names, handles in hex, flags by name, results by name, WaitReasonBitMap as wait-reason names" "status $st"
$HCPSIM run --report dec.html dec.lua >/dev/null 2>&1
grep -qF 'WaitReasonBitMap=0x40000000 (WrQuantumEnd)' dec.html && grep -qF 'title="arguments [-2,1,3], results [0,' dec.html
result $? "the HTML shows the decoded call, the raw arguments and results in its hover title"

# ---- a long run: truncated lists, aggregated timeline ----
# 2 threads of spin(8000000) on one CPU with a 300-cycle quantum (tick 1 x 100 ns, interrupts
# free): 2 x 16000004 cycles / 300 = about 106667 intervals, over the 100000 limit.
cat > long.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { cost = "unit", tick = 1, quantum = 1, interrupt_cycles = 0, pmc = { "instructions" } }
local k = m:load "kernels"
for i = 1, 2 do m:thread { name = "s" .. i, body = function(t) t:run(k.spin, 8000000) end } end
m:run()
EOF
$HCPSIM run --report long.json long.lua >/dev/null 2>err.txt && $HCPSIM run --report long.html long.lua >/dev/null 2>>err.txt
st=$?
result $st "a run of about 10^5 switches writes JSON and HTML reports" "$(cat err.txt)"
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(scalar <STDIN>); my $m = $d->{machines}[0];
  my $s = $m->{schedule}; my $kept = 0; $kept += @{$_->{intervals}} for @{$s->{lanes}};
  my $ti = 0; $ti += $_->{intervals} for @{$m->{threads}};
  print "total $s->{total} kept $s->{kept} listed $kept thread intervals $ti cpu intervals $m->{cpus}[0]{intervals}\n";
  exit($s->{total} > 100000 && $s->{kept} == 100000 && $kept == 100000 && $s->{truncated}
       && $ti == $s->{total} && $m->{cpus}[0]{intervals} == $s->{total} ? 0 : 1)' <long.json >long.txt 2>&1
result $? "past 100000 intervals the list is truncated and says so; the totals count every interval" "$(cat long.txt)"
# Aggregated: at most 500 columns per lane, so at most 500 switch marks and 500 x (4 + 1) bars.
marks=$(grep -o 'class="switch"' long.html | wc -l)
rects=$(grep -o '<rect ' long.html | wc -l)
grep -q 'aggregated into columns' long.html && [ "$marks" -le 500 ] && [ "$marks" -gt 0 ] && [ "$rects" -le 3000 ]
result $? "the long run's timeline is aggregated: at most 500 columns per lane, not one mark per switch" "$marks marks, $rects rects"
size=$(wc -c <long.html)
[ "$size" -lt 2000000 ]
result $? "the long run's HTML page stays small (under 2 MB)" "$size bytes"

# ---- determinism ----
for f in json md html csv; do
  $HCPSIM run --report r1.$f two.lua >/dev/null 2>&1
  $HCPSIM run --report r2.$f two.lua >/dev/null 2>&1
  cmp -s r1.$f r2.$f && [ -s r1.$f ]
  result $? "two runs write byte-identical .$f reports"
done

# ---- errors ----
$HCPSIM run --report report.txt small.lua >stdout.txt 2>err.txt
st=$?
got=$(cat err.txt)
[ "$st" = 2 ] && [ ! -e report.txt ] && [ ! -e report.txt.tmp ] && [ ! -s stdout.txt ] &&
  [ "$got" = "hcpsim: --report report.txt: unknown report format (the extension must be one of .json, .md, .html, .csv)" ]
result $? "an unknown extension: status 2, a message naming the valid extensions, nothing run or written" "status $st; stderr: $got"
$HCPSIM run small.lua --report >/dev/null 2>err.txt
st=$?
[ "$st" = 2 ] && grep -q 'needs a file path ending in .json, .md, .html, .csv' err.txt
result $? "--report with no path after it is a usage error (status 2)" "status $st; $(cat err.txt)"
$HCPSIM run --report /nonexistent/dir/r.json small.lua >out.txt 2>err.txt
st=$?
got=$(cat err.txt)
[ "$st" = 2 ] && [ "$got" = "hcpsim: --report /nonexistent/dir/r.json: No such file or directory" ] && [ ! -s out.txt ]
result $? "an unwritable path: status 2 and a message naming the path, before the scenario runs" "status $st; stderr: $got"

# A scenario that fails after its machine ran still writes its report, marked partial.
cat > limit.lua <<'EOF'
local hcp = require "hcpsim"
local m = hcp.machine { max_cycles = 1000000 }
local k = m:load "kernels"
m:thread { name = "runaway", body = function(t) t:run(k.spin, 100000000) end }
m:run()
EOF
$HCPSIM run --report l.json limit.lua >/dev/null 2>err.txt
st=$?
perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(scalar <STDIN>); my $r = $d->{run};
  my $iv = $d->{machines}[0]{schedule}{lanes}[0]{intervals}[-1];
  my $why = "limit.lua:4: limit reached: 1000000 cycles on CPU 0 (machine option max_cycles or m:run{max_cycles = N}; default 20000000000)";
  exit($r->{status} eq "limit" && $r->{limit} eq "max_cycles" && !defined $r->{exit_code}
       && $r->{exit_status} == 2 && $r->{error} eq $why && $r->{partial} eq $why
       && $iv->{next_state} eq "Running" && $d->{machines}[0]{threads}[0]{state} ne "Terminated" ? 0 : 1)' <l.json 2>/dev/null
ok=$?
[ "$st" = 2 ] && [ "$ok" = 0 ] && [ ! -e l.json.tmp ]
result $? "a run that fails at the cycle limit exits 2 and still writes its report: status limit, max_cycles, partial (naming the limit), the error, the open interval" "status $st, check $ok"
$HCPSIM run --report l.md limit.lua >/dev/null 2>&1
grep -q '^| status | limit max_cycles (exit status 2) |$' l.md
result $? "the partial Markdown report says so in its title table"

echo "1..$n"
[ "$fail" = 0 ]
