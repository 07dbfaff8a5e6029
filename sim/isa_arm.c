/* sim/isa_arm.c — the ARM guest ISAs: AArch64 (AAPCS64, Windows on ARM64)
 * and 32-bit ARM in ARM state (AAPCS, Windows CE).  Decoding into pmu facts,
 * served and refused instructions, the gate thunks (`svc #k`), guest calls
 * and exception codes (sim/README.md "ISA layer"). */
#include <string.h>

#include "sim/sim_int.h"

extern const sim_layout sim_layout32;

/* Unicorn 2.0.1 (QEMU 5) exception numbers handed to UC_HOOK_INTR on ARM. */
enum { EXCP_UDEF = 1, EXCP_SWI = 2, EXCP_PREFETCH_ABORT = 3, EXCP_DATA_ABORT = 4, EXCP_BKPT = 7 };

/* The AArch64 layout is the x64 one: QEMU's CPU has 48 physical address bits. */
static const sim_layout lay64 = {
    .code = UINT64_C(0x0000000140000000),
    .code_end = UINT64_C(0x00007FF000000000),
    .data = UINT64_C(0x0000000010000000),
    .heap = UINT64_C(0x0000000070000000),
    .heap_size = UINT64_C(0x0000000004000000),
    .gate = UINT64_C(0x0000000100000000),
    .stack = UINT64_C(0x00007FF000000000),
    .scratch = UINT64_C(0x00007FFFFFFD0000),
    .sentinel = UINT64_C(0x00007FFFFFFE0000),
};

static bool prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* ---- AArch64 decoding ------------------------------------------------------------------------ */

static bool a64_fp_reg(unsigned r) {
    return (r >= ARM64_REG_B0 && r <= ARM64_REG_S31) || (r >= ARM64_REG_V0 && r <= ARM64_REG_V31);
}

static unsigned a64_facts(csh cs, const cs_insn *in) {
    const cs_arm64 *x = &in->detail->arm64;
    unsigned f = 0;
    switch (in->id) {
    case ARM64_INS_B:
        f |= PMU_I_BRANCH;
        if (x->cc != ARM64_CC_INVALID && x->cc != ARM64_CC_AL) f |= PMU_I_COND;
        break;
    case ARM64_INS_CBZ:
    case ARM64_INS_CBNZ:
    case ARM64_INS_TBZ:
    case ARM64_INS_TBNZ: f |= PMU_I_BRANCH | PMU_I_COND; break;
    case ARM64_INS_BL: f |= PMU_I_BRANCH | PMU_I_CALL; break;
    case ARM64_INS_BLR: f |= PMU_I_BRANCH | PMU_I_CALL | PMU_I_INDIRECT; break;
    case ARM64_INS_BR: f |= PMU_I_BRANCH | PMU_I_INDIRECT; break;
    case ARM64_INS_RET: f |= PMU_I_BRANCH | PMU_I_RET; break;
    case ARM64_INS_SVC: f |= PMU_I_BRANCH | PMU_I_SYSTEM; break; /* enters the OS, like x64 syscall */
    case ARM64_INS_MUL:
    case ARM64_INS_MADD:
    case ARM64_INS_MSUB:
    case ARM64_INS_MNEG:
    case ARM64_INS_SMULL:
    case ARM64_INS_UMULL:
    case ARM64_INS_SMULH:
    case ARM64_INS_UMULH:
    case ARM64_INS_SMADDL:
    case ARM64_INS_UMADDL: f |= PMU_I_MUL; break;
    case ARM64_INS_SDIV:
    case ARM64_INS_UDIV: f |= PMU_I_DIV; break;
    case ARM64_INS_MOV:
    case ARM64_INS_MOVZ:
    case ARM64_INS_MOVK:
    case ARM64_INS_MOVN:
    case ARM64_INS_NOP: f |= PMU_I_MOVE; break;
    case ARM64_INS_MRS:
    case ARM64_INS_MSR:
    case ARM64_INS_DMB:
    case ARM64_INS_DSB:
    case ARM64_INS_ISB:
    case ARM64_INS_BRK:
    case ARM64_INS_HLT:
    case ARM64_INS_HVC:
    case ARM64_INS_SMC:
    case ARM64_INS_ERET:
    case ARM64_INS_WFI:
    case ARM64_INS_WFE:
    case ARM64_INS_YIELD:
    case ARM64_INS_CLREX: f |= PMU_I_SYSTEM; break;
    default: break;
    }
    /* Every ld* reads data memory and every st* writes it (ldp/stp are one
     * instruction; prfm reads nothing, like x86 prefetch). */
    if (prefix(in->mnemonic, "ld")) f |= PMU_I_LOAD;
    if (prefix(in->mnemonic, "st")) f |= PMU_I_STORE;
    for (int i = 0; i < x->op_count; i++)
        if (x->operands[i].type == ARM64_OP_REG && a64_fp_reg(x->operands[i].reg)) f |= PMU_I_FP;
    if (cs_insn_group(cs, in, ARM64_GRP_FPARMV8) || cs_insn_group(cs, in, ARM64_GRP_NEON)) f |= PMU_I_FP;
    return f;
}

