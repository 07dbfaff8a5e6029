# Guest kernel library (scenarios/kernels/README.md), included by the top Makefile before its
# first rule.  Each scenarios/kernels/NAME.S is assembled with as; its .text bytes (objcopy) become
# k.NAME in $(BUILD)/scenarios/kernels.lua, embedded as the module "hcpsim.kernels".

KERNEL_AS      ?= as
KERNEL_OBJCOPY ?= objcopy
KERNEL_OBJDUMP ?= objdump
# The other guest ISAs (scenarios/kernels/ISA/NAME.S -> hcpsim.kernels_ISA): Debian's cross binutils.
KERNEL_AS_X86       ?= as --32
KERNEL_AS_ARM64     ?= aarch64-linux-gnu-as
KERNEL_AS_ARM       ?= arm-linux-gnueabi-as
KERNEL_OBJCOPY_ARM64 ?= aarch64-linux-gnu-objcopy
KERNEL_OBJCOPY_ARM   ?= arm-linux-gnueabi-objcopy
KERNEL_OBJDUMP_ARM64 ?= aarch64-linux-gnu-objdump
KERNEL_OBJDUMP_ARM   ?= arm-linux-gnueabi-objdump

# spin, memwalk and calls are placed first, in this order, so their guest addresses do not move.
KERNEL_FIRST := $(patsubst %,scenarios/kernels/%.S,spin memwalk calls)
KERNEL_SRC   := $(KERNEL_FIRST) $(filter-out $(KERNEL_FIRST),$(sort $(wildcard scenarios/kernels/*.S)))
KERNEL_OBJ   := $(KERNEL_SRC:%.S=$(BUILD)/%.o)
KERNEL_BIN   := $(KERNEL_SRC:%.S=$(BUILD)/%.bin)

LUA_LIB += $(BUILD)/scenarios/kernels.lua

KERNEL_ISAS := x86 arm64 arm
KERNEL_SRC_x86   := $(sort $(wildcard scenarios/kernels/x86/*.S))
KERNEL_SRC_arm64 := $(sort $(wildcard scenarios/kernels/arm64/*.S))
KERNEL_SRC_arm   := $(sort $(wildcard scenarios/kernels/arm/*.S))
KERNEL_ISA_OBJ := $(foreach i,$(KERNEL_ISAS),$(KERNEL_SRC_$(i):%.S=$(BUILD)/%.o))
KERNEL_ISA_BIN := $(KERNEL_ISA_OBJ:.o=.bin)
LUA_LIB += $(foreach i,$(KERNEL_ISAS),$(BUILD)/scenarios/kernels_$(i).lua)

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

$(BUILD)/scenarios/kernels/x86/%.o: scenarios/kernels/x86/%.S
	@mkdir -p $(dir $@)
	$(KERNEL_AS_X86) -o $@ $<

$(BUILD)/scenarios/kernels/x86/%.bin: $(BUILD)/scenarios/kernels/x86/%.o
	$(KERNEL_OBJCOPY) -O binary -j .text $< $@

$(BUILD)/scenarios/kernels/arm64/%.o: scenarios/kernels/arm64/%.S
	@mkdir -p $(dir $@)
	$(KERNEL_AS_ARM64) -o $@ $<

$(BUILD)/scenarios/kernels/arm64/%.bin: $(BUILD)/scenarios/kernels/arm64/%.o
	$(KERNEL_OBJCOPY_ARM64) -O binary -j .text $< $@

$(BUILD)/scenarios/kernels/arm/%.o: scenarios/kernels/arm/%.S
	@mkdir -p $(dir $@)
	$(KERNEL_AS_ARM) -o $@ $<

$(BUILD)/scenarios/kernels/arm/%.bin: $(BUILD)/scenarios/kernels/arm/%.o
	$(KERNEL_OBJCOPY_ARM) -O binary -j .text $< $@

$(BUILD)/scenarios/kernels_x86.lua: scenarios/kernels/genlua.pl scenarios/kernels/kernels.mk $(KERNEL_SRC_x86) \
		$(KERNEL_SRC_x86:%.S=$(BUILD)/%.o) $(KERNEL_SRC_x86:%.S=$(BUILD)/%.bin)
	OBJDUMP=$(KERNEL_OBJDUMP) perl scenarios/kernels/genlua.pl --isa x86 $(BUILD)/scenarios/kernels/x86 $(KERNEL_SRC_x86) > $@.tmp
	mv $@.tmp $@

$(BUILD)/scenarios/kernels_arm64.lua: scenarios/kernels/genlua.pl scenarios/kernels/kernels.mk $(KERNEL_SRC_arm64) \
		$(KERNEL_SRC_arm64:%.S=$(BUILD)/%.o) $(KERNEL_SRC_arm64:%.S=$(BUILD)/%.bin)
	OBJDUMP=$(KERNEL_OBJDUMP_ARM64) perl scenarios/kernels/genlua.pl --isa arm64 $(BUILD)/scenarios/kernels/arm64 $(KERNEL_SRC_arm64) > $@.tmp
	mv $@.tmp $@

$(BUILD)/scenarios/kernels_arm.lua: scenarios/kernels/genlua.pl scenarios/kernels/kernels.mk $(KERNEL_SRC_arm) \
		$(KERNEL_SRC_arm:%.S=$(BUILD)/%.o) $(KERNEL_SRC_arm:%.S=$(BUILD)/%.bin)
	OBJDUMP=$(KERNEL_OBJDUMP_ARM) perl scenarios/kernels/genlua.pl --isa arm $(BUILD)/scenarios/kernels/arm $(KERNEL_SRC_arm) > $@.tmp
	mv $@.tmp $@

# The objects stay for conformance/callgrind.sh, which links them into a native program.
.SECONDARY: $(KERNEL_OBJ) $(KERNEL_BIN) $(KERNEL_ISA_OBJ) $(KERNEL_ISA_BIN)

.DEFAULT_GOAL := $(KERNEL_SAVED_GOAL)
