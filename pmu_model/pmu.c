/* pmu_model/pmu.c — event catalogue, privilege modes, counter banks, PMC
 * reads, instruction classes and cost tables, the branch predictor, the
 * data-cache hierarchy and `describe`.  Integer arithmetic only; every loop
 * is bounded by a parameter or a string; nothing allocates after *_new. */
#include "pmu_model/pmu.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- event catalogue ------------------------------------------------------------------ */

static const struct {
    const char *name;
    const char *desc;
} catalogue[PMU_EV__COUNT] = {
    [PMU_EV_INSTRUCTIONS] = {"instructions",
                             "user-mode guest instructions retired (a faulting one does not retire; int3, int n do)"},
    [PMU_EV_CYCLES] = {"cycles", "core cycles; user: class costs + mispredict and cache penalties; kernel: API calls, "
                                 "clock interrupts"},
    [PMU_EV_BRANCHES] =
        {"branches", "retired control transfers: jcc taken or not, jmp, call, ret, loop, jrcxz, int, syscall, iret"},
    [PMU_EV_REF_CYCLES] = {"ref-cycles", "cycles at the TSC rate; the core always runs at its nominal (TSC) "
                                         "frequency, so ref-cycles = cycles"},
    [PMU_EV_COND_BRANCHES] = {"cond-branches", "retired conditional branches, taken or not: jcc, loop, loope, loopne, "
                                               "jcxz, jecxz, jrcxz"},
    [PMU_EV_BRANCH_MISSES] = {"branch-misses", "retired branches mispredicted: conditional direction (gshare), ret "
                                               "(return stack), indirect target (BTB)"},
    [PMU_EV_LOADS] = {"loads", "retired instructions that read data memory, each once: memory sources, pop, ret, "
                               "movs, lods, cmps, scas"},
    [PMU_EV_STORES] = {"stores", "retired instructions that write data memory, each once: memory destinations, push, "
                                 "call, movs, stos"},
    [PMU_EV_L1D_MISSES] = {"l1d-misses", "data accesses (loads, stores) missing L1D; touching two lines: one access, a "
                                         "miss if either misses"},
    [PMU_EV_L2_MISSES] = {"l2-misses", "data accesses that missed L1D and then missed L2"},
    [PMU_EV_LLC_REFERENCES] = {"llc-references", "data accesses looked up in the LLC: the L2 misses"},
    [PMU_EV_LLC_MISSES] = {"llc-misses", "data accesses that missed the LLC and were served by memory"},
};

static const char *const mode_names[PMU_MODE__COUNT] = {"u", "k", "uk"};

const char *pmu_strerror(pmu_err e) {
    switch (e) {
    case PMU_OK: return "success (PMU_OK)";
    case PMU_ERR_UNKNOWN_EVENT: return "unknown event (PMU_ERR_UNKNOWN_EVENT)";
    case PMU_ERR_TOO_MANY: return "too many counters (PMU_ERR_TOO_MANY)";
    case PMU_ERR_BAD_MODIFIER: return "event modifier is not u, k, uk or ku (PMU_ERR_BAD_MODIFIER)";
    case PMU_ERR_UNKNOWN_PROFILE: return "unknown cost profile or cost table (PMU_ERR_UNKNOWN_PROFILE)";
    case PMU_ERR_BAD_PARAM: return "predictor or cache parameter out of range (PMU_ERR_BAD_PARAM)";
    case PMU_ERR_NOMEM: return "out of host memory (PMU_ERR_NOMEM)";
    }
    return "unknown error";
}

int pmu_event_lookup(const char *name, pmu_event *out) {
    for (int i = 0; i < PMU_EV__COUNT; i++) {
        if (strcmp(catalogue[i].name, name) == 0) {
            *out = (pmu_event)i;
            return 1;
        }
    }
    return 0;
}

const char *pmu_event_name(pmu_event e) { return (unsigned)e < PMU_EV__COUNT ? catalogue[e].name : "?"; }

const char *pmu_event_description(pmu_event e) { return (unsigned)e < PMU_EV__COUNT ? catalogue[e].desc : "?"; }

