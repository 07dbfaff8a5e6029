/* native.c: host side of the valgrind cross-checks: callgrind for the counts
 * (conformance/callgrind.sh), cachegrind for L1D misses (conformance/cachegrind.sh,
 * its own case table and modes, described above that table).
 *
 * Links the same objects the build assembles from the .S files here and
 * calls the kernels natively, as Windows-x64 functions (ms_abi), so valgrind
 * can count what they retire.  The case table below is the single source of
 * the cross-check's arguments and data:
 *
 *   native list      one line per case: ID KERNEL VAR=VALUE...; the variables
 *                    are the ones the kernel's formula comments use (n, odd,
 *                    zeros), computed here from the arguments and the data
 *   native run ID    runs case ID once, prints "ID ret=VALUE"
 *   native runall    runs every case in order, as `run` does, in one process;
 *                    each call is followed by native_case_end (callgrind's dump
 *                    point: one profile per case)
 *   native lua       prints an hcpsim scenario that places the same data and
 *                    runs every case, printing "ID ret=VALUE instructions=N"
 *                    with N read through ReadThreadProfilingData (HwCounters[0])
 *
 * Buffers are filled by deterministic generators, so both sides see the same
 * bytes; the scenario receives them as Lua string literals.  Built by the test
 * in a temporary directory, never in the source tree. */
#define _POSIX_C_SOURCE 200809L /* fork, waitpid (cache-runall) */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/wait.h>
#include <unistd.h>

#define MS __attribute__((ms_abi))
typedef int64_t MS (*kernel_fn)(int64_t, int64_t, int64_t, int64_t);

int64_t MS spin(int64_t n);
int64_t MS memwalk(int64_t buf, int64_t n);
int64_t MS calls(int64_t n);
int64_t MS branchy(int64_t buf, int64_t n);
int64_t MS stores(int64_t buf, int64_t n);
int64_t MS stride(int64_t buf, int64_t n, int64_t stride_bytes);
int64_t MS chase(int64_t buf, int64_t n);
int64_t MS pattern(int64_t n, int64_t mask);
int64_t MS recurse(int64_t n);
int64_t MS copy(int64_t dst, int64_t src, int64_t n);
int64_t MS icalls(int64_t n);

/* Buffer contents. */
enum fill { NONE, RANDOM, ZERO, PERM };

/* An argument is either a plain integer or a buffer of `words` 64-bit words. */
typedef struct arg {
    int is_buf;
    int64_t value;  /* plain integer */
    uint32_t words; /* buffer size */
    enum fill fill;
} arg;

typedef struct kcase {
    const char *kernel;
    kernel_fn fn;
    int nargs;
    arg a[4];
} kcase;

/* clang-format off */
#define I(v) {0, (v), 0, NONE}
#define B(w, f) {1, 0, (w), (f)}
/* clang-format on */
#define K(f) #f, (kernel_fn)(void (*)(void))f

