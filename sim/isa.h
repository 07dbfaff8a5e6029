/* sim/isa.h — the guest instruction sets (sim/ only).
 *
 * One descriptor per sim_arch says everything cpu.c and machine.c need to
 * know about an ISA: the Unicorn and capstone arch/mode, the guest address
 * layout, the register ids, how one decoded instruction becomes the facts
 * pmu_classify() prices, which instructions the model serves or refuses
 * (traps), the call-gate thunk and how the gate is entered, how a guest call
 * is set up and its arguments read, and how exceptions map to Windows codes.
 * Block counting, the predictor, the caches and the scheduler are the same
 * code for every ISA (sim/README.md "ISA layer"). */
#ifndef HCPSIM_SIM_ISA_H
#define HCPSIM_SIM_ISA_H

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "sim/sim.h"

/* Where things live in the guest address space (sim/README.md "Guest memory"). */
typedef struct sim_layout {
    uint64_t code, code_end;  /* sim_code: [code, code_end) */
    uint64_t data;            /* sim_alloc: up to heap */
    uint64_t heap, heap_size; /* sim_heap_alloc: OS blocks */
    uint64_t gate;            /* the call gate's thunk page */
    uint64_t stack;           /* stack slots: up to scratch */
    uint64_t scratch;         /* one marshalling page */
    uint64_t sentinel;        /* return address of t:run; never executes */
} sim_layout;

/* Instructions the model serves or refuses (cpu.c traps). */
typedef enum trap_kind {
    TRAP_RDTSC,   /* x86: edx:eax = virtual clock */
    TRAP_RDTSCP,  /* x86: as RDTSC, ecx = 0 */
    TRAP_RDPMC,   /* x86: edx:eax = PMC ecx */
    TRAP_PRIV,    /* a privileged instruction: SIM_FAULT_PRIVILEGED */
    TRAP_ILLEGAL, /* SIM_FAULT_ILLEGAL (ARM: UNDEFINED at EL0) */
    TRAP_CLOCK,   /* ARM64 mrs Xt, PMCCNTR_EL0 / CNTVCT_EL0: Xt = virtual clock */
} trap_kind;

/* What the fault recovery (sim/replay.c) needs of one instruction, in bits of the ISA's replay
 * register set (sim_isa.replay_regs; the last two bits are "a segment register" and "any other
 * register": state the set does not hold, which a replay can only restore with the whole CPU
 * context). */
typedef struct replay_insn {
    uint64_t rd, wr; /* registers read, written */
    uint64_t kill;   /* written whole: their old value is dead after it */
    uint64_t fault;  /* registers that decide whether it faults: its memory addresses, a rep count, a divisor */
    uint64_t data;   /* registers it writes with what it read from memory (not a pointer it moves) */
    uint64_t src;    /* registers it stores to memory as they are (mov [m], r; push r; str) */
    bool mem;        /* it reads or writes data memory: a data fault can come from it */
    bool simple;     /* one access, at base register + displacement (no index): [base_bit + disp, + size) */
    int8_t base_bit;
    int32_t disp;
    uint32_t size;
    uint8_t df;  /* x86: 1 reads the flags for the direction flag only (a string instruction), 2 loads
                    the direction flag from memory (popf) */
    bool atomic; /* an atomic access (x86 xchg with memory, LOCK; ARM64 store-exclusive): Unicorn
                    calls no memory hook for it and does not sync the PC before it */
} replay_insn;

