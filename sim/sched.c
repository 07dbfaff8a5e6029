/* sim/sched.c — the dispatcher: CPUs, virtual time, clock interrupts,
 * priority ready queues, quanta, preemption, the driver's next-step function.
 * sim/README.md states the rules; this file implements them one to one.
 *
 * One host thread simulates every CPU.  The CPU with the smallest (time,
 * index) always goes next; with several CPUs, time is cut into lock-step
 * rounds of `slice` cycles, so no CPU runs more than a round ahead of
 * another.  Nothing here scans all threads: ready queues are FIFO lists per
 * priority with a summary bitmap, timers a binary heap. */
#include <stdio.h>
#include <string.h>

#include "sim/sim_int.h"

/* KWAIT_REASON 0..40 (HCP-SPEC §6, mingw-w64 wdm.h numbering). */
static const char *const wait_reasons[SIM_WAIT_REASONS] = {
    "Executive",        "FreePage",          "PageIn",
    "PoolAllocation",   "DelayExecution",    "Suspended",
    "UserRequest",      "WrExecutive",       "WrFreePage",
    "WrPageIn",         "WrPoolAllocation",  "WrDelayExecution",
    "WrSuspended",      "WrUserRequest",     "WrSpare0",
    "WrQueue",          "WrLpcReceive",      "WrLpcReply",
    "WrVirtualMemory",  "WrPageOut",         "WrRendezvous",
    "WrKeyedEvent",     "WrTerminated",      "WrProcessInSwap",
    "WrCpuRateControl", "WrCalloutStack",    "WrKernel",
    "WrResource",       "WrPushLock",        "WrMutex",
    "WrQuantumEnd",     "WrDispatchInt",     "WrPreempted",
    "WrYieldExecution", "WrFastMutex",       "WrGuardedMutex",
    "WrRundown",        "WrAlertByThreadId", "WrDeferredPreempt",
    "WrPhysicalFault",  "MaximumWaitReason",
};

const char *sim_wait_reason_name(int r) { return r >= 0 && r < SIM_WAIT_REASONS ? wait_reasons[r] : NULL; }

/* KTHREAD_STATE 0..7 (HCP-SPEC §6). */
static const char *const thread_states[SIM_THREAD_STATES] = {
    "Initialized", "Ready", "Running", "Standby", "Terminated", "Waiting", "Transition", "DeferredReady",
};

const char *sim_thread_state_name(int s) { return s >= 0 && s < SIM_THREAD_STATES ? thread_states[s] : NULL; }

/* ---- observers and records -------------------------------------------------------------- */

int sim_add_observer(sim_machine *m, const sim_observer *o) {
    for (int i = 0; i < SIM_MAX_OBSERVERS; i++) {
        if (!m->obs[i].switch_in && !m->obs[i].thread_exit && !m->obs[i].record) {
            m->obs[i] = *o;
            if (i >= m->nobs) m->nobs = i + 1;
            return i;
        }
    }
    return -1;
}

void sim_remove_observer(sim_machine *m, int slot) {
    if (slot >= 0 && slot < SIM_MAX_OBSERVERS) m->obs[slot] = (sim_observer){0};
}

void sim_sched_record(sim_machine *m, const sim_record *r) {
    for (int i = 0; i < m->nobs; i++)
        if (m->obs[i].record) m->obs[i].record(m->obs[i].ud, r);
}

void sim_mark(sim_machine *m, const sim_thread *t, const char *text) {
    sim_record r = {0};
    r.type = SIM_REC_MARK;
    r.cpu = m->exec ? m->exec->index : 0;
    r.time = sim_clock(m);
    r.thread = t;
    r.text = text;
    sim_sched_record(m, &r);
}

/* ---- ready queues ------------------------------------------------------------------------- */

