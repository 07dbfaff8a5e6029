/* pmu_model/tests/bp_test.c — the branch predictor: gshare on a loop branch
 * and an alternating branch (defaults and a short history), the
 * return-address stack under deep recursion, the BTB.  Every expected count
 * is derived by hand in the comments. */
#include <string.h>

#include "conformance/tap.h"
#include "pmu_model/pmu.h"

/* Runs `passes` passes of a loop branch at pc taken 9 times then not taken
 * once; stores the mispredicts of each pass. */
static void loop_passes(pmu_bp *bp, uint64_t pc, int passes, int *miss) {
    for (int p = 0; p < passes; p++) {
        miss[p] = 0;
        for (int i = 0; i < 10; i++) miss[p] += pmu_bp_cond(bp, pc, i < 9);
    }
}

/* gshare as pmu_model/README.md states it, written out again here: the
 * reference for the steady-state test below. */
typedef struct ref_gshare {
    uint8_t ctr[4096];
    uint32_t hist;
} ref_gshare;

static bool ref_cond(ref_gshare *r, uint64_t pc, bool taken) { /* H = T = 12, pc_shift 0 */
    uint32_t i = (uint32_t)((pc ^ r->hist) & 4095u);
    bool predicted = r->ctr[i] >= 2;
    if (taken && r->ctr[i] < 3) r->ctr[i]++;
    if (!taken && r->ctr[i] > 0) r->ctr[i]--;
    r->hist = ((r->hist << 1) | (taken ? 1u : 0u)) & 4095u;
    return predicted != taken;
}