/* Unicorn register of X<rt> (31: the zero register, no write). */
static int a64_xreg(unsigned rt) {
    if (rt < 29) return UC_ARM64_REG_X0 + (int)rt;
    if (rt == 29) return UC_ARM64_REG_X29;
    if (rt == 30) return UC_ARM64_REG_X30;
    return -1;
}

#define SYSREG_PMCCNTR_EL0 0xDCE8u /* op0 3, op1 3, CRn 9, CRm 13, op2 0 */
#define SYSREG_CNTVCT_EL0 0xDF02u
#define SYSREG_CNTPCT_EL0 0xDF01u
#define SYSREG_CNTFRQ_EL0 0xDF00u

/* The register an MRS or MSR (register) word names, as op0:op1:CRn:CRm:op2 (the
 * SYSREG_ values), or -1 for another word. */
static int a64_sysreg(uint32_t w) {
    if ((w & 0xFFD00000u) != 0xD5100000u) return -1; /* 1101 0101 00 L 1 ...: op0 = 2 + bit 19 */
    return (int)(((w >> 5) & 0x7FFFu) | 0x8000u);    /* op0 = 2 + o0 */
}

/* Performance-monitor (CRn 9) and generic-timer (CRn 14) registers of op1 = 3 are
 * reachable from EL0 when the kernel allows it, and Unicorn runs ARM64 guests at
 * EL1, where QEMU serves them: the timer values (CNTP_TVAL_EL0, CNTV_TVAL_EL0)
 * and the counters behind PMXEVCNTR_EL0 come from the host's clock, so two runs
 * would differ.  Reads of the three counters the model serves read the virtual
 * clock (TRAP_CLOCK); CNTFRQ_EL0 is a constant; every other read or write of
 * these registers is an illegal-instruction fault. */
static int a64_sysreg_trap(uint32_t w, int *reg) {
    int sr = a64_sysreg(w);
    if (sr < 0) return -1;
    unsigned op1 = ((unsigned)sr >> 11) & 7u, crn = ((unsigned)sr >> 7) & 15u;
    bool mrs = (w >> 21) & 1u;
    if ((unsigned)sr >> 14 != 3u || op1 != 3u || (crn != 9u && crn != 14u)) return -1;
    if (mrs && (sr == SYSREG_PMCCNTR_EL0 || sr == SYSREG_CNTVCT_EL0 || sr == SYSREG_CNTPCT_EL0)) {
        *reg = a64_xreg(w & 31u);
        return TRAP_CLOCK;
    }
    if (mrs && sr == SYSREG_CNTFRQ_EL0) return -1;
    return TRAP_ILLEGAL;
}

static int a64_trap(csh cs, const cs_insn *in, int *reg) {
    (void)cs;
    *reg = -1;
    const cs_arm64 *x = &in->detail->arm64;
    uint32_t w;
    memcpy(&w, in->bytes, 4);
    switch (in->id) {
    case ARM64_INS_MRS: return a64_sysreg_trap(w, reg);
    case ARM64_INS_HVC:
    case ARM64_INS_SMC:
    case ARM64_INS_ERET:
    case ARM64_INS_WFI: return TRAP_ILLEGAL; /* UNDEFINED (or trapped to the OS) at EL0 */
    case ARM64_INS_MSR:
        /* msr daifset/daifclr and writes of EL1 registers: UNDEFINED at EL0 */
        if (x->op_count >= 1 && x->operands[0].type == ARM64_OP_PSTATE) return TRAP_ILLEGAL;
        return a64_sysreg_trap(w, reg);
    default: return -1;
    }
}

