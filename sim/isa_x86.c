/* sim/isa_x86.c — the x86 guest ISAs: x86-64 (Windows x64 convention) and
 * IA-32 (stdcall).  Decoding into pmu facts, served instructions, the gate
 * thunks, guest calls and exception codes (sim/README.md "ISA layer"). */
#include <string.h>

#include "sim/sim_int.h"

/* ---- decoding: the facts pmu_classify() prices an instruction by (pmu_model/README.md,
 * "Instruction classes"), from capstone's detail; the same for both modes. */

static bool is_branch(csh cs, const cs_insn *in) {
    return cs_insn_group(cs, in, X86_GRP_JUMP) || cs_insn_group(cs, in, X86_GRP_CALL) ||
           cs_insn_group(cs, in, X86_GRP_RET) || cs_insn_group(cs, in, X86_GRP_INT) ||
           cs_insn_group(cs, in, X86_GRP_IRET) || in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER;
}

static int x86_trap(csh cs, const cs_insn *in, int *reg) {
    *reg = -1;
    switch (in->id) {
    case X86_INS_RDTSC: return TRAP_RDTSC;
    case X86_INS_RDTSCP: return TRAP_RDTSCP;
    case X86_INS_RDPMC: return TRAP_RDPMC;
    case X86_INS_HLT:
    case X86_INS_CLI:
    case X86_INS_STI:
    case X86_INS_IN:
    case X86_INS_INSB:
    case X86_INS_INSW:
    case X86_INS_INSD:
    case X86_INS_OUT:
    case X86_INS_OUTSB:
    case X86_INS_OUTSW:
    case X86_INS_OUTSD: return TRAP_PRIV;
    default: return cs_insn_group(cs, in, X86_GRP_PRIVILEGE) ? TRAP_PRIV : -1;
    }
}

/* The facts pmu_classify() prices an instruction by (pmu_model/README.md,
 * "Instruction classes"), from capstone's detail. */
static bool is_string_insn(unsigned id) {
    switch (id) {
    case X86_INS_MOVSB:
    case X86_INS_MOVSW:
    case X86_INS_MOVSD:
    case X86_INS_MOVSQ:
    case X86_INS_STOSB:
    case X86_INS_STOSW:
    case X86_INS_STOSD:
    case X86_INS_STOSQ:
    case X86_INS_LODSB:
    case X86_INS_LODSW:
    case X86_INS_LODSD:
    case X86_INS_LODSQ:
    case X86_INS_CMPSB:
    case X86_INS_CMPSW:
    case X86_INS_CMPSD:
    case X86_INS_CMPSQ:
    case X86_INS_SCASB:
    case X86_INS_SCASW:
    case X86_INS_SCASD:
    case X86_INS_SCASQ: return true;
    default: return false;
    }
}

static unsigned insn_facts(csh cs, const cs_insn *in) {
    const cs_x86 *x = &in->detail->x86;
    unsigned id = in->id, f = 0;
    if (is_branch(cs, in)) f |= PMU_I_BRANCH;
    if (cs_insn_group(cs, in, X86_GRP_JUMP) && id != X86_INS_JMP && id != X86_INS_LJMP) f |= PMU_I_COND;
    if (cs_insn_group(cs, in, X86_GRP_CALL)) f |= PMU_I_CALL | PMU_I_STORE;
    if (cs_insn_group(cs, in, X86_GRP_RET)) f |= PMU_I_RET | PMU_I_LOAD;
    if ((id == X86_INS_JMP || id == X86_INS_CALL) && x->op_count == 1 && x->operands[0].type != X86_OP_IMM)
        f |= PMU_I_INDIRECT;
    bool no_access = id == X86_INS_LEA || id == X86_INS_NOP || id == X86_INS_PREFETCH || id == X86_INS_PREFETCHW ||
                     id == X86_INS_PREFETCHT0 || id == X86_INS_PREFETCHT1 || id == X86_INS_PREFETCHT2 ||
                     id == X86_INS_PREFETCHNTA;
    bool mem_op = false;
    for (int i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type == X86_OP_MEM) {
            mem_op = true;
            if (no_access) continue;
            if (op->access & CS_AC_READ) f |= PMU_I_LOAD;
            if (op->access & CS_AC_WRITE) f |= PMU_I_STORE;
        } else if (op->type == X86_OP_REG) {
            x86_reg r = op->reg;
            if ((r >= X86_REG_ST0 && r <= X86_REG_ST7) || (r >= X86_REG_MM0 && r <= X86_REG_MM7) ||
                (r >= X86_REG_XMM0 && r <= X86_REG_XMM31) || (r >= X86_REG_YMM0 && r <= X86_REG_YMM31) ||
                (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31))
                f |= PMU_I_FP;
        }
    }
    if (cs_insn_group(cs, in, X86_GRP_FPU) || cs_insn_group(cs, in, X86_GRP_MMX) ||
        cs_insn_group(cs, in, X86_GRP_3DNOW))
        f |= PMU_I_FP;
    switch (id) {
    case X86_INS_PUSH:
    case X86_INS_PUSHF:
    case X86_INS_PUSHFQ: f |= PMU_I_STORE; break;
    case X86_INS_POP:
    case X86_INS_POPF:
    case X86_INS_POPFQ:
    case X86_INS_LEAVE: f |= PMU_I_LOAD; break;
    case X86_INS_MUL:
    case X86_INS_IMUL: f |= PMU_I_MUL; break;
    case X86_INS_DIV:
    case X86_INS_IDIV: f |= PMU_I_DIV; break;
    case X86_INS_MOV:
    case X86_INS_MOVZX:
    case X86_INS_MOVSX:
    case X86_INS_MOVSXD:
    case X86_INS_LEA:
    case X86_INS_NOP:
    case X86_INS_CBW:
    case X86_INS_CWDE:
    case X86_INS_CDQE:
    case X86_INS_CWD:
    case X86_INS_CDQ:
    case X86_INS_CQO: f |= PMU_I_MOVE; break;
    case X86_INS_XCHG:
        if (mem_op)
            f |= PMU_I_SYSTEM; /* implicitly locked */
        else
            f |= PMU_I_MOVE;
        break;
    case X86_INS_CPUID:
    case X86_INS_RDTSC:
    case X86_INS_RDTSCP:
    case X86_INS_RDPMC:
    case X86_INS_LFENCE:
    case X86_INS_MFENCE:
    case X86_INS_SFENCE:
    case X86_INS_PAUSE:
    case X86_INS_UD2:
    case X86_INS_SYSCALL:
    case X86_INS_SYSENTER: f |= PMU_I_SYSTEM; break;
    default: break;
    }
    if (id == X86_INS_TEST ||
        id == X86_INS_CMP) /* read-only; capstone 4 marks `test m8, imm8` written in 32-bit mode */
        f &= ~(unsigned)PMU_I_STORE;
    if (is_string_insn(id) && !(f & PMU_I_FP)) { /* movsd/cmpsd with xmm operands are SSE */
        f |= PMU_I_STRING;
        if (id >= X86_INS_STOSB && id <= X86_INS_STOSW) f |= PMU_I_STORE;
    }
    if (cs_insn_group(cs, in, X86_GRP_INT) || cs_insn_group(cs, in, X86_GRP_IRET) ||
        cs_insn_group(cs, in, X86_GRP_PRIVILEGE) || x->prefix[0] == X86_PREFIX_LOCK)
        f |= PMU_I_SYSTEM;
    return f;
}

