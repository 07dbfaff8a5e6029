/* sim/sim_int.h — private structures of the simulated machine (sim/ only). */
#ifndef HCPSIM_SIM_INT_H
#define HCPSIM_SIM_INT_H

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "sim/isa.h"
#include "sim/sim.h"

#define SIM_PAGE 0x1000u

/* The guest address-space layout is per ISA (sim/isa.h, sim_layout): every
 * allocation is followed by an unmapped guard page, so running or writing
 * off the end faults.  The x64 heap holds 149796 profiling blocks. */
/* Unicorn 2.0.1 (QEMU) asserts past about 4090 memory sections, one per
 * separate mapping: hcpsim refuses to map beyond this many. */
#define SIM_HOOK_PROBE UINT64_C(0x10) /* never mapped; see cpu.c precise faults */
/* The call gate (cpu.c): one read+execute page of thunks, thunk k at
 * layout gate + k x SIM_GATE_STRIDE (x64: `mov eax, k; syscall; ret` padded
 * with int3; the other ISAs in sim/isa_*.c). */
#define SIM_GATE_STRIDE 16u

typedef enum region_kind { RK_CODE, RK_DATA, RK_HEAP, RK_STACK, RK_SCRATCH, RK_SENTINEL, RK_GUARD } region_kind;

typedef struct region {
    uint64_t base, size;
    uint32_t prot; /* UC_PROT_* */
    region_kind kind;
    int owner;   /* thread index for stacks/guards, else -1 */
    uint8_t *pp; /* a fixed mapping's (sim_map_fixed) protection per page, SIM_PROT_* and wx.c's state; else NULL */
    uint8_t
        *host; /* the region's bytes, page aligned (uc_mem_map_ptr: sim_mem_read copies from here); NULL for guards */
    void *host_block; /* what was allocated for host (freed with the machine) */
} region;

/* A decoded block: statistics added each time it runs. */
/* How a block ends, for the branch predictor: the outcome of its last
 * instruction is known when the next block starts (its address). */
typedef enum block_end { END_NONE = 0, END_COND, END_RET, END_JMP_INDIRECT, END_CALL, END_CALL_INDIRECT } block_end;

typedef struct block_entry {
    uint64_t addr;
    uint32_t size;
    uint32_t used;
    uint64_t end_pc; /* address of the last instruction */
    uint8_t end;     /* block_end */
    uint8_t end_len; /* length of the last instruction */
    pmu_block_stats st;
    uint64_t runs;                  /* runs counted but not yet added to the bank and clock (cpu.c) */
    struct block_entry *dirty_next; /* the machine's list of blocks with runs > 0 */
    /* Fault recovery (replay.c): what the block hook saves at each entry so that a data fault's
     * instruction can be found by replaying the block: SAVE_NONE (a fault state alone decides it),
     * SAVE_REGS (the registers in save_mask, bits of the ISA's replay set) or SAVE_ALL (the whole
     * CPU context). */
    uint8_t save;
    uint8_t otest; /* replay.c: no save; a fault's instruction is the first one that, alone from the
                      fault's state, gives the same fault */
    uint64_t save_mask;
} block_entry;

enum { SAVE_NONE = 0, SAVE_REGS, SAVE_ALL };

/* The direct-mapped front of the block table (cpu.c): most blocks are found there. */
#define SIM_BLOCK_FRONT 1024u

typedef enum stop_reason { STOP_NONE = 0, STOP_SCHED, STOP_INTR, STOP_GATE, STOP_END, STOP_CONTEXT } stop_reason;

/* A dispatcher object (HCP-SPEC §6 waits): event, mutex, semaphore, thread. */
typedef struct wait_block wait_block;
struct sim_object {
    sim_machine *m;
    sim_object_type type;
    uint32_t id;                   /* per-type sequence number, for messages */
    bool signaled;                 /* events */
    bool manual;                   /* events: manual reset */
    sim_thread *owner;             /* mutexes */
    uint32_t recursion;            /* mutexes */
    bool abandoned;                /* mutexes: owner exited while owning */
    int32_t count, max;            /* semaphores */
    sim_thread *thread;            /* thread objects */
    wait_block *wb_head, *wb_tail; /* waiters, FIFO */
    uint64_t due, period;          /* timers: armed for `due` (cycles), re-armed every `period` (0: once) */
    uint64_t set_seq;              /* timers: when they were set (ties at an equal due time) */
    int heap_pos;                  /* timers: index in the timer-object heap, -1 when not armed */
    sim_object *next_owned;        /* mutexes: in the owner's list */
    sim_object *next_all;          /* machine's list, for freeing */
};