const char *pmu_mode_name(pmu_mode m) { return (unsigned)m < PMU_MODE__COUNT ? mode_names[m] : "?"; }

pmu_err pmu_event_parse(const char *spec, pmu_event *ev, pmu_mode *mode) {
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    int found = -1;
    for (int i = 0; i < PMU_EV__COUNT; i++)
        if (strlen(catalogue[i].name) == n && memcmp(catalogue[i].name, spec, n) == 0) found = i;
    if (found < 0) return PMU_ERR_UNKNOWN_EVENT;
    pmu_mode m;
    if (!colon || strcmp(colon + 1, "u") == 0)
        m = PMU_MODE_USER;
    else if (strcmp(colon + 1, "k") == 0)
        m = PMU_MODE_KERNEL;
    else if (strcmp(colon + 1, "uk") == 0 || strcmp(colon + 1, "ku") == 0)
        m = PMU_MODE_BOTH;
    else
        return PMU_ERR_BAD_MODIFIER;
    *ev = (pmu_event)found;
    *mode = m;
    return PMU_OK;
}

/* ---- PMC configuration and reads ------------------------------------------------------ */

pmu_err pmu_config_set(pmu_config *c, const char *const *names, int n, int *bad) {
    if (n > PMU_MAX_PMC) {
        *bad = PMU_MAX_PMC;
        return PMU_ERR_TOO_MANY;
    }
    pmu_config tmp;
    memset(&tmp, 0, sizeof tmp);
    for (int i = 0; i < n; i++) {
        pmu_err e = pmu_event_parse(names[i], &tmp.pmc[i], &tmp.mode[i]);
        if (e != PMU_OK) {
            *bad = i;
            return e;
        }
    }
    tmp.npmc = n < 0 ? 0 : n;
    *c = tmp;
    return PMU_OK;
}

uint64_t pmu_pmc_read(const pmu_config *c, const pmu_bank *b, uint64_t idx) {
    if (idx >= (uint64_t)c->npmc) return 0;
    pmu_event e = c->pmc[idx];
    if ((unsigned)e >= PMU_EV__COUNT) return 0;
    pmu_mode m = c->mode[idx];
    uint64_t v = 0;
    if (m == PMU_MODE_USER || m == PMU_MODE_BOTH) v += b->ev[e];
    if (m == PMU_MODE_KERNEL || m == PMU_MODE_BOTH) v += b->kev[e];
    return v & ((UINT64_C(1) << PMU_PMC_BITS) - 1);
}

void pmu_bank_unretire(pmu_bank *b, const pmu_block_stats *s) {
    b->ev[PMU_EV_INSTRUCTIONS] -= s->insns;
    b->ev[PMU_EV_BRANCHES] -= s->branches;
    b->ev[PMU_EV_CYCLES] -= s->cycles;
    b->ev[PMU_EV_REF_CYCLES] -= s->cycles;
    b->ev[PMU_EV_COND_BRANCHES] -= s->cond;
    b->ev[PMU_EV_LOADS] -= s->loads;
    b->ev[PMU_EV_STORES] -= s->stores;
}

/* ---- instruction classes and blocks ---------------------------------------------------- */

static const struct {
    const char *name;
    const char *members;
} classes[PMU_CL__COUNT] = {
    [PMU_CL_ALU] = {"alu", "integer instructions of no other class: add sub and or xor cmp test inc neg shl setcc ..."},
    [PMU_CL_MOV] = {"mov", "mov/movzx/movsx(d) from a register or immediate, lea, xchg reg,reg, nop, cbw..cqo"},
    [PMU_CL_MUL] = {"mul", "mul, imul"},
    [PMU_CL_DIV] = {"div", "div, idiv"},
    [PMU_CL_LOAD] = {"load", "reads data memory, writes none: mov r,[m]; add r,[m]; cmp [m],imm; pop r"},
    [PMU_CL_STORE] = {"store", "writes data memory, reads none: mov [m],r; mov [m],imm; setcc [m]; push r"},
    [PMU_CL_RMW] = {"rmw", "reads and writes data memory: add [m],r; inc [m]; push [m]; pop [m]"},
    [PMU_CL_BRANCH] = {"branch", "direct jmp, jcc, loop/loope/loopne, jcxz/jecxz/jrcxz"},
    [PMU_CL_CALL] = {"call", "direct call"},
    [PMU_CL_RET] = {"ret", "ret, ret imm16"},
    [PMU_CL_INDIRECT] = {"indirect", "jmp or call through a register or memory"},
    [PMU_CL_STRING] = {"string", "movs stos lods cmps scas, with or without rep"},
    [PMU_CL_FP] = {"fp", "x87, MMX, SSE, AVX: an st/mm/xmm/ymm/zmm operand"},
    [PMU_CL_SYSTEM] = {"system",
                       "int int3 syscall iret cpuid rdtsc rdpmc fences pause ud2, lock, xchg [m], undecodable"},
};