static void rq_insert(sim_machine *m, sim_thread *t, bool head) {
    int p = t->priority;
    t->qprev = t->qnext = NULL;
    if (!m->rq_head[p]) {
        m->rq_head[p] = m->rq_tail[p] = t;
    } else if (head) {
        t->qnext = m->rq_head[p];
        m->rq_head[p]->qprev = t;
        m->rq_head[p] = t;
    } else {
        t->qprev = m->rq_tail[p];
        m->rq_tail[p]->qnext = t;
        m->rq_tail[p] = t;
    }
    m->rq_summary |= 1u << p;
    m->nready++;
}

static void rq_remove(sim_machine *m, sim_thread *t) {
    int p = t->priority;
    if (t->qprev)
        t->qprev->qnext = t->qnext;
    else
        m->rq_head[p] = t->qnext;
    if (t->qnext)
        t->qnext->qprev = t->qprev;
    else
        m->rq_tail[p] = t->qprev;
    t->qprev = t->qnext = NULL;
    if (!m->rq_head[p]) m->rq_summary &= ~(1u << p);
    m->nready--;
}

static bool cpu_in(uint64_t affinity, int cpu) { return (affinity >> cpu) & 1; }

/* May CPU c take t now?  A CPU that would otherwise go idle leaves a thread
 * to its ideal processor when that processor is idle (it takes it on its
 * turn), as Windows readies a thread onto an idle ideal processor. */
static bool eligible(sim_machine *m, const sim_cpu *c, const sim_thread *t, bool idle_pick) {
    if (!cpu_in(t->affinity, c->index) || t->ready_time > c->time) return false;
    if (idle_pick && t->ideal != c->index && !m->cpus[t->ideal].cur && cpu_in(t->affinity, t->ideal)) return false;
    return true;
}

/* The highest-priority eligible ready thread with priority >= min_prio, FIFO
 * within a priority.  idle_pick: c has no thread to go on with. */
static sim_thread *pick_for(sim_machine *m, const sim_cpu *c, int min_prio, bool idle_pick) {
    if (min_prio > 31) return NULL;
    uint32_t sum = m->rq_summary & (min_prio > 0 ? ~((1u << min_prio) - 1) : ~0u);
    while (sum) {
        int p = 31 - __builtin_clz(sum);
        for (sim_thread *t = m->rq_head[p]; t; t = t->qnext)
            if (eligible(m, c, t, idle_pick)) return t;
        sum &= ~(1u << p);
    }
    return NULL;
}

static sim_thread *pick(sim_machine *m, const sim_cpu *c, int min_prio) { return pick_for(m, c, min_prio, false); }

static sim_cpu *exec_cpu(const sim_machine *m) { return m->exec; }

uint64_t sim_clock(const sim_machine *m) {
    if (m->exec) return m->exec->time;
    uint64_t t = m->cpus[0].time;
    for (int i = 1; i < m->ncpus; i++)
        if (m->cpus[i].time < t) t = m->cpus[i].time;
    return t;
}

/* Makes t Ready at `time`, or at the time it left its CPU if that is later (a
 * CPU whose clock is behind may wake a thread that another CPU, ahead, has only
 * just switched out): the tail of its queue, or the head when it was
 * preempted.  If no CPU of its affinity is idle, the CPUs of its affinity
 * running a lower priority are told to check for preemption. */
static void ready(sim_machine *m, sim_thread *t, uint64_t time, int reason, bool head) {
    if (time < t->leave_time) time = t->leave_time;
    t->state = SIM_TS_READY;
    t->ready_time = time;
    t->ready_notify = !(reason == SIM_READY_YIELD || reason == SIM_READY_QUANTUM || reason == SIM_READY_PREEMPTED);
    rq_insert(m, t, head);
    sim_record r = {SIM_REC_READY, m->exec ? m->exec->index : 0, time, t, NULL, t->priority, 0, 0, 0, 0, reason, NULL};
    sim_sched_record(m, &r);
    if (!t->ready_notify) return;
    for (int i = 0; i < m->ncpus; i++)
        if (cpu_in(t->affinity, i) && !m->cpus[i].cur) return; /* an idle CPU will take it */
    for (int i = 0; i < m->ncpus; i++) {
        sim_cpu *c = &m->cpus[i];
        if (cpu_in(t->affinity, i) && c->cur && c->cur->priority < t->priority) {
            c->check_preempt = true;
            if (c == m->exec) m->stop_at = 0;
        }
    }
}

