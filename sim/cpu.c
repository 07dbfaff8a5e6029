/* sim/cpu.c — the guest CPU: Unicorn set-up, block statistics, guest calls,
 * faults, and instructions served by the model (RDTSC, RDTSCP, RDPMC).
 *
 * Counting: a UC_HOOK_BLOCK hook looks the block up in a cache keyed by
 * (address, size); a miss decodes it once with capstone.  The hook first
 * checks the quantum and the cycle limit and stops *before* counting (a block
 * stopped from its own hook does not execute: RIP stays at its start), then
 * adds the block to the running thread's bank and the virtual clock.  A block
 * that stops part-way (fault, trapped instruction) is corrected by taking
 * back what did not retire.
 *
 * Precise faults: with any memory-access hook present, Unicorn syncs RIP
 * before each memory instruction, so a data fault reports the exact
 * instruction.  A hook on an address that is never mapped gives that with no
 * callbacks (cost measured in sim/README.md); without it RIP is the block
 * start.
 *
 * Trapped instructions: Unicorn 2.0.1 cannot hook RDTSC with UC_HOOK_INSN and
 * raises #UD for RDPMC.  When a block is first decoded and holds such an
 * instruction (or a privileged one), a UC_HOOK_CODE limited to that address
 * is added, the block is dropped from the translation cache before it runs,
 * and the run restarts at the block; the code hook then serves the
 * instruction and moves RIP past it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

typedef enum trap_kind { TRAP_RDTSC, TRAP_RDTSCP, TRAP_RDPMC, TRAP_PRIV } trap_kind;

typedef struct trap {
    sim_machine *m;
    uint64_t addr;
    uint32_t len;
    trap_kind kind;
    uc_hook h;
    struct trap *next;
} trap;

/* Unicorn takes hook callbacks as void *; ISO C has no direct conversion
 * from a function pointer, so copy the representation (same size on every
 * platform Unicorn supports; checked below). */
typedef void (*any_fn)(void);
_Static_assert(sizeof(any_fn) == sizeof(void *), "function and object pointers differ in size");
static void *hook_fn(any_fn f) {
    void *p;
    memcpy(&p, &f, sizeof p);
    return p;
}
#define HOOK(f) hook_fn((any_fn)(f))

/* Traps live in a list owned by the machine (freed in sim_cpu_fini). */

/* ---- block decoding -------------------------------------------------------------------- */

static bool is_branch(csh cs, const cs_insn *in) {
    return cs_insn_group(cs, in, X86_GRP_JUMP) || cs_insn_group(cs, in, X86_GRP_CALL) ||
           cs_insn_group(cs, in, X86_GRP_RET) || cs_insn_group(cs, in, X86_GRP_INT) ||
           cs_insn_group(cs, in, X86_GRP_IRET) || in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER;
}

static int trap_kind_of(csh cs, const cs_insn *in) {
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
    if (is_string_insn(id) && !(f & PMU_I_FP)) { /* movsd/cmpsd with xmm operands are SSE */
        f |= PMU_I_STRING;
        if (id >= X86_INS_STOSB && id <= X86_INS_STOSW) f |= PMU_I_STORE;
    }
    if (cs_insn_group(cs, in, X86_GRP_INT) || cs_insn_group(cs, in, X86_GRP_IRET) ||
        cs_insn_group(cs, in, X86_GRP_PRIVILEGE) || x->prefix[0] == X86_PREFIX_LOCK)
        f |= PMU_I_SYSTEM;
    return f;
}

static block_end end_of(unsigned f) {
    if (f & PMU_I_COND) return END_COND;
    if (f & PMU_I_RET) return END_RET;
    if ((f & PMU_I_CALL) && (f & PMU_I_INDIRECT)) return END_CALL_INDIRECT;
    if (f & PMU_I_CALL) return END_CALL;
    if (f & PMU_I_INDIRECT) return END_JMP_INDIRECT;
    return END_NONE;
}

/* Statistics of the instructions of the block at `addr` (`size` bytes) that
 * start before `stop` (use UINT64_MAX for the whole block), priced by the
 * machine's cost table.  Undecodable trailing bytes count as one SYSTEM
 * instruction (Unicorn executes or faults on it).  When `b` is given, how the
 * block ends is recorded in it. */
static pmu_block_stats decode_range(sim_machine *m, uint64_t addr, uint32_t size, uint64_t stop, block_entry *b) {
    pmu_block_stats st;
    memset(&st, 0, sizeof st);
    uint8_t stackbuf[256];
    uint8_t *buf = size <= sizeof stackbuf ? stackbuf : malloc(size);
    unsigned last = 0;
    uint64_t last_pc = addr;
    uint16_t last_len = 0;
    if (buf && size && uc_mem_read(m->uc, addr, buf, size) == UC_ERR_OK) {
        const uint8_t *p = buf;
        size_t left = size;
        uint64_t a = addr;
        cs_insn *in = cs_malloc(m->cs);
        while (in && left && a < stop) {
            if (!cs_disasm_iter(m->cs, &p, &left, &a, in)) {
                pmu_block_add_insn(&st, PMU_CL_SYSTEM, PMU_I_SYSTEM); /* undecodable: will not retire normally */
                last = 0;
                break;
            }
            unsigned f = insn_facts(m->cs, in);
            pmu_block_add_insn(&st, pmu_classify(f), f);
            last = f;
            last_pc = in->address;
            last_len = in->size;
        }
        if (in) cs_free(in, 1);
    }
    if (buf != stackbuf) free(buf);
    pmu_block_cycles(&st, &m->cfg.cost);
    if (b) {
        b->end = (uint8_t)end_of(last);
        b->end_pc = last_pc;
        b->end_len = (uint8_t)last_len;
    }
    return st;
}