/* One thread waiting on one object. */
struct wait_block {
    sim_thread *t;
    sim_object *obj;
    int index;
    wait_block *prev, *next; /* in obj's list */
};

#define SIM_MAX_WAIT 64 /* MAXIMUM_WAIT_OBJECTS */

struct sim_thread {
    sim_machine *m;
    int index;
    uint32_t id;
    char name[64];
    int priority;
    uint64_t affinity; /* CPUs it may run on (bit i = CPU i), already masked to the machine */
    int ideal;         /* ideal processor */
    int cpu;           /* CPU it runs on, or last ran on (-1 never) */
    sim_thread_state state;
    int wait_reason;   /* KWAIT_REASON recorded when it last left the CPU */
    int wait_mode;     /* 0 KernelMode, 1 UserMode */
    uint64_t switches; /* switch-ins */
    uint32_t exit_code;
    pmu_bank bank;
    uint64_t quantum_start; /* thread cycles when its quantum was last replenished */
    uint64_t ready_time;    /* when it became Ready (a CPU may take it from then on) */
    uint64_t leave_time;    /* the clock of the CPU it last left (it is never Ready earlier) */
    bool ready_notify;      /* readied by creation, a wake-up or a timeout (may preempt), not by leaving a CPU */
    int stack_slot;         /* the stack slot it holds during a guest call, -1 none */
    uint64_t stack_lo, stack_hi;
    uc_context *ctx;       /* saved CPU state while not on the CPU (allocated on first use) */
    uc_context *fault_ctx; /* the CPU at its last fault's start (sim_fault_reg; allocated on first use) */
    bool in_call;
    uint64_t rip; /* where the call resumes */
    uint64_t result;
    sim_fault fault;
    bool gate_pending;            /* blocked inside a gate call: the result comes when it runs again */
    uint32_t gate_service;        /* that call's service number */
    bool gate_end;                /* the handler ended the call (sim_gate_end_call) */
    uint64_t redirect;            /* where the call returns to instead of the thunk's return (0: none) */
    uint64_t env, env_hi, env_lo; /* environment block and its stack fields (sim_thread_set_env), 0: none */
    bool ctx_set;                 /* inside its gate call: the call goes on from a context (context.c), at ctx_pc */
    uint64_t ctx_pc;
    bool resumable; /* its call just faulted: the fault handler may set a context (context.c) */
    int last_slot;  /* the stack slot its last call held (sim_stack_reclaim) */
    char error[160];
    sim_thread *qnext, *qprev; /* ready queue links */
    /* waiting */
    wait_block wb[SIM_MAX_WAIT];
    int nwait;
    bool wait_all;
    bool linked; /* its wait blocks are in their objects' lists */
    /* suspension (sim_thread_suspend) */
    bool suspended;       /* it waits with reason Suspended, or will at suspend_at */
    bool suspend_pending; /* running on another CPU: it leaves that CPU at its first stop at or after suspend_at */
    uint64_t suspend_at;
    bool susp_wait;    /* a wait was interrupted: its objects stay in wb[], nwait, wait_all */
    uint64_t susp_due; /* that wait's due time (UINT64_MAX: none) */
    int susp_reason;   /* its wait reason */
    bool susp_aborted; /* an APC ended it meanwhile: susp_status on resumption */
    uint32_t susp_status;
    uint32_t wait_status;
    uint64_t timer_due;   /* UINT64_MAX: no timer */
    int timer_pos;        /* index in the timer heap, -1 when not in it */
    sim_object *owned;    /* mutexes it owns */
    sim_object *self_obj; /* its thread object */
    /* GetThreadTimes accounting (sim/README.md "Thread times") */
    uint64_t create_time; /* virtual time (cycles) it was created at */
    uint64_t exit_time;   /* virtual time (cycles) it exited at; 0 while it lives */
    uint64_t ticks;       /* clock interrupts taken while it was the CPU's running thread */
};

typedef struct sim_cpu {
    int index;
    uint64_t time;      /* local virtual time, cycles */
    uint64_t next_tick; /* time of its next clock interrupt */
    sim_thread *cur;    /* running thread, NULL when idle */
    bool check_preempt; /* a higher-priority thread may be ready for it */
    uint64_t seg_end;   /* end of the lock-step round in which the current run segment began */
    uint64_t busy, idle, intr, ticks, switches;
    pmu_bp *bp;       /* its branch predictor (NULL with predictor = off) */
    pmu_cache *cache; /* its data-cache hierarchy (NULL with cache = off) */
} sim_cpu;

