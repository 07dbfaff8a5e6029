/* sim — the simulated machine of hcpsim.
 *
 * Owns the guest CPU (Unicorn: x86-64, x86, ARM64 or ARM), guest memory, simulated threads with
 * saved CPU contexts, the scheduler and the virtual clock.  Counting is exact
 * at block granularity: each block is decoded once (capstone), its statistics
 * cached by (address, size) and added from a block hook; a block that stops
 * part-way (fault) is corrected.  Includes pmu_model/ and Unicorn/capstone;
 * no Lua, no Windows API (that is api/).
 *
 * Ownership: sim_machine_new() returns a machine that owns everything it
 * creates (memory, threads); sim_machine_free() releases all of it.  Freeing
 * NULL is a no-op.  Threads are never freed before their machine, so a
 * sim_thread pointer stays valid for the machine's life. */
#ifndef HCPSIM_SIM_H
#define HCPSIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu_model/pmu.h"

typedef struct sim_machine sim_machine;
typedef struct sim_thread sim_thread;

typedef enum sim_err {
    SIM_OK = 0,
    SIM_ERR_NOMEM,    /* host or guest address space exhausted */
    SIM_ERR_UNMAPPED, /* guest address not mapped */
    SIM_ERR_PROT,     /* guest access not permitted (e.g. host write into code) */
    SIM_ERR_ARG,      /* bad argument */
    SIM_ERR_STATE,    /* call not valid in this state */
    SIM_ERR_UNICORN,  /* the CPU emulator failed */
    SIM_ERR_MAPPINGS, /* too many separate guest mappings (Unicorn 2.0.1 limit; see sim/README.md) */
    SIM_ERR_ARCH,     /* guest instruction set not available */
    SIM_ERR_TRAPS,    /* too many trap points in placed code (each costs time per guest call; sim/README.md) */
} sim_err;
const char *sim_strerror(sim_err e);
typedef struct sim_machine sim_machine;
/* sim_strerror with the machine's own limits in the text (SIM_ERR_MAPPINGS
 * names its max_mappings, SIM_ERR_TRAPS its max_trap_points); the string
 * lives until the next call on m. */
const char *sim_machine_strerror(sim_machine *m, sim_err e);

/* Thread states, numbered as KTHREAD_STATE (HCP-SPEC §6). */
typedef enum sim_thread_state {
    SIM_TS_INITIALIZED = 0,
    SIM_TS_READY = 1,
    SIM_TS_RUNNING = 2,
    SIM_TS_STANDBY = 3,
    SIM_TS_TERMINATED = 4,
    SIM_TS_WAITING = 5,
} sim_thread_state;
#define SIM_THREAD_STATES 8 /* KTHREAD_STATE 0..7: Transition and DeferredReady are named, never entered */
/* The KTHREAD_STATE name of s ("Terminated"), or NULL outside 0..7: the one table of these names. */
const char *sim_thread_state_name(int s);

/* KWAIT_REASON values the scheduler records (HCP-SPEC §6). */
enum {
    SIM_WR_EXECUTIVE = 0,
    SIM_WR_DELAY_EXECUTION = 4,
    SIM_WR_SUSPENDED = 5,
    SIM_WR_USER_REQUEST = 6,
    SIM_WR_QUEUE = 15,
    SIM_WR_KEYED_EVENT = 21,
    SIM_WR_QUANTUM_END = 30,
    SIM_WR_PREEMPTED = 32,
    SIM_WR_YIELD_EXECUTION = 33,
    SIM_WR_ALERT_BY_THREAD_ID = 37,
};

#define SIM_WAIT_REASONS 41 /* KWAIT_REASON 0..40, MaximumWaitReason included */
/* The KWAIT_REASON name of r ("WrQuantumEnd"), or NULL outside 0..40. */
const char *sim_wait_reason_name(int r);

/* Guest instruction set (a platform profile chooses it, api/platform.c). */
typedef enum sim_arch {
    SIM_ARCH_X64 = 0, /* x86-64, Microsoft x64 calling convention */
    SIM_ARCH_X86,     /* IA-32, stdcall, 4-byte pointers */
    SIM_ARCH_ARM64,   /* AArch64, AAPCS64 */
    SIM_ARCH_ARM,     /* 32-bit ARM, AAPCS */
} sim_arch;
/* "x64", "x86", "arm64", "arm"; NULL outside the enum. */
const char *sim_arch_name(sim_arch a);
/* Size of a guest pointer: 8 or 4. */
unsigned sim_arch_ptr_size(sim_arch a);