/* The Ready threads of priority above prio that may preempt on c: readied by creation, a
 * wake-up or a timeout, with c in their affinity, and not left to their idle ideal processor
 * (the exception of the idle-CPU rule).  Bit 0: one is eligible on c now; bit 1: one became
 * Ready later than c's clock (readied by a CPU ahead of c).  Scans only the queues above prio,
 * as pick does. */
#define PENDING_NOW 1
#define PENDING_LATER 2
static int pending_above(const sim_machine *m, const sim_cpu *c, int prio) {
    if (prio >= 31) return 0;
    uint32_t sum = m->rq_summary & ~((2u << prio) - 1);
    int r = 0;
    while (sum) {
        int p = 31 - __builtin_clz(sum);
        for (const sim_thread *t = m->rq_head[p]; t; t = t->qnext) {
            if (!t->ready_notify || !cpu_in(t->affinity, c->index)) continue;
            if (t->ideal != c->index && !m->cpus[t->ideal].cur && cpu_in(t->affinity, t->ideal)) continue;
            r |= t->ready_time > c->time ? PENDING_LATER : PENDING_NOW;
            if (r == (PENDING_NOW | PENDING_LATER)) return r;
        }
        sum &= ~(1u << p);
    }
    return r;
}

void sim_sched_make_ready(sim_thread *t, int reason) {
    sim_machine *m = t->m;
    ready(m, t, sim_clock(m), reason, false);
}

/* CPU c switches from its current thread (which already left: state set by
 * the caller) to `next` (NULL: idle). */
static void switch_to(sim_machine *m, sim_cpu *c, sim_thread *next) {
    sim_thread *old = c->cur;
    sim_record r = {SIM_REC_SWITCH,
                    c->index,
                    c->time,
                    next,
                    old,
                    next ? next->priority : 0,
                    old ? old->priority : 0,
                    old ? old->wait_reason : 0,
                    old ? old->wait_mode : 0,
                    old ? (int)old->state : 0,
                    0,
                    NULL};
    c->cur = next;
    if (old) old->leave_time = c->time;
    if (old && m->running == old) m->running = NULL;
    if (next) {
        rq_remove(m, next);
        next->state = SIM_TS_RUNNING;
        next->cpu = c->index;
        next->switches++;
        c->switches++;
        if (next->wait_reason != SIM_WR_PREEMPTED) next->quantum_start = sim_thread_cycle_time(next);
    }
    /* The switch ends c's pending check: next was chosen from the queues as they are.  It
     * stays pending only for a thread that may preempt and is not yet eligible here. */
    c->check_preempt = next && (pending_above(m, c, next->priority) & PENDING_LATER);
    sim_sched_record(m, &r);
    if (next)
        for (int i = 0; i < m->nobs; i++)
            if (m->obs[i].switch_in) m->obs[i].switch_in(m->obs[i].ud, next, next->wait_reason);
}

/* The running thread of c leaves the CPU for the ready queue. */
static void leave_ready(sim_machine *m, sim_cpu *c, int wait_reason, int ready_reason, bool head) {
    sim_thread *t = c->cur;
    t->wait_reason = wait_reason;
    t->wait_mode = 0;
    ready(m, t, c->time, ready_reason, head);
}

/* ---- clock interrupts ---------------------------------------------------------------------- */

uint64_t sim_tick_cycles(const sim_machine *m) { return m->tick_cycles; }

