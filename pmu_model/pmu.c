/* pmu_model/pmu.c — event catalogue, counter banks, PMC reads, cost model. */
#include "pmu_model/pmu.h"

#include <string.h>

static const struct {
    const char *name;
    const char *desc;
} catalogue[PMU_EV__COUNT] = {
    [PMU_EV_INSTRUCTIONS] = {"instructions",
                             "user-mode guest instructions retired (a faulting instruction does not retire; "
                             "int3 does)"},
    [PMU_EV_CYCLES] = {"cycles", "core cycles of retired user-mode guest work (provisional model: "
                                 "1 cycle per instruction)"},
    [PMU_EV_BRANCHES] = {"branches", "retired control transfers: conditional jumps taken or not, jmp, "
                                     "call, ret, loop/jrcxz, int/syscall/iret"},
};

void pmu_block_cost(pmu_block_stats *s) { s->cycles = (uint64_t)s->insns * PMU_PROVISIONAL_CYCLES_PER_INSN; }

void pmu_bank_unretire(pmu_bank *b, const pmu_block_stats *s) {
    b->ev[PMU_EV_INSTRUCTIONS] -= s->insns;
    b->ev[PMU_EV_BRANCHES] -= s->branches;
    b->ev[PMU_EV_CYCLES] -= s->cycles;
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

pmu_err pmu_config_set(pmu_config *c, const char *const *names, int n, int *bad) {
    if (n > PMU_MAX_PMC) {
        *bad = PMU_MAX_PMC;
        return PMU_ERR_TOO_MANY;
    }
    pmu_config tmp = {0};
    for (int i = 0; i < n; i++) {
        if (!pmu_event_lookup(names[i], &tmp.pmc[i])) {
            *bad = i;
            return PMU_ERR_UNKNOWN_EVENT;
        }
    }
    tmp.npmc = n;
    *c = tmp;
    return PMU_OK;
}

uint64_t pmu_pmc_read(const pmu_config *c, const pmu_bank *b, uint64_t idx) {
    if (idx >= (uint64_t)c->npmc) return 0;
    return b->ev[c->pmc[idx]] & ((UINT64_C(1) << PMU_PMC_BITS) - 1);
}
