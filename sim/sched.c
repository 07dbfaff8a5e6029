/* sim/sched.c — the scheduler: one CPU, FIFO ready queue, round-robin.
 *
 * Rules (each decision can be predicted by hand):
 *  - sim_sched_start() appends a new thread to the tail of the ready queue.
 *  - sim_sched_dispatch() takes the head.  When it differs from the thread that
 *    ran last, that is a context switch: the thread's switch count grows and
 *    observers see switch_in(thread, wait reason recorded when it left).
 *  - A quantum is sim_quantum_cycles() virtual cycles from the switch-in.  A
 *    guest block that starts at or after the deadline does not run: if another
 *    thread is ready, the thread goes to the tail with WrQuantumEnd; if not, it
 *    gets a new quantum and no switch happens.
 *  - Lua body code and API calls take no virtual time in this version.
 * Priorities and affinity are recorded but not yet used (round-robin). */
#include "sim/sim_int.h"

static void enqueue(sim_machine *m, sim_thread *t) {
    t->next_ready = NULL;
    if (m->ready_tail)
        m->ready_tail->next_ready = t;
    else
        m->ready_head = t;
    m->ready_tail = t;
    m->nready++;
    t->state = SIM_TS_READY;
}

void sim_set_observer(sim_machine *m, const sim_observer *o) {
    if (o)
        m->obs = *o;
    else
        m->obs = (sim_observer){0};
}

sim_err sim_sched_start(sim_thread *t) {
    if (t->state != SIM_TS_INITIALIZED) return SIM_ERR_STATE;
    t->wait_reason = SIM_WR_EXECUTIVE;
    enqueue(t->m, t);
    return SIM_OK;
}

sim_thread *sim_sched_dispatch(sim_machine *m) {
    sim_thread *t = m->ready_head;
    if (!t) return NULL;
    m->ready_head = t->next_ready;
    if (!m->ready_head) m->ready_tail = NULL;
    m->nready--;
    t->next_ready = NULL;
    t->state = SIM_TS_RUNNING;
    m->running = t;
    m->slice_deadline = m->clock + m->quantum_cycles;
    if (m->last_run != t) {
        t->switches++;
        if (m->obs.switch_in) m->obs.switch_in(m->obs.ud, t, t->wait_reason);
    }
    m->last_run = t;
    return t;
}

void sim_sched_preempt(sim_thread *t, int reason) {
    sim_machine *m = t->m;
    t->wait_reason = reason;
    if (m->running == t) m->running = NULL;
    enqueue(m, t);
}

sim_thread *sim_sched_current(const sim_machine *m) { return m->running; }

void sim_sched_exit(sim_thread *t) {
    sim_machine *m = t->m;
    t->state = SIM_TS_TERMINATED;
    t->in_call = false;
    if (m->running == t) m->running = NULL;
    if (m->obs.thread_exit) m->obs.thread_exit(m->obs.ud, t);
}

int sim_sched_ready_count(const sim_machine *m) { return m->nready; }