/* ---- ARM (A32) decoding ---------------------------------------------------------------------- */

static bool a32_has_pc(const cs_arm *x) {
    for (int i = 0; i < x->op_count; i++)
        if (x->operands[i].type == ARM_OP_REG && x->operands[i].reg == ARM_REG_PC) return true;
    return false;
}

static unsigned a32_facts(csh cs, const cs_insn *in) {
    const cs_arm *x = &in->detail->arm;
    const char *mn = in->mnemonic;
    unsigned f = 0;
    bool cond = x->cc != ARM_CC_INVALID && x->cc != ARM_CC_AL;
    bool load = prefix(mn, "ldr") || prefix(mn, "ldm") || prefix(mn, "pop") || prefix(mn, "vldr") ||
                prefix(mn, "vld") || prefix(mn, "vpop") || prefix(mn, "ldc");
    bool store = prefix(mn, "str") || prefix(mn, "stm") || prefix(mn, "push") || prefix(mn, "vstr") ||
                 prefix(mn, "vst") || prefix(mn, "vpush") || prefix(mn, "stc");
    if (load) f |= PMU_I_LOAD;
    if (store) f |= PMU_I_STORE;
    switch (in->id) {
    case ARM_INS_B: f |= PMU_I_BRANCH; break;
    case ARM_INS_BL: f |= PMU_I_BRANCH | PMU_I_CALL; break;
    case ARM_INS_BLX:
        f |= PMU_I_BRANCH | PMU_I_CALL;
        if (x->op_count == 1 && x->operands[0].type == ARM_OP_REG) f |= PMU_I_INDIRECT;
        break;
    case ARM_INS_BX:
        f |= PMU_I_BRANCH;
        f |= x->op_count == 1 && x->operands[0].reg == ARM_REG_LR ? PMU_I_RET : PMU_I_INDIRECT;
        break;
    case ARM_INS_SVC: f |= PMU_I_BRANCH | PMU_I_SYSTEM; break; /* enters the OS, like x64 syscall */
    case ARM_INS_MUL:
    case ARM_INS_MLA:
    case ARM_INS_MLS:
    case ARM_INS_UMULL:
    case ARM_INS_SMULL:
    case ARM_INS_UMLAL:
    case ARM_INS_SMLAL: f |= PMU_I_MUL; break;
    case ARM_INS_SDIV:
    case ARM_INS_UDIV: f |= PMU_I_DIV; break;
    case ARM_INS_MOV:
    case ARM_INS_MOVW:
    case ARM_INS_MOVT:
    case ARM_INS_NOP: f |= PMU_I_MOVE; break;
    case ARM_INS_MRS:
    case ARM_INS_MSR:
    case ARM_INS_MRC:
    case ARM_INS_MCR:
    case ARM_INS_DMB:
    case ARM_INS_DSB:
    case ARM_INS_ISB:
    case ARM_INS_BKPT:
    case ARM_INS_UDF:
    case ARM_INS_CPS:
    case ARM_INS_WFI:
    case ARM_INS_WFE:
    case ARM_INS_HVC:
    case ARM_INS_SMC: f |= PMU_I_SYSTEM; break;
    default: break;
    }
    /* Any other instruction that writes the PC is a branch: pop {..., pc} and
     * ldm sp!, {..., pc} return; mov pc, lr returns; others are indirect. */
    if (!(f & PMU_I_BRANCH) && !store && a32_has_pc(x) &&
        (load ? true : x->op_count >= 1 && x->operands[0].type == ARM_OP_REG && x->operands[0].reg == ARM_REG_PC)) {
        f |= PMU_I_BRANCH;
        bool from_sp =
            in->id == ARM_INS_POP ||
            (load && x->op_count >= 1 && x->operands[0].type == ARM_OP_REG && x->operands[0].reg == ARM_REG_SP) ||
            (in->id == ARM_INS_LDR && x->op_count >= 2 && x->operands[1].type == ARM_OP_MEM &&
             x->operands[1].mem.base == ARM_REG_SP);
        bool mov_lr = in->id == ARM_INS_MOV && x->op_count == 2 && x->operands[1].type == ARM_OP_REG &&
                      x->operands[1].reg == ARM_REG_LR;
        f |= from_sp || mov_lr ? PMU_I_RET : PMU_I_INDIRECT;
    }
    if ((f & PMU_I_BRANCH) && cond) f |= PMU_I_COND;
    if (prefix(mn, "v") || cs_insn_group(cs, in, ARM_GRP_VFP2) || cs_insn_group(cs, in, ARM_GRP_NEON)) f |= PMU_I_FP;
    return f;
}

