# hcpsim — one entry point. `make` builds build/hcpsim; `make run` runs the tour;
# `make test` runs every TAP test with prove. Both check dependencies first.

CC      ?= cc
BUILD   ?= build
PKGS    := unicorn capstone lua5.4
DEB_PKGS := libunicorn-dev liblua5.4-dev libcapstone-dev pkg-config perl binutils valgrind
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
SIM_SRC := sim/machine.c sim/cpu.c sim/sched.c sim/objects.c sim/bench.c
API_SRC := api/errors.c api/handles.c api/profiling.c api/kecfg.c api/waits.c api/times.c api/etw.c api/gate.c
SCN_SRC := scenarios/lhcp.c scenarios/lmachine.c scenarios/lthread.c scenarios/runtime.c
REP_SRC := reports/trace.c
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

.PHONY: all deps check-deps run test tests clean check-asan check-ubsan check-valgrind lint format bench
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
	@pkg-config --exists $(PKGS) && command -v prove as objcopy valgrind >/dev/null || $(MAKE) --no-print-directory deps
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
	$(BUILD)/hcpsim run scenarios/examples/tour.lua

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

format:
	clang-format -i $(LIB_SRC) $(MAIN) $(HEADERS) $(wildcard */tests/*.c)
lint:
	clang-format --dry-run -Werror $(LIB_SRC) $(MAIN) $(HEADERS) $(wildcard */tests/*.c)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 -I. $(LIB_SRC) $(MAIN)

clean:
	rm -rf build build-*