const char *pmu_class_name(pmu_class c) { return (unsigned)c < PMU_CL__COUNT ? classes[c].name : "?"; }

pmu_class pmu_classify(unsigned f) {
    if (f & PMU_I_SYSTEM) return PMU_CL_SYSTEM;
    if (f & PMU_I_STRING) return PMU_CL_STRING;
    if (f & PMU_I_RET) return PMU_CL_RET;
    if (f & PMU_I_INDIRECT) return PMU_CL_INDIRECT;
    if (f & PMU_I_CALL) return PMU_CL_CALL;
    if (f & (PMU_I_BRANCH | PMU_I_COND)) return PMU_CL_BRANCH;
    if (f & PMU_I_FP) return PMU_CL_FP;
    if (f & PMU_I_DIV) return PMU_CL_DIV;
    if (f & PMU_I_MUL) return PMU_CL_MUL;
    if ((f & PMU_I_LOAD) && (f & PMU_I_STORE)) return PMU_CL_RMW;
    if (f & PMU_I_LOAD) return PMU_CL_LOAD;
    if (f & PMU_I_STORE) return PMU_CL_STORE;
    if (f & PMU_I_MOVE) return PMU_CL_MOV;
    return PMU_CL_ALU;
}

void pmu_block_add_insn(pmu_block_stats *s, pmu_class cls, unsigned f) {
    s->insns++;
    if (f & (PMU_I_BRANCH | PMU_I_COND)) s->branches++;
    if (f & PMU_I_COND) s->cond++;
    if (f & PMU_I_LOAD) s->loads++;
    if (f & PMU_I_STORE) s->stores++;
    if ((unsigned)cls < PMU_CL__COUNT) s->ncls[cls]++;
}

pmu_block_stats pmu_block_sub(const pmu_block_stats *a, const pmu_block_stats *b) {
    pmu_block_stats d;
    memset(&d, 0, sizeof d);
    d.insns = a->insns - b->insns;
    d.branches = a->branches - b->branches;
    d.cycles = a->cycles - b->cycles;
    d.cond = a->cond - b->cond;
    d.loads = a->loads - b->loads;
    d.stores = a->stores - b->stores;
    for (int i = 0; i < PMU_CL__COUNT; i++) d.ncls[i] = a->ncls[i] - b->ncls[i];
    return d;
}

uint64_t pmu_block_cycles(pmu_block_stats *s, const pmu_cost_params *p) {
    uint64_t cy = 0, classified = 0;
    for (int i = 0; i < PMU_CL__COUNT; i++) {
        cy += (uint64_t)s->ncls[i] * p->class_cycles[i];
        classified += s->ncls[i];
    }
    if (s->insns > classified) cy += (s->insns - classified) * (uint64_t)p->class_cycles[PMU_CL_SYSTEM];
    s->cycles = cy;
    return cy;
}

/* ---- cost tables and cost profiles ----------------------------------------------------- */

