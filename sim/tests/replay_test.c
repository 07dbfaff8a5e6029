/* sim/tests/replay_test.c — exact data faults without a memory hook (sim/replay.c) against the
 * engine's own precise mode (sim_config.precise_hook: a memory hook for the whole run, so Unicorn
 * itself reports the faulting instruction), the independent reference.  Random straight-line blocks
 * per ISA (x64, x86, ARM64), each built from loads, stores, read-modify-writes, exchanges, pushes
 * and pops, pointer chasing, post- and pre-indexed accesses, conditional moves, divisions, a string
 * move and jumps through registers, on pointers that are good (a buffer full of pointers), bad
 * (unmapped, a guard page, read-only code) or just above the stack's guard page, run on two
 * machines built alike: every result, fault (kind, address, inaccessible address, access,
 * instruction bytes), counter, the clock, every general register, the flags and the PC as the fault
 * leaves them (sim_fault_reg), and the buffer's bytes must be the same.  Constructed cases check
 * the faulting instruction from first principles too: a push chain running into the guard page, a
 * pointer chain whose k-th link is bad, a block that overwrites a pointer it read before (the
 * replay's fallback). */
#include <stdlib.h>
#include <string.h>

#include "conformance/tap.h"
#include "sim/sim_int.h"

static uint64_t rng = UINT64_C(0x9E3779B97F4A7C15);
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static unsigned pick(unsigned n) { return (unsigned)(next() % n); }

#define DATA_BYTES 65536u
#define CASES 300
#define CODE_MAX (4u << 20)

typedef struct world {
    sim_machine *m;
    sim_thread *t;
    uint64_t data, code, stack_lo;
} world;

static void setup(world *w, sim_arch arch, bool hook, const uint8_t *code, size_t n) {
    sim_config c;
    sim_config_default(&c);
    c.arch = arch;
    c.precise_hook = hook;
    c.max_cycles = UINT64_C(1) << 40;
    c.max_trap_points = SIM_MAX_TRAPS_LIMIT; /* random immediates hold LOCK bytes */
    if (sim_machine_new(&c, &w->m) != SIM_OK) bail("sim_machine_new failed");
    if (sim_thread_new(w->m, "replay", 8, 1, -1, &w->t) != SIM_OK) bail("sim_thread_new failed");
    sim_thread *t;
    if (sim_sched_next(w->m, &t) != SIM_RUN_THREAD) bail("nothing to dispatch");
    if (sim_alloc(w->m, DATA_BYTES, &w->data) != SIM_OK) bail("sim_alloc failed");
    if (sim_code(w->m, code, n, &w->code) != SIM_OK) bail("sim_code failed");
}

/* ---- the pointers the blocks use ----------------------------------------------------------------- */

typedef struct pool {
    uint64_t v[64];
    int n;
} pool;

/* Addresses both machines have alike: the first call learns the stack (its slot is the same on
 * both), the data buffer and the code come first on each. */
static void make_pool(pool *p, const world *w) {
    p->n = 0;
    for (int i = 0; i < 40; i++) p->v[p->n++] = w->data + 8 * pick(DATA_BYTES / 8 - 64) + 256; /* good */
    p->v[p->n++] = 0x10;                                                                       /* unmapped */
    p->v[p->n++] = w->data + DATA_BYTES + 8;  /* the guard page after the buffer */
    p->v[p->n++] = w->data + DATA_BYTES - 16; /* the buffer's last words: runs off its end */
    p->v[p->n++] = w->code + 64;              /* read-only code: reads pass, writes fault */
    p->v[p->n++] = w->stack_lo + 8 * pick(4); /* the stack's lowest words */
    p->v[p->n++] = w->stack_lo - 8;           /* its guard page */
    p->v[p->n++] = w->data >> 32 ? UINT64_C(0x123400000000) : 0xC0000000u; /* unmapped */
}

static uint64_t any_ptr(const pool *p) { return p->v[pick((unsigned)p->n)]; }
static uint64_t good_ptr(const pool *p) { return p->v[pick(40)]; }

