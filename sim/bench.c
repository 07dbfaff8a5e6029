/* sim/bench.c — guest speed per counting mode, next to raw Unicorn on the
 * same machine code in the same process.  The host clock is passed in by the
 * caller (the CLI), so sim/ itself never reads it. */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

#define SIM_BENCH_DATA (64u << 20) /* memwalk buffer */

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

/* Raw Unicorn: the code at 0x1000, rcx/rdx = args, run until the ret's target. */
static int raw_run(const sim_bench_workload *w, int with_hook, sim_now_fn now, uint64_t *ns) {
    const uint8_t *code = w->code;
    size_t len = w->len;
    uint64_t args[2] = {w->data ? 0x10000000 : w->n, w->data ? w->n : 0};
    uc_engine *uc;
    if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK) return -1;
    uint64_t blocks = 0;
    uc_hook h;
    uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_READ | UC_PROT_EXEC);
    uc_mem_map(uc, 0x100000, 0x100000, UC_PROT_READ | UC_PROT_WRITE);
    uc_mem_map(uc, 0x10000000, SIM_BENCH_DATA, UC_PROT_READ | UC_PROT_WRITE);
    uc_mem_write(uc, 0x1000, code, len);
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

static int sim_run(const sim_bench_workload *w, bool precise, sim_now_fn now, uint64_t *ns, uint64_t *insns) {
    sim_config c;
    sim_config_default(&c);
    c.precise_faults = precise;
    sim_machine *m;
    if (sim_machine_new(&c, &m) != SIM_OK) return -1;
    sim_thread *t;
    uint64_t entry, data;
    int rc = -1;
    if (sim_thread_new(m, "bench", 8, 1, -1, &t) == SIM_OK && sim_code(m, w->code, w->len, &entry) == SIM_OK &&
        sim_alloc(m, SIM_BENCH_DATA, &data) == SIM_OK) {
        uint64_t a[2] = {w->data ? data : w->n, w->data ? w->n : 0};
        sim_thread *run;
        sim_sched_next(m, &run);
        sim_call_begin(t, entry, a, 2);
        uint64_t t0 = now();
        sim_call_status s = sim_call_continue(t);
        *ns = now() - t0;
        *insns = sim_thread_bank(t)->ev[PMU_EV_INSTRUCTIONS];
        rc = s == SIM_CALL_RETURNED ? 0 : -1;
    }
    sim_machine_free(m);
    return rc;
}

int sim_bench(const sim_bench_workload *w, sim_now_fn now, sim_bench_result out[SIM_BENCH_MODES]) {
    static const char *const names[SIM_BENCH_MODES] = {"raw unicorn", "raw unicorn + empty block hook",
                                                       "hcpsim counting", "hcpsim counting + precise faults"};
    for (int i = 0; i < SIM_BENCH_MODES; i++) {
        out[i].mode = names[i];
        out[i].insns = w->insns;
        uint64_t counted = w->insns;
        int rc = i < 2 ? raw_run(w, i, now, &out[i].ns) : sim_run(w, i == 3, now, &out[i].ns, &counted);
        if (rc != 0 || counted != w->insns) return -1;
    }
    return 0;
}
