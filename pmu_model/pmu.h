/* pmu_model — performance-monitoring unit and cost model of hcpsim.
 *
 * Owns every counter: the event catalogue, per-thread counter banks, the
 * programmable counters (PMCs) with their privilege filter, and the cycle
 * cost of retired work: instruction classes, a branch predictor (gshare,
 * return-address stack, BTB) and a data-cache hierarchy (L1D, L2, LLC).
 * sim/ publishes what retired (a block's statistics, branch outcomes, data
 * accesses, kernel work); this module turns it into counts.  Pure C17 with
 * integer arithmetic only: includes neither Unicorn, nor Lua, nor capstone.
 * Every rule is written out in pmu_model/README.md so that counts can be
 * derived by hand. */
#ifndef HCPSIM_PMU_H
#define HCPSIM_PMU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---- events -------------------------------------------------------------------------- */

/* Events a counter can count.  Definitions: pmu_event_description() and the
 * README.  The first three have fixed values (0, 1, 2): the default PMC programming. */
typedef enum pmu_event {
    PMU_EV_INSTRUCTIONS = 0,
    PMU_EV_CYCLES,
    PMU_EV_BRANCHES,
    PMU_EV_REF_CYCLES,
    PMU_EV_COND_BRANCHES,
    PMU_EV_BRANCH_MISSES,
    PMU_EV_LOADS,
    PMU_EV_STORES,
    PMU_EV_L1D_MISSES,
    PMU_EV_L2_MISSES,
    PMU_EV_LLC_REFERENCES,
    PMU_EV_LLC_MISSES,
    PMU_EV__COUNT
} pmu_event;

/* Privilege filter of a PMC, written as a perf-style suffix on the event
 * name: "cycles" = "cycles:u" (user mode, the default), "cycles:k" (modelled
 * kernel work only), "cycles:uk" or "cycles:ku" (both).  Zero is user mode,
 * so a zero-initialised configuration counts user mode. */
typedef enum pmu_mode { PMU_MODE_USER = 0, PMU_MODE_KERNEL, PMU_MODE_BOTH, PMU_MODE__COUNT } pmu_mode;

#define PMU_MAX_PMC 16  /* programmable counters per CPU */
#define PMU_PMC_BITS 48 /* counter width; PMC reads wrap modulo 2^48 */

typedef enum pmu_err {
    PMU_OK = 0,
    PMU_ERR_UNKNOWN_EVENT,   /* no event has that name */
    PMU_ERR_TOO_MANY,        /* more than PMU_MAX_PMC events */
    PMU_ERR_BAD_MODIFIER,    /* the part after ':' is not u, k, uk or ku */
    PMU_ERR_UNKNOWN_PROFILE, /* no cost profile or cost table has that name */
    PMU_ERR_BAD_PARAM,       /* a predictor or cache parameter is out of range */
    PMU_ERR_NOMEM,           /* host allocation failed */
} pmu_err;

/* Text for an error code ending in its name, as uc_strerror does ("... (PMU_ERR_BAD_MODIFIER)"); never NULL. */
const char *pmu_strerror(pmu_err e);

/* Event catalogue.  Names are perf-style ("instructions", "branch-misses"). */
int pmu_event_lookup(const char *name, pmu_event *out); /* exact name, no suffix: 1 found, 0 not */
const char *pmu_event_name(pmu_event e);
const char *pmu_event_description(pmu_event e);
/* Parses "NAME" or "NAME:MOD" (MOD one of u, k, uk, ku). */
pmu_err pmu_event_parse(const char *spec, pmu_event *ev, pmu_mode *mode);
const char *pmu_mode_name(pmu_mode m); /* "u", "k", "uk" */

/* ---- instruction classes and block statistics ---------------------------------------- */

/* Instruction classes, each with a base cost in cycles (pmu_cost_params).
 * pmu_classify() picks the class from the facts sim/ decodes; the README
 * lists the members of each class. */