/* ---- x86 (both modes) ------------------------------------------------------------------------------ */

typedef struct emit {
    uint8_t *b;
    size_t n;
} emit;
static void put(emit *e, unsigned v) { e->b[e->n++] = (uint8_t)v; }
static void put32(emit *e, uint32_t v) {
    for (int i = 0; i < 4; i++) put(e, (v >> (8 * i)) & 0xFF);
}
static void put64(emit *e, uint64_t v) {
    for (int i = 0; i < 8; i++) put(e, (unsigned)(v >> (8 * i)) & 0xFF);
}

/* Registers the random instructions use: x64 all but rsp, r12 (a base needs a SIB), r15 (the
 * saved rsp); x86 all but esp, ebp (the saved esp). */
static const int x64_regs[] = {0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 13, 14};
static const int x86_regs[] = {0, 1, 2, 3, 6, 7};

static int xreg(bool x64) { return x64 ? x64_regs[pick(13)] : x86_regs[pick(6)]; }

/* REX for a 64-bit operation with reg field r and rm field b (x64), nothing on x86. */
static void rex(emit *e, bool x64, int r, int b) {
    if (x64) put(e, 0x48 | (r >> 3) << 2 | (b >> 3));
}
/* op r, [b + d8] (modrm 01) */
static void modrm_mem(emit *e, bool x64, unsigned op, int r, int b, int d8) {
    rex(e, x64, r, b);
    put(e, op);
    put(e, 0x40 | (r & 7) << 3 | (b & 7));
    put(e, (unsigned)(d8 & 0xFF));
}
static void mov_imm(emit *e, bool x64, int r, uint64_t v) {
    if (x64) {
        put(e, 0x48 | (r >> 3));
        put(e, 0xB8 + (r & 7));
        put64(e, v);
    } else {
        put(e, 0xB8 + r);
        put32(e, (uint32_t)v);
    }
}

/* One random x86 instruction (or a short group); false when it ended the block. */
static bool gen_x86(emit *e, bool x64, const pool *p) {
    int r = xreg(x64), b = xreg(x64), d = (int)pick(8) * 8 - 16;
    switch (pick(18)) {
    case 0:
    case 1: modrm_mem(e, x64, 0x8B, r, b, d); break; /* mov r, [b+d] */
    case 2: modrm_mem(e, x64, 0x89, r, b, d); break; /* mov [b+d], r */
    case 3: modrm_mem(e, x64, 0x03, r, b, d); break; /* add r, [b+d] */
    case 4: modrm_mem(e, x64, 0x01, r, b, d); break; /* add [b+d], r */
    case 5: modrm_mem(e, x64, 0xFF, 0, b, d); break; /* inc [b+d] */
    case 6: modrm_mem(e, x64, 0x2B, r, b, d); break; /* sub r, [b+d] (xchg: the constructed cases) */
    case 7: modrm_mem(e, x64, 0x8D, r, b, d); break; /* lea r, [b+d] */
    case 8:                                          /* add r, imm8 */
        rex(e, x64, 0, r);
        put(e, 0x83);
        put(e, 0xC0 | (r & 7));
        put(e, (unsigned)((int)pick(5) * 8 - 16) & 0xFF);
        break;
    case 9: /* mov r, b */
        rex(e, x64, b, r);
        put(e, 0x89);
        put(e, 0xC0 | (b & 7) << 3 | (r & 7));
        break;
    case 10: /* push r; push b (or pop) */
        for (int k = 0; k < 2; k++) {
            int q = k ? b : r;
            if (q >= 8) put(e, 0x41);
            put(e, (pick(3) ? 0x50 : 0x58) + (q & 7));
        }
        break;
    case 11: mov_imm(e, x64, r, any_ptr(p)); break;
    case 12: /* movzx r32, byte [b+d] */
        if (x64 && (r >= 8 || b >= 8)) put(e, 0x40 | (r >> 3) << 2 | (b >> 3));
        put(e, 0x0F);
        put(e, 0xB6);
        put(e, 0x40 | (r & 7) << 3 | (b & 7));
        put(e, (unsigned)(d & 0xFF));
        break;
    case 13: /* cmp r, b; cmove r, b */
        rex(e, x64, b, r);
        put(e, 0x39);
        put(e, 0xC0 | (b & 7) << 3 | (r & 7));
        rex(e, x64, r, b);
        put(e, 0x0F);
        put(e, 0x44);
        put(e, 0xC0 | (r & 7) << 3 | (b & 7));
        break;
    case 14: /* xor edx, edx; div r (r = 0 or a quotient too large: #DE) */
        put(e, 0x31);
        put(e, 0xD2);
        rex(e, x64, 0, r);
        put(e, 0xF7);
        put(e, 0xF0 | (r & 7));
        break;
    case 15: /* mov r, [r+d]: a pointer chase */ modrm_mem(e, x64, 0x8B, b, b, d < 0 ? 0 : d); break;
    case 16: /* rsi, rdi, ecx = good, good, small; rep movsb (ends the block) */
        mov_imm(e, x64, 6, good_ptr(p));
        mov_imm(e, x64, 7, pick(4) ? good_ptr(p) : any_ptr(p));
        mov_imm(e, x64, 1, pick(40));
        put(e, 0xF3);
        put(e, 0xA4);
        return false;
    default: /* jmp r (ends the block; a bad target is an execute fault) */
        if (pick(4)) return true;
        mov_imm(e, x64, r, pick(2) ? 0x20 : p->v[p->n - 1]);
        if (r >= 8) put(e, 0x41);
        put(e, 0xFF);
        put(e, 0xE0 | (r & 7));
        return false;
    }
    return true;
}