/* ---- address layouts ---------------------------------------------------------------------- */

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

/* 32-bit guests: everything below 4 GiB (shared with ARM, sim/isa_arm.c). */
const sim_layout sim_layout32 = {
    .code = UINT64_C(0x00400000),
    .code_end = UINT64_C(0x10000000),
    .data = UINT64_C(0x10000000),
    .heap = UINT64_C(0x70000000),
    .heap_size = UINT64_C(0x04000000),
    .gate = UINT64_C(0x7FFE0000),
    .stack = UINT64_C(0x80000000),
    .scratch = UINT64_C(0xFFFD0000),
    .sentinel = UINT64_C(0xFFFE0000),
};

/* ---- the gate ------------------------------------------------------------------------------ */

/* x64 thunk k: B8 k32 (mov eax, k), 0F 05 (syscall), C3 (ret), int3 padding. */
static void thunk64(uint8_t *p, uint32_t k) {
    memset(p, 0xCC, SIM_GATE_STRIDE);
    p[0] = 0xB8;
    for (int i = 0; i < 4; i++) p[1 + i] = (uint8_t)(k >> (8 * i));
    p[5] = 0x0F;
    p[6] = 0x05;
    p[7] = 0xC3;
}

/* x86 thunk k: B8 k32 (mov eax, k), CD 2E (int 0x2e), C2 iw (ret n: the
 * callee's stdcall pop, set per service by sim_gate_set_pop), int3 padding. */
static void thunk32(uint8_t *p, uint32_t k) {
    memset(p, 0xCC, SIM_GATE_STRIDE);
    p[0] = 0xB8;
    for (int i = 0; i < 4; i++) p[1 + i] = (uint8_t)(k >> (8 * i));
    p[5] = 0xCD;
    p[6] = 0x2E;
    p[7] = 0xC2;
    p[8] = 0;
    p[9] = 0;
}

static uint32_t service_eax(sim_machine *m, uint32_t k) {
    (void)k;
    return (uint32_t)sim_reg(m, UC_X86_REG_RAX);
}

static uint32_t service_eax32(sim_machine *m, uint32_t k) {
    (void)k;
    return (uint32_t)sim_reg(m, UC_X86_REG_EAX);
}

/* ---- calls --------------------------------------------------------------------------------- */

static const int gprs64[] = {UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RSI,
                             UC_X86_REG_RDI, UC_X86_REG_RBP, UC_X86_REG_R8,  UC_X86_REG_R9,  UC_X86_REG_R10,
                             UC_X86_REG_R11, UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15};

/* Windows x64: rcx, rdx, r8, r9, 32-byte shadow space, the fifth and later
 * arguments at [rsp+0x28+8k]; rsp+8 16-byte aligned at entry. */
static sim_err setup64(sim_machine *m, sim_thread *t, const uint64_t *args, int nargs, uint64_t *sp_out) {
    int nstack = nargs > 4 ? nargs - 4 : 0;
    uint64_t frame = 8 + 32 + 8 * (uint64_t)nstack;
    uint64_t rsp = (t->stack_hi - frame - 8) & ~UINT64_C(15);
    rsp -= 8; /* return address slot: (rsp + 8) % 16 == 0 */
    uint8_t img[8 + 32 + 8 * SIM_MAX_ARGS];
    memset(img, 0, sizeof img);
    uint64_t ret = m->lay->sentinel;
    memcpy(img, &ret, 8);
    for (int k = 0; k < nstack; k++) memcpy(img + 40 + 8 * k, &args[4 + k], 8);
    if (uc_mem_write(m->uc, rsp, img, (size_t)frame) != UC_ERR_OK) return SIM_ERR_UNICORN;
    for (size_t i = 0; i < sizeof gprs64 / sizeof gprs64[0]; i++) sim_reg_set(m, gprs64[i], 0);
    static const int argreg[4] = {UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_R8, UC_X86_REG_R9};
    for (int k = 0; k < nargs && k < 4; k++) sim_reg_set(m, argreg[k], args[k]);
    sim_reg_set(m, UC_X86_REG_RFLAGS, 0x202);
    sim_reg_set(m, UC_X86_REG_RSP, rsp);
    *sp_out = rsp;
    return SIM_OK;
}

