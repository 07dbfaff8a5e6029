# hcpsim — one entry point. `make` builds build/hcpsim; `make run` runs the tour;
# `make test` runs every TAP test with prove. Both check dependencies first.
# `make help` lists every target.

CC      ?= cc
BUILD   ?= build
BENCH_ROUNDS ?= 3
# Lua 5.4's pkg-config name differs between hosts (Debian lua5.4, MSYS2 and Homebrew lua).
LUA_PC  := $(firstword $(foreach p,lua5.4 lua-5.4 lua54 lua,$(shell pkg-config --exists $(p) 2>/dev/null && echo $(p))) lua5.4)
PKGS    := unicorn capstone $(LUA_PC) jansson
DEB_PKGS := libunicorn-dev liblua5.4-dev libcapstone-dev libjansson-dev pkg-config perl binutils valgrind \
            binutils-aarch64-linux-gnu binutils-arm-linux-gnueabi \
            libxml2-utils libtap-formatter-junit-perl gcc-mingw-w64-x86-64 gcc-mingw-w64-i686 \
            g++-mingw-w64-x86-64-posix g++-mingw-w64-i686-posix clang
JOBS    ?= 2

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wconversion -Wno-sign-conversion -Wformat=2 -Wswitch-enum -Wvla -Wundef
ifdef CI
WARN += -Werror
endif
OPT     ?= -O2 -g
SAN_FLAGS :=
ifdef SANITIZER
SAN_FLAGS := -fsanitize=$(SANITIZER) -fno-sanitize-recover=all -fno-omit-frame-pointer
BUILD := build-$(SANITIZER)
endif

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null | sed 's/-I/-isystem /g')
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS_ALL = -std=c17 $(OPT) $(WARN) $(SAN_FLAGS) -I. -I$(BUILD) $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SAN_FLAGS) $(LDFLAGS)