/* A block: the stack pointer saved, registers set, 4 to 40 random instructions, the stack pointer
 * back, return. */
static void gen_x86_block(emit *e, bool x64, const pool *p) {
    if (x64) { /* mov r15, rsp */
        put(e, 0x49);
        put(e, 0x89);
        put(e, 0xE7);
    } else { /* mov ebp, esp */
        put(e, 0x89);
        put(e, 0xE5);
    }
    int nregs = x64 ? 13 : 6;
    for (int i = 0; i < nregs; i++)
        mov_imm(e, x64, x64 ? x64_regs[i] : x86_regs[i], pick(6) ? good_ptr(p) : any_ptr(p));
    if (!pick(8)) { /* the stack pointer near its guard page: the pushes that follow overflow */
        if (x64) put(e, 0x48);
        put(e, 0xBC);
        if (x64)
            put64(e, p->v[44] + 8 * pick(3));
        else
            put32(e, (uint32_t)(p->v[44] + 8 * pick(3)));
        for (int i = 0; i < 4; i++) put(e, 0x50 + (unsigned)x86_regs[pick(6)]);
    }
    int n = 4 + (int)pick(37);
    for (int i = 0; i < n; i++)
        if (!gen_x86(e, x64, p)) return;
    if (x64) { /* mov rsp, r15 */
        put(e, 0x4C);
        put(e, 0x89);
        put(e, 0xFC);
    } else { /* mov esp, ebp */
        put(e, 0x89);
        put(e, 0xEC);
    }
    put(e, 0xC3);
}

/* ---- ARM64 ------------------------------------------------------------------------------------------- */

/* x0-x17, x19-x27: x18 left alone, x28 holds sp, x29 and x30 the frame and the return */
static int areg(void) {
    int r = (int)pick(27);
    return r < 18 ? r : r + 1;
}
static void movx(emit *e, int d, uint64_t v) { /* movz + 3 movk */
    put32(e, 0xD2800000u | (uint32_t)(v & 0xFFFF) << 5 | (uint32_t)d);
    for (uint32_t hw = 1; hw < 4; hw++)
        put32(e, 0xF2800000u | hw << 21 | (uint32_t)((v >> (16 * hw)) & 0xFFFF) << 5 | (uint32_t)d);
}

