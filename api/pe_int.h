/* api/pe_int.h — the process of a loaded image (api/pe.c and the export implementations only). */
#ifndef HCPSIM_API_PE_INT_H
#define HCPSIM_API_PE_INT_H

#include "api/api_int.h"
#include "api/pe.h"

/* Gate services: below HCP_SVC_MISSING the rows of the export table (exports.spec: row k is
 * service k; rows 0..20 the call gate's own imports), HCP_SVC_MISSING + k the k-th import hcpsim
 * lacks (each its own thunk, so the call names it). */
#define HCP_SVC_MISSING 2048u
#define HCP_MAX_MISSING (SIM_GATE_SERVICES - HCP_SVC_MISSING)
#define HCP_MAX_ATEXIT 64            /* functions atexit/_onexit register (msvcrt guarantees 32) */
#define HCP_HEAP_SIZE (16u << 20)    /* the heap's first segment, and each later one at least */
#define HCP_HEAP_LARGE (1u << 20)    /* a block this large gets a segment of its own */
#define HCP_HEAP_MAX_BLOCKS 1048576  /* blocks (used and free) of all segments */
#define HCP_STACK_RESERVE (1u << 20) /* what a thread's stack takes of the memory budget */

/* Guest addresses of the process's data (api/pe.c builds it). */
typedef struct hcp_proc_data {
    uint64_t base; /* the block: PEB, TEB, parameters, strings, C runtime data */
    uint64_t peb, teb, params;
    uint64_t cmdline_a, cmdline_w, image_w, env_a, env_w;
    uint64_t iob;        /* msvcrt's _iob[3] */
    uint32_t file_size;  /* sizeof(FILE): 48 or 32 */
    uint64_t argv, envp; /* char *argv[], char *envp[] */
    uint64_t v_initenv, v_acmdln, v_commode, v_fmode, v_mb_cur_max, v_errno, v_environ, v_argc, v_argv;
    uint64_t tls_array; /* the TEB's ThreadLocalStoragePointer target */
    uint64_t lconv;     /* localeconv's struct */
    uint64_t strerr;    /* strerror's buffer */
    uint64_t clocale;   /* "C": setlocale's answer */
    uint64_t stubs;     /* guest code: _initterm, _cexit, exit */
    uint64_t stub_initterm, stub_cexit, stub_exit;
    uint64_t stub_after; /* the after-call callback stub (api/crt_after.c) */
} hcp_proc_data;

typedef struct heap_block {
    uint64_t addr;
    uint64_t size; /* bytes of the block (a multiple of 16) */
    uint64_t req;  /* bytes asked for (HeapSize) */
    bool used;
} heap_block;

#define HCP_TLS_SLOTS 1088 /* TlsAlloc's indices: 64 + 1024 expansion slots, as Windows has */

/* A thread of the process: the main thread and those CreateThread made. */
typedef struct hcp_pthread {
    sim_thread *t;
    uint64_t teb;
    bool exit_req; /* ExitThread (or TerminateThread of itself): its call ended, its body returns exit_code */
    uint32_t exit_code;
    uint64_t *tls;    /* HCP_TLS_SLOTS values, allocated by the first TlsSetValue */
    uint32_t suspend; /* the suspend count: CREATE_SUSPENDED's and SuspendThread's */
    bool held;        /* created suspended and not yet released (state Initialized) */
    uint64_t charged; /* its stack's part of the memory budget, given back when it exits */
} hcp_pthread;

typedef struct hcp_cs { /* a CRITICAL_SECTION's address and the mutex that serializes it */
    uint64_t addr;
    sim_object *mx;
    uint64_t debug;       /* its RTL_CRITICAL_SECTION_DEBUG in the OS heap (Windows 7), else 0 */
    uint32_t contentions; /* waits on it (the debug block's ContentionCount) */
} hcp_cs;

typedef struct hcp_named { /* a named event, mutex, semaphore or waitable timer */
    char name[128];
    obj_type type;
    sim_object *o;
    int refs; /* open handles to it: the name goes with the last (k32_sync.c) */
} hcp_named;