/* cps, wfi, smc, hvc and writes of the CPSR control field: UNDEFINED (or
 * trapped) in user mode, an illegal-instruction fault under Windows. */
static int a32_trap(csh cs, const cs_insn *in, int *reg) {
    (void)cs;
    *reg = -1;
    switch (in->id) {
    case ARM_INS_CPS:
    case ARM_INS_WFI:
    case ARM_INS_SMC:
    case ARM_INS_HVC: return TRAP_ILLEGAL;
    default: return -1;
    }
}

/* Coprocessor 14 and 15 (debug, system control, generic timer, performance
 * monitors): Unicorn runs ARM guests in SVC mode, where such accesses reach
 * QEMU's system registers, and some of those (CNTPCT, CNTVCT, the timer
 * values, PMCCNTR) come from the host's clock: a guest could read host time
 * and two runs would differ.  QEMU also decodes every LDC/STC to cp14/cp15 as
 * MCRR/MRRC (ldc p15, c15, [r0, #-0x78] reads CNTVCT into r0:pc), where
 * capstone sees a load, so the trap scan cannot be trusted with them.  Each
 * place such an instruction may start becomes an exit, as x86's far calls
 * (isa_x86.c): an illegal-instruction fault whatever its condition (user mode
 * without the kernel's permission).
 * ARM words (4-byte aligned): MRC/MCR (cccc 1110 xxx x xxxx xxxx 111x xxx1)
 * and LDC/STC/MCRR/MRRC (cccc 110x xxxx xxxx xxxx 111x xxxx xxxx).  Thumb-2
 * (entered by a branch to an odd address; not modelled otherwise): the same
 * instructions are 111x 11xx xxxx xxxx, xxxx 111x xxxx xxxx at any halfword.
 * The same four bytes at a word boundary may be an ARM `svc` whose immediate has
 * bits 15-13 and 11-10 set: such an svc is an illegal-instruction fault too (the
 * gate's own svc immediates are below 256). */
static bool a32_is_cp1415(uint32_t w) {
    if (((w >> 8) & 0xEu) != 0xEu) return false;
    return ((w >> 25) & 7u) == 6u || (((w >> 24) & 0xFu) == 0xEu && (w & 0x10u));
}

static sim_err placed_a32(sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t n) {
    for (size_t i = 0; i + 4 <= n; i += 2) {
        uint32_t lo = (uint32_t)bytes[i] | (uint32_t)bytes[i + 1] << 8;
        uint32_t hi = (uint32_t)bytes[i + 2] | (uint32_t)bytes[i + 3] << 8;
        bool arm = (addr + i) % 4 == 0 && a32_is_cp1415(lo | hi << 16);
        bool thumb = (lo & 0xEC00u) == 0xEC00u && ((hi >> 8) & 0xEu) == 0xEu;
        if (arm || thumb) {
            sim_err e = sim_cpu_add_exit(m, addr + i);
            if (e != SIM_OK) return e;
        }
    }
    return SIM_OK;
}

/* ---- the gate ------------------------------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t w) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(w >> (8 * i));
}

/* AArch64 thunk k: svc #k (D4000001 | k << 5), ret (D65F03C0), brk #0 padding. */
static void thunk_a64(uint8_t *p, uint32_t k) {
    put32(p, 0xD4000001u | (k << 5));
    put32(p + 4, 0xD65F03C0u);
    put32(p + 8, 0xD4200000u);
    put32(p + 12, 0xD4200000u);
}

/* ARM thunk k: svc #k (EF000000 | k), bx lr (E12FFF1E), udf padding. */
static void thunk_a32(uint8_t *p, uint32_t k) {
    put32(p, 0xEF000000u | k);
    put32(p + 4, 0xE12FFF1Eu);
    put32(p + 8, 0xE7F000F0u);
    put32(p + 12, 0xE7F000F0u);
}

