/* sim/tests/cpu_test.c — the simulated CPU driven directly: exact counts of
 * hand-assembled code (expected values from each listing's formula), the
 * calling convention, faults with partial-block correction, instructions
 * served by the model, preemption and the cycle limit. */
#include <stdio.h>

#include "conformance/tap.h"
#include "sim/sim.h"

static sim_machine *new_machine(uint32_t tick, uint64_t max_cycles) {
    sim_config c;
    sim_config_default(&c);
    pmu_cost_table(&c.cost, "unit"); /* one cycle per instruction, no penalties: cycles = instructions */
    c.tick = tick;
    c.max_cycles = max_cycles;
    sim_machine *m;
    if (sim_machine_new(&c, &m) != SIM_OK) bail("sim_machine_new failed");
    return m;
}

static sim_thread *start_thread(sim_machine *m, const char *name) {
    sim_thread *t;
    if (sim_thread_new(m, name, 8, 1, -1, &t) != SIM_OK) bail("sim_thread_new failed");
    return t;
}

/* Makes the first Ready thread the executing one. */
static void dispatch(sim_machine *m) {
    sim_thread *t;
    if (sim_sched_next(m, &t) != SIM_RUN_THREAD) bail("nothing to dispatch");
}

static uint64_t place(sim_machine *m, const void *code, size_t n) {
    uint64_t a;
    if (sim_code(m, code, n, &a) != SIM_OK) bail("sim_code failed");
    return a;
}

/* Runs one call to completion on the running thread t (no other thread ready). */
static sim_call_status call(sim_thread *t, uint64_t entry, const uint64_t *args, int n) {
    if (sim_call_begin(t, entry, args, n) != SIM_OK) bail("sim_call_begin failed");
    return sim_call_continue(t);
}

/* loop(j): j nops, dec rcx, jnz back, then ret.
 *   n iterations: instructions = n(j + 2) + 1, branches = n + 1. */
static size_t make_loop(uint8_t *buf, int j) {
    size_t k = 0;
    for (int i = 0; i < j; i++) buf[k++] = 0x90;
    buf[k++] = 0x48, buf[k++] = 0xFF, buf[k++] = 0xC9; /* dec rcx */
    buf[k++] = 0x75;
    buf[k] = (uint8_t)(-(int)(k + 1)); /* jnz to offset 0 */
    k++;
    buf[k++] = 0xC3;
    return k;
}

static void test_counting(void) {
    tap_clause("SIM-COUNT-EXACT");
    sim_machine *m = new_machine(156250, 0);
    sim_thread *t = start_thread(m, "count");
    dispatch(m);
    static const int js[] = {0, 5};
    static const uint64_t ns[] = {1, 7, 1000, 250000};
    for (size_t a = 0; a < 2; a++) {
        uint8_t code[64];
        uint64_t e = place(m, code, make_loop(code, js[a]));
        for (size_t b = 0; b < 4; b++) {
            pmu_bank before = *sim_thread_bank(t);
            uint64_t n = ns[b];
            is_u64(call(t, e, &n, 1), SIM_CALL_RETURNED, "loop j=%d n=%llu returns", js[a], (unsigned long long)n);
            const pmu_bank *now = sim_thread_bank(t);
            is_u64(now->ev[PMU_EV_INSTRUCTIONS] - before.ev[PMU_EV_INSTRUCTIONS], n * (uint64_t)(js[a] + 2) + 1,
                   "loop j=%d n=%llu: instructions = n(j+2)+1", js[a], (unsigned long long)n);
            is_u64(now->ev[PMU_EV_BRANCHES] - before.ev[PMU_EV_BRANCHES], n + 1, "loop j=%d n=%llu: branches = n+1",
                   js[a], (unsigned long long)n);
            is_u64(now->ev[PMU_EV_CYCLES] - before.ev[PMU_EV_CYCLES], n * (uint64_t)(js[a] + 2) + 1,
                   "loop j=%d n=%llu: cycles = instructions under the unit table", js[a], (unsigned long long)n);
        }
    }
    is_u64(sim_clock(m), sim_thread_bank(t)->ev[PMU_EV_CYCLES], "virtual clock = cycles of the only thread");
    /* call/ret: call leaf; ret; leaf: ret  -> 3 instructions, 3 branches */
    static const uint8_t callret[] = {0xE8, 0x01, 0x00, 0x00, 0x00, 0xC3, 0xC3};
    uint64_t e = place(m, callret, sizeof callret);
    pmu_bank before = *sim_thread_bank(t);
    call(t, e, NULL, 0);
    is_u64(sim_thread_bank(t)->ev[PMU_EV_INSTRUCTIONS] - before.ev[PMU_EV_INSTRUCTIONS], 3,
           "call+ret+ret: 3 instructions");
    is_u64(sim_thread_bank(t)->ev[PMU_EV_BRANCHES] - before.ev[PMU_EV_BRANCHES], 3, "call, ret, ret: 3 branches");
    /* a conditional jump not taken still counts: xor eax,eax; jnz +0; ret */
    static const uint8_t jcc[] = {0x31, 0xC0, 0x75, 0x00, 0xC3};
    e = place(m, jcc, sizeof jcc);
    before = *sim_thread_bank(t);
    call(t, e, NULL, 0);
    is_u64(sim_thread_bank(t)->ev[PMU_EV_BRANCHES] - before.ev[PMU_EV_BRANCHES], 2, "jcc not taken + ret: 2 branches");
    sim_machine_free(m);
}