PMU_SRC := pmu_model/pmu.c
SIM_SRC := sim/machine.c sim/cpu.c sim/replay.c sim/isa_x86.c sim/isa_arm.c sim/sched.c sim/objects.c sim/bench.c sim/engine.c sim/wx.c sim/context.c
# Every api/*.c: the simulated OS and the export implementations, one file per subject.
API_SRC := $(sort $(wildcard api/*.c))
SCN_SRC := scenarios/lhcp.c scenarios/lmachine.c scenarios/lthread.c scenarios/runtime.c scenarios/lorder.c scenarios/lprocess.c
REP_SRC := reports/trace.c reports/report.c reports/report_json.c reports/report_md.c reports/report_html.c reports/report_csv.c \
            reports/common.c reports/decode.c reports/diff.c reports/out.c
LUA_LIB := scenarios/lib/tap.lua scenarios/lib/testlib.lua
MAIN    := scenarios/main.c

LIB_SRC := $(PMU_SRC) $(SIM_SRC) $(API_SRC) $(REP_SRC) $(SCN_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/scenarios/luasrc.o $(BUILD)/api/exports_gen.o $(BUILD)/api/guest_gen.o
HEADERS := $(wildcard */*.h)

C_TESTS := $(patsubst %.c,$(BUILD)/%.t,$(wildcard pmu_model/tests/*_test.c sim/tests/*_test.c api/tests/*_test.c))
LUA_TESTS := $(sort $(wildcard conformance/*.lua scenarios/tests/*.lua))
SH_TESTS := $(sort $(wildcard scenarios/tests/*.sh conformance/*.sh))
# hcpcheck (conformance/native/) inside hcpsim, in each semantics; their TAP goes to $(BUILD)/conformance/
SH_TESTS += conformance/native/hcpsim_documented.sh conformance/native/hcpsim_observed.sh conformance/native/mingw_build.sh \
            conformance/native/missing_exports.sh conformance/native/hcpsim_exe.sh

# Guest kernel library (scenarios/kernels/): may add rules and redefine LUA_LIB.
-include scenarios/kernels/kernels.mk

.PHONY: all deps check-deps check-test-deps install uninstall run test tests clauses clean check-asan check-ubsan check-valgrind lint format bench bench-ir \
        bench-programs \
        deps-browser check-browser help
all: check-deps $(BUILD)/hcpsim

help:
	@echo "make                    build $(BUILD)/hcpsim (installing missing Debian packages: make deps)"
	@echo "make run                the tour: 3 threads and their counters; writes $(BUILD)/tour.html"
	@echo "make test               every test with prove -j$(JOBS): C tests, conformance, CLI, sandbox, every"
	@echo "                        error message and limit (scenarios/tests/errors.sh), reports, trace"
	@echo "make check-asan         make test under AddressSanitizer (build-address/)"
	@echo "make check-ubsan        make test under UndefinedBehaviorSanitizer (build-undefined/)"
	@echo "make check-valgrind     the Lua suites under valgrind with a full leak check"
	@echo "make check-determinism  examples, conformance and runtime scenarios twice each in a normal, an"
	@echo "                        ASan and an -O0 build: stdout, status, --trace and --report files"
	@echo "                        byte-identical (several minutes)"
	@echo "make fuzz               libFuzzer targets, FUZZ_SECONDS each (scenarios/fuzz/README.md)"
	@echo "make bench              host instructions per guest iteration (callgrind), guest MIPS per counting mode,"
	@echo "                        native and cachegrind reference (BENCH_ROUNDS runs of each, default 3)"
	@echo "make bench-ir           the callgrind figure alone (WORKLOADS=\"spin memwalk\" for some)"
	@echo "make bench-programs     C programs run by hcpsim (Windows build) and natively (host build): time"
	@echo "                        ratios, the cache model next to cachegrind, callgrind counts (PROGRAMS=...)"
	@echo "make check-browser      the tour's and a program's HTML reports in headless Chromium (make deps-browser)"
	@echo "make check-sched-model  the scheduler model against hcpsim on SEEDS generated scenarios (default"
	@echo "                        5000; 1-3 CPUs and each forced onto one) and REPORT_SEEDS run reports"
	@echo "                        (default 1000), conformance/README.md"
	@echo "make clauses            the suite, then the coverage of the clause catalogue (conformance/README.md)"
	@echo "make exports-doc        api/EXPORTS.md from api/exports.spec (what a program can import)"
	@echo "make conformance-report the conformance matrix, clauses x implementations (reports/conformance/)"
	@echo "make check-mutation     small semantic mutations; each must make make test fail (conformance/README.md)"
	@echo "make check-windiff      WINDIFF_RUNS seeded programs under Wine and hcpsim, compared case by case"
	@echo "make windiff-refresh    Wine's output of the make test slice's differential programs (needs Wine)"
	@echo "make native-conformance the conformance program as a Windows .exe (mingw-w64; make native-deps)"
	@echo "make wine-conformance   that .exe under Wine; verdicts in reports/conformance/ (make wine-deps)"
	@echo "make install, uninstall binary, man page, completion, library, headers, hcpsim.pc (PREFIX, DESTDIR)"
	@echo "make deps               install the missing Debian packages (apt-get, as root); make deps-browser,"
	@echo "                        make fuzz-deps: Chromium, clang's libFuzzer"
	@echo "make lint, make format  clang-format check and cppcheck; clang-format in place"
	@echo "make clean              remove build/ and build-*/"
	@echo "Limits of a run (threads, memory, handles, cycles, Lua, trace): hcpsim describe, scenarios/README.md"

# ---- dependencies -----------------------------------------------------------------------
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present ($(DEB_PKGS))"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	else \
	  echo "deps: missing$$missing; run: sudo apt-get update && sudo apt-get install -y$$missing" >&2; exit 1; \
	fi

# What `make` needs (libraries through pkg-config, the assemblers of the guest kernels) and what
# `make test` needs on top (prove, valgrind, xmllint, tap2junit). Each is checked where it is used:
# a missing one is installed with apt-get where Debian's apt exists and we are root (make deps),
# else named with the package that has it.
BUILD_CMDS := as objcopy aarch64-linux-gnu-as arm-linux-gnueabi-as
TEST_CMDS  := prove valgrind xmllint tap2junit x86_64-w64-mingw32-gcc i686-w64-mingw32-gcc \
              x86_64-w64-mingw32-g++-posix i686-w64-mingw32-g++-posix clang
define need_cmds
	@missing=""; for c in $(1); do command -v $$c >/dev/null || missing="$$missing $$c"; done; \
	pkg-config --exists $(2) 2>/dev/null || missing="$$missing libraries:$(2)"; \
	[ -z "$$missing" ] && exit 0; \
	if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then $(MAKE) --no-print-directory deps; exit $$?; fi; \
	echo "hcpsim: missing:$$missing" >&2; \
	echo "  Debian: make deps (as root) installs $(DEB_PKGS)" >&2; \
	echo "  elsewhere: install Unicorn >= 2.0.1, capstone, Lua 5.4 and jansson where pkg-config finds them," >&2; \
	echo "  GNU binutils for x86-64, aarch64 and arm (the guest kernels), perl's prove, valgrind, xmllint" >&2; \
	exit 1
endef
check-deps:
	$(call need_cmds,pkg-config $(BUILD_CMDS),$(PKGS))
	@pkg-config --atleast-version=2.0.1 unicorn || { echo "hcpsim needs Unicorn >= 2.0.1" >&2; exit 1; }
check-test-deps: check-deps
	$(call need_cmds,$(TEST_CMDS),$(PKGS))

# ---- build ------------------------------------------------------------------------------
# Header dependencies come from the compiler (-MMD): an object depends on the headers it includes.
DEPFLAGS = -MMD -MP
$(BUILD)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -c $< -o $@

# The export spec (api/exports.spec) becomes C: the export table, each implementation's typed
# arguments and prototype (api/README.md "The export spec").  Every api/ object depends on the
# generated header, so it exists before anything includes it.
GEN_H := $(BUILD)/api/exports_gen.h $(BUILD)/api/guest_gen.h
$(BUILD)/api/exports_gen.h: api/exports.spec api/specgen.pl
	@mkdir -p $(dir $@)
	perl api/specgen.pl api/exports.spec $@.tmp $(BUILD)/api/exports_gen.c.tmp
	mv $(BUILD)/api/exports_gen.c.tmp $(BUILD)/api/exports_gen.c
	mv $@.tmp $@
$(BUILD)/api/exports_gen.c: $(BUILD)/api/exports_gen.h
$(BUILD)/api/exports_gen.o: $(BUILD)/api/exports_gen.c $(BUILD)/api/exports_gen.h
	$(CC) $(CFLAGS_ALL) -c $< -o $@

# Guest code of the simulated DLLs (api/guest/*.S), assembled as the guest kernels are, then C.
GUEST_SRC := $(sort $(wildcard api/guest/*_x64.S api/guest/*_x86.S))
$(BUILD)/api/guest/%_x64.o: api/guest/%_x64.S
	@mkdir -p $(dir $@)
	$(KERNEL_AS) --64 -o $@ $<
$(BUILD)/api/guest/%_x86.o: api/guest/%_x86.S
	@mkdir -p $(dir $@)
	$(KERNEL_AS_X86) -o $@ $<
$(BUILD)/api/guest/%.bin: $(BUILD)/api/guest/%.o
	$(KERNEL_OBJCOPY) -O binary -j .text $< $@
$(BUILD)/api/guest_gen.h: api/guestgen.pl $(GUEST_SRC:%.S=$(BUILD)/%.o) $(GUEST_SRC:%.S=$(BUILD)/%.bin)
	OBJDUMP=$(KERNEL_OBJDUMP) perl api/guestgen.pl $(BUILD)/api/guest_gen.c.tmp $@.tmp \
	  $(foreach g,$(GUEST_SRC:api/guest/%.S=%),$(g) $(BUILD)/api/guest/$(g).o $(BUILD)/api/guest/$(g).bin)
	mv $(BUILD)/api/guest_gen.c.tmp $(BUILD)/api/guest_gen.c
	mv $@.tmp $@
$(BUILD)/api/guest_gen.c: $(BUILD)/api/guest_gen.h
$(BUILD)/api/guest_gen.o: $(BUILD)/api/guest_gen.c $(BUILD)/api/guest_gen.h
	$(CC) $(CFLAGS_ALL) -c $< -o $@
$(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/$(MAIN:.c=.o): | $(GEN_H)

# api/EXPORTS.md, the page of what a program can import, is generated from the spec and committed
# (scenarios/tests/exports_doc.sh fails when it is not current).
.PHONY: exports-doc
exports-doc:
	perl api/exportsdoc.pl api/exports.spec > api/EXPORTS.md

# Lua helper modules are embedded in the binary (no search path, nothing to install).
$(BUILD)/scenarios/luasrc.c: $(LUA_LIB) scenarios/embed.pl
	@mkdir -p $(dir $@)
	perl scenarios/embed.pl $(LUA_LIB) > $@

$(BUILD)/scenarios/luasrc.o: $(BUILD)/scenarios/luasrc.c
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/libhcpsim.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# The build's git description, for hcpsim --version: rewritten only when it changes, so main.c is
# rebuilt then and only then.
GIT_DESC := $(shell git describe --always --dirty --tags 2>/dev/null || echo no git description)
$(BUILD)/git-desc: FORCE
	@mkdir -p $(dir $@)
	@echo '$(GIT_DESC)' | cmp -s - $@ || echo '$(GIT_DESC)' > $@
$(BUILD)/$(MAIN:.c=.o): $(BUILD)/git-desc
$(BUILD)/$(MAIN:.c=.o): CFLAGS_ALL += -DHCPSIM_GIT='"$(GIT_DESC)"'
.PHONY: FORCE
FORCE:

$(BUILD)/hcpsim: $(BUILD)/$(MAIN:.c=.o) $(BUILD)/libhcpsim.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/%.t: %.c $(BUILD)/libhcpsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -MF $@.d -o $@ $< $(BUILD)/libhcpsim.a $(LDFLAGS_ALL) $(PKG_LIBS) -lm

# ---- run and test -----------------------------------------------------------------------
run: all
	$(BUILD)/hcpsim run --report $(BUILD)/tour.html scenarios/examples/tour.lua
	@echo "report: $(BUILD)/tour.html (open it in a browser)"

# Windows programs for scenarios/tests/pe.sh (scenarios/examples/pe/), built by mingw-w64 with
# default options (dynamically linked msvcrt.dll): NAME64.exe x86-64, NAME32.exe i386.
PE_SRC  := $(wildcard scenarios/examples/pe/*.c)
PE_EXES := $(PE_SRC:scenarios/examples/pe/%.c=$(BUILD)/pe/%64.exe) $(PE_SRC:scenarios/examples/pe/%.c=$(BUILD)/pe/%32.exe)
$(BUILD)/pe/%64.exe: scenarios/examples/pe/%.c
	@mkdir -p $(dir $@)
	x86_64-w64-mingw32-gcc -O2 -o $@ $<
$(BUILD)/pe/%32.exe: scenarios/examples/pe/%.c
	@mkdir -p $(dir $@)
	i686-w64-mingw32-gcc -O2 -o $@ $<
# crtoutcomes.c checks the C runtime's errno outcomes: -fno-builtin, so no call is folded away
$(BUILD)/pe/crtoutcomes64.exe: scenarios/examples/pe/crtoutcomes.c
	@mkdir -p $(dir $@)
	x86_64-w64-mingw32-gcc -O2 -fno-builtin -o $@ $<
$(BUILD)/pe/crtoutcomes32.exe: scenarios/examples/pe/crtoutcomes.c
	@mkdir -p $(dir $@)
	i686-w64-mingw32-gcc -O2 -fno-builtin -o $@ $<

# The C runtime's test programs (scenarios/examples/crt/), each built four ways: x86-64 and i386
# against msvcrt.dll (NAME64.exe, NAME32.exe) and against the Universal CRT (NAMEu64.exe,
# NAMEu32.exe: -lucrt instead of -lmsvcrt through a specs file made from the compiler's own, and
# -D_UCRT as a UCRT toolchain defines it); -fno-builtin, so every call reaches the runtime.  The
# printf table (scenarios/examples/pe/printf.c), hello.c, stdio.c, sysinfo.c and cmdline.c get UCRT
# builds too.
CRT_SRC   := $(wildcard scenarios/examples/crt/*.c)
CRT_NAMES := $(CRT_SRC:scenarios/examples/crt/%.c=%)
CRT_EXES  := $(foreach n,$(CRT_NAMES),$(BUILD)/crt/$(n)64.exe $(BUILD)/crt/$(n)32.exe $(BUILD)/crt/$(n)u64.exe \
               $(BUILD)/crt/$(n)u32.exe) $(BUILD)/crt/printfu64.exe $(BUILD)/crt/printfu32.exe \
               $(BUILD)/crt/hellou64.exe $(BUILD)/crt/hellou32.exe $(BUILD)/crt/stdiou64.exe \
               $(BUILD)/crt/stdiou32.exe $(BUILD)/crt/sysinfou64.exe $(BUILD)/crt/sysinfou32.exe \
               $(BUILD)/crt/cmdlineu64.exe $(BUILD)/crt/cmdlineu32.exe \
               $(BUILD)/crt/crtoutcomesu64.exe $(BUILD)/crt/crtoutcomesu32.exe
CRT_CFLAGS := -O2 -fno-builtin -Wall
$(BUILD)/crt/ucrt64.specs:
	@mkdir -p $(dir $@)
	x86_64-w64-mingw32-gcc -dumpspecs | sed 's/-lmsvcrt/-lucrt/g' > $@
$(BUILD)/crt/ucrt32.specs:
	@mkdir -p $(dir $@)
	i686-w64-mingw32-gcc -dumpspecs | sed 's/-lmsvcrt/-lucrt/g' > $@
$(BUILD)/crt/%u64.exe: scenarios/examples/crt/%.c scenarios/examples/crt/crt_test.h $(BUILD)/crt/ucrt64.specs
	x86_64-w64-mingw32-gcc $(CRT_CFLAGS) -D_UCRT -specs=$(BUILD)/crt/ucrt64.specs -o $@ $<
$(BUILD)/crt/%u32.exe: scenarios/examples/crt/%.c scenarios/examples/crt/crt_test.h $(BUILD)/crt/ucrt32.specs
	i686-w64-mingw32-gcc $(CRT_CFLAGS) -D_UCRT -specs=$(BUILD)/crt/ucrt32.specs -o $@ $<
$(BUILD)/crt/crtoutcomesu64.exe: scenarios/examples/pe/crtoutcomes.c $(BUILD)/crt/ucrt64.specs
	x86_64-w64-mingw32-gcc -O2 -fno-builtin -D_UCRT -specs=$(BUILD)/crt/ucrt64.specs -o $@ $<
$(BUILD)/crt/crtoutcomesu32.exe: scenarios/examples/pe/crtoutcomes.c $(BUILD)/crt/ucrt32.specs
	i686-w64-mingw32-gcc -O2 -fno-builtin -D_UCRT -specs=$(BUILD)/crt/ucrt32.specs -o $@ $<
$(BUILD)/crt/%u64.exe: scenarios/examples/pe/%.c $(BUILD)/crt/ucrt64.specs
	x86_64-w64-mingw32-gcc -O2 -D_UCRT -specs=$(BUILD)/crt/ucrt64.specs -o $@ $<
$(BUILD)/crt/%u32.exe: scenarios/examples/pe/%.c $(BUILD)/crt/ucrt32.specs
	i686-w64-mingw32-gcc -O2 -D_UCRT -specs=$(BUILD)/crt/ucrt32.specs -o $@ $<
$(BUILD)/crt/%64.exe: scenarios/examples/crt/%.c scenarios/examples/crt/crt_test.h
	@mkdir -p $(dir $@)
	x86_64-w64-mingw32-gcc $(CRT_CFLAGS) -o $@ $<
$(BUILD)/crt/%32.exe: scenarios/examples/crt/%.c scenarios/examples/crt/crt_test.h
	@mkdir -p $(dir $@)
	i686-w64-mingw32-gcc $(CRT_CFLAGS) -o $@ $<

# A program with its own DLLs (scenarios/examples/pe/dll/, scenarios/tests/pe_dll.sh): build/pe/dll64/ and
# build/pe/dll32/ hold dlluse.exe, hcpdll.dll (imported through the import library its .def makes) and
# hcpdll2.dll (loaded at run time).
DLL_EX := scenarios/examples/pe/dll
DLL_EXES := $(foreach b,64 32,$(BUILD)/pe/dll$(b)/dlluse.exe $(BUILD)/pe/dll$(b)/hcpdll.dll $(BUILD)/pe/dll$(b)/hcpdll2.dll)
MINGW_CC_64 := x86_64-w64-mingw32-gcc
MINGW_CC_32 := i686-w64-mingw32-gcc
$(BUILD)/pe/dll%/hcpdll.dll: $(DLL_EX)/hcpdll.c $(DLL_EX)/hcpdll.def
	@mkdir -p $(dir $@)
	$(MINGW_CC_$*) -O2 -shared -o $@ $< $(DLL_EX)/hcpdll.def -Wl,--out-implib,$(dir $@)libhcpdll.a
# hcpdll2.dll has no C runtime start-up (DllMain is its entry point): no TLS directory, so
# DisableThreadLibraryCalls applies to it
DLL2_ENTRY_64 := DllMain
DLL2_ENTRY_32 := _DllMain@12
$(BUILD)/pe/dll%/hcpdll2.dll: $(DLL_EX)/hcpdll2.c $(BUILD)/pe/dll%/hcpdll.dll
	$(MINGW_CC_$*) -O2 -shared -nostartfiles -Wl,-e,$(DLL2_ENTRY_$*) -o $@ $< -L$(dir $@) -lhcpdll -lmsvcrt -lkernel32
$(BUILD)/pe/dll%/dlluse.exe: $(DLL_EX)/dlluse.c $(BUILD)/pe/dll%/hcpdll.dll
	$(MINGW_CC_$*) -O2 -o $@ $< -L$(dir $@) -lhcpdll

# C++ programs (scenarios/examples/pe/cxx/, scenarios/tests/pe_cxx.sh), built by Debian's g++-mingw-w64
# (-posix: std::thread) twice: NAME64.exe and NAME32.exe import libstdc++-6.dll, libgcc_s and
# libwinpthread-1.dll, which build/pe/cxx64/ and cxx32/ hold next to them (copied from the
# compilers' own folders); NAME64s.exe and NAME32s.exe are linked -static.
CXX_SRC := $(wildcard scenarios/examples/pe/cxx/*.cpp)
MINGW_CXX_64 := x86_64-w64-mingw32-g++-posix
MINGW_CXX_32 := i686-w64-mingw32-g++-posix
CXX_EXES := $(foreach b,64 32,$(CXX_SRC:scenarios/examples/pe/cxx/%.cpp=$(BUILD)/pe/cxx$(b)/%$(b).exe) \
                              $(CXX_SRC:scenarios/examples/pe/cxx/%.cpp=$(BUILD)/pe/cxx$(b)/%$(b)s.exe) \
                              $(BUILD)/pe/cxx$(b)/runtime.stamp)
$(BUILD)/pe/cxx%/runtime.stamp:
	@mkdir -p $(dir $@)
	for f in libstdc++-6.dll libgcc_s_seh-1.dll libgcc_s_dw2-1.dll libwinpthread-1.dll; do \
	  p=$$($(MINGW_CXX_$*) -print-file-name=$$f); [ "$$p" = "$$f" ] || cp "$$p" $(dir $@); done
	touch $@
$(BUILD)/pe/cxx64/%64.exe: scenarios/examples/pe/cxx/%.cpp
	@mkdir -p $(dir $@)
	$(MINGW_CXX_64) -O2 -o $@ $<
$(BUILD)/pe/cxx64/%64s.exe: scenarios/examples/pe/cxx/%.cpp
	@mkdir -p $(dir $@)
	$(MINGW_CXX_64) -O2 -static -o $@ $<
$(BUILD)/pe/cxx32/%32.exe: scenarios/examples/pe/cxx/%.cpp
	@mkdir -p $(dir $@)
	$(MINGW_CXX_32) -O2 -o $@ $<
$(BUILD)/pe/cxx32/%32s.exe: scenarios/examples/pe/cxx/%.cpp
	@mkdir -p $(dir $@)
	$(MINGW_CXX_32) -O2 -static -o $@ $<

# hcpcheck.c as make native-conformance builds it (-static), for both ISAs: conformance/native/hcpsim_exe.sh
# runs the very .exe inside hcpsim.
HCPCHECK_EXES := $(BUILD)/pe/hcpcheck64.exe $(BUILD)/pe/hcpcheck32.exe
$(BUILD)/pe/hcpcheck64.exe: conformance/native/hcpcheck.c
	@mkdir -p $(dir $@)
	x86_64-w64-mingw32-gcc -std=c17 -O2 $(WARN) -Werror -static -o $@ $<
$(BUILD)/pe/hcpcheck32.exe: conformance/native/hcpcheck.c
	@mkdir -p $(dir $@)
	i686-w64-mingw32-gcc -std=c17 -O2 $(WARN) -Werror -static -o $@ $<

# The differential programs of the make test slice (scenarios/tests/windiff/README.md): generated
# by gen.pl for each seed, built once for both ISAs.
WINDIFF_SEEDS ?= 1 2 3 4
WINDIFF_CASES ?= 100
WINDIFF_EXES := $(foreach s,$(WINDIFF_SEEDS),$(BUILD)/windiff/seed$(s)-64.exe $(BUILD)/windiff/seed$(s)-32.exe)
$(BUILD)/windiff/seed%.c: scenarios/tests/windiff/gen.pl
	@mkdir -p $(dir $@)
	perl scenarios/tests/windiff/gen.pl --seed $* --cases $(WINDIFF_CASES) > $@
$(BUILD)/windiff/seed%-64.exe: $(BUILD)/windiff/seed%.c
	x86_64-w64-mingw32-gcc -O1 -w -o $@ $<
$(BUILD)/windiff/seed%-32.exe: $(BUILD)/windiff/seed%.c
	i686-w64-mingw32-gcc -O1 -w -o $@ $<
.PRECIOUS: $(BUILD)/windiff/seed%.c

# __try/__except/__finally as clang compiles them (scenarios/examples/pe/clang/, tests/pe_seh.sh):
# x86-64 only (clang 14 cannot emit i386 SEH for mingw-w64: "assembler label 'L__ehtable$main' can
# not be undefined"); compiled by clang for the mingw-w64 target, linked by mingw-w64's gcc.
# NAMEu64.exe: the same against the UCRT (its __C_specific_handler is ucrtbase.dll's).
CLANG_EXES := $(BUILD)/pe/clang64/try64.exe $(BUILD)/pe/clang64/tryu64.exe
$(BUILD)/pe/clang64/%u64.exe: scenarios/examples/pe/clang/%.c $(BUILD)/crt/ucrt64.specs
	@mkdir -p $(dir $@)
	clang -target x86_64-w64-mingw32 -fms-extensions -O2 -Wall -D_UCRT -c -o $(@:.exe=.o) $<
	x86_64-w64-mingw32-gcc -specs=$(BUILD)/crt/ucrt64.specs -o $@ $(@:.exe=.o)
$(BUILD)/pe/clang64/%64.exe: scenarios/examples/pe/clang/%.c
	@mkdir -p $(dir $@)
	clang -target x86_64-w64-mingw32 -fms-extensions -O2 -Wall -c -o $(@:.exe=.o) $<
	x86_64-w64-mingw32-gcc -o $@ $(@:.exe=.o)

tests: all check-test-deps $(C_TESTS) $(PE_EXES) $(HCPCHECK_EXES) $(CRT_EXES) $(WINDIFF_EXES) $(DLL_EXES) $(CXX_EXES) $(CLANG_EXES)


# Every test program runs once; runtest saves each TAP stream in $(TAP_DIR), and two checks read
# them after the suite: the export coverage (conformance/exports.pl: every row of api/exports.spec
# named by a passing test) and the clause coverage (conformance/clauses.pl: every catalogue clause
# named by a test that ran, every TAP line of every test program naming a known clause;
# conformance/README.md).
TAP_DIR = $(BUILD)/tap
ALL_TESTS = $(C_TESTS) $(LUA_TESTS) $(SH_TESTS)
RUN_TESTS = rm -rf $(TAP_DIR) && mkdir -p $(TAP_DIR) && HCPSIM=$(BUILD)/hcpsim HCPSIM_TAP_DIR=$(TAP_DIR) \
	  HCPSIM_CLAUSES=$(abspath conformance/clauses.tsv) prove -j$(JOBS) --exec 'sh scenarios/tests/runtest'

test: tests
	st=0; $(RUN_TESTS) $(ALL_TESTS) || st=1; \
	HCPSIM_TAP_DIR=$(TAP_DIR) prove --exec 'sh scenarios/tests/runtest' conformance/exports.pl || st=1; \
	prove conformance/clauses.pl :: --tap-dir $(TAP_DIR) $(ALL_TESTS) conformance/exports.pl || st=1; exit $$st

# make clauses: run the suite (saving the TAP streams) and print the clause coverage: per clause
# the tests passing, failing, skipped and todo; totals; clauses without tests; untagged lines.
clauses: tests
	-$(RUN_TESTS) -Q $(ALL_TESTS)
	-@HCPSIM_TAP_DIR=$(TAP_DIR) sh scenarios/tests/runtest conformance/exports.pl > /dev/null
	@perl conformance/clauses.pl --report --tap-dir $(TAP_DIR) $(ALL_TESTS) conformance/exports.pl

check-asan:
	$(MAKE) SANITIZER=address test
check-ubsan:
	$(MAKE) SANITIZER=undefined test
check-valgrind: tests
	HCPSIM="valgrind -q --smc-check=all-non-file --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 $(abspath $(BUILD))/hcpsim" \
	  prove -j$(JOBS) --exec 'sh scenarios/tests/runtest' $(LUA_TESTS)

bench: all
	sh reports/bench/ir.sh $(BUILD)
	$(BUILD)/hcpsim bench --rounds $(BENCH_ROUNDS)
	ROUNDS=$(BENCH_ROUNDS) sh reports/bench/native.sh $(BUILD)

# Whole C programs built for Windows (run by hcpsim) and natively from one source, side by side:
# time ratios, the cache model next to cachegrind, callgrind's host instructions (reports/bench/).
bench-programs: all check-test-deps
	ROUNDS=$(BENCH_ROUNDS) sh reports/bench/programs.sh $(BUILD) $(PROGRAMS)

# The deterministic figure alone: host instructions per guest iteration under callgrind.
bench-ir: all
	sh reports/bench/ir.sh $(BUILD) $(WORKLOADS)

# The tour's and a program's HTML reports rendered by headless Chromium (not part of `make test`:
# it takes a while).
deps-browser:
	@command -v chromium >/dev/null && echo "deps-browser: chromium present" && exit 0; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps-browser: installing chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || exit 1; \
	else \
	  echo "deps-browser: run: sudo apt-get update && sudo apt-get install -y chromium" >&2; exit 1; \
	fi

check-browser: all $(BUILD)/pe/threads64.exe
	HCPSIM=$(BUILD)/hcpsim sh scenarios/tests/report.sh browser $(BUILD)/browser

NATIVE_FMT := $(wildcard conformance/native/*.c conformance/native/shim/*.[ch] reports/bench/programs/*.[ch]) scenarios/kernels/native.c
# Every C file of the project: the library, the CLI, the tests, the fuzz targets, the native program.
FUZZ_SRC := $(wildcard scenarios/fuzz/*.c scenarios/fuzz/*.h)
format:
	clang-format -i $(LIB_SRC) $(MAIN) $(HEADERS) $(wildcard */tests/*.c) $(NATIVE_FMT) $(FUZZ_SRC)
lint:
	clang-format --dry-run -Werror $(LIB_SRC) $(MAIN) $(HEADERS) $(wildcard */tests/*.c) $(NATIVE_FMT) $(FUZZ_SRC)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 -I. $(LIB_SRC) $(MAIN)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 -I. $(shell pkg-config --cflags-only-I lua5.4 2>/dev/null) \
	  scenarios/fuzz/regress_test.c
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 -I. -Iconformance/native/shim \
	  conformance/native/hcpcheck.c conformance/native/shim/hcpshim.c conformance/native/shim/hcpshim_etw.c
	@# native.c loads the kernels' argument registers through register-asm variables, whose
	@# initialisers cppcheck takes for statements without effect (constStatement).
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 -I. \
	  --suppress=constStatement:scenarios/kernels/native.c scenarios/kernels/native.c

clean:
	rm -rf build build-*

# ---- install (PREFIX, DESTDIR) ----------------------------------------------------------------
# The binary, its man page and bash completion, libhcpsim.a with its public headers (under
# include/hcpsim/, keeping their folders: #include "api/system.h") and hcpsim.pc for pkg-config.
PREFIX     ?= /usr/local
BINDIR     = $(PREFIX)/bin
LIBDIR     = $(PREFIX)/lib
INCDIR     = $(PREFIX)/include/hcpsim
MANDIR     = $(PREFIX)/share/man/man1
COMPDIR    = $(PREFIX)/share/bash-completion/completions
PCDIR      = $(LIBDIR)/pkgconfig
PUBLIC_HEADERS := api/hcp_api.h api/system.h api/platform.h api/pe.h sim/sim.h pmu_model/pmu.h reports/reports.h
install: $(BUILD)/hcpsim $(BUILD)/libhcpsim.a
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPDIR) $(DESTDIR)$(PCDIR)
	install -m 755 $(BUILD)/hcpsim $(DESTDIR)$(BINDIR)/hcpsim
	install -m 644 $(BUILD)/libhcpsim.a $(DESTDIR)$(LIBDIR)/libhcpsim.a
	install -m 644 scenarios/hcpsim.1 $(DESTDIR)$(MANDIR)/hcpsim.1
	install -m 644 scenarios/hcpsim.bash-completion $(DESTDIR)$(COMPDIR)/hcpsim
	for h in $(PUBLIC_HEADERS); do install -d $(DESTDIR)$(INCDIR)/$$(dirname $$h) && \
	  install -m 644 $$h $(DESTDIR)$(INCDIR)/$$h || exit 1; done
	printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: hcpsim\nDescription: %s\nVersion: %s\nRequires: %s\nLibs: -L$${libdir} -lhcpsim -lm\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' '$(LIBDIR)' '$(INCDIR)' 'deterministic simulator of the Windows Hardware Counter Profiling API' \
	  "$$(sed -n 's/^#define HCPSIM_RELEASE "\(.*\)"/\1/p' scenarios/version.h)" '$(PKGS)' \
	  > $(DESTDIR)$(PCDIR)/hcpsim.pc
	@echo "install: $(DESTDIR)$(BINDIR)/hcpsim (man hcpsim; pkg-config hcpsim)"

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hcpsim $(DESTDIR)$(LIBDIR)/libhcpsim.a $(DESTDIR)$(MANDIR)/hcpsim.1 \
	  $(DESTDIR)$(COMPDIR)/hcpsim $(DESTDIR)$(PCDIR)/hcpsim.pc
	rm -rf $(DESTDIR)$(INCDIR)

# ---- the native conformance program (conformance/native/README.md) -------------------------
# hcpcheck.c is written against the Windows headers only.  `make` builds it against the shim
# (conformance/native/shim/: Windows functions on hcpsim's API) and `make test` runs it in both
# semantics.  `make native-conformance` builds the Windows .exe with mingw-w64 and
# `make wine-conformance` runs it under Wine into reports/conformance/wine-VERSION.tap; neither
# is part of `make test` (they need mingw-w64 and Wine).
NATIVE_DIR := conformance/native
NATIVE_SIM := $(BUILD)/conformance/native/hcpcheck-sim
NATIVE_EXE := $(BUILD)/conformance/native/hcpcheck.exe
NATIVE_EXE32 := $(BUILD)/conformance/native/hcpcheck-i386.exe
MINGW_CC   ?= x86_64-w64-mingw32-gcc
MINGW32_CC ?= i686-w64-mingw32-gcc
.PHONY: native-deps native-conformance wine-deps wine-conformance
all: $(NATIVE_SIM)

$(NATIVE_SIM): $(NATIVE_DIR)/hcpcheck.c $(NATIVE_DIR)/shim/hcpshim.c $(NATIVE_DIR)/shim/hcpshim_etw.c \
               $(wildcard $(NATIVE_DIR)/shim/*.h) \
               $(BUILD)/libhcpsim.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -pthread -I$(NATIVE_DIR)/shim -o $@ $(NATIVE_DIR)/hcpcheck.c $(NATIVE_DIR)/shim/hcpshim.c \
	  $(NATIVE_DIR)/shim/hcpshim_etw.c $(BUILD)/libhcpsim.a $(LDFLAGS_ALL) -pthread $(PKG_LIBS) -lm

# apt-get installs what is missing, as `make deps` does: $(1) a command, $(2) its Debian packages.
define native_dep
	@command -v $(1) >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "$@: installing $(2)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null || exit 1; \
	else \
	  echo "$@: $(1) missing; run: sudo apt-get update && sudo apt-get install -y $(2)" >&2; exit 1; \
	fi
endef
native-deps:
	$(call native_dep,$(MINGW_CC),gcc-mingw-w64-x86-64)
wine-deps:
	$(call native_dep,wine,wine wine64)

native-conformance: native-deps
	@mkdir -p $(dir $(NATIVE_EXE))
	$(MINGW_CC) -std=c17 -O2 $(WARN) -Werror -static -o $(NATIVE_EXE) $(NATIVE_DIR)/hcpcheck.c
	@if command -v $(MINGW32_CC) >/dev/null; then \
	  echo "$(MINGW32_CC) ... -o $(NATIVE_EXE32)"; \
	  $(MINGW32_CC) -std=c17 -O2 $(WARN) -Werror -static -o $(NATIVE_EXE32) $(NATIVE_DIR)/hcpcheck.c || exit 1; \
	else echo "native-conformance: no $(MINGW32_CC), no i386 build (Debian: gcc-mingw-w64-i686)"; fi
	@echo "native-conformance: $(NATIVE_EXE) (copy it to Windows and run it: $(NATIVE_DIR)/README.md)"

wine-conformance: native-conformance wine-deps
	sh $(NATIVE_DIR)/wine.sh $(NATIVE_EXE) $(BUILD)/wine reports/conformance

# ---- fuzzing (scenarios/fuzz/README.md) ------------------------------------------------------
# make fuzz: libFuzzer targets built with clang under ASan+UBSan in $(FUZZ_BUILD), each run for
# FUZZ_SECONDS; an input that crashes is kept in scenarios/fuzz/regressions/TARGET/, and
# regress_test.t (part of make test) replays every kept input with the normal compiler.
.PHONY: fuzz fuzz-deps check-determinism check-windiff windiff-refresh
# ---- differential runs against Wine (scenarios/tests/windiff/README.md) -----------------------
# make windiff-refresh: Wine's output of the make test slice's x86-64 programs, committed in
# scenarios/tests/windiff/wine/; make check-windiff: WINDIFF_RUNS seeds from WINDIFF_FROM, Wine live.
WINDIFF_FROM ?= 1000
WINDIFF_RUNS ?= 20
windiff-refresh: $(WINDIFF_EXES) wine-deps
	@mkdir -p $(BUILD)/windiff/prefix
	for s in $(WINDIFF_SEEDS); do \
	  perl scenarios/tests/windiff/gen.pl --seed $$s --args > $(BUILD)/windiff/args$$s.txt; \
	  set --; while IFS= read -r a; do set -- "$$@" "$$a"; done < $(BUILD)/windiff/args$$s.txt; \
	  (cd $(BUILD)/windiff && WINEDEBUG=-all WINEPREFIX=$(abspath $(BUILD)/windiff/prefix) timeout 300 wine seed$$s-64.exe "$$@") \
	    > scenarios/tests/windiff/wine/seed$$s.txt || exit 1; \
	done
check-windiff: all wine-deps
	sh scenarios/tests/windiff/run.sh $(abspath $(BUILD)/hcpsim) $(BUILD)/windiff-runs $(WINDIFF_FROM) $(WINDIFF_RUNS) $(WINDIFF_CASES)

FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= lua api marshal guest pe exports paths dll
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_REGRESS := $(BUILD)/scenarios/fuzz/regress_test.t
C_TESTS      += $(FUZZ_REGRESS)
tests: $(FUZZ_REGRESS)
$(FUZZ_REGRESS): $(wildcard scenarios/fuzz/*.c scenarios/fuzz/*.h)

# clang with libFuzzer's runtime (Debian: clang, whose libclang-rt-NN-dev has libFuzzer).
fuzz-deps:
	@mkdir -p $(FUZZ_BUILD)
	@probe() { printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	    > $(FUZZ_BUILD)/probe.c && $(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $(FUZZ_BUILD)/probe $(FUZZ_BUILD)/probe.c 2>/dev/null; }; \
	if probe; then echo "fuzz-deps: $(FUZZ_CC) links libFuzzer"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "fuzz-deps: installing clang libclang-rt-dev"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-dev >/dev/null || exit 1; \
	  probe || { echo "fuzz-deps: $(FUZZ_CC) still cannot link -fsanitize=fuzzer" >&2; exit 1; }; \
	else \
	  echo "fuzz-deps: $(FUZZ_CC) cannot link -fsanitize=fuzzer; run: sudo apt-get update && sudo apt-get install -y clang libclang-rt-dev" >&2; exit 1; \
	fi

fuzz: check-deps fuzz-deps
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT="-O1 -g" \
	  SAN_FLAGS="-fsanitize=fuzzer-no-link -fsanitize-coverage-ignorelist=scenarios/fuzz/hot.ignore $(FUZZ_SAN)" \
	  $(FUZZ_BUILD)/libhcpsim.a
	@mkdir -p $(FUZZ_BUILD)/fuzz
	for t in $(FUZZ_TARGETS); do \
	  $(FUZZ_CC) -std=c17 -O1 -g $(WARN) -fsanitize=fuzzer $(FUZZ_SAN) -DHCPFZ_LIBFUZZER -I. $(PKG_CFLAGS) \
	    -o $(FUZZ_BUILD)/fuzz/fuzz_$$t scenarios/fuzz/fz_$$t.c scenarios/fuzz/fz_common.c \
	    $(FUZZ_BUILD)/libhcpsim.a $(PKG_LIBS) -lm || exit 1; \
	done
	sh scenarios/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---- determinism under stress (scenarios/tests/determinism.sh) --------------------------------
# Every example, conformance and runtime scenario, twice in each of a normal, an ASan and an -O0
# build: stdout, exit status and the --trace and --report files must be byte-identical everywhere.
# Not part of make test (minutes).
DET_BUILDS ?= $(BUILD) build-address build-O0
check-determinism:
	$(MAKE) --no-print-directory BUILD=$(word 1,$(DET_BUILDS)) all
	$(MAKE) --no-print-directory SANITIZER=address BUILD=$(word 2,$(DET_BUILDS)) all
	$(MAKE) --no-print-directory OPT=-O0 BUILD=$(word 3,$(DET_BUILDS)) all
	sh scenarios/tests/determinism.sh $(foreach b,$(DET_BUILDS),$(b)/hcpsim)

# ---- conformance report and mutation check (reports/README.md, conformance/README.md) ---------
# make conformance-report: runs every test file of make test (C, Lua, sh; most
# are in conformance/) into $(BUILD)/conformance/suite/, then reports/matrix.pl
# writes the matrix of the catalogue's clauses against the "hcpsim suite"
# column, the native checks in the simulator (hcpsim documented / observed,
# written by make test), Wine 8.0 and Windows (each only if its TAP file
# exists).  JUnit XML goes to $(BUILD)/conformance/junit/.  Not part of make
# test: it runs the suite once more (the valgrind files alone take ~40 CPU s).
SUITE_FILES := $(C_TESTS) $(LUA_TESTS) $(SH_TESTS)
CONF_SUITE  := $(BUILD)/conformance/suite
CONF_OUT    := reports/conformance
CATALOGUE   ?= conformance/clauses.tsv
.PHONY: conformance-suite-tap conformance-report check-mutation
conformance-suite-tap: tests
	@rm -rf $(CONF_SUITE) && mkdir -p $(CONF_SUITE)
	@echo "conformance-suite-tap: $(words $(SUITE_FILES)) test files -> $(CONF_SUITE)/"
	@printf '%s\n' $(SUITE_FILES) | HCPSIM=$(BUILD)/hcpsim HCPSIM_TAP_DIR=$(CONF_SUITE) xargs -P $(JOBS) -I{} sh -c \
	  'b=$$(printf %s "$$1" | tr / _); sh scenarios/tests/runtest "$$1" > /dev/null 2> $(CONF_SUITE)/$$b.err || echo "  $$1: exit $$?"' sh {}
	@HCPSIM_TAP_DIR=$(CONF_SUITE) sh scenarios/tests/runtest conformance/exports.pl > /dev/null || \
	  echo "  conformance/exports.pl: the export coverage check failed"
	@perl conformance/clauses.pl --tap-dir $(CONF_SUITE) $(SUITE_FILES) conformance/exports.pl > $(CONF_SUITE)/conformance_clauses.pl.tap || \
	  echo "  conformance/clauses.pl: the coverage check failed"

conformance-report: conformance-suite-tap
	@mkdir -p $(CONF_OUT) $(BUILD)/conformance/junit
	perl reports/matrix.pl --md $(CONF_OUT)/matrix.md --html $(CONF_OUT)/matrix.html \
	  --junit $(BUILD)/conformance/junit $(CATALOGUE) \
	  $(foreach f,$(SUITE_FILES) conformance/exports.pl conformance/clauses.pl,'hcpsim suite=$(CONF_SUITE)/$(subst /,_,$(f)).tap') \
	  'hcpsim documented=?$(BUILD)/conformance/hcpsim-documented.tap' \
	  'hcpsim observed=?$(BUILD)/conformance/hcpsim-observed.tap' \
	  'hcpsim .exe documented=?$(BUILD)/conformance/hcpsim-exe-documented.tap' \
	  'hcpsim .exe observed=?$(BUILD)/conformance/hcpsim-exe-observed.tap' \
	  'Wine 8.0=?$(CONF_OUT)/wine-8.0.tap' \
	  'Windows=' $(foreach f,$(sort $(wildcard $(CONF_OUT)/windows*.tap)),'Windows=$(f)')
	@echo "conformance-report: $(CONF_OUT)/matrix.md, $(CONF_OUT)/matrix.html, $(BUILD)/conformance/junit/"

# make check-mutation: conformance/mutate.pl copies the tracked tree to a
# temporary directory, applies each single-rule mutation (api/, sim/ with the
# ISA layer, pmu_model/, reports/, scenarios/) in turn, runs make test there
# and requires it to fail (conformance/README.md "Mutation check" has the
# table and the run times).
check-mutation:
	perl conformance/mutate.pl

# make check-sched-model: conformance/sched_model.lua on SEEDS generated scenarios
# (make test runs 240 of them), each as generated (1-3 CPUs) and forced onto one CPU; then the
# run report's cycle accounting on REPORT_SEEDS of them (conformance/sched_report.sh).
SEEDS ?= 5000
REPORT_SEEDS ?= 1000
.PHONY: check-sched-model
check-sched-model: $(BUILD)/hcpsim
	HCPSIM_CLAUSES=conformance/clauses.tsv $(BUILD)/hcpsim run --lua-instructions $$(( $(SEEDS) * 2000000 + 1000000000 )) \
	  conformance/sched_model.lua 1 $(SEEDS) \
	  > $(BUILD)/sched_model.tap; status=$$?; grep -c '^ok' $(BUILD)/sched_model.tap | sed 's/$$/ passed/'; \
	  grep '^not ok' $(BUILD)/sched_model.tap | head -20; echo "TAP: $(BUILD)/sched_model.tap"; \
	  HCPSIM=$(BUILD)/hcpsim SEEDS=$(REPORT_SEEDS) sh conformance/sched_report.sh || status=1; exit $$status

# The header dependencies the compiler wrote (none before the first build).
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