typedef enum pmu_class {
    PMU_CL_ALU = 0,  /* integer arithmetic/logic on registers and immediates */
    PMU_CL_MOV,      /* register/immediate moves, lea, nop, sign/zero extension */
    PMU_CL_MUL,      /* mul, imul */
    PMU_CL_DIV,      /* div, idiv */
    PMU_CL_LOAD,     /* reads data memory, does not write it (mov r,[m]; add r,[m]; pop) */
    PMU_CL_STORE,    /* writes data memory, does not read it (mov [m],r; push) */
    PMU_CL_RMW,      /* reads and writes data memory (add [m],r; inc [m]; push [m]) */
    PMU_CL_BRANCH,   /* direct jmp, jcc, loop/loope/loopne, jcxz/jecxz/jrcxz */
    PMU_CL_CALL,     /* direct call */
    PMU_CL_RET,      /* ret, ret imm16 */
    PMU_CL_INDIRECT, /* jmp or call through a register or memory */
    PMU_CL_STRING,   /* movs, stos, lods, cmps, scas, with or without rep */
    PMU_CL_FP,       /* x87, MMX, SSE, AVX: any instruction with such an operand */
    PMU_CL_SYSTEM,   /* int/syscall/iret, cpuid, rdtsc, fences, pause, locked, undecodable */
    PMU_CL__COUNT
} pmu_class;

/* Facts about one decoded instruction, as a bit set.  The first four are
 * counted by pmu_block_add_insn(); all of them feed pmu_classify(). */
enum {
    PMU_I_BRANCH = 1u << 0,   /* a control transfer: counts in `branches` */
    PMU_I_COND = 1u << 1,     /* conditional (jcc, loop*, j*cxz): counts in `cond-branches`; implies BRANCH */
    PMU_I_LOAD = 1u << 2,     /* reads data memory (explicit operand, pop, ret, string source) */
    PMU_I_STORE = 1u << 3,    /* writes data memory (explicit operand, push, call, string destination) */
    PMU_I_CALL = 1u << 4,     /* call (direct or indirect) */
    PMU_I_RET = 1u << 5,      /* ret */
    PMU_I_INDIRECT = 1u << 6, /* jmp/call target from a register or memory */
    PMU_I_STRING = 1u << 7,   /* string instruction */
    PMU_I_FP = 1u << 8,       /* x87/MMX/SSE/AVX operand */
    PMU_I_MUL = 1u << 9,      /* mul, imul */
    PMU_I_DIV = 1u << 10,     /* div, idiv */
    PMU_I_MOVE = 1u << 11,    /* mov, movzx, movsx(d), lea, xchg reg,reg, nop, cbw..cqo */
    PMU_I_SYSTEM = 1u << 12,  /* see PMU_CL_SYSTEM */
};

/* The class of an instruction with facts `f`: the first rule that applies of
 * SYSTEM, STRING, RET, INDIRECT, CALL, BRANCH, FP, DIV, MUL, RMW (LOAD and
 * STORE), LOAD, STORE, MOV (MOVE), else ALU. */
pmu_class pmu_classify(unsigned f);
const char *pmu_class_name(pmu_class c);

/* What one retired block (or retired prefix of a block) contributes.  sim/
 * adds each decoded instruction with pmu_block_add_insn() and prices the
 * block once with pmu_block_cycles().  Initialise it with {0} or memset:
 * a positional {a, b, c} leaves fields out, which -Wextra reports. */
typedef struct pmu_block_stats {
    uint32_t insns;               /* instructions retired */
    uint32_t branches;            /* retired control transfers: jcc (taken or not), jmp, call, ret, ... */
    uint64_t cycles;              /* base cycles: Σ class cost (pmu_block_cycles) */
    uint32_t cond;                /* conditional branches */
    uint32_t loads;               /* instructions that read data memory */
    uint32_t stores;              /* instructions that write data memory */
    uint32_t ncls[PMU_CL__COUNT]; /* instructions per class */
} pmu_block_stats;

/* Adds one instruction of class `cls` with facts `f` (PMU_I_*) to a block. */
void pmu_block_add_insn(pmu_block_stats *s, pmu_class cls, unsigned f);