#define SIM_MAX_CPUS 64
#define SIM_MAX_OBSERVERS 4

struct sim_machine {
    sim_config cfg;
    const sim_isa *isa;    /* the guest ISA (sim/isa.h) */
    const sim_layout *lay; /* its address layout */
    uc_engine *uc;
    unsigned uc_uses; /* machines the engine served before this one (sim/engine.c) */
    csh cs;
    uc_hook h_block, h_intr, h_memerr, h_probe, h_syscall, h_mem;

    region *regions;
    int nregions, cap_regions;
    uint64_t next_data, next_code, heap_brk, heap_end;
    bool gdt_mapped;      /* x86: the descriptor table of environment blocks (sim_thread_set_env) */
    uint64_t heap_mapped; /* the OS heap is mapped in Unicorn up to here (sim_heap_cover) */
    uint8_t *heap_host;   /* the OS heap's bytes (its region's host) */
    struct heap_free {
        uint64_t addr;
        uint32_t size;
    } * heap_free; /* freed blocks, LIFO */
    int heap_nfree, heap_capfree;
    int nmaps;        /* separate mappings made (at most cfg.max_mappings) */
    char errbuf[256]; /* sim_machine_strerror's text */
    int nslots;       /* stack slots mapped so far */
    int *free_slots;  /* free stack slots, LIFO */
    int nfree_slots, capfree_slots;

    sim_thread **threads;
    int nthreads, capthreads, nlive;
    sim_thread *loaded; /* whose CPU context is in the engine */
    uc_context *clean;  /* the engine's CPU state before any guest code ran; each guest call starts from it */
    uint64_t *exits;    /* where emulation stops untranslated: the sentinel, then cpu.c's bad_insn addresses */
    int nexits, capexits;
    int synced_exits;    /* how many of them the engine has (sim_cpu_exits_sync) */
    sim_thread *running; /* the executing thread (its body or guest code runs now) */
    sim_cpu *exec;       /* its CPU */
    sim_observer obs[SIM_MAX_OBSERVERS];
    int nobs;
    struct trap *traps;  /* instructions served by the model (cpu.c) */
    sim_gate_fn gate_fn; /* the call gate's handler (api/), or NULL */
    void *gate_ud;
    uint64_t gate_refusal;   /* the result of a gate entry no handler serves (sim_set_gate_refusal) */
    sim_thread *gate_thread; /* the thread whose gate call is being handled, else NULL */
    bool (*poll)(void *ud);  /* the host's poll at each scheduling stop of a guest call (sim_set_poll) */
    void *poll_ud;
    sim_fault_fn fault_fn; /* an OS's exception dispatch (sim_set_fault_handler), or NULL */
    void *fault_ud;

    sim_cpu cpus[SIM_MAX_CPUS];
    int ncpus;
    uint64_t tick_cycles, quantum_cycles, max_cycles;
    sim_thread *rq_head[32], *rq_tail[32]; /* ready queues by priority */
    uint32_t rq_summary;                   /* bit p: queue p not empty */
    int nready;
    sim_thread **timers; /* min-heap by (timer_due, id) */
    int ntimers, captimers;
    sim_object *objects;
    uint32_t nobj[SIM_OBJ_TYPES];
    sim_object **otimers; /* armed timer objects: a min-heap by (due, set_seq) */
    int notimers, capotimers;
    uint64_t timer_seq;
    sim_timer_fn timer_fn; /* api/'s hook at each timer expiry */
    void *timer_ud;

    /* block statistics cache: open addressing, power-of-two capacity */
    block_entry *blocks;
    uint32_t nblocks, capblocks;
    block_entry *last_block; /* the block most recently counted */
    uint64_t last_block_addr;
    block_entry *front[SIM_BLOCK_FRONT]; /* by address: a block of the table, or NULL */
    /* Runs are counted per block on the hot path and added to the running
     * thread's bank and its CPU's clock at the next flush (cpu.c flush_runs:
     * before a gate call, a served instruction, a table resize, and when the
     * engine returns), so nothing reads a bank or a clock with runs pending. */
    block_entry *dirty;   /* blocks with runs > 0 */
    uint64_t budget;      /* cycles left before stop_at, pending runs included (0: stop at the next block) */
    pmu_bp *hot_bp;       /* the executing CPU's predictor while the engine runs (NULL: none) */
    pmu_cache *hot_cache; /* its data caches (NULL: none) */
    /* The loop in its steady state: last_block (loop_size bytes at
     * last_block_addr) went to itself, has runs pending, and its final branch
     * leaves the predictor as it is (or there is no predictor or no branch),
     * so its next run only counts (cpu.c on_block).  NO_LOOP (cpu.c: a size
     * no block has) when there is no such loop; everything that changes
     * last_block, the pending runs or the predictor otherwise sets it so. */
    uint32_t loop_size;

