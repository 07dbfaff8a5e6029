# scenarios/tests/lib/tap.sh — sourced by the shell tests (../cli.sh, ../errors.sh,
# ../trace.sh, ../report.sh) from the source tree's top, after they set CLAUSE (the clause id
# every TAP line of `result` names).  It sets `top` (the source tree) and HCPSIM (absolute, or a valgrind
# command line), makes a temporary directory the current one (removed at exit), and defines:
#   result STATUS NAME [DIAGNOSTIC]   one TAP line: ok when STATUS is 0; counts in n and fail
#   check_json CHECKER FILE           runs a perl checker written with CheckJson.pm (beside
#                                     this file) on FILE: one TAP line per check it makes
#   result_lines WANT GOT LABEL       one TAP line per line of WANT, "LABEL: line": ok when GOT
#                                     holds the same line at the same place
top=$(pwd)
HCPSIM=${HCPSIM:-$top/build/hcpsim}
case "$HCPSIM" in /*|valgrind*) ;; *) HCPSIM=$top/$HCPSIM ;; esac
dir=$(mktemp -d) || exit 1
trap 'chmod -R u+rwx "$dir" 2>/dev/null; rm -rf "$dir"' EXIT # a test may leave unreadable files
cd "$dir" || exit 1
n=0
fail=0
result() { # status (0 ok), name [, diagnostic]
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    printf '%s\n' "ok $n - $2 [$CLAUSE]" # printf: echo would read backslashes in the name
  else
    fail=$((fail + 1))
    printf '%s\n' "not ok $n - $2 [$CLAUSE]"
    [ -n "${3:-}" ] && printf '%s\n' "# $3"
  fi
}
result_lines() { # want file, got file, label
  _i=0
  while IFS= read -r _line; do
    _i=$((_i + 1))
    _got=$(sed -n "${_i}p" "$2")
    [ "$_got" = "$_line" ]
    result $? "$3: $_line" "got '$_got'"
  done <"$1"
}
check_json() { # checker.pl, file.json
  perl -I"$top/scenarios/tests/lib" "$1" "$2" >checks.txt 2>perl.err
  while IFS= read -r line; do
    case "$line" in
      "ok "*) result 0 "${line#ok }" ;;
      "not ok "*) rest=${line#not ok }; result 1 "${rest%%: *}" "${rest#*: }" ;;
      *) result 1 "checker output: $line" ;;
    esac
  done <checks.txt
  sed 's/^/# /' perl.err
}