/* a - b field by field: the part of block a after its prefix b. */
pmu_block_stats pmu_block_sub(const pmu_block_stats *a, const pmu_block_stats *b);

/* ---- cost parameters ------------------------------------------------------------------ */

/* Branch predictor geometry (README "Branch predictor"). */
typedef struct pmu_bp_params {
    uint32_t hist_bits;   /* H: global history bits, 0..index_bits */
    uint32_t index_bits;  /* T: 2^T two-bit counters, 1..24 */
    uint32_t pc_shift;    /* index = ((pc >> pc_shift) XOR history) mod 2^T; 0..63 */
    uint32_t ras_depth;   /* R: return-address stack entries, 0..4096 (0: every ret mispredicts) */
    uint32_t btb_entries; /* E: indirect-target buffer entries, 0..65536 (0: every indirect mispredicts) */
} pmu_bp_params;

/* One cache level.  sets = size / (ways * line) must be a whole number >= 1
 * (any count, power of two or not). */
/* The ranges of the model's parameters: pmu_bp_params_check and
 * pmu_cache_params_check apply them, and the machine options (cost,
 * predictor, cache) quote them. */
#define PMU_BP_INDEX_MIN 1u
#define PMU_BP_INDEX_MAX 24u
#define PMU_BP_PC_SHIFT_MAX 63u
#define PMU_BP_RAS_MAX 4096u
#define PMU_BP_BTB_MAX 65536u
#define PMU_CACHE_SIZE_MAX (1u << 30)
#define PMU_CACHE_WAYS_MAX 256u
#define PMU_CACHE_LINE_MIN 4u
#define PMU_CACHE_LINE_MAX 4096u
#define PMU_COST_CYCLES_MAX 100000000u /* any one cost of the tables */

typedef struct pmu_cache_level {
    uint32_t size; /* bytes */
    uint32_t ways; /* 1..256 */
    uint32_t line; /* bytes, a power of two, 4..4096 */
} pmu_cache_level;

typedef struct pmu_cache_params {
    pmu_cache_level l1d, l2, llc;
} pmu_cache_params;

/* Everything the cycle formula uses (README "Cycles"):
 *   user cycles   = Σ class_cycles[class of each retired instruction]
 *                 + branch-misses × mispredict_cycles
 *                 + Σ over data accesses of {0, l2_hit, llc_hit, mem}_cycles by serving level
 *   kernel cycles = API calls × api_call_cycles + clock interrupts × (sim's interrupt_cycles) */
typedef struct pmu_cost_params {
    const char *profile; /* cost profile the geometry came from (static string) */
    const char *table;   /* cost table: "default" or "unit" (static string) */
    uint32_t class_cycles[PMU_CL__COUNT];
    uint32_t mispredict_cycles; /* per branch-miss */
    uint32_t l2_hit_cycles;     /* extra cycles of an access served by L2 */
    uint32_t llc_hit_cycles;    /* ... by the LLC */
    uint32_t mem_cycles;        /* ... by memory */
    uint32_t api_call_cycles;   /* kernel cycles of one Windows API call */
    pmu_bp_params bp;
    pmu_cache_params cache;
} pmu_cost_params;

/* The cost profile every platform profile uses today: a modern out-of-order
 * core (README "Defaults"). */
#define PMU_COST_PROFILE_DEFAULT "modern-ooo"

/* Fills *p with the defaults of a cost profile (pmu_cost_profile_name) and its
 * "default" table, or with "unit" (the default profile's geometry, unit
 * table).  PMU_ERR_UNKNOWN_PROFILE leaves *p. */
pmu_err pmu_cost_defaults(pmu_cost_params *p, const char *name);
/* Replaces the costs (class cycles, penalties, API-call cycles) and keeps the
 * geometry: "default" = the profile's table, "unit" = every class 1 cycle,
 * every penalty and the API-call cost 0, so user cycles = instructions. */
