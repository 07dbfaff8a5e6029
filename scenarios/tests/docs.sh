#!/bin/sh
# The documentation runs: every code block of scenarios/TUTORIAL.md and
# scenarios/API.md is executed and the output the text shows is compared,
# so the docs cannot drift from the program.  Block rules (the same in both
# files):
#   ```lua     a complete scenario, run with `hcpsim run FILE` in a scratch
#              directory; FILE is the name in a `<!-- file: NAME -->` line just
#              above the fence, else docs-N.lua; the
#              status must be 0, or N from a `<!-- status: N -->` line there
#   ```sh      run with sh -e in the same directory, `hcpsim` on PATH; status 0
#   ```c       a source file (a Windows program a later sh block builds): written to the
#              file a `<!-- file: NAME -->` line above it names, not run
#   ```output  the exact stdout of the block before it
#   ```text    not run (syntax summaries, tables of output)
# Other fences are an error, so a new block cannot escape the check.  The
# scratch directory is shared by a file's blocks, in order, so a tutorial can
# write files in one step and run them in the next.  HCPSIM_CLAUSES is unset
# for the blocks: a scenario finds its catalogue as a user's would.
# Then: API.md names every member, option, method, field and constant the
# sources export, and every one it names exists; and no document, README,
# source comment or catalogue row points outside the repository (the team's
# notes are not part of a clone).
CLAUSE=SIM-DOCS-EXAMPLES
. scenarios/tests/lib/tap.sh
bin=$dir/bin
mkdir -p "$bin"
{
  echo '#!/bin/sh'
  echo "exec $HCPSIM \"\$@\""
} >"$bin/hcpsim"
chmod +x "$bin/hcpsim"

# extract FILE.md OUTDIR: one file per block (NNN.lua / NNN.sh / NNN.out) and a
# manifest "NNN KIND STATUS NAME" per block, in order.
extract() {
  perl -e '
    my ($md, $out) = @ARGV;
    open my $in, "<", $md or die "cannot open $md: $!\n";
    open my $man, ">", "$out/manifest" or die;
    my ($kind, $body, $n, $name, $status, $start) = (undef, "", 0, undef, 0, 0);
    my ($pname, $pstatus) = (undef, 0);
    while (my $l = <$in>) {
      if (!defined $kind) {
        if ($l =~ /^<!-- file: (\S+) -->$/) { $pname = $1; next }
        if ($l =~ /^<!-- status: (\d+) -->$/) { $pstatus = $1; next }
        if ($l =~ /^```(\S*)\s*$/) {
          $kind = $1; $start = $.;
          die "$md:$.: a code block needs a kind (lua, sh, c, output or text)\n" if $kind eq "";
          die "$md:$.: unknown code block kind \x27$kind\x27 (lua, sh, c, output, text)\n"
            unless $kind =~ /^(lua|sh|c|output|text)$/;
          die "$md:$.: a c block needs a <!-- file: NAME --> line above it\n" if $kind eq "c" && !defined $pname;
          $body = ""; ($name, $status) = ($pname, $pstatus); ($pname, $pstatus) = (undef, 0);
          next;
        }
        ($pname, $pstatus) = (undef, 0) if $l =~ /\S/;
        next;
      }
      if ($l =~ /^```\s*$/) {
        $n++;
        my $id = sprintf "%03d", $n;
        my $ext = { lua => "lua", sh => "sh", c => "c", output => "out", text => "txt" }->{$kind};
        open my $f, ">", "$out/$id.$ext" or die; print $f $body; close $f;
        printf $man "%s %s %d %s %d\n", $id, $kind, $status, $name // "-", $start;
        undef $kind;
        next;
      }
      $body .= $l;
    }
    die "$md: a code block opened at line $start is not closed\n" if defined $kind;
  ' "$1" "$2"
}

for doc in scenarios/TUTORIAL.md scenarios/API.md; do
  blocks=$dir/blocks-$(basename "$doc" .md)
  work=$dir/work-$(basename "$doc" .md)
  mkdir -p "$blocks" "$work"
  extract "$top/$doc" "$blocks" 2>"$dir/extract.err"
  result $? "$doc: its code blocks are well formed" "$(cat "$dir/extract.err")"
  [ -f "$blocks/manifest" ] || : >"$blocks/manifest"
  nlua=$(grep -c ' lua ' "$blocks/manifest")
  [ "$nlua" -gt 0 ]
  result $? "$doc has Lua examples ($nlua)"
  prev=
  prevkind=
  while read -r id kind status name line; do
    case $kind in
      lua)
        file=$name
        [ "$file" = - ] && file=docs-$id.lua
        mkdir -p "$work/$(dirname "$file")"
        cp "$blocks/$id.lua" "$work/$file"
        (cd "$work" && env -u HCPSIM_CLAUSES PATH="$bin:$PATH" $HCPSIM run "$file") \
          >"$blocks/$id.stdout" 2>"$blocks/$id.stderr"
        st=$?
        [ "$st" = "$status" ]
        result $? "$doc:$line: the Lua block ($file) runs with status $status" \
          "status $st: $(head -c 600 "$blocks/$id.stderr")"
        ;;
      c)
        mkdir -p "$work/$(dirname "$name")"
        cp "$blocks/$id.c" "$work/$name"
        ;;
      sh)
        (cd "$work" && env -u HCPSIM_CLAUSES PATH="$bin:$PATH" sh -e "$blocks/$id.sh") \
          >"$blocks/$id.stdout" 2>"$blocks/$id.stderr"
        st=$?
        [ "$st" = "$status" ]
        result $? "$doc:$line: the shell block runs with status $status" \
          "status $st: $(head -c 600 "$blocks/$id.stderr") $(head -c 600 "$blocks/$id.stdout")"
        ;;
      output)
        if [ "$prevkind" = lua ] || [ "$prevkind" = sh ]; then
          cmp -s "$blocks/$prev.stdout" "$blocks/$id.out"
          result $? "$doc:$line: the output shown is what the block before it prints" \
            "$(diff "$blocks/$id.out" "$blocks/$prev.stdout" | head -20 | tr '\n' '|')"
        else
          result 1 "$doc:$line: an output block follows a lua or sh block"
        fi
        ;;
    esac
    prev=$id
    prevkind=$kind
  done <"$blocks/manifest"
