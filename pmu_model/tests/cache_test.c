/* pmu_model/tests/cache_test.c — the data-cache hierarchy: sequential walk,
 * working sets that fit and that are twice L1D, a conflict set, straddling
 * accesses, the level that serves an access and its penalty, a
 * non-power-of-two set count.  Expected counts are derived in the comments.
 * Defaults: L1D 32 KiB 8-way 64 B (64 sets), L2 1 MiB 16-way 64 B (1024
 * sets), LLC 8 MiB 16-way 64 B (8192 sets); penalties L2 10, LLC 40, memory 200. */
#include <stdlib.h>

#include "conformance/tap.h"
#include "pmu_model/pmu.h"

static pmu_cost_params def;

/* One LRU level as pmu_model/README.md states it, written out again: the
 * reference for the last-line test below (ways kept most recent first). */
typedef struct ref_level {
    uint32_t sets, ways;
    uint64_t *tag; /* block + 1, 0 empty */
} ref_level;

static bool ref_line(ref_level *l, uint64_t block) {
    uint64_t *s = &l->tag[(block % l->sets) * l->ways];
    uint32_t i = 0;
    while (i < l->ways && s[i] != block + 1) i++;
    bool hit = i < l->ways;
    if (!hit) i = l->ways - 1;
    for (; i > 0; i--) s[i] = s[i - 1];
    s[0] = block + 1;
    return hit;
}

static int ref_access(ref_level lv[3], uint64_t addr, uint32_t size) {
    for (int k = 0; k < 3; k++) {
        bool miss = false;
        for (uint64_t b = addr / 64; b <= (addr + size - 1) / 64; b++) miss |= !ref_line(&lv[k], b);
        if (!miss) return k + 1;
    }
    return 4;
}

/* `n` accesses of `size` bytes from `base`, `stride` apart, charged to *b;
 * returns the penalty cycles. */
static uint64_t walk(pmu_cache *c, pmu_bank *b, uint64_t base, uint64_t n, uint64_t stride, uint32_t size) {
    uint64_t cy = 0;
    for (uint64_t i = 0; i < n; i++) cy += pmu_bank_mem(b, pmu_cache_access(c, base + i * stride, size, false), &def);
    return cy;
}