/* stdcall: every argument a 4-byte stack word, [esp+4+4k]; [esp] the return
 * address; esp+4 16-byte aligned at entry; the callee pops the arguments. */
static sim_err setup32(sim_machine *m, sim_thread *t, const uint64_t *args, int nargs, uint64_t *sp_out) {
    uint64_t frame = 4 + 4 * (uint64_t)nargs;
    uint64_t esp = ((t->stack_hi - frame - 16) & ~UINT64_C(15)) + 12; /* (esp + 4) % 16 == 0 */
    uint8_t img[4 + 4 * SIM_MAX_ARGS];
    uint32_t ret = (uint32_t)m->lay->sentinel;
    memcpy(img, &ret, 4);
    for (int k = 0; k < nargs; k++) {
        uint32_t w = (uint32_t)args[k];
        memcpy(img + 4 + 4 * k, &w, 4);
    }
    if (uc_mem_write(m->uc, esp, img, (size_t)frame) != UC_ERR_OK) return SIM_ERR_UNICORN;
    static const int gprs[] = {UC_X86_REG_EAX, UC_X86_REG_EBX, UC_X86_REG_ECX, UC_X86_REG_EDX,
                               UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EBP};
    for (size_t i = 0; i < sizeof gprs / sizeof gprs[0]; i++) sim_reg_set(m, gprs[i], 0);
    sim_reg_set(m, UC_X86_REG_EFLAGS, 0x202);
    sim_reg_set(m, UC_X86_REG_ESP, esp);
    *sp_out = esp;
    return SIM_OK;
}

/* At the thunk's syscall: rcx, rdx, r8, r9, then [rsp+0x28+8(k-4)] ([rsp] is
 * the caller's return address, then 32 bytes of shadow space). */
static sim_err gate_arg_at64(sim_machine *m, int k, uint64_t *addr) {
    if (k < 4) return SIM_ERR_ARG;
    *addr = sim_reg(m, UC_X86_REG_RSP) + 0x28 + 8 * (uint64_t)(k - 4);
    return SIM_OK;
}
static sim_err gate_arg64(sim_machine *m, int k, uint64_t *v) {
    static const int reg[4] = {UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_R8, UC_X86_REG_R9};
    if (k < 4) {
        *v = sim_reg(m, reg[k]);
        return SIM_OK;
    }
    uint64_t at = 0;
    gate_arg_at64(m, k, &at);
    return sim_read_word(m, at, 8, v);
}

/* At the thunk's int 0x2e: [esp] is the caller's return address, word k at [esp+4+4k]. */
static sim_err gate_arg_at32(sim_machine *m, int k, uint64_t *addr) {
    *addr = (uint32_t)sim_reg(m, UC_X86_REG_ESP) + 4 + 4 * (uint64_t)k;
    return SIM_OK;
}
static sim_err gate_arg32(sim_machine *m, int k, uint64_t *v) {
    uint64_t at = 0;
    gate_arg_at32(m, k, &at);
    return sim_read_word(m, at, 4, v);
}

/* A floating-point argument at position k: xmm0-xmm3 for the first four, then the stack word. */
static sim_err gate_fparg64(sim_machine *m, int k, int fp, uint64_t *v) {
    (void)fp;
    if (k >= 4) return gate_arg64(m, k, v);
    uint8_t x[16] = {0};
    if (uc_reg_read(m->uc, UC_X86_REG_XMM0 + k, x) != UC_ERR_OK) return SIM_ERR_UNICORN;
    *v = 0;
    for (int i = 7; i >= 0; i--) *v = *v << 8 | x[i];
    return SIM_OK;
}
/* xmm0's low 64 (a double) or 32 (a float) bits; its other bits are zeroed. */
static void set_fp_result64(sim_machine *m, uint64_t bits, bool dbl) {
    uint8_t x[16] = {0};
    for (int i = 0; i < (dbl ? 8 : 4); i++) x[i] = (uint8_t)(bits >> (8 * i));
    uc_reg_write(m->uc, UC_X86_REG_XMM0, x);
}

/* x86 returns a floating-point result in st(0): the value is pushed on the x87 stack (TOP moves
 * down one, the register there holds the value in extended precision, its tag says valid), as
 * the callee's fld would leave it.  A double converts to extended exactly (a float too, widened
 * to a double first). */
static void set_fp_result32(sim_machine *m, uint64_t bits, bool dbl) {
    if (!dbl) { /* a float's bits: widen to the double of the same value */
        float f;
        uint32_t b32 = (uint32_t)bits;
        memcpy(&f, &b32, sizeof f);
        double d = f;
        memcpy(&bits, &d, sizeof bits);
    }
    unsigned sign = (unsigned)(bits >> 63);
    int e = (int)((bits >> 52) & 0x7FF);
    uint64_t frac = bits & (((uint64_t)1 << 52) - 1), mant;
    unsigned ex;
    if (e == 0x7FF) {
        ex = 0x7FFF;
        mant = (uint64_t)1 << 63 | frac << 11;
    } else if (e) {
        ex = (unsigned)(e - 1023 + 16383);
        mant = (uint64_t)1 << 63 | frac << 11;
    } else if (frac) { /* a denormal double is a normal extended */
        int k = 0;
        while (!(frac << k >> 63)) k++;
        mant = frac << k;
        ex = (unsigned)(16383 - 1011 - k);
    } else {
        ex = 0;
        mant = 0;
    }
    uint64_t sw = sim_reg(m, UC_X86_REG_FPSW), tag = sim_reg(m, UC_X86_REG_FPTAG);
    unsigned top = ((unsigned)(sw >> 11) - 1) & 7;
    uint8_t r[16] = {0};
    for (int i = 0; i < 8; i++) r[i] = (uint8_t)(mant >> (8 * i));
    r[8] = (uint8_t)ex;
    r[9] = (uint8_t)(ex >> 8 | sign << 7);
    uc_reg_write(m->uc, UC_X86_REG_FP0 + (int)top, r);
    sim_reg_set(m, UC_X86_REG_FPSW, (sw & ~(uint64_t)0x3800) | (uint64_t)top << 11);
    sim_reg_set(m, UC_X86_REG_FPTAG, tag & ~((uint64_t)3 << (2 * top)));
}

