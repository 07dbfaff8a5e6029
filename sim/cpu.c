/* sim/cpu.c — the guest CPU: Unicorn set-up, block statistics, guest calls,
 * faults, and instructions served by the model (RDTSC, RDTSCP, RDPMC; ARM64
 * reads of the cycle counters).  Everything that depends on the instruction
 * set comes from the machine's ISA descriptor (sim/isa.h, sim/isa_*.c).
 *
 * Counting: a UC_HOOK_BLOCK hook looks the block up in a cache keyed by
 * (address, size); a miss decodes it once with capstone.  The hook first
 * checks the quantum and the cycle limit and stops *before* counting (a block
 * stopped from its own hook does not execute: RIP stays at its start), then
 * adds the block to the running thread's bank and the virtual clock.  A block
 * that stops part-way (fault, trapped instruction) is corrected by taking
 * back what did not retire.
 *
 * Precise faults: without a memory-access hook Unicorn reports a data fault
 * with the PC at the block's start (every register as of the faulting
 * instruction); replay.c then finds the instruction, at no cost to a run
 * that does not fault.  With a memory hook (the cache model's; precise_hook)
 * Unicorn syncs the PC before each load and store itself (sim/README.md
 * "Precise faults").
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

typedef struct trap {
    sim_machine *m;
    uint64_t addr;
    uint32_t len;
    trap_kind kind;
    int reg; /* destination register (TRAP_CLOCK) */
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
    if (buf && size && sim_mem_peek(m, addr, buf, size) == size) {
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
            unsigned f = m->isa->facts(m->cs, in);
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

static inline uint32_t front_index(uint64_t addr) { return (uint32_t)(addr ^ (addr >> 10)) & (SIM_BLOCK_FRONT - 1); }

/* The steady loop is gone (sim_int.h loop_size): the next block takes the full path.
 * No block has this size (not even one of 0 bytes, should the engine report one). */
#define NO_LOOP UINT32_MAX
static inline void loop_forget(sim_machine *m) { m->loop_size = NO_LOOP; }

/* The hot paths stay small when their slow parts are not inlined into them. */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif
/* Kept exactly as written, parameters too (no clone with fewer): a tail call with the
 * caller's own parameters is then a plain jump. */
#if defined(__GNUC__) && !defined(__clang__)
#define TAIL_TARGET __attribute__((noipa))
#else
#define TAIL_TARGET NOINLINE
#endif

static bool is_exit(const sim_machine *m, uint64_t a);
static sim_err guard_exit(sim_machine *m, uint64_t rip);

/* ---- counting ---------------------------------------------------------------------------- */

/* Adds the pending runs of every dirty block to the running thread's bank and
 * its CPU's clock (each block is on the list once: the loop is bounded by the
 * table).  Runs only pend while one thread runs on one CPU inside the engine. */
static void flush_runs(sim_machine *m) {
    block_entry *b = m->dirty;
    m->dirty = NULL;
    loop_forget(m); /* its runs go */
    sim_thread *t = m->running;
    sim_cpu *c = m->exec;
    while (b) {
        block_entry *next = b->dirty_next;
        if (t && c) {
            pmu_bank_retire_n(&t->bank, &b->st, b->runs);
            c->time += b->runs * b->st.cycles;
            c->busy += b->runs * b->st.cycles;
        }
        b->runs = 0;
        b->dirty_next = NULL;
        b = next;
    }
}

/* The cycles left before the executing CPU must stop (no runs pending). */
static void budget_refresh(sim_machine *m) {
    m->budget = m->exec && m->exec->time < m->stop_at ? m->stop_at - m->exec->time : 0;
    m->hot_bp = m->exec ? m->exec->bp : NULL;
    m->hot_cache = m->exec ? m->exec->cache : NULL;
}

/* Cycles added to the executing CPU's clock outside a block's own: the budget shrinks too. */
static inline void clock_add(sim_machine *m, uint64_t c) {
    m->exec->time += c;
    m->exec->busy += c;
    m->budget = m->budget > c ? m->budget - c : 0;
}

static block_entry *block_lookup(sim_machine *m, uint64_t addr, uint32_t size, bool *is_new) {
    *is_new = false;
    if (m->nblocks * 2 >= m->capblocks) {
        uint32_t nc = m->capblocks ? m->capblocks * 2 : 1024;
        block_entry *nb = calloc(nc, sizeof *nb);
        if (!nb) return NULL;
        flush_runs(m); /* the entries move */
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
        loop_forget(m);
        memset(m->front, 0, sizeof m->front);
    }
    uint32_t j = hash_block(addr, size) & (m->capblocks - 1);
    while (m->blocks[j].used) {
        if (m->blocks[j].addr == addr && m->blocks[j].size == size) return &m->blocks[j];
        j = (j + 1) & (m->capblocks - 1);
    }
    block_entry *b = &m->blocks[j];
    b->used = 1;
    b->addr = addr;
    b->size = size;
    b->st = decode_range(m, addr, size, UINT64_MAX, b);
    if (m->recover) sim_replay_analyse(m, b);
    m->nblocks++;
    *is_new = true;
    return b;
}

/* ---- hooks ----------------------------------------------------------------------------- */

/* Retired work counts for the thread and as busy time of the executing CPU
 * (outside the block hook: a served instruction; no runs pending). */
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
    pmu_bp *bp = m->exec ? m->exec->bp : NULL;
    if (!b || !bp || !t) return;
    bool miss = false;
    switch ((block_end)b->end) {
    case END_NONE: return;
    case END_COND: miss = pmu_bp_cond(bp, b->end_pc, next != b->addr + b->size); break;
    case END_RET: miss = pmu_bp_ret(bp, next); break;
    case END_JMP_INDIRECT: miss = pmu_bp_indirect(bp, b->end_pc, next); break;
    case END_CALL_INDIRECT:
        miss = pmu_bp_indirect(bp, b->end_pc, next);
        pmu_bp_call(bp, b->end_pc + b->end_len);
        break;
    case END_CALL: pmu_bp_call(bp, b->end_pc + b->end_len); break;
    }
    if (miss) clock_add(m, pmu_bank_branch_miss(&t->bank, &m->cfg.cost));
}

/* The part of on_mem past the one-line fast path: the hierarchy looked up.
 * The hook's own parameters, so that on_mem reaches it by a plain jump. */
TAIL_TARGET static void on_mem_slow(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *ud) {
    (void)uc, (void)value;
    sim_machine *m = ud;
    sim_thread *t = m->running;
    if (!t) return;
    int level = pmu_cache_access_past_last(m->hot_cache, addr, (uint32_t)size, type == UC_MEM_WRITE);
    if (level > 1) clock_add(m, pmu_bank_mem(&t->bank, level, &m->cfg.cost));
}