static bool gen_a64(emit *e, const pool *p) {
    uint32_t t = (uint32_t)areg(), n = (uint32_t)areg(), t2 = (uint32_t)areg(), m = (uint32_t)areg();
    uint32_t imm = pick(8);
    switch (pick(15)) {
    case 0:
    case 1: put32(e, 0xF9400000u | imm << 10 | n << 5 | t); break;                     /* ldr xt, [xn, #8i] */
    case 2: put32(e, 0xF9000000u | imm << 10 | n << 5 | t); break;                     /* str xt, [xn, #8i] */
    case 3: put32(e, 0xF8400400u | (8u & 0x1FF) << 12 | n << 5 | t); break;            /* ldr xt, [xn], #8 */
    case 4: put32(e, 0xF8000C00u | (0x1F8u & 0x1FF) << 12 | n << 5 | t); break;        /* str xt, [xn, #-8]! */
    case 5: put32(e, 0xA9400000u | (imm & 0x7F) << 15 | t2 << 10 | n << 5 | t); break; /* ldp */
    case 6: put32(e, 0xA9000000u | (imm & 0x7F) << 15 | t2 << 10 | n << 5 | t); break; /* stp */
    case 7: put32(e, 0xA9800000u | 0x7Eu << 15 | t2 << 10 | 31u << 5 | t); break;      /* stp xt, xt2, [sp, #-16]! */
    case 8: put32(e, 0xA8C00000u | 2u << 15 | t2 << 10 | 31u << 5 | t); break;         /* ldp xt, xt2, [sp], #16 */
    case 9: put32(e, 0x91000000u | (imm * 8) << 10 | n << 5 | t); break;               /* add xt, xn, #8i */
    case 10: put32(e, 0xAA0003E0u | n << 16 | t); break;                               /* mov xt, xn */
    case 11: movx(e, (int)t, any_ptr(p)); break;
    case 12: put32(e, 0x39400000u | imm << 10 | n << 5 | t); break; /* ldrb wt, [xn, #i] */
    case 13:                                                        /* cmp xn, xm; csel xt, xn, xm, eq */
        put32(e, 0xEB00001Fu | m << 16 | n << 5);
        put32(e, 0x9A800000u | m << 16 | n << 5 | t);
        break;
    default: /* ldr xt, [xt]: a pointer chase */ put32(e, 0xF9400000u | t << 5 | t); break;
    }
    return true;
}

static void gen_a64_block(emit *e, const pool *p) {
    put32(e, 0x91000000u | 31u << 5 | 28u); /* mov x28, sp */
    for (int r = 0; r < 28; r++)
        if (r != 18) movx(e, r, pick(6) ? good_ptr(p) : any_ptr(p));
    if (!pick(8)) { /* sp near its guard page: the pushes that follow overflow */
        movx(e, 17, p->v[44] + 16 * pick(3));
        put32(e, 0x91000000u | 17u << 5 | 31u); /* mov sp, x17 */
        for (int i = 0; i < 4; i++)
            put32(e, 0xA9800000u | 0x7Eu << 15 | (uint32_t)areg() << 10 | 31u << 5 | (uint32_t)areg());
    }
    int n = 4 + (int)pick(37);
    for (int i = 0; i < n; i++) gen_a64(e, p);
    put32(e, 0x91000000u | 28u << 5 | 31u); /* mov sp, x28 */
    put32(e, 0xD65F03C0u);                  /* ret */
}

/* ---- running a case on both machines ------------------------------------------------------------- */

static const int regs_x64[] = {UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX,   UC_X86_REG_RBX, UC_X86_REG_RSP,
                               UC_X86_REG_RBP, UC_X86_REG_RSI, UC_X86_REG_RDI,   UC_X86_REG_R8,  UC_X86_REG_R9,
                               UC_X86_REG_R10, UC_X86_REG_R11, UC_X86_REG_R12,   UC_X86_REG_R13, UC_X86_REG_R14,
                               UC_X86_REG_R15, UC_X86_REG_RIP, UC_X86_REG_EFLAGS};