static void test_calling_convention(void) {
    tap_clause("SIM-CALL-X64");
    sim_machine *m = new_machine(156250, 0);
    sim_thread *t = start_thread(m, "cc");
    dispatch(m);
    uint64_t args[8] = {0x1111, 0x2222, 0x3333, 0x4444, 0x5555, 0x6666, 0x7777, 0x8888};
    /* mov rax, <reg or [rsp+0x28+8k]>; ret */
    static const uint8_t get[8][9] = {
        {0x48, 0x89, 0xC8, 0xC3},             /* mov rax, rcx */
        {0x48, 0x89, 0xD0, 0xC3},             /* mov rax, rdx */
        {0x4C, 0x89, 0xC0, 0xC3},             /* mov rax, r8 */
        {0x4C, 0x89, 0xC8, 0xC3},             /* mov rax, r9 */
        {0x48, 0x8B, 0x44, 0x24, 0x28, 0xC3}, /* mov rax, [rsp+0x28] */
        {0x48, 0x8B, 0x44, 0x24, 0x30, 0xC3}, /* mov rax, [rsp+0x30] */
        {0x48, 0x8B, 0x44, 0x24, 0x38, 0xC3}, /* mov rax, [rsp+0x38] */
        {0x48, 0x8B, 0x44, 0x24, 0x40, 0xC3}, /* mov rax, [rsp+0x40] */
    };
    for (int k = 0; k < 8; k++) {
        uint64_t e = place(m, get[k], 9);
        call(t, e, args, 8);
        is_u64(sim_call_result(t), args[k], "argument %d arrives where the Windows x64 convention puts it", k + 1);
    }
    /* lea rax, [rsp+8]; ret  -> 16-byte aligned, as after a call */
    static const uint8_t align[] = {0x48, 0x8D, 0x44, 0x24, 0x08, 0xC3};
    call(t, place(m, align, sizeof align), NULL, 0);
    is_u64(sim_call_result(t) % 16, 0, "rsp+8 is 16-byte aligned at entry");
    /* [rsp] is the sentinel return address: mov rax, [rsp]; ret */
    static const uint8_t ret[] = {0x48, 0x8B, 0x04, 0x24, 0xC3};
    call(t, place(m, ret, sizeof ret), NULL, 0);
    ok(sim_call_result(t) != 0 && sim_mem_probe(m, sim_call_result(t), 1, false) == SIM_OK,
       "the return address is a mapped sentinel page");
    uint8_t byte;
    ok(sim_mem_read(m, sim_call_result(t), &byte, 1) == SIM_OK, "the sentinel is readable (it executes nothing)");
    sim_machine_free(m);
}

