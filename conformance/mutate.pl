#!/usr/bin/perl
# conformance/mutate.pl — the mutation check (`make check-mutation`): does the
# test suite notice when one layer gets one rule wrong?  The mutants cover
# api/ (the HCP functions and ETW records), sim/ (scheduler, objects, timers,
# interrupts, lock-step rounds, the ISA layer), pmu_model/, reports/ and
# scenarios/, and favour rules where two mechanisms meet.
#
#   perl conformance/mutate.pl [--list] [--check] [--quick] [--first] [--keep] [--no-baseline] [NAME...]
#
# --list prints the mutations; --check only verifies, in this tree, that each
# edit's text occurs exactly once (seconds; no build); --quick runs only the
# Lua conformance files (conformance/*.lua) instead of make test, a first look
# that is not the check.  --first builds as make test does and then runs the
# test files of make test one at a time, stopping at the first that fails (the
# last killer is tried first): the same verdict as make test, much faster on
# a loaded machine, but "killed by" names that one file only.
# MUTATE_FIRST="pe_crt.sh pe_dll.sh ..." (file names) tries those files first.
# Copies the repository's tracked files (and new files not yet committed, not
# ignored ones) as they are in the working tree to a temporary directory,
# builds there and runs `make test` once unmutated (it must pass), then for
# each mutation below, one at a time: applies it (every edit's text must occur
# exactly once in its file, or the mutation "did not apply"), runs `make test`
# (which builds first) and requires it to FAIL; then restores the file.  Prints
# a Markdown table: mutation, what it breaks, the test files that failed
# (killed by), the time it took.  A test that hangs is stopped (MUTATE_TIMEOUT,
# below) and fails, so a mutant that hangs a run is killed.  Exits 1 if a mutant survived, did not apply
# or did not build; 2 on bad usage.  NAME... runs only those mutations.
# conformance/README.md "Mutation check" keeps the last run's table.
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Path qw(remove_tree);
use Time::HiRes qw(time);
use Cwd qw(abs_path);
use File::Basename qw(dirname);

