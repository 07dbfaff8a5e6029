/* pmu_model/tests/pmu_test.c — event catalogue, suffix parsing, PMC
 * programming and reads (user, kernel, both; 48-bit wrap), banks: retire,
 * unretire, branch-miss, memory-level and kernel helpers. */
#include "conformance/tap.h"
#include "pmu_model/pmu.h"

static const char *const all_names[PMU_EV__COUNT] = {
    "instructions", "cycles", "branches",   "ref-cycles", "cond-branches",  "branch-misses",
    "loads",        "stores", "l1d-misses", "l2-misses",  "llc-references", "llc-misses",
};

int main(void) {
    tap_clause("SIM-PMU-CATALOGUE");
    pmu_event e;
    ok(pmu_event_lookup("instructions", &e) && e == PMU_EV_INSTRUCTIONS, "instructions is an event");
    ok(pmu_event_lookup("branches", &e) && e == PMU_EV_BRANCHES, "branches is an event");
    ok(pmu_event_lookup("cycles", &e) && e == PMU_EV_CYCLES, "cycles is an event");
    ok(!pmu_event_lookup("Instructions", &e), "names are case-sensitive");
    ok(!pmu_event_lookup("", &e), "the empty name is no event");
    ok(!pmu_event_lookup("cycles:k", &e), "pmu_event_lookup takes bare names only");
    is_u64(PMU_EV__COUNT, 12, "twelve events");
    for (int i = 0; i < PMU_EV__COUNT; i++) {
        pmu_event back;
        is_str(pmu_event_name((pmu_event)i), all_names[i], "event %d is named %s", i, all_names[i]);
        ok(pmu_event_lookup(all_names[i], &back) && back == (pmu_event)i, "%s looks up to event %d", all_names[i], i);
        ok(strlen(pmu_event_description((pmu_event)i)) > 40, "%s has a definition", all_names[i]);
    }
    is_str(pmu_event_name(PMU_EV__COUNT), "?", "an out-of-range event has no name");

    tap_clause("SIM-PMU-MODIFIER");
    static const struct {
        const char *spec;
        pmu_err err;
        pmu_event ev;
        pmu_mode mode;
    } specs[] = {
        {"cycles", PMU_OK, PMU_EV_CYCLES, PMU_MODE_USER},
        {"cycles:u", PMU_OK, PMU_EV_CYCLES, PMU_MODE_USER},
        {"cycles:k", PMU_OK, PMU_EV_CYCLES, PMU_MODE_KERNEL},
        {"cycles:uk", PMU_OK, PMU_EV_CYCLES, PMU_MODE_BOTH},
        {"ref-cycles:ku", PMU_OK, PMU_EV_REF_CYCLES, PMU_MODE_BOTH},
        {"llc-misses:k", PMU_OK, PMU_EV_LLC_MISSES, PMU_MODE_KERNEL},
        {"cycles:", PMU_ERR_BAD_MODIFIER, PMU_EV_INSTRUCTIONS, PMU_MODE_USER},
        {"cycles:x", PMU_ERR_BAD_MODIFIER, PMU_EV_INSTRUCTIONS, PMU_MODE_USER},
        {"cycles:uu", PMU_ERR_BAD_MODIFIER, PMU_EV_INSTRUCTIONS, PMU_MODE_USER},
        {"cycles:K", PMU_ERR_BAD_MODIFIER, PMU_EV_INSTRUCTIONS, PMU_MODE_USER},
        {"cycles:u:k", PMU_ERR_BAD_MODIFIER, PMU_EV_INSTRUCTIONS, PMU_MODE_USER},
        {"cycle:k", PMU_ERR_UNKNOWN_EVENT, PMU_EV_INSTRUCTIONS, PMU_MODE_USER},
        {":k", PMU_ERR_UNKNOWN_EVENT, PMU_EV_INSTRUCTIONS, PMU_MODE_USER},
        {"cache-misses", PMU_ERR_UNKNOWN_EVENT, PMU_EV_INSTRUCTIONS, PMU_MODE_USER},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        pmu_event ev = PMU_EV__COUNT;
        pmu_mode mode = PMU_MODE__COUNT;
        pmu_err err = pmu_event_parse(specs[i].spec, &ev, &mode);
        is_u64(err, specs[i].err, "'%s' parses to %s", specs[i].spec, pmu_strerror(specs[i].err));
        if (specs[i].err == PMU_OK) {
            is_u64(ev, specs[i].ev, "'%s' names %s", specs[i].spec, pmu_event_name(specs[i].ev));
            is_str(pmu_mode_name(mode), pmu_mode_name(specs[i].mode), "'%s' counts mode %s", specs[i].spec,
                   pmu_mode_name(specs[i].mode));
        } else {
            ok(ev == PMU_EV__COUNT && mode == PMU_MODE__COUNT, "'%s' leaves the outputs alone", specs[i].spec);
        }
    }

    tap_clause("SIM-PMU-PMC");
    pmu_config c;
    memset(&c, 0, sizeof c);
    const char *names[] = {"branches", "instructions"};
    int bad = -1;
    is_u64(pmu_config_set(&c, names, 2, &bad), PMU_OK, "two events program two PMCs");
    is_u64((uint64_t)c.npmc, 2, "npmc = 2");
    const char *wrong[] = {"cycles", "cache-misses"};
    is_u64(pmu_config_set(&c, wrong, 2, &bad), PMU_ERR_UNKNOWN_EVENT, "an unknown event is refused");
    is_u64((uint64_t)bad, 1, "the bad name's index is reported");
    is_u64((uint64_t)c.npmc, 2, "a refused configuration leaves the old one");
    const char *badmod[] = {"cycles:k", "loads", "stores:q"};
    is_u64(pmu_config_set(&c, badmod, 3, &bad), PMU_ERR_BAD_MODIFIER, "a bad suffix is refused");
    is_u64((uint64_t)bad, 2, "the bad suffix's index is reported");
    is_u64(c.pmc[0], PMU_EV_BRANCHES, "... and the old configuration stays");
    const char *many[PMU_MAX_PMC + 1];
    for (int i = 0; i <= PMU_MAX_PMC; i++) many[i] = "cycles";
    is_u64(pmu_config_set(&c, many, PMU_MAX_PMC + 1, &bad), PMU_ERR_TOO_MANY, "17 PMCs are too many");
    is_u64((uint64_t)bad, PMU_MAX_PMC, "... *bad = PMU_MAX_PMC");
    is_u64(pmu_config_set(&c, many, PMU_MAX_PMC, &bad), PMU_OK, "16 PMCs are fine");

    pmu_bank b;
    memset(&b, 0, sizeof b);
    is_u64(pmu_config_set(&c, names, 2, &bad), PMU_OK, "branches, instructions");
    b.ev[PMU_EV_INSTRUCTIONS] = 1234;
    b.ev[PMU_EV_BRANCHES] = (UINT64_C(1) << 48) + 5;
    is_u64(pmu_pmc_read(&c, &b, 0), 5, "PMC0 (branches) wraps modulo 2^48");
    is_u64(pmu_pmc_read(&c, &b, 1), 1234, "PMC1 reads instructions");
    is_u64(pmu_pmc_read(&c, &b, 2), 0, "a PMC with no event reads 0");
    is_u64(pmu_pmc_read(&c, &b, UINT64_C(1) << 40), 0, "a huge PMC index reads 0");

    tap_clause("SIM-PMU-PMC-MODE");
    /* user cycles 2^48 - 10, kernel cycles 25: u reads 2^48 - 10, k reads 25,
     * uk reads (2^48 - 10 + 25) mod 2^48 = 15.  Kernel instructions are never
     * modelled, so instructions:k reads 0 and instructions:uk = instructions. */
    const char *modes[] = {"cycles", "cycles:k", "cycles:uk", "instructions:k", "instructions:uk", "ref-cycles:ku"};
    is_u64(pmu_config_set(&c, modes, 6, &bad), PMU_OK, "six PMCs with modes");
    is_u64(c.mode[0], PMU_MODE_USER, "no suffix: user");
    is_u64(c.mode[1], PMU_MODE_KERNEL, ":k: kernel");
    is_u64(c.mode[2], PMU_MODE_BOTH, ":uk: both");
    memset(&b, 0, sizeof b);
    b.ev[PMU_EV_CYCLES] = (UINT64_C(1) << 48) - 10;
    b.ev[PMU_EV_REF_CYCLES] = (UINT64_C(1) << 48) - 10;
    b.ev[PMU_EV_INSTRUCTIONS] = 77;
    is_u64(pmu_bank_kernel(&b, 25), 25, "kernel work returns the cycles it charged");
    is_u64(pmu_pmc_read(&c, &b, 0), (UINT64_C(1) << 48) - 10, "cycles:u = user cycles");
    is_u64(pmu_pmc_read(&c, &b, 1), 25, "cycles:k = kernel cycles");
    is_u64(pmu_pmc_read(&c, &b, 2), 15, "cycles:uk = sum modulo 2^48");
    is_u64(pmu_pmc_read(&c, &b, 3), 0, "instructions:k = 0 (no kernel instructions modelled)");
    is_u64(pmu_pmc_read(&c, &b, 4), 77, "instructions:uk = user instructions");
    is_u64(pmu_pmc_read(&c, &b, 5), 15, "ref-cycles:ku follows cycles");
    is_u64(pmu_bank_interrupt(&b, 2000), 2000, "an interrupt returns its cycles");
    is_u64(b.kev[PMU_EV_CYCLES], 2025, "interrupt cycles are kernel cycles");
    is_u64(b.kev[PMU_EV_REF_CYCLES], 2025, "... and kernel ref-cycles");
    is_u64(b.intr_cycles, 2000, "... and are totalled apart");
    is_u64(b.ev[PMU_EV_CYCLES], (UINT64_C(1) << 48) - 10, "kernel work leaves user cycles alone");
    pmu_config z;
    memset(&z, 0, sizeof z);
    z.npmc = 1;
    z.pmc[0] = PMU_EV_CYCLES;
    is_u64(pmu_pmc_read(&z, &b, 0), (UINT64_C(1) << 48) - 10, "a zeroed mode counts user mode");

    tap_clause("SIM-PMU-BANK");
    /* A block of 7 instructions (2 branches, 1 conditional, 3 loads, 1 store)
     * priced at 11 cycles; retired twice, unretired once. */
    pmu_block_stats s;
    memset(&s, 0, sizeof s);
    s.insns = 7, s.branches = 2, s.cycles = 11, s.cond = 1, s.loads = 3, s.stores = 1;
    memset(&b, 0, sizeof b);
    pmu_bank_retire(&b, &s);
    pmu_bank_retire(&b, &s);
    is_u64(b.ev[PMU_EV_INSTRUCTIONS], 14, "retire adds instructions");
    is_u64(b.ev[PMU_EV_BRANCHES], 4, "retire adds branches");
    is_u64(b.ev[PMU_EV_CYCLES], 22, "retire adds cycles");
    is_u64(b.ev[PMU_EV_REF_CYCLES], 22, "retire adds ref-cycles = cycles");
    is_u64(b.ev[PMU_EV_COND_BRANCHES], 2, "retire adds conditional branches");
    is_u64(b.ev[PMU_EV_LOADS], 6, "retire adds loads");
    is_u64(b.ev[PMU_EV_STORES], 2, "retire adds stores");
    pmu_bank_unretire(&b, &s);
    is_u64(b.ev[PMU_EV_INSTRUCTIONS], 7, "unretire takes back instructions");
    is_u64(b.ev[PMU_EV_REF_CYCLES], 11, "unretire takes back ref-cycles");
    is_u64(b.ev[PMU_EV_LOADS], 3, "unretire takes back loads");

    pmu_cost_params p;
    is_u64(pmu_cost_defaults(&p, PMU_COST_PROFILE_DEFAULT), PMU_OK, "the default profile's defaults");
    memset(&b, 0, sizeof b);
    is_u64(pmu_bank_branch_miss(&b, &p), 15, "a mispredict costs 15 cycles");
    is_u64(b.ev[PMU_EV_BRANCH_MISSES], 1, "... and counts a branch-miss");
    is_u64(b.ev[PMU_EV_REF_CYCLES], 15, "... and ref-cycles");
    /* One access per level: L1D hit 0, L2 10, LLC 40, memory 200 = 250 cycles;
     * l1d-misses 3 (levels 2-4), l2-misses = llc-references 2 (3-4), llc-misses 1. */
    memset(&b, 0, sizeof b);
    uint64_t cy = 0;
    for (int level = 1; level <= 4; level++) cy += pmu_bank_mem(&b, level, &p);
    is_u64(cy, 250, "penalties 0 + 10 + 40 + 200");
    is_u64(b.ev[PMU_EV_CYCLES], 250, "... added to cycles");
    is_u64(b.ev[PMU_EV_L1D_MISSES], 3, "l1d-misses: levels 2, 3, 4");
    is_u64(b.ev[PMU_EV_L2_MISSES], 2, "l2-misses: levels 3, 4");
    is_u64(b.ev[PMU_EV_LLC_REFERENCES], 2, "llc-references = l2-misses");
    is_u64(b.ev[PMU_EV_LLC_MISSES], 1, "llc-misses: level 4");
    is_u64(pmu_bank_mem(&b, 0, &p) + pmu_bank_mem(&b, 5, &p), 0, "levels outside 1..4 count nothing");
    is_u64(b.ev[PMU_EV_L1D_MISSES], 3, "... not even a miss");

    tap_clause("SIM-PMU-ERRORS");
    for (int i = PMU_OK; i <= PMU_ERR_NOMEM; i++)
        ok(strstr(pmu_strerror((pmu_err)i), "PMU_") != NULL, "error %d has a text naming its code", i);
    return tap_done();
}