/* The service is the thunk's: svc's immediate is k. */
static uint32_t service_thunk(sim_machine *m, uint32_t k) {
    (void)m;
    return k;
}

/* ---- calls ---------------------------------------------------------------------------------- */

/* AAPCS64: x0-x7, further arguments at [sp], [sp+8], ...; sp 16-byte aligned;
 * the return address in x30 (LR). */
static sim_err setup_a64(sim_machine *m, sim_thread *t, const uint64_t *args, int nargs, uint64_t *sp_out) {
    int nstack = nargs > 8 ? nargs - 8 : 0;
    uint64_t sp = (t->stack_hi - 8 * (uint64_t)nstack - 16) & ~UINT64_C(15);
    for (int k = 0; k < nstack; k++)
        if (uc_mem_write(m->uc, sp + 8 * (uint64_t)k, &args[8 + k], 8) != UC_ERR_OK) return SIM_ERR_UNICORN;
    for (int k = 0; k < nargs && k < 8; k++) sim_reg_set(m, UC_ARM64_REG_X0 + k, args[k]);
    sim_reg_set(m, UC_ARM64_REG_X30, m->lay->sentinel);
    sim_reg_set(m, UC_ARM64_REG_SP, sp);
    *sp_out = sp;
    return SIM_OK;
}

/* AAPCS: r0-r3, further argument words at [sp], [sp+4], ...; sp 8-byte
 * aligned; the return address in r14 (LR), bit 0 clear (ARM state). */
static sim_err setup_a32(sim_machine *m, sim_thread *t, const uint64_t *args, int nargs, uint64_t *sp_out) {
    int nstack = nargs > 4 ? nargs - 4 : 0;
    uint64_t sp = (t->stack_hi - 4 * (uint64_t)nstack - 8) & ~UINT64_C(7);
    for (int k = 0; k < nstack; k++) {
        uint32_t w = (uint32_t)args[4 + k];
        if (uc_mem_write(m->uc, sp + 4 * (uint64_t)k, &w, 4) != UC_ERR_OK) return SIM_ERR_UNICORN;
    }
    for (int k = 0; k < nargs && k < 4; k++) sim_reg_set(m, UC_ARM_REG_R0 + k, (uint32_t)args[k]);
    sim_reg_set(m, UC_ARM_REG_LR, (uint32_t)m->lay->sentinel);
    sim_reg_set(m, UC_ARM_REG_SP, sp);
    *sp_out = sp;
    return SIM_OK;
}

/* At the thunk's svc: x0-x7, then [sp+8(k-8)] (the thunk pushes nothing). */
static sim_err gate_arg_at_a64(sim_machine *m, int k, uint64_t *addr) {
    if (k < 8) return SIM_ERR_ARG;
    *addr = sim_reg(m, UC_ARM64_REG_SP) + 8 * (uint64_t)(k - 8);
    return SIM_OK;
}
static sim_err gate_arg_a64(sim_machine *m, int k, uint64_t *v) {
    if (k < 8) {
        *v = sim_reg(m, UC_ARM64_REG_X0 + k);
        return SIM_OK;
    }
    uint64_t at = 0;
    gate_arg_at_a64(m, k, &at);
    return sim_read_word(m, at, 8, v);
}

/* At the thunk's svc: r0-r3, then [sp+4(k-4)]. */
static sim_err gate_arg_at_a32(sim_machine *m, int k, uint64_t *addr) {
    if (k < 4) return SIM_ERR_ARG;
    *addr = (uint32_t)sim_reg(m, UC_ARM_REG_SP) + 4 * (uint64_t)(k - 4);
    return SIM_OK;
}
static sim_err gate_arg_a32(sim_machine *m, int k, uint64_t *v) {
    if (k < 4) {
        *v = (uint32_t)sim_reg(m, UC_ARM_REG_R0 + k);
        return SIM_OK;
    }
    uint64_t at = 0;
    gate_arg_at_a32(m, k, &at);
    return sim_read_word(m, at, 4, v);
}

/* AAPCS64: floating-point arguments in d0-d7, counted apart from the integer ones; the
 * result in d0 (s0, a float, is its low half). */