typedef struct sim_config {
    sim_arch arch;             /* guest ISA (default x64) */
    int cpus;                  /* logical processors, 1..64 */
    uint64_t frequency;        /* cycles per simulated second */
    uint32_t tick;             /* clock interrupt interval, 100-ns units */
    uint32_t quantum;          /* clock ticks per quantum */
    uint32_t interrupt_cycles; /* cost of one clock interrupt on the CPU it hits */
    uint64_t slice;            /* lock-step round with several CPUs, cycles */
    uint64_t max_cycles;       /* total guest cycles a run may use (0 = default) */
    uint32_t stack_size;       /* per-thread guest stack, bytes (0 = default) */
    bool precise_faults;       /* exact fault address and partial-block count (see README "Precise faults") */
    bool precise_hook;         /* with precise_faults: the engine's own precise mode, a memory hook for the whole
                                  run (every data access slower), instead of the replay at a fault; the reference
                                  the tests hold the replay to (sim/README.md "Precise faults") */
    pmu_config pmc;            /* event on each PMC */
    pmu_cost_params cost;      /* cost tables, predictor and cache geometry (pmu_model/README.md) */
    bool predictor;            /* model branch prediction: branch-misses and their penalty */
    bool cache;                /* model the data caches: cache events and penalties (adds a memory hook) */
    uint64_t boot_time;        /* wall-clock time of virtual time 0: a FILETIME (100 ns since 1601-01-01 UTC) */
    uint32_t max_mappings;     /* separate guest mappings allowed (0 = SIM_MAX_MAPPINGS_DEFAULT, at most
                                  SIM_MAX_MAPPINGS_LIMIT) */
    uint64_t os_heap;          /* bytes of the OS heap sim_heap_alloc may use (0 = all 64 MiB; at most that) */
    uint32_t max_trap_points;  /* trap points allowed in placed code (0 = SIM_MAX_TRAPS_DEFAULT, at most
                                  SIM_MAX_TRAPS_LIMIT) */
} sim_config;

/* FILETIME of 1970-01-01 00:00 UTC: (369 x 365 + 89) days x 86400 s x 10^7
 * (HCP-SPEC §8.3), and of 2026-01-01 00:00 UTC, 20454 days later: the
 * default boot_time. */
#define SIM_FILETIME_1970 UINT64_C(116444736000000000)
#define SIM_BOOT_TIME_DEFAULT (SIM_FILETIME_1970 + UINT64_C(20454) * 86400u * 10000000u)

/* Unicorn 2.0.1 fails past about 4000 separate mappings, and each mapping costs
 * time in proportion to the square of those already made, so n of them cost n^3
 * (sim/README.md "Guest memory"): the default keeps a machine's mappings near
 * 2 s of host time at worst, the limit is Unicorn's. */
#define SIM_MAX_MAPPINGS_DEFAULT 1024u
#define SIM_MAX_MAPPINGS_LIMIT 3900u

/* A trap point is a place in placed code where an instruction the engine must
 * not translate may start (sim/README.md "Faults"): it becomes an exit, and
 * Unicorn 2.0.1 invalidates every exit at the end of each emulation pass, so
 * each costs host time on every guest call (sim/README.md "Faults": about
 * 0.11 µs each per pass).  The default keeps that near 0.1 ms per pass; the limit
 * keeps re-registering the exits (all of them, at each sim_code that adds some)
 * within seconds. */
#define SIM_MAX_TRAPS_DEFAULT 1024u
#define SIM_MAX_TRAPS_LIMIT 16384u

/* Defaults: 1 CPU, 3 GHz, 156250 (15.625 ms) tick, 2-tick quantum, 2000-cycle
 * clock interrupt, 10000-cycle lock-step rounds, 256 KiB stacks, the
 * win10-x64 cost tables, branch predictor on, cache model off, booted at
 * 2026-01-01 00:00 UTC. */
void sim_config_default(sim_config *c);
/* max_cycles when the config says 0: 2e10, minutes of host time, never hours. */
#define SIM_DEFAULT_MAX_CYCLES UINT64_C(20000000000)

sim_err sim_machine_new(const sim_config *c, sim_machine **out);
void sim_machine_free(sim_machine *m);
const sim_config *sim_machine_config(const sim_machine *m);
/* Virtual time of the executing CPU (of the CPU furthest behind when none executes). */
uint64_t sim_clock(const sim_machine *m);
uint64_t sim_tick_cycles(const sim_machine *m);
uint64_t sim_quantum_cycles(const sim_machine *m);
/* Charges kernel work (an API call) to the executing thread t: its kernel
 * cycles and its CPU's clock and busy time advance.  A clock tick this
 * crosses is taken at the thread's next block boundary or switch. */
void sim_kernel_work(sim_thread *t, uint64_t cycles);
/* The thread's cycle time: user + kernel cycles, clock interrupts excluded
 * (what CycleTime and QueryThreadCycleTime report). */
uint64_t sim_thread_cycle_time(const sim_thread *t);
/* Changes the total-cycle limit (m:run{max_cycles=...}); 0 restores the default. */
void sim_set_max_cycles(sim_machine *m, uint64_t max_cycles);
uint64_t sim_max_cycles(const sim_machine *m); /* the limit in force */
/* a * b / c in 64-bit arithmetic, saturating at UINT64_MAX. */
uint64_t sim_mul_div(uint64_t a, uint64_t b, uint64_t c);

/* ---- guest memory ------------------------------------------------------------------- */
/* Places machine code at a fresh, page-aligned, read+execute address with an
 * unmapped guard page after it. */
sim_err sim_code(sim_machine *m, const void *bytes, size_t n, uint64_t *addr);
/* Zeroed, page-aligned read/write memory with an unmapped guard page after it. */
sim_err sim_alloc(sim_machine *m, size_t n, uint64_t *addr);
/* Host-side access.  Read needs the range mapped; write needs it mapped and
 * writable by the guest (code is not).  Nothing is transferred on error. */
sim_err sim_mem_read(sim_machine *m, uint64_t addr, void *buf, size_t n);
sim_err sim_mem_write(sim_machine *m, uint64_t addr, const void *buf, size_t n);
/* Like ProbeForWrite/ProbeForRead: SIM_OK when the whole range is mapped with
 * the access (write implies read). */