static uint64_t result64(sim_machine *m) { return sim_reg(m, UC_X86_REG_RAX); }
static void set_result64(sim_machine *m, uint64_t v) { sim_reg_set(m, UC_X86_REG_RAX, v); }
static uint64_t result32(sim_machine *m) { return (uint64_t)(int64_t)(int32_t)(uint32_t)sim_reg(m, UC_X86_REG_EAX); }
static void set_result32(sim_machine *m, uint64_t v) { sim_reg_set(m, UC_X86_REG_EAX, (uint32_t)v); }

/* ---- exceptions ------------------------------------------------------------------------------ */

static sim_fault_kind x86_intr_fault(int intno) {
    switch (intno) {
    case 0: return SIM_FAULT_DIVIDE;
    case 1: return SIM_FAULT_SINGLE_STEP;
    case 3: return SIM_FAULT_BREAKPOINT;
    case 4: return SIM_FAULT_OVERFLOW;
    case 5: return SIM_FAULT_BOUNDS;
    case 6: return SIM_FAULT_ILLEGAL;
    case 17: return SIM_FAULT_MISALIGNED; /* #AC */
    case 0x29: return SIM_FAULT_FAST_FAIL;
    case 0x2C: return SIM_FAULT_ASSERTION;
    case 0x2D: return SIM_FAULT_BREAKPOINT; /* debug service */
    default: return SIM_FAULT_PROTECTION;   /* int n in user mode: #GP */
    }
}

/* Interrupt vectors raised after the instruction completes. */
static bool x86_is_trap(int intno) { return intno != 0 && intno != 5 && intno != 6 && intno != 13 && intno != 17; }

/* RDTSC/RDTSCP: edx:eax = the virtual clock; RDPMC: edx:eax = PMC ecx.  In
 * 32-bit mode Unicorn takes only the 32-bit register ids. */
static void x86_serve(sim_machine *m, sim_thread *t, trap_kind k, int reg) {
    (void)reg;
    bool m32 = m->isa->arch == SIM_ARCH_X86;
    int rax = m32 ? UC_X86_REG_EAX : UC_X86_REG_RAX, rcx = m32 ? UC_X86_REG_ECX : UC_X86_REG_RCX,
        rdx = m32 ? UC_X86_REG_EDX : UC_X86_REG_RDX;
    uint64_t value;
    if (k == TRAP_RDPMC)
        value = pmu_pmc_read(&m->cfg.pmc, &t->bank, (uint32_t)sim_reg(m, rcx));
    else
        value = sim_exec_clock(m);
    sim_reg_set(m, rax, value & 0xFFFFFFFFu);
    sim_reg_set(m, rdx, value >> 32);
    if (k == TRAP_RDTSCP) sim_reg_set(m, rcx, 0); /* IA32_TSC_AUX: processor number */
}

/* Unicorn 2.0.1 aborts the whole process ("tcg/tcg.c: tcg fatal error") when
 * it translates some instructions a CPU refuses with #UD, so each place such
 * an instruction may start becomes an exit, where translation stops before
 * it; sim_call_continue reports an illegal-instruction fault there:
 * - a far call or jump through a register, FF /3 or FF /5 with mod = 11: the
 *   FF, or any of the prefix bytes right before it, may start one;
 * - a LOCK prefix on an instruction that cannot take it (CMPS, CMP: fixes 8
 *   and 12).  A CPU allows LOCK only on ADD, ADC, AND, BTC, BTR, BTS,
 *   CMPXCHG, CMPXCHG8B, CMPXCHG16B, DEC, INC, NEG, NOT, OR, SBB, SUB, XOR,
 *   XADD and XCHG with a memory destination, and raises #UD for any other
 *   (Intel SDM vol. 2, "LOCK").  Every start at or before an F0 byte within
 *   its run of prefixes is decoded (bad_lock) and is an exit when its
 *   instruction has the LOCK where a CPU refuses it.
 * REX (40-4F) is a prefix only in 64-bit mode. */
static bool is_prefix(uint8_t b, bool rex) {
    return (rex && b >= 0x40 && b <= 0x4F) || b == 0x66 || b == 0x67 || b == 0xF0 || b == 0xF2 || b == 0xF3 ||
           b == 0x26 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x64 || b == 0x65;
}

static bool lock_allowed(const cs_insn *in) {
    switch (in->id) {
    case X86_INS_ADD:
    case X86_INS_ADC:
    case X86_INS_AND:
    case X86_INS_BTC:
    case X86_INS_BTR:
    case X86_INS_BTS:
    case X86_INS_CMPXCHG:
    case X86_INS_CMPXCHG8B:
    case X86_INS_CMPXCHG16B:
    case X86_INS_DEC:
    case X86_INS_INC:
    case X86_INS_NEG:
    case X86_INS_NOT:
    case X86_INS_OR:
    case X86_INS_SBB:
    case X86_INS_SUB:
    case X86_INS_XOR:
    case X86_INS_XADD:
    case X86_INS_XCHG: break;
    default: return false;
    }
    const cs_x86 *x = &in->detail->x86;
    for (int i = 0; i < x->op_count; i++)
        if (x->operands[i].type == X86_OP_MEM) return i == 0 || in->id == X86_INS_XCHG;
    return false;
}

/* The instruction at bytes[j] carries a LOCK a CPU refuses.  The code's pages
 * read as zeros after its n bytes (sim_code places it at a page start and
 * rounds its region up to whole pages; a guard page follows), so an
 * instruction may run on into them: the bytes decoded are the code's, then
 * zeros up to the region's end. */