done

# API.md names everything a scenario can reach: the module's constants and
# functions (lhcp.c), the machine's options (api/system.c) and methods (lmachine.c), the
# thread's methods and fields (lthread.c), the process's fields (lprocess.c), the trace session's members, the
# TAP functions (lib/tap.lua), and every wait-reason name the binary knows.
# A name counts when it appears as code: after a backquote, '.' or ':' and
# not followed by more of an identifier.
(
  cd "$top/scenarios" || exit 1
  sed -n 's/^ *C(\([A-Za-z_0-9]*\)),*$/\1/p' lhcp.c
  sed -n 's/^ *{"\([A-Za-z]*\)", [0-9]*},$/\1/p' lhcp.c
  sed -n 's/^ *{"\([A-Za-z_]*\)", l[_a-z]*},$/\1/p' lhcp.c
  sed -n 's/.*lua_setfield(L, -2, "\([A-Za-z][A-Za-z_]*\)");.*/\1/p' lhcp.c
  sed -n 's/^ *{"\([A-Za-z_]*\)", \(lhcp_\)\{0,1\}m_[a-z_]*},.*$/\1/p' lmachine.c
  sed -n 's/^ *{"\([A-Za-z_]*\)", t_[A-Za-z_]*},$/\1/p' lthread.c
  sed -n 's/.*strcmp(k, "\([a-z_]*\)") == 0.*/\1/p' lthread.c lmachine.c lprocess.c
  sed -n 's/^function M\.\([a-z_]*\)(.*/\1/p' lib/tap.lua | grep -v '^_'
  # the machine options: the option table (api/system.c), one INT(...) or STRUCTURED(...) or {...} entry each
  sed -n 's/^ *\(INT\|STRUCTURED\)("\([a-z_]*\)",.*/\2/p; s/^ *{"\([a-z_]*\)", HCP_OPTK_[A-Z]*,.*/\1/p' ../api/system.c
) | sort -u >"$dir/names"
printf 'local hcp = require "hcpsim"\nfor i = 0, 63 do local n = hcp.wait_reason_name(i); if n then print(n) end end\n' >"$dir/wr.lua"
$HCPSIM run "$dir/wr.lua" >>"$dir/names" 2>"$dir/wr.err"
result $? "the wait-reason names can be listed" "$(cat "$dir/wr.err")"
count=$(sort -u "$dir/names" | wc -l)
[ "$count" -gt 150 ]
result $? "the sources name the API's members ($count names found)"
: >"$dir/missing"
for name in $(sort -u "$dir/names"); do
  grep -qE "[\`.:]$name([^A-Za-z0-9_]|\$)" "$top/scenarios/API.md" || echo "$name" >>"$dir/missing"
done
[ ! -s "$dir/missing" ]
result $? "scenarios/API.md documents every member, option, method, field and constant" \
  "missing: $(tr '\n' ' ' <"$dir/missing")"

# ... and nothing it names as code is missing from them: every `hcp.NAME`,
# `m:NAME`, `t:NAME`, `t.NAME`, `s:NAME`, `s.NAME` and `tap.NAME` it mentions exists.
grep -oE '(^|[^A-Za-z0-9_./])(hcp\.|m:|t:|t\.|s:|s\.|tap\.)[A-Za-z_][A-Za-z_0-9]*' "$top/scenarios/API.md" |
  sed 's/^.*[.:]//' | grep -vx 'NAME' | sort -u >"$dir/mentioned"
: >"$dir/unknown"
for name in $(cat "$dir/mentioned"); do
  grep -qxF "$name" "$dir/names" || echo "$name" >>"$dir/unknown"
done
[ ! -s "$dir/unknown" ]
result $? "every member scenarios/API.md names exists" "unknown: $(tr '\n' ' ' <"$dir/unknown")"

# Nothing a reader of the repository sees points outside it.
(cd "$top" && grep -rnE '\.\./shared|shared/(design|spec|seeds)|/w[o]rk/|/tmp/w[t]-' \
  --include='*.md' --include='*.c' --include='*.h' --include='*.lua' --include='*.tsv' \
  --include='*.sh' --include='*.pl' --include=Makefile . 2>/dev/null |
  grep -v '^\./build' | grep -v '^\./scenarios/tests/docs\.sh:') >"$dir/outside"
[ ! -s "$dir/outside" ]
result $? "no document, comment or catalogue row points outside the repository" \
  "$(head -5 "$dir/outside" | tr '\n' '|')"

# Source files stay readable: a C file under api/ longer than 800 lines says why at its top
# ("Longer than 800 lines: ..." within its first 30 lines).
: >"$dir/long"
for f in "$top"/api/*.c; do
  [ "$(wc -l <"$f")" -gt 800 ] || continue
  head -30 "$f" | grep -q "Longer than 800 lines:" || echo "${f#$top/}" >>"$dir/long"
done
[ ! -s "$dir/long" ]
result $? "every api/ source over 800 lines gives its reason at its top" "$(tr '\n' ' ' <"$dir/long")"

echo "1..$n"
[ "$fail" = 0 ]