sim_err sim_mem_probe(sim_machine *m, uint64_t addr, size_t n, bool write);

/* A small bump-and-free-list heap in guest memory (for the OS's own blocks,
 * e.g. the 448-byte profiling block).  Blocks are 16-byte aligned; a freed
 * block is reused LIFO, deterministically. */
sim_err sim_heap_alloc(sim_machine *m, uint32_t n, uint64_t *addr);
void sim_heap_free(sim_machine *m, uint64_t addr, uint32_t n);

/* ---- threads ------------------------------------------------------------------------ */
/* A new thread, Ready at the executing CPU's time (or time 0 before the run).
 * affinity: CPUs it may run on (bit i = CPU i; masked to the machine; none
 * left is an error); ideal: its ideal processor, or -1 for round-robin by
 * creation order, moved into the affinity. */
sim_err sim_thread_new(sim_machine *m, const char *name, int priority, uint64_t affinity, int ideal, sim_thread **out);
uint32_t sim_thread_id(const sim_thread *t); /* multiples of 4, deterministic */
int sim_thread_index(const sim_thread *t);   /* 0, 1, 2 ... in creation order */
const char *sim_thread_name(const sim_thread *t);
sim_thread_state sim_thread_state_of(const sim_thread *t);
const pmu_bank *sim_thread_bank(const sim_thread *t);
uint64_t
sim_thread_scratch(sim_thread *t); /* a guest page for marshalling API arguments (shared; valid during one call) */
uint64_t sim_thread_switches(const sim_thread *t); /* switch-ins so far */
int sim_thread_priority(const sim_thread *t);
int sim_thread_cpu(const sim_thread *t); /* CPU it runs on or last ran on; -1 never ran */
int sim_thread_ideal(const sim_thread *t);
uint64_t sim_thread_affinity(const sim_thread *t);
int sim_thread_wait_reason(const sim_thread *t);
uint32_t sim_thread_exit_code(const sim_thread *t); /* 259 (STILL_ACTIVE) until it exits */
/* The guest stack t holds, [*lo, *hi): true only inside a guest call (t:run), when it
 * holds a stack slot; false with *lo = *hi = 0 otherwise. */
bool sim_thread_stack(const sim_thread *t, uint64_t *lo, uint64_t *hi);
/* Thread times (sim/README.md "Thread times"): the virtual time in cycles it
 * was created at (the creating CPU's clock; 0 before the run) and exited at
 * (its CPU's clock; 0 while it lives), and the clock interrupts taken while it
 * was its CPU's running thread. */
uint64_t sim_thread_create_time(const sim_thread *t);
uint64_t sim_thread_exit_time(const sim_thread *t);
uint64_t sim_thread_ticks(const sim_thread *t);
/* SetThreadPriority: priority 0..31 (SIM_ERR_ARG else); a Ready thread moves to
 * the tail of its new queue, and every CPU running a lower priority than a
 * Ready thread checks for preemption. */
sim_err sim_thread_set_priority(sim_thread *t, int priority);
/* SetThreadAffinityMask: *old gets the previous mask; SIM_ERR_ARG (nothing
 * changed) when the mask is 0 or names a CPU the machine lacks.  The ideal
 * processor moves into the new mask; the executing thread leaves a CPU
 * outside it at once (preempted, to the head of its queue); a thread running
 * on another CPU moves at its next switch. */
sim_err sim_thread_set_affinity(sim_thread *t, uint64_t affinity, uint64_t *old);
/* SetThreadIdealProcessor: the previous ideal processor, or -1 (nothing
 * changed) when cpu is not a CPU of t's affinity. */
int sim_thread_set_ideal(sim_thread *t, int cpu);
/* CREATE_SUSPENDED: a new thread that has not run yet leaves its ready queue
 * (state Initialized) until sim_thread_release makes it Ready at the current
 * time (its creation's ReadyThread record stays).  SIM_ERR_STATE otherwise. */
sim_err sim_thread_hold(sim_thread *t);
sim_err sim_thread_release(sim_thread *t);
sim_thread *sim_thread_by_id(sim_machine *m, uint32_t tid);
int sim_thread_count(const sim_machine *m);
sim_thread *sim_thread_at(sim_machine *m, int index);

/* ---- guest calls ---------------------------------------------------------------------- */
#define SIM_MAX_ARGS 16

typedef enum sim_call_status {
    SIM_CALL_RETURNED = 0, /* the callee returned; sim_call_result() has rax (x0; eax, r0 sign-extended) */
    SIM_CALL_YIELD,        /* the scheduler needs the driver: the thread was switched out, or its
                              CPU's lock-step round ended; resume the body to continue */
    SIM_CALL_FAULTED,      /* a guest exception; sim_call_fault() describes it */
    SIM_CALL_LIMIT,        /* the CPU reached max_cycles */
    SIM_CALL_ERROR,        /* the emulator failed (a bug or resource problem) */
} sim_call_status;

/* What a guest exception was, in the machine's terms; api/ names each with the
 * status Windows reports (hcp_fault_status). */