static void test_faults(void) {
    tap_clause("SIM-FAULT");
    sim_machine *m = new_machine(156250, 0);
    sim_thread *t = start_thread(m, "faults");
    dispatch(m);
    struct {
        const char *what;
        uint8_t code[16];
        size_t len;
        sim_fault_kind kind;
        uint64_t offset; /* of the faulting instruction */
        uint64_t retired;
        int access;
    } cases[] = {
        /* nop; nop; mov rax, [0x999000]; ret */
        {"read of unmapped memory",
         {0x90, 0x90, 0x48, 0x8B, 0x04, 0x25, 0x00, 0x90, 0x99, 0x00, 0xC3},
         11,
         SIM_FAULT_ACCESS,
         2,
         2,
         0},
        /* nop; nop; mov [0x999000], rax; ret */
        {"write of unmapped memory",
         {0x90, 0x90, 0x48, 0x89, 0x04, 0x25, 0x00, 0x90, 0x99, 0x00, 0xC3},
         11,
         SIM_FAULT_ACCESS,
         2,
         2,
         1},
        /* nop; ud2 */
        {"ud2", {0x90, 0x0F, 0x0B}, 3, SIM_FAULT_ILLEGAL, 1, 1, 0},
        /* xor ecx, ecx; div ecx */
        {"divide by zero", {0x31, 0xC9, 0xF7, 0xF1, 0xC3}, 5, SIM_FAULT_DIVIDE, 2, 1, 0},
        /* nop; int3 (a trap: it retires) */
        {"int3", {0x90, 0xCC, 0xC3}, 3, SIM_FAULT_BREAKPOINT, 1, 2, 0},
        /* nop; nop; hlt (privileged in user mode) */
        {"hlt", {0x90, 0x90, 0xF4, 0xC3}, 4, SIM_FAULT_PRIVILEGED, 2, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t e = place(m, cases[i].code, cases[i].len);
        pmu_bank before = *sim_thread_bank(t);
        is_u64(call(t, e, NULL, 0), SIM_CALL_FAULTED, "%s faults", cases[i].what);
        const sim_fault *f = sim_call_fault(t);
        is_u64(f->kind, cases[i].kind, "%s: fault kind", cases[i].what);
        is_u64(f->address, e + cases[i].offset, "%s: exception address", cases[i].what);
        is_u64(sim_thread_bank(t)->ev[PMU_EV_INSTRUCTIONS] - before.ev[PMU_EV_INSTRUCTIONS], cases[i].retired,
               "%s: only the retired instructions count", cases[i].what);
        if (cases[i].kind == SIM_FAULT_ACCESS) {
            is_u64(f->data, 0x999000, "%s: inaccessible address", cases[i].what);
            is_u64((uint64_t)f->access, (uint64_t)cases[i].access, "%s: access kind", cases[i].what);
        }
    }
    /* mov rax, 0x990000; jmp rax -> execute fault at the target; both instructions retire */
    static const uint8_t jmp[] = {0x48, 0xB8, 0x00, 0x00, 0x99, 0, 0, 0, 0, 0, 0xFF, 0xE0};
    pmu_bank before = *sim_thread_bank(t);
    call(t, place(m, jmp, sizeof jmp), NULL, 0);
    is_u64(sim_call_fault(t)->address, 0x990000, "jump to unmapped memory: exception address is the target");
    is_u64((uint64_t)sim_call_fault(t)->access, 8, "jump to unmapped memory: execute access");
    is_u64(sim_thread_bank(t)->ev[PMU_EV_INSTRUCTIONS] - before.ev[PMU_EV_INSTRUCTIONS], 2, "mov and jmp retired");
    /* call self: recursion until the guard page below the stack.
     * rsp at entry = stack top - 56; call k writes at rsp - 8k; the first k
     * with rsp - 8k below the stack is (256 KiB - 56) / 8 + 1 = 32762. */
    static const uint8_t rec[] = {0xE8, 0xFB, 0xFF, 0xFF, 0xFF};
    before = *sim_thread_bank(t);
    is_u64(call(t, place(m, rec, sizeof rec), NULL, 0), SIM_CALL_FAULTED, "unbounded recursion faults");
    is_u64(sim_call_fault(t)->kind, SIM_FAULT_STACK_GUARD, "it is a stack guard fault (STATUS_STACK_OVERFLOW)");
    is_u64(sim_thread_bank(t)->ev[PMU_EV_INSTRUCTIONS] - before.ev[PMU_EV_INSTRUCTIONS], (256 * 1024 - 56) / 8,
           "32761 calls retired, the faulting one did not");
    /* the thread can call again after a fault */
    uint8_t loop[64];
    uint64_t n = 10;
    is_u64(call(t, place(m, loop, make_loop(loop, 0)), &n, 1), SIM_CALL_RETURNED, "a faulted thread runs again");
    sim_machine_free(m);
}

static void test_traps(void) {
    tap_clause("SIM-RDTSC-VIRTUAL");
    sim_machine *m = new_machine(156250, 0);
    sim_thread *t = start_thread(m, "traps");
    dispatch(m);
    /* nop x3; rdtsc; shl rdx, 32; or rax, rdx; ret */
    static const uint8_t tsc[] = {0x90, 0x90, 0x90, 0x0F, 0x31, 0x48, 0xC1, 0xE2, 0x20, 0x48, 0x09, 0xD0, 0xC3};
    uint64_t e = place(m, tsc, sizeof tsc);
    uint64_t clock0 = sim_clock(m);
    call(t, e, NULL, 0);
    is_u64(sim_call_result(t), clock0 + 3, "rdtsc reads the virtual clock (3 nops later)");
    is_u64(sim_clock(m) - clock0, 7, "7 instructions retired, rdtsc included");
    call(t, e, NULL, 0);
    is_u64(sim_call_result(t), clock0 + 7 + 3, "a second run reads the advanced clock (the block is cached)");
    tap_clause("SIM-RDPMC");
    /* mov ecx, 2; rdpmc; shl rdx, 32; or rax, rdx; ret   (PMC2 = branches by default) */
    static const uint8_t pmc[] = {0xB9, 0x02, 0, 0, 0, 0x0F, 0x33, 0x48, 0xC1, 0xE2, 0x20, 0x48, 0x09, 0xD0, 0xC3};
    uint64_t br = sim_thread_bank(t)->ev[PMU_EV_BRANCHES];
    call(t, place(m, pmc, sizeof pmc), NULL, 0);
    is_u64(sim_call_result(t), br, "rdpmc 2 reads the thread's branch count");
    tap_clause("SIM-SYSCALL");
    static const uint8_t sc[] = {0x0F, 0x05, 0xC3};
    uint64_t sce = place(m, sc, sizeof sc);
    call(t, sce, NULL, 0);
    is_u64(sim_call_result(t), 0, "syscall outside the gate with no refusal set: 0 in rax");
    sim_set_gate_refusal(m, 0xC000001Cu); /* what api/ sets: STATUS_INVALID_SYSTEM_SERVICE */
    call(t, sce, NULL, 0);
    is_u64(sim_call_result(t), 0xC000001Cu, "syscall outside the gate returns the gate's refusal");
    sim_machine_free(m);
}

static void test_preemption(void) {
    tap_clause("SCHED-QUANTUM");
    /* tick 1000 (100 us) at 3 GHz = 300000 cycles; quantum 2 ticks = 600000 thread cycles;
     * each clock interrupt costs 2000 cycles of CPU time, none of thread time. */
    sim_machine *m = new_machine(1000, 0);
    is_u64(sim_tick_cycles(m), 300000, "tick = 1000 x 100 ns x 3 GHz");
    is_u64(sim_quantum_cycles(m), 600000, "quantum = 2 ticks");
    sim_thread *a = start_thread(m, "a");
    sim_thread *b = start_thread(m, "b");
    uint8_t loop[64];
    uint64_t e = place(m, loop, make_loop(loop, 0));
    uint64_t na = 500000, nb = 700000; /* 1000001 and 1400001 cycles of work */
    int started[2] = {0, 0}, done[2] = {0, 0}, guard = 0;
    uint64_t ns[2] = {na, nb};
    sim_thread *t;
    while (guard++ < 100 && sim_sched_next(m, &t) == SIM_RUN_THREAD) {
        int i = t == a ? 0 : 1;
        if (!started[i]) {
            sim_call_begin(t, e, &ns[i], 1);
            started[i] = 1;
        }
        sim_call_status s = sim_call_continue(t);
        if (s == SIM_CALL_RETURNED) {
            done[i] = 1;
            sim_thread_exit(t, 0);
        } else if (s != SIM_CALL_YIELD) {
            bail("unexpected call status %d", (int)s);
        }
    }
    ok(done[0] && done[1], "both threads finished");
    is_u64(sim_thread_bank(a)->ev[PMU_EV_INSTRUCTIONS], 2 * na + 1, "thread a counted only its own work");
    is_u64(sim_thread_bank(b)->ev[PMU_EV_INSTRUCTIONS], 2 * nb + 1, "thread b counted only its own work");
    /* Quantum end is checked at ticks: a runs to the tick at 900000 (896000 own
     * cycles >= 600000), b from 902000 to the tick at 1800000, a finishes its
     * last 104001 cycles, b its last 506001 (2 more ticks). Ticks: 300k .. 2.4M. */
    sim_cpu_stats cs;
    sim_cpu_stats_of(m, 0, &cs);
    is_u64(cs.ticks, 8, "8 clock interrupts");
    is_u64(cs.interrupt, 8 * 2000, "interrupt time = 8 x 2000 cycles");
    is_u64(cs.time, 2 * na + 1 + 2 * nb + 1 + 8 * 2000, "CPU time = both threads' work + interrupts");
    is_u64(cs.busy, 2 * na + 1 + 2 * nb + 1, "busy time = both threads' work");
    is_u64(sim_thread_switches(a), 2, "a: switched in twice");
    is_u64(sim_thread_switches(b), 2, "b: switched in twice");
    sim_machine_free(m);
}

static void test_limit(void) {
    tap_clause("SIM-LIMIT");
    sim_machine *m = new_machine(156250, 1000000);
    sim_thread *t = start_thread(m, "spin");
    dispatch(m);
    static const uint8_t forever[] = {0xEB, 0xFE}; /* jmp $ */
    is_u64(call(t, place(m, forever, sizeof forever), NULL, 0), SIM_CALL_LIMIT, "an endless loop stops at max_cycles");
    ok(sim_clock(m) >= 1000000 && sim_clock(m) < 1000000 + 2, "the clock stops at the limit (block granularity)");
    sim_machine_free(m);
}

/* The host's poll (sim_set_poll): called at each scheduling stop of a call, it changes nothing
 * unless it returns true, which stops the call with SIM_CALL_ERROR "interrupted". */
static int polls, stop_at_poll;
static bool count_poll(void *ud) {
    (void)ud;
    return ++polls == stop_at_poll;
}

static void poll_run(bool with_poll, int stop, sim_call_status *st, uint64_t *insns, uint64_t *clock, char *err) {
    sim_machine *m = new_machine(1000, 0); /* a tick of 100 us: 300000 cycles at 3 GHz */
    sim_thread *t = start_thread(m, "spin");
    dispatch(m);
    uint8_t code[16];
    uint64_t entry = place(m, code, make_loop(code, 0));
    polls = 0;
    stop_at_poll = stop;
    if (with_poll) sim_set_poll(m, count_poll, NULL);
    uint64_t n = 1000000; /* loop(0): 2n + 1 instructions, cycles with the unit table */
    *st = call(t, entry, &n, 1);
    *insns = sim_thread_bank(t)->ev[PMU_EV_INSTRUCTIONS];
    *clock = sim_clock(m);
    snprintf(err, 64, "%s", *st == SIM_CALL_ERROR ? sim_call_error(t) : "");
    sim_machine_free(m);
}

static void test_poll(void) {
    tap_clause("SIM-PROGRESS");
    sim_call_status st0, st1, st2;
    uint64_t i0, i1, i2, c0, c1, c2;
    char e0[64], e1[64], e2[64];
    poll_run(false, 0, &st0, &i0, &c0, e0);
    poll_run(true, 0, &st1, &i1, &c1, e1);
    int called = polls;
    is_u64(st0, SIM_CALL_RETURNED, "without a poll the call returns");
    is_u64(i0, 2000001, "loop(0) of 10^6: 2n + 1 instructions");
    ok(called >= 6, "a poll is called at each tick of the call (2000001 cycles / 300000: at least 6; got %d)", called);
    is_u64(st1, SIM_CALL_RETURNED, "a poll that returns false: the call returns");
    is_u64(i1, i0, "the same instructions with the poll");
    is_u64(c1, c0, "the same virtual clock with the poll");
    tap_clause("SIM-INTERRUPT");
    poll_run(true, 3, &st2, &i2, &c2, e2);
    is_u64(st2, SIM_CALL_ERROR, "a poll that returns true stops the call: SIM_CALL_ERROR");
    is_str(e2, "interrupted", "its text is \"interrupted\"");
    ok(i2 < i0 && c2 < c0, "it stopped before the end (%llu of %llu instructions)", (unsigned long long)i2,
       (unsigned long long)i0);
}

static void test_memory(void) {
    tap_clause("SIM-MEMORY");
    sim_machine *m = new_machine(156250, 0);
    uint64_t code = place(m, "\xC3", 1), data, d2;
    ok(sim_alloc(m, 100, &data) == SIM_OK && data % 4096 == 0, "alloc is page aligned");
    ok(sim_alloc(m, 100, &d2) == SIM_OK && d2 >= data + 8192, "a guard page separates allocations");
    uint8_t z[100], w = 7;
    ok(sim_mem_read(m, data, z, sizeof z) == SIM_OK && z[0] == 0 && z[99] == 0, "alloc is zeroed");
    is_u64(sim_mem_write(m, code, &w, 1), SIM_ERR_PROT, "code is not writable");
    is_u64(sim_mem_read(m, data + 4096, &w, 1), SIM_ERR_UNMAPPED, "the guard page is not mapped");
    is_u64(sim_mem_read(m, data + 4095, z, 2), SIM_ERR_UNMAPPED, "a read running into the guard fails whole");
    is_u64(sim_mem_probe(m, 0, 1, false), SIM_ERR_UNMAPPED, "page zero is not mapped");
    uint64_t h1, h2, h3;
    sim_heap_alloc(m, 448, &h1);
    sim_heap_alloc(m, 448, &h2);
    sim_heap_free(m, h1, 448);
    sim_heap_alloc(m, 448, &h3);
    is_u64(h3, h1, "the heap reuses the last freed block of that size");
    ok(h1 % 16 == 0 && h2 - h1 == 448, "heap blocks are 16-aligned and packed");
    sim_machine_free(m);
    /* The OS heap (0x70000000, 64 MiB) reads as zeros everywhere, though Unicorn maps it only
     * as far as it is used (sim/README.md "Guest memory"): each access below is the first
     * beyond what was mapped before it, on fresh machines. */
    static const uint8_t jmp[] = {0x48, 0xB8, 0x00, 0x00, 0x00, 0x71,
                                  0,    0,    0,    0,    0xFF, 0xE0}; /* mov rax, 0x71000000; jmp rax */
    static const uint8_t wr[] = {0x48, 0x89, 0x0C, 0x25, 0x10, 0x00, 0x00, 0x72, 0xC3}; /* mov [0x72000010], rcx; ret */
    static const uint8_t rd[] = {0x48, 0x8B, 0x04, 0x25, 0xF0, 0xFF, 0xFF, 0x73, 0xC3}; /* mov rax, [0x73FFFFF0]; ret */
    uint64_t v = 0, arg = 0x1234;
    m = new_machine(156250, 0);
    sim_thread *t = start_thread(m, "heap");
    dispatch(m);
    is_u64(call(t, place(m, jmp, sizeof jmp), NULL, 0), SIM_CALL_FAULTED, "a jump into the OS heap faults");
    is_u64(sim_call_fault(t)->kind, SIM_FAULT_ACCESS, "an access fault (STATUS_ACCESS_VIOLATION)");
    is_u64(sim_call_fault(t)->address, 0x71000000, "at the jump's target");
    is_u64((uint64_t)sim_call_fault(t)->access, 8, "an execute access");
    is_u64(call(t, place(m, wr, sizeof wr), &arg, 1), SIM_CALL_RETURNED, "guest code writes the heap's middle");
    ok(sim_mem_read(m, 0x72000010, &v, 8) == SIM_OK && v == 0x1234, "sim_mem_read sees the write");
    sim_machine_free(m);
    m = new_machine(156250, 0);
    t = start_thread(m, "heap");
    dispatch(m);
    arg = 7;
    is_u64(call(t, place(m, rd, sizeof rd), &arg, 1), SIM_CALL_RETURNED, "guest code reads near the heap's end");
    is_u64(sim_call_result(t), 0, "and reads zero");
    sim_machine_free(m);
    m = new_machine(156250, 0);
    ok(sim_mem_read(m, 0x73FFFFF8, &v, 8) == SIM_OK && v == 0, "sim_mem_read: the heap's last 8 bytes are zeros");
    v = 0x5A5A;
    ok(sim_mem_write(m, 0x73FFFFF0, &v, 8) == SIM_OK, "sim_mem_write there");
    v = 0;
    ok(sim_mem_read(m, 0x73FFFFF0, &v, 8) == SIM_OK && v == 0x5A5A, "reads back");
    is_u64(sim_mem_read(m, 0x73FFFFFC, &v, 8), SIM_ERR_UNMAPPED, "a read running past the heap's end fails");
    sim_machine_free(m);
    sim_machine_free(NULL);
    ok(1, "sim_machine_free(NULL) is a no-op");
}

/* sim_mul_div: exact a*b/c where the product passes 64 bits (values by hand). */
static void test_mul_div(void) {
    tap_clause("SIM-MULDIV");
    is_u64(sim_mul_div(3000000000u, 156250, 10000000), 46875000, "tick cycles: 156250 x 3e9 / 1e7");
    is_u64(sim_mul_div(UINT64_C(1) << 40, UINT64_C(1) << 40, UINT64_C(1) << 50), UINT64_C(1) << 30,
           "2^40 x 2^40 / 2^50 = 2^30 (the product needs 81 bits)");
    is_u64(sim_mul_div(UINT64_C(1000000000000), 1000000000, UINT64_C(20000000000)), UINT64_C(50000000000),
           "10^12 cycles at 20 GHz = 5 x 10^10 ns (10^21 passes 64 bits)");
    is_u64(sim_mul_div(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX, "(2^64-1)^2 / (2^64-1) = 2^64-1");
    is_u64(sim_mul_div(UINT64_MAX, 3, 2), UINT64_MAX, "a quotient past 64 bits saturates");
    is_u64(sim_mul_div(UINT64_MAX, 2, 3), UINT64_C(12297829382473034410), "(2^65-2)/3 = 12297829382473034410");
    is_u64(sim_mul_div(7, 5, 0), UINT64_MAX, "division by zero saturates");
}

/* The other ISAs: the address layout, and each calling convention from a
 * hand-encoded sum of its arguments (expected values from the convention:
 * sim/README.md "Calls" and "ISA layer"). */
static void test_isas(void) {
    tap_clause("SIM-ISA-CALLS");
    /* x86 stdcall sum3(a, b, c): mov eax,[esp+4]; add eax,[esp+8]; add eax,[esp+12]; ret 12 */
    static const uint8_t x86[] = {0x8b, 0x44, 0x24, 0x04, 0x03, 0x44, 0x24, 0x08,
                                  0x03, 0x44, 0x24, 0x0c, 0xc2, 0x0c, 0x00};
    /* ARM64 sum10(x0..x7, [sp], [sp+8]): add x0,x0,x1 ... add x0,x0,x7; ldp x9,x10,[sp]; add x0,x0,x9;
     * add x0,x0,x10; ret */
    static const uint32_t a64[] = {0x8b010000, 0x8b020000, 0x8b030000, 0x8b040000, 0x8b050000, 0x8b060000,
                                   0x8b070000, 0xa9402be9, 0x8b090000, 0x8b0a0000, 0xd65f03c0};
    /* ARM sum6(r0..r3, [sp], [sp+4]): add r0,r0,r1; add r0,r0,r2; add r0,r0,r3; ldr r12,[sp];
     * add r0,r0,r12; ldr r12,[sp,#4]; add r0,r0,r12; bx lr */
    static const uint32_t a32[] = {0xe0800001, 0xe0800002, 0xe0800003, 0xe59dc000,
                                   0xe080000c, 0xe59dc004, 0xe080000c, 0xe12fff1e};
    static const struct {
        sim_arch arch;
        const void *code;
        size_t len;
        int nargs;
        uint64_t want, insns, branches;
    } cases[] = {
        {SIM_ARCH_X86, x86, sizeof x86, 3, 1 + 20 + 300, 4, 1},
        {SIM_ARCH_ARM64, a64, sizeof a64, 10, 55 + 9 * 100, 11, 1},
        {SIM_ARCH_ARM, a32, sizeof a32, 6, 21 + 5 * 100, 8, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_config c;
        sim_config_default(&c);
        pmu_cost_table(&c.cost, "unit");
        c.arch = cases[i].arch;
        sim_machine *m;
        if (sim_machine_new(&c, &m) != SIM_OK) bail("sim_machine_new failed for %s", sim_arch_name(c.arch));
        const char *an = sim_arch_name(c.arch);
        uint64_t data;
        ok(sim_alloc(m, 100, &data) == SIM_OK && (sim_arch_ptr_size(c.arch) == 8 || data + 100 <= UINT64_C(1) << 32),
           "%s: m:alloc memory is addressable by a %u-byte pointer", an, sim_arch_ptr_size(c.arch));
        ok(sim_arch_ptr_size(c.arch) == 8 || sim_gate_thunk(m, SIM_GATE_SERVICES - 1) < UINT64_C(1) << 32,
           "%s: the gate lies below 4 GiB on a 32-bit guest", an);
        sim_thread *t = start_thread(m, an);
        dispatch(m);
        uint64_t e = place(m, cases[i].code, cases[i].len);
        /* x86: 1, 20, 300; ARM64, ARM: 1, 102, 103, ... (sum 955 of ten, 521 of six) */
        uint64_t args[10] = {1, 20, 300};
        if (cases[i].arch != SIM_ARCH_X86)
            for (int k = 1; k < 10; k++) args[k] = (uint64_t)(k + 1) + 100u;
        is_u64(call(t, e, args, cases[i].nargs), SIM_CALL_RETURNED, "%s: the call returns", an);
        is_u64(sim_call_result(t), cases[i].want, "%s: %d arguments by the convention", an, cases[i].nargs);
        is_u64(sim_thread_bank(t)->ev[PMU_EV_INSTRUCTIONS], cases[i].insns, "%s: instructions = the listing's", an);
        is_u64(sim_thread_bank(t)->ev[PMU_EV_BRANCHES], cases[i].branches, "%s: one branch, the return", an);
        sim_machine_free(m);
    }
}

int main(void) {
    test_mul_div();
    test_counting();
    test_calling_convention();
    test_faults();
    test_traps();
    test_preemption();
    test_limit();
    test_poll();
    test_memory();
    test_isas();
    return tap_done();
}