int main(void) {
    if (pmu_cost_defaults(&def, PMU_COST_PROFILE_DEFAULT) != PMU_OK) bail("no defaults");
    pmu_cache *c = pmu_cache_new(&def.cache);
    if (!c) bail("pmu_cache_new failed");
    pmu_bank b;

    tap_clause("SIM-PMU-CACHE-SEQUENTIAL");
    /* 4096 bytes read 8 at a time from a line-aligned base, cold: 512
     * accesses, the first of each of the 64 lines misses every level (served
     * by memory), the other 7 hit L1D.  64 misses at each level, 64 x 200. */
    memset(&b, 0, sizeof b);
    uint64_t cy = walk(c, &b, 0x100000, 512, 8, 8);
    is_u64(b.ev[PMU_EV_L1D_MISSES], 64, "4096 B cold: 4096/64 = 64 l1d-misses");
    is_u64(b.ev[PMU_EV_L2_MISSES], 64, "64 l2-misses");
    is_u64(b.ev[PMU_EV_LLC_REFERENCES], 64, "64 llc-references");
    is_u64(b.ev[PMU_EV_LLC_MISSES], 64, "64 llc-misses");
    is_u64(cy, 64 * 200, "penalty 64 x 200");
    memset(&b, 0, sizeof b);
    is_u64(walk(c, &b, 0x100000, 512, 8, 8), 0, "second pass: no penalty");
    is_u64(b.ev[PMU_EV_L1D_MISSES], 0, "second pass: all L1D hits");

    tap_clause("SIM-PMU-CACHE-FITS");
    /* 32 KiB, one access per line: 512 lines, 8 per L1D set = 8 ways.  The
     * first pass misses 512 times; the second hits every time. */
    pmu_cache_reset(c);
    memset(&b, 0, sizeof b);
    walk(c, &b, 0x200000, 512, 64, 8);
    is_u64(b.ev[PMU_EV_L1D_MISSES], 512, "32 KiB cold: 512 misses");
    memset(&b, 0, sizeof b);
    walk(c, &b, 0x200000, 512, 64, 8);
    is_u64(b.ev[PMU_EV_L1D_MISSES], 0, "32 KiB = L1D: second pass 0 misses");

    tap_clause("SIM-PMU-CACHE-TWICE");
    /* 64 KiB, one access per line: 1024 lines, 16 per L1D set, used in the
     * same cyclic order every pass.  When a line comes round again, the 15
     * other lines of its set have been used since, so the 8 most recently
     * used ways hold its 8 predecessors and LRU has evicted it: every access
     * misses L1D.  L2 holds all 1024 lines (1 per set), so each is served by
     * L2: 1024 l1d-misses, 0 l2-misses, 1024 x 10 cycles. */
    pmu_cache_reset(c);
    memset(&b, 0, sizeof b);
    walk(c, &b, 0x400000, 1024, 64, 8);
    memset(&b, 0, sizeof b);
    cy = walk(c, &b, 0x400000, 1024, 64, 8);
    is_u64(b.ev[PMU_EV_L1D_MISSES], 1024, "64 KiB = 2 x L1D: second pass misses every access");
    is_u64(b.ev[PMU_EV_L2_MISSES], 0, "... all served by L2");
    is_u64(cy, 1024 * 10, "... 1024 x 10 cycles");

    tap_clause("SIM-PMU-CACHE-CONFLICT");
    /* 9 = ways + 1 lines 4096 B apart (64 sets x 64 B) all map to one L1D set;
     * in L2 they fall in 9 different sets (64 sets apart).  Cyclic reuse of 9
     * lines in an 8-way LRU set: every access misses L1D from the second round
     * on (same argument as above), served by L2.  With 8 lines, all hit. */
    pmu_cache_reset(c);
    memset(&b, 0, sizeof b);
    walk(c, &b, 0x800000, 9, 4096, 8);
    is_u64(b.ev[PMU_EV_LLC_MISSES], 9, "round 1: 9 cold misses");
    memset(&b, 0, sizeof b);
    for (int r = 0; r < 5; r++) walk(c, &b, 0x800000, 9, 4096, 8);
    is_u64(b.ev[PMU_EV_L1D_MISSES], 45, "9 lines in one 8-way set: 5 more rounds, 45 misses");
    is_u64(b.ev[PMU_EV_L2_MISSES], 0, "... all L2 hits");
    pmu_cache_reset(c);
    walk(c, &b, 0x800000, 8, 4096, 8);
    memset(&b, 0, sizeof b);
    for (int r = 0; r < 5; r++) walk(c, &b, 0x800000, 8, 4096, 8);
    is_u64(b.ev[PMU_EV_L1D_MISSES], 0, "8 lines in one 8-way set: no misses after round 1");

    tap_clause("SIM-PMU-CACHE-STRADDLE");
    /* An 8-byte access at 60 touches lines 0 and 1: one access, one miss. */
    pmu_cache_reset(c);
    memset(&b, 0, sizeof b);
    const uint64_t S = 0x1000000;
    is_u64((uint64_t)pmu_cache_access(c, S + 60, 8, false), 4, "straddling access, cold: memory");
    pmu_bank_mem(&b, 4, &def);
    is_u64(b.ev[PMU_EV_L1D_MISSES], 1, "... counts one miss, not two");
    is_u64((uint64_t)pmu_cache_access(c, S + 64, 8, false), 1, "the second line was brought in");
    is_u64((uint64_t)pmu_cache_access(c, S, 4, true), 1, "so was the first");
    /* Lines 1 (present) and 2 (absent): a miss at every level, as line 2 is
     * nowhere; line 1 is looked up in L2 and the LLC too (cachegrind's rule). */
    is_u64((uint64_t)pmu_cache_access(c, S + 124, 8, false), 4, "one line present, one absent: a miss");
    is_u64((uint64_t)pmu_cache_access(c, S + 128, 1, false), 1, "line 2 is now in L1D");
    /* 130 bytes from offset 0 of a cold area: 3 lines, one access. */
    is_u64((uint64_t)pmu_cache_access(c, S + 4096, 130, false), 4, "a 3-line access, cold: memory");
    ok(pmu_cache_access(c, S + 4096 + 128, 1, false) == 1, "... its third line is in L1D");
    is_u64((uint64_t)pmu_cache_access(c, S + 8192, 0, false), 4, "size 0 counts as 1 byte");
    is_u64((uint64_t)pmu_cache_access(c, S + 8192 + 63, 0, false), 1, "... in that line");
    /* The top of the address space: lines 2^58 - 1 and beyond do not wrap to 0. */
    is_u64((uint64_t)pmu_cache_access(c, UINT64_MAX - 3, 8, false), 4, "an access at the top of memory");
    is_u64((uint64_t)pmu_cache_access(c, 0, 1, false), 4, "line 0 was not touched by it");

    tap_clause("SIM-PMU-CACHE-LEVELS");
    /* A = 64 MiB.  Its sets: L1D (A/64) mod 64, L2 mod 1024, LLC mod 8192.
     * 1. A cold: memory, 200.  Again: L1D, 0.
     * 2. A + k*4096, k = 1..8: A's L1D set only (L2 sets differ by 64k):
     *    A leaves L1D, stays in L2.  A: served by L2, 10.
     * 3. A + k*65536, k = 1..16: A's L1D set and A's L2 set (1024k mod 1024 =
     *    0; 16 new lines evict A from 16 ways); in the LLC only k = 8, 16 share
     *    A's set.  A: served by the LLC, 40.
     * 4. A + k*512 KiB, k = 3..18: A's set everywhere; 16 new lines evict A
     *    (it was most recently used) from the 16-way LLC set.  A: memory, 200. */
    pmu_cache_reset(c);
    memset(&b, 0, sizeof b);
    const uint64_t A = 0x4000000;
    is_u64((uint64_t)pmu_cache_access(c, A, 8, false), 4, "A cold: memory");
    is_u64((uint64_t)pmu_cache_access(c, A, 8, false), 1, "A again: L1D");
    walk(c, &b, A + 4096, 8, 4096, 8);
    int lv = pmu_cache_access(c, A, 8, false);
    is_u64((uint64_t)lv, 2, "A after 8 L1D-set conflicts: served by L2");
    memset(&b, 0, sizeof b);
    is_u64(pmu_bank_mem(&b, lv, &def), 10, "... 10 cycles");
    is_u64(b.ev[PMU_EV_L1D_MISSES] * 100 + b.ev[PMU_EV_L2_MISSES], 100, "... an l1d-miss, no l2-miss");
    walk(c, &b, A + 65536, 16, 65536, 8);
    lv = pmu_cache_access(c, A, 8, false);
    is_u64((uint64_t)lv, 3, "A after 16 L2-set conflicts: served by the LLC");
    memset(&b, 0, sizeof b);
    is_u64(pmu_bank_mem(&b, lv, &def), 40, "... 40 cycles");
    is_u64(b.ev[PMU_EV_L2_MISSES] * 100 + b.ev[PMU_EV_LLC_MISSES], 100, "... an l2-miss, no llc-miss");
    walk(c, &b, A + 3 * 524288, 16, 524288, 8);
    lv = pmu_cache_access(c, A, 8, false);
    is_u64((uint64_t)lv, 4, "A after 16 LLC-set conflicts: served by memory");
    memset(&b, 0, sizeof b);
    is_u64(pmu_bank_mem(&b, lv, &def), 200, "... 200 cycles");
    is_u64(b.ev[PMU_EV_LLC_REFERENCES] * 100 + b.ev[PMU_EV_LLC_MISSES], 101, "... an llc-reference and an llc-miss");
    pmu_cache_free(c);

    tap_clause("SIM-PMU-CACHE-SETS");
    /* L1D of 3 sets x 2 ways x 64 B = 384 B (set = line mod 3); L2 24 sets x
     * 4 ways, LLC 48 sets x 4 ways.  Lines 0, 3, 6 share L1D set 0. */
    c = pmu_cache_new(&(pmu_cache_params){{384, 2, 64}, {6144, 4, 64}, {12288, 4, 64}});
    if (!c) bail("pmu_cache_new with 3 sets failed");
    pmu_cache_access(c, 0 * 64, 8, false);
    pmu_cache_access(c, 3 * 64, 8, false);
    pmu_cache_access(c, 1 * 64, 8, false);
    is_u64((uint64_t)pmu_cache_access(c, 0 * 64, 8, false), 1, "3 sets: lines 0 and 3 fit set 0's two ways");
    is_u64((uint64_t)pmu_cache_access(c, 6 * 64, 8, false), 4, "line 6 (set 0) is new");
    is_u64((uint64_t)pmu_cache_access(c, 3 * 64, 8, false), 2, "it evicted line 3 (LRU), still in L2");
    is_u64((uint64_t)pmu_cache_access(c, 1 * 64, 8, false), 1, "line 1 (set 1) untouched");
    /* Write-allocate: a write brings the line in like a read. */
    is_u64((uint64_t)pmu_cache_access(c, 100 * 64, 8, true), 4, "a cold write: memory");
    is_u64((uint64_t)pmu_cache_access(c, 100 * 64, 8, false), 1, "... and allocates the line");
    pmu_cache_free(c);

    /* Direct-mapped, 1 set: the smallest cache. */
    c = pmu_cache_new(&(pmu_cache_params){{64, 1, 64}, {128, 2, 64}, {256, 4, 64}});
    if (!c) bail("pmu_cache_new with 1 set failed");
    pmu_cache_access(c, 0, 8, false);
    pmu_cache_access(c, 64, 8, false);
    is_u64((uint64_t)pmu_cache_access(c, 0, 8, false), 2, "1 line L1D: line 0 evicted by line 1, in L2");
    pmu_cache_free(c);

    tap_clause("SIM-PMU-CACHE-LAST");
    /* The one-line fast path (pmu.h): an access within the last access's L1D
     * line is an L1D hit that changes nothing.  Runs of accesses inside one
     * line, straddling accesses and jumps across a 2 MiB area (every level
     * misses and evicts) against the reference LRU: every level the same, and
     * the fast path claims only accesses the reference serves from L1D. */
    c = pmu_cache_new(&def.cache);
    if (!c) bail("pmu_cache_new failed");
    ref_level ref[3] = {{64, 8, calloc(64 * 8, 8)}, {1024, 16, calloc(1024 * 16, 8)}, {8192, 16, calloc(8192 * 16, 8)}};
    if (!ref[0].tag || !ref[1].tag || !ref[2].tag) bail("no memory");
    uint64_t x = 88172645463325252u, addr = 0;
    int diff = 0, wrong_fast = 0, fast = 0;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t size = 1u << (x & 3); /* 1, 2, 4 or 8 bytes */
        switch ((x >> 8) % 8) {
        case 0: addr = (x >> 16) % (2u << 20); break; /* anywhere in 2 MiB */
        case 1: addr = (addr & ~63u) + 60; break;     /* near the end of the line: may straddle */
        default: addr = (addr & ~63u) + ((x >> 16) & 63) % (65 - size); break; /* within the line */
        }
        bool claimed = pmu_cache_access_last(c, addr, size) == 1;
        int want = ref_access(ref, addr, size);
        fast += claimed;
        if (claimed && want != 1) wrong_fast++;
        if (pmu_cache_access(c, addr, size, (x >> 30) & 1) != want) diff++;
    }
    is_u64((uint64_t)diff, 0, "200,000 accesses: every level as the reference LRU");
    is_u64((uint64_t)wrong_fast, 0, "the fast path claims only L1D hits");
    ok(fast > 100000, "most accesses within one line take the fast path (%d)", fast);
    pmu_cache_reset(c);
    ok(pmu_cache_access_last(c, addr, 1) == 0, "reset forgets the last line");
    for (int k = 0; k < 3; k++) free(ref[k].tag);
    pmu_cache_free(c);
    return tap_done();
}
