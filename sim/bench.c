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

static uint64_t insns_for(const sim_bench_workload *w, uint64_t n) { return w->fixed + w->per_iter * n; }

/* Raw Unicorn: the code at 0x1000, rcx/rdx = args, run until the ret's target. */
static int raw_run(const sim_bench_workload *w, int with_hook, sim_now_fn now, uint64_t *ns) {
    uint64_t args[2] = {w->data ? 0x10000000 : w->n, w->data ? w->n : 0};
    uc_engine *uc;
    if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK) return -1;
    uint64_t blocks = 0;
    uc_hook h;
    uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_READ | UC_PROT_EXEC);
    uc_mem_map(uc, 0x100000, 0x100000, UC_PROT_READ | UC_PROT_WRITE);
    uc_mem_map(uc, 0x10000000, SIM_BENCH_DATA, UC_PROT_READ | UC_PROT_WRITE);
    uc_mem_write(uc, 0x1000, w->code, w->len);
    if (with_hook) uc_hook_add(uc, &h, UC_HOOK_BLOCK, fnptr((any_fn)count_block), &blocks, 1, 0);
    uint64_t rsp = 0x1FF000, ret = 0x3000;
    uc_mem_write(uc, rsp, &ret, 8);
    uc_reg_write(uc, UC_X86_REG_RSP, &rsp);
    uc_reg_write(uc, UC_X86_REG_RCX, &args[0]);
    uc_reg_write(uc, UC_X86_REG_RDX, &args[1]);
    uint64_t t0 = now();
    uc_err e = uc_emu_start(uc, 0x1000, ret, 0, 0);
    *ns = now() - t0;
    uc_close(uc);
    return e == UC_ERR_OK ? 0 : -1;
}

/* hcpsim: `nthreads` threads each call the workload with n / nthreads
 * iterations under the scheduler.  With several threads the machine runs at
 * 1 GHz with a 100 x 100-ns tick and a one-tick quantum, so the threads
 * alternate every 10,000 cycles (= instructions, under the unit cost model). */
static int sim_run(const sim_bench_workload *w, bool precise, int nthreads, sim_now_fn now, uint64_t *ns,
                   uint64_t *insns) {
    sim_config c;
    sim_config_default(&c);
    c.precise_faults = precise;
    if (nthreads > 1) {
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
    uint64_t each = w->n / (uint64_t)nthreads;
    if (sim_code(m, w->code, w->len, &entry) != SIM_OK || sim_alloc(m, SIM_BENCH_DATA, &data) != SIM_OK) goto out;
    for (int i = 0; i < nthreads; i++)
        if (sim_thread_new(m, "bench", 8, 1, -1, &th[i]) != SIM_OK) goto out;
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
    rc = *insns == (uint64_t)nthreads * insns_for(w, each) ? 0 : -1;
out:
    sim_machine_free(m);
    return rc;
}

int sim_bench(const sim_bench_workload *w, sim_now_fn now, sim_bench_result out[SIM_BENCH_MODES]) {
    static const char *const names[SIM_BENCH_MODES] = {"raw unicorn", "raw unicorn + empty block hook",
                                                       "hcpsim counting", "hcpsim counting + precise faults",
                                                       "+ scheduler, 10000-cycle slices"};
    for (int i = 0; i < SIM_BENCH_MODES; i++) {
        out[i].mode = names[i];
        out[i].insns = insns_for(w, w->n);
        out[i].ns = 0;
        int rc;
        if (i < 2)
            rc = raw_run(w, i, now, &out[i].ns);
        else
            rc = sim_run(w, i >= 3, i == 4 ? 2 : 1, now, &out[i].ns, &out[i].insns);
        if (rc != 0) return -1;
    }
    return 0;
}
