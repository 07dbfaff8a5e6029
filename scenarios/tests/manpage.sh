#!/bin/sh
# The man page (scenarios/hcpsim.1) and the bash completion (scenarios/hcpsim.bash-completion)
# cover every command and every option, checked against what the binary itself lists: the
# commands `hcpsim help` names, the run options of its unknown-option message (the table
# scenarios/main.c reads them by), the machine options of `hcpsim describe` (api/system.c's option
# table), the program options, and each option `hcpsim help COMMAND` describes.  The completion
# runs in bash, as a shell would call it.
CLAUSE=SIM-CLI-MANPAGE
. scenarios/tests/lib/tap.sh
echo "TAP version 13"
man=$top/scenarios/hcpsim.1
comp=$top/scenarios/hcpsim.bash-completion
bin=$dir/bin
mkdir -p "$bin"
printf '#!/bin/sh\nexec %s "$@"\n' "$HCPSIM" >"$bin/hcpsim"
chmod +x "$bin/hcpsim"
# complete WORDS...: what the completion offers for the last word (COMPREPLY, one per line)
complete_words() {
  PATH="$bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hcpsim
    printf "%s\n" "${COMPREPLY[@]}"' bash "$comp" "$@" 2>/dev/null
}
# in_man OPTION: the option appears in the page as \-\-name (each dash escaped), not as a prefix
in_man() {
  perl -e 'my $o = shift; (my $e = $o) =~ s/-/\\-/g; local $/; my $t = <STDIN>;
    exit($t =~ /\Q$e\E(?![a-z0-9]|\\-)/ ? 0 : 1)' -- "$1" <"$man"
}

commands=$($HCPSIM help | sed -n 's/.*describes a command: \(.*\)\.$/\1/p' | tr -d ',')
commands="$commands help"
result "$([ "$(echo $commands | wc -w)" -ge 7 ]; echo $?)" "hcpsim help names the commands: $commands"
top_words=$(complete_words hcpsim "")
missing=""
for c in $commands; do
  grep -q "^\.B hcpsim $c\$" "$man" && grep -q "^\.B $c\$" "$man" || missing="$missing man:$c"
  echo "$top_words" | grep -qx "$c" || missing="$missing completion:$c"
done
result "$([ -z "$missing" ]; echo $?)" "every command is in the man page's synopsis and commands and is completed" \
  "missing:$missing"

# run: its own options, the program options and every machine option
$HCPSIM run --no-such-option x.lua 2>err.txt
run_opts=$(sed -n "s/.*(valid: \(.*\); machine options.*/\1/p" err.txt | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -v '^--$')
machine=$($HCPSIM describe | sed -n '/^machine options (/,$ s/^  \([a-z_][a-z_]*\)  .*/--\1/p' | tr _ -)
opts="$run_opts --pmc --counters --timeout --cwd --env --stdin --timezone --debug-output $machine"
n_opts=$(echo $opts | wc -w)
result "$([ "$(echo $run_opts | wc -w)" = 12 ] && [ "$(echo $machine | wc -w)" -ge 24 ]; echo $?)" \
  "the binary lists 12 run options and the machine options ($n_opts options for run in all)" "$run_opts / $machine"
run_words=$(complete_words hcpsim run --)
missing=""
for o in $opts; do
  in_man "$o" || missing="$missing man:$o"
  echo "$run_words" | grep -qx -- "$o" || missing="$missing completion:$o"
done
result "$([ -z "$missing" ]; echo $?)" "every option of run ($n_opts) is in the man page and completed" "missing:$missing"
help_run=$($HCPSIM help run)
missing=""
for o in --pmc --counters --timeout --cwd --env --stdin --timezone --debug-output; do echo "$help_run" | grep -q -- "$o" || missing="$missing $o"; done
result "$([ -z "$missing" ]; echo $?)" "hcpsim help run describes the program options" "missing:$missing"

# run's own options come from one table (scenarios/main.c run_table): its help describes each,
# and the report formats the code accepts are named by the help and the man page alike
missing=""
for o in $run_opts; do echo "$help_run" | grep -q -- "^  $o" || missing="$missing help:$o"; done
exts=$($HCPSIM run --report x.none x.lua 2>&1 | sed -n 's/.*must be one of \(.*\))$/\1/p' | tr -d ',')
for e in $exts; do
  echo "$help_run" | grep -- '^  --report ' | grep -qF -- "$e" || missing="$missing help:$e"
  grep -qF -- "\fB$e\fR" "$man" || missing="$missing man:$e"
done
result "$([ -n "$exts" ] && [ -z "$missing" ]; echo $?)" \
  "hcpsim help run describes each of its own options, and it and the man page name every report format ($(echo $exts))" \
  "missing:$missing"

# the other commands: each option their help describes
for c in check describe diff bench; do
  # the options of its usage line and of its option lines ("  --NAME ..."), not those its prose names
  opts=$($HCPSIM help "$c" | awk 'NR == 1 || /^  --/' | grep -o -- '--[a-z][a-z-]*' | sort -u)
  words=$(complete_words hcpsim "$c" --)
  missing=""
  for o in $opts; do
    in_man "$o" || missing="$missing man:$o"
    echo "$words" | grep -qx -- "$o" || missing="$missing completion:$o"
  done
  result "$([ -n "$opts" ] && [ -z "$missing" ]; echo $?)" \
    "$c: every option its help describes ($(echo $opts | tr '\n' ' ')) is in the man page and completed" "missing:$missing"
done

# The completion follows the wrapper convention: after the program, nothing of hcpsim's.
touch prog.exe s.lua
words=$(cd "$dir" && complete_words hcpsim run --cpus 2 prog.exe --)
echo "$words" | grep -q -- '--seed\|--cpus\|--timeout'
result "$([ $? = 1 ]; echo $?)" "completion: after PROGRAM.exe no hcpsim option is offered" "$words"
words=$(cd "$dir" && complete_words hcpsim run --report r.exe --)
echo "$words" | grep -qx -- '--timeout'
result $? "... but a --report value is no program: options are still offered" "$words"
words=$(complete_words hcpsim run --semantics "")
result "$([ "$(echo $words)" = "documented observed" ]; echo $?)" "completion: --semantics values" "$words"

# The man page formats without warnings.
if command -v groff >/dev/null 2>&1; then
  LC_ALL=C groff -man -Tutf8 -ww "$man" >/dev/null 2>groff.err
  result "$([ ! -s groff.err ]; echo $?)" "groff formats the man page without a warning" "$(head -3 groff.err)"
else
  n=$((n + 1))
  echo "ok $n - groff formats the man page without a warning [$CLAUSE] # SKIP no groff"
fi
echo "1..$n"
[ "$fail" = 0 ]