static bool bad_lock(sim_machine *m, const uint8_t *bytes, size_t n, size_t j, bool rex) {
    size_t span = (n + SIM_PAGE - 1) & ~(size_t)(SIM_PAGE - 1);
    uint8_t buf[15] = {0};
    size_t avail = span - j < sizeof buf ? span - j : sizeof buf; /* bytes before the guard page */
    memcpy(buf, bytes + j, n - j < avail ? n - j : avail);
    const uint8_t *p = buf;
    size_t left = avail;
    uint64_t a = j;
    cs_insn *in = cs_malloc(m->cs);
    if (!in) return true; /* no host memory to decide: refuse the instruction */
    bool bad;
    if (cs_disasm_iter(m->cs, &p, &left, &a, in)) {
        /* Its prefixes include the F0 (every byte from j to it is a prefix); capstone's
         * prefix[0] would show only the last of LOCK, REP and REPNE (lock rep cmpsd). */
        bad = !lock_allowed(in);
    } else if (avail == sizeof buf) {
        bad = true; /* refused, though a whole instruction's bytes are there */
    } else {
        /* Refused, the guard page within 15 bytes: capstone refuses LOCK on what cannot take
         * it (lock cmp, lock clc); the same bytes without their F0s decode if they are a whole
         * instruction before the guard page. */
        uint8_t copy[sizeof buf];
        size_t k = 0, q = 0;
        while (q < avail && is_prefix(buf[q], rex)) {
            if (buf[q] != 0xF0) copy[k++] = buf[q];
            q++;
        }
        while (q < avail) copy[k++] = buf[q++];
        p = copy;
        left = k;
        a = j;
        bad = cs_disasm_iter(m->cs, &p, &left, &a, in);
    }
    cs_free(in, 1);
    return bad;
}

static sim_err placed(sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t n, bool rex) {
    size_t next_lock_start = 0; /* starts below it were decoded for a LOCK already */
    for (size_t i = 0; i < n; i++) {
        size_t first = i; /* where an instruction ending its prefixes at i may start */
        while (first > 0 && i - first < 14 && is_prefix(bytes[first - 1], rex)) first--;
        if (bytes[i] == 0xF0) {
            for (size_t j = first > next_lock_start ? first : next_lock_start; j <= i; j++)
                if (bad_lock(m, bytes, n, j, rex)) {
                    sim_err e = sim_cpu_add_exit(m, addr + j);
                    if (e != SIM_OK) return e;
                }
            next_lock_start = i + 1;
            continue;
        }
        if (bytes[i] != 0xFF || i + 1 >= n) continue;
        uint8_t modrm = bytes[i + 1], reg = (modrm >> 3) & 7;
        if (modrm >> 6 != 3 || (reg != 3 && reg != 5)) continue;
        for (size_t k = first; k <= i; k++) {
            sim_err e = sim_cpu_add_exit(m, addr + k);
            if (e != SIM_OK) return e;
        }
    }
    return SIM_OK;
}
/* ---- contexts (sim/context.c) ---- */

static const int ctx_gpr[16] = {UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RBX,
                                UC_X86_REG_RSP, UC_X86_REG_RBP, UC_X86_REG_RSI, UC_X86_REG_RDI,
                                UC_X86_REG_R8,  UC_X86_REG_R9,  UC_X86_REG_R10, UC_X86_REG_R11,
                                UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15};
static const int ctx_gpr32[8] = {UC_X86_REG_EAX, UC_X86_REG_ECX, UC_X86_REG_EDX, UC_X86_REG_EBX,
                                 UC_X86_REG_ESP, UC_X86_REG_EBP, UC_X86_REG_ESI, UC_X86_REG_EDI};
static const int ctx_seg[6] = {UC_X86_REG_CS, UC_X86_REG_DS, UC_X86_REG_ES,
                               UC_X86_REG_FS, UC_X86_REG_GS, UC_X86_REG_SS};

static void x86_ctx_get(sim_machine *m, sim_context *c) {
    bool x64 = m->isa->arch == SIM_ARCH_X64;
    int ngpr = x64 ? 16 : 8, nxmm = x64 ? 16 : 8;
    for (int i = 0; i < ngpr; i++)
        c->gpr[i] = sim_reg(m, x64 ? ctx_gpr[i] : ctx_gpr32[i]) & (x64 ? UINT64_MAX : 0xFFFFFFFFu);
    c->pc = sim_reg(m, m->isa->reg_pc);
    c->flags = sim_reg(m, x64 ? UC_X86_REG_RFLAGS : UC_X86_REG_EFLAGS) & 0xFFFFFFFFu;
    for (int i = 0; i < 6; i++) c->seg[i] = (uint16_t)sim_reg(m, ctx_seg[i]);
    c->mxcsr = (uint32_t)sim_reg(m, UC_X86_REG_MXCSR);
    c->fpcw = (uint16_t)sim_reg(m, UC_X86_REG_FPCW);
    c->fpsw = (uint16_t)sim_reg(m, UC_X86_REG_FPSW);
    c->fptw = (uint16_t)sim_reg(m, UC_X86_REG_FPTAG);
    for (int i = 0; i < 8; i++) {
        uint8_t b[16] = {0};
        uc_reg_read(m->uc, UC_X86_REG_ST0 + i, b);
        memcpy(c->st[i], b, 10);
    }
    for (int i = 0; i < nxmm; i++) uc_reg_read(m->uc, UC_X86_REG_XMM0 + i, c->xmm[i]);
}

