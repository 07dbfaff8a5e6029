/* sim/bench.c — guest speed per counting mode, next to raw Unicorn on the
 * same machine code in the same process.  The host clock is passed in by the
 * caller (the CLI), so sim/ itself never reads it. */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

#define SIM_BENCH_DATA (64u << 20) /* data buffer for workloads that take one */

static void count_block(uc_engine *uc, uint64_t a, uint32_t s, void *ud) {
    (void)uc, (void)a, (void)s;
    ++*(uint64_t *)ud;
}

typedef void (*any_fn)(void);
static void *fnptr(any_fn f) {
    void *p;
    memcpy(&p, &f, sizeof p);
    return p;
}

/* The bytes of the data buffer a run fills: 8 MiB for up to 2^20 words (the
 * short runs of make bench-ir, so that two runs of different lengths do the
 * same set-up), else the whole buffer. */
static size_t data_bytes(const sim_bench_workload *w) {
    if (!w->data) return 0;
    return w->n <= (UINT64_C(1) << 20) ? (size_t)8 << 20 : SIM_BENCH_DATA;
}

/* The data buffer's words: zero, or a fixed xorshift sequence (random data
 * for the branchy workload), the same in every mode.  Only the words the
 * workload walks are generated; the rest stay zero. */
static uint64_t *bench_data(const sim_bench_workload *w) {
    uint64_t *d = calloc(SIM_BENCH_DATA / 8, 8);
    if (d && w->random) {
        uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
        for (size_t i = 0; i < data_bytes(w) / 8; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            d[i] = x;
        }
    }
    return d;
}

/* What a call over the first n words retires: fixed + per_iter x n + per_odd x (odd words). */
static uint64_t insns_for(const sim_bench_workload *w, const uint64_t *data, uint64_t first, uint64_t n) {
    uint64_t odd = 0;
    if (w->per_odd)
        for (uint64_t i = 0; i < n; i++) odd += data[first + i] & 1;
    return w->fixed + w->per_iter * n + w->per_odd * odd;
}

/* Raw Unicorn: the code at 0x1000, the two arguments by the ISA's convention
 * (x64 rcx, rdx; x86 on the stack; ARM64 x0, x1; ARM r0, r1), run until the
 * return's target. */
static int raw_run(const sim_bench_workload *w, const uint64_t *data, int with_hook, sim_now_fn now, uint64_t *ns,
                   uint64_t *nblocks) {
    uint64_t args[2] = {w->data ? 0x10000000 : w->n, w->data ? w->n : 0};
    const sim_isa *isa = sim_isa_of(w->arch);
    uc_engine *uc;
    if (!isa || uc_open(isa->uc_arch, isa->uc_mode, &uc) != UC_ERR_OK) return -1;
    uint64_t blocks = 0;
    uc_hook h;
    uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_READ | UC_PROT_EXEC);
    uc_mem_map(uc, 0x100000, 0x100000, UC_PROT_READ | UC_PROT_WRITE);
    uc_mem_map(uc, 0x10000000, SIM_BENCH_DATA, UC_PROT_READ | UC_PROT_WRITE);
    if (w->data) uc_mem_write(uc, 0x10000000, data, data_bytes(w));
    uc_mem_write(uc, 0x1000, w->code, w->len);
    if (with_hook) uc_hook_add(uc, &h, UC_HOOK_BLOCK, fnptr((any_fn)count_block), &blocks, 1, 0);
    uint64_t rsp = 0x1FF000, ret = 0x3000;
    switch (w->arch) {
    case SIM_ARCH_X64:
        uc_mem_write(uc, rsp, &ret, 8);
        uc_reg_write(uc, UC_X86_REG_RSP, &rsp);
        uc_reg_write(uc, UC_X86_REG_RCX, &args[0]);
        uc_reg_write(uc, UC_X86_REG_RDX, &args[1]);
        break;
    case SIM_ARCH_X86: {
        uint32_t frame[3] = {(uint32_t)ret, (uint32_t)args[0], (uint32_t)args[1]};
        uc_mem_write(uc, rsp, frame, sizeof frame);
        uc_reg_write(uc, UC_X86_REG_ESP, &rsp);
        break;
    }
    case SIM_ARCH_ARM64:
        uc_reg_write(uc, UC_ARM64_REG_SP, &rsp);
        uc_reg_write(uc, UC_ARM64_REG_X30, &ret);
        uc_reg_write(uc, UC_ARM64_REG_X0, &args[0]);
        uc_reg_write(uc, UC_ARM64_REG_X1, &args[1]);
        break;
    case SIM_ARCH_ARM:
        uc_reg_write(uc, UC_ARM_REG_SP, &rsp);
        uc_reg_write(uc, UC_ARM_REG_LR, &ret);
        uc_reg_write(uc, UC_ARM_REG_R0, &args[0]);
        uc_reg_write(uc, UC_ARM_REG_R1, &args[1]);
        break;
    }
    uint64_t t0 = now();
    uc_err e = uc_emu_start(uc, 0x1000, ret, 0, 0);
    *ns = now() - t0;
    *nblocks = blocks;
    uc_close(uc);
    return e == UC_ERR_OK ? 0 : -1;
}

/* One hcpsim mode: which parts of the model are on. */
typedef struct bench_mode {
    const char *name;
    bool precise, predictor, cache;
    int nthreads;
} bench_mode;