typedef enum sim_fault_kind {
    SIM_FAULT_NONE = 0,
    SIM_FAULT_ACCESS,      /* memory unmapped or not permitted: data is the address, access the kind */
    SIM_FAULT_PROTECTION,  /* a protection fault that names no address (x86 #GP from a user-mode int n, an
                              ARM prefetch abort): data is all ones */
    SIM_FAULT_STACK_GUARD, /* a write into the guard page below the thread's own stack */
    SIM_FAULT_ILLEGAL,     /* an undefined instruction, or one the machine refuses (sim/README.md "Faults") */
    SIM_FAULT_PRIVILEGED,  /* a privileged instruction in user mode */
    SIM_FAULT_DIVIDE,      /* integer division by zero */
    SIM_FAULT_SINGLE_STEP, /* x86 #DB */
    SIM_FAULT_BREAKPOINT,  /* int3, int 0x2d, brk, bkpt */
    SIM_FAULT_OVERFLOW,    /* x86 into */
    SIM_FAULT_BOUNDS,      /* x86 bound */
    SIM_FAULT_MISALIGNED,  /* an alignment check */
    SIM_FAULT_FAST_FAIL,   /* x86 int 0x29 */
    SIM_FAULT_ASSERTION,   /* x86 int 0x2c */
} sim_fault_kind;

/* A guest exception, with what an EXCEPTION_RECORD holds. */
typedef struct sim_fault {
    sim_fault_kind kind;
    uint64_t address;  /* ExceptionAddress: the faulting instruction */
    uint64_t data;     /* access violations: the inaccessible address */
    int access;        /* access violations: 0 read, 1 write, 8 execute */
    uint8_t bytes[16]; /* instruction bytes at `address` (as many as readable) */
    int nbytes;
} sim_fault;

/* Starts a call of `entry` on thread t with the machine's calling convention
 * (x64: rcx, rdx, r8, r9, 32-byte shadow space, further arguments on the
 * stack; x86 stdcall: all on the stack; ARM64: x0-x7; ARM: r0-r3; see
 * sim/README.md "Calls"; on 32-bit ISAs each argument is truncated to 32 bits).
 * The return address is a sentinel page that executes nothing, so counts are
 * exactly the callee's instructions, its final ret included.  t must be the
 * running thread and not already in a call. */
sim_err sim_call_begin(sim_thread *t, uint64_t entry, const uint64_t *args, int nargs);
/* Runs the call until it returns, faults, is preempted or hits the limit. */
sim_call_status sim_call_continue(sim_thread *t);
uint64_t sim_call_result(const sim_thread *t);
const sim_fault *sim_call_fault(const sim_thread *t);
/* Register `reg` (a Unicorn register id of the machine's ISA) of the CPU as t's last guest
 * exception left it: the state an exception handler's CONTEXT holds, every register as of the
 * faulting instruction's start (a trap: after the trapping instruction), with the PC at the
 * exception address (sim/README.md "Precise faults").  False (*v = 0) when t has not faulted or the
 * register does not exist. */
bool sim_fault_reg(const sim_thread *t, int reg, uint64_t *v);
/* The faulting instruction of f (a fault of a thread of m) decoded: its
 * length in bytes, with "mnemonic operands" in text; 0 (text "") when the
 * bytes do not decode (an unmapped or invalid instruction). */
int sim_fault_insn(sim_machine *m, const sim_fault *f, char *text, size_t cap);
const char *sim_call_error(const sim_thread *t); /* text for SIM_CALL_ERROR */

/* ---- contexts: an OS's exception dispatch and unwinding (sim/README.md "Contexts") -------- */
/* A thread's registers (x86 and x64; other ISAs: SIM_ERR_ARCH).  gpr in encoding order: rax, rcx,
 * rdx, rbx, rsp, rbp, rsi, rdi, r8-r15 (x86: eax..edi, the rest 0); the x87 registers st0-st7 as
 * 10 bytes each (significand, then sign and exponent), fptw the full 16-bit tag word; xmm0-15
 * (x86: 0-7). */
typedef struct sim_context {
    uint64_t gpr[16];
    uint64_t pc, flags;
    uint16_t seg[6]; /* cs, ds, es, fs, gs, ss: read only (a thread keeps its own) */
    uint32_t mxcsr;
    uint16_t fpcw, fpsw, fptw;
    uint8_t st[8][10];
    uint8_t xmm[16][16];
} sim_context;
/* t's registers: inside a gate call of t (pc: the instruction after the gate entry, the thunk's
 * return), or after sim_call_continue returned SIM_CALL_FAULTED for t, before anything else ran
 * (inside the fault handler: the registers at the fault, pc where the engine stopped).
 * SIM_ERR_STATE otherwise. */
sim_err sim_thread_context(sim_thread *t, sim_context *c);
/* t's guest call goes on from c (segments excepted): inside a gate call of t, when the handler
 * returns (its result is not written: c has every register); after a fault (inside the fault
 * handler), the call is in progress again, on the stack it had, and runs when continued. */
sim_err sim_thread_set_context(sim_thread *t, const sim_context *c);
/* Called when a guest call of t faults, before sim_call_continue returns SIM_CALL_FAULTED: true
 * when it set a context (the call goes on, as if nothing had happened there), false to let the
 * fault end the call.  NULL: none. */
typedef bool (*sim_fault_fn)(void *ud, sim_thread *t);
void sim_set_fault_handler(sim_machine *m, sim_fault_fn fn, void *ud);

