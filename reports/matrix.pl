#!/usr/bin/perl
# reports/matrix.pl — the conformance matrix: one row per clause of the catalogue
# (conformance/clauses.tsv), one column per implementation, each cell the
# verdict of that implementation's tests tagged with the clause.
#
#   perl reports/matrix.pl [--md FILE] [--html FILE] [--junit DIR] CATALOGUE COLUMN=[?]FILE...
#
# COLUMN=FILE adds the TAP stream FILE to column COLUMN; a column may be given
# several files (one per suite file), `COLUMN=` (no file) makes a column with
# no tests, and `COLUMN=?FILE` adds FILE only if it exists (else the inputs
# list it as absent).  Columns appear in the order they are first named.  A cell is
# fail if any of the clause's tests failed (not ok without TODO), else todo if
# any was a TODO test, else pass if any passed, else skip; blank when the column
# has no test tagged with the clause.  A test names its clauses at the end of its
# description, before any directive: `ok 3 - text [ID]` or `[ID1,ID2]`.
# reports/README.md "Conformance matrix" describes the output.
#
# Bad input (the catalogue, a TAP line that is not TAP, an unknown clause id)
# prints `FILE:LINE: message` for every problem on stderr and exits 2; nothing
# is written.  An incomplete stream (no plan, fewer or more tests than planned,
# Bail out!) is not an error: the report lists it under "Incomplete streams".
use strict;
use warnings;
use utf8;
use FindBin;
use lib "$FindBin::Bin/../conformance";
use Clauses;    # the catalogue reader