static sim_err gate_fparg_a64(sim_machine *m, int k, int fp, uint64_t *v) {
    (void)k;
    if (fp >= 8) return SIM_ERR_ARG;
    *v = sim_reg(m, UC_ARM64_REG_D0 + fp);
    return SIM_OK;
}
static void set_fp_result_a64(sim_machine *m, uint64_t bits, bool dbl) {
    sim_reg_set(m, UC_ARM64_REG_D0, dbl ? bits : bits & 0xFFFFFFFFu);
}
static uint64_t result_a64(sim_machine *m) { return sim_reg(m, UC_ARM64_REG_X0); }
static void set_result_a64(sim_machine *m, uint64_t v) { sim_reg_set(m, UC_ARM64_REG_X0, v); }
static uint64_t result_a32(sim_machine *m) { return (uint64_t)(int64_t)(int32_t)(uint32_t)sim_reg(m, UC_ARM_REG_R0); }
static void set_result_a32(sim_machine *m, uint64_t v) { sim_reg_set(m, UC_ARM_REG_R0, (uint32_t)v); }

/* ---- exceptions and served instructions ------------------------------------------------------- */

static sim_fault_kind arm_intr_fault(int intno) {
    switch (intno) {
    case EXCP_UDEF: return SIM_FAULT_ILLEGAL;
    case EXCP_BKPT: return SIM_FAULT_BREAKPOINT;       /* brk / bkpt */
    case EXCP_DATA_ABORT: return SIM_FAULT_MISALIGNED; /* alignment fault (unmapped memory is reported by Unicorn) */
    case EXCP_PREFETCH_ABORT: return SIM_FAULT_PROTECTION;
    default: return SIM_FAULT_ILLEGAL;
    }
}

/* The PC Unicorn reports is the faulting instruction's for every exception here. */
static bool arm_is_trap(int intno) {
    (void)intno;
    return false;
}

static void a64_serve(sim_machine *m, sim_thread *t, trap_kind k, int reg) {
    (void)t, (void)k;
    if (reg >= 0) sim_reg_set(m, reg, sim_exec_clock(m));
}

static void a32_serve(sim_machine *m, sim_thread *t, trap_kind k, int reg) { (void)m, (void)t, (void)k, (void)reg; }

/* ---- fault recovery (sim/replay.c): registers of one ARM64 instruction ------------------------- */

/* The replay set: x0-x30, sp, the flags (bits 0-32); bits 33 and 34 stand for a segment register
 * (none on ARM64) and any other register (SIMD, system). */
static const int replay_a64[] = {
    UC_ARM64_REG_X0,  UC_ARM64_REG_X1,  UC_ARM64_REG_X2,  UC_ARM64_REG_X3,  UC_ARM64_REG_X4,  UC_ARM64_REG_X5,
    UC_ARM64_REG_X6,  UC_ARM64_REG_X7,  UC_ARM64_REG_X8,  UC_ARM64_REG_X9,  UC_ARM64_REG_X10, UC_ARM64_REG_X11,
    UC_ARM64_REG_X12, UC_ARM64_REG_X13, UC_ARM64_REG_X14, UC_ARM64_REG_X15, UC_ARM64_REG_X16, UC_ARM64_REG_X17,
    UC_ARM64_REG_X18, UC_ARM64_REG_X19, UC_ARM64_REG_X20, UC_ARM64_REG_X21, UC_ARM64_REG_X22, UC_ARM64_REG_X23,
    UC_ARM64_REG_X24, UC_ARM64_REG_X25, UC_ARM64_REG_X26, UC_ARM64_REG_X27, UC_ARM64_REG_X28, UC_ARM64_REG_X29,
    UC_ARM64_REG_X30, UC_ARM64_REG_SP,  UC_ARM64_REG_NZCV};
#define A64_NREPLAY 33

/* Store-exclusives: QEMU makes them atomic compare-and-swaps (no memory hook, no PC sync). */
static bool a64_store_exclusive(unsigned id) {
    switch (id) {
    case ARM64_INS_STXR:
    case ARM64_INS_STXRB:
    case ARM64_INS_STXRH:
    case ARM64_INS_STXP:
    case ARM64_INS_STLXR:
    case ARM64_INS_STLXRB:
    case ARM64_INS_STLXRH:
    case ARM64_INS_STLXP: return true;
    default: return false;
    }
}