/* A modern out-of-order x86-64 core, latency-flavoured integers (README "Defaults"). */
static const pmu_cost_params modern_core = {
    .profile = PMU_COST_PROFILE_DEFAULT,
    .table = "default",
    .class_cycles =
        {
            [PMU_CL_ALU] = 1,
            [PMU_CL_MOV] = 1,
            [PMU_CL_MUL] = 3,
            [PMU_CL_DIV] = 25,
            [PMU_CL_LOAD] = 2,
            [PMU_CL_STORE] = 1,
            [PMU_CL_RMW] = 3,
            [PMU_CL_BRANCH] = 1,
            [PMU_CL_CALL] = 2,
            [PMU_CL_RET] = 2,
            [PMU_CL_INDIRECT] = 2,
            [PMU_CL_STRING] = 3,
            [PMU_CL_FP] = 4,
            [PMU_CL_SYSTEM] = 25,
        },
    .mispredict_cycles = 15,
    .l2_hit_cycles = 10,
    .llc_hit_cycles = 40,
    .mem_cycles = 200,
    .api_call_cycles = 1500,
    .bp = {.hist_bits = 12, .index_bits = 12, .pc_shift = 0, .ras_depth = 16, .btb_entries = 512},
    .cache = {.l1d = {32u * 1024, 8, 64}, .l2 = {1024u * 1024, 16, 64}, .llc = {8u * 1024 * 1024, 16, 64}},
};

/* The cost profiles, by the model's own names: a CPU whose costs and geometry
 * differ is a new row, and the platforms that run on it name it
 * (api/platform.c, cost_profile).  Today every platform runs on the modern core. */
static const struct {
    const char *name;
    const pmu_cost_params *defaults;
} profiles[] = {
    {PMU_COST_PROFILE_DEFAULT, &modern_core},
};
#define NPROFILES ((int)(sizeof profiles / sizeof profiles[0]))

const char *pmu_cost_profile_name(int i) { return i >= 0 && i < NPROFILES ? profiles[i].name : NULL; }

static int profile_index(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < NPROFILES; i++)
        if (strcmp(profiles[i].name, name) == 0) return i;
    return -1;
}

pmu_err pmu_cost_table(pmu_cost_params *p, const char *table) {
    if (strcmp(table, "unit") == 0) {
        for (int i = 0; i < PMU_CL__COUNT; i++) p->class_cycles[i] = 1;
        p->mispredict_cycles = p->l2_hit_cycles = p->llc_hit_cycles = p->mem_cycles = 0;
        p->api_call_cycles = 0;
        p->table = "unit";
        return PMU_OK;
    }
    if (strcmp(table, "default") == 0) {
        int i = profile_index(p->profile);
        if (i < 0) return PMU_ERR_UNKNOWN_PROFILE;
        const pmu_cost_params *d = profiles[i].defaults;
        memcpy(p->class_cycles, d->class_cycles, sizeof p->class_cycles);
        p->mispredict_cycles = d->mispredict_cycles;
        p->l2_hit_cycles = d->l2_hit_cycles;
        p->llc_hit_cycles = d->llc_hit_cycles;
        p->mem_cycles = d->mem_cycles;
        p->api_call_cycles = d->api_call_cycles;
        p->table = "default";
        return PMU_OK;
    }
    return PMU_ERR_UNKNOWN_PROFILE;
}

pmu_err pmu_cost_defaults(pmu_cost_params *p, const char *name) {
    bool unit = strcmp(name, "unit") == 0;
    int i = profile_index(unit ? PMU_COST_PROFILE_DEFAULT : name);
    if (i < 0) return PMU_ERR_UNKNOWN_PROFILE;
    *p = *profiles[i].defaults;
    p->profile = profiles[i].name;
    return unit ? pmu_cost_table(p, "unit") : PMU_OK;
}

static bool is_pow2(uint32_t x) { return x && (x & (x - 1)) == 0; }

pmu_err pmu_bp_params_check(const pmu_bp_params *bp) {
    if (bp->index_bits < PMU_BP_INDEX_MIN || bp->index_bits > PMU_BP_INDEX_MAX || bp->hist_bits > bp->index_bits ||
        bp->pc_shift > PMU_BP_PC_SHIFT_MAX || bp->ras_depth > PMU_BP_RAS_MAX || bp->btb_entries > PMU_BP_BTB_MAX)
        return PMU_ERR_BAD_PARAM;
    return PMU_OK;
}