    /* Fault recovery without a memory hook (replay.c, sim/README.md "Precise faults"). */
    bool recover;                   /* precise faults and no memory hook: a data fault is replayed */
    bool replaying;                 /* a replay runs: the hooks leave the machine alone */
    const block_entry *saved_block; /* the block whose entry state is saved below */
    uint64_t saved_regs[64];        /* its SAVE_REGS registers, by bit of the replay set */
    uc_context *saved_ctx;          /* its SAVE_ALL context */
    struct replay_access *journal;  /* the accesses of the replay running (replay.c) */
    int njournal, capjournal;
    int replay_type; /* the replay's fault (on_memerr while replaying) */
    uint64_t replay_addr;
    bool replay_refused;                /* the replay reached a hook that would act (a trap, the gate) */
    uint64_t replays, replay_fallbacks; /* faults a replay searched, and those the fallback found (tests) */

    /* per-run stop bookkeeping */
    uint64_t stop_at; /* the executing CPU stops at the first block boundary at or after this time */
    stop_reason stop;
    bool retranslated;
    int intno;
    uint64_t memerr_addr;
    int memerr_type;
    bool guard_hit;       /* the translation of guarded code met an instruction it must not translate */
    uint64_t guard_addr;  /* where it starts */
    uint64_t guard_stops; /* how many times that happened (sim_guard_stops) */
    /* written code (wx.c): the page the last store fault made data, and the store's address */
    bool wx_armed;
    uint64_t wx_page, wx_rip;
};

/* machine.c */
const region *sim_region_find(const sim_machine *m, uint64_t addr);
/* Maps [base, base+size) with prot (a guard region is recorded, not mapped) and records it. */
sim_err sim_region_add(sim_machine *m, uint64_t base, uint64_t size, uint32_t prot, region_kind k, int owner);
/* Maps the part of the OS heap that [addr, addr + n) touches, if not yet mapped.
 * False when Unicorn refuses (host memory). */
bool sim_heap_cover(sim_machine *m, uint64_t addr, uint64_t n);
/* cpu.c */
/* The block hook off (a replay runs; translations made meanwhile have no block hook, and replay.c
 * removes them) and on again. */
sim_err sim_cpu_block_hook(sim_machine *m, bool on);
/* replay.c */
/* A new block's SAVE_* and save_mask (m->recover only). */
void sim_replay_analyse(sim_machine *m, block_entry *b);
/* Saves what block b (save != SAVE_NONE) needs at its entry: called by the block hook. */
void sim_replay_save(sim_machine *m, const block_entry *b);
/* A data fault of the `type` (uc_mem_type) at `addr` stopped the engine inside the last counted
 * block, whose registers the engine holds as of the faulting instruction's start and whose PC it
 * reports as the block's start: the faulting instruction's address (the engine's PC set to it,
 * every register and all memory as they were), or UINT64_MAX when there is no block to search. */
uint64_t sim_replay_fault(sim_machine *m, int type, uint64_t addr);
void sim_replay_fini(sim_machine *m);
sim_err sim_cpu_init(sim_machine *m);
void sim_cpu_fini(sim_machine *m);
/* A stop address for the engine (where translation must not go). */
sim_err sim_cpu_add_exit(sim_machine *m, uint64_t a);
/* engine.c: a machine's Unicorn engine, fresh or recycled (sim_engine_recycle);
 * a spare serves only a machine of the same Unicorn arch and mode.
 * close keeps it as the spare when recycling, after removing its mappings,
 * flushing its translations and restoring `fresh` (hooks deleted by the caller). */