/* A clock interrupt on c: its cost, timer expiry (CPU 0), quantum end. */
static void tick(sim_machine *m, sim_cpu *c) {
    uint64_t at = c->next_tick;
    c->ticks++;
    c->time += m->cfg.interrupt_cycles;
    c->intr += m->cfg.interrupt_cycles;
    while (c->next_tick <= c->time) c->next_tick += m->tick_cycles;
    sim_thread *t = c->cur;
    if (t) {
        t->ticks++;                                            /* GetThreadTimes: one tick of user time */
        pmu_bank_interrupt(&t->bank, m->cfg.interrupt_cycles); /* kernel-mode cycles, not its cycle time */
    }
    if (c->index == 0) sim_timer_expire(m, at);
    if (t && sim_thread_cycle_time(t) - t->quantum_start >= m->quantum_cycles) {
        sim_thread *n = pick(m, c, t->priority);
        if (n) {
            leave_ready(m, c, SIM_WR_QUANTUM_END, SIM_READY_QUANTUM, false);
            switch_to(m, c, n);
        } else {
            t->quantum_start = sim_thread_cycle_time(t); /* alone at its priority: a new quantum */
        }
    }
}

static void check_preempt(sim_machine *m, sim_cpu *c) {
    sim_thread *t = c->cur;
    if (!t) {
        c->check_preempt = false;
        return;
    }
    int p = pending_above(m, c, t->priority);
    if (p & PENDING_NOW) {
        /* a thread that may preempt is eligible: c takes the highest eligible (FIFO) */
        sim_thread *n = pick(m, c, t->priority + 1);
        leave_ready(m, c, SIM_WR_PREEMPTED, SIM_READY_PREEMPTED, true);
        switch_to(m, c, n);
    } else if (!p) {
        c->check_preempt = false; /* none left: taken elsewhere, or only threads that yielded */
    }
}

static uint64_t round_end(const sim_machine *m, const sim_cpu *c) {
    if (m->ncpus == 1) return UINT64_MAX;
    return (c->time / m->cfg.slice + 1) * m->cfg.slice;
}

uint64_t sim_sched_segment_begin(sim_machine *m, sim_cpu *c) {
    c->seg_end = round_end(m, c);
    return sim_sched_stop_at(m, c);
}

uint64_t sim_sched_stop_at(sim_machine *m, sim_cpu *c) {
    if (c->check_preempt) return 0;
    uint64_t s = c->next_tick;
    if (c->cur && c->cur->suspend_pending && c->cur->suspend_at < s) s = c->cur->suspend_at;
    if (c->seg_end < s) s = c->seg_end;
    if (m->max_cycles < s) s = m->max_cycles;
    return s;
}

/* A suspension of c's thread that another CPU asked for (sim_thread_suspend) takes effect once
 * c's clock has reached the time it was asked at: true when the thread left c. */
static bool take_suspension(sim_machine *m, sim_cpu *c) {
    sim_thread *t = c->cur;
    if (!t || !t->suspend_pending || c->time < t->suspend_at) return false;
    t->suspend_pending = false;
    t->state = SIM_TS_WAITING;
    t->wait_reason = SIM_WR_SUSPENDED;
    t->wait_mode = 0;
    switch_to(m, c, pick_for(m, c, 0, true));
    return true;
}

boundary_result sim_sched_boundary(sim_machine *m) {
    sim_cpu *c = exec_cpu(m);
    sim_thread *t = c->cur;
    uint64_t rend = c->seg_end;
    /* bounded: each pass either processes a tick (time advances) or returns */
    for (;;) {
        if (c->cur != t) return BOUNDARY_YIELD;
        if (c->time >= m->max_cycles) return BOUNDARY_YIELD;
        if (take_suspension(m, c)) return BOUNDARY_YIELD;
        if (c->time >= c->next_tick) {
            tick(m, c);
            continue;
        }
        if (c->check_preempt) {
            check_preempt(m, c);
            if (c->cur != t) return BOUNDARY_YIELD;
        }
        if (c->time >= rend) return BOUNDARY_YIELD;
        break;
    }
    m->stop_at = sim_sched_stop_at(m, c);
    if (c->check_preempt) m->stop_at = rend < c->next_tick ? rend : c->next_tick; /* not yet eligible: recheck later */
    return BOUNDARY_CONTINUE;
}