static bool level_ok(const pmu_cache_level *l) {
    if (!is_pow2(l->line) || l->line < PMU_CACHE_LINE_MIN || l->line > PMU_CACHE_LINE_MAX || l->ways < 1 ||
        l->ways > PMU_CACHE_WAYS_MAX || l->size > PMU_CACHE_SIZE_MAX)
        return false;
    uint64_t per_set = (uint64_t)l->ways * l->line;
    return l->size >= per_set && l->size % per_set == 0;
}

pmu_err pmu_cache_params_check(const pmu_cache_params *cp) {
    return level_ok(&cp->l1d) && level_ok(&cp->l2) && level_ok(&cp->llc) ? PMU_OK : PMU_ERR_BAD_PARAM;
}

pmu_err pmu_cost_check(const pmu_cost_params *p) {
    pmu_err e = pmu_bp_params_check(&p->bp);
    return e != PMU_OK ? e : pmu_cache_params_check(&p->cache);
}

/* ---- branch predictor ----------------------------------------------------------------- */

typedef struct btb_entry {
    uint64_t pc, target;
    bool valid;
} btb_entry;

struct pmu_bp {
    pmu_bp_steady steady; /* first member: pmu_bp_cond_steady reads it */
    pmu_bp_params p;
    uint32_t hist;       /* bit 0 = most recent conditional outcome (1 taken) */
    uint32_t hist_mask;  /* 2^H - 1 */
    uint32_t index_mask; /* 2^T - 1 */
    uint8_t *ctr;        /* 2^T two-bit counters: 0, 1 predict not taken; 2, 3 taken */
    uint64_t *ras;       /* circular: ras[(head - 1) mod R] is the top */
    uint32_t ras_n, ras_head;
    btb_entry *btb;
};

void pmu_bp_free(pmu_bp *bp) {
    if (!bp) return;
    free(bp->ctr);
    free(bp->ras);
    free(bp->btb);
    free(bp);
}

pmu_bp *pmu_bp_new(const pmu_bp_params *p) {
    if (pmu_bp_params_check(p) != PMU_OK) return NULL;
    pmu_bp *bp = calloc(1, sizeof *bp);
    if (!bp) return NULL;
    bp->p = *p;
    bp->index_mask = (UINT32_C(1) << p->index_bits) - 1;
    bp->hist_mask = (UINT32_C(1) << p->hist_bits) - 1;
    bp->ctr = malloc((size_t)bp->index_mask + 1);
    bp->ras = calloc(p->ras_depth ? p->ras_depth : 1, sizeof *bp->ras);
    bp->btb = calloc(p->btb_entries ? p->btb_entries : 1, sizeof *bp->btb);
    if (!bp->ctr || !bp->ras || !bp->btb) {
        pmu_bp_free(bp);
        return NULL;
    }
    pmu_bp_reset(bp);
    return bp;
}

void pmu_bp_reset(pmu_bp *bp) {
    memset(bp->ctr, 1, (size_t)bp->index_mask + 1); /* weakly not taken */
    bp->hist = 0;
    bp->steady.key = 0;
    bp->ras_n = bp->ras_head = 0;
    for (uint32_t i = 0; i < bp->p.btb_entries; i++) bp->btb[i] = (btb_entry){0, 0, false};
}

bool pmu_bp_cond(pmu_bp *bp, uint64_t pc, bool taken) {
    if (pmu_bp_cond_steady(bp, pc, taken)) return false;
    uint32_t i = (uint32_t)(((pc >> bp->p.pc_shift) ^ bp->hist) & bp->index_mask);
    uint8_t c = bp->ctr[i];
    bool predicted = c >= 2;
    if (taken && c < 3) bp->ctr[i] = (uint8_t)(c + 1);
    if (!taken && c > 0) bp->ctr[i] = (uint8_t)(c - 1);
    uint32_t h = ((bp->hist << 1) | (taken ? 1u : 0u)) & bp->hist_mask;
    /* nothing changed (then it was predicted right): the same branch again is steady */
    bool steady = h == bp->hist && c == (taken ? 3 : 0) && pc < (UINT64_C(1) << 63);
    bp->steady.key = steady ? 2 * pc + 1 + (taken ? 1 : 0) : 0;
    bp->hist = h;
    return predicted != taken;
}