/* A data access (cache = on): the executing CPU's hierarchy serves it; the
 * penalty of the level that did is the running thread's.  An access within
 * the last access's L1D line is a hit that changes nothing (pmu.h). */
static void on_mem(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *ud) {
    const pmu_cache *c = ((const sim_machine *)ud)->hot_cache;
    if (!c || pmu_cache_access_last(c, addr, (uint32_t)size)) return;
    on_mem_slow(uc, type, addr, size, value, ud);
}

/* A block not in the front table: the table (a decode when new), then its
 * trap points.  NULL when the run must stop (m->stop says why). */
static block_entry *block_miss(sim_machine *m, uint64_t addr, uint32_t size) {
    bool is_new;
    block_entry *b = block_lookup(m, addr, size, &is_new);
    if (!b) {
        m->stop = STOP_INTR;
        m->intno = -1;
        uc_emu_stop(m->uc);
        return NULL;
    }
    if (is_new && install_traps(m, addr, size)) {
        uc_ctl_remove_cache(m->uc, addr, addr + size);
        m->stop = STOP_NONE; /* restart at the same block */
        m->retranslated = true;
        uc_emu_stop(m->uc);
        return NULL;
    }
    m->front[front_index(addr)] = b;
    return b;
}

/* The part of on_block past the branch: a block outside the front table
 * (looked up, decoded when new), a thread or budget missing: a stop. */
NOINLINE static void on_block_slow(uc_engine *uc, uint64_t addr, uint32_t size, sim_machine *m) {
    sim_thread *t = m->running;
    m->last_block = NULL;
    loop_forget(m);
    if (!t) {
        m->stop = STOP_INTR;
        m->intno = -1;
        uc_emu_stop(uc);
        return;
    }
    block_entry *b = m->front[front_index(addr)];
    if (!b || b->addr != addr || b->size != size) {
        b = block_miss(m, addr, size);
        if (!b) return;
    }
    if (m->budget == 0) { /* tick, round end, preemption check or limit: ask the scheduler */
        m->stop = STOP_SCHED;
        uc_emu_stop(uc);
        return;
    }
    uint64_t cy = b->st.cycles;
    m->budget = m->budget > cy ? m->budget - cy : 0;
    if (b->runs++ == 0) {
        b->dirty_next = m->dirty;
        m->dirty = b;
    }
    m->last_block = b;
    m->last_block_addr = addr;
    if (b->save) sim_replay_save(m, b); /* what a replay of it would need (replay.c) */
}

/* Counts the run of the block at addr: when it is in the front table, saves
 * nothing for a replay and more cycles are left than it costs, here (a first
 * pending run joins the dirty list); anything else in on_block_slow (a tail
 * call: the hot path saves no registers).
 * `steady`: the previous block's branch left the predictor as it was, so a
 * block that went to itself is a steady loop from now on (sim_int.h). */
static inline void count_run(uc_engine *uc, uint64_t addr, uint32_t size, sim_machine *m, bool steady) {
    block_entry *prev = m->last_block;
    block_entry *b = m->front[front_index(addr)];
    if (b && b->addr == addr && b->size == size && !b->save && m->budget > b->st.cycles && (b->runs || m->running)) {
        m->budget -= b->st.cycles;
        if (b->runs++ == 0) { /* its first run since the last flush (a gate call flushes them all) */
            b->dirty_next = m->dirty;
            m->dirty = b;
        }
        m->last_block = b;
        m->last_block_addr = addr;
        m->loop_size = steady && b == prev ? size : NO_LOOP;
        return;
    }
    on_block_slow(uc, addr, size, m);
}

/* The previous block's branch needs the predictor: resolved, then the run counted. */
NOINLINE static void on_block_branch(uc_engine *uc, uint64_t addr, uint32_t size, sim_machine *m) {
    block_entry *prev = m->last_block;
    sim_thread *t = m->running;
    if (prev->end != END_COND)
        resolve_branch(m, t, addr);
    else if (t && pmu_bp_cond(m->hot_bp, prev->end_pc, addr != prev->addr + prev->size))
        clock_add(m, pmu_bank_branch_miss(&t->bank, &m->cfg.cost));
    count_run(uc, addr, size, m, false);
}

/* The hot path, once per executed block.  A steady loop's next run only
 * counts.  Otherwise first the previous block's branch, which went here:
 * nothing to do without a predictor or a branch, or for a conditional branch
 * in the predictor's steady state (pmu.h); otherwise the predictor learns it
 * (on_block_branch).  Then the run is counted. */