static const kcase cases[] = {
    {K(spin), 1, {I(3)}},
    {K(spin), 1, {I(1000)}},
    {K(memwalk), 2, {B(5, RANDOM), I(5)}},
    {K(memwalk), 2, {B(300, RANDOM), I(300)}},
    {K(calls), 1, {I(0)}},
    {K(calls), 1, {I(250)}},
    {K(branchy), 2, {B(16, RANDOM), I(16)}},
    {K(branchy), 2, {B(777, RANDOM), I(777)}},
    {K(stores), 2, {B(10, ZERO), I(10)}},
    {K(stores), 2, {B(400, ZERO), I(400)}},
    {K(stride), 3, {B(1024, RANDOM), I(100), I(64)}},
    {K(stride), 3, {B(8192, RANDOM), I(15), I(4104)}},
    {K(chase), 2, {B(512, PERM), I(7)}},
    {K(chase), 2, {B(512, PERM), I(1500)}},
    {K(pattern), 2, {I(100), I(3)}},
    {K(pattern), 2, {I(1001), I(1)}},
    {K(recurse), 1, {I(1)}},
    {K(recurse), 1, {I(600)}},
    {K(copy), 3, {B(3, ZERO), B(3, RANDOM), I(3)}},
    {K(copy), 3, {B(256, ZERO), B(256, RANDOM), I(256)}},
    {K(icalls), 1, {I(2)}},
    {K(icalls), 1, {I(333)}},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* splitmix64: the RANDOM fill, seeded per case and argument. */
static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t *make_buf(int id, int j, const arg *a) {
    uint64_t *p = calloc(a->words ? a->words : 1, 8);
    if (!p) {
        perror("native");
        exit(2);
    }
    uint64_t s = (uint64_t)id * 16 + (uint64_t)j;
    for (uint32_t i = 0; i < a->words; i++) {
        switch (a->fill) {
        case RANDOM: p[i] = mix(&s); break;
        case PERM: p[i] = ((uint64_t)i * 165 + 13) % a->words; break; /* one cycle of all words (Hull-Dobell) */
        case ZERO:
        case NONE: p[i] = 0; break;
        }
    }
    return p;
}

/* The variables the formulas use, from the arguments and the data alone. */
static void list_case(int id) {
    const kcase *c = &cases[id];
    uint64_t *buf[4] = {0};
    for (int j = 0; j < c->nargs; j++)
        if (c->a[j].is_buf) buf[j] = make_buf(id, j, &c->a[j]);
    int64_t n = c->a[c->nargs - 1].value; /* n is the last argument, except for stride and pattern */
    printf("%d %s", id, c->kernel);
    if (strcmp(c->kernel, "stride") == 0) {
        n = c->a[1].value;
        printf(" n=%" PRId64 " stride=%" PRId64, n, c->a[2].value);
    } else if (strcmp(c->kernel, "pattern") == 0) {
        n = c->a[0].value;
        int64_t mask = c->a[1].value, zeros = 0;
        for (int64_t i = 1; i <= n; i++) zeros += (i & mask) == 0;
        printf(" n=%" PRId64 " mask=%" PRId64 " zeros=%" PRId64, n, mask, zeros);
    } else if (strcmp(c->kernel, "branchy") == 0) {
        int64_t odd = 0;
        for (int64_t i = 0; i < n; i++) odd += (int64_t)(buf[0][i] & 1);
        printf(" n=%" PRId64 " odd=%" PRId64, n, odd);
    } else {
        printf(" n=%" PRId64, n);
    }
    printf("\n");
    for (int j = 0; j < 4; j++) free(buf[j]);
}

/* The callgrind cross-check's case boundary: `native runall` calls it after each case's kernel
 * call, and callgrind (--dump-before=native_case_end) writes the counts collected since the
 * previous boundary, which with collection toggled on only inside the kernels is that one call.
 * External and never inlined, so the symbol exists and every case enters it. */
__attribute__((noinline)) void native_case_end(int id);
__attribute__((noinline)) void native_case_end(int id) { __asm__ volatile("" : : "r"(id) : "memory"); }

static int run_case(int id) {
    const kcase *c = &cases[id];
    int64_t v[4] = {0};
    uint64_t *buf[4] = {0};
    for (int j = 0; j < c->nargs; j++) {
        if (c->a[j].is_buf) {
            buf[j] = make_buf(id, j, &c->a[j]);
            v[j] = (int64_t)(uintptr_t)buf[j];
        } else {
            v[j] = c->a[j].value;
        }
    }
    int64_t r = c->fn(v[0], v[1], v[2], v[3]);
    native_case_end(id);
    printf("%d ret=%" PRId64 "\n", id, r);
    for (int j = 0; j < 4; j++) free(buf[j]);
    return 0;
}

static void lua_case(int id) {
    const kcase *c = &cases[id];
    printf("  do -- case %d: %s\n    local a = {}\n", id, c->kernel);
    for (int j = 0; j < c->nargs; j++) {
        if (!c->a[j].is_buf) {
            printf("    a[%d] = %" PRId64 "\n", j + 1, c->a[j].value);
            continue;
        }
        uint64_t *p = make_buf(id, j, &c->a[j]);
        printf("    a[%d] = m:alloc(%u)\n    m:write(a[%d], \"", j + 1, c->a[j].words * 8u, j + 1);
        for (uint32_t i = 0; i < c->a[j].words; i++)
            for (int b = 0; b < 8; b++) printf("\\x%02x", (unsigned)(p[i] >> (8 * b)) & 0xffu);
        printf("\")\n");
        free(p);
    }
    printf("    measure(%d, k.%s, table.unpack(a, 1, %d))\n  end\n", id, c->kernel, c->nargs);
}

static void lua_scenario(void) {
    printf("-- generated by scenarios/kernels/native.c (native lua); the callgrind cross-check's cases\n"
           "local hcp = require \"hcpsim\"\n"
           "local m = hcp.machine { pmc = { \"instructions\", \"cycles\", \"branches\" } }\n"
           "assert(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 } } == 0)\n"
           "local k = m:load \"kernels\"\n"
           "m:thread { name = \"cases\", body = function(t)\n"
           "  local function measure(id, fn, ...)\n"
           "    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 1)\n"
           "    assert(rc == 0, \"EnableThreadProfiling: \" .. rc)\n"
           "    local ret, code = t:run(fn, ...)\n"
           "    assert(ret, \"guest exception \" .. tostring(code))\n"
           "    local rc2, pd = t:ReadThreadProfilingData(ph, "
           "hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)\n"
           "    assert(rc2 == 0, \"ReadThreadProfilingData: \" .. rc2)\n"
           "    t:DisableThreadProfiling(ph)\n"
           "    print(string.format(\"%%d ret=%%d instructions=%%d\", id, ret, pd.HwCounters[0].Value))\n"
           "  end\n");
    for (int id = 0; id < NCASES; id++) lua_case(id);
    printf("end }\nm:run()\n");
}

/* ---- The L1D cross-check (conformance/cachegrind.sh) ---------------------------------------
 *
 *   native cache-list          one line per case: ID NAME SIZE WAYS LINE, then for each of its
 *                              one or two calls KERNEL(ARGS) and the hand-derived L1D misses of
 *                              that call ("-" when there is no formula; "- -" for no 2nd call)
 *   native cache-run ID RSP    runs case ID for cachegrind: the kernel's rsp at entry is made
 *                              congruent to RSP (hcpsim's, from the probe below) modulo 4096,
 *                              D1 is evicted, then the calls run back to back; prints
 *                              "ID ret=R1,R2" (R2 = 0 without a second call)
 *   native cache-runall ID:RSP...  cache-run for each case given, each in a forked child
 *   native cache-lua           an hcpsim scenario: one machine per case with that L1D geometry
 *                              (cold caches), the same buffers, a probe that returns the entry
 *                              rsp, then the calls, each measured alone through
 *                              ReadThreadProfilingData; prints "ID rsp=R ret=R1,R2 misses=M1,M2"
 *
 * Cache state at kernel entry, the same on both sides:
 *   - hcpsim: a new machine's L1D is empty; t:run's modelled `call` stores the return address, so
 *     the line holding [rsp] is present (most recently used) and nothing else.
 *   - native: the buffers are page-aligned (aligned_alloc(4096, ...)), as m:alloc's are, and every
 *     geometry below has sets x line dividing 4096, so every data line falls in the same set on both
 *     sides.  Just before the call, one asm block reads an eviction buffer of 2 x SIZE bytes (one
 *     load per line; it maps W or more new lines to every set), which leaves D1 holding only
 *     eviction lines: with true LRU, write-allocate and no reuse of those lines, a set full of them
 *     behaves exactly like an empty set for the kernel.  The same block switches rsp to a private
 *     stack at hcpsim's entry rsp modulo 4096 (so the return-address line, and the stack lines of a
 *     kernel that calls, fall in the same sets too) and `call`s the kernel: the only data access
 *     between the eviction and the kernel is that call's store of the return address, hcpsim's
 *     modelled store.  A second call follows at once with the same rsp, as t:run's does.
 *   - cachegrind attributes every access of a kernel instruction to the kernel's function, the
 *     final ret's stack read included; the eviction loads and the calls' stores are the caller's.
 *     The two calls of a case use different kernels so each is counted alone.
 *
 * Hand formulas (the number after each call): a cold access misses on each line it is the first
 * to touch; a line is evicted from a W-way set when W other lines of that set were used since it
 * was last used (LRU).  hcpsim's entry rsp is 0xFC8 modulo 4096 (the top of its page-aligned
 * stack, minus the 56-byte frame of a call with at most 4 arguments; the test checks it), so the
 * return-address line ("S") is at page offset 0xFC0, in the last set of all three geometries:
 *   G_DEF 32768,8,64: 64 sets, a page's lines fill each set once; S in set 63
 *   G_2W   4096,2,64: 32 sets, a page fills each set twice (offsets x, x + 2048); S in set 31
 *   G_DM   1024,1,64: 16 sets, direct-mapped, a page fills each set 4 times;   S in set 15
 * In one pass from cold, the final ret misses exactly when W distinct data lines of S's set were
 * used during the call. */
#define G_DEF 32768, 8, 64
#define G_2W 4096, 2, 64
#define G_DM 1024, 1, 64

enum cfill { CINDEX, CPERM, CCYCLE };
typedef struct cbuf {
    uint32_t bytes; /* 0: unused */
    enum cfill fill;
    uint32_t step; /* CCYCLE: words between links */
} cbuf;
typedef struct carg {
    int buf; /* 0: the integer v; j + 1: buffer j plus v bytes */
    int64_t v;
} carg;
typedef struct ccall {
    const char *kernel; /* NULL: no call */
    kernel_fn fn;
    int nargs;
    carg a[3];
    int64_t expect; /* hand-derived L1D misses, -1: none */
} ccall;
typedef struct ccase {
    const char *name;
    uint32_t size, ways, line;
    cbuf b[2];
    ccall c[2];
} ccase;

/* clang-format off */
#define CB(j, off) {(j) + 1, (off)}
#define CI(v) {0, (v)}
#define CALL(f, n, exp, ...) {#f, (kernel_fn)(void (*)(void))f, (n), {__VA_ARGS__}, (exp)}
#define NOCALL {NULL, NULL, 0, {CI(0)}, -1}
#define IB(bytes) {(bytes), CINDEX, 0}
#define NOBUF {0, CINDEX, 0}
/* clang-format on */

/* clang-format off */
static const ccase ccases[] = {
    /* Sequential walk that fits: 16 KiB = 256 lines, 4 per set of G_DEF.  Pass 1: 256 cold
     * lines; set 63 holds S and 4 data lines (< 8 ways), ret hits: 256.  Pass 2 (stride 8 is the
     * same walk): every line is still there: 0. */
    {"seq-fits-2pass", G_DEF, {IB(16384), NOBUF},
     {CALL(memwalk, 2, 16384 / 64, CB(0, 0), CI(2048)), CALL(stride, 3, 0, CB(0, 0), CI(2048), CI(8))}},
    /* Exactly L1D, 32 KiB = 512 lines, 8 per set.  Pass 1: 512 misses; set 63 gets 8 data lines
     * after S, the 8th evicts S, ret misses: 513.  Pass 2: sets 0..62 hit; set 63 cycles 9 lines
     * (S and 8 data) through 8 ways, so each of its 8 data lines and then S miss: 9. */
    {"seq-l1d-2pass", G_DEF, {IB(32768), NOBUF},
     {CALL(memwalk, 2, 512 + 1, CB(0, 0), CI(4096)), CALL(stride, 3, 8 + 1, CB(0, 0), CI(4096), CI(8))}},
    /* Twice L1D, 64 KiB = 1024 lines, 16 per set: every set cycles 16 lines through 8 ways, so
     * every line misses on both passes, and S is evicted both times: 1024 + 1, 1024 + 1. */
    {"seq-2xl1d-2pass", G_DEF, {IB(65536), NOBUF},
     {CALL(memwalk, 2, 1024 + 1, CB(0, 0), CI(8192)), CALL(stride, 3, 1024 + 1, CB(0, 0), CI(8192), CI(8))}},
    /* G_2W, fits: 2 KiB = 32 lines, one per set; set 31: S + 1 line (= 2 ways), ret hits: 32.
     * Pass 2: 0. */
    {"seq-fits-2pass-2w", G_2W, {IB(2048), NOBUF},
     {CALL(memwalk, 2, 2048 / 64, CB(0, 0), CI(256)), CALL(stride, 3, 0, CB(0, 0), CI(256), CI(8))}},
    /* G_2W, twice L1D: 8 KiB = 128 lines, 4 per set through 2 ways: all miss both passes; set 31
     * gets 4 data lines, S is evicted both times: 128 + 1, 128 + 1. */
    {"seq-2xl1d-2pass-2w", G_2W, {IB(8192), NOBUF},
     {CALL(memwalk, 2, 128 + 1, CB(0, 0), CI(1024)), CALL(stride, 3, 128 + 1, CB(0, 0), CI(1024), CI(8))}},
    /* Stride 64, one load per line: 256 loads over 16 KiB, 256 misses, ret hits (4 lines in set
     * 63).  Then memwalk reads every word of the same 256 lines: 0. */
    {"stride64-then-words", G_DEF, {IB(16384), NOBUF},
     {CALL(stride, 3, 256, CB(0, 0), CI(256), CI(64)), CALL(memwalk, 2, 0, CB(0, 0), CI(2048))}},
    /* Stride 64 on G_2W: 100 lines, 100 misses; set 31 gets lines 31, 63, 95 (> 2 ways after S):
     * ret misses: 101. */
    {"stride64-2w", G_2W, {IB(8192), NOBUF}, {CALL(stride, 3, 100 + 1, CB(0, 0), CI(100), CI(64)), NOCALL}},
    /* Stride 4096 on G_DM: 8 loads at page offset 0, all in set 0, each a new line: 8; S's set
     * 15 is untouched, ret hits. */
    {"stride4096-set0-dm", G_DM, {IB(32768), NOBUF}, {CALL(stride, 3, 8, CB(0, 0), CI(8), CI(4096)), NOCALL}},
    /* Stride 4096 at page offset 0xFC0 on G_2W: 8 lines all in set 31, S's set: the 2nd evicts
     * S, ret misses: 8 + 1. */
    {"stride4096-setS-2w", G_2W, {IB(32768), NOBUF},
     {CALL(stride, 3, 8 + 1, CB(0, 0xFC0), CI(8), CI(4096)), NOCALL}},
    /* The stride-4096 conflict with reuse: a chase table of 3 pages linking word 0 of each page
     * to the next (0 -> 512 -> 1024 -> 0, words), so chase loads the three lines 4096 apart in a
     * cycle, all in set 0.  G_2W: 3 lines through 2 ways, LRU evicts each before it comes round:
     * all 30 loads miss: 30.  G_DEF (8 ways): 3 misses, then hits: 3.  Ret hits (set S unused). */
    {"chase-4096-conflict-2w", G_2W, {{3 * 4096, CCYCLE, 512}, NOBUF},
     {CALL(chase, 2, 30, CB(0, 0), CI(30)), NOCALL}},
    {"chase-4096-fits", G_DEF, {{3 * 4096, CCYCLE, 512}, NOBUF}, {CALL(chase, 2, 3, CB(0, 0), CI(30)), NOCALL}},
    /* Straddling: 8-byte loads at stride 60 from page offset 60 (4 bytes before a line's end).
     * Load k covers [60 + 60k, 67 + 60k]; it straddles when (60 + 60k) mod 64 > 56, that is
     * (60 - 4k) mod 64 = 60, k = 0 mod 16: 16 of the 256 loads.  Each load reaches at most one
     * line past the previous load's last, so the loads miss on exactly the lines after the first
     * load's two: misses = line of the last byte = floor((60*256 + 7) / 64) = 240 (the first load
     * takes lines 0 and 1 with one miss).  G_DEF: 241 lines in 4 pages, ret hits: 240.  G_DM:
     * the lines run through set 15 many times, S is evicted: 240 + 1 (a straddle's two lines are
     * in different sets, and a line is reused only by the very next load, so no conflict). */
    {"stride60-straddle", G_DEF, {IB(16384), NOBUF},
     {CALL(stride, 3, (60 * 256 + 7) / 64, CB(0, 60), CI(256), CI(60)), NOCALL}},
    {"stride60-straddle-dm", G_DM, {IB(16384), NOBUF},
     {CALL(stride, 3, (60 * 256 + 7) / 64 + 1, CB(0, 60), CI(256), CI(60)), NOCALL}},
    /* Stores (write-allocate): 1000 words = 8000 bytes = 125 lines: 125.  G_DEF: set 63 gets
     * only page 0's line 0xFC0 (page 1's starts at byte 8128), ret hits.  G_DM: set 15 is used,
     * S is evicted: 125 + 1. */
    {"stores", G_DEF, {IB(8192), NOBUF}, {CALL(stores, 2, 125, CB(0, 0), CI(1000)), NOCALL}},
    {"stores-dm", G_DM, {IB(8192), NOBUF}, {CALL(stores, 2, 125 + 1, CB(0, 0), CI(1000)), NOCALL}},
    /* copy(dst, src, n), both page-aligned.  G_DEF, n = 2048: 256 src + 256 dst lines (32 KiB,
     * fits), set 63 gets 4 + 4 data lines after S, S evicted: 512 + 1.  n = 64 (8 lines each,
     * sets 0..7, ret hits): G_DM, src line i and dst line i share a direct-mapped set, each load
     * and each store evicts the other's line: all 2n = 128 accesses miss; G_2W, both fit in the 2
     * ways: 8 + 8 = 16. */
    {"copy", G_DEF, {IB(16384), IB(16384)}, {CALL(copy, 3, 512 + 1, CB(0, 0), CB(1, 0), CI(2048)), NOCALL}},
    {"copy-conflict-dm", G_DM, {IB(4096), IB(4096)}, {CALL(copy, 3, 128, CB(0, 0), CB(1, 0), CI(64)), NOCALL}},
    {"copy-2w", G_2W, {IB(4096), IB(4096)}, {CALL(copy, 3, 16, CB(0, 0), CB(1, 0), CI(64)), NOCALL}},
    /* The kernel's own stack traffic, G_DM: recurse(200) pushes 200 return addresses below
     * rsp = 0xFC8 (page offsets 0xFC0 down to 0x988: lines 63..38), then pops them.  Down: line
     * 63 is S (hit), lines 62..38 miss: 25; lines 38..47 (sets 6..15) evict lines 54..63.  Up:
     * 38..53 hit, 54..63 miss once each: 10; the last ret reads S, just reloaded: 25 + 10 = 35. */
    {"recurse-stack-dm", G_DM, {NOBUF, NOBUF}, {CALL(recurse, 1, 25 + 10, CI(200)), NOCALL}},
    /* A pseudo-random walk: chase through a 4 KiB permutation table (one cycle through all 512
     * words), 1500 dependent loads, on G_DM (4 times the cache).  No hand formula: cachegrind is
     * the reference. */
    {"chase-perm-dm", G_DM, {{4096, CPERM, 0}, NOBUF}, {CALL(chase, 2, -1, CB(0, 0), CI(1500)), NOCALL}},
};
/* clang-format on */
#define NCCASES ((int)(sizeof ccases / sizeof ccases[0]))

static void cfill_buf(const cbuf *b, unsigned char *p) {
    uint32_t words = b->bytes / 8;
    memset(p, 0, b->bytes);
    for (uint32_t i = 0; i < words; i++) {
        uint64_t v = i; /* CINDEX: word i holds i, so the sums check the addresses read */
        if (b->fill == CPERM) v = ((uint64_t)i * 165 + 13) % words; /* as PERM above: one cycle */
        if (b->fill == CCYCLE) v = i % b->step ? 0 : (i + b->step) % words;
        memcpy(p + 8 * (size_t)i, &v, 8);
    }
}

static void cache_list(void) {
    for (int id = 0; id < NCCASES; id++) {
        const ccase *c = &ccases[id];
        printf("%d %s %u %u %u", id, c->name, c->size, c->ways, c->line);
        for (int k = 0; k < 2; k++) {
            const ccall *f = &c->c[k];
            if (!f->kernel) {
                printf(" - -");
                continue;
            }
            printf(" %s(", f->kernel);
            for (int j = 0; j < f->nargs; j++) {
                const carg *a = &f->a[j];
                if (a->buf)
                    printf("%s%c+%" PRId64, j ? "," : "", 'A' + a->buf - 1, a->v);
                else
                    printf("%s%" PRId64, j ? "," : "", a->v);
            }
            if (f->expect >= 0)
                printf(") %" PRId64, f->expect);
            else
                printf(") -");
        }
        printf("\n");
    }
}

static void *page_alloc(size_t bytes) {
    void *p = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (!p) {
        perror("native");
        exit(2);
    }
    return p;
}

static int64_t cval(const carg *a, unsigned char *const *buf) {
    return a->buf ? (int64_t)(uintptr_t)(buf[a->buf - 1] + a->v) : a->v;
}

/* The private stack the kernels run on; the entry rsp is placed in its middle page. */
static _Alignas(4096) unsigned char cstack[65536];

static int cache_run(int id, uint64_t rsp) {
    const ccase *c = &ccases[id];
    uint32_t span = c->size / c->ways; /* sets x line */
    if (c->size % c->ways || span == 0 || 4096 % span) {
        fprintf(stderr, "native: case %d: sets x line must divide 4096\n", id);
        return 2;
    }
    unsigned char *buf[2] = {0};
    for (int j = 0; j < 2; j++)
        if (c->b[j].bytes) {
            buf[j] = page_alloc(c->b[j].bytes);
            cfill_buf(&c->b[j], buf[j]);
        }
    size_t elen = 2 * (size_t)c->size;
    unsigned char *ev = page_alloc(elen);
    memset(ev, 0, elen);
    /* The kernel's rsp at entry is sp - 8 (the call pushes there), congruent to rsp mod 4096. */
    uintptr_t sp = (uintptr_t)cstack + 32768 + (uintptr_t)((rsp + 8) & 4095);
    const ccall *f1 = &c->c[0], *f2 = &c->c[1];
    int64_t v1[3] = {0}, v2[3] = {0};
    for (int j = 0; j < f1->nargs; j++) v1[j] = cval(&f1->a[j], buf);
    for (int j = 0; j < f2->nargs; j++) v2[j] = cval(&f2->a[j], buf);

    /* From the eviction to the end of the calls nothing but the eviction loads, the calls and the
     * kernels touches memory: every value lives in a register, the kernels (ms_abi, touching only
     * rax, rcx, rdx, r8-r10) preserve rbx, rsi, rdi, r11-r15. */
    register uintptr_t r_sp __asm__("rax") = sp;
    register uintptr_t r_ev __asm__("rsi") = (uintptr_t)ev;
    register uintptr_t r_evend __asm__("rdi") = (uintptr_t)ev + elen;
    register uint64_t r_line __asm__("r9") = c->line;
    register kernel_fn r_fn1 __asm__("r11") = f1->fn;
    register int64_t r_a0 __asm__("rcx") = v1[0];
    register int64_t r_a1 __asm__("rdx") = v1[1];
    register int64_t r_a2 __asm__("r8") = v1[2];
    register kernel_fn r_fn2 __asm__("rbx") = f2->fn;
    register int64_t r_b0 __asm__("r12") = v2[0];
    register int64_t r_b1 __asm__("r13") = v2[1];
    register int64_t r_b2 __asm__("r14") = v2[2];
    __asm__ volatile("1:\n\t"
                     "movq (%%rsi), %%r10\n\t" /* evict: one load per line */
                     "addq %%r9, %%rsi\n\t"
                     "cmpq %%rdi, %%rsi\n\t"
                     "jb 1b\n\t"
                     "movq %%rsp, %%r15\n\t"
                     "movq %%rax, %%rsp\n\t"
                     "callq *%%r11\n\t"
                     "movq %%rax, %%rsi\n\t" /* first result */
                     "xorl %%eax, %%eax\n\t"
                     "testq %%rbx, %%rbx\n\t"
                     "jz 2f\n\t"
                     "movq %%r12, %%rcx\n\t"
                     "movq %%r13, %%rdx\n\t"
                     "movq %%r14, %%r8\n\t"
                     "callq *%%rbx\n\t"
                     "2:\n\t"
                     "movq %%r15, %%rsp"
                     : "+r"(r_sp), "+r"(r_ev), "+r"(r_evend), "+r"(r_line), "+r"(r_fn1), "+r"(r_a0), "+r"(r_a1),
                       "+r"(r_a2), "+r"(r_fn2), "+r"(r_b0), "+r"(r_b1), "+r"(r_b2)
                     :
                     : "r10", "r15", "memory", "cc");
    printf("%d ret=%" PRId64 ",%" PRId64 "\n", id, (int64_t)r_ev, (int64_t)r_sp);
    free(ev);
    for (int j = 0; j < 2; j++) free(buf[j]);
    return 0;
}

/* `native cache-runall ID:RSP...`: the cases given, each in a child process of its own (fork),
 * one after another.  Under cachegrind the parent never calls a kernel, and a child calls only its
 * case's, so the kernels' counts in a child's profile (--cachegrind-out-file=...%p, written when
 * it exits) are its case's alone, while the whole geometry costs one valgrind start-up.  A child
 * prints "pid ID PID" before its case's "ID ret=R1,R2". */
static int cache_runall(int argc, char **argv) {
    for (int i = 2; i < argc; i++) {
        char *end;
        long id = strtol(argv[i], &end, 10);
        if (end == argv[i] || *end != ':' || id < 0 || id >= NCCASES) {
            fprintf(stderr, "native: cache-runall: bad case %s (want ID:RSP)\n", argv[i]);
            return 2;
        }
        uint64_t rsp = strtoull(end + 1, NULL, 0);
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("native: fork");
            return 2;
        }
        if (pid == 0) {
            printf("pid %ld %ld\n", id, (long)getpid());
            int st = cache_run((int)id, rsp);
            fflush(stdout);
            _exit(st);
        }
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "native: case %ld failed\n", id);
            return 1;
        }
    }
    return 0;
}