# TAP::Formatter::JUnit writes XML attributes in hash order: --junit re-runs
# the script with a fixed hash seed so the files are the same on every run.
if (grep({ /^--junit/ } @ARGV) && ($ENV{PERL_HASH_SEED} // '') ne '0') {
    $ENV{PERL_HASH_SEED} = '0';
    $ENV{PERL_PERTURB_KEYS} = '0';
    exec($^X, $0, @ARGV) or die "matrix.pl: cannot re-run $0: $!\n";
}

my $ID_RE = $Clauses::ID_RE;
my @VERDICTS = qw(pass fail todo skip);

my @errors;
sub problem { push @errors, join('', @_) }

sub usage {
    print STDERR "usage: perl reports/matrix.pl [--md FILE] [--html FILE] [--junit DIR] CATALOGUE COLUMN=[?]FILE...\n";
    exit 2;
}

# ---- arguments ---------------------------------------------------------------------------
my (%out, @rest);
while (@ARGV) {
    my $a = shift @ARGV;
    if ($a =~ /^--(md|html|junit)$/) {
        usage() unless @ARGV;
        $out{$1} = shift @ARGV;
    } elsif ($a =~ /^--(md|html|junit)=(.+)$/) {
        $out{$1} = $2;
    } elsif ($a =~ /^-/ && $a ne '-') {
        print STDERR "matrix.pl: unknown option $a\n";
        usage();
    } else {
        push @rest, $a;
    }
}
usage() unless @rest >= 1;
my $catalogue = shift @rest;
my (@columns, %streams, %absent);
for my $arg (@rest) {
    my ($col, $file) = $arg =~ /^([^=]+)=(.*)$/s or do {
        print STDERR "matrix.pl: $arg: expected COLUMN=FILE\n";
        exit 2;
    };
    push @columns, $col unless exists $streams{$col};
    $streams{$col} ||= [];
    if ($file =~ s/^\?//) {    # optional: an absent file leaves the column without it
        if (!-e $file) { push @{ $absent{$col} }, $file; next }
    }
    push @{ $streams{$col} }, $file if length $file;
}
usage() unless @columns;

# ---- the catalogue (conformance/Clauses.pm reads and checks it) ---------------------------
my $cat = Clauses::read_catalogue($catalogue);
my @clauses = @{ $cat->{clauses} };
my %clause = %{ $cat->{by_id} };
problem($_->{message}) for @{ $cat->{errors} };
sub read_lines {
    my ($file) = @_;
    my @e;
    my @lines = Clauses::read_lines($file, \@e);
    problem($_->{message}) for @e;
    return @lines;
}

# ---- TAP streams -------------------------------------------------------------------------
# results{column}{id} = [ { verdict, reason, where, desc } ... ]
my (%results, %stats, @incomplete);

# The description's clause tag: the last ` [ID,...]` group whose every element
# looks like a clause id (normally the description's end; the project's TAP
# library appends text after it for a test that passed inside a todo).
sub clause_tag {
    my ($desc) = @_;
    my @ids;
    while ($desc =~ /(?:^|\s)\[([^\[\]]*)\]/g) {
        my @e = split /\s*,\s*/, $1, -1;
        next unless @e && !grep { !/^$ID_RE$/ } @e;
        @ids = @e;
    }
    return @ids;
}

# Splits a test line's text after the number at its first unescaped '#'.
sub split_directive {
    my ($s) = @_;
    my ($pos, $esc) = (-1, 0);
    for my $i (0 .. length($s) - 1) {
        my $ch = substr($s, $i, 1);
        if ($esc) { $esc = 0; next }
        if ($ch eq '\\') { $esc = 1; next }
        if ($ch eq '#') { $pos = $i; last }
    }
    return ($s, undef, '') if $pos < 0;
    my ($desc, $rest) = (substr($s, 0, $pos), substr($s, $pos + 1));
    $desc =~ s/\s+$//;
    return ($desc, uc $1, $2) if $rest =~ /^\s*(TODO|SKIP)\S*(?:\s+(.*?))?\s*$/i and defined $2;
    return ($desc, uc $1, '') if $rest =~ /^\s*(TODO|SKIP)\S*\s*$/i;
    return ($desc, undef, '');    # a plain comment
}

sub read_stream {
    my ($col, $file) = @_;
    my @lines = read_lines($file);
    my ($plan, $plan_line, $count, $bailed, $last_test_line) = (undef, 0, 0, undef, 0);
    my $st = $stats{$col};
    $st->{streams}++;
    my @junit;
    for my $i (0 .. $#lines) {
        my ($line, $n) = ($lines[$i], $i + 1);
        my $where = "$file:$n";
        if ($line =~ /^TAP version (\d+)\s*$/) {
            problem("$where: TAP version line must be the first line") if $i != 0;
            next;
        }
        if ($line =~ /^1\.\.(\d+)\s*(?:#.*)?$/) {
            if (defined $plan) { problem("$where: second plan (first on line $plan_line)"); next }
            if ($count > 0 && $i < $#lines && grep { /^(?:not )?ok\b/ } @lines[$i + 1 .. $#lines]) {
                problem("$where: plan in the middle of the tests");
            }
            ($plan, $plan_line) = ($1, $n);
            next;
        }
        if ($line =~ /^(not )?ok\b(.*)$/) {
            my ($notok, $rest) = ($1, $2);
            if ($rest ne '' && $rest !~ /^\s/) { problem("$where: not a TAP line: \"$line\""); next }
            $count++;
            if ($rest =~ s/^\s+(\d+)\b//) {
                if ($1 != $count) {
                    problem("$where: test number $1 out of sequence (expected $count)");
                    $count = $1;
                }
            }
            $rest =~ s/^\s*-?\s*//;
            my ($desc, $dir, $reason) = split_directive($rest);
            my $verdict;
            if (defined $dir && $dir eq 'TODO') {
                $verdict = 'todo';
                $reason = $notok ? $reason : "passed inside todo: $reason; remove the todo";
            } elsif (defined $dir && $dir eq 'SKIP') {
                $verdict = $notok ? 'fail' : 'skip';
                $reason = "not ok with SKIP: $reason" if $notok;
            } else {
                $verdict = $notok ? 'fail' : 'pass';
                $reason = '';
            }
            $st->{tests}++;
            $st->{"t_$verdict"}++;
            my @ids = clause_tag($desc);
            if (!@ids) { $st->{untagged}++; next }
            my %once;
            for my $id (grep { !$once{$_}++ } @ids) {
                if (!$clause{$id}) { problem("$where: unknown clause $id (not in $catalogue)"); next }
                push @{ $results{$col}{$id} }, { verdict => $verdict, reason => $reason, where => $where,
                                                 desc => $desc };
            }
            next;
        }
        if ($line =~ /^Bail out!\s*(.*)$/) { $bailed = $1; last }
        next if $line =~ /^#/ || $line =~ /^\s/ || $line eq '' || $line =~ /^pragma [+-]/;
        problem("$where: not a TAP line: \"$line\"");
    }
    my $what;
    if (defined $bailed) {
        $what = "Bail out!" . (length $bailed ? " $bailed" : '') . " after $count tests";
    } elsif (!defined $plan) {
        $what = "no plan ($count tests)";
    } elsif ($plan != $count) {
        $what = "planned $plan tests, ran $count";
    }
    if ($what) {
        push @incomplete, { col => $col, file => $file, what => $what };
        $st->{incomplete}++;
    }
}

for my $col (@columns) {
    $stats{$col} = { streams => 0, tests => 0, untagged => 0, incomplete => 0 };
    read_stream($col, $_) for @{ $streams{$col} };
}

if (@errors) {
    print STDERR "$_\n" for @errors;
    exit 2;
}

# ---- verdicts ----------------------------------------------------------------------------
my %rank = (fail => 0, todo => 1, pass => 2, skip => 3);
my (%cell, @notes);
for my $c (@clauses) {
    for my $col (@columns) {
        my $rs = $results{$col}{ $c->{id} } or next;
        my ($verdict) = sort { $rank{$a} <=> $rank{$b} } map { $_->{verdict} } @$rs;
        my @why = grep { $_->{verdict} eq $verdict } @$rs;
        my $cell = { verdict => $verdict, tests => scalar @$rs };
        if ($verdict ne 'pass') {
            my (%seen, @text);
            for my $r (@why) {
                my $t = $verdict eq 'fail' ? "$r->{where}: $r->{desc}" . (length $r->{reason} ? " ($r->{reason})" : '')
                                           : (length $r->{reason} ? $r->{reason} : '(no reason given)');
                push @text, $t unless $seen{$t}++;
            }
            my $max = 5;
            if (@text > $max) {
                my $more = @text - $max;
                splice @text, $max;
                push @text, "... and $more more";
            }
            push @notes, { n => scalar(@notes) + 1, col => $col, id => $c->{id}, verdict => $verdict, text => \@text };
            $cell->{note} = $notes[-1];
        }
        $cell{$col}{ $c->{id} } = $cell;
        $stats{$col}{"c_$verdict"}++;
    }
}
for my $col (@columns) {
    my $with = grep { $cell{$col}{ $_->{id} } } @clauses;
    $stats{$col}{blank} = @clauses - $with;
}

# ---- native coverage per family ----------------------------------------------------------
# The catalogue's native column: `yes` when the native program (conformance/native/hcpcheck.c)
# checks the clause, else why a user-mode program cannot.  Per family (the id's first word):
# clauses, those with a native check, and per column how many of those pass.
my (@families, %fam);
for my $c (@clauses) {
    my ($f) = $c->{id} =~ /^([A-Z0-9]+)-/;
    push @families, $f unless $fam{$f};
    my $s = $fam{$f} ||= { clauses => 0, native => 0, pass => {} };
    $s->{clauses}++;
    next unless $c->{native} eq 'yes';
    $s->{native}++;
    for my $col (@columns) {
        my $x = $cell{$col}{ $c->{id} };
        $s->{pass}{$col}++ if $x && $x->{verdict} eq 'pass';
    }
}
sub native_rows {    # [family, clauses, native, pass per column...], the totals last
    my @rows;
    my @tot = ('all', 0, 0, map { 0 } @columns);
    for my $f (@families) {
        my $s = $fam{$f};
        my @r = ($f, $s->{clauses}, $s->{native}, map { $s->{pass}{$_} // 0 } @columns);
        $tot[$_] += $r[$_] for 1 .. $#r;
        push @rows, \@r;
    }
    return (@rows, \@tot);
}

# ---- output ------------------------------------------------------------------------------
sub write_file {
    my ($path, $text) = @_;
    open my $fh, '>:raw', "$path.tmp" or die "matrix.pl: $path.tmp: $!\n";
    my $bytes = $text;
    utf8::encode($bytes);
    print $fh $bytes or die "matrix.pl: $path.tmp: $!\n";
    close $fh or die "matrix.pl: $path.tmp: $!\n";
    rename "$path.tmp", $path or die "matrix.pl: $path: $!\n";
}

sub inputs_text {
    my @s;
    for my $col (@columns) {
        my @f = @{ $streams{$col} };
        push @f, map { "$_ (absent)" } @{ $absent{$col} || [] };
        push @s, [$col, @f ? join(', ', @f) : '(no TAP stream)'];
    }
    return @s;
}

my @SUMMARY = (['clauses passing', 'c_pass'], ['clauses failing', 'c_fail'], ['clauses todo', 'c_todo'],
               ['clauses skipped', 'c_skip'], ['clauses without a test', 'blank'], ['tests', 'tests'],
               ['tests without a clause', 'untagged'], ['TAP streams', 'streams'],
               ['incomplete streams', 'incomplete']);

sub md_esc {
    my ($s) = @_;
    $s =~ s/\\/\\\\/g;
    $s =~ s/&/&amp;/g;
    $s =~ s/</&lt;/g;
    $s =~ s/>/&gt;/g;
    $s =~ s/\|/\\|/g;
    $s =~ s/([*_`\[\]])/\\$1/g;
    return $s;
}

sub md {
    my @o;
    push @o, "# Conformance matrix", '',
        "Generated by `make conformance-report` (`reports/matrix.pl`) from `" . md_esc($catalogue)
          . "` and the TAP streams below; do not edit by hand. A cell is the verdict of that implementation's "
          . "tests tagged with the clause: **fail** if any failed, else **todo** if any is a TODO test, else "
          . "**pass** if any passed, else **skip**; empty when it has no such test. [n] refers to the notes "
          . "at the end.", '';
    push @o, '## Summary', '';
    push @o, '| | ' . join(' | ', map { md_esc($_) } @columns) . ' |';
    push @o, '|---|' . join('', map { '---:|' } @columns);
    for my $row (@SUMMARY) {
        push @o, "| $row->[0] | " . join(' | ', map { $stats{$_}{ $row->[1] } // 0 } @columns) . ' |';
    }
    push @o, '', 'Catalogue: ' . scalar(@clauses) . ' clauses.', '';
    push @o, '## Native coverage', '',
        'Per family: the clauses, those the native program checks (the catalogue\'s `native` column is `yes`; '
          . 'otherwise it gives why a user-mode program cannot), and per column how many of those pass.', '';
    push @o, '| family | clauses | native check | ' . join(' | ', map { md_esc($_) . ' pass' } @columns) . ' |';
    push @o, '|---|---:|---:|' . join('', map { '---:|' } @columns);
    push @o, '| ' . join(' | ', map { md_esc($_) } @$_) . ' |' for native_rows();
    push @o, '';
    push @o, '## Inputs', '';
    push @o, '| column | TAP streams |', '|---|---|';
    push @o, '| ' . md_esc($_->[0]) . ' | ' . md_esc($_->[1]) . ' |' for inputs_text();
    if (@incomplete) {
        push @o, '', '## Incomplete streams', '';
        push @o, '- ' . md_esc("$_->{col}: $_->{file}: $_->{what}") for @incomplete;
    }
    push @o, '', '## Clauses', '';
    push @o, '| id | statement | source | evidence | semantics | native | ' . join(' | ', map { md_esc($_) } @columns) . ' |';
    push @o, '|---|---|---|---|---|---|' . join('', map { '---|' } @columns);
    for my $c (@clauses) {
        my @cells = map {
            my $x = $cell{$_}{ $c->{id} };
            !$x ? '' : $x->{note} ? "$x->{verdict} [$x->{note}{n}]" : $x->{verdict};
        } @columns;
        push @o, '| ' . join(' | ', map { md_esc($_) } $c->{id}, $c->{statement}, $c->{source}, $c->{evidence},
                             $c->{semantics}, $c->{native}) . ' | ' . join(' | ', @cells) . ' |';
    }
    if (@notes) {
        push @o, '', '## Notes', '';
        for my $nt (@notes) {
            push @o, "$nt->{n}. " . md_esc("$nt->{col}, $nt->{id}, $nt->{verdict}: " . join('; ', @{ $nt->{text} }));
        }
    }
    return join("\n", @o) . "\n";
}

sub h {
    my ($s) = @_;
    $s =~ s/&/&amp;/g;
    $s =~ s/</&lt;/g;
    $s =~ s/>/&gt;/g;
    $s =~ s/"/&quot;/g;
    $s =~ s/'/&#39;/g;
    return $s;
}

sub html {
    my @o;
    push @o, '<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8"/>',
        '<title>hcpsim conformance matrix</title>', '<style>',
        'body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}',
        'table{border-collapse:collapse;margin:0.5em 0 1.5em}',
        'th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}',
        'th{background:#f0f0f0}', 'td.num{text-align:right}', 'code{font-size:13px}',
        'td.pass{background:#d7f5d7}', 'td.fail{background:#f8caca;font-weight:bold}',
        'td.todo{background:#fbefc4}', 'td.skip{background:#e4e4e4}',
        'td.v a{color:inherit}', 'ol.notes li{margin:0.2em 0}', '</style>', '</head>', '<body>',
        '<h1>Conformance matrix</h1>',
        '<p>Generated by <code>make conformance-report</code> (<code>reports/matrix.pl</code>) from <code>'
          . h($catalogue) . '</code> and the TAP streams below; do not edit by hand. A cell is the verdict of '
          . 'that implementation&#39;s tests tagged with the clause: <b>fail</b> if any failed, else <b>todo</b> '
          . 'if any is a TODO test, else <b>pass</b> if any passed, else <b>skip</b>; empty when it has no such '
          . 'test. Hover a cell for its reason; [n] refers to the notes at the end.</p>';
    push @o, '<h2>Summary</h2>', '<table>', '<tr><th></th>' . join('', map { '<th>' . h($_) . '</th>' } @columns) . '</tr>';
    for my $row (@SUMMARY) {
        push @o, '<tr><th>' . h($row->[0]) . '</th>'
          . join('', map { '<td class="num">' . ($stats{$_}{ $row->[1] } // 0) . '</td>' } @columns) . '</tr>';
    }
    push @o, '</table>', '<p>Catalogue: ' . scalar(@clauses) . ' clauses.</p>';
    push @o, '<h2>Native coverage</h2>',
        '<p>Per family: the clauses, those the native program checks (the catalogue&#39;s <code>native</code> '
          . 'column is <code>yes</code>; otherwise it gives why a user-mode program cannot), and per column how '
          . 'many of those pass.</p>', '<table>',
        '<tr><th>family</th><th>clauses</th><th>native check</th>'
          . join('', map { '<th>' . h($_) . ' pass</th>' } @columns) . '</tr>';
    for my $r (native_rows()) {
        push @o, '<tr><th>' . h($r->[0]) . '</th>' . join('', map { '<td class="num">' . h($_) . '</td>' } @$r[1 .. $#$r])
          . '</tr>';
    }
    push @o, '</table>';
    push @o, '<h2>Inputs</h2>', '<table>', '<tr><th>column</th><th>TAP streams</th></tr>';
    push @o, '<tr><td>' . h($_->[0]) . '</td><td>' . h($_->[1]) . '</td></tr>' for inputs_text();
    push @o, '</table>';
    if (@incomplete) {
        push @o, '<h2>Incomplete streams</h2>', '<ul>';
        push @o, '<li>' . h("$_->{col}: $_->{file}: $_->{what}") . '</li>' for @incomplete;
        push @o, '</ul>';
    }
    push @o, '<h2>Clauses</h2>', '<table>',
        '<tr><th>id</th><th>statement</th><th>source</th><th>evidence</th><th>semantics</th><th>native</th>'
          . join('', map { '<th>' . h($_) . '</th>' } @columns) . '</tr>';
    for my $c (@clauses) {
        my $row = '<tr id="' . h($c->{id}) . '"><td><code>' . h($c->{id}) . '</code></td><td>' . h($c->{statement})
          . '</td><td>' . h($c->{source}) . '</td><td>' . h($c->{evidence}) . '</td><td>' . h($c->{semantics})
          . '</td><td>' . h($c->{native}) . '</td>';
        for my $col (@columns) {
            my $x = $cell{$col}{ $c->{id} };
            if (!$x) { $row .= '<td></td>'; next }
            my $tests = "$x->{tests} test" . ($x->{tests} == 1 ? '' : 's');
            if ($x->{note}) {
                my $n = $x->{note}{n};
                $row .= qq(<td class="v $x->{verdict}" title=") . h("$tests; " . join('; ', @{ $x->{note}{text} }))
                  . qq(">$x->{verdict} <a href="#note-$n">[$n]</a></td>);
            } else {
                $row .= qq(<td class="v $x->{verdict}" title="$tests">$x->{verdict}</td>);
            }
        }
        push @o, "$row</tr>";
    }
    push @o, '</table>';
    if (@notes) {
        push @o, '<h2>Notes</h2>', '<ol class="notes">';
        push @o, qq(<li id="note-$_->{n}">) . h("$_->{col}, $_->{id}, $_->{verdict}: ")
          . join('; ', map { h($_) } @{ $_->{text} }) . '</li>' for @notes;
        push @o, '</ol>';
    }
    push @o, '</body>', '</html>';
    return join("\n", @o) . "\n";
}

sub junit {
    my ($dir) = @_;
    eval { require TAP::Parser; require TAP::Parser::Aggregator; require TAP::Formatter::JUnit; 1 } or do {
        print STDERR "matrix.pl: --junit needs TAP::Formatter::JUnit (Debian: libtap-formatter-junit-perl)\n";
        exit 2;
    };
    -d $dir or mkdir $dir or die "matrix.pl: $dir: $!\n";
    for my $col (@columns) {
        (my $slug = lc $col) =~ s/[^a-z0-9.]+/-/g;
        $slug =~ s/^-+|-+$//g;
        my $xml = '';
        open my $fh, '>', \$xml or die;
        my $formatter = TAP::Formatter::JUnit->new({ stdout => $fh });
        my $agg = TAP::Parser::Aggregator->new;
        $agg->start;
        for my $file (@{ $streams{$col} }) {
            open my $in, '<:raw', $file or die "matrix.pl: $file: $!\n";
            my $tap = do { local $/; <$in> };
            close $in;
            utf8::decode($tap);
            my $parser = TAP::Parser->new({ tap => $tap });
            (my $name = "$col/$file") =~ s{.*/}{$col/};
            $name =~ s/\.tap$//;
            my $session = $formatter->open_test($name, $parser);
            while (my $r = $parser->next) { $session->result($r) }
            $session->close_test;
            $agg->add($file, $parser);
        }
        $agg->stop;
        $formatter->summary($agg);
        close $fh;
        utf8::decode($xml);    # write_file encodes again
        write_file("$dir/$slug.xml", $xml);
    }
}

write_file($out{md}, md()) if $out{md};
write_file($out{html}, html()) if $out{html};
junit($out{junit}) if $out{junit};
binmode STDOUT, ':encoding(UTF-8)';
print md() unless $out{md} || $out{html} || $out{junit};
exit 0;