sim_err sim_engine_open(uc_arch arch, uc_mode mode, uc_engine **uc, unsigned *uses);
void sim_engine_close(uc_arch arch, uc_mode mode, uc_engine *uc, unsigned uses, uc_context *fresh);
bool sim_engine_recycling(void);
/* Code about to be placed at addr: its trap points (where an instruction the
 * engine cannot translate may start) join the machine's exits, within
 * cfg.max_trap_points (SIM_ERR_TRAPS, none added); sim_cpu_exits_sync hands
 * the exits to the engine (cpu.c). */
sim_err sim_cpu_code_traps(sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t n);
sim_err sim_cpu_exits_sync(sim_machine *m);
/* cpu.c: an instruction fetch the engine makes to translate guarded code (a UC_MEM_FETCH_PROT on a
 * page sim_wx_guarded says is guarded): true lets it go on; false stops the pass (guard_hit,
 * guard_addr), or leaves the fault to written_code and fault_from_uc. */
bool sim_guard_fetch(sim_machine *m, uint64_t addr, int size);
/* Up to n bytes from addr as the engine holds them, whatever their protection, stopping at the
 * first byte not mapped: the count copied (machine.c; no engine call). */
size_t sim_mem_peek(const sim_machine *m, uint64_t addr, void *buf, size_t n);
/* The code of [lo, hi) may have changed: its blocks' statistics, served instructions, trap points
 * and the engine's translations of it (and of blocks reaching into it) are forgotten (cpu.c).
 * Never while runs are pending (it is called from gate handlers and between engine passes). */
void sim_cpu_forget_code(sim_machine *m, uint64_t lo, uint64_t hi);
/* wx.c: page protections of fixed mappings and written code (sim/README.md "Written code") */
sim_err sim_wx_init_region(sim_machine *m, region *r, unsigned prot);
bool sim_wx_allows(const sim_machine *m, const region *r, uint64_t addr, size_t n, uint32_t need);
sim_err sim_wx_written(sim_machine *m, uint64_t addr, size_t n); /* host bytes written there */
/* A protection fault of the engine at addr (a fetch or a store) by the instruction at rip: 1 when
 * it was a state change of a writable, executable page (the instruction runs again), 0 for a real
 * fault, -1 for an error (its text in err). */
int sim_wx_fault(sim_machine *m, bool fetch, uint64_t addr, uint64_t rip, char *err, size_t cap);
/* Whether the page holding addr is guarded code: an executable page of a fixed mapping in its code
 * state, on an ISA with guarded code (isa->guard_bad): read only to the engine (sim/README.md
 * "Guarded code"). */
bool sim_wx_guarded(const sim_machine *m, uint64_t addr);
/* [addr, addr + n) of region r holds no translated block and cannot get one before its protection
 * changes (which drops what was translated: sim_cpu_forget_code): a page the engine cannot run,
 * in a region that was never executable or a fixed mapping's page that is not code now.  Its host
 * bytes may be written directly. */
bool sim_wx_never_code(const region *r, uint64_t addr, size_t n);
/* machine.c */
sim_err sim_stack_acquire(sim_thread *t);             /* a stack slot for a guest call */
void sim_stack_release(sim_thread *t);                /* when the call ends or the thread exits */
void sim_call_end(sim_thread *t);                     /* not in a call any more; gives its stack back */
sim_err sim_stack_reclaim(sim_thread *t);             /* takes back the slot its faulted call held */
sim_err sim_cpu_env_load(sim_thread *t);              /* cpu.c: its environment block for a call's start */
void sim_sched_make_ready(sim_thread *t, int reason); /* at the current time, tail of its queue */
void sim_sched_leave(sim_thread *t);                  /* t (Waiting or Terminated) leaves its CPU */
void sim_sched_unready(sim_thread *t);                /* a Ready thread leaves its ready queue (suspended) */
/* sched.c */
typedef enum boundary_result { BOUNDARY_CONTINUE, BOUNDARY_YIELD } boundary_result;
/* At a block boundary where the executing CPU reached stop_at: ticks,
 * timers, quantum end, preemption, lock-step round end. */
boundary_result sim_sched_boundary(sim_machine *m);
/* Starts a run segment of c's thread: fixes its round end, returns stop_at. */
uint64_t sim_sched_segment_begin(sim_machine *m, sim_cpu *c);
uint64_t sim_sched_stop_at(sim_machine *m, sim_cpu *c);
void sim_sched_record(sim_machine *m, const sim_record *r);
/* objects.c */
void sim_objects_free(sim_machine *m);
void sim_timer_expire(sim_machine *m, uint64_t now);
void sim_wait_cancel(sim_thread *t);
void sim_thread_signal_exit(sim_thread *t);

#endif