pmu_err pmu_cost_table(pmu_cost_params *p, const char *table);
/* i-th cost profile name (0 = PMU_COST_PROFILE_DEFAULT), NULL past the end. */
const char *pmu_cost_profile_name(int i);
/* PMU_OK when the predictor and cache geometry are valid. */
pmu_err pmu_bp_params_check(const pmu_bp_params *bp);
pmu_err pmu_cache_params_check(const pmu_cache_params *cp);
pmu_err pmu_cost_check(const pmu_cost_params *p);

/* Prices a block: sets s->cycles = Σ ncls[c] × class_cycles[c], plus
 * SYSTEM's cost for each instruction added without a class, and returns it. */
uint64_t pmu_block_cycles(pmu_block_stats *s, const pmu_cost_params *p);

/* ---- counter banks -------------------------------------------------------------------- */

/* Per-thread event totals.  Virtualised: sim/ adds to the bank of the thread
 * that retired the work, so a bank only grows while its thread runs.  User
 * and kernel totals are kept apart; kernel work has only cycles and
 * ref-cycles (no kernel instructions are modelled). */
typedef struct pmu_bank {
    uint64_t ev[PMU_EV__COUNT];  /* user mode */
    uint64_t kev[PMU_EV__COUNT]; /* modelled kernel work: API calls and clock interrupts */
    uint64_t intr_cycles;        /* the part of kev[PMU_EV_CYCLES] spent in clock interrupts */
} pmu_bank;

/* Adds a retired block to a bank (hot path).  ref-cycles = cycles. */
static inline void pmu_bank_retire(pmu_bank *b, const pmu_block_stats *s) {
    b->ev[PMU_EV_INSTRUCTIONS] += s->insns;
    b->ev[PMU_EV_BRANCHES] += s->branches;
    b->ev[PMU_EV_CYCLES] += s->cycles;
    b->ev[PMU_EV_REF_CYCLES] += s->cycles;
    b->ev[PMU_EV_COND_BRANCHES] += s->cond;
    b->ev[PMU_EV_LOADS] += s->loads;
    b->ev[PMU_EV_STORES] += s->stores;
}
/* Takes back work that was counted but did not retire (a block stopped part-way). */
/* Adds n runs of a block at once (sim/ counts runs, then adds them here). */
static inline void pmu_bank_retire_n(pmu_bank *b, const pmu_block_stats *s, uint64_t n) {
    b->ev[PMU_EV_INSTRUCTIONS] += n * s->insns;
    b->ev[PMU_EV_BRANCHES] += n * s->branches;
    b->ev[PMU_EV_CYCLES] += n * s->cycles;
    b->ev[PMU_EV_REF_CYCLES] += n * s->cycles;
    b->ev[PMU_EV_COND_BRANCHES] += n * s->cond;
    b->ev[PMU_EV_LOADS] += n * s->loads;
    b->ev[PMU_EV_STORES] += n * s->stores;
}

void pmu_bank_unretire(pmu_bank *b, const pmu_block_stats *s);

/* A mispredicted branch: branch-misses + 1 and the penalty in cycles.
 * Returns the cycles added (the caller advances its clock by them). */
static inline uint64_t pmu_bank_branch_miss(pmu_bank *b, const pmu_cost_params *p) {
    b->ev[PMU_EV_BRANCH_MISSES]++;
    b->ev[PMU_EV_CYCLES] += p->mispredict_cycles;
    b->ev[PMU_EV_REF_CYCLES] += p->mispredict_cycles;
    return p->mispredict_cycles;
}

/* A data access served by `level` (pmu_cache_access: 1 L1D, 2 L2, 3 LLC, 4
 * memory): level >= 2 counts an l1d-miss, >= 3 an l2-miss and an
 * llc-reference, 4 an llc-miss; adds that level's penalty.  Returns the
 * cycles added; a level outside 1..4 counts nothing. */