/* Looks for instructions that must be trapped; installs a code hook for each
 * new one.  Returns true when at least one hook was added (block must be retranslated). */
static bool install_traps(sim_machine *m, uint64_t addr, uint32_t size);

static uint32_t hash_block(uint64_t addr, uint32_t size) {
    uint64_t h = (addr ^ ((uint64_t)size << 48)) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(h >> 32);
}

static block_entry *block_lookup(sim_machine *m, uint64_t addr, uint32_t size, bool *is_new) {
    *is_new = false;
    block_entry *mru = m->mru_block; /* loops hit the same block again and again */
    if (mru && mru->addr == addr && mru->size == size) return mru;
    if (m->nblocks * 2 >= m->capblocks) {
        uint32_t nc = m->capblocks ? m->capblocks * 2 : 1024;
        block_entry *nb = calloc(nc, sizeof *nb);
        if (!nb) return NULL;
        for (uint32_t i = 0; i < m->capblocks; i++) {
            if (!m->blocks[i].used) continue;
            uint32_t j = hash_block(m->blocks[i].addr, m->blocks[i].size) & (nc - 1);
            while (nb[j].used) j = (j + 1) & (nc - 1);
            nb[j] = m->blocks[i];
        }
        free(m->blocks);
        m->blocks = nb;
        m->capblocks = nc;
        m->last_block = NULL;
        m->mru_block = NULL;
    }
    uint32_t j = hash_block(addr, size) & (m->capblocks - 1);
    while (m->blocks[j].used) {
        if (m->blocks[j].addr == addr && m->blocks[j].size == size) return m->mru_block = &m->blocks[j];
        j = (j + 1) & (m->capblocks - 1);
    }
    block_entry *b = &m->blocks[j];
    b->used = 1;
    b->addr = addr;
    b->size = size;
    b->st = decode_range(m, addr, size, UINT64_MAX, b);
    m->nblocks++;
    *is_new = true;
    return m->mru_block = b;
}

/* ---- hooks ----------------------------------------------------------------------------- */

/* Retired work counts for the thread and as busy time of the executing CPU. */
static void retire(sim_machine *m, sim_thread *t, const pmu_block_stats *s) {
    pmu_bank_retire(&t->bank, s);
    m->exec->time += s->cycles;
    m->exec->busy += s->cycles;
}

static void unretire(sim_machine *m, sim_thread *t, const pmu_block_stats *s) {
    pmu_bank_unretire(&t->bank, s);
    m->exec->time -= s->cycles;
    m->exec->busy -= s->cycles;
}

/* The last counted block's final branch went to `next`: tell the executing
 * CPU's predictor and charge a mispredict to t.  Direct jumps never miss. */
static void resolve_branch(sim_machine *m, sim_thread *t, uint64_t next) {
    block_entry *b = m->last_block;
    pmu_bp *bp = m->exec->bp;
    if (!b || !bp || !t) return;
    bool miss = false;
    switch ((block_end)b->end) {
    case END_NONE: return;
    case END_COND: miss = pmu_bp_cond(bp, b->end_pc, next != m->last_block_addr + b->size); break;
    case END_RET: miss = pmu_bp_ret(bp, next); break;
    case END_JMP_INDIRECT: miss = pmu_bp_indirect(bp, b->end_pc, next); break;
    case END_CALL_INDIRECT:
        miss = pmu_bp_indirect(bp, b->end_pc, next);
        pmu_bp_call(bp, b->end_pc + b->end_len);
        break;
    case END_CALL: pmu_bp_call(bp, b->end_pc + b->end_len); break;
    }
    if (miss) {
        uint64_t c = pmu_bank_branch_miss(&t->bank, &m->cfg.cost);
        m->exec->time += c;
        m->exec->busy += c;
    }
}

/* A data access (cache = on): the executing CPU's hierarchy serves it; the
 * penalty of the level that did is the running thread's. */
static void on_mem(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *ud) {
    (void)uc, (void)value;
    sim_machine *m = ud;
    sim_thread *t = m->running;
    if (!t || !m->exec || !m->exec->cache) return;
    int level = pmu_cache_access(m->exec->cache, addr, (uint32_t)size, type == UC_MEM_WRITE);
    uint64_t c = pmu_bank_mem(&t->bank, level, &m->cfg.cost);
    m->exec->time += c;
    m->exec->busy += c;
}