/* ---- the call gate: guest code calling the OS (sim/README.md "Call gate") ----------------- */
/* Read+execute pages of SIM_GATE_SERVICES thunks at a fixed address; thunk k
 * is `mov eax, k; syscall; ret`.  When guest code executes a thunk's syscall,
 * the handler is called for service k (eax) on the executing thread t; it
 * reads the arguments with sim_gate_arg and returns the value for rax.  It
 * sets *pending when the call blocked: t left its CPU (Waiting, or it gave
 * the CPU away) without a result; the handler is then called again with
 * resumed = true when t runs again, and that return value is rax.  Whenever t
 * is no longer on its CPU after the handler, sim_call_continue returns
 * SIM_CALL_YIELD; continuing the call later resumes after the syscall. */
#define SIM_GATE_SERVICES 4096
typedef uint64_t (*sim_gate_fn)(void *ud, sim_thread *t, uint32_t service, bool resumed, bool *pending);
/* Installs the handler (NULL: none; a thunk's syscall then returns
 * the gate's refusal like any other syscall). */
void sim_set_gate(sim_machine *m, sim_gate_fn fn, void *ud);
/* What a gate entry no handler serves returns in the result register (a
 * syscall outside the thunks, a service with no handler): 0 until set. */
void sim_set_gate_refusal(sim_machine *m, uint64_t result);
/* The host's poll: called at every scheduling stop of a guest call (each clock tick, quantum or
 * lock-step boundary), where the host may look at its clock or its signals.  It must not change
 * the machine; when it returns true the call stops there, sim_call_continue returns
 * SIM_CALL_ERROR with the text "interrupted", and the run cannot go on (the host ends it).
 * NULL: none (the default). */
void sim_set_poll(sim_machine *m, bool (*fn)(void *ud), void *ud);
/* The guest address of thunk `service` on machine m (NULL: on an x64 machine),
 * or 0 past SIM_GATE_SERVICES. */
uint64_t sim_gate_thunk(const sim_machine *m, uint32_t service);
/* x86 (stdcall): thunk `service` ends in `ret bytes`, popping its caller's
 * argument words; a no-op on the other ISAs (the caller cleans up). */
sim_err sim_gate_set_pop(sim_machine *m, uint32_t service, uint32_t bytes);
/* Argument word k (0-based) of the gate call t is making, by the machine's
 * convention as the thunk sees them (sim/README.md "Calls"): x64 rcx, rdx, r8,
 * r9, then [rsp+0x28+8(k-4)]; x86 [esp+4+4k]; ARM64 x0-x7, then
 * [sp+8(k-8)]; ARM r0-r3, then [sp+4(k-4)].  32-bit words are zero-extended;
 * a 64-bit argument of a 32-bit convention is two words (api/dispatch.c pairs
 * them).  Only inside the handler.  SIM_ERR_UNMAPPED: a stack argument is
 * unreadable. */
sim_err sim_gate_arg(sim_thread *t, int k, uint64_t *v);
/* Argument word k of the gate call with no upper bound on k (variadic callees:
 * printf's arguments), by the same convention; only inside the handler. */
sim_err sim_gate_arg_any(sim_thread *t, int k, uint64_t *v);
/* Where argument word k of the gate call is when it is on the stack (its guest address; the word
 * is the ISA's pointer size), for a callee that reads many of them at once; SIM_ERR_ARG for a
 * word in a register.  Every word after a stack word is on the stack, right after it.  Only
 * inside the handler. */
sim_err sim_gate_arg_addr(sim_thread *t, int k, uint64_t *addr);
/* A 64-bit argument starting at word *k of the gate call: one word on 64-bit ISAs; two words, low
 * first, on 32-bit ones, from an even word on ARM (AAPCS); *k moves past it.  Only inside the
 * handler. */
sim_err sim_gate_arg64(sim_thread *t, int *k, uint64_t *v);
/* Inside the handler: the stack pointer of the gate call t is making, as the thunk sees it (x64
 * and x86: the caller's return address is at [sp]; the C runtime's after-call callbacks replace
 * it, api/crt_after.c).  SIM_ERR_STATE outside the handler. */
sim_err sim_gate_sp(sim_thread *t, uint64_t *sp);
/* Inside the handler: t's guest call ends when the handler returns, as if the
 * callee had returned the handler's result at once (nothing after the gate
 * entry runs; ExitProcess, a call of a missing import).  The thread keeps its
 * CPU; sim_call_continue returns SIM_CALL_RETURNED. */
void sim_gate_end_call(sim_thread *t);
/* Inside the handler: when the call returns (at once, or when a call that blocked resumes), the
 * guest goes on at `pc` instead of the thunk's return, with the result register set and the
 * stack as the thunk's return would have found it (api/: the user-callback dispatcher that runs
 * APCs, FLS callbacks and InitOnce functions before returning to the caller). */
void sim_gate_redirect(sim_thread *t, uint64_t pc);
/* Inside the handler, on x86: edx = v, the high half of a 64-bit result
 * (edx:eax, GetTickCount64); a no-op on the other ISAs. */
void sim_gate_result_high(sim_thread *t, uint32_t v);
/* A floating-point argument of the gate call, as its IEEE bits (a float in the low 32): on x64
 * the one at argument position k (xmm0-xmm3, then the stack word k), on ARM64 the fp-th
 * floating-point argument (d0-d7).  32-bit conventions pass them in argument words
 * (sim_gate_arg64).  SIM_ERR_ARG where the ISA has no such register.  Only inside the handler. */