static void on_block(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {
    sim_machine *m = ud;
    block_entry *prev = m->last_block;
    if (size == m->loop_size && addr == m->last_block_addr && m->budget > prev->st.cycles) {
        m->budget -= prev->st.cycles;
        prev->runs++;
        return;
    }
    if (prev && prev->end != END_NONE && m->hot_bp &&
        !(prev->end == END_COND && pmu_bp_cond_steady(m->hot_bp, prev->end_pc, addr != prev->addr + prev->size))) {
        on_block_branch(uc, addr, size, m);
        return;
    }
    count_run(uc, addr, size, m, true);
}

static bool on_memerr(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *ud) {
    (void)uc, (void)value;
    sim_machine *m = ud;
    if (m->replaying) { /* replay.c: the replay's fault, nothing mapped */
        /* guarded code (x86): the replayed block's instructions were checked when it was translated */
        if (type == UC_MEM_FETCH_PROT && sim_wx_guarded(m, addr)) return true;
        m->replay_addr = addr;
        m->replay_type = (int)type;
        return false;
    }
    /* The OS heap reads as mapped zeros everywhere (sim_heap_cover): map and retry. */
    bool unmapped = type == UC_MEM_READ_UNMAPPED || type == UC_MEM_WRITE_UNMAPPED || type == UC_MEM_FETCH_UNMAPPED;
    uint64_t mapped = m->heap_mapped;
    if (unmapped && size > 0 && sim_heap_cover(m, addr, (uint64_t)size) && m->heap_mapped != mapped) return true;
    if (type == UC_MEM_FETCH_PROT && sim_guard_fetch(m, addr, size)) return true; /* guarded code */
    m->memerr_addr = addr;
    m->memerr_type = (int)type;
    return false;
}

static void on_probe(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *ud) {
    (void)uc, (void)type, (void)addr, (void)size, (void)value,
        (void)ud; /* x86: never called (never mapped); ARM64: empty */
}

static void gate_enter(sim_machine *m, uint64_t at);

/* An exception (x86 #DE, int n; ARM undefined instruction, svc, brk): the
 * ISA's gate-entering interrupt goes to the gate; every other one ends the call. */
static void on_intr(uc_engine *uc, uint32_t intno, void *ud) {
    sim_machine *m = ud;
    if (m->replaying) { /* replay.c: a replay never enters the gate or ends a call */
        m->replay_refused = true;
        uc_emu_stop(uc);
        return;
    }
    if (m->isa->gate_intno >= 0 && (int)intno == m->isa->gate_intno) {
        /* the PC is after the entering instruction */
        gate_enter(m, sim_reg(m, m->isa->reg_pc) - m->isa->gate_entry_len);
        return;
    }
    m->stop = STOP_INTR;
    m->intno = (int)intno;
    uc_emu_stop(uc);
}

/* Calls the gate's handler for t's call of `service` (initial or resumed). */
static uint64_t gate_handle(sim_machine *m, sim_thread *t, uint32_t service, bool resumed, bool *pending) {
    *pending = false;
    if (!m->gate_fn) return m->gate_refusal; /* detached while the call was blocked */
    m->gate_thread = t;
    uint64_t rax = m->gate_fn(m->gate_ud, t, service, resumed, pending);
    m->gate_thread = NULL;
    return rax;
}

/* The gate-entering instruction at `at` (x64 syscall, x86 int 0x2e, ARM
 * svc): in a thunk of the gate page it is a call of the OS, served by the
 * gate's handler; anywhere else, or with no handler, there are no system
 * services and the result is the gate's refusal (api/: what Windows returns).  The engine
 * moves the PC past the instruction, which ends its block, so a stop
 * requested here leaves the PC at the thunk's return and nothing after the
 * entry has run. */
static void gate_serve(sim_machine *m, uint64_t at);
static void gate_enter(sim_machine *m, uint64_t at) {
    flush_runs(m); /* the handler reads banks and clocks */
    gate_serve(m, at);
    budget_refresh(m); /* it may have moved the clock (kernel work) or stop_at (a thread made ready) */
}

static void gate_serve(sim_machine *m, uint64_t at) {
    sim_thread *t = m->running;
    uint64_t g = m->lay->gate;
    bool in_gate = at >= g && at - g < (uint64_t)SIM_GATE_SERVICES * SIM_GATE_STRIDE &&
                   (at - g) % SIM_GATE_STRIDE == m->isa->gate_entry;
    if (!in_gate || !m->gate_fn || !t || !m->exec || m->exec->cur != t) {
        m->isa->set_result(m, m->gate_refusal);
        return;
    }
    uint32_t service = m->isa->gate_service(m, (uint32_t)((at - g) / SIM_GATE_STRIDE));
    bool pending;
    t->gate_end = false;
    uint64_t rax = gate_handle(m, t, service, false, &pending);
    /* it did not wait after all: its result now (a resumed handler may wait again: each pass
     * waits or returns) */
    for (int k = 0; pending && !t->gate_end && !t->ctx_set && m->exec->cur == t && k < 64; k++)
        rax = gate_handle(m, t, service, true, &pending);
    if (t->ctx_set) { /* the call goes on from a context the handler set (context.c): no result */
        t->ctx_set = false;
        t->gate_end = false;
        m->stop = STOP_CONTEXT;
        uc_emu_stop(m->uc);
        return;
    }
    if (t->gate_end && !pending && m->exec->cur == t) { /* the call ends here (sim_gate_end_call) */
        t->result = rax;
        m->stop = STOP_END;
        uc_emu_stop(m->uc);
        return;
    }
    t->gate_end = false;
    if (pending) {
        t->gate_pending = true; /* the result is written when the call resumes */
        t->gate_service = service;
    } else {
        m->isa->set_result(m, rax);
    }
    /* it waits, gave its CPU away, or was preempted: the driver must switch; or the call returns
     * elsewhere (sim_gate_redirect): the next pass starts there */
    if (m->exec->cur != t || (t->redirect && !pending)) {
        m->stop = STOP_GATE;
        uc_emu_stop(m->uc);
    }
}

/* x64 `syscall` (RIP is the syscall's address in the hook). */
static void on_syscall(uc_engine *uc, void *ud) {
    sim_machine *m = ud;
    if (m->replaying) {
        m->replay_refused = true;
        uc_emu_stop(uc);
        return;
    }
    gate_enter(m, sim_reg(m, m->isa->reg_pc));
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
    loop_forget(m);
}

static void set_fault(sim_thread *t, sim_fault_kind kind, uint64_t address, uint64_t data, int access) {
    sim_fault *f = &t->fault;
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->address = address;
    f->data = data;
    f->access = access;
    (void)sim_heap_cover(t->m, address, sizeof f->bytes);
    f->nbytes = (int)sim_mem_peek(t->m, address, f->bytes, sizeof f->bytes);
    /* The CPU as the exception leaves it, its PC at the exception address (sim_fault_reg; the PC is
     * set in the engine around the save: Unicorn 2.0.1's uc_context_reg_write crashes on ARM). */
    sim_machine *m = t->m;
    uint64_t pc = sim_reg(m, m->isa->reg_pc);
    if (pc != address) sim_reg_set(m, m->isa->reg_pc, address);
    if (t->fault_ctx || uc_context_alloc(m->uc, &t->fault_ctx) == UC_ERR_OK) uc_context_save(m->uc, t->fault_ctx);
    if (pc != address) sim_reg_set(m, m->isa->reg_pc, pc);
}

bool sim_fault_reg(const sim_thread *t, int reg, uint64_t *v) {
    *v = 0;
    return t->fault.kind != SIM_FAULT_NONE && t->fault_ctx && uc_context_reg_read(t->fault_ctx, reg, v) == UC_ERR_OK;
}

static void trap_serve(uc_engine *uc, uint64_t addr, trap *tr);
static void on_trap(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {
    (void)size;
    trap *tr = ud;
    if (tr->m->replaying) { /* replay.c: a replay serves nothing */
        tr->m->replay_refused = true;
        uc_emu_stop(uc);
        return;
    }
    flush_runs(tr->m); /* what follows is taken back, and the clock is read */
    trap_serve(uc, addr, tr);
    budget_refresh(tr->m);
}

static void trap_serve(uc_engine *uc, uint64_t addr, trap *tr) {
    sim_machine *m = tr->m;
    sim_thread *t = m->running;
    if (!t) return;
    /* What follows this instruction in the block will be counted by the block
     * that starts after it; take it back now, and this instruction too until served. */
    unretire_suffix(m, t, addr);
    if (tr->kind == TRAP_PRIV || tr->kind == TRAP_ILLEGAL) {
        set_fault(t, tr->kind == TRAP_PRIV ? SIM_FAULT_PRIVILEGED : SIM_FAULT_ILLEGAL, addr, 0, 0);
        m->stop = STOP_INTR;
        m->intno = -2;
        uc_emu_stop(uc);
        return;
    }
    m->isa->serve(m, t, tr->kind, tr->reg);
    pmu_block_stats one = {0};
    pmu_block_add_insn(&one, PMU_CL_SYSTEM, PMU_I_SYSTEM);
    pmu_block_cycles(&one, &m->cfg.cost);
    retire(m, t, &one);
    sim_reg_set(m, m->isa->reg_pc, addr + tr->len);
}

/* A trap hook at `at` (an instruction start); false when one is there already or none could be added. */
static bool add_trap(sim_machine *m, uint64_t at, uint32_t len, trap_kind k, int reg) {
    for (trap *x = m->traps; x; x = x->next)
        if (x->addr == at) return false;
    trap *tr = calloc(1, sizeof *tr);
    if (!tr) return false;
    *tr = (trap){m, at, len, k, reg, 0, m->traps};
    if (uc_hook_add(m->uc, &tr->h, UC_HOOK_CODE, HOOK(on_trap), tr, at, at) != UC_ERR_OK) {
        free(tr);
        return false;
    }
    m->traps = tr;
    return true;
}

static bool install_traps(sim_machine *m, uint64_t addr, uint32_t size) {
    uint8_t buf[4096];
    if (size > sizeof buf || sim_mem_peek(m, addr, buf, size) != size) return false;
    const uint8_t *p = buf;
    size_t left = size;
    uint64_t a = addr, refused = UINT64_MAX; /* start of the run of refused bytes before `a` */
    bool added = false;
    cs_insn *in = cs_malloc(m->cs);
    while (in && left) {
        /* Bytes capstone refuses may still execute (Unicorn runs F0 F8, lock clc, as clc):
         * scanning goes on at the next byte.  A trap found off the executed path is harmless:
         * its hook fires only when an instruction starts at its address, and the instruction
         * decoded from there is then exactly the one found (found by scenarios/fuzz, target
         * guest: a HLT after lock clc halted Unicorn without a fault). */
        if (!cs_disasm_iter(m->cs, &p, &left, &a, in)) {
            if (refused == UINT64_MAX) refused = a;
            p++, left--, a++;
            continue;
        }
        uint64_t run = refused;
        refused = UINT64_MAX;
        int reg;
        int k = m->isa->trap_of(m->cs, in, &reg);
        if (k < 0) continue;
        added |= add_trap(m, in->address, in->size, (trap_kind)k, reg);
        /* Refused bytes right before a trapped instruction may be one instruction with it
         * (F0 F4, lock hlt, which Unicorn runs as a HLT): an encoding the CPU rejects (#UD),
         * so an instruction starting at any of them is an illegal-instruction fault (found by
         * scenarios/fuzz, target guest). */
        for (uint64_t r = run; run != UINT64_MAX && r < in->address; r++)
            added |= add_trap(m, r, (uint32_t)(in->address + in->size - r), TRAP_ILLEGAL, -1);
    }
    if (in) cs_free(in, 1);
    return added;
}

/* ---- set-up ----------------------------------------------------------------------------- */

static sim_err gate_map(sim_machine *m);

sim_err sim_cpu_init(sim_machine *m) {
    const sim_isa *isa = m->isa;
    loop_forget(m);
    /* fresh, or recycled: engine.c */
    if (sim_engine_open(isa->uc_arch, isa->uc_mode, &m->uc, &m->uc_uses) != SIM_OK) return SIM_ERR_UNICORN;
    if (cs_open(isa->cs_arch, isa->cs_mode, &m->cs) != CS_ERR_OK) return SIM_ERR_UNICORN;
    cs_option(m->cs, CS_OPT_DETAIL, CS_OPT_ON);
    /* Hooks are registered before the first uc_emu_start, so every block is translated with them. */
    if (uc_hook_add(m->uc, &m->h_block, UC_HOOK_BLOCK, HOOK(on_block), m, 1, 0) != UC_ERR_OK ||
        uc_hook_add(m->uc, &m->h_intr, UC_HOOK_INTR, HOOK(on_intr), m, 1, 0) != UC_ERR_OK ||
        uc_hook_add(m->uc, &m->h_memerr, UC_HOOK_MEM_INVALID, HOOK(on_memerr), m, 1, 0) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    if (isa->arch == SIM_ARCH_X64 &&
        uc_hook_add(m->uc, &m->h_syscall, UC_HOOK_INSN, HOOK(on_syscall), m, 1, 0, UC_X86_INS_SYSCALL) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    if (m->cfg.cache &&
        uc_hook_add(m->uc, &m->h_mem, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, HOOK(on_mem), m, 1, 0) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    /* Precise faults.  With no memory hook (the default) a data fault's instruction is found when
     * it happens, by replay.c, at no cost to a run that does not fault.  With a memory hook (the
     * cache model's, or precise_hook's) the engine finds it itself: on x86 any memory hook makes
     * Unicorn sync the PC before each memory instruction, so a hook on a never-mapped address
     * suffices; on ARM64 the PC is synced only for an access the hook's range covers, so it must
     * cover all memory (an empty callback per access).  ARM (A32) syncs it in neither case: its
     * data faults report the block start (sim/README.md). */
    m->recover = m->cfg.precise_faults && !m->cfg.cache && !m->cfg.precise_hook && isa->replay_of;
    uint64_t probe_lo = SIM_HOOK_PROBE, probe_hi = SIM_HOOK_PROBE;
    if (isa->arch == SIM_ARCH_ARM64) probe_lo = 1, probe_hi = 0;
    if (m->cfg.precise_faults && m->cfg.precise_hook && !m->cfg.cache && isa->arch != SIM_ARCH_ARM &&
        uc_hook_add(m->uc, &m->h_probe, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, HOOK(on_probe), m, probe_lo, probe_hi) !=
            UC_ERR_OK)
        return SIM_ERR_UNICORN;
    /* QEMU keeps an exception "in flight" after a #DE or #GP handed to on_intr
     * (it was never delivered): the next such exception would become a double
     * fault, the third a triple fault that halts the CPU.  Every guest call
     * starts from this state instead (found by scenarios/fuzz, target guest). */
    if (uc_context_alloc(m->uc, &m->clean) != UC_ERR_OK || uc_context_save(m->uc, m->clean) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    /* Calls end at exits (sim_code adds trap points), not at uc_emu_start's `until`. */
    if (!(m->exits = malloc(16 * sizeof *m->exits))) return SIM_ERR_NOMEM;
    m->capexits = 16;
    m->exits[m->nexits++] = m->lay->sentinel;
    if (uc_ctl_exits_enable(m->uc) != UC_ERR_OK) return SIM_ERR_UNICORN;
    sim_err se = sim_cpu_exits_sync(m);
    if (se != SIM_OK) return se;
    return gate_map(m);
}

sim_err sim_cpu_block_hook(sim_machine *m, bool on) {
    if (!on) {
        if (m->h_block && uc_hook_del(m->uc, m->h_block) != UC_ERR_OK) return SIM_ERR_UNICORN;
        m->h_block = 0;
        return SIM_OK;
    }
    if (m->h_block) return SIM_OK;
    return uc_hook_add(m->uc, &m->h_block, UC_HOOK_BLOCK, HOOK(on_block), m, 1, 0) == UC_ERR_OK ? SIM_OK
                                                                                                : SIM_ERR_UNICORN;
}

static bool is_exit(const sim_machine *m, uint64_t a) {
    for (int i = 0; i < m->nexits; i++)
        if (m->exits[i] == a) return true;
    return false;
}

/* A trap point at a.  The ISA scans may name a place twice (f0 ff d8: the LOCK's
 * start, then again among the far call's prefixes), always among the last few
 * they named (within one run of at most 15 prefixes): a trap point counts once. */
sim_err sim_cpu_add_exit(sim_machine *m, uint64_t a) {
    for (int i = m->nexits - 1; i >= 1 && i >= m->nexits - 32; i--)
        if (m->exits[i] == a) return SIM_OK;
    if ((uint32_t)(m->nexits - 1) >= m->cfg.max_trap_points) return SIM_ERR_TRAPS; /* the sentinel is not one */
    if (m->nexits == m->capexits) {
        uint64_t *e = realloc(m->exits, 2 * (size_t)m->capexits * sizeof *e);
        if (!e) return SIM_ERR_NOMEM;
        m->exits = e;
        m->capexits *= 2;
    }
    m->exits[m->nexits++] = a;
    return SIM_OK;
}

sim_err sim_cpu_code_traps(sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t n) {
    if (!m->isa->placed) return SIM_OK;
    int before = m->nexits;
    sim_err e = m->isa->placed(m, addr, bytes, n);
    if (e != SIM_OK) m->nexits = before;
    return e;
}

sim_err sim_cpu_exits_sync(sim_machine *m) {
    if (m->nexits == m->synced_exits) return SIM_OK;
    if (uc_ctl_set_exits(m->uc, m->exits, (size_t)m->nexits) != UC_ERR_OK) return SIM_ERR_UNICORN;
    m->synced_exits = m->nexits;
    return SIM_OK;
}

/* ---- the call gate ------------------------------------------------------------------------ */

#define GATE_BYTES (SIM_GATE_SERVICES * SIM_GATE_STRIDE)
_Static_assert(GATE_BYTES % SIM_PAGE == 0, "the thunks fill whole pages");

/* The thunk pages (the ISA's thunk k every SIM_GATE_STRIDE bytes),
 * read+execute, never writable by the guest: one mapping. */
static sim_err gate_map(sim_machine *m) {
    static uint8_t pages[GATE_BYTES]; /* rewritten whole for each machine, before it is copied */
    for (uint32_t k = 0; k < SIM_GATE_SERVICES; k++) m->isa->thunk(pages + k * SIM_GATE_STRIDE, k);
    sim_err e = sim_region_add(m, m->lay->gate, GATE_BYTES, UC_PROT_READ | UC_PROT_EXEC, RK_CODE, -1);
    if (e != SIM_OK) return e;
    return uc_mem_write(m->uc, m->lay->gate, pages, sizeof pages) == UC_ERR_OK ? SIM_OK : SIM_ERR_UNICORN;
}

void sim_set_gate(sim_machine *m, sim_gate_fn fn, void *ud) {
    m->gate_fn = fn;
    m->gate_ud = fn ? ud : NULL;
}

void sim_set_gate_refusal(sim_machine *m, uint64_t result) { m->gate_refusal = result; }

void sim_set_poll(sim_machine *m, bool (*fn)(void *ud), void *ud) {
    m->poll = fn;
    m->poll_ud = ud;
}

uint64_t sim_gate_thunk(const sim_machine *m, uint32_t service) {
    uint64_t gate = m ? m->lay->gate : sim_isa_x64.lay->gate;
    return service < SIM_GATE_SERVICES ? gate + (uint64_t)service * SIM_GATE_STRIDE : 0;
}

sim_err sim_gate_set_pop(sim_machine *m, uint32_t service, uint32_t bytes) {
    if (service >= SIM_GATE_SERVICES || bytes > 0xFFFC || bytes % 4) return SIM_ERR_ARG;
    if (m->isa->arch != SIM_ARCH_X86) return SIM_OK;                      /* the caller cleans up (x64, AAPCS) */
    uint64_t at = m->lay->gate + (uint64_t)service * SIM_GATE_STRIDE + 8; /* the imm16 of `ret n` */
    uint8_t iw[2] = {(uint8_t)bytes, (uint8_t)(bytes >> 8)};
    if (uc_mem_write(m->uc, at, iw, 2) != UC_ERR_OK) return SIM_ERR_UNICORN;
    uc_ctl_remove_cache(m->uc, at - 8, at - 8 + SIM_GATE_STRIDE);
    return SIM_OK;
}

sim_err sim_gate_arg(sim_thread *t, int k, uint64_t *v) {
    *v = 0;
    if (k >= SIM_MAX_ARGS) return SIM_ERR_ARG;
    return sim_gate_arg_any(t, k, v);
}

sim_err sim_gate_arg_any(sim_thread *t, int k, uint64_t *v) {
    sim_machine *m = t->m;
    *v = 0;
    if (m->gate_thread != t) return SIM_ERR_STATE;
    if (k < 0 || k > 0xFFFF) return SIM_ERR_ARG;
    return m->isa->gate_arg(m, k, v);
}

sim_err sim_gate_arg_addr(sim_thread *t, int k, uint64_t *addr) {
    sim_machine *m = t->m;
    *addr = 0;
    if (m->gate_thread != t) return SIM_ERR_STATE;
    if (k < 0 || k > 0xFFFF) return SIM_ERR_ARG;
    return m->isa->gate_arg_at(m, k, addr);
}

sim_err sim_gate_arg64(sim_thread *t, int *k, uint64_t *v) {
    const sim_isa *isa = t->m->isa;
    if (isa->ptr == 8) return sim_gate_arg(t, (*k)++, v);
    if (isa->pair_even) *k += *k & 1;
    uint64_t lo, hi;
    sim_err e = sim_gate_arg(t, *k, &lo);
    if (e == SIM_OK) e = sim_gate_arg(t, *k + 1, &hi);
    *k += 2;
    *v = e == SIM_OK ? (lo & 0xFFFFFFFFu) | hi << 32 : 0;
    return e;
}

sim_err sim_gate_sp(sim_thread *t, uint64_t *sp) {
    sim_machine *m = t->m;
    *sp = 0;
    if (m->gate_thread != t) return SIM_ERR_STATE;
    *sp = sim_reg(m, m->isa->reg_sp);
    return SIM_OK;
}

void sim_gate_end_call(sim_thread *t) {
    if (t->m->gate_thread == t) t->gate_end = true;
}

void sim_gate_redirect(sim_thread *t, uint64_t pc) {
    if (t->m->gate_thread == t) t->redirect = pc;
}

void sim_gate_result_high(sim_thread *t, uint32_t v) {
    if (t->m->gate_thread == t && t->m->isa->ptr == 4 && sim_machine_config(t->m)->arch == SIM_ARCH_X86)
        sim_reg_set(t->m, UC_X86_REG_EDX, v);
}

sim_err sim_gate_fparg(sim_thread *t, int k, int fp, uint64_t *bits) {
    sim_machine *m = t->m;
    *bits = 0;
    if (m->gate_thread != t) return SIM_ERR_STATE;
    if (!m->isa->gate_fparg) return SIM_ERR_ARG;
    return m->isa->gate_fparg(m, k, fp, bits);
}

sim_err sim_gate_result_fp(sim_thread *t, uint64_t bits, bool dbl) {
    sim_machine *m = t->m;
    if (m->gate_thread != t) return SIM_ERR_STATE;
    if (!m->isa->set_fp_result) return SIM_ERR_ARG;
    m->isa->set_fp_result(m, bits, dbl);
    return SIM_OK;
}

uint64_t sim_reg(sim_machine *m, int reg) {
    uint64_t v = 0;
    uc_reg_read(m->uc, reg, &v);
    return v;
}

void sim_reg_set(sim_machine *m, int reg, uint64_t v) { uc_reg_write(m->uc, reg, &v); }

uint64_t sim_exec_clock(const sim_machine *m) { return m->exec ? m->exec->time : 0; }

sim_err sim_read_word(sim_machine *m, uint64_t addr, unsigned size, uint64_t *v) {
    uint8_t b[8];
    *v = 0;
    sim_err e = sim_mem_read(m, addr, b, size);
    if (e != SIM_OK) return e;
    for (int i = (int)size - 1; i >= 0; i--) *v = (*v << 8) | b[i];
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
    m->nexits = m->capexits = m->synced_exits = 0;
    sim_replay_fini(m);
    sim_engine_close(m->isa->uc_arch, m->isa->uc_mode, m->uc, m->uc_uses, m->clean);
    if (m->clean) uc_context_free(m->clean);
    m->clean = NULL;
    if (m->cs) cs_close(&m->cs);
    m->uc = NULL;
}

/* ---- guest calls -------------------------------------------------------------------------- */

/* x86: the descriptor table that gives FS its base, one page above the
 * sentinel, read-only to the guest (the descriptor is written with its
 * accessed bit set, so loading it writes nothing).  Descriptor 7, selector
 * 0x3B (RPL 3) as on Windows: a 4 KiB read/write data segment at the
 * thread's environment block, rewritten at each call's start; the base loaded
 * into FS is part of the saved CPU context, so each thread keeps its own. */
#define GDT_ENTRIES 8
#define FS_SELECTOR 0x3Bu
#define SS_SELECTOR 0x10u

static sim_err env_load(sim_thread *t) {
    sim_machine *m = t->m;
    unsigned w = m->isa->ptr;
    uint8_t hi[8], lo[8];
    for (unsigned i = 0; i < w; i++) {
        hi[i] = (uint8_t)(t->stack_hi >> (8 * i));
        lo[i] = (uint8_t)(t->stack_lo >> (8 * i));
    }
    if (uc_mem_write(m->uc, t->env + t->env_hi, hi, w) != UC_ERR_OK ||
        uc_mem_write(m->uc, t->env + t->env_lo, lo, w) != UC_ERR_OK)
        return SIM_ERR_UNMAPPED;
    if (m->isa->arch == SIM_ARCH_X64) {
        sim_reg_set(m, UC_X86_REG_GS_BASE, t->env);
        return SIM_OK;
    }
    uint64_t gdt = m->lay->sentinel + SIM_PAGE;
    if (!m->gdt_mapped) {
        sim_err e = sim_region_add(m, gdt, SIM_PAGE, UC_PROT_READ, RK_SENTINEL, -1);
        if (e != SIM_OK) return e;
        m->gdt_mapped = true;
    }
    uint32_t base = (uint32_t)t->env, limit = SIM_PAGE - 1;
    uint8_t d[8] = {(uint8_t)limit,       (uint8_t)(limit >> 8), (uint8_t)base,
                    (uint8_t)(base >> 8), (uint8_t)(base >> 16), 0xF3 /* present, DPL 3, data read/write, accessed */,
                    0x40 /* 32-bit */,    (uint8_t)(base >> 24)};
    /* descriptor 2: a flat 32-bit data segment for SS (loading a segment
     * recomputes the engine's stack width from SS's descriptor, which the
     * engine's initial state leaves 16-bit); DPL 0, the engine's CPL */
    static const uint8_t flat[8] = {0xFF, 0xFF, 0, 0, 0, 0x93, 0xCF, 0};
    if (uc_mem_write(m->uc, gdt + 8 * (FS_SELECTOR >> 3), d, sizeof d) != UC_ERR_OK ||
        uc_mem_write(m->uc, gdt + 8 * (SS_SELECTOR >> 3), flat, sizeof flat) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    uc_x86_mmr gdtr = {0, gdt, GDT_ENTRIES * 8 - 1, 0};
    int sel = (int)FS_SELECTOR, ss = (int)SS_SELECTOR;
    if (uc_reg_write(m->uc, UC_X86_REG_GDTR, &gdtr) != UC_ERR_OK ||
        uc_reg_write(m->uc, UC_X86_REG_SS, &ss) != UC_ERR_OK || uc_reg_write(m->uc, UC_X86_REG_FS, &sel) != UC_ERR_OK)
        return SIM_ERR_UNICORN;
    return SIM_OK;
}

sim_err sim_cpu_env_load(sim_thread *t) { return env_load(t); }

sim_err sim_thread_set_env(sim_thread *t, uint64_t base, uint32_t hi_off, uint32_t lo_off) {
    sim_arch a = t->m->isa->arch;
    if (a != SIM_ARCH_X64 && a != SIM_ARCH_X86) return SIM_ERR_ARCH;
    unsigned w = t->m->isa->ptr;
    if (base && (hi_off > SIM_PAGE - w || lo_off > SIM_PAGE - w)) return SIM_ERR_ARG;
    t->env = base;
    t->env_hi = hi_off;
    t->env_lo = lo_off;
    return SIM_OK;
}

sim_err sim_call_begin(sim_thread *t, uint64_t entry, const uint64_t *args, int nargs) {
    sim_machine *m = t->m;
    if (m->running != t || t->in_call) return SIM_ERR_STATE;
    if (nargs < 0 || nargs > SIM_MAX_ARGS) return SIM_ERR_ARG;
    sim_err me = sim_stack_acquire(t);
    if (me != SIM_OK) return me;
    /* (a suspended call's context was saved when it stopped) */
    uc_context_restore(m->uc, m->clean); /* no exception in flight, no other call's registers */
    uint64_t sp;
    me = m->isa->call_setup(m, t, args, nargs, &sp);
    if (me == SIM_OK && t->env) me = env_load(t);
    if (me != SIM_OK) return me;
    /* The caller's call: its return address enters the return stack, and (x86,
     * where the call stores it) the cache (neither is the callee's work, so
     * nothing is counted). */
    if (m->exec && m->exec->bp) pmu_bp_call(m->exec->bp, m->lay->sentinel);
    if (m->exec && m->exec->cache && (m->isa->arch == SIM_ARCH_X64 || m->isa->arch == SIM_ARCH_X86))
        pmu_cache_access(m->exec->cache, sp, m->isa->ptr, true);
    m->loaded = t;
    t->rip = entry;
    t->in_call = true;
    t->gate_pending = false;
    t->redirect = 0;
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
        if (b->size <= sizeof buf && sim_mem_peek(m, m->last_block_addr, buf, b->size) == b->size) {
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

static sim_call_status fault_from_uc(sim_thread *t, uc_err e, uint64_t rip, bool located) {
    sim_machine *m = t->m;
    sim_fault_kind kind;
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
        kind = SIM_FAULT_ACCESS;
        const region *r = sim_region_find(m, data);
        if (access != 8 && r && r->kind == RK_GUARD && r->owner == t->index) kind = SIM_FAULT_STACK_GUARD;
        if (access == 8) {
            data = rip;
            m->last_block = NULL; /* the jump that got here retired */
            loop_forget(m);
        } else {
            /* the engine reports the block's start: find the instruction (unless written_code's
             * replay did) */
            if (m->recover && m->memerr_type && !located) {
                uint64_t at = sim_replay_fault(m, m->memerr_type, m->memerr_addr);
                if (at != UINT64_MAX) rip = at;
            }
            rip = settle_partial_block(m, t, rip, false);
        }
        break;
    }
    case UC_ERR_INSN_INVALID:
        kind = SIM_FAULT_ILLEGAL;
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
    set_fault(t, kind, rip, data, access);
    sim_call_end(t);
    return SIM_CALL_FAULTED;
}

/* ---- guarded code (sim/README.md "Guarded code") ---------------------------------------------- */

/* A fetch of guarded code: a one-byte fetch (the engine fetches each instruction's first byte, and
 * each prefix, alone) where an instruction the engine must not translate starts stops the pass
 * before that instruction is translated, unless an exit is there already (then the engine never
 * starts an instruction there: the fetch belongs to an instruction that started earlier). */
bool sim_guard_fetch(sim_machine *m, uint64_t addr, int size) {
    if (!sim_wx_guarded(m, addr))
        return false;               /* a fetch from memory that is not executable (or written code's data state) */
    if (m->guard_hit) return false; /* keep the stop: a later fetch must not clear the engine's error */
    if (size != 1 || !m->isa->guard_bad || is_exit(m, addr)) return true;
    uint8_t win[16];
    size_t n = sim_mem_peek(m, addr, win, sizeof win);
    if (!m->isa->guard_bad(m, win, n)) return true;
    m->guard_hit = true;
    m->guard_addr = addr;
    return false;
}

/* After a pass the guard stopped (its block never ran, it holds garbage): an exit at the
 * instruction's start, the block dropped, so the pass runs again up to the exit. */
static sim_err guard_exit(sim_machine *m, uint64_t rip) {
    m->guard_hit = false;
    m->guard_stops++;
    sim_err e = sim_cpu_add_exit(m, m->guard_addr);
    if (e == SIM_OK) e = sim_cpu_exits_sync(m);
    uint64_t lo = rip < m->guard_addr ? rip : m->guard_addr;
    uc_ctl_remove_cache(m->uc, lo, m->guard_addr + 16);
    return e;
}

uint64_t sim_guard_stops(const sim_machine *m) { return m->guard_stops; }

/* A store into a writable, executable page in its code state or a fetch from one in its data
 * state: the page changes state (wx.c) and the instruction runs again, what did not retire of its
 * block taken back (1).  0 for any other fault, -1 for an error (its text in t->error). */
static int written_code(sim_machine *m, sim_thread *t, uc_err e, uint64_t *rip, bool *located) {
    if (e != UC_ERR_WRITE_PROT && e != UC_ERR_FETCH_PROT) return 0;
    bool fetch = e == UC_ERR_FETCH_PROT;
    if (!fetch && m->recover && m->memerr_type) { /* the engine reports the block's start: find the store */
        uint64_t at = sim_replay_fault(m, m->memerr_type, m->memerr_addr);
        if (at != UINT64_MAX) *rip = at;
        *located = true; /* a fault that is not written code's is where this replay found it */
    }
    int r = sim_wx_fault(m, fetch, m->memerr_addr, *rip, t->error, sizeof t->error);
    if (r <= 0) return r;
    if (fetch) {
        m->last_block = NULL; /* the jump that got here retired */
        loop_forget(m);
    } else {
        *rip = settle_partial_block(m, t, *rip, false);
    }
    return 1;
}

static bool save_context(sim_thread *t) {
    sim_machine *m = t->m;
    if (!t->ctx && uc_context_alloc(m->uc, &t->ctx) != UC_ERR_OK) return false;
    uc_context_save(m->uc, t->ctx);
    return true;
}

static sim_call_status call_run(sim_thread *t);

/* A fault goes to the machine's fault handler (sim_set_fault_handler), which may resume the call
 * from a context (context.c); each round runs guest code, and max_cycles bounds them all. */
sim_call_status sim_call_continue(sim_thread *t) {
    sim_machine *m = t->m;
    for (;;) {
        sim_call_status s = call_run(t);
        if (s != SIM_CALL_FAULTED || !m->fault_fn) return s;
        t->resumable = true;
        bool go = m->fault_fn(m->fault_ud, t);
        t->resumable = false;
        if (!go || !t->in_call) return s;
    }
}

static sim_call_status call_run(sim_thread *t) {
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
        t->gate_end = false;
        uint64_t rax = gate_handle(m, t, t->gate_service, true, &pending);
        for (int k = 0; pending && !t->gate_end && m->exec->cur == t && k < 64; k++)
            rax = gate_handle(m, t, t->gate_service, true, &pending);
        if (pending) { /* it waits again (sim_gate_end_call is not possible here) */
            if (!save_context(t)) {
                snprintf(t->error, sizeof t->error, "out of host memory for a CPU context");
                return SIM_CALL_ERROR;
            }
            if (m->exec->cur != t) return SIM_CALL_YIELD;
            snprintf(t->error, sizeof t->error, "a gate call kept waiting without leaving its CPU");
            return SIM_CALL_ERROR;
        }
        if (t->gate_end) { /* the resumed handler ended the call (ExitThread after its callbacks) */
            t->gate_end = false;
            t->gate_pending = false;
            t->result = rax;
            m->last_block = NULL;
            loop_forget(m);
            sim_call_end(t);
            return SIM_CALL_RETURNED;
        }
        m->isa->set_result(m, rax);
        t->gate_pending = false;
        if (t->redirect) { /* it returns elsewhere (sim_gate_redirect) */
            t->rip = t->redirect;
            t->redirect = 0;
        }
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
        loop_forget(m);
        m->retranslated = false;
        budget_refresh(m);
        uc_err e = uc_emu_start(m->uc, t->rip, m->lay->sentinel, 0, 0);
        flush_runs(m);
        uint64_t rip = sim_reg(m, m->isa->reg_pc);
        if (e == UC_ERR_FETCH_PROT && m->guard_hit) { /* guarded code: an exit where it starts, then again */
            sim_err ge = guard_exit(m, rip);
            if (ge != SIM_OK) {
                snprintf(t->error, sizeof t->error, "%s", sim_machine_strerror(m, ge));
                sim_call_end(t);
                return SIM_CALL_ERROR;
            }
            t->rip = rip;
            continue;
        }
        bool located = false;
        int wc = e != UC_ERR_OK ? written_code(m, t, e, &rip, &located) : 0;
        if (wc > 0) { /* a page of written code changed state (wx.c): run the instruction again */
            t->rip = rip;
            continue;
        }
        if (wc < 0) { /* self-modifying code hcpsim cannot count (t->error says where) */
            sim_call_end(t);
            return SIM_CALL_ERROR;
        }
        if (e != UC_ERR_OK) return fault_from_uc(t, e, rip, located);
        switch (m->stop) {
        case STOP_NONE:
            if (rip == m->lay->sentinel) {
                resolve_branch(m, t, rip); /* the final ret */
                t->result = m->isa->result(m);
                sim_call_end(t);
                return SIM_CALL_RETURNED;
            }
            if (!m->retranslated && is_exit(m, rip)) { /* an instruction the engine cannot translate: #UD */
                resolve_branch(m, t, rip);
                set_fault(t, SIM_FAULT_ILLEGAL, settle_partial_block(m, t, rip, false), 0, 0);
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
            if (m->poll && m->poll(m->poll_ud)) { /* the host stops the run (a signal): nothing changed */
                save_context(t);
                snprintf(t->error, sizeof t->error, "interrupted");
                return SIM_CALL_ERROR;
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
        case STOP_CONTEXT: /* the gate's handler set the thread's context (context.c): it goes on from there */
            t->rip = t->ctx_pc;
            m->last_block = NULL;
            loop_forget(m);
            continue;
        case STOP_END: /* the gate's handler ended the call (sim_gate_end_call): nothing after the entry ran */
            t->gate_end = false;
            m->last_block = NULL;
            loop_forget(m);
            sim_call_end(t);
            return SIM_CALL_RETURNED;
        case STOP_GATE: /* a gate call took t off its CPU; it resumes at the thunk's ret, or where it was sent */
            t->rip = rip;
            if (t->redirect && !t->gate_pending) {
                t->rip = t->redirect;
                t->redirect = 0;
            }
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
                uint64_t at = settle_partial_block(m, t, rip, m->isa->intr_is_trap(m->intno));
                sim_fault_kind kind = m->isa->intr_fault(m->intno);
                set_fault(t, kind, at, kind == SIM_FAULT_PROTECTION ? UINT64_MAX : 0, 0);
            }
            sim_call_end(t);
            return SIM_CALL_FAULTED;
        }
    }
}

uint64_t sim_call_result(const sim_thread *t) { return t->result; }
const sim_fault *sim_call_fault(const sim_thread *t) { return &t->fault; }
const char *sim_call_error(const sim_thread *t) { return t->error; }

/* ---- written code (sim/wx.c) --------------------------------------------------------------- */

#define DEAD_BLOCK UINT64_MAX /* a forgotten block's address: no block has it */

void sim_cpu_forget_code(sim_machine *m, uint64_t lo, uint64_t hi) {
    /* blocks reaching into [lo, hi): their statistics go (the entry stays, as a tombstone) */
    for (uint32_t i = 0; i < m->capblocks; i++) {
        block_entry *b = &m->blocks[i];
        if (!b->used || b->addr == DEAD_BLOCK || b->addr >= hi || b->addr + b->size <= lo) continue;
        if (m->last_block == b) {
            m->last_block = NULL;
            loop_forget(m);
        }
        for (uint32_t k = 0; k < SIM_BLOCK_FRONT; k++)
            if (m->front[k] == b) m->front[k] = NULL;
        b->addr = DEAD_BLOCK;
        b->runs = 0;
    }
    /* instructions served there */
    for (trap **p = &m->traps; *p;) {
        trap *tr = *p;
        if (tr->addr >= lo && tr->addr < hi) {
            uc_hook_del(m->uc, tr->h);
            *p = tr->next;
            free(tr);
        } else {
            p = &tr->next;
        }
    }
    /* its trap points (the sentinel, exit 0, stays) */
    int k = 1;
    for (int i = 1; i < m->nexits; i++)
        if (m->exits[i] < lo || m->exits[i] >= hi) m->exits[k++] = m->exits[i];
    if (k != m->nexits) {
        m->nexits = k;
        m->synced_exits = -1;
        sim_cpu_exits_sync(m);
    }
    /* the engine's translations, page by page: Unicorn 2.0.1 finds a range's translations from its
     * first address alone, so a range must not start on another page (the page before, as this once
     * did, is mostly unmapped or another mapping: nothing was dropped, and code an API call wrote
     * over code that ran did not run; vmem.exe apiwrite). A block reaching in from the page before
     * is linked to this page too and goes with it. */
    for (uint64_t a = lo & ~(uint64_t)(SIM_PAGE - 1); a < hi; a += SIM_PAGE)
        uc_ctl_remove_cache(m->uc, a, a + SIM_PAGE);
}