static void on_block(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {
    sim_machine *m = ud;
    sim_thread *t = m->running;
    resolve_branch(m, t, addr); /* the previous block retired; its branch went here */
    m->last_block = NULL;
    bool is_new;
    block_entry *b = block_lookup(m, addr, size, &is_new);
    if (!b || !t) {
        m->stop = STOP_INTR;
        m->intno = -1;
        uc_emu_stop(uc);
        return;
    }
    if (is_new && install_traps(m, addr, size)) {
        uc_ctl_remove_cache(uc, addr, addr + size);
        m->stop = STOP_NONE; /* restart at the same block */
        m->retranslated = true;
        uc_emu_stop(uc);
        return;
    }
    if (m->exec->time >= m->stop_at) { /* tick, round end, preemption check or limit: ask the scheduler */
        m->stop = STOP_SCHED;
        uc_emu_stop(uc);
        return;
    }
    retire(m, t, &b->st);
    m->last_block = b;
    m->last_block_addr = addr;
}

static bool on_memerr(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *ud) {
    (void)uc, (void)size, (void)value;
    sim_machine *m = ud;
    m->memerr_addr = addr;
    m->memerr_type = (int)type;
    return false;
}

static void on_probe(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *ud) {
    (void)uc, (void)type, (void)addr, (void)size, (void)value, (void)ud; /* never called: the range is never mapped */
}

static void on_intr(uc_engine *uc, uint32_t intno, void *ud) {
    sim_machine *m = ud;
    m->stop = STOP_INTR;
    m->intno = (int)intno;
    uc_emu_stop(uc);
}

/* Calls the gate's handler for t's call of `service` (initial or resumed). */
static uint64_t gate_handle(sim_machine *m, sim_thread *t, uint32_t service, bool resumed, bool *pending) {
    *pending = false;
    if (!m->gate_fn) return 0xC000001Cu; /* detached while the call was blocked */
    m->gate_thread = t;
    uint64_t rax = m->gate_fn(m->gate_ud, t, service, resumed, pending);
    m->gate_thread = NULL;
    return rax;
}

/* `syscall`: in a thunk of the gate page (RIP is the syscall's address in the
 * hook) it is a call of the OS, served by the gate's handler; anywhere else,
 * or with no handler, there are no system services and Windows returns
 * STATUS_INVALID_SYSTEM_SERVICE.  Unicorn moves RIP past the syscall after
 * the hook, and the syscall ends its block, so a stop requested here leaves
 * RIP at the thunk's ret and nothing after the syscall has run. */
static void on_syscall(uc_engine *uc, void *ud) {
    sim_machine *m = ud;
    sim_thread *t = m->running;
    uint64_t rip, rax;
    uc_reg_read(uc, UC_X86_REG_RIP, &rip);
    uc_reg_read(uc, UC_X86_REG_RAX, &rax);
    bool in_gate = rip >= SIM_GATE_BASE && rip - SIM_GATE_BASE < (uint64_t)SIM_GATE_SERVICES * SIM_GATE_STRIDE &&
                   (rip - SIM_GATE_BASE) % SIM_GATE_STRIDE == SIM_GATE_SYSCALL;
    if (!in_gate || !m->gate_fn || !t || !m->exec || m->exec->cur != t) {
        rax = 0xC000001Cu;
        uc_reg_write(uc, UC_X86_REG_RAX, &rax);
        return;
    }
    uint32_t service = (uint32_t)rax;
    bool pending;
    rax = gate_handle(m, t, service, false, &pending);
    if (pending && m->exec->cur == t) rax = gate_handle(m, t, service, true, &pending); /* it did not wait after all */
    if (pending) {
        t->gate_pending = true; /* rax is written when the call resumes */
        t->gate_service = service;
    } else {
        uc_reg_write(uc, UC_X86_REG_RAX, &rax);
    }
    if (m->exec->cur != t) { /* it waits, gave its CPU away, or was preempted: the driver must switch */
        m->stop = STOP_GATE;
        uc_emu_stop(uc);
    }
}

/* Stats of the part of the last counted block before instruction `at`. */
static pmu_block_stats block_prefix(sim_machine *m, uint64_t at) {
    block_entry *b = m->last_block;
    if (!b) return (pmu_block_stats){0};
    return decode_range(m, m->last_block_addr, b->size, at, NULL);
}

static void unretire_suffix(sim_machine *m, sim_thread *t, uint64_t from) {
    block_entry *b = m->last_block;
    if (!b || from < m->last_block_addr || from >= m->last_block_addr + b->size) return;
    pmu_block_stats pre = block_prefix(m, from);
    pmu_block_stats suf = pmu_block_sub(&b->st, &pre);
    unretire(m, t, &suf);
    m->last_block = NULL;
}

static void set_fault(sim_thread *t, uint32_t code, uint64_t address, uint64_t data, int access) {
    sim_fault *f = &t->fault;
    memset(f, 0, sizeof *f);
    f->code = code;
    f->address = address;
    f->data = data;
    f->access = access;
    for (int i = 0; i < (int)sizeof f->bytes; i++) {
        if (uc_mem_read(t->m->uc, address + (uint64_t)i, &f->bytes[i], 1) != UC_ERR_OK) break;
        f->nbytes = i + 1;
    }
}

static void on_trap(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {
    (void)size;
    trap *tr = ud;
    sim_machine *m = tr->m;
    sim_thread *t = m->running;
    if (!t) return;
    /* What follows this instruction in the block will be counted by the block
     * that starts after it; take it back now, and this instruction too until served. */
    unretire_suffix(m, t, addr);
    if (tr->kind == TRAP_PRIV) {
        set_fault(t, 0xC0000096u /* STATUS_PRIVILEGED_INSTRUCTION */, addr, 0, 0);
        m->stop = STOP_INTR;
        m->intno = -2;
        uc_emu_stop(uc);
        return;
    }
    uint64_t value;
    if (tr->kind == TRAP_RDPMC) {
        uint64_t rcx;
        uc_reg_read(uc, UC_X86_REG_RCX, &rcx);
        value = pmu_pmc_read(&m->cfg.pmc, &t->bank, (uint32_t)rcx);
    } else {
        value = m->exec->time;
    }
    uint64_t lo = value & 0xFFFFFFFFu, hi = value >> 32;
    uc_reg_write(uc, UC_X86_REG_RAX, &lo);
    uc_reg_write(uc, UC_X86_REG_RDX, &hi);
    if (tr->kind == TRAP_RDTSCP) {
        uint64_t aux = 0; /* IA32_TSC_AUX: processor number */
        uc_reg_write(uc, UC_X86_REG_RCX, &aux);
    }
    pmu_block_stats one = {0};
    pmu_block_add_insn(&one, PMU_CL_SYSTEM, PMU_I_SYSTEM);
    pmu_block_cycles(&one, &m->cfg.cost);
    retire(m, t, &one);
    uint64_t next = addr + tr->len;
    uc_reg_write(uc, UC_X86_REG_RIP, &next);
}

static bool install_traps(sim_machine *m, uint64_t addr, uint32_t size) {
    uint8_t buf[4096];
    if (size > sizeof buf || uc_mem_read(m->uc, addr, buf, size) != UC_ERR_OK) return false;
    const uint8_t *p = buf;
    size_t left = size;
    uint64_t a = addr;
    bool added = false;
    cs_insn *in = cs_malloc(m->cs);
    while (in && left) {
        /* Bytes capstone refuses may still execute (Unicorn runs F0 F8, lock clc, as clc):
         * scanning goes on at the next byte.  A trap found off the executed path is harmless:
         * its hook fires only when an instruction starts at its address, and the instruction
         * decoded from there is then exactly the one found (found by scenarios/fuzz, target
         * guest: a HLT after lock clc halted Unicorn without a fault). */
        if (!cs_disasm_iter(m->cs, &p, &left, &a, in)) {
            p++, left--, a++;
            continue;
        }
        int k = trap_kind_of(m->cs, in);
        if (k < 0) continue;
        bool known = false;
        for (trap *x = m->traps; x; x = x->next)
            if (x->addr == in->address) known = true;
        if (known) continue;
        trap *tr = calloc(1, sizeof *tr);
        if (!tr) break;
        *tr = (trap){m, in->address, in->size, (trap_kind)k, 0, m->traps};
        if (uc_hook_add(m->uc, &tr->h, UC_HOOK_CODE, HOOK(on_trap), tr, in->address, in->address) != UC_ERR_OK) {
            free(tr);
            continue;
        }
        m->traps = tr;
        added = true;
    }
    if (in) cs_free(in, 1);
    return added;
}

/* ---- set-up ----------------------------------------------------------------------------- */

static sim_err gate_map(sim_machine *m);

sim_err sim_cpu_init(sim_machine *m) {
    if (sim_engine_open(&m->uc, &m->uc_uses) != SIM_OK) return SIM_ERR_UNICORN; /* fresh, or recycled: engine.c */
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &m->cs) != CS_ERR_OK) return SIM_ERR_UNICORN;
    cs_option(m->cs, CS_OPT_DETAIL, CS_OPT_ON);
    /* Hooks are registered before the first uc_emu_start, so every block is translated with them. */
    if (uc_hook_add(m->uc, &m->h_block, UC_HOOK_BLOCK, HOOK(on_block), m, 1, 0) != UC_ERR_OK ||
        uc_hook_add(m->uc, &m->h_intr, UC_HOOK_INTR, HOOK(on_intr), m, 1, 0) != UC_ERR_OK ||
        uc_hook_add(m->uc, &m->h_memerr, UC_HOOK_MEM_INVALID, HOOK(on_memerr), m, 1, 0) != UC_ERR_OK ||
        uc_hook_add(m->uc, &m->h_syscall, UC_HOOK_INSN, HOOK(on_syscall), m, 1, 0, UC_X86_INS_SYSCALL) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    if (m->cfg.cache &&
        uc_hook_add(m->uc, &m->h_mem, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, HOOK(on_mem), m, 1, 0) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    if (m->cfg.precise_faults && !m->cfg.cache &&
        uc_hook_add(m->uc, &m->h_probe, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, HOOK(on_probe), m, SIM_HOOK_PROBE,
                    SIM_HOOK_PROBE) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    /* QEMU keeps an exception "in flight" after a #DE or #GP handed to on_intr
     * (it was never delivered): the next such exception would become a double
     * fault, the third a triple fault that halts the CPU.  Every guest call
     * starts from this state instead (found by scenarios/fuzz, target guest). */
    if (uc_context_alloc(m->uc, &m->clean) != UC_ERR_OK || uc_context_save(m->uc, m->clean) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    /* Calls end at exits (sim_cpu_code_placed adds more), not at uc_emu_start's `until`. */
    if (!(m->exits = malloc(16 * sizeof *m->exits))) return SIM_ERR_NOMEM;
    m->capexits = 16;
    m->exits[m->nexits++] = SIM_SENTINEL;
    if (uc_ctl_exits_enable(m->uc) != UC_ERR_OK || uc_ctl_set_exits(m->uc, m->exits, (size_t)m->nexits) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    return gate_map(m);
}

/* Unicorn 2.0.1 aborts the whole process ("tcg/tcg.c: tcg fatal error") when
 * it translates a far call or jump through a register, FF /3 or FF /5 with
 * mod = 11 (the CPU raises #UD).  Each place such an instruction may start
 * (the FF, or any of the prefix bytes right before it) becomes an exit, where
 * translation stops before the instruction; sim_call_continue reports
 * STATUS_ILLEGAL_INSTRUCTION there.  Found by scenarios/fuzz, target guest.
 * CMPS (A6, A7) with a LOCK prefix (#UD on a CPU) aborts the same way: each
 * place where an instruction that includes the LOCK may start is an exit. */
static bool is_prefix(uint8_t b) {
    return (b >= 0x40 && b <= 0x4F) || b == 0x66 || b == 0x67 || b == 0xF0 || b == 0xF2 || b == 0xF3 || b == 0x26 ||
           b == 0x2E || b == 0x36 || b == 0x3E || b == 0x64 || b == 0x65;
}

static bool is_exit(const sim_machine *m, uint64_t a) {
    for (int i = 0; i < m->nexits; i++)
        if (m->exits[i] == a) return true;
    return false;
}

sim_err sim_cpu_code_placed(sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t n) {
    int before = m->nexits;
    for (size_t i = 0; i < n; i++) {
        size_t first = i, last = i; /* exits at first..last */
        while (first > 0 && i - first < 14 && is_prefix(bytes[first - 1])) first--;
        if (bytes[i] == 0xFF && i + 1 < n) {
            uint8_t modrm = bytes[i + 1], reg = (modrm >> 3) & 7;
            if (modrm >> 6 != 3 || (reg != 3 && reg != 5)) continue;
        } else if (bytes[i] == 0xA6 || bytes[i] == 0xA7) { /* CMPS with LOCK: the same abort */
            last = i;
            for (size_t k = first; k < i; k++)
                if (bytes[k] == 0xF0) last = k; /* a start after the last LOCK is a plain CMPS */
            if (last == i) continue;
        } else {
            continue;
        }
        for (size_t k = first; k <= last; k++) {
            if (m->nexits == m->capexits) {
                uint64_t *e = realloc(m->exits, 2 * (size_t)m->capexits * sizeof *e);
                if (!e) return SIM_ERR_NOMEM;
                m->exits = e;
                m->capexits *= 2;
            }
            m->exits[m->nexits++] = addr + k;
        }
    }
    if (m->nexits != before && uc_ctl_set_exits(m->uc, m->exits, (size_t)m->nexits) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    return SIM_OK;
}

/* ---- the call gate ------------------------------------------------------------------------ */

_Static_assert(SIM_PAGE / SIM_GATE_STRIDE == SIM_GATE_SERVICES, "the thunks fill one page");

/* The thunk page: thunk k = B8 k32 (mov eax, k), 0F 05 (syscall), C3 (ret),
 * then int3 up to the next thunk (never executed by a call of a thunk).
 * Read+execute, never writable by the guest. */
static sim_err gate_map(sim_machine *m) {
    uint8_t page[SIM_PAGE];
    memset(page, 0xCC, sizeof page);
    for (uint32_t k = 0; k < SIM_GATE_SERVICES; k++) {
        uint8_t *p = page + k * SIM_GATE_STRIDE;
        p[0] = 0xB8;
        for (int i = 0; i < 4; i++) p[1 + i] = (uint8_t)(k >> (8 * i));
        p[SIM_GATE_SYSCALL] = 0x0F;
        p[SIM_GATE_SYSCALL + 1] = 0x05;
        p[SIM_GATE_SYSCALL + 2] = 0xC3;
    }
    sim_err e = sim_region_add(m, SIM_GATE_BASE, SIM_PAGE, UC_PROT_READ | UC_PROT_EXEC, RK_CODE, -1);
    if (e != SIM_OK) return e;
    return uc_mem_write(m->uc, SIM_GATE_BASE, page, sizeof page) == UC_ERR_OK ? SIM_OK : SIM_ERR_UNICORN;
}

void sim_set_gate(sim_machine *m, sim_gate_fn fn, void *ud) {
    m->gate_fn = fn;
    m->gate_ud = fn ? ud : NULL;
}

uint64_t sim_gate_thunk(uint32_t service) {
    return service < SIM_GATE_SERVICES ? SIM_GATE_BASE + (uint64_t)service * SIM_GATE_STRIDE : 0;
}

sim_err sim_gate_arg(sim_thread *t, int k, uint64_t *v) {
    static const int reg[4] = {UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_R8, UC_X86_REG_R9};
    sim_machine *m = t->m;
    *v = 0;
    if (m->gate_thread != t) return SIM_ERR_STATE;
    if (k < 0 || k >= SIM_MAX_ARGS) return SIM_ERR_ARG;
    if (k < 4) {
        uc_reg_read(m->uc, reg[k], v);
        return SIM_OK;
    }
    /* [rsp] is the caller's return address, then 32 bytes of shadow space. */
    uint64_t rsp;
    uint8_t b[8];
    uc_reg_read(m->uc, UC_X86_REG_RSP, &rsp);
    sim_err e = sim_mem_read(m, rsp + 0x28 + 8 * (uint64_t)(k - 4), b, sizeof b);
    if (e != SIM_OK) return e;
    for (int i = 7; i >= 0; i--) *v = (*v << 8) | b[i];
    return SIM_OK;
}

void sim_cpu_fini(sim_machine *m) {
    bool recycle = m->uc && sim_engine_recycling(); /* engine.c: hooks go, the engine may stay */
    trap *tr = m->traps;
    while (tr) {
        trap *n = tr->next;
        if (recycle) uc_hook_del(m->uc, tr->h);
        free(tr);
        tr = n;
    }
    m->traps = NULL;
    if (recycle) {
        uc_hook hs[] = {m->h_block, m->h_intr, m->h_memerr, m->h_probe, m->h_syscall, m->h_mem};
        for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++)
            if (hs[i]) uc_hook_del(m->uc, hs[i]);
    }
    free(m->exits);
    m->exits = NULL;
    m->nexits = m->capexits = 0;
    sim_engine_close(m->uc, m->uc_uses, m->clean);
    if (m->clean) uc_context_free(m->clean);
    m->clean = NULL;
    if (m->cs) cs_close(&m->cs);
    m->uc = NULL;
}

/* ---- guest calls -------------------------------------------------------------------------- */

static const int gprs[] = {UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RSI,
                           UC_X86_REG_RDI, UC_X86_REG_RBP, UC_X86_REG_R8,  UC_X86_REG_R9,  UC_X86_REG_R10,
                           UC_X86_REG_R11, UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15};

sim_err sim_call_begin(sim_thread *t, uint64_t entry, const uint64_t *args, int nargs) {
    sim_machine *m = t->m;
    if (m->running != t || t->in_call) return SIM_ERR_STATE;
    if (nargs < 0 || nargs > SIM_MAX_ARGS) return SIM_ERR_ARG;
    sim_err me = sim_stack_acquire(t);
    if (me != SIM_OK) return me;
    /* Stack at entry: [rsp] return address (sentinel), [rsp+8..+40) shadow space,
     * [rsp+40+8k] argument 5+k.  rsp+8 is 16-byte aligned, as after a call. */
    int nstack = nargs > 4 ? nargs - 4 : 0;
    uint64_t frame = 8 + 32 + 8 * (uint64_t)nstack;
    uint64_t rsp = (t->stack_hi - frame - 8) & ~UINT64_C(15);
    rsp -= 8; /* return address slot: (rsp + 8) % 16 == 0 */
    uint8_t img[8 + 32 + 8 * SIM_MAX_ARGS];
    memset(img, 0, sizeof img);
    uint64_t ret = SIM_SENTINEL;
    memcpy(img, &ret, 8);
    for (int k = 0; k < nstack; k++) memcpy(img + 40 + 8 * k, &args[4 + k], 8);
    if (uc_mem_write(m->uc, rsp, img, (size_t)frame) != UC_ERR_OK) return SIM_ERR_UNICORN;
    /* (a suspended call's context was saved when it stopped) */
    uc_context_restore(m->uc, m->clean); /* no exception in flight, no other call's registers */
    uint64_t zero = 0;
    for (size_t i = 0; i < sizeof gprs / sizeof gprs[0]; i++) uc_reg_write(m->uc, gprs[i], &zero);
    static const int argreg[4] = {UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_R8, UC_X86_REG_R9};
    for (int k = 0; k < nargs && k < 4; k++) uc_reg_write(m->uc, argreg[k], &args[k]);
    uint64_t flags = 0x202;
    uc_reg_write(m->uc, UC_X86_REG_RFLAGS, &flags);
    uc_reg_write(m->uc, UC_X86_REG_RSP, &rsp);
    /* The caller's `call`: its return address enters the return stack, and its
     * store the cache (neither is the callee's work, so nothing is counted). */
    if (m->exec && m->exec->bp) pmu_bp_call(m->exec->bp, SIM_SENTINEL);
    if (m->exec && m->exec->cache) pmu_cache_access(m->exec->cache, rsp, 8, true);
    m->loaded = t;
    t->rip = entry;
    t->in_call = true;
    t->gate_pending = false;
    t->result = 0;
    return SIM_OK;
}

static int access_of(int memerr_type) {
    switch (memerr_type) {
    case UC_MEM_WRITE_UNMAPPED:
    case UC_MEM_WRITE_PROT: return 1;
    case UC_MEM_FETCH_UNMAPPED:
    case UC_MEM_FETCH_PROT: return 8;
    default: return 0;
    }
}

static uint32_t intr_code(int intno) {
    switch (intno) {
    case 0: return 0xC0000094u;    /* STATUS_INTEGER_DIVIDE_BY_ZERO */
    case 1: return 0x80000004u;    /* STATUS_SINGLE_STEP */
    case 3: return 0x80000003u;    /* STATUS_BREAKPOINT */
    case 4: return 0xC0000095u;    /* STATUS_INTEGER_OVERFLOW */
    case 5: return 0xC000008Cu;    /* STATUS_ARRAY_BOUNDS_EXCEEDED */
    case 6: return 0xC000001Du;    /* STATUS_ILLEGAL_INSTRUCTION */
    case 0x29: return 0xC0000409u; /* __fastfail: STATUS_STACK_BUFFER_OVERRUN */
    case 0x2C: return 0xC0000420u; /* STATUS_ASSERTION_FAILURE */
    case 0x2D: return 0x80000003u; /* debug service */
    default: return 0xC0000005u;   /* int n in user mode: #GP, reported as an access violation */
    }
}

/* Settles the last counted block after an exception at `rip`.  A fault
 * (memory, #DE, #UD) is raised by the instruction at rip, which does not
 * retire; a trap (int3, int n, into) is raised after the instruction that
 * ends at rip, which does.  Takes back what did not retire and returns the
 * exception address. */
static uint64_t settle_partial_block(sim_machine *m, sim_thread *t, uint64_t rip, bool is_trap) {
    block_entry *b = m->last_block;
    if (!b || rip < m->last_block_addr || rip > m->last_block_addr + b->size) return rip;
    uint64_t at = rip;
    if (is_trap) {
        uint8_t buf[4096];
        if (b->size <= sizeof buf && uc_mem_read(m->uc, m->last_block_addr, buf, b->size) == UC_ERR_OK) {
            const uint8_t *p = buf;
            size_t left = b->size;
            uint64_t a = m->last_block_addr;
            cs_insn *in = cs_malloc(m->cs);
            while (in && left && cs_disasm_iter(m->cs, &p, &left, &a, in)) {
                if (in->address + in->size == rip) {
                    at = in->address;
                    break;
                }
            }
            if (in) cs_free(in, 1);
        }
    }
    unretire_suffix(m, t, rip);
    return at;
}

/* Interrupt vectors raised after the instruction completes. */
static bool is_trap_vector(int intno) { return intno != 0 && intno != 5 && intno != 6 && intno != 13; }

static sim_call_status fault_from_uc(sim_thread *t, uc_err e, uint64_t rip) {
    sim_machine *m = t->m;
    uint32_t code;
    int access = access_of(m->memerr_type);
    uint64_t data = m->memerr_addr;
    switch (e) {
    case UC_ERR_READ_UNMAPPED:
    case UC_ERR_WRITE_UNMAPPED:
    case UC_ERR_FETCH_UNMAPPED:
    case UC_ERR_READ_PROT:
    case UC_ERR_WRITE_PROT:
    case UC_ERR_FETCH_PROT:
    case UC_ERR_READ_UNALIGNED:
    case UC_ERR_WRITE_UNALIGNED:
    case UC_ERR_FETCH_UNALIGNED: {
        code = 0xC0000005u; /* STATUS_ACCESS_VIOLATION */
        const region *r = sim_region_find(m, data);
        if (access != 8 && r && r->kind == RK_GUARD && r->owner == t->index)
            code = 0xC00000FDu; /* STATUS_STACK_OVERFLOW: the stack's guard page */
        if (access == 8) {
            data = rip;
            m->last_block = NULL; /* the jump that got here retired */
        } else {
            rip = settle_partial_block(m, t, rip, false);
        }
        break;
    }
    case UC_ERR_INSN_INVALID:
        code = 0xC000001Du; /* STATUS_ILLEGAL_INSTRUCTION */
        rip = settle_partial_block(m, t, rip, false);
        data = 0;
        access = 0;
        break;
    case UC_ERR_OK:
    case UC_ERR_NOMEM:
    case UC_ERR_ARCH:
    case UC_ERR_HANDLE:
    case UC_ERR_MODE:
    case UC_ERR_VERSION:
    case UC_ERR_HOOK:
    case UC_ERR_MAP:
    case UC_ERR_ARG:
    case UC_ERR_HOOK_EXIST:
    case UC_ERR_RESOURCE:
    case UC_ERR_EXCEPTION:
    default:
        snprintf(t->error, sizeof t->error, "emulator error at rip 0x%llx: %s", (unsigned long long)rip,
                 uc_strerror(e));
        sim_call_end(t);
        return SIM_CALL_ERROR;
    }
    set_fault(t, code, rip, data, access);
    sim_call_end(t);
    return SIM_CALL_FAULTED;
}

static bool save_context(sim_thread *t) {
    sim_machine *m = t->m;
    if (!t->ctx && uc_context_alloc(m->uc, &t->ctx) != UC_ERR_OK) return false;
    uc_context_save(m->uc, t->ctx);
    return true;
}

sim_call_status sim_call_continue(sim_thread *t) {
    sim_machine *m = t->m;
    if (m->running != t || !t->in_call || !m->exec || m->exec->cur != t) {
        snprintf(t->error, sizeof t->error, "no guest call in progress on this thread");
        return SIM_CALL_ERROR;
    }
    if (m->loaded != t) {
        if (m->loaded && m->loaded->in_call && !save_context(m->loaded)) {
            snprintf(t->error, sizeof t->error, "out of host memory for a CPU context");
            return SIM_CALL_ERROR;
        }
        uc_context_restore(m->uc, t->ctx);
        m->loaded = t;
    }
    if (t->gate_pending) { /* a gate call that blocked: its result, now that t runs again */
        bool pending;
        uint64_t rax = gate_handle(m, t, t->gate_service, true, &pending);
        uc_reg_write(m->uc, UC_X86_REG_RAX, &rax);
        t->gate_pending = false;
    }
    m->stop_at = sim_sched_segment_begin(m, m->exec);
    /* Each pass ends on a stop; a pass that only crosses a clock tick or
     * retranslates a block makes progress (time advances or a block gains its
     * traps), and max_cycles bounds the whole. */
    for (;;) {
        m->stop = STOP_NONE;
        m->intno = 0;
        m->memerr_addr = 0;
        m->memerr_type = 0;
        m->last_block = NULL;
        m->retranslated = false;
        uc_err e = uc_emu_start(m->uc, t->rip, SIM_SENTINEL, 0, 0);
        uint64_t rip;
        uc_reg_read(m->uc, UC_X86_REG_RIP, &rip);
        if (e != UC_ERR_OK) return fault_from_uc(t, e, rip);
        switch (m->stop) {
        case STOP_NONE:
            if (rip == SIM_SENTINEL) {
                resolve_branch(m, t, rip); /* the final ret */
                uc_reg_read(m->uc, UC_X86_REG_RAX, &t->result);
                sim_call_end(t);
                return SIM_CALL_RETURNED;
            }
            if (!m->retranslated && is_exit(m, rip)) { /* an instruction the engine cannot translate: #UD */
                resolve_branch(m, t, rip);
                set_fault(t, 0xC000001Du /* STATUS_ILLEGAL_INSTRUCTION */, settle_partial_block(m, t, rip, false), 0,
                          0);
                sim_call_end(t);
                return SIM_CALL_FAULTED;
            }
            if (!m->retranslated) {
                snprintf(t->error, sizeof t->error, "guest stopped without a reason at rip 0x%llx",
                         (unsigned long long)rip);
                sim_call_end(t);
                return SIM_CALL_ERROR;
            }
            t->rip = rip; /* the block gained its traps; run it again */
            continue;
        case STOP_SCHED:
            t->rip = rip;
            if (m->exec->time >= m->max_cycles) {
                save_context(t);
                return SIM_CALL_LIMIT;
            }
            if (sim_sched_boundary(m) == BOUNDARY_YIELD) {
                if (m->exec->time >= m->max_cycles && m->exec->cur == t) {
                    save_context(t);
                    return SIM_CALL_LIMIT;
                }
                if (!save_context(t)) {
                    snprintf(t->error, sizeof t->error, "out of host memory for a CPU context");
                    return SIM_CALL_ERROR;
                }
                return SIM_CALL_YIELD;
            }
            continue;
        case STOP_GATE: /* a gate call took t off its CPU; it resumes at the thunk's ret */
            t->rip = rip;
            if (m->exec->cur == t) continue;
            if (!save_context(t)) {
                snprintf(t->error, sizeof t->error, "out of host memory for a CPU context");
                return SIM_CALL_ERROR;
            }
            return SIM_CALL_YIELD;
        case STOP_INTR:
            if (m->intno == -2) { /* privileged instruction, already described by on_trap */
                sim_call_end(t);
                return SIM_CALL_FAULTED;
            }
            if (m->intno == -1) {
                snprintf(t->error, sizeof t->error, "out of host memory for the block cache");
                sim_call_end(t);
                return SIM_CALL_ERROR;
            }
            {
                uint64_t at = settle_partial_block(m, t, rip, is_trap_vector(m->intno));
                uint32_t code = intr_code(m->intno);
                set_fault(t, code, at, code == 0xC0000005u ? UINT64_MAX : 0, 0);
            }
            sim_call_end(t);
            return SIM_CALL_FAULTED;
        }
    }
}

uint64_t sim_call_result(const sim_thread *t) { return t->result; }
const sim_fault *sim_call_fault(const sim_thread *t) { return &t->fault; }
const char *sim_call_error(const sim_thread *t) { return t->error; }