/* Bit of capstone register r (a w register is its x register: writing it clears the top), or -1 for
 * the zero registers. */
static int a64_bit(unsigned r) {
    if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28) return (int)(r - ARM64_REG_X0);
    if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30) return (int)(r - ARM64_REG_W0);
    switch (r) {
    case ARM64_REG_X29: return 29;
    case ARM64_REG_X30: return 30;
    case ARM64_REG_SP:
    case ARM64_REG_WSP: return 31;
    case ARM64_REG_NZCV: return 32;
    case ARM64_REG_XZR:
    case ARM64_REG_WZR:
    case ARM64_REG_INVALID: return -1;
    default: return A64_NREPLAY + 1;
    }
}

static void a64_replay(csh cs, const cs_insn *in, replay_insn *r) {
    memset(r, 0, sizeof *r);
    const uint64_t other = UINT64_C(1) << (A64_NREPLAY + 1);
    const cs_arm64 *x = &in->detail->arm64;
    cs_regs rr, ww;
    uint8_t nr = 0, nw = 0;
    if (cs_regs_access(cs, in, rr, &nr, ww, &nw) != CS_ERR_OK) { /* unknown: it may touch anything */
        r->rd = r->wr = r->fault = other;
        r->mem = true;
        return;
    }
    for (int i = 0; i < nr; i++) {
        int bit = a64_bit(rr[i]);
        if (bit >= 0) r->rd |= UINT64_C(1) << bit;
    }
    for (int i = 0; i < nw; i++) {
        int bit = a64_bit(ww[i]);
        if (bit < 0) continue;
        r->wr |= UINT64_C(1) << bit;
        if (bit < 32) r->kill |= UINT64_C(1) << bit; /* x and w writes set the whole register; the flags may */
    }
    bool prefetch = in->id == ARM64_INS_PRFM || in->id == ARM64_INS_PRFUM;
    for (int i = 0; i < x->op_count; i++) {
        const cs_arm64_op *op = &x->operands[i];
        if (op->type != ARM64_OP_MEM || prefetch) continue;
        r->mem = true;
        unsigned regs[2] = {op->mem.base, op->mem.index};
        for (int k = 0; k < 2; k++) {
            int bit = a64_bit(regs[k]);
            if (bit >= 0) r->fault |= UINT64_C(1) << bit;
        }
    }
    if (r->mem) /* what the memory it read goes to: its register operands written (not a written-back base) */
        for (int i = 0; i < x->op_count; i++)
            if (x->operands[i].type == ARM64_OP_REG && (x->operands[i].access & CS_AC_WRITE)) {
                int bit = a64_bit(x->operands[i].reg);
                if (bit >= 0) r->data |= UINT64_C(1) << bit;
            }
    r->atomic = a64_store_exclusive(in->id);
    for (int i = 0; i < x->op_count; i++) /* one access at base + displacement: 16 bytes at most */
        if (x->operands[i].type == ARM64_OP_MEM && !prefetch) {
            const arm64_op_mem *mo = &x->operands[i].mem;
            int bit = a64_bit(mo->base);
            r->simple = mo->index == ARM64_REG_INVALID && bit >= 0 && bit < 32;
            r->base_bit = (int8_t)bit;
            r->disp = mo->disp;
            r->size = 16;
        }
    bool store = false;
    for (int i = 0; i < x->op_count; i++)
        if (x->operands[i].type == ARM64_OP_MEM && (x->operands[i].access & CS_AC_WRITE)) store = true;
    if (store && !r->atomic && (in->id == ARM64_INS_STR || in->id == ARM64_INS_STP || in->id == ARM64_INS_STUR))
        for (int i = 0; i < x->op_count; i++) /* registers stored as they are */
            if (x->operands[i].type == ARM64_OP_REG && (x->operands[i].access & CS_AC_READ)) {
                int bit = a64_bit(x->operands[i].reg);
                if (bit >= 0) r->src |= UINT64_C(1) << bit;
            }
}

/* A store-exclusive's address (its base register) and size (byte, halfword, the data register's
 * width, twice that for a pair). */