typedef struct hcp_vregion { /* a VirtualAlloc region */
    uint64_t base, size;
    uint32_t protect; /* PAGE_* it was allocated with */
    bool released;
    uint32_t *pages; /* each page's PAGE_* now (VirtualProtect) */
} hcp_vregion;

typedef struct hcp_image_export { /* an export of the image */
    char name[64];
    uint64_t addr;
} hcp_image_export;

struct hcp_process {
    hcp_os *os;
    char name[64]; /* file name, as given */
    hcp_pe_info pe;
    uint64_t base; /* where it is mapped */
    uint64_t entry;
    uint64_t tls_cb[HCP_PE_MAX_TLS_CALLBACKS];
    int ntls_cb;
    int argc;
    hcp_proc_data d;
    /* imports hcpsim lacks, by service - HCP_SVC_MISSING */
    char (*missing)[96];
    int nmissing;
    char failure[256];
    bool failure_missing; /* the failure is a call of an import hcpsim lacks */
    bool missing_fail;    /* --missing-imports=fail: such a call returns failure instead of stopping */
    uint8_t *warned;      /* per gate service: its missing-import warning was given (SIM_GATE_SERVICES) */
    bool exited;
    uint32_t exit_code;
    uint64_t atexit_fn[HCP_MAX_ATEXIT];
    int natexit;
    hcp_output_fn out;
    void *out_ud;
    /* the C runtime heap: segments of guest memory, their blocks by address, first fit */
    heap_block *blocks;
    int nblocks, capblocks;
    /* threads (hcp_pthread), CreateThread's factory */
    hcp_pthread *thr;
    int nthr, capthr;
    hcp_spawn_fn spawn;
    uint64_t mem_limit, mem_used; /* the memory budget (machine option max_memory) and what is charged to it */
    uint64_t teb_next;            /* TEBs of new threads: the next page of the current arena, */
    int teb_left;                 /* and the pages it has left */
    uint64_t *teb_free;           /* TEBs of exited threads, taken again first */
    int nteb_free, capteb_free;
    void *spawn_ud;
    uint8_t tls_used[HCP_TLS_SLOTS];
    hcp_cs *cs;
    int ncs, capcs;
    hcp_named *named;
    int nnamed, capnamed;
    hcp_vregion *va;
    int nva, capva;
    hcp_image_export *exports;
    int nexports;
    struct hcp_procx *x;  /* files, environment, time zone, stdio (api/files_int.h) */
    struct hcp_xproc *sx; /* synchronisation, pool, FLS, priority class (api/sync_int.h), NULL until used */
    uint64_t ucb_entry;   /* the user-callback dispatcher's guest code (api/ucb.c) */
    sim_thread *spawner;  /* a thread creating one while it has left its CPU (a pool worker that blocked) */
    struct hcp_crt *crt; /* the C runtime's own state (api/crt_state.c), made at its first use */
};

/* Charges n bytes to the process's memory budget: false (nothing charged) when they do not fit. */
bool hcp_process_charge(hcp_process *p, uint64_t n);
void hcp_process_uncharge(hcp_process *p, uint64_t n);
/* A thread of the process exited: what it held of the budget goes back (handles.c's observer). */
void hcp_process_thread_gone(hcp_process *p, sim_thread *t);
/* pe.c: the record of t, or NULL when t is not a thread of the process. */
hcp_pthread *hcp_process_thread(hcp_process *p, const sim_thread *t);
/* Registers t as a thread of p with its own TEB (a copy of the main thread's,
 * ClientId and Self its own); 0 or -1 (no guest memory). */
int hcp_process_add_thread(hcp_process *p, sim_thread *t);

/* crt_state.c: frees the C runtime's state of p. */
void hcp_crt_state_free(hcp_process *p);
/* crt_guest.c: places msvcrt's guest-code exports (_initterm, _cexit, exit) after the image. */
sim_err hcp_crt_guest_place(hcp_process *p);

#endif