static void x86_ctx_set(sim_machine *m, const sim_context *c) {
    bool x64 = m->isa->arch == SIM_ARCH_X64;
    int ngpr = x64 ? 16 : 8, nxmm = x64 ? 16 : 8;
    for (int i = 0; i < ngpr; i++) sim_reg_set(m, x64 ? ctx_gpr[i] : ctx_gpr32[i], c->gpr[i]);
    sim_reg_set(m, x64 ? UC_X86_REG_RFLAGS : UC_X86_REG_EFLAGS, c->flags);
    sim_reg_set(m, UC_X86_REG_MXCSR, c->mxcsr);
    sim_reg_set(m, UC_X86_REG_FPCW, c->fpcw);
    sim_reg_set(m, UC_X86_REG_FPSW, c->fpsw); /* its TOP first: st0-st7 are counted from it */
    sim_reg_set(m, UC_X86_REG_FPTAG, c->fptw);
    for (int i = 0; i < 8; i++) {
        uint8_t b[16] = {0};
        memcpy(b, c->st[i], 10);
        uc_reg_write(m->uc, UC_X86_REG_ST0 + i, b);
    }
    for (int i = 0; i < nxmm; i++) uc_reg_write(m->uc, UC_X86_REG_XMM0 + i, c->xmm[i]);
}

/* Guarded code: the instruction at win[0] is a far call or jump through a register or has a LOCK a
 * CPU refuses (the places placed() makes exits of, decided for one start). */
static bool guard_bad(sim_machine *m, const uint8_t *win, size_t n, bool rex) {
    size_t k = 0;
    bool lock = false;
    while (k < n && k < 14 && is_prefix(win[k], rex)) lock |= win[k++] == 0xF0;
    if (k + 1 < n && win[k] == 0xFF) {
        uint8_t modrm = win[k + 1], reg = (modrm >> 3) & 7;
        if (modrm >> 6 == 3 && (reg == 3 || reg == 5)) return true;
    }
    return lock && bad_lock(m, win, n, 0, rex);
}
static bool guard_bad64(sim_machine *m, const uint8_t *win, size_t n) { return guard_bad(m, win, n, true); }
static bool guard_bad32(sim_machine *m, const uint8_t *win, size_t n) { return guard_bad(m, win, n, false); }

static sim_err placed64(sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t n) {
    return placed(m, addr, bytes, n, true);
}
static sim_err placed32(sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t n) {
    return placed(m, addr, bytes, n, false);
}

/* ---- fault recovery (sim/replay.c): registers of one instruction --------------------------------- */

/* The replay set: the general registers in encoding order, then the flags (bit 16 on x64, 8 on
 * x86); the two bits above stand for a segment register and any other register. */
static const int replay64[] = {UC_X86_REG_RAX, UC_X86_REG_RCX,   UC_X86_REG_RDX, UC_X86_REG_RBX, UC_X86_REG_RSP,
                               UC_X86_REG_RBP, UC_X86_REG_RSI,   UC_X86_REG_RDI, UC_X86_REG_R8,  UC_X86_REG_R9,
                               UC_X86_REG_R10, UC_X86_REG_R11,   UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14,
                               UC_X86_REG_R15, UC_X86_REG_EFLAGS};
static const int replay32[] = {UC_X86_REG_EAX, UC_X86_REG_ECX, UC_X86_REG_EDX, UC_X86_REG_EBX,   UC_X86_REG_ESP,
                               UC_X86_REG_EBP, UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EFLAGS};

/* The general register (0-15, encoding order) capstone register r is part of, or -1; *whole: a
 * write of r sets all of it (64- and 32-bit forms; 8- and 16-bit writes keep the rest). */
static int x86_gpr(unsigned r, bool *whole) {
    static const unsigned q[16] = {X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP, X86_REG_RBP,
                                   X86_REG_RSI, X86_REG_RDI, X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
                                   X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15};
    static const unsigned d[16] = {X86_REG_EAX,  X86_REG_ECX,  X86_REG_EDX,  X86_REG_EBX, X86_REG_ESP,  X86_REG_EBP,
                                   X86_REG_ESI,  X86_REG_EDI,  X86_REG_R8D,  X86_REG_R9D, X86_REG_R10D, X86_REG_R11D,
                                   X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D};
    static const unsigned w[16] = {X86_REG_AX,   X86_REG_CX,   X86_REG_DX,   X86_REG_BX,  X86_REG_SP,   X86_REG_BP,
                                   X86_REG_SI,   X86_REG_DI,   X86_REG_R8W,  X86_REG_R9W, X86_REG_R10W, X86_REG_R11W,
                                   X86_REG_R12W, X86_REG_R13W, X86_REG_R14W, X86_REG_R15W};
    static const unsigned b[16] = {X86_REG_AL,   X86_REG_CL,   X86_REG_DL,   X86_REG_BL,  X86_REG_SPL,  X86_REG_BPL,
                                   X86_REG_SIL,  X86_REG_DIL,  X86_REG_R8B,  X86_REG_R9B, X86_REG_R10B, X86_REG_R11B,
                                   X86_REG_R12B, X86_REG_R13B, X86_REG_R14B, X86_REG_R15B};
    *whole = true;
    for (int i = 0; i < 16; i++)
        if (r == q[i] || r == d[i]) return i;
    *whole = false;
    for (int i = 0; i < 16; i++)
        if (r == w[i] || r == b[i]) return i;
    switch (r) {
    case X86_REG_AH: return 0;
    case X86_REG_CH: return 1;
    case X86_REG_DH: return 2;
    case X86_REG_BH: return 3;
    default: return -1;
    }
}

/* Bit of capstone register r in a replay set of `n` general registers (16 or 8), or -1 for one that
 * is no state (rip, eip, riz). */
static int x86_bit(unsigned r, int n, bool *whole) {
    int g = x86_gpr(r, whole);
    if (g >= 0) return g < n ? g : n + 2; /* r8-r15 do not exist in 32-bit mode */
    *whole = false;
    switch (r) {
    case X86_REG_RIP:
    case X86_REG_EIP:
    case X86_REG_IP:
    case X86_REG_RIZ:
    case X86_REG_EIZ:
    case X86_REG_INVALID: return -1;
    case X86_REG_EFLAGS: return n;
    case X86_REG_CS:
    case X86_REG_DS:
    case X86_REG_ES:
    case X86_REG_FS:
    case X86_REG_GS:
    case X86_REG_SS: return n + 1;
    default: return n + 2;
    }
}