static bool a64_ea(sim_machine *m, const cs_insn *in, uint64_t *ea, uint32_t *size) {
    const cs_arm64 *x = &in->detail->arm64;
    int regs = 0;
    bool wide = false;
    for (int i = 0; i < x->op_count; i++) {
        const cs_arm64_op *op = &x->operands[i];
        if (op->type == ARM64_OP_REG && i > 0) regs++, wide = op->reg >= ARM64_REG_X0 && op->reg <= ARM64_REG_X28;
        if (op->type == ARM64_OP_REG && i > 0 && (op->reg == ARM64_REG_X29 || op->reg == ARM64_REG_X30)) wide = true;
        if (op->type != ARM64_OP_MEM) continue;
        int bit = a64_bit(op->mem.base);
        if (bit < 0 || bit > 31) return false;
        *ea = sim_reg(m, replay_a64[bit]) + (uint64_t)(int64_t)op->mem.disp;
        unsigned id = in->id;
        *size = id == ARM64_INS_STXRB || id == ARM64_INS_STLXRB   ? 1
                : id == ARM64_INS_STXRH || id == ARM64_INS_STLXRH ? 2
                                                                  : (wide ? 8u : 4u) * (uint32_t)(regs > 1 ? 2 : 1);
        return true;
    }
    return false;
}

const sim_isa sim_isa_arm64 = {
    .arch = SIM_ARCH_ARM64,
    .name = "arm64",
    .uc_arch = UC_ARCH_ARM64,
    .uc_mode = UC_MODE_ARM,
    .cs_arch = CS_ARCH_ARM64,
    .cs_mode = CS_MODE_ARM,
    .ptr = 8,
    .lay = &lay64,
    .reg_pc = UC_ARM64_REG_PC,
    .reg_sp = UC_ARM64_REG_SP,
    .reg_ret = UC_ARM64_REG_X0,
    .facts = a64_facts,
    .trap_of = a64_trap,
    .placed = NULL,
    .thunk = thunk_a64,
    .gate_entry = 0,
    .gate_entry_len = 4,
    .gate_intno = EXCP_SWI,
    .gate_service = service_thunk,
    .call_setup = setup_a64,
    .gate_arg = gate_arg_a64,
    .gate_arg_at = gate_arg_at_a64,
    .gate_fparg = gate_fparg_a64,
    .set_fp_result = set_fp_result_a64,
    .result = result_a64,
    .set_result = set_result_a64,
    .intr_fault = arm_intr_fault,
    .intr_is_trap = arm_is_trap,
    .serve = a64_serve,
    .replay_of = a64_replay,
    .replay_regs = replay_a64,
    .nreplay_regs = A64_NREPLAY,
    .replay_flags = -1,
    .replay_ea = a64_ea,
};

const sim_isa sim_isa_arm = {
    .arch = SIM_ARCH_ARM,
    .name = "arm",
    .uc_arch = UC_ARCH_ARM,
    .uc_mode = UC_MODE_ARM,
    .cs_arch = CS_ARCH_ARM,
    .cs_mode = CS_MODE_ARM,
    .ptr = 4,
    .lay = &sim_layout32,
    .reg_pc = UC_ARM_REG_PC,
    .reg_sp = UC_ARM_REG_SP,
    .reg_ret = UC_ARM_REG_R0,
    .facts = a32_facts,
    .trap_of = a32_trap,
    .placed = placed_a32,
    .thunk = thunk_a32,
    .gate_entry = 0,
    .gate_entry_len = 4,
    .gate_intno = EXCP_SWI,
    .gate_service = service_thunk,
    .call_setup = setup_a32,
    .gate_arg = gate_arg_a32,
    .gate_arg_at = gate_arg_at_a32,
    .pair_even = true,
    .result = result_a32,
    .set_result = set_result_a32,
    .intr_fault = arm_intr_fault,
    .intr_is_trap = arm_is_trap,
    .serve = a32_serve,
};

const sim_isa *sim_isa_of(sim_arch a) {
    switch (a) {
    case SIM_ARCH_X64: return &sim_isa_x64;
    case SIM_ARCH_X86: return &sim_isa_x86;
    case SIM_ARCH_ARM64: return &sim_isa_arm64;
    case SIM_ARCH_ARM: return &sim_isa_arm;
    }
    return NULL;
}