# name, what the mutant gets wrong, [file, text, replacement]...
my @MUTANTS = (
    ['hw-packed', 'ReadThreadProfilingData packs HwCounters (k-th set mask bit in slot k) instead of slot = bit index',
     ['api/profiling.c', 'uint8_t *e = pd + PD_OFF(HwCounters) + 16 * i;',
      'uint8_t *e = pd + PD_OFF(HwCounters) + 16 * (uint32_t)__builtin_popcountll(p->mask & ((UINT64_C(1) << i) - 1));']],
    ['bitmap-not-cleared', 'a DISPATCHING read does not clear WaitReasonBitMap (bits accumulate across reads)',
     ['api/profiling.c', 'p->wr_bitmap = 0; /* read and clear: "since the last read" */', '/* mutant: not cleared */']],
    ['version-before-size', 'Read checks Version before Size (Size 0 and Version 2 gives 87, not 1784)',
     ['api/profiling.c',
      "    if (hcp_get16(pd + PD_OFF(Size)) != HCP_PERFORMANCE_DATA_SIZE) return win32(STATUS_INVALID_BUFFER_SIZE);\n"
        . "    if (pd[PD_OFF(Version)] != PERFORMANCE_DATA_VERSION) return win32(STATUS_INVALID_PARAMETER_3);\n",
      "    if (pd[PD_OFF(Version)] != PERFORMANCE_DATA_VERSION) return win32(STATUS_INVALID_PARAMETER_3);\n"
        . "    if (hcp_get16(pd + PD_OFF(Size)) != HCP_PERFORMANCE_DATA_SIZE) return win32(STATUS_INVALID_BUFFER_SIZE);\n"]],
    ['size-at-least', 'Read accepts Size >= 288 instead of exactly 288',
     ['api/profiling.c', 'if (hcp_get16(pd + PD_OFF(Size)) != HCP_PERFORMANCE_DATA_SIZE)',
      'if (hcp_get16(pd + PD_OFF(Size)) < HCP_PERFORMANCE_DATA_SIZE)']],
    ['unconfigured-not-zeroed', 'documented semantics leaves the slot of an unconfigured mask bit untouched instead of {PMCCounter, 0, 0}',
     ['api/profiling.c', "    [HCP_DOCUMENTED] = {.times_always = false,\n                        .unconfigured_zero = true,",
      "    [HCP_DOCUMENTED] = {.times_always = false,\n                        .unconfigured_zero = false,"]],
    ['cswitch-on-switch-out', 'ContextSwitchCount and the wait-reason bit are counted when the thread is switched out, not in',
     ['api/handles.c',
      'static void on_switch_in(void *ud, sim_thread *t, int reason) { hcp_prof_switch_in(ud, t, reason); }',
      "static void on_switch_in(void *ud, sim_thread *t, int reason) { (void)ud; (void)t; (void)reason; }\n"
        . "static void on_switch_out(void *ud, const sim_record *r) {\n"
        . "    if (r->type == SIM_REC_SWITCH && r->old) hcp_prof_switch_in(ud, (sim_thread *)(uintptr_t)r->old, r->old_wait_reason);\n"
        . "}"],
     ['api/handles.c', 'sim_observer o = {on_switch_in, on_thread_exit, NULL, os};',
      'sim_observer o = {on_switch_in, on_thread_exit, on_switch_out, os};']],
    ['keset-count-16', 'KeSetHardwareCounterConfiguration rejects Count 16 (Count >= 16 instead of > 16)',
     ['api/kecfg.c', 'if (Count > MAX_HW_COUNTERS) return STATUS_INVALID_PARAMETER;',
      'if (Count >= MAX_HW_COUNTERS) return STATUS_INVALID_PARAMETER;']],
    ['query-empty-mask', 'QueryThreadProfiling says FALSE for a thread profiling with an empty counter mask',
     ['api/profiling.c', 'uint8_t b = ot && ot->prof.enabled ? 1 : 0;',
      'uint8_t b = ot && ot->prof.enabled && ot->prof.mask ? 1 : 0;']],
    ['exit-time-running', 'GetThreadTimes gives a running thread an exit time (boot time + 0) instead of 0',
     ['api/times.c',
      'v[1] = sim_thread_state_of(t) == SIM_TS_TERMINATED ? c->boot_time + to_100ns(c, sim_thread_exit_time(t)) : 0;',
      'v[1] = c->boot_time + to_100ns(c, sim_thread_exit_time(t));']],
    ['enable-mask-bit16', 'EnableThreadProfiling accepts mask bit 16 (17 counters)',
     ['api/profiling.c', 'if (HardwareCounters & ~UINT64_C(0xFFFF))', 'if (HardwareCounters & ~UINT64_C(0x1FFFF))']],
    ['observed-count-with-data', 'observed semantics sets HwCountersCount to the slots with data, not the configured counters',
     ['api/profiling.c', "                      .unconfigured_zero = false,\n                      .count_configured = true,",
      "                      .unconfigured_zero = false,\n                      .count_configured = false,"]],
    ['disable-any-block', 'DisableThreadProfiling accepts a handle that is not the one Enable returned',
     ['api/profiling.c', 'if (ot->prof.block != PerformanceDataHandle) return win32(STATUS_INVALID_PARAMETER);',
      '/* mutant: no handle check */']],
    ['query-handle-first', 'QueryThreadProfiling checks the handle before probing the output byte (bad both: 6, not 998)',
     ['api/profiling.c',
      "    if (sim_mem_probe(os->m, Enabled, 1, true) != SIM_OK) return win32(STATUS_ACCESS_VIOLATION);\n"
        . "    sim_thread *t;\n"
        . "    uint32_t st = hcp_ref_thread(os, ThreadHandle, THREAD_QUERY_INFORMATION, &t);\n"
        . "    if (st != STATUS_SUCCESS) return win32(st);\n",
      "    sim_thread *t;\n"
        . "    uint32_t st = hcp_ref_thread(os, ThreadHandle, THREAD_QUERY_INFORMATION, &t);\n"
        . "    if (st != STATUS_SUCCESS) return win32(st);\n"
        . "    if (sim_mem_probe(os->m, Enabled, 1, true) != SIM_OK) return win32(STATUS_ACCESS_VIOLATION);\n"]],
    ['read-handle-before-flags', 'Read checks the handle before the flags (bad flags and a dead handle: 6, not 87)',
     ['api/profiling.c',
      "    if (Flags & ~(READ_THREAD_PROFILING_FLAG_DISPATCHING | READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS))\n"
        . "        return win32(STATUS_INVALID_PARAMETER_2);\n",
      "    { sim_thread *t0 = NULL; if (!find_record(os, PerformanceDataHandle, &t0)) return win32(STATUS_INVALID_HANDLE); }\n"
        . "    if (Flags & ~(READ_THREAD_PROFILING_FLAG_DISPATCHING | READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS))\n"
        . "        return win32(STATUS_INVALID_PARAMETER_2);\n"]],
    ['keset-zero-keeps', 'KeSetHardwareCounterConfiguration with Count 0 keeps the configuration instead of clearing it',
     ['api/kecfg.c', '    os->cfg_count = Count;', '    if (Count) os->cfg_count = Count;']],
    ['kequery-small-no-count', 'KeQueryHardwareCounterConfiguration does not write the required *Count when the array is too small',
     ['api/kecfg.c',
      "    if (sim_mem_write(os->m, Count, c, 4) != SIM_OK) return STATUS_ACCESS_VIOLATION;\n"
        . "    if (os->cfg_count > MaximumCount) return STATUS_BUFFER_TOO_SMALL;",
      "    if (os->cfg_count > MaximumCount) return STATUS_BUFFER_TOO_SMALL;\n"
        . "    if (sim_mem_write(os->m, Count, c, 4) != SIM_OK) return STATUS_ACCESS_VIOLATION;"]],
    ['kernel-time-unrounded', 'GetThreadTimes kernel time is not rounded down to whole ticks',
     ['api/times.c', 'v[2] = to_100ns(c, b->kev[PMU_EV_CYCLES] - b->intr_cycles) / c->tick * c->tick;',
      'v[2] = to_100ns(c, b->kev[PMU_EV_CYCLES] - b->intr_cycles);']],
    ['disable-align-8', 'DisableThreadProfiling requires 8-byte alignment instead of ProbeForWrite\'s 4',
     ['api/profiling.c', 'if (PerformanceDataHandle & 3) return win32(STATUS_DATATYPE_MISALIGNMENT);',
      'if (PerformanceDataHandle & 7) return win32(STATUS_DATATYPE_MISALIGNMENT);']],
    ['observed-flags0-keeps-bitmap', 'observed semantics: a Read without DISPATCHING leaves WaitReasonBitMap instead of zeroing it',
     ['api/profiling.c', "    if (rule->times_always) /* ntdll's reader (HCP-SPEC §2.4 step 4) */\n        hcp_put64(pd + PD_OFF(WaitReasonBitMap), 0);\n",
      '']],
    ['wait-bits-below-32', 'wait reasons 32 and above set no bit of WaitReasonBitMap',
     ['api/profiling.c', 'if (reason >= 0 && reason < 64)', 'if (reason >= 0 && reason < 32)']],
    ['cycletime-query-no-entry', 'QueryThreadCycleTime charges no kernel entry (its own call is not in the value)',
     ['api/times.c', "        return 0;\n    }\n    hcp_kernel_entry(os);\n    sim_thread *t;\n    uint32_t st = ref_query(os, ThreadHandle, &t);\n",
      "        return 0;\n    }\n    sim_thread *t;\n    uint32_t st = ref_query(os, ThreadHandle, &t);\n"]],
    ['cycletime-from-start', 'CycleTime counts from the thread\'s start instead of from EnableThreadProfiling',
     ['api/profiling.c', 'pmu_bank_cycle_time(sim_thread_bank(t)) - pmu_bank_cycle_time(&p->start);',
      'pmu_bank_cycle_time(sim_thread_bank(t));']],
    # ---- every layer (issue 22): sim/ scheduler, objects, timers, interrupts, rounds; the ISA
    # layer; pmu_model/; reports/; scenarios/; ETW records in api/ ----
    ['preempted-to-tail', 'a preempted thread goes to the tail of its ready queue instead of the head',
     ['sim/sched.c', "        sim_thread *n = pick(m, c, t->priority + 1);\n        leave_ready(m, c, SIM_WR_PREEMPTED, SIM_READY_PREEMPTED, true);",
      "        sim_thread *n = pick(m, c, t->priority + 1);\n        leave_ready(m, c, SIM_WR_PREEMPTED, SIM_READY_PREEMPTED, false);"]],
    ['quantum-end-to-head', 'a thread whose quantum ended goes to the head of its queue instead of the tail',
     ['sim/sched.c', 'leave_ready(m, c, SIM_WR_QUANTUM_END, SIM_READY_QUANTUM, false);',
      'leave_ready(m, c, SIM_WR_QUANTUM_END, SIM_READY_QUANTUM, true);']],
    ['quantum-end-higher-only', 'at quantum end only a strictly higher-priority Ready thread takes the CPU (not an equal one)',
     ['sim/sched.c', "        sim_thread *n = pick(m, c, t->priority);\n        if (n) {\n            leave_ready(m, c, SIM_WR_QUANTUM_END",
      "        sim_thread *n = pick(m, c, t->priority + 1);\n        if (n) {\n            leave_ready(m, c, SIM_WR_QUANTUM_END"]],
    ['preempt-fresh-quantum', 'a preempted thread gets a fresh quantum when it runs again instead of keeping its remainder',
     ['sim/sched.c', 'if (next->wait_reason != SIM_WR_PREEMPTED) next->quantum_start', 'next->quantum_start']],
    ['preempt-equal-priority', 'a readied thread preempts a running thread of equal priority',
     ['sim/sched.c', 'c->cur && c->cur->priority < t->priority', 'c->cur && c->cur->priority <= t->priority'],
     ['sim/sched.c', 'sim_thread *n = pick(m, c, t->priority + 1);', 'sim_thread *n = pick(m, c, t->priority);'],
     ['sim/sched.c', 'int p = pending_above(m, c, t->priority);', 'int p = pending_above(m, c, t->priority - 1);']],
    ['preempt-despite-idle-cpu', 'a readied thread preempts a lower-priority thread even when a CPU of its affinity is idle',
     ['sim/sched.c', 'if (cpu_in(t->affinity, i) && !m->cpus[i].cur) return; /* an idle CPU will take it */',
      '/* mutant: idle CPUs not considered */']],
    ['ready-time-ignored', 'a CPU takes a Ready thread that became Ready later than the CPU\'s own clock (lagging clocks)',
     ['sim/sched.c', 'if (!cpu_in(t->affinity, c->index) || t->ready_time > c->time) return false;',
      'if (!cpu_in(t->affinity, c->index)) return false;']],
    ['ideal-ignored', 'an idle CPU takes a thread whose ideal processor is another idle CPU',
     ['sim/sched.c', 'if (idle_pick && t->ideal != c->index', 'if (false && idle_pick && t->ideal != c->index']],
    ['ideal-even-if-busy', 'an idle CPU leaves a thread to its ideal processor even when that processor is busy',
     ['sim/sched.c', 'if (idle_pick && t->ideal != c->index && !m->cpus[t->ideal].cur && cpu_in', 'if (idle_pick && t->ideal != c->index && cpu_in'],
     ['sim/sched.c', 'if (t->ideal != c->index && !m->cpus[t->ideal].cur && cpu_in', 'if (t->ideal != c->index && cpu_in']],
    ['ideal-default-cpu0', 'the default ideal processor is the first CPU of the affinity, not creation order round robin',
     ['sim/machine.c', 'int k = t->index % m->ncpus;', 'int k = 0;']],
    ['cpu-tie-highest-index', 'on a clock tie the highest-index CPU steps next instead of the lowest',
     ['sim/sched.c', "        for (int i = 1; i < m->ncpus; i++)\n            if (m->cpus[i].time < c->time) c = &m->cpus[i];",
      "        for (int i = 1; i < m->ncpus; i++)\n            if (m->cpus[i].time <= c->time) c = &m->cpus[i];"]],
    ['round-end-unaligned', 'a lock-step round ends slice cycles after the segment start instead of at the next multiple of slice',
     ['sim/sched.c', 'return (c->time / m->cfg.slice + 1) * m->cfg.slice;', 'return c->time + m->cfg.slice;']],
    ['timers-every-cpu', 'every CPU\'s clock interrupt expires timers, not only CPU 0\'s',
     ['sim/sched.c', 'if (c->index == 0) sim_timer_expire(m, at);', 'sim_timer_expire(m, at);']],
    ['timer-expiry-after-interrupt', 'a tick expires the timers due up to the end of its interrupt instead of its due time',
     ['sim/sched.c', 'if (c->index == 0) sim_timer_expire(m, at);', 'if (c->index == 0) sim_timer_expire(m, c->time);']],
    ['timer-due-strict', 'a timer due exactly at a tick waits for the next tick',
     ['sim/objects.c', 'm->timers[0]->timer_due <= now', 'm->timers[0]->timer_due < now']],
    ['timer-tie-highest-id', 'timers due at the same time expire highest thread id first',
     ['sim/objects.c', '(a->timer_due == b->timer_due && a->id < b->id)', '(a->timer_due == b->timer_due && a->id > b->id)']],
    ['interrupt-in-cycle-time', 'a clock interrupt\'s cycles count in the interrupted thread\'s cycle time (and quantum)',
     ['sim/sched.c', 'pmu_bank_interrupt(&t->bank, m->cfg.interrupt_cycles);', 'pmu_bank_kernel(&t->bank, m->cfg.interrupt_cycles);']],
    ['interrupt-not-in-cpu-stats', 'a CPU\'s interrupt time is not counted (its clock still moves)',
     ['sim/sched.c', "    c->intr += m->cfg.interrupt_cycles;\n", '']],
    ['idle-not-counted', 'an idle CPU\'s clock jump is not counted as idle time',
     ['sim/sched.c', "        c->idle += target - c->time;\n", '']],
    ['idle-past-round-end', 'an idle CPU jumps to its next tick even past the end of its lock-step round',
     ['sim/sched.c', "        uint64_t r = round_end(m, c);\n        if (r < target) target = r;\n", '']],
    ['alone-no-new-quantum', 'a thread alone at its priority at quantum end gets no new quantum (the next arrival takes the CPU at the next tick)',
     ['sim/sched.c', "t->quantum_start = sim_thread_cycle_time(t); /* alone at its priority: a new quantum */", '/* mutant */']],
    ['switchtothread-same-priority', 'SwitchToThread yields only to a thread of the same or higher priority',
     ['sim/sched.c', 'sim_thread *n = pick(m, c, any_priority ? 0 : t->priority);', 'sim_thread *n = pick(m, c, t->priority);']],
    ['remote-preempt-at-round-end', 'a CPU that another CPU told to check for preemption checks only at its next tick or round end, not at its next block boundary',
     ['sim/sched.c', "    if (c->check_preempt) return 0;\n    uint64_t s = c->next_tick;", "    uint64_t s = c->next_tick;"]],
    ['wait-any-highest-index', 'a wait-any satisfied at once returns the highest signalled index instead of the lowest',
     ['sim/objects.c', "    for (int i = 0; i < n; i++) {\n        if (signaled_for(objs[i], t)) {",
      "    for (int i = n - 1; i >= 0; i--) {\n        if (signaled_for(objs[i], t)) {"]],
    ['manual-event-resets', 'a manual-reset event resets when a wait is satisfied (wakes one waiter)',
     ['sim/objects.c', "    case SIM_OBJ_EVENT:\n        if (!o->manual) o->signaled = false;", "    case SIM_OBJ_EVENT:\n        o->signaled = false;"]],
    ['mutex-no-recursion', 'a mutex re-acquired by its owner does not count the recursion',
     ['sim/objects.c', "        if (o->owner == t)\n            o->recursion++;\n        else\n            own(o, t);",
      "        if (o->owner != t) own(o, t);"]],
    ['abandoned-not-marked', 'a mutex whose owner exits is not marked abandoned (the next waiter gets WAIT_OBJECT_0)',
     ['sim/objects.c', "        mx->abandoned = true;\n", '']],
    ['zero-timeout-first', 'a zero-timeout wait returns WAIT_TIMEOUT even when the object is signalled',
     ['sim/objects.c', "    if (n > 0 && try_satisfy(t, objs, n, all)) return SIM_WAIT_DONE;\n    if (timeout == 0) {\n        t->wait_status = SIM_WAIT_TIMEOUT;\n        return SIM_WAIT_DONE;\n    }\n",
      "    if (timeout == 0) {\n        t->wait_status = SIM_WAIT_TIMEOUT;\n        return SIM_WAIT_DONE;\n    }\n    if (n > 0 && try_satisfy(t, objs, n, all)) return SIM_WAIT_DONE;\n"]],
    ['mispredict-not-on-clock', 'a mispredict penalty is charged to the thread but does not move the CPU clock',
     ['sim/cpu.c', '    if (miss) clock_add(m, pmu_bank_branch_miss(&t->bank, &m->cfg.cost));',
      '    if (miss) (void)pmu_bank_branch_miss(&t->bank, &m->cfg.cost);'],
     ['sim/cpu.c', "        clock_add(m, pmu_bank_branch_miss(&t->bank, &m->cfg.cost));\n    count_run",
      "        (void)pmu_bank_branch_miss(&t->bank, &m->cfg.cost);\n    count_run"]],
    ['mem-penalty-not-busy', 'a cache penalty moves the CPU clock but is not counted as busy time',
     ['sim/cpu.c', '    if (level > 1) clock_add(m, pmu_bank_mem(&t->bank, level, &m->cfg.cost));',
      "    if (level > 1) {\n        uint64_t c2 = pmu_bank_mem(&t->bank, level, &m->cfg.cost);\n        m->exec->time += c2;\n        m->budget = m->budget > c2 ? m->budget - c2 : 0;\n    }"]],
    ['stop-after-due', 'the block hook runs the block that starts exactly at a tick or round end before stopping',
     ['sim/cpu.c', 'm->budget = m->exec && m->exec->time < m->stop_at ? m->stop_at - m->exec->time : 0;',
      'm->budget = m->exec && m->exec->time <= m->stop_at ? m->stop_at - m->exec->time + 1 : 0;']],
    ['predictor-shared', 'every CPU resolves branches with CPU 0\'s predictor instead of its own',
     ['sim/cpu.c', 'pmu_bp *bp = m->exec ? m->exec->bp : NULL;', 'pmu_bp *bp = m->exec ? m->cpus[0].bp : NULL;'],
     ['sim/cpu.c', 'm->hot_bp = m->exec ? m->exec->bp : NULL;', 'm->hot_bp = m->exec ? m->cpus[0].bp : NULL;']],
    ['cache-shared', 'every CPU\'s data accesses go to CPU 0\'s cache hierarchy instead of its own',
     ['sim/cpu.c', 'm->hot_cache = m->exec ? m->exec->cache : NULL;', 'm->hot_cache = m->exec ? m->cpus[0].cache : NULL;']],
    ['ras-full-drops-newest', 'a call on a full return stack is dropped instead of overwriting the oldest entry',
     ['pmu_model/pmu.c', "    if (!r) return;\n    bp->ras[bp->ras_head]", "    if (!r || bp->ras_n == r) return;\n    bp->ras[bp->ras_head]"]],
    ['btb-no-pc-tag', 'the BTB predicts from an entry whatever pc left it (no tag check)',
     ['pmu_model/pmu.c', 'bool hit = x->valid && x->pc == pc && x->target == target;', 'bool hit = x->valid && x->target == target;']],
    ['gshare-no-history', 'the conditional predictor indexes by pc alone (no global history)',
     ['pmu_model/pmu.c', 'uint32_t i = (uint32_t)(((pc >> bp->p.pc_shift) ^ bp->hist) & bp->index_mask);',
      'uint32_t i = (uint32_t)((pc >> bp->p.pc_shift) & bp->index_mask);']],
    ['straddle-first-line-only', 'an access straddling two lines misses only when its first line misses',
     ['pmu_model/pmu.c', 'if (!line_ref(l, first + k)) hit = false;', 'if (!line_ref(l, first + k) && k == 0) hit = false;']],
    ['cache-fifo', 'a cache hit does not make the line most recently used (FIFO instead of LRU)',
     ['pmu_model/pmu.c', "    uint64_t carry = tag;\n", "    for (uint32_t j = 0; j < ways; j++)\n        if (s[j] == tag) return true;\n    uint64_t carry = tag;\n"]],
    ['kernel-no-ref-cycles', 'kernel work adds cycles but no ref-cycles',
     ['pmu_model/pmu.h', "    b->kev[PMU_EV_CYCLES] += cycles;\n    b->kev[PMU_EV_REF_CYCLES] += cycles;", "    b->kev[PMU_EV_CYCLES] += cycles;"]],
    ['x86-result-zero-extended', 'a 32-bit x86 guest call\'s eax is zero-extended instead of sign-extended',
     ['sim/isa_x86.c', 'return (uint64_t)(int64_t)(int32_t)(uint32_t)sim_reg(m, UC_X86_REG_EAX);', 'return (uint64_t)(uint32_t)sim_reg(m, UC_X86_REG_EAX);']],
    ['x64-gate-arg5-no-shadow', 'the gate reads an x64 guest caller\'s fifth argument at [rsp+0x20], forgetting the return address',
     ['sim/isa_x86.c', 'sim_reg(m, UC_X86_REG_RSP) + 0x28 + 8 * (uint64_t)(k - 4)', 'sim_reg(m, UC_X86_REG_RSP) + 0x20 + 8 * (uint64_t)(k - 4)']],
    ['arm-gate-stack-args-off', 'the gate reads a 32-bit ARM caller\'s fifth argument word one word up the stack',
     ['sim/isa_arm.c', 'sim_reg(m, UC_ARM_REG_SP) + 4 * (uint64_t)(k - 4)', 'sim_reg(m, UC_ARM_REG_SP) + 4 * (uint64_t)(k - 3)']],
    ['x86-stdcall-pop-short', 'an x86 gate thunk\'s ret n pops one argument word too few',
     ['sim/cpu.c', 'uint8_t iw[2] = {(uint8_t)bytes, (uint8_t)(bytes >> 8)};', 'uint8_t iw[2] = {(uint8_t)(bytes ? bytes - 4 : 0), (uint8_t)((bytes ? bytes - 4 : 0) >> 8)};']],
    ['arm64-thunk-nop', 'the ARM64 gate thunk is svc; nop; ret (3 instructions) instead of svc; ret',
     ['sim/isa_arm.c', "    put32(p + 4, 0xD65F03C0u);\n    put32(p + 8, 0xD4200000u);", "    put32(p + 4, 0xD503201Fu);\n    put32(p + 8, 0xD65F03C0u);"]],
    ['report-kernel-with-interrupts', 'the report\'s kernel_cycles include the clock interrupts',
     ['reports/report_data.h', '    return rt->bank.kev[PMU_EV_CYCLES] - rt->bank.intr_cycles;', '    return rt->bank.kev[PMU_EV_CYCLES];']],
    ['report-busy-with-interrupts', 'the report\'s busy_bp counts interrupt time as busy (time - idle)',
     ['reports/report_json.c', 'jint(x, "busy_bp", rc->st.time ? sim_mul_div(rc->st.busy, 10000, rc->st.time) : 0);',
      'jint(x, "busy_bp", rc->st.time ? sim_mul_div(rc->st.time - rc->st.idle, 10000, rc->st.time) : 0);']],
    ['report-running-ends-at-machine-end', 'a thread still running at the end gets an interval to the machine\'s end, not its CPU\'s clock',
     ['reports/report.c', 'add_interval(rm, c, rc->cur, rc->since, rc->st.time, -1, NX_RUNNING);',
      'add_interval(rm, c, rc->cur, rc->since, rm->end, -1, NX_RUNNING);']],
    ['report-exit-counted-as-out', 'the report counts a thread\'s exit as a switch-out by wait reason (Executive)',
     ['reports/report.c', "    if (next == NX_READY || next == NX_WAITING)\n        rt->outs[rep_wait_index(why)]++;",
      "    if (next != NX_RUNNING)\n        rt->outs[rep_wait_index(why)]++;"]],
    ['ready-before-leave', 'a thread woken by a CPU whose clock lags is Ready at that clock even when it lies before the time it left its own CPU',
     ['sim/sched.c', "    if (time < t->leave_time) time = t->leave_time;\n", '']],
    ['trace-cpu-span-old-priority', 'a trace CPU span\'s priority is the outgoing thread\'s, not the incoming one\'s',
     ['reports/trace.c', 'rm->cpus[c] = (rcpu){sim_thread_index(r->thread), ns, r->new_priority};',
      'rm->cpus[c] = (rcpu){sim_thread_index(r->thread), ns, r->old ? r->old_priority : r->new_priority};']],
    ['etw-ideal-of-new-thread', 'CSwitch OldThreadWaitIdealProcessor is the incoming thread\'s ideal processor',
     ['api/etw.c', 'r->old ? (uint64_t)sim_thread_ideal(r->old) : 0,', 'r->thread ? (uint64_t)sim_thread_ideal(r->thread) : 0,']],
    ['etw-readythread-no-dpc-flag', 'ReadyThread after a timeout has Flag 0 instead of READY_FROM_DPC',
     ['api/etw.c', 'dpc ? READY_FROM_DPC : 0, 0};', '0, 0};']],
    ['lua-dword-range-33-bits', 'the Lua binding accepts a DWORD argument up to 2^33 - 1 (keeping its low 32 bits) instead of refusing it',
     ['scenarios/lhcp.c', 'if (v < -(lua_Integer)0x80000000 || v > (lua_Integer)0xFFFFFFFF)', 'if (v < -(lua_Integer)0x80000000 || v > (lua_Integer)0x1FFFFFFFF)']],
    ['lua-wait-default-zero', 'a Lua wait without a timeout argument waits 0 ms instead of INFINITE',
     ['scenarios/lthread.c', 'if (lua_isnoneornil(L, arg)) return INFINITE;', 'if (lua_isnoneornil(L, arg)) return 0;']],
    ['memwalk-stride-4', 'the memwalk kernel steps 4 bytes instead of one 8-byte word',
     ['scenarios/kernels/memwalk.S', "\tadd\trcx, 8\n", "\tadd\trcx, 4\n"]],
    ['tap-todo-pass-ok', 'tap.todo prints a passing test inside a todo as ok instead of failing it',
     ['scenarios/lib/tap.lua', "    if pass then\n      failed = failed + 1\n      line = string.format(\"not ok %d - %s\", count,",
      "    if pass then\n      line = string.format(\"ok %d - %s\", count,"]],
    ['loop-no-budget', 'the run of a steady loop is counted without checking that more cycles are left than it costs, so its CPU runs past the tick, the quantum end and the cycle limit',
     ['sim/cpu.c', 'if (size == m->loop_size && addr == m->last_block_addr && m->budget > prev->st.cycles) {',
      'if (size == m->loop_size && addr == m->last_block_addr) {']],
    ['loop-before-predictor-steady', 'a block that went to itself counts as a steady loop even when its branch still trains the predictor',
     ['sim/cpu.c', 'm->loop_size = steady && b == prev ? size : NO_LOOP;', 'm->loop_size = b == prev ? size : NO_LOOP;']],
    ['replay-no-entry-save', 'the block hook saves nothing at a block\'s entry, so a fault replay starts from the registers the block changed (sim/replay.c)',
     ['sim/cpu.c', "    if (b->save) sim_replay_save(m, b); /* what a replay of it would need (replay.c) */\n", '']],
    ['replay-no-undo', 'a fault replay leaves its stores in guest memory instead of undoing them',
     ['sim/replay.c', 'if (m->journal[i].write) uc_mem_write(m->uc, m->journal[i].addr, m->journal[i].old, m->journal[i].size);',
      'if (m->journal[i].write && !m->journal[i].write) uc_mem_write(m->uc, m->journal[i].addr, m->journal[i].old, m->journal[i].size);']],
    ['lua-body-no-cycle-limit', 'a Lua body whose API calls never block runs past max_cycles (only the Lua instruction limit stops it)',
     ['scenarios/lmachine.c', 'sim_clock(m) < sim_max_cycles(m)) return;', 'sim_clock(m) < sim_max_cycles(m) || m) return;']],
    # issue 33: timer objects, suspension, user-mode synchronisation, APCs, the pool, object rules
    ['timer-object-wake-not-dpc', 'a timer object\'s expiry readies its waiters as a plain wake-up (ReadyThread Flag 0), not from the clock interrupt\'s DPC',
     ['sim/objects.c', 'wake_waiters_by(o, SIM_READY_TIMER);', 'wake_waiters(o);']],
    ['timer-period-from-due', 'a periodic timer comes due again a period after its last due time instead of after the tick that expired it',
     ['sim/objects.c', 'o->due = now + o->period;', 'o->due += o->period;']],
    ['resume-ended-wait-old-reason', 'a wait that ends when its suspended thread is resumed reports its own wait reason, not Suspended',
     ['sim/objects.c', "    t->susp_wait = false;\n    sim_object *objs[SIM_MAX_WAIT];", "    t->susp_wait = false;\n    t->wait_reason = t->susp_reason;\n    sim_object *objs[SIM_MAX_WAIT];"]],
    ['cv-wake-all-wakes-one', 'WakeAllConditionVariable wakes only the oldest sleeper',
     ['api/k32_srw.c', "        any = true;\n        if (!all) break;\n", "        any = true;\n        break;\n"]],
    ['apc-lifo', 'a thread\'s user APCs run newest first',
     ['api/ucb.c', "    hcp_apc ap = x->apc[0];\n    memmove(x->apc, x->apc + 1, (size_t)(x->napc - 1) * sizeof *x->apc);\n", "    hcp_apc ap = x->apc[x->napc - 1];\n"]],
    ['pool-worker-per-callback', 'the pool starts a worker for each queued callback, not only while fewer than the CPUs are active',
     ['api/k32_pool.c', '&& active(c, pool) < sim_cpu_count(c->m))', ')']],
    ['named-object-outlives-handles', 'a named object keeps its name after its last handle is closed',
     ['api/k32_sync.c', 'if (n && --n->refs <= 0) *n = p->named[--p->nnamed];', 'if (n) --n->refs;']],
    ['current-process-not-waitable', 'the current process pseudo-handle is not a waitable object (a wait on it fails, as before issue 33)',
     ['api/handles.c', "    if (v == HCP_CURRENT_PROCESS) { /* the process: waitable, signalled when it ends */\n        if (want != OBJ_NONE && want != OBJ_PROCESS) return STATUS_OBJECT_TYPE_MISMATCH;",
      "    if (v == HCP_CURRENT_PROCESS) { /* the process: waitable, signalled when it ends */\n        if (want != OBJ_PROCESS) return STATUS_OBJECT_TYPE_MISMATCH;"]],
    # Issue 30's mutants: the Windows surface (the loader, exceptions, kernel32, ntdll, the C
    # runtime, the marshaller); conformance/README.md "Issue 30's mutants: the Windows surface".
    ['dispatch-handle-zero-extended', 'a HANDLE argument of a 32-bit guest is zero-extended, not sign-extended ((HANDLE)-2 is no longer the current thread)',
     ['api/dispatch.c', "            x = hcp_handle_arg(os, x);\n", "            if (p32) x &= 0xFFFFFFFFu;\n"]],
    ['dispatch-stdcall-pop-params', 'an x86 stdcall thunk pops 4 bytes per parameter, not per argument word (a 64-bit argument is two words)',
     ['api/dispatch.c', 'sim_gate_set_pop(os->m, svc, 4u * (uint32_t)e->words);', 'sim_gate_set_pop(os->m, svc, 4u * (uint32_t)e->nparams);']],
    ['reloc-offset-11-bits', 'a base relocation entry\'s page offset keeps 11 bits instead of 12',
     ['api/pe_image.c', 'uint32_t at = page + (e & 0xFFFu);', 'uint32_t at = page + (e & 0x7FFu);']],
    ['reloc-odd-block-accepted', 'a base relocation block of odd size is accepted instead of refused',
     ['api/pe_image.c', 'if (bsize < 8 || bsize > size - off || bsize % 2)', 'if (bsize < 8 || bsize > size - off)']],
    ['export-ordinal-no-base', 'an import by ordinal indexes the export table by the ordinal itself, forgetting the directory\'s Base',
     ['api/pe_dll.c', "        idx = (int)(ordinal - mod->exp_base);\n", "        idx = (int)ordinal;\n"]],
    ['detach-in-init-order', 'DLL_PROCESS_DETACH and DLL_THREAD_DETACH go to the DLLs in initialization order, not the reverse',
     ['api/pe_dll.c', 'int mi = st->init[attach ? k : st->ninit - 1 - k];', 'int mi = st->init[k];']],
    ['teb-x86-tls-slot', 'an x86 main thread\'s TEB keeps ThreadLocalStoragePointer at 0x30 instead of 0x2C',
     ['api/pe_process.c', "    LAY(d->teb, TEB, ThreadLocalStoragePointer, d->tls_array);\n",
      "    if (x64)\n        LAY(d->teb, TEB, ThreadLocalStoragePointer, d->tls_array);\n    else\n        wr(&k, d->teb + 0x30, d->tls_array, 4);\n"]],
    ['check-export-kind-read-flag', 'hcpsim check calls an export a function when its section is readable (0x40000000), not executable',
     ['api/pe_check.c', 'return (sc->flags & 0x20000000u) ? "function" : "data";', 'return (sc->flags & 0x40000000u) ? "function" : "data";']],
    ['raise-x86-args-not-popped', 'RaiseException on x86 resumes a handler that continues with its four stdcall arguments still on the stack',
     ['api/seh.c', 'ctx.gpr[HCP_SP] = sp + c->w + (c->w == 4 ? 16u : 0u);', 'ctx.gpr[HCP_SP] = sp + c->w;']],
    ['seh-av-info-pc', 'an access violation\'s ExceptionInformation[1] is the faulting instruction\'s address, not the data address',
     ['api/seh.c', 'e.info[1] = f->data;', 'e.info[1] = f->address;']],
    ['unwind-alloc-small-no-8', 'x64 unwinding undoes UWOP_ALLOC_SMALL by 8 x info bytes instead of 8 x info + 8',
     ['api/seh_x64.c', 'case UWOP_ALLOC_SMALL: x->gpr[HCP_SP] += 8ull * in + 8; break;', 'case UWOP_ALLOC_SMALL: x->gpr[HCP_SP] += 8ull * in; break;']],
    ['x86-unwind-no-exit-flag', 'an x86 unwind without a target frame does not set EXCEPTION_EXIT_UNWIND in the handlers\' record',
     ['api/seh_x86.c', 'EXCEPTION_UNWINDING | (u->target ? 0 : EXCEPTION_EXIT_UNWIND)', 'EXCEPTION_UNWINDING']],
    ['csh-constant-filter-called', '__C_specific_handler calls a scope\'s constant filter EXCEPTION_EXECUTE_HANDLER (HandlerAddress 1) as code at image base + 1',
     ['api/seh_csh.c', "        if (sr[2] == EXCEPTION_EXECUTE_HANDLER) goto unwind;\n", '']],
    ['createfile-exists-open-always-only', 'CreateFile with CREATE_ALWAYS over an existing file leaves last error 0 instead of ERROR_ALREADY_EXISTS',
     ['api/k32_file.c', 'existed && (disp == 2 || disp == 4) ? ERROR_ALREADY_EXISTS', 'existed && disp == 4 ? ERROR_ALREADY_EXISTS']],
    ['readfile-overlapped-eof-true', 'ReadFile with an OVERLAPPED offset at or past the end returns TRUE with 0 bytes instead of ERROR_HANDLE_EOF',
     ['api/k32_file.c', "    if (ov && !write && !done && n) return hcp_fail(c, ERROR_HANDLE_EOF); /* a read at or past the end */\n", '']],
    ['vcommit-last-page-not-rounded', 'VirtualAlloc committing inside a reservation rounds the range\'s end down, leaving its last partial page reserved',
     ['api/k32_memory.c', 'hi = (want + size + 0xFFFu) & ~(uint64_t)0xFFF, fresh = 0;', 'hi = (want + size) & ~(uint64_t)0xFFF, fresh = 0;']],
    ['expand-count-without-nul', 'ExpandEnvironmentStrings returns (and checks the buffer against) the length without the terminating NUL',
     ['api/k32_env.c', 'uint64_t need = o.n + 1; /* units (bytes for ANSI), the NUL included */', 'uint64_t need = o.n; /* mutant: the NUL left out */']],
    ['gmhex-takes-no-reference', 'GetModuleHandleEx without UNCHANGED_REFCOUNT takes no reference on a dynamically loaded DLL',
     ['api/k32_module.c', "        else if (!(flags & GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT))\n            c->p->mods[mi].refs++;\n", "        else if (!(flags & GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT))\n            (void)0;\n"]],
    ['setpriority-highest-rejected', 'SetThreadPriority refuses THREAD_PRIORITY_HIGHEST (2) with ERROR_INVALID_PARAMETER',
     ['api/k32_thread.c', 'if (!((n >= -2 && n <= 2) ||', 'if (!((n >= -2 && n < 2) ||']],
    ['systime-day-off-by-one', 'SystemTimeToFileTime counts the day of the month from 0 (one day late)',
     ['api/k32_time.c', "    days += d - 1;\n", "    days += d;\n"]],
    ['tz-dst-start-daylight-bias', 'daylight saving time begins at the rule\'s daylight local time instead of its standard local time (an hour late)',
     ['api/k32_tz.c', 'int64_t dst_start = (int64_t)rule_time(&z->dst, y) + to_utc_std;', 'int64_t dst_start = (int64_t)rule_time(&z->dst, y) + to_utc_dst;']],
    ['named-exists-no-error', 'creating an object under a name already used returns its handle without setting ERROR_ALREADY_EXISTS',
     ['api/k32_sync.c', "        set_inherit(c, h, sa_inherit(c, sa));\n        hcp_SetLastError(c->os, ERROR_ALREADY_EXISTS);\n", "        set_inherit(c, h, sa_inherit(c, sa));\n        hcp_SetLastError(c->os, ERROR_SUCCESS);\n"]],
    ['srw-reader-passes-writer', 'a new shared SRW acquirer takes a shared-held lock even while a writer waits',
     ['api/k32_srw.c', 'if (s && (s->excl || (excl && s->shared) || (!excl && waiters))) return false;', 'if (s && (s->excl || (excl && s->shared))) return false;']],
    ['once-failed-stays-done', 'InitOnceComplete with INIT_ONCE_INIT_FAILED marks the once done (context 0) instead of uninitialized',
     ['api/k32_once.c', "        nv = 0;\n    } else {\n        nv = ctx | 2;", "        nv = 2;\n    } else {\n        nv = ctx | 2;"]],
    ['pool-maximum-ignored', 'the thread pool starts workers beyond SetThreadpoolThreadMaximum',
     ['api/k32_pool.c', 'pool->nworkers < pool->max && ', '']],
    ['sleepex0-runs-no-apc', 'SleepEx(0, TRUE) with queued APCs yields without running them (returns 0, not WAIT_IO_COMPLETION)',
     ['api/k32_apc.c', "    if (a->bAlertable && hcp_apc_pending(c->os, c->t)) return win32_result(c, STATUS_USER_APC);\n", '']],
    ['timer-apc-halves-swapped', 'a waitable timer\'s completion routine gets the due time\'s high DWORD as dwTimerLowValue and the low as dwTimerHighValue',
     ['api/k32_timer.c', 'w->arg, ft & 0xFFFFFFFFu, ft >> 32, tag_of(o)', 'w->arg, ft >> 32, ft & 0xFFFFFFFFu, tag_of(o)']],
    ['mbtowc-count-without-nul', 'MultiByteToWideChar with cbMultiByte -1 counts the characters without the terminating NUL',
     ['api/k32_console.c', "        if (!(s = hcp_gstr(c, a->lpMultiByteStr, &len))) return 0;\n        len++;\n", "        if (!(s = hcp_gstr(c, a->lpMultiByteStr, &len))) return 0;\n"]],
    ['modulefilename-exact-fits', 'GetModuleFileName with a buffer of exactly the name\'s length succeeds (no room for the NUL) instead of truncating with ERROR_INSUFFICIENT_BUFFER',
     ['api/k32_system.c', 'if (n < size) { /* the whole name and its NUL */', 'if (n <= size) { /* the whole name and its NUL */']],
    ['glpi-x86-record-32', 'GetLogicalProcessorInformation on x86 uses 32-byte records instead of 24',
     ['api/k32_procinfo.c', 'unsigned rec = c->w == 8 ? 32 : 24; /* ProcessorMask, Relationship, a 16-byte union */', 'unsigned rec = 32; /* ProcessorMask, Relationship, a 16-byte union */']],
    ['ntqit-basic-x86-size-32', 'NtQueryInformationThread(ThreadBasicInformation) on x86 wants 32 bytes instead of 28',
     ['api/ntdll_sync.c', 'uint32_t n = w == 8 ? 48 : 28;', 'uint32_t n = w == 8 ? 48 : 32;']],
    ['printf-space-beats-plus', 'printf lets a \' \' flag after \'+\' replace it ("%+ d" prints " 5", not "+5")',
     ['api/crt_printf.c', "if (f.sign != '+') f.sign = (char)ch;", 'f.sign = (char)ch;']],
    ['printf-prec0-zero-digit', 'printf prints "0" for a zero with precision 0 ("%.0d" must print nothing)',
     ['api/crt_printf.c', "        if (f->prec) tmp[i++] = '0';\n", "        tmp[i++] = '0';\n"]],
    ['scanf-eof-after-stored', 'sscanf returns EOF when the input ends after some fields were already stored, not their count',
     ['api/crt_scanf.c', "input_end:\n    if (stored) goto done;\n", "input_end:\n"]],
    ['scanf-i-decimal', 'scanf\'s %i reads as decimal, ignoring the 0x and 0 prefixes',
     ['api/crt_scanf.c', "ptr ? 17 : conv == 'i' ? 0 : 10;", "ptr ? 17 : 10;"]],
    ['strtol-base0-no-octal', 'strtol with base 0 reads a leading 0 as decimal, not octal',
     ['api/crt_stdlib.c', 'if (!base) base = zero_first ? 8 : 10;', 'if (!base) base = 10;']],
    ['itoa-negative-any-radix', '_itoa writes a negative value with a \'-\' in every radix, not only 10 (radix 16 must give the two\'s complement digits)',
     ['api/crt_stdlib.c', 'bool neg = is_signed && radix == 10 && (int64_t)v < 0;', 'bool neg = is_signed && (int64_t)v < 0;']],
    ['strrchr-nul-null', 'strrchr(s, 0) returns NULL instead of the terminator\'s address',
     ['api/crt_string.c', "uint16_t ch = w == 1 ? (uint8_t)a->_Ch : (uint16_t)a->_Ch;\n    uint64_t r = 0;\n    if (!ch) {\n        r = a->_Str + n * w;\n",
      "uint16_t ch = w == 1 ? (uint8_t)a->_Ch : (uint16_t)a->_Ch;\n    uint64_t r = 0;\n    if (!ch) {\n        r = 0;\n"]],
    ['strstr-misses-suffix', 'strstr does not find a substring that ends at the string\'s end',
     ['api/crt_string.c', 'for (size_t i = 0; i + m <= n; i++)', 'for (size_t i = 0; i + m < n; i++)']],
    ['ctype-xdigit-G', 'isxdigit(\'G\') is true (the upper-case hex range ends at G)',
     ['api/crt_ctype.c', "return (uint16_t)(C_UPPER | (c <= 'F' ? C_HEX : 0));", "return (uint16_t)(C_UPPER | (c <= 'G' ? C_HEX : 0));"]],
    ['bsearch-misses-last', 'bsearch stops when one candidate is left (lo < hi) instead of comparing it',
     ['api/crt_sort.c', "            while (s->lo <= s->hi) {\n                s->med = s->lo + (s->hi - s->lo) / 2;", "            while (s->lo < s->hi) {\n                s->med = s->lo + (s->hi - s->lo) / 2;"]],
    ['time-epoch-wednesday', 'gmtime/localtime take 1970-01-01 for a Wednesday (tm_wday one less)',
     ['api/crt_time.c', 'o->wday = (int32_t)((days + 4) % 7);', 'o->wday = (int32_t)((days + 3) % 7);']],
    ['round-half-down', 'round() takes a positive half towards zero (round(2.5) = 2, not 3)',
     ['api/crt_math.c', 'if (f >= 0.5) return t + 1;', 'if (f > 0.5) return t + 1;']],
    ['text-read-keeps-cr', 'a text-mode read does not turn CR LF into LF',
     ['api/crt_stdio.c', "            if (i + 1 < got && raw[i + 1] == '\\n') {\n                i++;\n", "            if (false) {\n                i++;\n"]],
    ['heap-align-8', 'the heap rounds blocks to 8 bytes, so malloc results are 8-aligned, not 16-aligned as x64 needs',
     ['api/crt_heap.c', 'uint64_t size = (n + 15) & ~(uint64_t)15;', 'uint64_t size = (n + 7) & ~(uint64_t)7;']],
    ['raise-handler-stays', 'raise() leaves the signal\'s handler installed instead of resetting it to SIG_DFL before calling it',
     ['api/crt_process.c', "    if (h == SIG_IGN) return 0;\n    r->sig[s] = SIG_DFL;\n", "    if (h == SIG_IGN) return 0;\n"]],
    ['winmain-cmdline-ignores-quotes', '_get_narrow_winmain_command_line ends the program name at a blank inside quotes',
     ['api/crt_ucrt.c', "        if (ch == '\"') quoted = !quoted;\n", '']],
    ['wcmp-ci-prefix-equal', 'case-insensitive name comparison takes a name equal to another it is a prefix of',
     ['api/wstr.c', 'return an == bn ? 0 : an < bn ? -1 : 1;', 'return 0;']],
    # The command line (issue 30's item 3): SHELL32's CommandLineToArgvW and the launch quoting;
    # conformance/README.md "Issue 30's mutants: the Windows surface".
    ['argv-quote-run-mod2', 'CommandLineToArgvW leaves a part quoted after a run of quotes by its count modulo 2, not Windows\' modulo 3',
     ['api/shell32.c', 'quoted = m % 3 == 1;', 'quoted = m % 2 == 1;']],
    ['argv-halves-every-backslash-run', 'CommandLineToArgvW halves a run of backslashes that no quote follows',
     ['api/shell32.c', 'k < (before_quote ? bs / 2 : bs); k++', 'k < bs / 2; k++']],
    ['launch-closing-backslashes-single', 'the launch quoting does not double the backslashes before an argument\'s closing quote (a b\\ becomes "a b\\", which reads on)',
     ['api/pe_process.c', "        for (size_t i = 0; i < bs; i++) PUT('\\\\');\n", '']],
    # ---- issue 30, this session's code: guest memory on host bytes (sim/machine.c, sim/wx.c), the
    # command line (shell32.c, the launch quoting), perror's message, and code behind outcomes.tsv's
    # new rows (kernel32, the NTSTATUS mapping, msvcrt's errno paths) ----
    ['mem-read-page-offset', 'sim_mem_read copies from the address\'s offset in its page instead of in its region (every read past a region\'s first page reads the wrong bytes)',
     ['sim/machine.c', 'memcpy(buf, r->host + (addr - r->base), n);', 'memcpy(buf, r->host + (addr & (SIM_PAGE - 1)), n);']],
    ['peek-one-region', 'sim_mem_peek stops at the end of the first region instead of going on into an adjacent one',
     ['sim/machine.c', "        got += k;\n        addr += k;\n    }\n    return got;", "        got += k;\n        addr += k;\n        break;\n    }\n    return got;"]],
    ['forget-code-from-page-before', 'sim_cpu_forget_code asks the engine to drop translations from the page before the forgotten one (Unicorn 2.0.1 resolves the range from that page and drops nothing)',
     ['sim/cpu.c', "a += SIM_PAGE)\n        uc_ctl_remove_cache(m->uc, a, a + SIM_PAGE);", "a += SIM_PAGE)\n        uc_ctl_remove_cache(m->uc, a >= SIM_PAGE ? a - SIM_PAGE : 0, a + SIM_PAGE);"]],
    ['heap-reuse-not-zeroed', 'sim_heap_alloc hands out a reused heap block with its old bytes instead of zeroed',
     ['sim/machine.c', "            memset(m->heap_host + (*addr - m->lay->heap), 0, size); /* the heap is never code */\n", '']],
    ['argv-tab-not-blank', 'CommandLineToArgvW separates arguments at blanks only, not at tabs',
     ['api/shell32.c', "static bool blank(uint16_t ch) { return ch == ' ' || ch == '\\t'; }", "static bool blank(uint16_t ch) { return ch == ' '; }"]],
    ['argv-run-inside-quotes-uncounted', 'CommandLineToArgvW does not count 1 more for a run of quotes that begins inside a quoted part',
     ['api/shell32.c', 'size_t m = (j - i) + (quoted ? 1 : 0);', 'size_t m = j - i;']],
    ['launch-empty-arg-unquoted', 'the launch quoting writes an empty argument as nothing instead of "" (the argument is lost)',
     ['api/pe_process.c', 'bool quote = !*s || strpbrk(s, " \\t") != NULL;', 'bool quote = strpbrk(s, " \\t") != NULL;']],
    ['launch-quote-escape-even', 'the launch quoting doubles the backslashes before a quote in an argument but does not add the one that escapes the quote',
     ['api/pe_process.c', "for (size_t i = 0; i <= bs; i++) PUT('\\\\');", "for (size_t i = 0; i < bs; i++) PUT('\\\\');"]],
    ['perror-empty-prefix-colon', 'perror("") writes ": " before the message instead of the message alone',
     ['api/crt_file.c', 's && *s ? ": " : ""', 's ? ": " : ""']],
    ['tlsgetvalue-keeps-last-error', 'TlsGetValue of a valid index leaves the last error as it was instead of clearing it to ERROR_SUCCESS',
     ['api/k32_thread.c', "    hcp_SetLastError(c->os, ERROR_SUCCESS);\n    return r && r->tls ? r->tls[i] : 0;\n", "    return r && r->tls ? r->tls[i] : 0;\n"]],
    ['ntstatus-type-mismatch-invalid-parameter', 'STATUS_OBJECT_TYPE_MISMATCH maps to ERROR_INVALID_PARAMETER instead of ERROR_INVALID_HANDLE',
     ['api/errors.c', '{STATUS_OBJECT_TYPE_MISMATCH, ERROR_INVALID_HANDLE,', '{STATUS_OBJECT_TYPE_MISMATCH, ERROR_INVALID_PARAMETER,']],
    ['ntwaitmultiple-count0-accepted', 'NtWaitForMultipleObjects accepts a count of 0 instead of STATUS_INVALID_PARAMETER_1',
     ['api/k32_apc.c', 'if (a->Count == 0 || a->Count > MAXIMUM_WAIT_OBJECTS) return STATUS_INVALID_PARAMETER_1;', 'if (a->Count > MAXIMUM_WAIT_OBJECTS) return STATUS_INVALID_PARAMETER_1;']],
    ['strncpy-s-truncate-returns-0', 'strncpy_s with _TRUNCATE of a source too long returns 0 instead of STRUNCATE',
     ['api/crt_string.c', "            wr_units(c, a->_Dst, w, s, (size_t)elem - 1, true);\n            r = CRT_STRUNCATE;", "            wr_units(c, a->_Dst, w, s, (size_t)elem - 1, true);\n            r = 0;"]],
);