static inline uint64_t pmu_bank_mem(pmu_bank *b, int level, const pmu_cost_params *p) {
    uint64_t c;
    switch (level) {
    case 2: c = p->l2_hit_cycles; break;
    case 3: c = p->llc_hit_cycles; break;
    case 4: c = p->mem_cycles; break;
    default: return 0;
    }
    b->ev[PMU_EV_L1D_MISSES]++;
    if (level >= 3) {
        b->ev[PMU_EV_L2_MISSES]++;
        b->ev[PMU_EV_LLC_REFERENCES]++;
    }
    if (level == 4) b->ev[PMU_EV_LLC_MISSES]++;
    b->ev[PMU_EV_CYCLES] += c;
    b->ev[PMU_EV_REF_CYCLES] += c;
    return c;
}

/* Kernel work done for the thread (an API call: api_call_cycles): kernel
 * cycles and ref-cycles.  Returns `cycles`. */
static inline uint64_t pmu_bank_kernel(pmu_bank *b, uint64_t cycles) {
    b->kev[PMU_EV_CYCLES] += cycles;
    b->kev[PMU_EV_REF_CYCLES] += cycles;
    return cycles;
}
/* A clock interrupt that hit the thread: kernel work, also totalled in
 * intr_cycles (CycleTime excludes it).  Returns `cycles`. */
/* A thread's cycle time: user and kernel cycles, clock interrupts excluded
 * (CycleTime, QueryThreadCycleTime). */
static inline uint64_t pmu_bank_cycle_time(const pmu_bank *b) {
    return b->ev[PMU_EV_CYCLES] + b->kev[PMU_EV_CYCLES] - b->intr_cycles;
}

static inline uint64_t pmu_bank_interrupt(pmu_bank *b, uint64_t cycles) {
    b->intr_cycles += cycles;
    return pmu_bank_kernel(b, cycles);
}

/* ---- PMC configuration and reads ------------------------------------------------------ */

/* Which event each PMC counts (the machine's `pmc = {...}` list) and in which modes. */
typedef struct pmu_config {
    int npmc;
    pmu_event pmc[PMU_MAX_PMC];
    pmu_mode mode[PMU_MAX_PMC]; /* zero (user) unless the name had a suffix */
} pmu_config;

/* Builds a PMC configuration from event names with optional suffixes
 * ("cycles:k").  On error (PMU_ERR_UNKNOWN_EVENT, PMU_ERR_BAD_MODIFIER) *bad
 * is the index of the offending name; on PMU_ERR_TOO_MANY it is
 * PMU_MAX_PMC.  A refused configuration leaves *c unchanged. */
pmu_err pmu_config_set(pmu_config *c, const char *const *names, int n, int *bad);

/* Value of PMC `idx` for a bank, modulo 2^PMU_PMC_BITS: the user total, the
 * kernel total or their sum by the PMC's mode; 0 for a PMC that counts no
 * event (idx >= npmc). */
uint64_t pmu_pmc_read(const pmu_config *c, const pmu_bank *b, uint64_t idx);

/* ---- branch predictor ----------------------------------------------------------------- */

/* A predictor (one per simulated CPU).  Owned by the caller: pmu_bp_new()
 * allocates everything it will use (NULL on invalid parameters or no
 * memory), pmu_bp_free() releases it (NULL is a no-op).  The predict
 * functions allocate nothing and return true on a mispredict. */
typedef struct pmu_bp pmu_bp;
pmu_bp *pmu_bp_new(const pmu_bp_params *p);
void pmu_bp_free(pmu_bp *bp);
void pmu_bp_reset(pmu_bp *bp); /* counters weakly not-taken, history 0, RAS and BTB empty */

/* A conditional branch at `pc` resolved `taken`: gshare predicts, then learns. */
bool pmu_bp_cond(pmu_bp *bp, uint64_t pc, bool taken);

/* The first member of every pmu_bp, read by the inline fast path below: the
 * last conditional branch whose update changed nothing (its counter was
 * already saturated towards its outcome and the history already all taken or
 * all not taken, so it was predicted right).  gshare's state is the counters
 * and the history alone, so until one of them changes, the same (pc, taken)
 * again is predicted right and changes nothing: the caller may skip it. */