static const int regs_x86[] = {UC_X86_REG_EAX, UC_X86_REG_ECX, UC_X86_REG_EDX, UC_X86_REG_EBX, UC_X86_REG_ESP,
                               UC_X86_REG_EBP, UC_X86_REG_ESI, UC_X86_REG_EDI, UC_X86_REG_EIP, UC_X86_REG_EFLAGS};
static int regs_a64[34];

typedef struct outcome {
    sim_call_status st;
    uint64_t result;
    sim_fault f;
    pmu_bank bank;
    uint64_t clock;
    uint64_t regs[34];
    uint8_t data[DATA_BYTES];
} outcome;

static void run_case(world *w, uint64_t entry, const int *regs, int nregs, outcome *o) {
    memset(o, 0, sizeof *o);
    pmu_bank before = *sim_thread_bank(w->t);
    uint64_t clock0 = sim_clock(w->m);
    if (sim_call_begin(w->t, entry, NULL, 0) != SIM_OK) bail("sim_call_begin failed");
    o->st = sim_call_continue(w->t);
    if (o->st == SIM_CALL_RETURNED) o->result = sim_call_result(w->t);
    if (o->st == SIM_CALL_FAULTED) {
        o->f = *sim_call_fault(w->t);
        for (int i = 0; i < nregs; i++) sim_fault_reg(w->t, regs[i], &o->regs[i]);
    }
    /* this case's counts and time alone (a difference in one case must not hide the others) */
    for (int i = 0; i < PMU_EV__COUNT; i++) {
        o->bank.ev[i] = sim_thread_bank(w->t)->ev[i] - before.ev[i];
        o->bank.kev[i] = sim_thread_bank(w->t)->kev[i] - before.kev[i];
    }
    o->clock = sim_clock(w->m) - clock0;
    if (sim_mem_read(w->m, w->data, o->data, DATA_BYTES) != SIM_OK) bail("sim_mem_read failed");
}

/* The two outcomes alike; the first difference named. */
static const char *differ(const outcome *a, const outcome *b, int nregs) {
    if (a->st != b->st) return "status";
    if (a->result != b->result) return "result";
    if (a->f.kind != b->f.kind) return "fault kind";
    if (a->f.address != b->f.address) return "exception address";
    if (a->f.data != b->f.data) return "inaccessible address";
    if (a->f.access != b->f.access) return "access";
    if (a->f.nbytes != b->f.nbytes || memcmp(a->f.bytes, b->f.bytes, sizeof a->f.bytes)) return "instruction bytes";
    if (memcmp(&a->bank, &b->bank, sizeof a->bank)) return "counters";
    if (a->clock != b->clock) return "clock";
    for (int i = 0; i < nregs; i++)
        if (a->regs[i] != b->regs[i]) return "a register";
    if (memcmp(a->data, b->data, DATA_BYTES)) return "memory";
    return NULL;
}

static outcome oa, ob;

