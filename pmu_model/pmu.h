/* pmu_model — performance-monitoring unit and cost model of hcpsim.
 *
 * Owns every counter: the event catalogue, per-thread counter banks, the
 * programmable counters (PMCs) and the cycle cost of retired work.  sim/
 * publishes what retired (a block's statistics); this module turns it into
 * counts.  Pure C17: includes neither Unicorn nor Lua.
 *
 * Cost model status: PROVISIONAL.  One cycle per retired instruction, no
 * penalties.  The documented cost tables (instruction classes, branch
 * predictor, caches, kernel costs) replace it in a later version; every
 * value that depends on it says so in pmu_model/README.md. */
#ifndef HCPSIM_PMU_H
#define HCPSIM_PMU_H

#include <stdint.h>

/* Events a counter can count.  Definitions: pmu_event_description(). */
typedef enum pmu_event { PMU_EV_INSTRUCTIONS = 0, PMU_EV_CYCLES, PMU_EV_BRANCHES, PMU_EV__COUNT } pmu_event;

#define PMU_MAX_PMC 16  /* programmable counters per CPU */
#define PMU_PMC_BITS 48 /* counter width; PMC reads wrap modulo 2^48 */

typedef enum pmu_err { PMU_OK = 0, PMU_ERR_UNKNOWN_EVENT, PMU_ERR_TOO_MANY } pmu_err;

/* What one retired block (or retired prefix of a block) contributes.
 * sim/ fills insns and branches from the decoded block; pmu_block_cost()
 * fills cycles once, when the block is first decoded. */
typedef struct pmu_block_stats {
    uint32_t insns;    /* instructions retired */
    uint32_t branches; /* retired control transfers: jcc (taken or not), jmp, call, ret, ... */
    uint64_t cycles;   /* core cycles charged, from the cost model */
} pmu_block_stats;

/* Per-thread event totals.  Virtualised: sim/ adds to the bank of the thread
 * that retired the work, so a bank only grows while its thread runs. */
typedef struct pmu_bank {
    uint64_t ev[PMU_EV__COUNT];
} pmu_bank;

/* Which event each PMC counts (the machine's `pmc = {...}` list). */
typedef struct pmu_config {
    int npmc;
    pmu_event pmc[PMU_MAX_PMC];
} pmu_config;

/* Fills s->cycles from s->insns (provisional model: 1 cycle per instruction). */
void pmu_block_cost(pmu_block_stats *s);

/* Adds a retired block to a bank (hot path). */
static inline void pmu_bank_retire(pmu_bank *b, const pmu_block_stats *s) {
    b->ev[PMU_EV_INSTRUCTIONS] += s->insns;
    b->ev[PMU_EV_BRANCHES] += s->branches;
    b->ev[PMU_EV_CYCLES] += s->cycles;
}
/* Takes back work that was counted but did not retire (a block stopped part-way). */
void pmu_bank_unretire(pmu_bank *b, const pmu_block_stats *s);

/* Event catalogue.  Names are perf-style ("instructions", "branches"). */
int pmu_event_lookup(const char *name, pmu_event *out); /* 1 found, 0 not */
const char *pmu_event_name(pmu_event e);
const char *pmu_event_description(pmu_event e);

/* Builds a PMC configuration from event names; on PMU_ERR_UNKNOWN_EVENT,
 * *bad is the index of the offending name. */
pmu_err pmu_config_set(pmu_config *c, const char *const *names, int n, int *bad);

/* Value of PMC `idx` for a bank, modulo 2^PMU_PMC_BITS; 0 for a PMC that
 * counts no event (idx >= npmc). */
uint64_t pmu_pmc_read(const pmu_config *c, const pmu_bank *b, uint64_t idx);

/* Cycles of one instruction in the provisional model (for documentation and tests). */
#define PMU_PROVISIONAL_CYCLES_PER_INSN 1u

#endif