typedef struct pmu_bp_steady {
    uint64_t key; /* 2 pc + 1 + taken (pc below 2^63); 0 none */
} pmu_bp_steady;
/* True when pmu_bp_cond(bp, pc, taken) would return false and change nothing. */
static inline bool pmu_bp_cond_steady(const pmu_bp *bp, uint64_t pc, bool taken) {
    return ((const pmu_bp_steady *)(const void *)bp)->key == 2 * pc + 1 + (taken ? 1 : 0);
}
/* A call (direct or indirect) pushes its return address (the address after the call). */
void pmu_bp_call(pmu_bp *bp, uint64_t return_addr);
/* A ret to `target`: mispredicts when the RAS is empty or its top differs; pops either way. */
bool pmu_bp_ret(pmu_bp *bp, uint64_t target);
/* An indirect jmp/call at `pc` to `target`: mispredicts when the BTB entry for
 * pc holds another pc or another target; then records (pc, target). */
bool pmu_bp_indirect(pmu_bp *bp, uint64_t pc, uint64_t target);

/* ---- data caches ---------------------------------------------------------------------- */

/* A data-cache hierarchy L1D, L2, LLC (one per simulated CPU).  Same
 * ownership rules as pmu_bp. */
typedef struct pmu_cache pmu_cache;
pmu_cache *pmu_cache_new(const pmu_cache_params *p);
void pmu_cache_free(pmu_cache *c);
void pmu_cache_reset(pmu_cache *c); /* every line invalid */
/* On: pmu_cache_free keeps a few tag arrays (1.1 MiB for the default
 * geometry) and pmu_cache_new takes one of the same size, cleared, instead of
 * allocating: much cheaper where large allocations are fresh mappings each
 * time (AddressSanitizer).  Off (the default) frees the kept ones.
 * Process-wide, for one thread; sim_engine_recycle switches it with engines. */
void pmu_cache_recycle(bool on);

/* A data access of `size` bytes at `addr` (size 0 counts as 1).  Returns the
 * level that served it: 1 L1D, 2 L2, 3 LLC, 4 memory.  Reads and writes are
 * treated alike (write-allocate).  An access that touches several lines is
 * one access: a level misses when any of its lines misses there (every line
 * is looked up and becomes most recently used), and only then is the next
 * level looked up, with the whole access (valgrind cachegrind's rule). */
int pmu_cache_access(pmu_cache *c, uint64_t addr, uint32_t size, bool write);
/* The same for an access that pmu_cache_access_last (below) has just found
 * outside the last access's line (a hot path's slow part). */
int pmu_cache_access_past_last(pmu_cache *c, uint64_t addr, uint32_t size, bool write);

/* The first member of every pmu_cache, read by the inline fast path below:
 * the L1D line the last access ended on, as its first byte and its length
 * (span 0: none).  That line is the most recently used of its L1D set, so
 * another access within it alone is an L1D hit that changes nothing. */
typedef struct pmu_cache_last {
    uint64_t base;
    uint64_t span; /* the L1D line size, or 0 */
} pmu_cache_last;
/* Level 1 when the access lies within the last access's L1D line (what
 * pmu_cache_access would return, with nothing to change), else 0.  An
 * address below base gives a huge d: no wrap at either end of memory. */
static inline int pmu_cache_access_last(const pmu_cache *c, uint64_t addr, uint32_t size) {
    const pmu_cache_last *l = (const pmu_cache_last *)(const void *)c;
    uint64_t d = addr - l->base;
    return d < l->span && d + size <= l->span ? 1 : 0;
}

/* ---- describe ------------------------------------------------------------------------- */

/* Prints the event catalogue, the class cost table, the predictor and cache
 * parameters, the API-call cost and the cycle formula.  Deterministic.  The
 * clock-interrupt cost lives in sim's configuration: the caller prints it.
 * `label` is what the header names the costs by ("Cost model: profile LABEL,
 * table T"; hcpsim describe passes the platform profile); NULL: p->profile. */
void pmu_describe(FILE *f, const pmu_cost_params *p, const char *label);

#endif