/* CASES random blocks of one ISA on a machine with the replay and one with the engine's hook. */
static void random_blocks(sim_arch arch, const char *name) {
    static uint8_t code[CODE_MAX];
    static uint64_t entries[CASES];
    const int *regs = arch == SIM_ARCH_X64 ? regs_x64 : arch == SIM_ARCH_X86 ? regs_x86 : regs_a64;
    int nregs = arch == SIM_ARCH_X64 ? 18 : arch == SIM_ARCH_X86 ? 10 : 34;
    /* the layout first (addresses do not depend on the code's bytes), then the code, then the machines */
    world probe;
    static const uint8_t ret_x86[] = {0xC3}, ret_a64[] = {0xC0, 0x03, 0x5F, 0xD6};
    memset(code, 0, sizeof code);
    memcpy(code, arch == SIM_ARCH_ARM64 ? ret_a64 : ret_x86, arch == SIM_ARCH_ARM64 ? 4 : 1);
    setup(&probe, arch, false, code, CODE_MAX);
    if (sim_call_begin(probe.t, probe.code, NULL, 0) != SIM_OK) bail("sim_call_begin failed");
    probe.stack_lo = probe.t->stack_lo; /* the same slot on every machine of this layout */
    sim_call_continue(probe.t);
    pool p;
    make_pool(&p, &probe);
    emit e = {code, 16};
    for (int i = 0; i < CASES; i++) {
        entries[i] = probe.code + e.n;
        if (arch == SIM_ARCH_ARM64)
            gen_a64_block(&e, &p);
        else
            gen_x86_block(&e, arch == SIM_ARCH_X64, &p);
        while (e.n % 16) put(&e, arch == SIM_ARCH_ARM64 ? 0 : 0xCC);
        if (e.n > CODE_MAX - 4096) bail("code buffer too small");
    }
    uint64_t fill[DATA_BYTES / 8];
    for (size_t i = 0; i < DATA_BYTES / 8; i++) fill[i] = pick(5) ? good_ptr(&p) : any_ptr(&p);
    sim_machine_free(probe.m);
    world a, b;
    setup(&a, arch, false, code, CODE_MAX);
    setup(&b, arch, true, code, CODE_MAX);
    sim_mem_write(a.m, a.data, fill, sizeof fill);
    sim_mem_write(b.m, b.data, fill, sizeof fill);
    int faults = 0, same = 0, kinds[16] = {0};
    const char *first = NULL;
    int first_case = -1;
    for (int i = 0; i < CASES; i++) {
        run_case(&a, entries[i], regs, nregs, &oa);
        run_case(&b, entries[i], regs, nregs, &ob);
        const char *d = differ(&oa, &ob, nregs);
        if (!d)
            same++;
        else if (!first)
            first = d, first_case = i;
        if (d && i - first_case < 40)
            diag("%s case %d: %s: replay kind %d at 0x%llx data 0x%llx access %d, engine kind %d at 0x%llx data 0x%llx "
                 "access %d (block 0x%llx)",
                 name, i, d, oa.f.kind, (unsigned long long)oa.f.address, (unsigned long long)oa.f.data, oa.f.access,
                 ob.f.kind, (unsigned long long)ob.f.address, (unsigned long long)ob.f.data, ob.f.access,
                 (unsigned long long)entries[i]);
        if (oa.st == SIM_CALL_FAULTED) faults++, kinds[oa.f.kind & 15]++;
    }
    diag("%s: %d of %d differ; %llu faults searched by a replay, %llu found by the fallback", name, CASES - same, CASES,
         (unsigned long long)a.m->replays, (unsigned long long)a.m->replay_fallbacks);
    ok(same == CASES,
       "%s: %d random blocks (%d faults: %d access, %d stack overflow, %d divide) end alike "
       "with the replay and with the engine's own precise mode%s%s (case %d)",
       name, CASES, faults, kinds[SIM_FAULT_ACCESS], kinds[SIM_FAULT_STACK_GUARD], kinds[SIM_FAULT_DIVIDE],
       first ? ": first difference: " : "", first ? first : "", first_case);
    ok(kinds[SIM_FAULT_ACCESS] >= CASES / 10, "%s: the blocks give many access faults (%d)", name,
       kinds[SIM_FAULT_ACCESS]);
    sim_machine_free(a.m);
    sim_machine_free(b.m);
}

/* ---- constructed cases: the faulting instruction from first principles ------------------------------ */

/* One call of `code` on a fresh machine of arch (the replay, or the engine's hook): status, fault,
 * instructions retired.  *stack_lo: the stack's lowest byte, learnt from a first call. */
typedef struct one {
    sim_call_status st;
    sim_fault f;
    uint64_t insns, rsp;
} one;