/* Instructions that read or write data memory without a memory operand (the stack, string
 * instructions, xlat). */
static bool x86_implicit_memory(unsigned id) {
    switch (id) {
    case X86_INS_PUSH:
    case X86_INS_PUSHF:
    case X86_INS_PUSHFD:
    case X86_INS_PUSHFQ:
    case X86_INS_PUSHAL:
    case X86_INS_PUSHAW:
    case X86_INS_POP:
    case X86_INS_POPF:
    case X86_INS_POPFD:
    case X86_INS_POPFQ:
    case X86_INS_POPAL:
    case X86_INS_POPAW:
    case X86_INS_CALL:
    case X86_INS_RET:
    case X86_INS_RETF:
    case X86_INS_ENTER:
    case X86_INS_LEAVE:
    case X86_INS_XLATB: return true;
    default: return is_string_insn(id);
    }
}

static void x86_replay(csh cs, const cs_insn *in, replay_insn *r, int n) {
    memset(r, 0, sizeof *r);
    const uint64_t other = UINT64_C(1) << (n + 2);
    const cs_x86 *x = &in->detail->x86;
    unsigned id = in->id;
    bool no_access = id == X86_INS_LEA || id == X86_INS_NOP || id == X86_INS_PREFETCH || id == X86_INS_PREFETCHW ||
                     id == X86_INS_PREFETCHT0 || id == X86_INS_PREFETCHT1 || id == X86_INS_PREFETCHT2 ||
                     id == X86_INS_PREFETCHNTA;
    cs_regs rr, ww;
    uint8_t nr = 0, nw = 0;
    if (cs_regs_access(cs, in, rr, &nr, ww, &nw) != CS_ERR_OK) { /* unknown: it may touch anything */
        r->rd = r->wr = r->fault = other;
        r->mem = true;
        return;
    }
    bool whole;
    for (int i = 0; i < nr; i++) {
        int bit = x86_bit(rr[i], n, &whole);
        if (bit >= 0) r->rd |= UINT64_C(1) << bit;
    }
    for (int i = 0; i < nw; i++) {
        int bit = x86_bit(ww[i], n, &whole);
        if (bit < 0) continue;
        r->wr |= UINT64_C(1) << bit;
        if (whole && bit < n) r->kill |= UINT64_C(1) << bit; /* else a part: the rest comes from before */
    }
    r->mem = x86_implicit_memory(id);
    for (int i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type != X86_OP_MEM || no_access) continue;
        r->mem = true;
        unsigned regs[3] = {op->mem.base, op->mem.index, op->mem.segment};
        for (int k = 0; k < 3; k++) {
            int bit = x86_bit(regs[k], n, &whole);
            if (bit >= 0) r->fault |= UINT64_C(1) << bit;
        }
    }
    if (r->mem) { /* the stack pointer, a string instruction's rsi, rdi and count, xlat's rbx and al */
        for (int i = 0; i < in->detail->regs_read_count; i++) {
            int bit = x86_bit(in->detail->regs_read[i], n, &whole);
            if (bit >= 0) r->fault |= UINT64_C(1) << bit;
        }
        /* what the memory it read goes to: its register operands written, the flags, and implicit
         * registers other than the pointers it moves (cmpxchg's rax, lods' al) */
        for (int i = 0; i < x->op_count; i++)
            if (x->operands[i].type == X86_OP_REG && (x->operands[i].access & CS_AC_WRITE)) {
                int bit = x86_bit(x->operands[i].reg, n, &whole);
                if (bit >= 0) r->data |= UINT64_C(1) << bit;
            }
        uint64_t moved = UINT64_C(1) << 1 | UINT64_C(1) << 4 | UINT64_C(1) << 6 | UINT64_C(1) << 7; /* cx sp si di */
        for (int i = 0; i < in->detail->regs_write_count; i++) {
            int bit = x86_bit(in->detail->regs_write[i], n, &whole);
            if (bit >= 0) r->data |= (UINT64_C(1) << bit) & ~moved;
        }
    }
    if (id == X86_INS_DIV || id == X86_INS_IDIV || id == X86_INS_BOUND || id == X86_INS_INTO)
        r->fault |= r->rd; /* divide error: the divisor and the quotient's size; bound; into: the flags */
    r->atomic = r->mem && (x->prefix[0] == X86_PREFIX_LOCK || id == X86_INS_XCHG);
    /* one access at a base register and displacement: a memory operand, or the stack */
    int nmemop = 0;
    for (int i = 0; i < x->op_count; i++)
        if (x->operands[i].type == X86_OP_MEM && !no_access) {
            const cs_x86_op *op = &x->operands[i];
            int bit = x86_bit(op->mem.base, n, &whole);
            nmemop++;
            r->simple = op->mem.index == X86_REG_INVALID && op->mem.segment == X86_REG_INVALID && bit >= 0 && bit < n &&
                        op->mem.disp >= INT32_MIN && op->mem.disp <= INT32_MAX;
            r->base_bit = (int8_t)bit;
            r->disp = (int32_t)op->mem.disp;
            r->size = op->size ? op->size : 1;
        }
    unsigned w = n == 16 ? 8 : 4;
    bool stack = id == X86_INS_PUSH || id == X86_INS_POP || id == X86_INS_CALL || id == X86_INS_RET;
    if (stack) {
        r->simple = nmemop == 0; /* push [m], pop [m], call [m]: two accesses */
        r->base_bit = 4;         /* rsp, esp */
        r->disp = id == X86_INS_PUSH || id == X86_INS_CALL ? -(int32_t)w : 0;
        r->size = w;
    } else if (nmemop != 1 || x86_implicit_memory(id)) {
        r->simple = false;
    }
    if (is_string_insn(id)) r->df = 1;
    if (id == X86_INS_POPF || id == X86_INS_POPFD || id == X86_INS_POPFQ) r->df = 2;
    if (id == X86_INS_MOV || id == X86_INS_PUSH) /* a register stored as it is */
        for (int i = 0; i < x->op_count; i++)
            if (x->operands[i].type == X86_OP_REG && (x->operands[i].access & CS_AC_READ) &&
                (id == X86_INS_PUSH || (x->operands[0].type == X86_OP_MEM))) {
                int bit = x86_bit(x->operands[i].reg, n, &whole);
                if (bit >= 0 && whole) r->src |= UINT64_C(1) << bit;
            }
    switch (id) { /* they set all six arithmetic flags from their operands alone */
    case X86_INS_ADD:
    case X86_INS_ADC:
    case X86_INS_SUB:
    case X86_INS_SBB:
    case X86_INS_CMP:
    case X86_INS_AND:
    case X86_INS_OR:
    case X86_INS_XOR:
    case X86_INS_TEST:
    case X86_INS_NEG: r->kill |= UINT64_C(1) << n; break;
    default: break;
    }
}