sim_err sim_gate_fparg(sim_thread *t, int k, int fp, uint64_t *bits);
/* Inside the handler: the floating-point result (IEEE bits; `dbl` false: a float in the low 32
 * bits) in the ISA's result register: x64 xmm0, ARM64 d0 / s0, x86 st(0) (pushed on the x87
 * stack, in extended precision).  SIM_ERR_ARG on ARM, which hcpsim does not write. */
sim_err sim_gate_result_fp(sim_thread *t, uint64_t bits, bool dbl);

/* ---- fixed mappings: a loader's images (sim/README.md "Fixed mappings") ------------------ */
#define SIM_PROT_READ 1u
#define SIM_PROT_WRITE 2u
#define SIM_PROT_EXEC 4u
/* True when [base, base + size) may be mapped with sim_map_fixed: page-aligned,
 * at or above 64 KiB, inside the guest's address space, overlapping no mapping
 * and none of the ranges the layout reserves (OS heap, call gate, stacks,
 * scratch page, sentinel). */
bool sim_range_free(const sim_machine *m, uint64_t base, uint64_t size);
/* Bytes of guest memory mapped (every region but guard pages; the OS heap as far as it is mapped). */
uint64_t sim_mapped_bytes(const sim_machine *m);
/* Maps [base, base + size) at exactly base with prot (SIM_PROT_*) and copies the
 * first n bytes of `bytes` there (the rest is zeros).  An executable range has
 * its trap points placed as sim_code does.  SIM_ERR_ARG: not a free range
 * (sim_range_free) or n > size; SIM_ERR_MAPPINGS, SIM_ERR_TRAPS: the limits.  On x86 and x64 an
 * executable range is guarded code instead: no trap points, each instruction checked as the
 * engine translates it (sim/README.md "Guarded code").
 * m:code and m:alloc later place their blocks around it. */
sim_err sim_map_fixed(sim_machine *m, uint64_t base, uint64_t size, unsigned prot, const void *bytes, size_t n);
/* How many times the translation of guarded code met an instruction the engine must not translate
 * (each made one exit: sim/README.md "Guarded code"). */
uint64_t sim_guard_stops(const sim_machine *m);
/* Changes the protection of a whole data mapping [base, base + size) that
 * sim_map_fixed made (VirtualProtect of a VirtualAlloc region): prot is
 * SIM_PROT_READ, SIM_PROT_READ | SIM_PROT_WRITE or 0 (no access).
 * SIM_ERR_ARG: not exactly one such mapping, or an executable protection
 * (placed code needs its trap points, which bytes written later lack). */
sim_err sim_protect_fixed(sim_machine *m, uint64_t base, uint64_t size, unsigned prot);
/* Page protections of the mappings sim_map_fixed made (sim/README.md "Written code"): pages
 * [addr, addr + size) (page-aligned, all in such mappings, adjacent ones included) get prot
 * (SIM_PROT_*, execute included).  A page that becomes executable has its old blocks forgotten
 * (and, on an ISA without guarded code, its bytes scanned for trap points), so code written there
 * before is counted as it now is; a
 * page both writable and executable changes between the two as the program stores to it and runs
 * it.  SIM_ERR_ARG: a page outside such mappings; SIM_ERR_TRAPS, SIM_ERR_MAPPINGS: the limits. */
sim_err sim_protect_pages(sim_machine *m, uint64_t addr, uint64_t size, unsigned prot);
/* Whether [addr, addr + size) is whole pages of fixed mappings; a page's protection (SIM_PROT_*),
 * or -1 outside them. */
bool sim_pages_fixed(const sim_machine *m, uint64_t addr, uint64_t size);
int sim_page_prot(const sim_machine *m, uint64_t addr);
/* The thread's environment block: at the start of each of its guest calls
 * the segment register Windows addresses it through points at `base` (x64:
 * GS base; x86: FS, selector 0x3B of a descriptor table sim/ keeps), and the
 * stack's high and low end are written as pointer-sized words at base +
 * hi_off and base + lo_off.  base 0: none (the default).  SIM_ERR_ARCH on
 * ARM64 and ARM. */
sim_err sim_thread_set_env(sim_thread *t, uint64_t base, uint32_t hi_off, uint32_t lo_off);

/* ---- scheduler (sim/README.md states every rule) -------------------------------------- */

/* What the scheduler records for ETW CSwitch/ReadyThread events and traces. */
typedef enum sim_record_type { SIM_REC_SWITCH = 0, SIM_REC_READY = 1, SIM_REC_MARK = 2 } sim_record_type;
typedef struct sim_record {
    sim_record_type type;
    int cpu;
    uint64_t time;            /* cycles, on that CPU */
    const sim_thread *thread; /* SWITCH: incoming (NULL = idle); READY: the readied thread */
    const sim_thread *old;    /* SWITCH: outgoing (NULL = idle) */
    int new_priority, old_priority;
    int old_wait_reason; /* KWAIT_REASON */
    int old_wait_mode;   /* 0 KernelMode, 1 UserMode */
    int old_state;       /* KTHREAD_STATE the outgoing thread enters */
    int reason;          /* READY: what readied it (SIM_READY_*) */
    const char *text;    /* MARK: what the thread marked (UTF-8; a program's OutputDebugString) */
} sim_record;

/* A MARK record of thread t at the executing CPU's time (observers see it; the trace shows it as
 * an instant event on t's track).  `text` need live only during the call. */
void sim_mark(sim_machine *m, const sim_thread *t, const char *text);