void pmu_bp_call(pmu_bp *bp, uint64_t return_addr) {
    uint32_t r = bp->p.ras_depth;
    if (!r) return;
    bp->ras[bp->ras_head] = return_addr; /* when full, this overwrites the oldest */
    bp->ras_head = (bp->ras_head + 1) % r;
    if (bp->ras_n < r) bp->ras_n++;
}

bool pmu_bp_ret(pmu_bp *bp, uint64_t target) {
    uint32_t r = bp->p.ras_depth;
    if (!bp->ras_n) return true;
    bp->ras_head = (bp->ras_head + r - 1) % r;
    bp->ras_n--;
    return bp->ras[bp->ras_head] != target;
}

bool pmu_bp_indirect(pmu_bp *bp, uint64_t pc, uint64_t target) {
    uint32_t e = bp->p.btb_entries;
    if (!e) return true;
    btb_entry *x = &bp->btb[pc % e];
    bool hit = x->valid && x->pc == pc && x->target == target;
    *x = (btb_entry){pc, target, true};
    return !hit;
}

/* ---- data caches ---------------------------------------------------------------------- */

/* A way holds its block number + 1 (block numbers are below 2^62: lines are >= 4 bytes),
 * so 0 is an empty way and a new cache is calloc'd memory: its pages are not touched
 * until used (a fresh machine with the cache model cost 15 ms per CPU under ASan when
 * 1.1 MiB of tags were filled at creation). */
#define LINE_EMPTY 0

typedef struct cache_lvl {
    uint32_t sets, ways, line_bits;
    uint32_t set_mask;  /* sets - 1 when sets is a power of two (same result as mod) */
    uint64_t line_mask; /* line size - 1 */
    bool pow2;
    uint64_t *tags; /* sets × ways block numbers + 1 (LINE_EMPTY: none), most recently used first */
} cache_lvl;

struct pmu_cache {
    pmu_cache_last last; /* first member: pmu_cache_access_last reads it */
    cache_lvl lv[3];
};

/* Tag arrays kept by pmu_cache_free for the next pmu_cache_new (pmu_cache_recycle). */
#define PMU_SPARE_TAGS 8
static bool recycle_tags;
static int nspare_tags;
static struct spare_tags {
    uint64_t *tags;
    size_t n;
} spare_tags[PMU_SPARE_TAGS];

void pmu_cache_recycle(bool on) {
    recycle_tags = on;
    while (!on && nspare_tags > 0) free(spare_tags[--nspare_tags].tags);
}

static uint64_t *tags_new(size_t n) {
    for (int i = nspare_tags - 1; i >= 0; i--) {
        if (spare_tags[i].n != n) continue;
        uint64_t *t = spare_tags[i].tags;
        spare_tags[i] = spare_tags[--nspare_tags];
        memset(t, LINE_EMPTY, n * sizeof *t);
        return t;
    }
    return calloc(n, sizeof(uint64_t)); /* every way LINE_EMPTY */
}

static void tags_free(uint64_t *t, size_t n) {
    if (t && recycle_tags && nspare_tags < PMU_SPARE_TAGS) {
        spare_tags[nspare_tags++] = (struct spare_tags){t, n};
        return;
    }
    free(t);
}

void pmu_cache_free(pmu_cache *c) {
    if (!c) return;
    for (int i = 0; i < 3; i++) tags_free(c->lv[i].tags, (size_t)c->lv[i].sets * c->lv[i].ways);
    free(c);
}

pmu_cache *pmu_cache_new(const pmu_cache_params *p) {
    if (pmu_cache_params_check(p) != PMU_OK) return NULL;
    pmu_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    const pmu_cache_level *src[3] = {&p->l1d, &p->l2, &p->llc};
    for (int i = 0; i < 3; i++) {
        cache_lvl *l = &c->lv[i];
        l->ways = src[i]->ways;
        l->sets = src[i]->size / (src[i]->ways * src[i]->line);
        l->pow2 = is_pow2(l->sets);
        l->set_mask = l->sets - 1;
        while ((UINT32_C(1) << l->line_bits) < src[i]->line) l->line_bits++;
        l->line_mask = (UINT64_C(1) << l->line_bits) - 1;
        l->tags = tags_new((size_t)l->sets * l->ways);
        if (!l->tags) {
            pmu_cache_free(c);
            return NULL;
        }
    }
    c->last = (pmu_cache_last){0, 0};
    return c;
}