static void cache_lua_args(const ccall *f) {
    for (int j = 0; j < f->nargs; j++) {
        const carg *a = &f->a[j];
        if (a->buf)
            printf(", b[%d] + %" PRId64, a->buf, a->v);
        else
            printf(", %" PRId64, a->v);
    }
}

static void cache_lua(void) {
    printf("-- generated by scenarios/kernels/native.c (native cache-lua); the cachegrind cross-check's "
           "cases\n"
           "local hcp = require \"hcpsim\"\n"
           "local probe_code = \"\\x48\\x89\\xe0\\xc3\" -- mov rax, rsp; ret: the entry rsp\n");
    for (int id = 0; id < NCCASES; id++) {
        const ccase *c = &ccases[id];
        printf("do -- case %d: %s\n"
               "  local m = hcp.machine { pmc = { \"instructions\", \"l1d-misses\" },\n"
               "                          cache = { l1d = { size = %u, ways = %u, line = %u } } }\n"
               "  assert(m:KeSetHardwareCounterConfiguration { { Type = hcp.PMCCounter, Index = 0 },\n"
               "                                               { Type = hcp.PMCCounter, Index = 1 } } == 0)\n"
               "  local k = m:load \"kernels\"\n"
               "  local probe = m:code(probe_code)\n"
               "  local b = {}\n",
               id, c->name, c->size, c->ways, c->line);
        for (int j = 0; j < 2; j++) {
            const cbuf *bb = &c->b[j];
            if (!bb->bytes) continue;
            printf("  b[%d] = m:alloc(%u)\n", j + 1, bb->bytes);
            if (bb->fill == CINDEX) { /* word i = i */
                printf("  do\n    local w = {}\n    for i = 0, %u do w[i + 1] = string.pack(\"<i8\", i) end\n"
                       "    m:write(b[%d], table.concat(w))\n  end\n",
                       bb->bytes / 8 - 1, j + 1);
                continue;
            }
            unsigned char *p = malloc(bb->bytes);
            if (!p) {
                perror("native");
                exit(2);
            }
            cfill_buf(bb, p);
            printf("  m:write(b[%d], \"", j + 1);
            for (uint32_t i = 0; i < bb->bytes; i++) printf("\\x%02x", p[i]);
            printf("\")\n");
            free(p);
        }
        printf("  m:thread { name = \"case\", body = function(t)\n"
               "    local rsp = t:run(probe");
        cache_lua_args(&c->c[0]);
        printf(")\n"
               "    local rc, ph = t:EnableThreadProfiling(t:GetCurrentThread(), 0, 3)\n"
               "    assert(rc == 0, \"EnableThreadProfiling: \" .. rc)\n"
               "    local ret, miss, before = { 0, 0 }, { 0, 0 }, 0\n");
        for (int n = 0; n < 2; n++) {
            const ccall *f = &c->c[n];
            if (!f->kernel) continue;
            printf("    ret[%d] = assert(t:run(k.%s", n + 1, f->kernel);
            cache_lua_args(f);
            printf("))\n"
                   "    local rc%d, pd%d = t:ReadThreadProfilingData(ph, "
                   "hcp.READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS)\n"
                   "    assert(rc%d == 0, \"ReadThreadProfilingData: \" .. rc%d)\n"
                   "    miss[%d] = pd%d.HwCounters[1].Value - before\n"
                   "    before = pd%d.HwCounters[1].Value\n",
                   n, n, n, n, n + 1, n, n);
        }
        printf("    t:DisableThreadProfiling(ph)\n"
               "    print(string.format(\"%d rsp=%%d ret=%%d,%%d misses=%%d,%%d\", rsp, ret[1], ret[2], miss[1], "
               "miss[2]))\n"
               "  end }\n"
               "  m:run()\n"
               "end\n",
               id);
    }
}

