/* sim — the simulated machine of hcpsim.
 *
 * Owns the guest CPU (Unicorn, x86-64), guest memory, simulated threads with
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
} sim_err;
const char *sim_strerror(sim_err e);

/* Thread states, numbered as KTHREAD_STATE (HCP-SPEC §6). */
typedef enum sim_thread_state {
    SIM_TS_INITIALIZED = 0,
    SIM_TS_READY = 1,
    SIM_TS_RUNNING = 2,
    SIM_TS_STANDBY = 3,
    SIM_TS_TERMINATED = 4,
    SIM_TS_WAITING = 5,
} sim_thread_state;

/* KWAIT_REASON values the scheduler records (HCP-SPEC §6). */
enum {
    SIM_WR_EXECUTIVE = 0,
    SIM_WR_DELAY_EXECUTION = 4,
    SIM_WR_USER_REQUEST = 6,
    SIM_WR_QUANTUM_END = 30,
    SIM_WR_PREEMPTED = 32,
    SIM_WR_YIELD_EXECUTION = 33,
};

typedef struct sim_config {
    uint64_t frequency;  /* cycles per simulated second */
    uint32_t tick;       /* clock interrupt interval, 100-ns units */
    uint32_t quantum;    /* clock ticks per quantum */
    uint64_t max_cycles; /* total guest cycles a run may use (0 = default) */
    uint32_t stack_size; /* per-thread guest stack, bytes (0 = default) */
    bool precise_faults; /* exact fault address and partial-block count (costs speed; see README) */
    pmu_config pmc;      /* event on each PMC */
} sim_config;

/* Defaults: 3 GHz, 156250 (15.625 ms) tick, 2-tick quantum, 256 KiB stacks. */
void sim_config_default(sim_config *c);

sim_err sim_machine_new(const sim_config *c, sim_machine **out);
void sim_machine_free(sim_machine *m);
const sim_config *sim_machine_config(const sim_machine *m);
uint64_t sim_clock(const sim_machine *m); /* virtual cycles elapsed */
uint64_t sim_quantum_cycles(const sim_machine *m);
/* Changes the total-cycle limit (m:run{max_cycles=...}); 0 restores the default. */
void sim_set_max_cycles(sim_machine *m, uint64_t max_cycles);
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
sim_err sim_thread_new(sim_machine *m, const char *name, int priority, uint64_t affinity, sim_thread **out);
uint32_t sim_thread_id(const sim_thread *t); /* multiples of 4, deterministic */
int sim_thread_index(const sim_thread *t);   /* 0, 1, 2 ... in creation order */
const char *sim_thread_name(const sim_thread *t);
sim_thread_state sim_thread_state_of(const sim_thread *t);
const pmu_bank *sim_thread_bank(const sim_thread *t);
uint64_t sim_thread_scratch(const sim_thread *t);  /* a guest page owned by the thread */
uint64_t sim_thread_switches(const sim_thread *t); /* switch-ins so far */
sim_thread *sim_thread_by_id(sim_machine *m, uint32_t tid);
int sim_thread_count(const sim_machine *m);
sim_thread *sim_thread_at(sim_machine *m, int index);

/* ---- guest calls ---------------------------------------------------------------------- */
#define SIM_MAX_ARGS 16

typedef enum sim_call_status {
    SIM_CALL_RETURNED = 0, /* the callee returned; sim_call_result() has rax */
    SIM_CALL_PREEMPTED,    /* quantum ended with another thread ready; thread is Ready */
    SIM_CALL_FAULTED,      /* a guest exception; sim_call_fault() describes it */
    SIM_CALL_LIMIT,        /* the machine's max_cycles was reached */
    SIM_CALL_ERROR,        /* the emulator failed (a bug or resource problem) */
} sim_call_status;

/* A guest exception, as Windows would report it in an EXCEPTION_RECORD. */
typedef struct sim_fault {
    uint32_t code;     /* NTSTATUS exception code, e.g. 0xC0000005 */
    uint64_t address;  /* ExceptionAddress: the faulting instruction */
    uint64_t data;     /* access violations: the inaccessible address */
    int access;        /* access violations: 0 read, 1 write, 8 execute */
    uint8_t bytes[16]; /* instruction bytes at `address` (as many as readable) */
    int nbytes;
} sim_fault;

/* Starts a call of `entry` on thread t with the Windows x64 convention
 * (rcx, rdx, r8, r9, 32-byte shadow space, further arguments on the stack).
 * The return address is a sentinel page that executes nothing, so counts are
 * exactly the callee's instructions, its final ret included.  t must be the
 * running thread and not already in a call. */
sim_err sim_call_begin(sim_thread *t, uint64_t entry, const uint64_t *args, int nargs);
/* Runs the call until it returns, faults, is preempted or hits the limit. */
sim_call_status sim_call_continue(sim_thread *t);
uint64_t sim_call_result(const sim_thread *t);
const sim_fault *sim_call_fault(const sim_thread *t);
const char *sim_call_error(const sim_thread *t); /* text for SIM_CALL_ERROR */

/* ---- scheduler (round-robin, one CPU) ------------------------------------------------ */
/* Observers see every switch-in (for profiling, tracing).  `reason` is the
 * KWAIT_REASON recorded when the incoming thread last left the CPU. */
typedef struct sim_observer {
    void (*switch_in)(void *ud, sim_thread *t, int reason);
    void (*thread_exit)(void *ud, sim_thread *t);
    void *ud;
} sim_observer;
void sim_set_observer(sim_machine *m, const sim_observer *o);

/* Makes a new thread Ready (tail of the ready queue). */
sim_err sim_sched_start(sim_thread *t);
/* Picks the next thread to run and switches it in; NULL when none is ready. */
sim_thread *sim_sched_dispatch(sim_machine *m);
/* The running thread, or NULL. */
sim_thread *sim_sched_current(const sim_machine *m);
/* The running thread's body has ended. */
void sim_sched_exit(sim_thread *t);
/* Number of Ready threads. */
int sim_sched_ready_count(const sim_machine *m);

/* ---- speed measurement (make bench) ----------------------------------------------------- */
#define SIM_BENCH_MODES 4
typedef uint64_t (*sim_now_fn)(void); /* host nanoseconds, supplied by the caller */
typedef struct sim_bench_workload {
    const char *name;
    const uint8_t *code; /* Windows x64 function: (rcx, rdx) */
    size_t len;
    uint64_t n;     /* iteration count argument */
    bool data;      /* when true, rcx = a data buffer and rdx = n; else rcx = n */
    uint64_t insns; /* instructions the call retires (from the listing's formula) */
} sim_bench_workload;
typedef struct sim_bench_result {
    const char *mode;
    uint64_t insns, ns;
} sim_bench_result;
/* Runs the workload in each mode; -1 when a run fails or miscounts. */
int sim_bench(const sim_bench_workload *w, sim_now_fn now, sim_bench_result out[SIM_BENCH_MODES]);

#endif
