# scenarios/tests/lib/CheckJson.pm — the start and end of the perl checkers that trace.sh and
# report.sh write (tap.sh's check_json runs them): check() records "ok NAME" or
# "not ok NAME: DETAIL", load_json() reads and decodes a file (the first check: it parses as a
# JSON object), finish() prints what was recorded, one line per check.
package CheckJson;
use strict;
use warnings;
use JSON::PP;
use Exporter 'import';
our @EXPORT = qw(check load_json finish);

my @out;

sub check {
  my ($ok, $name, $detail) = @_;
  ($detail //= '') =~ s/\s+/ /g;
  push @out, $ok ? "ok $name" : "not ok $name: $detail";
}

# Returns the decoded object ({} when the file is not one) and the file's text.
sub load_json {
  my ($file) = @_;
  open my $fh, '<', $file or die "$file: $!";
  my $text = do { local $/; <$fh> };
  my $d = eval { JSON::PP->new->decode($text) };
  check(defined $d && ref $d eq 'HASH', 'the file parses as a JSON object', $@);
  return (ref $d eq 'HASH' ? $d : {}, $text);
}

sub finish { print "$_\n" for @out; }

1;