static one run_one(sim_arch arch, bool hook, const uint8_t *code, size_t n, uint64_t data_words,
                   uint64_t (*fill)(uint64_t data, size_t i)) {
    world w;
    setup(&w, arch, hook, code, n);
    uint64_t *words = calloc(DATA_BYTES / 8, 8);
    if (!words) bail("no memory");
    for (size_t i = 0; i < data_words; i++) words[i] = fill(w.data, i);
    sim_mem_write(w.m, w.data, words, DATA_BYTES);
    free(words);
    one o;
    uint64_t before = sim_thread_bank(w.t)->ev[PMU_EV_INSTRUCTIONS];
    if (sim_call_begin(w.t, w.code, NULL, 0) != SIM_OK) bail("sim_call_begin failed");
    o.st = sim_call_continue(w.t);
    o.f = *sim_call_fault(w.t);
    o.insns = sim_thread_bank(w.t)->ev[PMU_EV_INSTRUCTIONS] - before;
    sim_fault_reg(w.t, arch == SIM_ARCH_ARM64 ? UC_ARM64_REG_SP : UC_X86_REG_RSP, &o.rsp);
    sim_machine_free(w.m);
    return o;
}

/* A chain: word i points to word i + 1, the word at `bad` holds an unmapped address. */
static size_t chain_bad;
static uint64_t chain(uint64_t data, size_t i) { return i == chain_bad ? 0x40 : data + 8 * (i + 1); }
static uint64_t zero(uint64_t data, size_t i) { return (void)data, (void)i, 0; }

/* x64: the stack pointer set to the stack's lowest byte + 8j, then 6 pushes: push j writes the
 * guard page (STACK_OVERFLOW at the j-th push; the mov and j pushes retire).  A chain of 6
 * `mov rax, [rax]` whose link k is bad: load k+1 reads 0x40 from it, load k+2 faults there.  A load, a store, then an
 * xchg with read-only code: the xchg faults, the 3 before it retire (the engine's own precise mode
 * names the store: Unicorn syncs the PC for ordinary loads and stores, not for atomic ones). */