int main(void) {
    pmu_cost_params def;
    if (pmu_cost_defaults(&def, PMU_COST_PROFILE_DEFAULT) != PMU_OK) bail("no defaults");

    tap_clause("SIM-PMU-BP-GSHARE-LOOP");
    /* Defaults: H = T = 12, counters start at 1, history starts at 0 (bit 0 =
     * newest outcome), index = (pc ^ history) mod 4096.  With one branch, pc
     * is fixed, so distinct histories use distinct counters.  A counter first
     * met with "taken" mispredicts once (1 -> 2) and predicts taken after;
     * one met with "not taken" predicts it (1 -> 0).
     * Execution j (outcome T unless j mod 10 = 9) sees history H_j:
     *   j = 0..9:  2^j - 1 (the initial zeros act as not-taken): all new, so
     *              j = 0..8 mispredict, j = 9 (N) does not: pass 0 = 9.
     *   j = 10:    0x3FE (new, T) mispredicts.
     *   j >= 11:   periodic S_k, k = j mod 10: 0xFFF minus bits k and k+10,
     *              i.e. S_0 = 0xBFE, S_1 = 0x7FD, S_k = 0xFFF - 2^k (k >= 2).
     *              (j = 11 already has S_1: bit 11 is an initial zero there and
     *              a real N in steady state.)  j = 11..18 (S_1..S_8, T) are new:
     *              8 mispredicts; j = 19 (S_9, N) is new but not taken: right.
     *              Pass 1 = 1 + 8 = 9.
     *   j = 20:    S_0 is met for the first time (j = 10 had 0x3FE): 1 miss;
     *              j = 21..29 reuse trained counters.  Pass 2 = 1.
     *   pass >= 3: every S_k is trained: 0.  Total over 10 passes = 19. */
    pmu_bp *bp = pmu_bp_new(&def.bp);
    if (!bp) bail("pmu_bp_new failed");
    int miss[10];
    loop_passes(bp, 0x401000, 10, miss);
    is_u64((uint64_t)miss[0], 9, "pass 0: the 9 taken executions mispredict");
    is_u64((uint64_t)miss[1], 9, "pass 1: 9 mispredicts (new histories)");
    is_u64((uint64_t)miss[2], 1, "pass 2: 1 mispredict (history S_0 met first)");
    int steady = 0;
    for (int p = 3; p < 10; p++) steady += miss[p];
    is_u64((uint64_t)steady, 0, "passes 3..9: steady state, no mispredicts");

    tap_clause("SIM-PMU-BP-GSHARE-ALTERNATE");
    /* T, N, T, N, ... from a reset predictor.  Histories before j: even j see
     * 0xAAA masked to j bits (0, 0x2, 0xA, 0x2A, 0xAA, 0x2AA, then 0xAAA at
     * j = 12), odd j see 0x555 masked (0x1, 0x5, ..., 0x555 from j = 11 on).
     * All new up to j = 12; taken ones (even j = 0..12: 7) mispredict, not
     * taken ones are right; from j = 13 on both counters are trained: 7. */
    pmu_bp_reset(bp);
    int alt = 0, late = 0;
    for (int j = 0; j < 200; j++) {
        bool m = pmu_bp_cond(bp, 0x401000, j % 2 == 0);
        alt += m;
        if (j > 12) late += m;
    }
    is_u64((uint64_t)alt, 7, "alternating: 7 mispredicts in 200");
    is_u64((uint64_t)late, 0, "... none after the 13th execution");

    tap_clause("SIM-PMU-BP-GSHARE-SHORT");
    /* H = 2, T = 4, pc = 0x40 so index = history.  Steady histories: k = 0
     * (after the N) 0b10, k = 1 0b01, k = 2..9 0b11: one counter sees 7 T then
     * 1 N, so it stays taken and the exit mispredicts every pass.
     * Pass 0: j=0 h0 miss, j=1 h1 miss, j=2 h3 miss (c3 -> 2), j=3..8 right
     *         (c3 -> 3), j=9 N on c3 = 3: miss (-> 2).  4.
     * Pass 1: j=10 h2 new, T: miss; j=11 h1 c = 2: right; j=12..18 right;
     *         j=19 miss.  2.
     * Pass 2 on: only the exit: 1 per pass. */
    pmu_bp *sb = pmu_bp_new(&(pmu_bp_params){.hist_bits = 2, .index_bits = 4, .ras_depth = 1, .btb_entries = 1});
    if (!sb) bail("pmu_bp_new failed");
    loop_passes(sb, 0x40, 6, miss);
    is_u64((uint64_t)miss[0], 4, "H=2: pass 0: 4 mispredicts");
    is_u64((uint64_t)miss[1], 2, "H=2: pass 1: 2 mispredicts");
    is_u64((uint64_t)(miss[2] + miss[3] + miss[4] + miss[5]), 4, "H=2: then the exit once per pass");
    pmu_bp_free(sb);

    /* H = 0 (bimodal), T = 1: pc 0 and pc 2 share counter 0; pc 1 uses
     * counter 1.  pc0 T: miss (1 -> 2); pc2 T: right (-> 3); pc1 T: miss. */
    sb = pmu_bp_new(&(pmu_bp_params){.hist_bits = 0, .index_bits = 1});
    if (!sb) bail("pmu_bp_new failed");
    ok(pmu_bp_cond(sb, 0, true), "bimodal: pc 0 first taken mispredicts");
    ok(!pmu_bp_cond(sb, 2, true), "bimodal: pc 2 aliases pc 0's trained counter");
    ok(pmu_bp_cond(sb, 1, true), "bimodal: pc 1 has its own counter");
    pmu_bp_free(sb);

    /* pc_shift 4: pcs 0x100 and 0x10F share a counter (0x10 after the shift). */
    sb = pmu_bp_new(&(pmu_bp_params){.hist_bits = 0, .index_bits = 8, .pc_shift = 4});
    if (!sb) bail("pmu_bp_new failed");
    ok(pmu_bp_cond(sb, 0x100, true), "shift 4: pc 0x100 taken mispredicts");
    ok(!pmu_bp_cond(sb, 0x10F, true), "shift 4: pc 0x10F uses the same counter");
    ok(pmu_bp_cond(sb, 0x110, true), "shift 4: pc 0x110 does not");
    pmu_bp_free(sb);

    tap_clause("SIM-PMU-BP-RAS");
    /* R = 16.  20 nested calls push r_1..r_20; the stack keeps r_5..r_20 (the
     * oldest four were dropped).  The 20 returns go to r_20, r_19, ..., r_1:
     * the first 16 pop matching addresses, the last 4 find the stack empty. */
    pmu_bp_reset(bp);
    for (uint64_t i = 1; i <= 20; i++) pmu_bp_call(bp, 0x1000 + 16 * i);
    int wrong[21] = {0};
    for (uint64_t i = 20; i >= 1; i--) wrong[i] = pmu_bp_ret(bp, 0x1000 + 16 * i);
    int first16 = 0, last4 = 0;
    for (int i = 20; i >= 5; i--) first16 += wrong[i];
    for (int i = 4; i >= 1; i--) last4 += wrong[i];
    is_u64((uint64_t)first16, 0, "depth 20 > R = 16: returns to r_20..r_5 predicted");
    is_u64((uint64_t)last4, 4, "returns to r_4..r_1 mispredict (empty stack)");
    /* Recursion as in `recurse`: the outer call returns to O, 19 inner calls
     * return to I.  The stack holds I x 16: 16 right, then 3 inner returns
     * and the outer one mispredict. */
    int rec = 0;
    pmu_bp_call(bp, 0x9000);
    for (int i = 0; i < 19; i++) pmu_bp_call(bp, 0x9100);
    for (int i = 0; i < 19; i++) rec += pmu_bp_ret(bp, 0x9100) ? 1 : 0;
    bool outer = pmu_bp_ret(bp, 0x9000);
    is_u64((uint64_t)rec, 3, "recursion 20 deep: 3 inner returns mispredict");
    ok(outer, "... and the outer return");
    /* A wrong address mispredicts and still pops. */
    pmu_bp_call(bp, 0xA000);
    pmu_bp_call(bp, 0xB000);
    ok(pmu_bp_ret(bp, 0xA000), "ret to A with B on top: mispredict");
    ok(pmu_bp_ret(bp, 0xC000), "next ret pops A, goes to C: mispredict");
    ok(pmu_bp_ret(bp, 0xA000), "stack now empty: mispredict");
    pmu_bp_call(bp, 0xA000);
    ok(!pmu_bp_ret(bp, 0xA000), "call then ret to its return address: predicted");
    sb = pmu_bp_new(&(pmu_bp_params){.index_bits = 1, .ras_depth = 0, .btb_entries = 0});
    if (!sb) bail("pmu_bp_new failed");
    pmu_bp_call(sb, 0xA000);
    ok(pmu_bp_ret(sb, 0xA000), "no RAS: every ret mispredicts");
    ok(pmu_bp_indirect(sb, 0x10, 0x20) && pmu_bp_indirect(sb, 0x10, 0x20), "no BTB: every indirect mispredicts");
    pmu_bp_free(sb);

    tap_clause("SIM-PMU-BP-BTB");
    /* E = 512, entry = pc mod 512.  A = 0x5000 (entry 0), B = A + 512 (entry 0
     * too), C = A + 1 (entry 1). */
    pmu_bp_reset(bp);
    const uint64_t A = 0x5000, B = 0x5200, C = 0x5001, T1 = 0x7000, T2 = 0x7100;
    ok(pmu_bp_indirect(bp, A, T1), "A -> T1, cold: mispredict");
    ok(!pmu_bp_indirect(bp, A, T1), "A -> T1 again: hit");
    ok(pmu_bp_indirect(bp, A, T2), "A -> T2: wrong target, mispredict");
    ok(!pmu_bp_indirect(bp, A, T2), "A -> T2 again: hit");
    ok(pmu_bp_indirect(bp, B, T2), "B -> T2 (same entry, other pc): mispredict");
    ok(pmu_bp_indirect(bp, A, T2), "A -> T2 after B took the entry: mispredict");
    ok(!pmu_bp_indirect(bp, A, T2), "A -> T2: hit again");
    ok(pmu_bp_indirect(bp, C, T1), "C -> T1 (entry 1), cold: mispredict");
    ok(!pmu_bp_indirect(bp, A, T2), "A unaffected by C");
    pmu_bp_reset(bp);
    ok(pmu_bp_indirect(bp, A, T2), "after reset the BTB is empty");

    tap_clause("SIM-PMU-BP-STEADY");
    /* The steady state (pmu.h): a branch whose last update changed nothing is
     * skipped until something changes.  Loops that saturate (long runs taken at
     * one pc, not taken at another), broken by a short random stretch, and
     * interleaved with calls, returns and indirect branches (which do not touch
     * gshare): every outcome equals the reference's, and the skip is claimed
     * exactly when the reference's update would change nothing. */
    pmu_bp_reset(bp);
    ref_gshare ref;
    memset(ref.ctr, 1, sizeof ref.ctr);
    ref.hist = 0;
    uint64_t x = 88172645463325252u;
    int diff = 0, wrong_steady = 0, steady_seen = 0;
    for (int round = 0; round < 40; round++) {
        for (int k = 0; k < 300; k++) {
            uint64_t pc;
            bool taken;
            if (k < 100) {
                pc = 0x401000, taken = true; /* a loop branch: saturates, history all ones */
            } else if (k < 200) {
                pc = 0x401040 + (uint64_t)(round % 3), taken = false; /* a never-taken branch: history all zeros */
            } else {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                pc = 0x402000 + (x & 0xFF0), taken = (x >> 20) & 1;
            }
            if (k % 37 == 0) {
                pmu_bp_call(bp, 0x5000);
                (void)pmu_bp_ret(bp, 0x5000);
                (void)pmu_bp_indirect(bp, 0x6000, 0x7000 + (uint64_t)k);
            }
            ref_gshare before = ref;
            bool claimed = pmu_bp_cond_steady(bp, pc, taken);
            bool want = ref_cond(&ref, pc, taken);
            bool unchanged = !want && before.hist == ref.hist && memcmp(before.ctr, ref.ctr, sizeof ref.ctr) == 0;
            steady_seen += claimed;
            if (claimed && !unchanged) wrong_steady++;
            if (pmu_bp_cond(bp, pc, taken) != want) diff++;
        }
    }
    is_u64((uint64_t)diff, 0, "12,000 conditional branches: every outcome as the reference gshare");
    is_u64((uint64_t)wrong_steady, 0, "a steady skip is claimed only where the update changes nothing");
    ok(steady_seen > 5000, "the saturated loops are skipped (%d of 8,000 loop branches)", steady_seen);
    pmu_bp_reset(bp);
    ok(!pmu_bp_cond_steady(bp, 0x401000, true), "reset forgets the steady branch");

    pmu_bp_free(bp);
    return tap_done();
}
