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
#define HCP_MAX_ATEXIT 64 /* functions atexit/_onexit register (msvcrt guarantees 32) */
#define HCP_HEAP_SIZE (16u << 20)
#define HCP_HEAP_MAX_BLOCKS 65536

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
    uint32_t size; /* bytes of the block (a multiple of 16) */
    uint32_t req;  /* bytes asked for (HeapSize) */
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
    uint32_t suspend; /* CREATE_SUSPENDED's count, until ResumeThread brings it to 0 */
} hcp_pthread;

typedef struct hcp_cs { /* a CRITICAL_SECTION's address and the mutex that serializes it */
    uint64_t addr;
    sim_object *mx;
} hcp_cs;

typedef struct hcp_named { /* a named event, mutex or semaphore */
    char name[128];
    obj_type type;
    sim_object *o;
} hcp_named;

typedef struct hcp_vregion { /* a VirtualAlloc region */
    uint64_t base, size;
    uint32_t protect; /* PAGE_* */
    bool released;
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
    bool binary[3]; /* _setmode(fd, _O_BINARY): no "\n" -> "\r\n" on that stream */
    hcp_output_fn out;
    void *out_ud;
    /* the C runtime heap: blocks by address, first fit */
    uint64_t heap_base;
    heap_block *blocks;
    int nblocks, capblocks;
    /* threads (hcp_pthread), CreateThread's factory */
    hcp_pthread *thr;
    int nthr, capthr;
    hcp_spawn_fn spawn;
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
    struct hcp_crt *crt; /* the C runtime's own state (api/crt_state.c), made at its first use */
};

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
