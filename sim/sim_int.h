/* sim/sim_int.h — private structures of the simulated machine (sim/ only). */
#ifndef HCPSIM_SIM_INT_H
#define HCPSIM_SIM_INT_H

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "sim/sim.h"

#define SIM_PAGE 0x1000u

/* Guest address-space layout (x64).  Every allocation is followed by an
 * unmapped guard page, so running or writing off the end faults. */
#define SIM_DATA_BASE UINT64_C(0x0000000010000000)  /* sim_alloc: scenario data */
#define SIM_HEAP_BASE UINT64_C(0x0000000070000000)  /* sim_heap_alloc: OS blocks */
#define SIM_HEAP_SIZE UINT64_C(0x0000000000400000)  /* 4 MiB */
#define SIM_CODE_BASE UINT64_C(0x0000000140000000)  /* sim_code: guest code */
#define SIM_STACK_BASE UINT64_C(0x00007FF000000000) /* per-thread stacks + scratch */
#define SIM_SENTINEL UINT64_C(0x00007FFFFFFE0000)   /* return address of t:run; never executes */
#define SIM_HOOK_PROBE UINT64_C(0x10)               /* never mapped; see cpu.c precise faults */

typedef enum region_kind { RK_CODE, RK_DATA, RK_HEAP, RK_STACK, RK_SCRATCH, RK_SENTINEL, RK_GUARD } region_kind;

typedef struct region {
    uint64_t base, size;
    uint32_t prot; /* UC_PROT_* */
    region_kind kind;
    int owner; /* thread index for stacks/guards, else -1 */
} region;

/* A decoded block: statistics added each time it runs. */
typedef struct block_entry {
    uint64_t addr;
    uint32_t size;
    uint32_t used;
    pmu_block_stats st;
} block_entry;

typedef enum stop_reason { STOP_NONE = 0, STOP_QUANTUM, STOP_LIMIT, STOP_INTR } stop_reason;

struct sim_thread {
    sim_machine *m;
    int index;
    uint32_t id;
    char name[64];
    int priority;
    uint64_t affinity;
    sim_thread_state state;
    int wait_reason;   /* KWAIT_REASON recorded when it last left the CPU */
    uint64_t switches; /* switch-ins */
    pmu_bank bank;
    uint64_t stack_lo, stack_hi, scratch;
    uc_context *ctx; /* saved CPU state while not on the CPU */
    bool in_call;
    uint64_t rip; /* where the call resumes */
    uint64_t result;
    sim_fault fault;
    char error[160];
    sim_thread *next_ready;
};

struct sim_machine {
    sim_config cfg;
    uc_engine *uc;
    csh cs;
    uc_hook h_block, h_intr, h_memerr, h_probe, h_syscall;

    region *regions;
    int nregions, cap_regions;
    uint64_t next_data, next_code, heap_brk;
    struct heap_free {
        uint64_t addr;
        uint32_t size;
    } * heap_free; /* freed blocks, LIFO */
    int heap_nfree, heap_capfree;

    sim_thread **threads;
    int nthreads, capthreads;
    sim_thread *running, *last_run, *loaded;
    sim_thread *ready_head, *ready_tail;
    int nready;
    sim_observer obs;
    struct trap *traps; /* instructions served by the model (cpu.c) */

    uint64_t clock; /* virtual cycles */
    uint64_t quantum_cycles;
    uint64_t slice_deadline;
    uint64_t max_cycles;

    /* block statistics cache: open addressing, power-of-two capacity */
    block_entry *blocks;
    uint32_t nblocks, capblocks;
    block_entry *last_block; /* the block most recently counted */
    block_entry *mru_block;  /* the block most recently looked up */
    uint64_t last_block_addr;

    /* per-run stop bookkeeping */
    stop_reason stop;
    bool retranslated;
    int intno;
    uint64_t memerr_addr;
    int memerr_type;
};

/* machine.c */
const region *sim_region_find(const sim_machine *m, uint64_t addr);
/* cpu.c */
sim_err sim_cpu_init(sim_machine *m);
void sim_cpu_fini(sim_machine *m);
/* sched.c */
void sim_sched_preempt(sim_thread *t, int reason);

#endif
