/* pmu_model/tests/cost_test.c — instruction classes, block statistics and
 * their price under the default and unit tables, platform profiles,
 * parameter validation, and `describe`. */
#include "conformance/tap.h"
#include "pmu_model/pmu.h"

/* Reads a whole temporary file into buf (NUL-terminated); returns its length. */
static size_t slurp(FILE *f, char *buf, size_t cap) {
    rewind(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    return n;
}

int main(void) {
    tap_clause("SIM-PMU-CLASS");
    /* The facts sim/ decodes, and the class the precedence rule gives. */
    static const struct {
        const char *insn;
        unsigned facts;
        pmu_class cls;
    } cases[] = {
        {"add rax, rbx", 0, PMU_CL_ALU},
        {"mov rax, rbx", PMU_I_MOVE, PMU_CL_MOV},
        {"lea rax, [rbx+8]", PMU_I_MOVE, PMU_CL_MOV},
        {"mov rax, [rbx]", PMU_I_MOVE | PMU_I_LOAD, PMU_CL_LOAD},
        {"add rax, [rbx]", PMU_I_LOAD, PMU_CL_LOAD},
        {"pop rax", PMU_I_LOAD, PMU_CL_LOAD},
        {"mov [rbx], rax", PMU_I_MOVE | PMU_I_STORE, PMU_CL_STORE},
        {"push rax", PMU_I_STORE, PMU_CL_STORE},
        {"add [rbx], rax", PMU_I_LOAD | PMU_I_STORE, PMU_CL_RMW},
        {"push [rbx]", PMU_I_LOAD | PMU_I_STORE, PMU_CL_RMW},
        {"imul rax, [rbx]", PMU_I_MUL | PMU_I_LOAD, PMU_CL_MUL},
        {"div rcx", PMU_I_DIV, PMU_CL_DIV},
        {"jnz", PMU_I_BRANCH | PMU_I_COND, PMU_CL_BRANCH},
        {"loop", PMU_I_COND, PMU_CL_BRANCH},
        {"jmp rel32", PMU_I_BRANCH, PMU_CL_BRANCH},
        {"call rel32", PMU_I_BRANCH | PMU_I_CALL | PMU_I_STORE, PMU_CL_CALL},
        {"call rax", PMU_I_BRANCH | PMU_I_CALL | PMU_I_INDIRECT | PMU_I_STORE, PMU_CL_INDIRECT},
        {"jmp [rax]", PMU_I_BRANCH | PMU_I_INDIRECT | PMU_I_LOAD, PMU_CL_INDIRECT},
        {"ret", PMU_I_BRANCH | PMU_I_RET | PMU_I_LOAD, PMU_CL_RET},
        {"rep movsb", PMU_I_STRING | PMU_I_LOAD | PMU_I_STORE, PMU_CL_STRING},
        {"addsd xmm0, [rax]", PMU_I_FP | PMU_I_LOAD, PMU_CL_FP},
        {"divsd xmm0, xmm1", PMU_I_FP | PMU_I_DIV, PMU_CL_FP},
        {"syscall", PMU_I_BRANCH | PMU_I_SYSTEM, PMU_CL_SYSTEM},
        {"lock xadd [rax], rbx", PMU_I_SYSTEM | PMU_I_LOAD | PMU_I_STORE, PMU_CL_SYSTEM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        is_str(pmu_class_name(pmu_classify(cases[i].facts)), pmu_class_name(cases[i].cls), "%s is class %s",
               cases[i].insn, pmu_class_name(cases[i].cls));
    is_str(pmu_class_name(PMU_CL__COUNT), "?", "an out-of-range class has no name");

    tap_clause("SIM-PMU-BLOCK");
    /* A hand-made loop body:
     *   mov rax, rcx        MOV    1 / unit 1
     *   add rax, [rdx]      LOAD   2        1   load
     *   imul rax, rax       MUL    3        1
     *   mov [r8], rax       STORE  1        1   store
     *   div r9              DIV   25        1
     *   inc qword [r8]      RMW    3        1   load + store
     *   dec rcx             ALU    1        1
     *   jnz .loop           BRANCH 1        1   branch, conditional
     * default = 1+2+3+1+25+3+1+1 = 37 cycles; unit = 8 = instructions. */
    static const unsigned body[] = {PMU_I_MOVE, PMU_I_LOAD,
                                    PMU_I_MUL,  PMU_I_MOVE | PMU_I_STORE,
                                    PMU_I_DIV,  PMU_I_LOAD | PMU_I_STORE,
                                    0,          PMU_I_BRANCH | PMU_I_COND};
    pmu_block_stats st;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < sizeof body / sizeof body[0]; i++) pmu_block_add_insn(&st, pmu_classify(body[i]), body[i]);
    is_u64(st.insns, 8, "8 instructions");
    is_u64(st.branches, 1, "1 branch");
    is_u64(st.cond, 1, "1 conditional branch");
    is_u64(st.loads, 2, "2 loads (add r,[m]; inc [m])");
    is_u64(st.stores, 2, "2 stores (mov [m],r; inc [m])");
    is_u64(st.ncls[PMU_CL_RMW], 1, "1 read-modify-write");
    pmu_cost_params def, unit;
    is_u64(pmu_cost_defaults(&def, "modern-ooo"), PMU_OK, "modern-ooo defaults");
    is_u64(pmu_cost_defaults(&unit, "unit"), PMU_OK, "unit table");
    is_u64(pmu_block_cycles(&st, &def), 37, "default table: 37 cycles");
    is_u64(st.cycles, 37, "... stored in the block");
    is_u64(pmu_block_cycles(&st, &unit), 8, "unit table: cycles = instructions");

    /* A prefix of the first 3 instructions (MOV, LOAD, MUL: 6 cycles); the
     * suffix is the other 5 (31 cycles, 1 load, 2 stores, 1 branch). */
    pmu_block_stats pre;
    memset(&pre, 0, sizeof pre);
    for (size_t i = 0; i < 3; i++) pmu_block_add_insn(&pre, pmu_classify(body[i]), body[i]);
    is_u64(pmu_block_cycles(&pre, &def), 6, "prefix: 6 cycles");
    pmu_block_cycles(&st, &def);
    pmu_block_stats suf = pmu_block_sub(&st, &pre);
    is_u64(suf.insns, 5, "suffix: 5 instructions");
    is_u64(suf.cycles, 31, "suffix: 31 cycles");
    is_u64(suf.loads, 1, "suffix: 1 load");
    is_u64(suf.stores, 2, "suffix: 2 stores");
    is_u64(suf.branches, 1, "suffix: 1 branch");
    is_u64(suf.ncls[PMU_CL_DIV], 1, "suffix: the div");
    is_u64(suf.ncls[PMU_CL_MUL], 0, "suffix: no mul");

    /* Instructions added without a class are priced as SYSTEM (25). */
    pmu_block_stats odd;
    memset(&odd, 0, sizeof odd);
    odd.insns = 2;
    odd.ncls[PMU_CL_ALU] = 1;
    is_u64(pmu_block_cycles(&odd, &def), 26, "one ALU + one unclassified = 1 + 25");
    pmu_block_add_insn(&odd, PMU_CL__COUNT, PMU_I_COND);
    is_u64(odd.branches, 1, "COND counts as a branch too");
    is_u64(odd.insns, 3, "an out-of-range class still counts the instruction");

    tap_clause("SIM-PMU-COST-TABLES");
    is_u64(def.class_cycles[PMU_CL_ALU], 1, "default ALU 1");
    is_u64(def.class_cycles[PMU_CL_MUL], 3, "default MUL 3");
    is_u64(def.class_cycles[PMU_CL_DIV], 25, "default DIV 25");
    is_u64(def.mispredict_cycles, 15, "default mispredict 15");
    is_u64(def.l2_hit_cycles, 10, "default L2 hit 10");
    is_u64(def.llc_hit_cycles, 40, "default LLC hit 40");
    is_u64(def.mem_cycles, 200, "default memory 200");
    is_u64(def.api_call_cycles, 1500, "default API call 1500");
    is_u64(def.bp.hist_bits, 12, "default H 12");
    is_u64(def.bp.index_bits, 12, "default T 12");
    is_u64(def.bp.ras_depth, 16, "default RAS 16");
    is_u64(def.bp.btb_entries, 512, "default BTB 512");
    is_u64(def.cache.l1d.size, 32768, "default L1D 32 KiB");
    is_u64(def.cache.l2.size, 1048576, "default L2 1 MiB");
    is_u64(def.cache.llc.size, 8388608, "default LLC 8 MiB");
    is_str(def.profile, "modern-ooo", "profile name recorded");
    is_str(def.table, "default", "table name recorded");
    uint64_t sum = 0;
    for (int i = 0; i < PMU_CL__COUNT; i++) sum += unit.class_cycles[i];
    is_u64(sum, PMU_CL__COUNT, "unit: every class costs 1");
    is_u64(unit.mispredict_cycles + unit.l2_hit_cycles + unit.llc_hit_cycles + unit.mem_cycles + unit.api_call_cycles,
           0, "unit: no penalties, no API-call cost");
    is_str(unit.profile, "modern-ooo", "unit keeps the default profile's (modern-ooo) geometry");
    is_u64(unit.cache.l1d.size, 32768, "... L1D 32 KiB");
    for (int i = 0; pmu_cost_profile_name(i); i++) {
        pmu_cost_params q;
        is_u64(pmu_cost_defaults(&q, pmu_cost_profile_name(i)), PMU_OK, "profile %s exists", pmu_cost_profile_name(i));
        is_u64(pmu_cost_check(&q), PMU_OK, "profile %s has valid geometry", pmu_cost_profile_name(i));
        is_str(q.profile, pmu_cost_profile_name(i), "profile %s is recorded", pmu_cost_profile_name(i));
    }
    is_str(pmu_cost_profile_name(0), "modern-ooo", "one profile, modern-ooo ...");
    is_str(PMU_COST_PROFILE_DEFAULT, "modern-ooo", "... the default");
    ok(pmu_cost_profile_name(1) == NULL && pmu_cost_profile_name(-1) == NULL, "no second profile");
    pmu_cost_params q = def;
    is_u64(pmu_cost_defaults(&q, "win95"), PMU_ERR_UNKNOWN_PROFILE, "an unknown profile is refused");
    is_str(q.profile, "modern-ooo", "... and leaves the parameters");
    is_u64(pmu_cost_defaults(&q, "win7-x86"), PMU_ERR_UNKNOWN_PROFILE, "a platform's name is no cost profile");
    is_u64(pmu_cost_defaults(&q, "win10-x64"), PMU_ERR_UNKNOWN_PROFILE, "... not even the default platform's");
    q.bp.ras_depth = 4;
    is_u64(pmu_cost_table(&q, "unit"), PMU_OK, "switch to unit");
    is_u64(q.class_cycles[PMU_CL_DIV], 1, "unit: DIV 1");
    is_u64(q.bp.ras_depth, 4, "tables keep the geometry");
    is_u64(pmu_cost_table(&q, "default"), PMU_OK, "back to the profile's default table");
    is_u64(q.class_cycles[PMU_CL_DIV], 25, "default: DIV 25");
    is_u64(q.api_call_cycles, 1500, "default: API call 1500");
    is_u64(q.bp.ras_depth, 4, "... geometry still kept");
    is_u64(pmu_cost_table(&q, "fast"), PMU_ERR_UNKNOWN_PROFILE, "an unknown table is refused");
    q.profile = NULL;
    is_u64(pmu_cost_table(&q, "default"), PMU_ERR_UNKNOWN_PROFILE, "default needs a known profile");

    tap_clause("SIM-PMU-PARAMS");
    pmu_bp_params bp = def.bp;
    is_u64(pmu_bp_params_check(&bp), PMU_OK, "default predictor is valid");
    bp.hist_bits = 13;
    is_u64(pmu_bp_params_check(&bp), PMU_ERR_BAD_PARAM, "H > T is refused");
    bp = def.bp;
    bp.index_bits = 0;
    is_u64(pmu_bp_params_check(&bp), PMU_ERR_BAD_PARAM, "T = 0 is refused");
    bp.index_bits = 25;
    is_u64(pmu_bp_params_check(&bp), PMU_ERR_BAD_PARAM, "T = 25 is refused");
    bp = def.bp;
    bp.pc_shift = 64;
    is_u64(pmu_bp_params_check(&bp), PMU_ERR_BAD_PARAM, "shift 64 is refused");
    bp = def.bp;
    bp.ras_depth = 0;
    bp.btb_entries = 0;
    is_u64(pmu_bp_params_check(&bp), PMU_OK, "no RAS and no BTB are allowed");
    ok(pmu_bp_new(&(pmu_bp_params){13, 12, 0, 16, 512}) == NULL, "pmu_bp_new refuses invalid parameters");
    pmu_bp_free(NULL);
    pmu_cache_free(NULL);
    ok(1, "freeing NULL is a no-op");
    pmu_cache_params cp = def.cache;
    is_u64(pmu_cache_params_check(&cp), PMU_OK, "default caches are valid");
    cp.l1d.line = 48;
    is_u64(pmu_cache_params_check(&cp), PMU_ERR_BAD_PARAM, "a 48-byte line is refused");
    cp = def.cache;
    cp.l2.size = 1000000;
    is_u64(pmu_cache_params_check(&cp), PMU_ERR_BAD_PARAM, "a size that is no whole number of sets is refused");
    cp = def.cache;
    cp.llc.ways = 0;
    is_u64(pmu_cache_params_check(&cp), PMU_ERR_BAD_PARAM, "0 ways is refused");
    cp = def.cache;
    cp.l1d.size = 256; /* 8 ways x 64 B = 512 B per set */
    is_u64(pmu_cache_params_check(&cp), PMU_ERR_BAD_PARAM, "less than one set is refused");
    cp = def.cache;
    cp.llc.size = 12u * 1024 * 1024; /* 12288 sets: not a power of two, accepted */
    is_u64(pmu_cache_params_check(&cp), PMU_OK, "12 MiB 16-way LLC (12288 sets) is accepted");
    ok(pmu_cache_new(&(pmu_cache_params){{100, 1, 64}, {4096, 1, 64}, {4096, 1, 64}}) == NULL,
       "pmu_cache_new refuses invalid parameters");
    q = def;
    q.cache.l1d.ways = 300;
    is_u64(pmu_cost_check(&q), PMU_ERR_BAD_PARAM, "pmu_cost_check sees a bad cache");
    q = def;
    q.bp.index_bits = 30;
    is_u64(pmu_cost_check(&q), PMU_ERR_BAD_PARAM, "pmu_cost_check sees a bad predictor");

    tap_clause("SIM-PMU-DESCRIBE");
    static char out1[16384], out2[16384];
    FILE *f = tmpfile();
    if (!f) bail("tmpfile failed");
    pmu_describe(f, &def, NULL);
    size_t n1 = slurp(f, out1, sizeof out1);
    fclose(f);
    f = tmpfile();
    if (!f) bail("tmpfile failed");
    pmu_describe(f, &def, NULL);
    size_t n2 = slurp(f, out2, sizeof out2);
    fclose(f);
    ok(n1 > 2000 && n1 < sizeof out1 - 1, "describe prints %zu bytes", n1);
    ok(n1 == n2 && memcmp(out1, out2, n1) == 0, "describe is deterministic");
    for (int i = 0; i < PMU_EV__COUNT; i++) {
        char line[64];
        snprintf(line, sizeof line, "\n  %-15s ", pmu_event_name((pmu_event)i));
        ok(strstr(out1, line) != NULL, "describe lists %s", pmu_event_name((pmu_event)i));
    }
    for (int i = 0; i < PMU_CL__COUNT; i++) {
        char line[64];
        snprintf(line, sizeof line, "\n  %-9s %3u  ", pmu_class_name((pmu_class)i), (unsigned)def.class_cycles[i]);
        ok(strstr(out1, line) != NULL, "describe prices class %s", pmu_class_name((pmu_class)i));
    }
    ok(strstr(out1, "gshare: 4096 two-bit counters (T = 12)") != NULL, "describe gives the gshare geometry");
    ok(strstr(out1, "return-address stack of 16 entries") != NULL, "describe gives the RAS depth");
    ok(strstr(out1, "BTB of 512 entries") != NULL, "describe gives the BTB size");
    ok(strstr(out1, "  L1D      32768 B   8-way   64 B lines     64 sets") != NULL, "describe gives L1D");
    ok(strstr(out1, "  LLC    8388608 B  16-way   64 B lines   8192 sets  served here: +40 cycles") != NULL,
       "describe gives the LLC and its penalty");
    ok(strstr(out1, "API call     1500 cycles") != NULL, "describe gives the API-call cost");
    ok(strstr(out1, "branch-misses x 15") != NULL, "describe gives the formula");
    ok(strstr(out1, "\nCost model: profile modern-ooo, table default\n") != NULL,
       "describe names the cost profile without a label");
    f = tmpfile();
    if (!f) bail("tmpfile failed");
    pmu_describe(f, &unit, "win7-x86");
    slurp(f, out2, sizeof out2);
    fclose(f);
    ok(strstr(out2, "\nCost model: profile win7-x86, table unit\n") != NULL,
       "describe names the label and the unit table");
    ok(strstr(out2, "\n  div         1  ") != NULL, "unit: div costs 1");
    return tap_done();
}