/* hcpsim: `nthreads` threads each call the workload with n / nthreads
 * iterations under the scheduler.  With several threads the machine runs at
 * 1 GHz with a 100 x 100-ns tick and a one-tick quantum, so the threads
 * alternate every 10,000 cycles (= instructions under the unit table). */
static int sim_run(const sim_bench_workload *w, const uint64_t *host_data, const bench_mode *md, sim_now_fn now,
                   uint64_t *ns, uint64_t *insns) {
    sim_config c;
    sim_config_default(&c);
    c.arch = w->arch;
    c.precise_faults = md->precise;
    c.predictor = md->predictor;
    c.cache = md->cache;
    int nthreads = md->nthreads;
    if (nthreads > 1) {
        pmu_cost_table(&c.cost, "unit");
        c.frequency = 1000000000u;
        c.tick = 100;
        c.quantum = 1;
    }
    sim_machine *m;
    if (sim_machine_new(&c, &m) != SIM_OK) return -1;
    uint64_t entry, data;
    sim_thread *th[2] = {NULL, NULL};
    bool started[2] = {false, false};
    int rc = -1;
    uint64_t each = w->n / (uint64_t)nthreads, want = 0;
    if (sim_code(m, w->code, w->len, &entry) != SIM_OK || sim_alloc(m, SIM_BENCH_DATA, &data) != SIM_OK) goto out;
    if (w->data && sim_mem_write(m, data, host_data, data_bytes(w)) != SIM_OK) goto out;
    for (int i = 0; i < nthreads; i++) {
        if (sim_thread_new(m, "bench", 8, 1, -1, &th[i]) != SIM_OK) goto out;
        want += insns_for(w, host_data, (uint64_t)i * each, each);
    }
    uint64_t t0 = now();
    for (;;) { /* bounded by max_cycles: every pass runs guest work or ends a thread */
        sim_thread *t;
        sim_run_status rs = sim_sched_next(m, &t);
        if (rs == SIM_RUN_DONE) break;
        if (rs != SIM_RUN_THREAD) goto out;
        int k = t == th[0] ? 0 : 1;
        if (!started[k]) { /* with data, thread k walks its own part of the buffer */
            uint64_t a[2] = {w->data ? data + (uint64_t)k * each * 8 : each, w->data ? each : 0};
            if (sim_call_begin(t, entry, a, 2) != SIM_OK) goto out;
            started[k] = true;
        }
        sim_call_status s = sim_call_continue(t);
        if (s == SIM_CALL_RETURNED)
            sim_thread_exit(t, 0);
        else if (s != SIM_CALL_YIELD)
            goto out;
    }
    *ns = now() - t0;
    *insns = 0;
    for (int i = 0; i < nthreads; i++) *insns += sim_thread_bank(th[i])->ev[PMU_EV_INSTRUCTIONS];
    rc = *insns == want ? 0 : -1;
out:
    sim_machine_free(m);
    return rc;
}

static const bench_mode modes[SIM_BENCH_MODES - 2] = {
    {"hcpsim block counting", false, false, false, 1},
    {"+ precise faults", true, false, false, 1},
    {"+ scheduler, 10000-cycle slices", true, false, false, 2},
    {"+ branch predictor", true, true, false, 2},
    {"+ cache model", true, true, true, 2},
};

const char *sim_bench_mode_name(int mode) {
    if (mode < 0 || mode >= SIM_BENCH_MODES) return NULL;
    return mode == 0 ? "raw unicorn" : mode == 1 ? "raw unicorn + empty block hook" : modes[mode - 2].name;
}

static int bench_mode_run(const sim_bench_workload *w, const uint64_t *data, int mode, sim_now_fn now,
                          sim_bench_result *out) {
    out->mode = sim_bench_mode_name(mode);
    out->insns = insns_for(w, data, 0, w->n);
    out->ns = 0;
    out->ns_median = 0;
    out->blocks = 0;
    if (mode < 2) return raw_run(w, data, mode, now, &out->ns, &out->blocks);
    return sim_run(w, data, &modes[mode - 2], now, &out->ns, &out->insns);
}

int sim_bench_one(const sim_bench_workload *w, int mode, sim_now_fn now, sim_bench_result *out) {
    if (!sim_bench_mode_name(mode) || (w->data && w->n > SIM_BENCH_DATA / 8)) return -1;
    uint64_t *data = bench_data(w);
    if (!data) return -1;
    int rc = bench_mode_run(w, data, mode, now, out);
    free(data);
    return rc;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int sim_bench(const sim_bench_workload *w, sim_now_fn now, int rounds, sim_bench_result out[SIM_BENCH_MODES]) {
    if (rounds < 1 || rounds > SIM_BENCH_ROUNDS_MAX) return -1;
    uint64_t *data = bench_data(w);
    if (!data) return -1;
    uint64_t ns[SIM_BENCH_MODES][SIM_BENCH_ROUNDS_MAX];
    int rc = 0;
    for (int r = 0; r < rounds && rc == 0; r++)
        for (int i = 0; i < SIM_BENCH_MODES && rc == 0; i++) {
            rc = bench_mode_run(w, data, i, now, &out[i]);
            ns[i][r] = out[i].ns;
        }
    free(data);
    if (rc != 0) return rc;
    for (int i = 0; i < SIM_BENCH_MODES; i++) {
        qsort(ns[i], (size_t)rounds, sizeof ns[i][0], cmp_u64);
        out[i].ns = ns[i][0];
        out[i].ns_median = ns[i][rounds / 2];
    }
    return 0;
}