void pmu_cache_reset(pmu_cache *c) {
    for (int i = 0; i < 3; i++) {
        size_t n = (size_t)c->lv[i].sets * c->lv[i].ways;
        memset(c->lv[i].tags, LINE_EMPTY, n * sizeof *c->lv[i].tags);
    }
    c->last.span = 0;
}

/* Looks one block up in its set; it becomes most recently used.  True on a hit.
 * Ways in use come first, most recently used first (a line enters at way 0
 * and pushes the others down; none is ever emptied but by a reset), so one
 * pass both searches and moves: each way takes the line of the way before it
 * until the block's own way (a hit) or the first empty way (a miss that
 * evicts nothing); past the last way, the least recently used line is gone. */
static inline bool set_ref(uint64_t *s, uint32_t ways, uint64_t tag) {
    uint64_t carry = tag;
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (uint32_t i = 0; i < ways; i++) {
        uint64_t v = s[i];
        s[i] = carry;
        if (v == tag) return true;
        if (v == LINE_EMPTY) return false;
        carry = v;
    }
    return false;
}

static inline bool line_ref(cache_lvl *l, uint64_t block) {
    uint64_t set = l->pow2 ? (block & l->set_mask) : (block % l->sets);
    uint64_t *s = &l->tags[set * l->ways], tag = block + 1;
    switch (l->ways) { /* the usual geometries with a constant count: the scan unrolled */
    case 8: return set_ref(s, 8, tag);
    case 16: return set_ref(s, 16, tag);
    default: return set_ref(s, l->ways, tag);
    }
}

/* One access at one level: every line it touches is looked up, in address
 * order; a hit when every one was there. */
static inline bool level_hit(cache_lvl *l, uint64_t addr, uint32_t size) {
    uint64_t first = addr >> l->line_bits;
    uint64_t extra = ((addr & l->line_mask) + size - 1) >> l->line_bits;
    if (extra == 0) return line_ref(l, first); /* within one line: the common case */
    bool hit = true;
    for (uint64_t k = 0; k <= extra; k++)
        if (!line_ref(l, first + k)) hit = false;
    return hit;
}

int pmu_cache_access(pmu_cache *c, uint64_t addr, uint32_t size, bool write) {
    if (pmu_cache_access_last(c, addr, size)) return 1; /* size 0 too: as 1 */
    return pmu_cache_access_past_last(c, addr, size, write);
}

int pmu_cache_access_past_last(pmu_cache *c, uint64_t addr, uint32_t size, bool write) {
    (void)write; /* write-allocate: a write moves lines exactly as a read does */
    if (size == 0) size = 1;
    /* the access's last line ends most recently used in its L1D set, whatever the outcome */
    uint32_t bits = c->lv[0].line_bits;
    uint64_t line = (addr >> bits) + (((addr & c->lv[0].line_mask) + size - 1) >> bits);
    c->last.base = line << bits;
    c->last.span = line >> (64 - bits) ? 0 : UINT64_C(1) << bits; /* past the top of memory: none */
    if (level_hit(&c->lv[0], addr, size)) return 1;
    if (level_hit(&c->lv[1], addr, size)) return 2;
    return level_hit(&c->lv[2], addr, size) ? 3 : 4;
}

/* ---- describe ------------------------------------------------------------------------- */

static void describe_level(FILE *f, const char *name, const pmu_cache_level *l, const char *served) {
    uint32_t sets = l->size / (l->ways * l->line);
    fprintf(f, "  %-4s %9" PRIu32 " B %3" PRIu32 "-way %4" PRIu32 " B lines %6" PRIu32 " sets  %s\n", name, l->size,
            l->ways, l->line, sets, served);
}