/* ---- the driver's step -------------------------------------------------------------------- */

static bool all_idle(const sim_machine *m) {
    for (int i = 0; i < m->ncpus; i++)
        if (m->cpus[i].cur) return false;
    return true;
}

sim_run_status sim_sched_next(sim_machine *m, sim_thread **out) {
    *out = NULL;
    m->exec = NULL;
    m->running = NULL;
    /* Every pass advances a CPU's time, processes a tick, or dispatches; the
     * max_cycles limit bounds the loop. */
    for (;;) {
        sim_cpu *c = &m->cpus[0];
        for (int i = 1; i < m->ncpus; i++)
            if (m->cpus[i].time < c->time) c = &m->cpus[i];
        if (c->time >= m->max_cycles) return SIM_RUN_LIMIT;
        if (c->cur && take_suspension(m, c)) continue;
        if (c->cur) {
            m->exec = c;
            m->running = c->cur;
            *out = c->cur;
            return SIM_RUN_THREAD;
        }
        m->exec = c; /* idle work happens on c */
        if (c->time >= c->next_tick) {
            tick(m, c);
            continue;
        }
        sim_thread *t = pick_for(m, c, 0, true);
        if (t) {
            switch_to(m, c, t);
            /* Threads readied while c was idle told no CPU to check (c would take them); c
             * took t, so each other CPU running a lower priority than a Ready thread checks. */
            for (int i = 0; i < m->ncpus; i++) {
                sim_cpu *e = &m->cpus[i];
                if (e != c && e->cur && e->cur->priority < 31 && (m->rq_summary >> (e->cur->priority + 1)))
                    e->check_preempt = true;
            }
            continue;
        }
        if (m->nlive == 0) {
            m->exec = NULL;
            return SIM_RUN_DONE;
        }
        if (all_idle(m) && m->nready == 0 && m->ntimers == 0 && m->notimers == 0) {
            m->exec = NULL;
            return SIM_RUN_DEADLOCK;
        }
        uint64_t target = c->next_tick;
        uint64_t r = round_end(m, c);
        if (r < target) target = r;
        if (m->max_cycles < target) target = m->max_cycles;
        c->idle += target - c->time;
        c->time = target;
    }
}

sim_thread *sim_sched_current(const sim_machine *m) { return m->running; }

uint64_t sim_thread_cycle_time(const sim_thread *t) { return pmu_bank_cycle_time(&t->bank); }
uint64_t sim_thread_create_time(const sim_thread *t) { return t->create_time; }
uint64_t sim_thread_exit_time(const sim_thread *t) { return t->exit_time; }
uint64_t sim_thread_ticks(const sim_thread *t) { return t->ticks; }

void sim_kernel_work(sim_thread *t, uint64_t cycles) {
    sim_machine *m = t->m;
    if (!cycles || t->cpu < 0 || m->cpus[t->cpu].cur != t) return;
    sim_cpu *c = &m->cpus[t->cpu];
    pmu_bank_kernel(&t->bank, cycles);
    c->time += cycles;
    c->busy += cycles;
}

bool sim_sched_preempt_pending(sim_thread *t) {
    sim_machine *m = t->m;
    sim_cpu *c = &m->cpus[t->cpu];
    if (c->cur != t || !c->check_preempt) return false;
    check_preempt(m, c);
    return c->cur != t;
}