/* SIM_READY_TIMER: a wait satisfied in a clock interrupt (a timer object expired, or an APC its
 * expiry queued ended an alertable wait), as a timeout is. */
enum {
    SIM_READY_NEW = 0,
    SIM_READY_WAKE,
    SIM_READY_TIMEOUT,
    SIM_READY_QUANTUM,
    SIM_READY_PREEMPTED,
    SIM_READY_YIELD,
    SIM_READY_TIMER
};

/* Observers see every switch-in (for profiling), thread exit, and every record. */
typedef struct sim_observer {
    void (*switch_in)(void *ud, sim_thread *t, int reason);
    void (*thread_exit)(void *ud, sim_thread *t);
    void (*record)(void *ud, const sim_record *r);
    void *ud;
} sim_observer;
/* Adds an observer (at most 4); returns its slot or -1. */
int sim_add_observer(sim_machine *m, const sim_observer *o);
void sim_remove_observer(sim_machine *m, int slot);

typedef enum sim_run_status {
    SIM_RUN_THREAD = 0, /* *out is the executing thread: resume its body */
    SIM_RUN_DONE,       /* every thread has exited */
    SIM_RUN_DEADLOCK,   /* every thread waits and no timer is pending (sim_deadlock_report) */
    SIM_RUN_LIMIT,      /* a CPU reached max_cycles */
} sim_run_status;

/* Advances the machine (idle time, clock interrupts, timers, dispatch) until a
 * thread must run its body or the run ends.  The returned thread is the
 * executing thread until the next call. */
sim_run_status sim_sched_next(sim_machine *m, sim_thread **out);
/* The executing thread, or NULL. */
sim_thread *sim_sched_current(const sim_machine *m);
/* The executing thread's body has ended: it exits with `code`. */
void sim_thread_exit(sim_thread *t, uint32_t code);
/* After an API call that may have readied a higher-priority thread: if the
 * executing thread t must give up its CPU now, it is preempted (WrPreempted)
 * and true is returned: the caller yields to the driver before going on. */
bool sim_sched_preempt_pending(sim_thread *t);
/* Writes "thread 'a' (id 1000) waits on event #1; ..." for a deadlock. */
void sim_deadlock_report(sim_machine *m, char *buf, size_t n);

typedef struct sim_cpu_stats {
    uint64_t time, busy, idle, interrupt, ticks, switches;
} sim_cpu_stats;
int sim_cpu_count(const sim_machine *m);
void sim_cpu_stats_of(const sim_machine *m, int cpu, sim_cpu_stats *out);

/* ---- dispatcher objects and waits ---------------------------------------------------------- */
typedef struct sim_object sim_object;
typedef enum sim_object_type {
    SIM_OBJ_EVENT = 0,
    SIM_OBJ_MUTEX,
    SIM_OBJ_SEMAPHORE,
    SIM_OBJ_THREAD,
    SIM_OBJ_TIMER
} sim_object_type;
#define SIM_OBJ_TYPES 5

#define SIM_INFINITE UINT64_MAX
#define SIM_WAIT_OBJECT_0 0x00000000u
#define SIM_WAIT_ABANDONED_0 0x00000080u
#define SIM_WAIT_TIMEOUT 0x00000102u

/* Objects belong to the machine and live as long as it. NULL: out of memory. */
sim_object *sim_event_new(sim_machine *m, bool manual, bool initial);
/* initial_owner: owned by the executing thread (recursion 1). */
sim_object *sim_mutex_new(sim_machine *m, bool initial_owner);
sim_object *sim_semaphore_new(sim_machine *m, int32_t initial, int32_t max);
sim_object *sim_thread_object(sim_thread *t);
uint32_t sim_object_id(const sim_object *o);

/* A mutex's owner (NULL: free) and recursion count; the threads waiting on an object. */
sim_thread *sim_mutex_owner(const sim_object *mx);
uint32_t sim_mutex_recursion(const sim_object *mx);
int sim_object_waiters(const sim_object *o);

void sim_event_set(sim_object *e);
void sim_event_reset(sim_object *e);
/* 0, or -1 when t does not own the mutex (ERROR_NOT_OWNER). */
int sim_mutex_release(sim_thread *t, sim_object *mx);
/* 0 with *prev, or -1 when the count would pass max (ERROR_TOO_MANY_POSTS). */
int sim_semaphore_release(sim_object *s, int32_t n, int32_t *prev);

typedef enum sim_wait_result { SIM_WAIT_DONE = 0, SIM_WAIT_BLOCKED } sim_wait_result;
/* Waits for one (all=false) or all of n objects, or only for the timeout when
 * n = 0 (Sleep).  timeout in cycles, SIM_INFINITE for none; waits resolve on
 * clock ticks.  SIM_WAIT_DONE: sim_wait_status() has the result at once.
 * SIM_WAIT_BLOCKED: t is Waiting with `reason`; when the body is resumed,
 * sim_wait_status() has the result. */
sim_wait_result sim_wait(sim_thread *t, sim_object *const *objs, int n, bool all, uint64_t timeout, int reason);
uint32_t sim_wait_status(const sim_thread *t);
/* SwitchToThread (any ready thread for this CPU) or Sleep(0) (equal priority
 * only): true when t gave up its CPU (the caller yields to the driver). */