my ($list, $check, $quick, $first, $keep, $baseline, @only) = (0, 0, 0, 0, 0, 1);
for my $a (@ARGV) {
    if ($a eq '--list') { $list = 1 }
    elsif ($a eq '--check') { $check = 1 }
    elsif ($a eq '--quick') { $quick = 1 }
    elsif ($a eq '--first') { $first = 1 }
    elsif ($a eq '--keep') { $keep = 1 }
    elsif ($a eq '--no-baseline') { $baseline = 0 }
    elsif ($a =~ /^-/) { print STDERR "usage: perl conformance/mutate.pl [--list] [--check] [--quick] [--first] [--keep] [--no-baseline] [NAME...]\n"; exit 2 }
    else { push @only, $a }
}
my %known = map { $_->[0] => 1 } @MUTANTS;
for (@only) {
    next if $known{$_};
    print STDERR "mutate.pl: no mutation named $_ (--list shows them)\n";
    exit 2;
}
if ($list) {
    printf "%-26s %s\n", $_->[0], $_->[1] for @MUTANTS;
    exit 0;
}
my $top = abs_path(dirname(abs_path($0)) . '/..');
sub slurp { my ($f) = @_; open my $fh, '<:raw', $f or die "mutate.pl: $f: $!\n"; local $/; my $s = <$fh>; $s }
sub spew { my ($f, $s) = @_; open my $fh, '>:raw', $f or die "mutate.pl: $f: $!\n"; print $fh $s; close $fh or die }
sub occurrences { my ($text, $from) = @_; my $c = () = $text =~ /\Q$from\E/g; $c }