static void constructed(void) {
    /* the stack's lowest byte: a first call reads rsp */
    static const uint8_t get_rsp[] = {0x48, 0x89, 0xE0, 0xC3}; /* mov rax, rsp; ret */
    world w;
    setup(&w, SIM_ARCH_X64, false, get_rsp, sizeof get_rsp);
    if (sim_call_begin(w.t, w.code, NULL, 0) != SIM_OK) bail("sim_call_begin failed");
    uint64_t lo = w.t->stack_lo, data = w.data;
    sim_call_continue(w.t);
    sim_machine_free(w.m);
    for (int hook = 0; hook < 2; hook++)
        for (int j = 0; j < 6; j++) {
            uint8_t code[64];
            emit e = {code, 0};
            put(&e, 0x48), put(&e, 0xBC), put64(&e, lo + 8 * (uint64_t)j); /* mov rsp, lo + 8j */
            for (int i = 0; i < 6; i++) put(&e, 0x50 + (unsigned)i);       /* push rax .. push rbp */
            put(&e, 0xC3);
            one o = run_one(SIM_ARCH_X64, hook, code, e.n, 0, zero);
            ok(o.st == SIM_CALL_FAULTED && o.f.kind == SIM_FAULT_STACK_GUARD && o.f.data == lo - 8 &&
                   o.f.address == w.code + 10 + (uint64_t)j && o.insns == 1 + (uint64_t)j && o.rsp == lo,
               "x64 %s: push chain from the guard page + 8*%d: push %d overflows, %d instructions retired, rsp at the "
               "stack's lowest byte",
               hook ? "engine's precise mode" : "replay", j, j, 1 + j);
        }
    for (int hook = 0; hook < 2; hook++)
        for (size_t k = 0; k < 5; k++) {
            uint8_t code[64];
            emit e = {code, 0};
            put(&e, 0x48), put(&e, 0xB8), put64(&e, data);                           /* mov rax, data */
            for (int i = 0; i < 6; i++) put(&e, 0x48), put(&e, 0x8B), put(&e, 0x00); /* mov rax, [rax] */
            put(&e, 0xC3);
            chain_bad = k;
            one o = run_one(SIM_ARCH_X64, hook, code, e.n, 8, chain);
            ok(o.st == SIM_CALL_FAULTED && o.f.kind == SIM_FAULT_ACCESS && o.f.data == 0x40 && o.f.access == 0 &&
                   o.f.address == w.code + 10 + 3 * (k + 1) && o.insns == 2 + k,
               "x64 %s: pointer chain whose link %zu is bad: load %zu faults, %zu instructions retired",
               hook ? "engine's precise mode" : "replay", k, k + 2, 2 + k);
        }
    /* an unrolled array walk, the pointer moved between the loads (no register saved: the two
     * loads' bytes never overlap from one state): mov rax, p; mov rcx, [rax+0x10]; add rax, 0x20;
     * mov rdx, [rax-0x20]; ret.  p = the buffer's last 16 bytes: the first load reads the guard
     * page after it; p = 16 bytes below the buffer (unmapped): the first load passes, the second
     * faults */
    for (int hook = 0; hook < 2; hook++)
        for (int second = 0; second < 2; second++) {
            uint8_t walk[32];
            emit e = {walk, 0};
            put(&e, 0x48), put(&e, 0xB8), put64(&e, second ? data - 16 : data + DATA_BYTES - 16);
            put(&e, 0x48), put(&e, 0x8B), put(&e, 0x48), put(&e, 0x10);
            put(&e, 0x48), put(&e, 0x83), put(&e, 0xC0), put(&e, 0x20);
            put(&e, 0x48), put(&e, 0x8B), put(&e, 0x50), put(&e, 0xE0);
            put(&e, 0xC3);
            one o = run_one(SIM_ARCH_X64, hook, walk, e.n, 0, zero);
            uint64_t want = second ? data - 16 : data + DATA_BYTES;
            ok(o.st == SIM_CALL_FAULTED && o.f.kind == SIM_FAULT_ACCESS && o.f.data == want &&
                   o.f.address == w.code + (second ? 18u : 10u) && o.insns == (second ? 3u : 1u),
               "x64 %s: an array walk faults at its %s load (%u instructions retired)",
               hook ? "engine's precise mode" : "replay", second ? "second" : "first", second ? 3u : 1u);
        }
    /* mov rbx, code; mov rcx, [rax]; mov [rax], rcx; xchg [rbx], rcx (read-only: a write fault) */
    uint8_t code[64];
    emit e = {code, 0};
    put(&e, 0x48), put(&e, 0xBB), put64(&e, w.code);
    put(&e, 0x48), put(&e, 0xB8), put64(&e, data);
    put(&e, 0x48), put(&e, 0x8B), put(&e, 0x08);
    put(&e, 0x48), put(&e, 0x89), put(&e, 0x08);
    put(&e, 0x48), put(&e, 0x87), put(&e, 0x0B);
    put(&e, 0xC3);
    one r = run_one(SIM_ARCH_X64, false, code, e.n, 0, zero), h = run_one(SIM_ARCH_X64, true, code, e.n, 0, zero);
    ok(r.st == SIM_CALL_FAULTED && r.f.kind == SIM_FAULT_ACCESS && r.f.data == w.code && r.f.address == w.code + 26 &&
           r.insns == 4,
       "x64 replay: an xchg with read-only code faults at the xchg, after a load and a store (4 retired)");
    ok(h.st == SIM_CALL_FAULTED && h.f.address == w.code + 23 && h.insns == 3,
       "x64 engine's precise mode: the same xchg fault is reported at the store before it (no PC sync)");
}

int main(void) {
    for (int i = 0; i < 29; i++) regs_a64[i] = UC_ARM64_REG_X0 + i;
    regs_a64[29] = UC_ARM64_REG_X29;
    regs_a64[30] = UC_ARM64_REG_X30;
    regs_a64[31] = UC_ARM64_REG_SP;
    regs_a64[32] = UC_ARM64_REG_PC;
    regs_a64[33] = UC_ARM64_REG_NZCV;
    tap_clause("SIM-FAULT-REPLAY");
    constructed();
    random_blocks(SIM_ARCH_X64, "x64");
    random_blocks(SIM_ARCH_X86, "x86");
    random_blocks(SIM_ARCH_ARM64, "arm64");
    return tap_done();
}
