/* sim/context.c — a thread's register context: read it, and resume its guest
 * call from one (sim/README.md "Contexts").
 *
 * An OS built on sim/ dispatches a guest exception or unwinds a stack by
 * reading the faulting thread's registers (sim_thread_context) and continuing
 * its guest call from other registers (sim_thread_set_context): after
 * sim_call_continue reported SIM_CALL_FAULTED, inside the machine's fault
 * handler (sim_set_fault_handler), or inside a gate call of the thread, whose
 * result is then replaced by the whole context.  The fault report itself
 * (sim_call_fault) is unchanged: this file only adds what comes after it. */
#include <string.h>

#include "sim/sim_int.h"

void sim_set_fault_handler(sim_machine *m, sim_fault_fn fn, void *ud) {
    m->fault_fn = fn;
    m->fault_ud = fn ? ud : NULL;
}

sim_err sim_thread_context(sim_thread *t, sim_context *c) {
    sim_machine *m = t->m;
    memset(c, 0, sizeof *c);
    if (!m->isa->ctx_get) return SIM_ERR_ARCH;
    if (m->gate_thread == t) { /* inside its gate call: the thunk's return is next */
        m->isa->ctx_get(m, c);
        if (m->isa->gate_intno < 0) c->pc += m->isa->gate_entry_len; /* x64: the hook sees the syscall's address */
        return SIM_OK;
    }
    if (t->resumable && m->loaded == t) { /* a fault ended its call: the registers at the fault */
        m->isa->ctx_get(m, c);
        return SIM_OK;
    }
    return SIM_ERR_STATE;
}

sim_err sim_thread_set_context(sim_thread *t, const sim_context *c) {
    sim_machine *m = t->m;
    if (!m->isa->ctx_set) return SIM_ERR_ARCH;
    if (m->gate_thread == t) { /* the call goes on from c when the handler returns (cpu.c: STOP_CONTEXT) */
        m->isa->ctx_set(m, c);
        t->ctx_pc = c->pc;
        t->ctx_set = true;
        return SIM_OK;
    }
    if (!t->resumable || t->in_call || m->running != t) return SIM_ERR_STATE;
    sim_err e = sim_stack_reclaim(t); /* the slot the faulted call held, with its contents */
    if (e != SIM_OK) return e;
    uc_context_restore(m->uc, m->clean); /* no exception in flight (sim_call_begin) */
    if (t->env && (e = sim_cpu_env_load(t)) != SIM_OK) return e;
    m->isa->ctx_set(m, c);
    sim_reg_set(m, m->isa->reg_pc, c->pc);
    m->loaded = t;
    t->in_call = true;
    t->rip = c->pc;
    t->gate_pending = false;
    t->resumable = false;
    return SIM_OK;
}