if ($check) {
    my $bad = 0;
    for my $m (@MUTANTS) {
        for my $e (@$m[2 .. $#$m]) {
            my $c = occurrences(slurp("$top/$e->[0]"), $e->[1]);
            next if $c == 1;
            print "$m->[0]: $e->[0] has the text $c times (must be once)\n";
            $bad++;
        }
    }
    print scalar(@MUTANTS), " mutations, ", $bad ? "$bad edits do not apply\n" : "every edit applies once\n";
    exit($bad ? 1 : 0);
}
my @run = @only ? grep { my $n = $_->[0]; grep { $_ eq $n } @only } @MUTANTS : @MUTANTS;

my $jobs = $ENV{JOBS} || 2;
my $tmp = tempdir('hcpsim-mutate-XXXXXX', TMPDIR => 1, CLEANUP => 0);
$SIG{INT} = $SIG{TERM} = sub { remove_tree($tmp) unless $keep; exit 130 };
END { remove_tree($tmp) if $tmp && -d $tmp && !$keep }

# The tree: tracked files plus new, not ignored ones, as they are on disk.
{
    chdir $top or die "mutate.pl: $top: $!\n";
    my @files = grep { -f $_ } split /\0/, `git ls-files -z --cached --others --exclude-standard`;
    die "mutate.pl: git ls-files found no files (is this a git checkout?)\n" unless @files;
    open my $tar, '|-', 'tar', '-cf', "$tmp/tree.tar", '--null', '-T', '-' or die "mutate.pl: tar: $!\n";
    print $tar join("\0", @files), "\0";
    close $tar or die "mutate.pl: tar failed\n";
    mkdir "$tmp/tree" or die;
    system('tar', '-xf', "$tmp/tree.tar", '-C', "$tmp/tree") == 0 or die "mutate.pl: tar -x failed\n";
    unlink "$tmp/tree.tar";
}
my $tree = "$tmp/tree";
# A mutant that makes a run hang is killed too: a test file gets MUTATE_TIMEOUT seconds
# (default 300; --first), a whole make test six times that; timeout(1) then fails it.
my $limit = $ENV{MUTATE_TIMEOUT} // 300;
die "mutate.pl: MUTATE_TIMEOUT must be a positive number of seconds\n" unless $limit =~ /^[1-9][0-9]*$/;
my $what = $quick ? "prove -j$jobs conformance/*.lua (--quick)" : $first ? "make test's files up to the first failure (--first)" : "make test -j$jobs";
print STDERR "mutate.pl: copied the tree to $tree; ", scalar(@run), " mutations, $what each\n";

# make test in the copy: (exit status, failed test files, log file).
my $n = 0;
my @order; # --first: make test's files, the last one that failed first
my $ordered = 0;
sub first_failure {
    my ($log) = @_;
    my $built = system("make -C '$tree' --no-print-directory -j$jobs tests > '$log' 2>&1");
    return ($built, [], $log) if $built;
    @order = split ' ', `make -C '$tree' --no-print-directory -s --eval='mutate-tests: ; \@echo \$(ALL_TESTS)' mutate-tests` unless @order;
    die "mutate.pl: cannot list make test's files\n" unless @order;
    if (!$ordered++ && $ENV{MUTATE_FIRST}) { # test files (by name) to try first, in this order
        my @want = split ' ', $ENV{MUTATE_FIRST};
        my %rank = map { $want[$_] => $_ + 1 } 0 .. $#want;
        my $r = sub { $rank{ $_[0] =~ s{^.*/}{}r } // @want + 1 };
        @order = map { $_->[0] } sort { $a->[1] <=> $b->[1] || $a->[2] <=> $b->[2] }
          map { [$order[$_], $r->($order[$_]), $_] } 0 .. $#order; # the others keep make test's order
    }
    for my $i (0 .. $#order) {
        my $f = $order[$i];
        my $st = system("cd '$tree' && HCPSIM=build/hcpsim HCPSIM_CLAUSES='$tree/conformance/clauses.tsv' "
                        . "timeout -k 10 $limit prove --exec 'sh scenarios/tests/runtest' '$f' >> '$log' 2>&1");
        next unless $st;
        unshift @order, splice(@order, $i, 1);
        return ($st, [$f], $log);
    }
    return (0, [], $log);
}
sub make_test {
    my ($tag) = @_;
    my $log = "$tmp/" . (++$n) . "-$tag.log";
    return first_failure($log) if $first && $tag ne 'baseline';
    my $cmd = $quick
      ? "cd '$tree' && make --no-print-directory -j$jobs all && HCPSIM=build/hcpsim prove -j$jobs --exec 'sh scenarios/tests/runtest' conformance/*.lua"
      : "timeout -k 10 " . (6 * $limit) . " make -C '$tree' --no-print-directory JOBS=$jobs test";
    my $st = system("($cmd) > '$log' 2>&1");
    my (@failed, $in_summary);
    open my $fh, '<', $log or die;
    while (<$fh>) {
        $in_summary = 1 if /^Test Summary Report/;
        push @failed, $1 if $in_summary && /^(\S+)\s+\(Wstat: /;
    }
    close $fh;
    return ($st, \@failed, $log);
}

my $t0 = time;
if ($baseline) {
    my $t = time;
    my ($st, $failed, $log) = make_test('baseline');
    if ($st != 0) {
        print STDERR "mutate.pl: make test fails without any mutation (", join(', ', @$failed) || 'build', "); see $log\n";
        $keep = 1;
        exit 1;
    }
    printf STDERR "mutate.pl: baseline make test passes (%.0f s)\n", time - $t;
}

my @rows;
my $bad = 0;
for my $m (@run) {
    my ($name, $what, @edits) = @$m;
    my $t = time;
    my (%orig, $problem);
    for my $e (@edits) {
        my ($file, $from, $to) = @$e;
        my $path = "$tree/$file";
        $orig{$file} //= slurp($path);
        my $text = slurp($path);
        my $count = occurrences($text, $from);
        if ($count != 1) { $problem = "did not apply: `$file` has the text $count times"; last }
        $text =~ s/\Q$from\E/$to/;
        spew($path, $text);
    }
    my $killed;
    if (!$problem) {
        my ($st, $failed, $log) = make_test($name);
        if ($st == 0) {
            $problem = 'SURVIVED: make test passed';
        } elsif (!@$failed) {
            $problem = "make test failed before any test (does it build? see $log)";
        } else {
            $killed = join(', ', map { s{^.*/}{}r } @$failed);
        }
    }
    spew("$tree/$_", $orig{$_}) for sort keys %orig;
    my $secs = time - $t;
    $bad++ if $problem;
    push @rows, [$name, $what, $problem // $killed, $secs];
    printf STDERR "mutate.pl: %-26s %s (%.0f s)\n", $name, $problem ? $problem : "killed by $killed", $secs;
}

my $total = time - $t0;
print "| mutation | what it gets wrong | killed by (failed test files) | time |\n|---|---|---|---:|\n";
printf "| `%s` | %s | %s | %.0f s |\n", @$_ for @rows;
printf "\n%d mutations, %d killed, %d not killed or not applied; total %.0f s (%s, %s each%s)\n",
    scalar @rows, @rows - $bad, $bad, $total, $baseline ? 'with the unmutated baseline' : 'no baseline', $what,
    $keep ? "; kept $tmp" : '';
exit($bad ? 1 : 0);