/* The memory operand's address: base + index x scale + displacement (rip-relative: from the next
 * instruction), fs or gs base on x64. */
static bool x86_ea(sim_machine *m, const cs_insn *in, uint64_t *ea, uint32_t *size) {
    const cs_x86 *x = &in->detail->x86;
    bool x64 = m->isa->ptr == 8, whole;
    for (int i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type != X86_OP_MEM) continue;
        uint64_t a = (uint64_t)op->mem.disp;
        if (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP) {
            a += in->address + in->size;
        } else if (op->mem.base != X86_REG_INVALID) {
            int g = x86_gpr(op->mem.base, &whole);
            if (g < 0 || g >= (x64 ? 16 : 8)) return false;
            a += sim_reg(m, m->isa->replay_regs[g]);
        }
        if (op->mem.index != X86_REG_INVALID) {
            int g = x86_gpr(op->mem.index, &whole);
            if (g < 0 || g >= (x64 ? 16 : 8)) return false;
            a += sim_reg(m, m->isa->replay_regs[g]) * (uint64_t)op->mem.scale;
        }
        if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS) {
            if (!x64) return false;
            a += sim_reg(m, op->mem.segment == X86_REG_FS ? UC_X86_REG_FS_BASE : UC_X86_REG_GS_BASE);
        }
        *ea = x64 ? a : (uint32_t)a;
        *size = op->size ? op->size : 1;
        return true;
    }
    return false;
}
static void x86_replay64(csh cs, const cs_insn *in, replay_insn *r) { x86_replay(cs, in, r, 16); }
static void x86_replay32(csh cs, const cs_insn *in, replay_insn *r) { x86_replay(cs, in, r, 8); }

const sim_isa sim_isa_x64 = {
    .arch = SIM_ARCH_X64,
    .name = "x64",
    .uc_arch = UC_ARCH_X86,
    .uc_mode = UC_MODE_64,
    .cs_arch = CS_ARCH_X86,
    .cs_mode = CS_MODE_64,
    .ptr = 8,
    .lay = &lay64,
    .reg_pc = UC_X86_REG_RIP,
    .reg_sp = UC_X86_REG_RSP,
    .reg_ret = UC_X86_REG_RAX,
    .facts = insn_facts,
    .trap_of = x86_trap,
    .placed = placed64,
    .guard_bad = guard_bad64,
    .thunk = thunk64,
    .gate_entry = 5,
    .gate_entry_len = 2,
    .gate_intno = -1,
    .gate_service = service_eax,
    .call_setup = setup64,
    .gate_arg = gate_arg64,
    .gate_arg_at = gate_arg_at64,
    .gate_fparg = gate_fparg64,
    .set_fp_result = set_fp_result64,
    .result = result64,
    .set_result = set_result64,
    .intr_fault = x86_intr_fault,
    .intr_is_trap = x86_is_trap,
    .serve = x86_serve,
    .ctx_get = x86_ctx_get,
    .ctx_set = x86_ctx_set,
    .replay_of = x86_replay64,
    .replay_regs = replay64,
    .nreplay_regs = 17,
    .replay_flags = 16,
    .replay_flags_start = 0x202,
    .replay_ea = x86_ea,
};

const sim_isa sim_isa_x86 = {
    .arch = SIM_ARCH_X86,
    .name = "x86",
    .uc_arch = UC_ARCH_X86,
    .uc_mode = UC_MODE_32,
    .cs_arch = CS_ARCH_X86,
    .cs_mode = CS_MODE_32,
    .ptr = 4,
    .lay = &sim_layout32,
    .reg_pc = UC_X86_REG_EIP,
    .reg_sp = UC_X86_REG_ESP,
    .reg_ret = UC_X86_REG_EAX,
    .facts = insn_facts,
    .trap_of = x86_trap,
    .placed = placed32,
    .guard_bad = guard_bad32,
    .thunk = thunk32,
    .gate_entry = 5,
    .gate_entry_len = 2,
    .gate_intno = 0x2E,
    .gate_service = service_eax32,
    .call_setup = setup32,
    .gate_arg = gate_arg32,
    .gate_arg_at = gate_arg_at32,
    .set_fp_result = set_fp_result32,
    .result = result32,
    .set_result = set_result32,
    .intr_fault = x86_intr_fault,
    .intr_is_trap = x86_is_trap,
    .serve = x86_serve,
    .ctx_get = x86_ctx_get,
    .ctx_set = x86_ctx_set,
    .replay_of = x86_replay32,
    .replay_regs = replay32,
    .nreplay_regs = 9,
    .replay_flags = 8,
    .replay_flags_start = 0x202,
    .replay_ea = x86_ea,
};
