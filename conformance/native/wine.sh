#!/bin/sh
# make wine-conformance: runs hcpcheck.exe under Wine, headless and bounded,
# and records its TAP stream in OUTDIR/wine-VERSION.tap (VERSION from
# `wine --version`, e.g. wine-8.0.tap) with the full version as a comment.
# Usage: sh conformance/native/wine.sh EXE WORKDIR OUTDIR
# WORKDIR holds the Wine prefix (created on first use) and Wine's stderr.
set -u
exe=$1
work=$2
outdir=$3
WINE_TIMEOUT=${WINE_TIMEOUT:-300}
command -v wine >/dev/null 2>&1 || { echo "wine.sh: wine is not installed (make wine-deps)" >&2; exit 1; }
version=$(wine --version 2>/dev/null)
short=$(printf '%s\n' "$version" | sed -n 's/^wine-\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
[ -n "$short" ] || { echo "wine.sh: cannot parse wine --version: '$version'" >&2; exit 1; }
mkdir -p "$work" "$outdir"
out=$outdir/wine-$short.tap
# No display, no Mono/Gecko installers, no debug channels: the first run creates the prefix.
WINEPREFIX=$(cd "$work" && pwd)/prefix
export WINEPREFIX
WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY="" \
  timeout "$WINE_TIMEOUT" wine "$exe" >"$work/hcpcheck.raw" 2>"$work/wine.stderr"
rc=$?
# wineserver lingers a few seconds after the last process: wait for it, leave nothing running
command -v wineserver >/dev/null 2>&1 && timeout 60 wineserver -w
tr -d '\r' <"$work/hcpcheck.raw" >"$work/hcpcheck.tap" # in case a C runtime wrote CRLF
# hcpcheck exits 0 (all ok) or 1 (some checks failed); anything else is a crash or the timeout.
case $rc in
  0 | 1) ;;
  124) echo "wine.sh: hcpcheck.exe did not finish within ${WINE_TIMEOUT}s (see $work/wine.stderr)" >&2; exit 1 ;;
  *) echo "wine.sh: hcpcheck.exe exited with $rc (see $work/wine.stderr)" >&2; exit 1 ;;
esac
head -n 1 "$work/hcpcheck.tap" | grep -q '^TAP version 13$' || { echo "wine.sh: no TAP stream from hcpcheck.exe" >&2; exit 1; }
grep -q '^1\.\.[0-9]' "$work/hcpcheck.tap" || { echo "wine.sh: the TAP stream has no plan" >&2; exit 1; }
# The version line goes right after "TAP version 13" (which must stay first).
{
  head -n 1 "$work/hcpcheck.tap"
  echo "# implementation: $version, $(uname -m) (make wine-conformance)"
  tail -n +2 "$work/hcpcheck.tap"
} >"$out.tmp" && mv "$out.tmp" "$out"
echo "wine-conformance: $out: $(grep -c '^ok' "$out") ok, $(grep -c '^not ok' "$out") not ok"