bool sim_yield(sim_thread *t, bool any_priority) {
    sim_machine *m = t->m;
    sim_cpu *c = &m->cpus[t->cpu];
    if (c->cur != t) return false;
    sim_thread *n = pick(m, c, any_priority ? 0 : t->priority);
    if (!n) return false;
    leave_ready(m, c, SIM_WR_YIELD_EXECUTION, SIM_READY_YIELD, false);
    switch_to(m, c, n);
    return true;
}

void sim_sched_unready(sim_thread *t) {
    if (t->state == SIM_TS_READY) rq_remove(t->m, t);
}

/* t leaves its CPU to wait (state already Waiting) or because it exited. */
void sim_sched_leave(sim_thread *t) {
    sim_machine *m = t->m;
    if (t->cpu < 0) return;
    sim_cpu *c = &m->cpus[t->cpu];
    if (c->cur != t) return;
    switch_to(m, c, pick_for(m, c, 0, true));
}

void sim_thread_exit(sim_thread *t, uint32_t code) {
    sim_machine *m = t->m;
    if (t->state == SIM_TS_TERMINATED) return;
    /* the clock of the CPU it runs on (the executing CPU for a body that ends) */
    t->exit_time = t->cpu >= 0 && m->cpus[t->cpu].cur == t ? m->cpus[t->cpu].time : sim_clock(m);
    if (t->state == SIM_TS_READY) rq_remove(m, t);
    if (t->state == SIM_TS_WAITING) sim_wait_cancel(t);
    t->suspended = t->suspend_pending = false;
    t->exit_code = code;
    sim_call_end(t);
    t->state = SIM_TS_TERMINATED;
    t->wait_reason = SIM_WR_EXECUTIVE;
    t->wait_mode = 0; /* KernelMode: it leaves the CPU from the kernel, not from an earlier user-mode wait */
    m->nlive--;
    /* Its waiters and the mutexes it abandons are readied while it still holds its CPU, as
     * Windows' exiting thread signals its object before its last context switch: a woken thread
     * of higher priority is then the one that CPU takes. */
    sim_thread_signal_exit(t);
    sim_sched_leave(t);
    for (int i = 0; i < m->nobs; i++)
        if (m->obs[i].thread_exit) m->obs[i].thread_exit(m->obs[i].ud, t);
    if (m->running == t) m->running = NULL;
}

int sim_cpu_count(const sim_machine *m) { return m->ncpus; }

void sim_cpu_stats_of(const sim_machine *m, int cpu, sim_cpu_stats *out) {
    memset(out, 0, sizeof *out);
    if (cpu < 0 || cpu >= m->ncpus) return;
    const sim_cpu *c = &m->cpus[cpu];
    *out = (sim_cpu_stats){c->time, c->busy, c->idle, c->intr, c->ticks, c->switches};
}

/* ---- deadlock report ------------------------------------------------------------------------- */

static const char *const obj_names[SIM_OBJ_TYPES] = {"event", "mutex", "semaphore", "thread", "timer"};

void sim_deadlock_report(sim_machine *m, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < m->nthreads && k + 1 < n; i++) {
        sim_thread *t = m->threads[i];
        if (t->state != SIM_TS_WAITING) continue;
        int w;
        if (t->suspended) { /* its wait (if any) is interrupted: nothing but a resumption ends it */
            w = snprintf(buf + k, n - k, "%sthread '%s' (id %u) is suspended", k ? "; " : "", t->name, t->id);
            if (w < 0) break;
            k += (size_t)w;
            continue;
        }
        w = snprintf(buf + k, n - k, "%sthread '%s' (id %u) waits%s on", k ? "; " : "", t->name, t->id,
                     t->wait_all && t->nwait > 1 ? " for all" : "");
        if (w < 0) break;
        k += (size_t)w;
        for (int j = 0; j < t->nwait && k + 1 < n; j++) {
            const sim_object *o = t->wb[j].obj;
            w = snprintf(buf + k, n - k, "%s %s #%u", j ? "," : "", obj_names[o->type], o->id);
            if (w < 0) break;
            k += (size_t)w;
            if (o->type == SIM_OBJ_MUTEX && o->owner && k + 1 < n) {
                w = snprintf(buf + k, n - k, " (owned by '%s')", o->owner->name);
                if (w > 0) k += (size_t)w;
            } else if (o->type == SIM_OBJ_THREAD && k + 1 < n) {
                w = snprintf(buf + k, n - k, " ('%s')", o->thread->name);
                if (w > 0) k += (size_t)w;
            }
        }
        if (k >= n) break;
    }
    if (k >= n && n > 4) memcpy(buf + n - 4, "...", 4);
}