/* Host nanoseconds (bench mode only: speed, never results). */
static uint64_t host_ns(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* `native bench NAME`: one call of a bench workload (the same five kernels,
 * arguments and data as `hcpsim bench`, sim/bench.c), for timing natively and
 * under cachegrind (reports/bench/native.sh).  Prints the instructions the
 * call retires by the kernel's formula, the host nanoseconds of the call
 * alone (data set-up excluded, as in hcpsim bench) and the result. */
static int bench_run(const char *name) {
    const uint64_t words = 8388608; /* 64 MiB */
    uint64_t *d = aligned_alloc(4096, words * 8);
    if (!d) return 2;
    memset(d, 0, words * 8);
    int64_t r;
    uint64_t insns, t0 = 0;
    if (strcmp(name, "spin") == 0) {
        t0 = host_ns();
        r = spin(100000000);
        insns = 4 + 2 * UINT64_C(100000000);
    } else if (strcmp(name, "memwalk") == 0) {
        t0 = host_ns();
        r = memwalk((int64_t)(uintptr_t)d, (int64_t)words);
        insns = 4 + 4 * words;
    } else if (strcmp(name, "stores") == 0) {
        t0 = host_ns();
        r = stores((int64_t)(uintptr_t)d, (int64_t)words);
        insns = 4 + 4 * words;
    } else if (strcmp(name, "branchy") == 0) { /* the xorshift words of sim/bench.c */
        uint64_t x = UINT64_C(0x9E3779B97F4A7C15), odd = 0;
        for (uint64_t i = 0; i < words; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            d[i] = x;
            odd += x & 1;
        }
        t0 = host_ns();
        r = branchy((int64_t)(uintptr_t)d, (int64_t)words);
        insns = 4 + 5 * words + odd;
    } else if (strcmp(name, "calls") == 0) {
        t0 = host_ns();
        r = calls(5000000);
        insns = 4 + 4 * UINT64_C(5000000);
    } else {
        free(d);
        return 2;
    }
    uint64_t ns = host_ns() - t0;
    printf("%" PRIu64 " %" PRIu64 " %" PRId64 "\n", insns, ns, r);
    free(d);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "bench") == 0) return bench_run(argv[2]);
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (int id = 0; id < NCASES; id++) list_case(id);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "lua") == 0) {
        lua_scenario();
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "run") == 0) {
        int id = atoi(argv[2]);
        if (id >= 0 && id < NCASES) return run_case(id);
    }
    if (argc == 2 && strcmp(argv[1], "runall") == 0) {
        for (int id = 0; id < NCASES; id++) run_case(id);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "cache-list") == 0) {
        cache_list();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "cache-runall") == 0) return cache_runall(argc, argv);
    if (argc == 2 && strcmp(argv[1], "cache-lua") == 0) {
        cache_lua();
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "cache-run") == 0) {
        int id = atoi(argv[2]);
        if (id >= 0 && id < NCCASES) return cache_run(id, strtoull(argv[3], NULL, 0));
    }
    fprintf(stderr, "usage: native list | lua | run ID | cache-list | cache-lua | cache-run ID RSP | cache-runall "
                    "ID:RSP... | bench NAME\n");
    return 2;
}
