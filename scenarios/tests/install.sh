#!/bin/sh
# make install and make uninstall (README.md "Install"): into a staging root (DESTDIR), the binary,
# man page, bash completion, library, public headers and hcpsim.pc; a C program builds against
# them with pkg-config alone and runs; uninstall leaves nothing.
CLAUSE=SIM-INSTALL
. scenarios/tests/lib/tap.sh
case "$HCPSIM" in
  */hcpsim) build=$(dirname "$HCPSIM") ;;
  *) echo "1..0 # SKIP HCPSIM is a wrapped command ($HCPSIM), not a build's binary"; exit 0 ;;
esac
root=$dir/root
# the build's own git description, so make sees nothing to rebuild while other tests use the binary
desc=$(cat "$build/git-desc" 2>/dev/null)
make -s -C "$top" install BUILD="$build" GIT_DESC="$desc" DESTDIR="$root" PREFIX=/opt/hcp >make.out 2>&1
result $? "make install into DESTDIR" "$(tail -3 make.out)"
for f in bin/hcpsim lib/libhcpsim.a share/man/man1/hcpsim.1 share/bash-completion/completions/hcpsim \
  lib/pkgconfig/hcpsim.pc include/hcpsim/api/system.h include/hcpsim/api/hcp_api.h include/hcpsim/sim/sim.h \
  include/hcpsim/pmu_model/pmu.h; do
  [ -f "$root/opt/hcp/$f" ]
  result $? "installed: $f"
done
# every symbol the library defines carries a project prefix: it links beside Windows' own kernel32
bare=$(nm -g --defined-only "$root/opt/hcp/lib/libhcpsim.a" 2>/dev/null | awk 'NF == 3 { print $3 }' |
  grep -v '^\(__odr_asan\.\)\{0,1\}\(hcp_\|HCP_\|sim_\|pmu_\|rep_\|lhcp_\|luaopen_hcpsim$\)' | sort -u | head -5 | tr '\n' ' ')
result "$([ -z "$bare" ]; echo $?)" "libhcpsim.a defines only names with a project prefix" "unprefixed: $bare"
"$root/opt/hcp/bin/hcpsim" --version >v.txt 2>&1
result $? "the installed binary runs" "$(cat v.txt)"
result "$(grep -q '^prefix=/opt/hcp$' "$root/opt/hcp/lib/pkgconfig/hcpsim.pc"; echo $?)" "hcpsim.pc names PREFIX"
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man -l "$root/opt/hcp/share/man/man1/hcpsim.1" >man.txt 2>man.err
  result "$(grep -q 'deterministic simulator' man.txt; echo $?)" "the man page renders" "$(head -3 man.err)"
fi
cat >prog.c <<'C'
#include <stdio.h>
#include "api/system.h"
int main(void) {
    hcp_system_opts o;
    hcp_system_opts_init(&o, hcp_platform_find("win7-x86"));
    hcp_system s;
    char msg[256];
    if (hcp_system_new(&o, &s, msg, sizeof msg) != 0) { printf("failed: %s\n", msg); return 1; }
    printf("%u-byte handles, %d CPU\n", hcp_platform_ptr_size(s.platform), sim_machine_config(s.m)->cpus);
    hcp_system_free(&s);
    return 0;
}
C
flags=$(PKG_CONFIG_PATH="$root/opt/hcp/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root" pkg-config --cflags --libs hcpsim 2>pc.err)
result $? "pkg-config hcpsim" "$(cat pc.err)"
# a sanitizer build's library needs its runtime in the program too (make check-asan, check-ubsan)
san=""
nm "$root/opt/hcp/lib/libhcpsim.a" 2>/dev/null | grep -q ' U __asan_' && san="$san -fsanitize=address"
nm "$root/opt/hcp/lib/libhcpsim.a" 2>/dev/null | grep -q ' U __ubsan_' && san="$san -fsanitize=undefined"
# shellcheck disable=SC2086
${CC:-cc} -std=c17 $san -o prog prog.c $flags >cc.out 2>&1
result $? "a C program builds against the installed headers and library" "$(head -5 cc.out)"
out=$(./prog)
result "$([ "$out" = "4-byte handles, 1 CPU" ]; echo $?)" "it builds a win7-x86 system with hcp_system_new" "$out"
make -s -C "$top" uninstall BUILD="$build" GIT_DESC="$desc" DESTDIR="$root" PREFIX=/opt/hcp >make.out 2>&1
left=$(find "$root" -type f | head -3)
result "$([ -z "$left" ]; echo $?)" "make uninstall removes every installed file" "left: $left"
echo "1..$n"
[ "$fail" = 0 ]