/* ---- changing a thread's priority, affinity and ideal processor ------------------------------------ */

/* A change that may let a Ready thread preempt: every CPU running a lower
 * priority than the highest Ready one checks, as after ready(). */
static void recheck_all(sim_machine *m) {
    for (int i = 0; i < m->ncpus; i++) {
        sim_cpu *c = &m->cpus[i];
        if (c->cur && c->cur->priority < 31 && (m->rq_summary >> (c->cur->priority + 1))) {
            c->check_preempt = true;
            if (c == m->exec) m->stop_at = 0;
        }
    }
}

sim_err sim_thread_set_priority(sim_thread *t, int priority) {
    sim_machine *m = t->m;
    if (priority < 0 || priority > 31) return SIM_ERR_ARG;
    if (t->state == SIM_TS_TERMINATED || priority == t->priority) {
        t->priority = priority;
        return SIM_OK;
    }
    if (t->state == SIM_TS_READY) { /* the tail of its new queue */
        rq_remove(m, t);
        t->priority = priority;
        rq_insert(m, t, false);
    } else {
        t->priority = priority;
    }
    recheck_all(m);
    return SIM_OK;
}

static uint64_t machine_mask(const sim_machine *m) {
    return m->ncpus >= 64 ? UINT64_MAX : (UINT64_C(1) << m->ncpus) - 1;
}

sim_err sim_thread_set_affinity(sim_thread *t, uint64_t affinity, uint64_t *old) {
    sim_machine *m = t->m;
    uint64_t a = affinity & machine_mask(m);
    if (old) *old = t->affinity;
    if (!a || a != affinity) return SIM_ERR_ARG;
    t->affinity = a;
    if (!cpu_in(a, t->ideal)) { /* the ideal processor moves into the affinity, as at creation */
        int k = t->ideal;
        while (!cpu_in(a, k)) k = (k + 1) % m->ncpus;
        t->ideal = k;
    }
    /* the running thread of the executing CPU leaves a CPU it may no longer use */
    if (t->state == SIM_TS_RUNNING && m->exec && m->exec->cur == t && !cpu_in(a, m->exec->index)) {
        sim_cpu *c = m->exec;
        leave_ready(m, c, SIM_WR_PREEMPTED, SIM_READY_PREEMPTED, true);
        switch_to(m, c, pick_for(m, c, 0, true));
    }
    return SIM_OK;
}

int sim_thread_set_ideal(sim_thread *t, int cpu) {
    sim_machine *m = t->m;
    int prev = t->ideal;
    if (cpu < 0 || cpu >= m->ncpus || !cpu_in(t->affinity, cpu)) return -1;
    t->ideal = cpu;
    return prev;
}

sim_err sim_thread_hold(sim_thread *t) {
    if (t->state != SIM_TS_READY || t->switches) return SIM_ERR_STATE;
    rq_remove(t->m, t);
    t->state = SIM_TS_INITIALIZED;
    return SIM_OK;
}

sim_err sim_thread_release(sim_thread *t) {
    if (t->state != SIM_TS_INITIALIZED) return SIM_ERR_STATE;
    ready(t->m, t, sim_clock(t->m), SIM_READY_NEW, false);
    return SIM_OK;
}