bool sim_yield(sim_thread *t, bool any_priority);
uint64_t sim_ms_to_cycles(const sim_machine *m, uint64_t ms);
/* Ends t's wait at once with `status` (an alertable wait that an APC ends: STATUS_USER_APC), t
 * becoming Ready by `reason` (SIM_READY_WAKE, or SIM_READY_TIMER inside a clock interrupt).  A
 * wait that a suspension interrupted keeps the status for its resumption.  False when t is not
 * waiting in sim_wait (running, ready, suspended outside a wait, exited). */
bool sim_wait_abort(sim_thread *t, uint32_t status, int reason);

/* Timers (waitable timer objects, sim/README.md "Timer objects"): signalled when they expire, at the first
 * CPU-0 clock interrupt at or after their due time, together with the waits whose timeouts expire
 * there (timers first at an equal due time, then in the order they were set).  A synchronization
 * timer (manual = false) resets when a wait it satisfies takes it, as an auto-reset event. */
sim_object *sim_timer_new(sim_machine *m, bool manual);
/* (Re)arms timer o for the absolute virtual time `due` (cycles) and, with period > 0, every
 * `period` cycles after each expiry (from the interrupt's due time); it becomes non-signalled. */
void sim_timer_set(sim_object *o, uint64_t due, uint64_t period);
/* Disarms o (its signal state stays); true when it was armed. */
bool sim_timer_cancel(sim_object *o);
bool sim_timer_armed(const sim_object *o);
/* Called once per expiry, in the clock interrupt, after the timer was signalled and its waiters
 * satisfied (api/: the timer's completion routine, an APC); `at` is the expiry's due tick time. */
typedef void (*sim_timer_fn)(void *ud, sim_object *o, uint64_t at);
void sim_set_timer_hook(sim_machine *m, sim_timer_fn fn, void *ud);

/* ---- suspension (SuspendThread/ResumeThread; sim/README.md "Suspension") ---------------------- */
/* The first suspension of t (api/ keeps the count): a Ready thread leaves its ready queue; the
 * executing thread leaves its CPU at once; a thread running on another CPU leaves it at that CPU's
 * first block boundary (or step) at or after the caller's clock; a waiting thread's wait is
 * interrupted (its objects and timeout kept for its resumption).  Each then waits with
 * KWAIT_REASON Suspended (5), KernelMode.  SIM_ERR_STATE for a thread not Ready, Running or
 * Waiting, or already suspended. */
sim_err sim_thread_suspend(sim_thread *t);
/* The last resumption: a suspended wait is waited again (satisfied at once if it can be, timed
 * out if its due time passed, with its kept status if an APC ended it meanwhile), any other
 * suspended thread becomes Ready now.  SIM_ERR_STATE when t is not suspended. */
sim_err sim_thread_resume(sim_thread *t);
bool sim_thread_suspended(const sim_thread *t);

/* ---- engine recycling (sim/engine.c) ----------------------------------------------------- */
/* On: a freed machine's Unicorn engine is scrubbed (mappings, translations,
 * hooks, CPU state) and the next sim_machine_new takes it instead of opening
 * one, which saves milliseconds per machine under AddressSanitizer.  Off (the
 * default): each machine opens and closes its own; turning it off closes the
 * spares.  It switches pmu_cache_recycle too (the cache model's tag arrays).
 * Process-wide, for one thread; the fuzz targets use it. */
void sim_engine_recycle(bool on);
/* How many machines took a recycled engine since the process started. */
unsigned long sim_engine_reuses(void);

/* ---- speed measurement (make bench) ----------------------------------------------------- */
#define SIM_BENCH_MODES 7
typedef uint64_t (*sim_now_fn)(void); /* host nanoseconds, supplied by the caller */
typedef struct sim_bench_workload {
    const char *key; /* short name on the command line (hcpsim bench --one) */
    const char *name;
    const uint8_t *code; /* a function of two arguments by `arch`'s convention (x64: rcx, rdx) */
    size_t len;
    uint64_t n;                        /* iteration count argument */
    bool data;                         /* when true, rcx = a data buffer and rdx = n; else rcx = n */
    bool random;                       /* the buffer holds fixed pseudo-random words (else zeros) */
    uint64_t fixed, per_iter, per_odd; /* retires fixed + per_iter x n + per_odd x (odd words) */
    sim_arch arch;                     /* the guest ISA (its raw Unicorn runs the same code) */
} sim_bench_workload;
typedef struct sim_bench_result {
    const char *mode;
    uint64_t insns, ns; /* ns: the fastest of the rounds */
    uint64_t ns_median; /* the median of the rounds (the upper one of an even count) */
    uint64_t blocks;    /* blocks the raw engine ran (mode 1, its empty hook counts them), else 0 */
} sim_bench_result;
#define SIM_BENCH_ROUNDS_MAX 15
/* Runs the workload in each mode, `rounds` times over (1..SIM_BENCH_ROUNDS_MAX):
 * every mode once per round, in mode order, so that a slow spell of the
 * host touches every mode alike; -1 when a run fails or miscounts. */
int sim_bench(const sim_bench_workload *w, sim_now_fn now, int rounds, sim_bench_result out[SIM_BENCH_MODES]);
/* Mode k's name (0 raw Unicorn, 1 raw + empty block hook, 2.. hcpsim), NULL past the last. */
const char *sim_bench_mode_name(int mode);
/* Runs the workload in mode k only (make bench-ir counts its host instructions). */
int sim_bench_one(const sim_bench_workload *w, int mode, sim_now_fn now, sim_bench_result *out);

#endif