typedef struct sim_isa sim_isa;
struct sim_isa {
    sim_arch arch;
    const char *name;
    uc_arch uc_arch;
    uc_mode uc_mode;
    cs_arch cs_arch;
    cs_mode cs_mode;
    unsigned ptr; /* pointer and stack-slot size: 4 or 8 */
    const sim_layout *lay;
    int reg_pc, reg_sp, reg_ret;
    /* Facts (PMU_I_*) of one decoded instruction (detail on). */
    unsigned (*facts)(csh cs, const cs_insn *in);
    /* Trap kind of a decoded instruction, or -1; *reg: destination register (TRAP_CLOCK). */
    int (*trap_of)(csh cs, const cs_insn *in, int *reg);
    /* Code just placed: addresses the engine must never translate (x86 far calls), or NULL. */
    sim_err (*placed)(sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t n);
    /* Guarded code (sim_map_fixed): whether an instruction starting at win[0] (n bytes of it, the
     * code's bytes, fewer where they end) is one the engine must not translate; NULL: the ISA has
     * no guarded code (its fixed mappings get trap points as placed code does). */
    bool (*guard_bad)(sim_machine *m, const uint8_t *win, size_t n);
    /* The call gate: thunk k's bytes (SIM_GATE_STRIDE of them); the offset of
     * the gate-entering instruction in a thunk and the address the engine
     * reports for it in the hook (entry + entry_len); the UC_HOOK_INTR number
     * that enters the gate, or -1 (x64: the syscall instruction hook). */
    void (*thunk)(uint8_t *p, uint32_t k);
    uint32_t gate_entry, gate_entry_len;
    int gate_intno;
    /* Service number of a gate entry at thunk `k` (x86: eax; ARM: the thunk). */
    uint32_t (*gate_service)(sim_machine *m, uint32_t k);
    /* Guest call set-up: stack image, argument registers, return address = sentinel. */
    sim_err (*call_setup)(sim_machine *m, sim_thread *t, const uint64_t *args, int nargs, uint64_t *sp_out);
    /* Argument word k of a gate call, as the thunk's entry sees it. */
    sim_err (*gate_arg)(sim_machine *m, int k, uint64_t *v);
    /* The guest address of argument word k when it is on the stack; SIM_ERR_ARG for a register. */
    sim_err (*gate_arg_at)(sim_machine *m, int k, uint64_t *addr);
    /* A 64-bit argument of this 32-bit convention starts at an even word (AAPCS: an even
     * register or stack pair); else at the next word (x86). */
    bool pair_even;
    /* Floating-point argument k (x64: by position) or fp (ARM64: by FP count) of a gate call, and the
     * floating-point result register; NULL where the convention passes them in argument words. */
    sim_err (*gate_fparg)(sim_machine *m, int k, int fp, uint64_t *bits);
    void (*set_fp_result)(sim_machine *m, uint64_t bits, bool dbl);
    /* The return value register, as a 64-bit value (32-bit ISAs: sign-extended). */
    uint64_t (*result)(sim_machine *m);
    void (*set_result)(sim_machine *m, uint64_t v);
    /* Exceptions delivered through UC_HOOK_INTR: Windows code, and whether
     * the address reported is after the instruction (a trap) or at it. */
    sim_fault_kind (*intr_fault)(int intno);
    bool (*intr_is_trap)(int intno);
    /* The registers as a sim_context, and back (segments and the pc are the caller's; NULL: the ISA
     * has no contexts). */
    void (*ctx_get)(sim_machine *m, sim_context *c);
    void (*ctx_set)(sim_machine *m, const sim_context *c);
    /* Serves a trapped instruction (not TRAP_PRIV/TRAP_ILLEGAL). */
    void (*serve)(sim_machine *m, sim_thread *t, trap_kind k, int reg);
    /* Fault recovery (sim/replay.c; NULL: the engine's own fault address stands, ARM): one decoded
     * instruction's registers, and the Unicorn ids of the replay set's first nreplay_regs bits
     * (the set's two bits above them stand for segment and other registers). */
    void (*replay_of)(csh cs, const cs_insn *in, replay_insn *r);
    const int *replay_regs;
    int nreplay_regs;
    /* The bit of a flags register the engine does not keep at a fault (x86: Unicorn 2.0.1 leaves
     * EFLAGS computed from a stale lazy-flags state, system bits included, when a block stops at a
     * data fault), or -1; and the value a replay starts from when the block saved none (x86: 0x202,
     * IF and the reserved bit). */
    int replay_flags;
    uint64_t replay_flags_start;
    /* The data address and size of an atomic instruction (replay_insn.atomic) from the engine's
     * registers; false when it cannot say. */
    bool (*replay_ea)(sim_machine *m, const cs_insn *in, uint64_t *ea, uint32_t *size);
};

extern const sim_isa sim_isa_x64, sim_isa_x86, sim_isa_arm64, sim_isa_arm;
/* The descriptor of an arch, or NULL. */
const sim_isa *sim_isa_of(sim_arch a);

/* Shared by the descriptors (cpu.c / machine.c). */
uint64_t sim_reg(sim_machine *m, int reg);
void sim_reg_set(sim_machine *m, int reg, uint64_t v);
uint64_t sim_exec_clock(const sim_machine *m);
/* Guest little-endian word of `size` bytes at addr. */
sim_err sim_read_word(sim_machine *m, uint64_t addr, unsigned size, uint64_t *v);

#endif
