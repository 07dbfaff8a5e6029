# Guest kernel library (scenarios/kernels/README.md), included by the top Makefile before its
# first rule.  Each scenarios/kernels/NAME.S is assembled with as; its .text bytes (objcopy) become
# k.NAME in $(BUILD)/scenarios/kernels.lua, embedded as the module "hcpsim.kernels".

KERNEL_AS      ?= as
KERNEL_OBJCOPY ?= objcopy
KERNEL_OBJDUMP ?= objdump

# spin, memwalk and calls are placed first, in this order, so their guest addresses do not move.
KERNEL_FIRST := $(patsubst %,scenarios/kernels/%.S,spin memwalk calls)
KERNEL_SRC   := $(KERNEL_FIRST) $(filter-out $(KERNEL_FIRST),$(sort $(wildcard scenarios/kernels/*.S)))
KERNEL_OBJ   := $(KERNEL_SRC:%.S=$(BUILD)/%.o)
KERNEL_BIN   := $(KERNEL_SRC:%.S=$(BUILD)/%.bin)

LUA_LIB += $(BUILD)/scenarios/kernels.lua

# This fragment comes before the top Makefile's first rule: keep its default goal (`all`).
KERNEL_SAVED_GOAL := $(.DEFAULT_GOAL)

$(BUILD)/scenarios/kernels/%.o: scenarios/kernels/%.S
	@mkdir -p $(dir $@)
	$(KERNEL_AS) --64 -o $@ $<

$(BUILD)/scenarios/kernels/%.bin: $(BUILD)/scenarios/kernels/%.o
	$(KERNEL_OBJCOPY) -O binary -j .text $< $@

$(BUILD)/scenarios/kernels.lua: scenarios/kernels/genlua.pl scenarios/kernels/kernels.mk $(KERNEL_SRC) $(KERNEL_OBJ) $(KERNEL_BIN)
	OBJDUMP=$(KERNEL_OBJDUMP) perl scenarios/kernels/genlua.pl $(BUILD)/scenarios/kernels $(KERNEL_SRC) > $@.tmp
	mv $@.tmp $@

# The objects stay for conformance/callgrind.sh, which links them into a native program.
.SECONDARY: $(KERNEL_OBJ) $(KERNEL_BIN)

.DEFAULT_GOAL := $(KERNEL_SAVED_GOAL)
