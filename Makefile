# hcpsim — one entry point. `make` builds build/hcpsim; `make run` runs the tour;
# `make test` runs every TAP test with prove. Both check dependencies first.

CC      ?= cc
BUILD   ?= build
PKGS    := unicorn capstone lua5.4 jansson
DEB_PKGS := libunicorn-dev liblua5.4-dev libcapstone-dev libjansson-dev pkg-config perl binutils valgrind \
            libxml2-utils
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
CFLAGS_ALL = -std=c17 $(OPT) $(WARN) $(SAN_FLAGS) -I. $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SAN_FLAGS) $(LDFLAGS)

PMU_SRC := pmu_model/pmu.c
SIM_SRC := sim/machine.c sim/cpu.c sim/sched.c sim/objects.c sim/bench.c sim/engine.c
API_SRC := api/platform.c api/errors.c api/handles.c api/profiling.c api/kecfg.c api/waits.c api/times.c api/etw.c api/gate.c
SCN_SRC := scenarios/lhcp.c scenarios/lmachine.c scenarios/lthread.c scenarios/runtime.c
REP_SRC := reports/trace.c reports/report.c reports/out.c
LUA_LIB := scenarios/lib/tap.lua
MAIN    := scenarios/main.c

LIB_SRC := $(PMU_SRC) $(SIM_SRC) $(API_SRC) $(REP_SRC) $(SCN_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/scenarios/luasrc.o
HEADERS := $(wildcard */*.h)

C_TESTS := $(patsubst %.c,$(BUILD)/%.t,$(wildcard pmu_model/tests/*_test.c sim/tests/*_test.c api/tests/*_test.c))
LUA_TESTS := $(sort $(wildcard conformance/*.lua scenarios/tests/*.lua))
SH_TESTS := $(sort $(wildcard scenarios/tests/*.sh conformance/*.sh))

# Guest kernel library (scenarios/kernels/): may add rules and redefine LUA_LIB.
-include scenarios/kernels/kernels.mk

.PHONY: all deps check-deps run test tests clean check-asan check-ubsan check-valgrind lint format bench \
        deps-browser check-browser
all: check-deps $(BUILD)/hcpsim

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

check-deps:
	@pkg-config --exists $(PKGS) && command -v prove as objcopy valgrind xmllint >/dev/null || $(MAKE) --no-print-directory deps
	@pkg-config --atleast-version=2.0.1 unicorn || { echo "hcpsim needs Unicorn >= 2.0.1" >&2; exit 1; }

# ---- build ------------------------------------------------------------------------------
$(BUILD)/%.o: %.c $(HEADERS) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

# Lua helper modules are embedded in the binary (no search path, nothing to install).
$(BUILD)/scenarios/luasrc.c: $(LUA_LIB) scenarios/embed.pl
	@mkdir -p $(dir $@)
	perl scenarios/embed.pl $(LUA_LIB) > $@

$(BUILD)/scenarios/luasrc.o: $(BUILD)/scenarios/luasrc.c
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/libhcpsim.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/hcpsim: $(BUILD)/$(MAIN:.c=.o) $(BUILD)/libhcpsim.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/%.t: %.c $(BUILD)/libhcpsim.a $(HEADERS) conformance/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libhcpsim.a $(LDFLAGS_ALL) $(PKG_LIBS) -lm

# ---- run and test -----------------------------------------------------------------------
run: all
	$(BUILD)/hcpsim run --report $(BUILD)/tour.html scenarios/examples/tour.lua
	@echo "report: $(BUILD)/tour.html (open it in a browser)"

tests: all $(C_TESTS)

test: tests
	HCPSIM=$(BUILD)/hcpsim prove -j$(JOBS) --exec 'sh scenarios/tests/runtest' \
	  $(C_TESTS) $(LUA_TESTS) $(SH_TESTS)

check-asan:
	$(MAKE) SANITIZER=address test
check-ubsan:
	$(MAKE) SANITIZER=undefined test
check-valgrind: tests
	HCPSIM="valgrind -q --smc-check=all-non-file --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 $(abspath $(BUILD))/hcpsim" \
	  prove -j$(JOBS) --exec 'sh scenarios/tests/runtest' $(LUA_TESTS)

bench: all
	$(BUILD)/hcpsim bench
	sh reports/bench/native.sh $(BUILD)

# The tour's HTML report rendered by headless Chromium (not part of `make test`: it takes a while).
deps-browser:
	@command -v chromium >/dev/null && echo "deps-browser: chromium present" && exit 0; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps-browser: installing chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || exit 1; \
	else \
	  echo "deps-browser: run: sudo apt-get update && sudo apt-get install -y chromium" >&2; exit 1; \
	fi

check-browser: all
	HCPSIM=$(BUILD)/hcpsim sh scenarios/tests/report.sh browser $(BUILD)/browser

format:
	clang-format -i $(LIB_SRC) $(MAIN) $(HEADERS) $(wildcard */tests/*.c)
lint:
	clang-format --dry-run -Werror $(LIB_SRC) $(MAIN) $(HEADERS) $(wildcard */tests/*.c)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 -I. $(LIB_SRC) $(MAIN)

clean:
	rm -rf build build-*

# ---- fuzzing (scenarios/fuzz/README.md) ------------------------------------------------------
# make fuzz: libFuzzer targets built with clang under ASan+UBSan in $(FUZZ_BUILD), each run for
# FUZZ_SECONDS; an input that crashes is kept in scenarios/fuzz/regressions/TARGET/, and
# regress_test.t (part of make test) replays every kept input with the normal compiler.
.PHONY: fuzz fuzz-deps check-determinism
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= lua api marshal guest
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
# Every example and conformance scenario, twice in each of a normal, an ASan and an -O0 build:
# stdout and exit status must be byte-identical everywhere.  Not part of make test (minutes).
DET_BUILDS ?= $(BUILD) build-address build-O0
check-determinism:
	$(MAKE) --no-print-directory BUILD=$(word 1,$(DET_BUILDS)) all
	$(MAKE) --no-print-directory SANITIZER=address BUILD=$(word 2,$(DET_BUILDS)) all
	$(MAKE) --no-print-directory OPT=-O0 BUILD=$(word 3,$(DET_BUILDS)) all
	sh scenarios/tests/determinism.sh $(foreach b,$(DET_BUILDS),$(b)/hcpsim)
