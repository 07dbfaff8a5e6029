/* pmu_model/tests/pmu_test.c — event catalogue, PMC programming and reads,
 * the provisional cost model, retire/unretire. */
#include "conformance/tap.h"
#include "pmu_model/pmu.h"

int main(void) {
    tap_clause("PMU-CATALOGUE");
    pmu_event e;
    ok(pmu_event_lookup("instructions", &e) && e == PMU_EV_INSTRUCTIONS, "instructions is an event");
    ok(pmu_event_lookup("branches", &e) && e == PMU_EV_BRANCHES, "branches is an event");
    ok(pmu_event_lookup("cycles", &e) && e == PMU_EV_CYCLES, "cycles is an event");
    ok(!pmu_event_lookup("Instructions", &e), "names are case-sensitive");
    ok(!pmu_event_lookup("", &e), "the empty name is no event");
    for (int i = 0; i < PMU_EV__COUNT; i++) {
        pmu_event back;
        ok(pmu_event_lookup(pmu_event_name((pmu_event)i), &back) && back == (pmu_event)i,
           "name of event %d looks up to itself", i);
        ok(strlen(pmu_event_description((pmu_event)i)) > 20, "event %d has a definition", i);
    }

    tap_clause("PMU-PMC");
    pmu_config c = {0};
    const char *names[] = {"branches", "instructions"};
    int bad = -1;
    is_u64(pmu_config_set(&c, names, 2, &bad), PMU_OK, "two events program two PMCs");
    is_u64((uint64_t)c.npmc, 2, "npmc = 2");
    const char *wrong[] = {"cycles", "cache-misses"};
    is_u64(pmu_config_set(&c, wrong, 2, &bad), PMU_ERR_UNKNOWN_EVENT, "an unknown event is refused");
    is_u64((uint64_t)bad, 1, "the bad name's index is reported");
    is_u64((uint64_t)c.npmc, 2, "a refused configuration leaves the old one");
    const char *many[PMU_MAX_PMC + 1];
    for (int i = 0; i <= PMU_MAX_PMC; i++) many[i] = "cycles";
    is_u64(pmu_config_set(&c, many, PMU_MAX_PMC + 1, &bad), PMU_ERR_TOO_MANY, "17 PMCs are too many");

    pmu_bank b = {{0}};
    b.ev[PMU_EV_INSTRUCTIONS] = 1234;
    b.ev[PMU_EV_BRANCHES] = (UINT64_C(1) << 48) + 5;
    is_u64(pmu_pmc_read(&c, &b, 0), 5, "PMC0 (branches) wraps modulo 2^48");
    is_u64(pmu_pmc_read(&c, &b, 1), 1234, "PMC1 reads instructions");
    is_u64(pmu_pmc_read(&c, &b, 2), 0, "a PMC with no event reads 0");
    is_u64(pmu_pmc_read(&c, &b, UINT64_C(1) << 40), 0, "a huge PMC index reads 0");

    tap_clause("PMU-COST-PROVISIONAL");
    pmu_block_stats s = {7, 2, 0};
    pmu_block_cost(&s);
    is_u64(s.cycles, 7, "provisional model: one cycle per instruction");
    pmu_bank z = {{0}};
    pmu_bank_retire(&z, &s);
    pmu_bank_retire(&z, &s);
    is_u64(z.ev[PMU_EV_INSTRUCTIONS], 14, "retire adds instructions");
    is_u64(z.ev[PMU_EV_BRANCHES], 4, "retire adds branches");
    is_u64(z.ev[PMU_EV_CYCLES], 14, "retire adds cycles");
    pmu_bank_unretire(&z, &s);
    is_u64(z.ev[PMU_EV_INSTRUCTIONS], 7, "unretire takes back");
    return tap_done();
}