void pmu_describe(FILE *f, const pmu_cost_params *p, const char *label) {
    fprintf(f, "PMU events (%d counters of %d bits; suffix :u user mode (default), :k kernel work, :uk both)\n",
            PMU_MAX_PMC, PMU_PMC_BITS);
    for (int e = 0; e < PMU_EV__COUNT; e++) fprintf(f, "  %-15s %s\n", catalogue[e].name, catalogue[e].desc);

    fprintf(f, "\nCost model: profile %s, table %s\n",
            label        ? label
            : p->profile ? p->profile
                         : "(custom)",
            p->table ? p->table : "(custom)");
    fprintf(f,
            "  user cycles   = sum of class cycles + branch-misses x %" PRIu32 " + accesses served by L2 x %" PRIu32
            " + by LLC x %" PRIu32 " + by memory x %" PRIu32 "\n",
            p->mispredict_cycles, p->l2_hit_cycles, p->llc_hit_cycles, p->mem_cycles);
    fprintf(f, "  kernel cycles = API calls x %" PRIu32 " + clock interrupts x interrupt cycles (machine)\n",
            p->api_call_cycles);
    fprintf(f, "  ref-cycles    = cycles (the core runs at its nominal frequency, the TSC rate)\n");

    fprintf(f, "\nInstruction classes (cycles per retired instruction)\n");
    for (int c = 0; c < PMU_CL__COUNT; c++)
        fprintf(f, "  %-9s %3" PRIu32 "  %s\n", classes[c].name, p->class_cycles[c], classes[c].members);
    fprintf(f, "  precedence: system, string, ret, indirect, call, branch, fp, div, mul, rmw, load, store, mov, alu\n");

    const pmu_bp_params *bp = &p->bp;
    uint32_t ctrs = UINT32_C(1) << bp->index_bits;
    fprintf(f, "\nBranch predictor\n");
    fprintf(f,
            "  conditional  gshare: %" PRIu32 " two-bit counters (T = %" PRIu32
            ") initialised to 1 (weakly not taken), predict taken at >= 2;\n"
            "               index = ((pc >> %" PRIu32 ") xor history) mod %" PRIu32 ", history = last %" PRIu32
            " outcomes (H), bit 0 newest, starts 0\n",
            ctrs, bp->index_bits, bp->pc_shift, ctrs, bp->hist_bits);
    fprintf(f,
            "  ret          return-address stack of %" PRIu32
            " entries; call pushes (when full the oldest is dropped), ret pops;\n"
            "               empty stack or another address: mispredict\n",
            bp->ras_depth);
    fprintf(f,
            "  indirect     BTB of %" PRIu32 " entries, direct-mapped by pc mod %" PRIu32
            ", last target; other pc or other target: mispredict\n",
            bp->btb_entries, bp->btb_entries);
    fprintf(f, "  direct       jmp and call never mispredict\n");
    fprintf(f, "  penalty      %" PRIu32 " cycles per branch-miss\n", p->mispredict_cycles);

    char buf[3][48];
    snprintf(buf[0], sizeof buf[0], "served here: +%" PRIu32 " cycles", p->l2_hit_cycles);
    snprintf(buf[1], sizeof buf[1], "served here: +%" PRIu32 " cycles", p->llc_hit_cycles);
    snprintf(buf[2], sizeof buf[2], "served here: +%" PRIu32 " cycles", p->mem_cycles);
    fprintf(f, "\nData caches (true LRU per set, write-allocate; a level is looked up only on a miss above)\n");
    describe_level(f, "L1D", &p->cache.l1d, "hit: no penalty");
    describe_level(f, "L2", &p->cache.l2, buf[0]);
    describe_level(f, "LLC", &p->cache.llc, buf[1]);
    fprintf(f, "  %-51s%s\n", "memory", buf[2]);
    fprintf(f, "  set = (address / line) mod sets; an access touching two lines is one access, a miss at a level\n"
               "  if either line misses there (both become most recently used)\n");

    fprintf(f, "\nKernel work (kernel mode: cycles and ref-cycles only)\n");
    fprintf(f, "  API call     %" PRIu32 " cycles\n", p->api_call_cycles);
}
