/* native.c: host side of the callgrind cross-check (conformance/callgrind.sh).
 *
 * Links the same objects the build assembles from the .S files here and
 * calls the kernels natively, as Windows-x64 functions (ms_abi), so valgrind
 * can count what they retire.  The case table below is the single source of
 * the cross-check's arguments and data:
 *
 *   native list      one line per case: ID KERNEL VAR=VALUE...; the variables
 *                    are the ones the kernel's formula comments use (n, odd,
 *                    zeros), computed here from the arguments and the data
 *   native run ID    runs case ID once, prints "ret=VALUE"
 *   native lua       prints an hcpsim scenario that places the same data and
 *                    runs every case, printing "ID ret=VALUE instructions=N"
 *                    with N read through ReadThreadProfilingData (HwCounters[0])
 *
 * Buffers are filled by deterministic generators, so both sides see the same
 * bytes; the scenario receives them as Lua string literals.  Built by the test
 * in a temporary directory, never in the source tree. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    printf("ret=%" PRId64 "\n", r);
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

int main(int argc, char **argv) {
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
    fprintf(stderr, "usage: native list | lua | run ID\n");
    return 2;
}
