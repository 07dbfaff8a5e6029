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
    uint64_t stub_after;                      /* the after-call callback stub (api/crt_after.c) */
    uint64_t runner_page, runner, runner_ret; /* the call runner (api/runner.c) */
} hcp_proc_data;

typedef struct heap_block {
    uint64_t addr;
    uint64_t size; /* bytes of the block (a multiple of 16) */
    uint64_t req;  /* bytes asked for (HeapSize) */
    bool used;
} heap_block;

#define HCP_TLS_MODULES 64 /* modules with a TLS directory (the slots of a thread's TLS array) */
#define HCP_TLS_SLOTS 1088 /* TlsAlloc's indices: 64 + 1024 expansion slots, as Windows has */

/* A thread of the process: the main thread and those CreateThread made. */
typedef struct hcp_pthread {
    sim_thread *t;
    uint64_t teb;
    uint64_t tls_array; /* its ThreadLocalStoragePointer: a block per module with TLS */
    bool exit_req;      /* ExitThread (or TerminateThread of itself): its call ended, its body returns exit_code */
    uint32_t exit_code;
    uint64_t *tls;        /* HCP_TLS_SLOTS values, allocated by the first TlsSetValue */
    uint32_t suspend;     /* the suspend count: CREATE_SUSPENDED's and SuspendThread's */
    bool held;            /* created suspended and not yet released (state Initialized) */
    uint64_t charged;     /* its stack's part of the memory budget, given back when it exits */
    struct hcp_run *runs; /* the simulated OS's calls of program code in progress (api/runner.c), innermost first */
    int dispatch_depth;   /* exceptions being dispatched at once (api/seh.c) */
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

/* Data directories the loader reads. */
#define HCP_DIR_EXPORT 0
#define HCP_DIR_IMPORT 1
#define HCP_DIR_EXCEPTION 3
#define HCP_DIR_BASERELOC 5
#define HCP_DIR_TLS 9
#define IMAGE_FILE_RELOCS_STRIPPED 0x0001u

/* A module of the process: the program's image (module 0) or a DLL image (api/README.md "The
 * loader"). */
typedef struct hcp_module {
    char name[64]; /* its file name: "x.exe", "libfoo.dll" */
    hcp_pe_info pe;
    uint64_t base;  /* where it is mapped */
    uint64_t entry; /* AddressOfEntryPoint as an address; 0: none (a DLL without DllMain) */
    bool dll;
    /* the export directory, copied at load (imports of other modules, GetProcAddress) */
    uint32_t exp_base, exp_nfun, exp_nnames;
    uint32_t *exp_rva; /* by ordinal - exp_base: the function's RVA, 0 for none */
    char **exp_fwd;    /* by ordinal - exp_base: a forwarder's "DLL.Name" / "DLL.#N", or NULL */
    char **exp_name;   /* the names, in the directory's order */
    uint16_t *exp_ord; /* each name's index into exp_rva */
    bool exp_sorted;   /* the names are in strcmp order (binary search) */
    /* TLS (hcp_image_tls) */
    bool has_tls;
    int tls_slot;      /* its index into each thread's TLS array */
    uint8_t *tls_tmpl; /* the template, tls_len bytes, then tls_zero zeros */
    uint32_t tls_len, tls_zero;
    uint64_t tls_cb[HCP_PE_MAX_TLS_CALLBACKS];
    int ntls_cb;
    /* DLLs (api/pe_dll.c) */
    char path[300];       /* the guest path, "C:\\hcpsim\\NAME" */
    int refs;             /* LoadLibrary references; a module the program imports (static) is never unloaded */
    bool is_static;       /* loaded with the program */
    bool attached;        /* DLL_PROCESS_ATTACH done */
    bool no_thread_calls; /* DisableThreadLibraryCalls */
    bool unloaded;        /* FreeLibrary took its last reference: unmapped */
    int *deps;            /* modules it imports from (indices) */
    int ndeps, capdeps;
    int order;       /* its place in the initialization order, -1 before */
    uint32_t *pprot; /* each page's PAGE_* protection (VirtualQuery, VirtualProtect: k32_memory.c) */
} hcp_module;

/* An image being loaded: its headers and sections at their RVAs in host memory. */
typedef struct hcp_image {
    hcp_pe_info pe;
    uint8_t *im;   /* SizeOfImage bytes */
    uint64_t base; /* where it goes */
} hcp_image;

/* pe_image.c: the loader's steps, each 0 or -1 with the defect in err. */
int hcp_pe_fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *hcp_pe_machine_name(uint16_t m);
int hcp_pe_parse_kind(const uint8_t *img, size_t n, bool dll, hcp_pe_info *o, char *err, size_t cap);
int hcp_image_open(const uint8_t *file, size_t n, bool dll, hcp_image *im, char *err, size_t cap);
int hcp_image_layout(const uint8_t *file, hcp_image *im, char *err, size_t cap);
void hcp_image_close(hcp_image *im);
bool hcp_image_choose_base(sim_machine *m, hcp_image *im, const struct hcp_process *p);
const char *hcp_image_str(const hcp_image *im, uint32_t rva, size_t maxlen);
int hcp_image_relocate(hcp_image *im, char *err, size_t cap);
/* Resolves one import of `dll`: by name, or (name NULL) by ordinal; *addr goes into the IAT. */
typedef int (*hcp_import_fn)(void *ud, const char *dll, const char *name, unsigned ordinal, uint64_t *addr, char *err,
                             size_t cap);
int hcp_image_imports(hcp_image *im, hcp_import_fn resolve, void *ud, char *err, size_t cap);
int hcp_image_exports(const hcp_image *im, hcp_module *mod, char *err, size_t cap);
int hcp_image_tls(hcp_image *im, hcp_module *mod, char *err, size_t cap);
int hcp_image_map(sim_machine *m, const hcp_image *im, char *err, size_t cap);
int hcp_module_export_index(const hcp_module *mod, const char *name);
void hcp_module_free(hcp_module *mod);
/* A limit's message naming the option that raises it (SIM_ERR_TRAPS, SIM_ERR_MAPPINGS), else sim's. */
const char *hcp_limit_strerror(sim_machine *m, sim_err e);

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
    char failure[768];
    bool failure_missing;   /* the failure is a call of an import hcpsim lacks */
    bool failure_exception; /* the failure is an exception nobody handled (api/seh.c) */
    bool missing_fail;      /* --missing-imports=fail: such a call returns failure instead of stopping */
    uint8_t *warned;        /* per gate service: its missing-import warning was given (SIM_GATE_SERVICES) */
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
    /* modules: the image (mods[0]) and its DLLs, in load order (api/pe_dll.c) */
    struct hcp_module *mods;
    int nmods, capmods;
    int ntls_slots;                /* TLS array slots handed out (a module with TLS takes the next) */
    uint32_t load_status;          /* why the load failed, as Windows' status (STATUS_DLL_NOT_FOUND, ...), or 0 */
    struct hcp_dll_state *dll;     /* the search path and the loader's state (api/pe_dll.c) */
    struct hcp_seh_state *seh;     /* vectored handlers, the unhandled-exception filter (api/seh.c) */
    struct hcp_seh64_state *seh64; /* RtlAddFunctionTable's tables (api/seh_x64.c) */
    bool terminated;               /* ended without DLL_PROCESS_DETACH (an unhandled exception's filter) */
    struct hcp_procx *x;           /* files, environment, time zone, stdio (api/files_int.h) */
    struct hcp_xproc *sx;          /* synchronisation, pool, FLS, priority class (api/sync_int.h), NULL until used */
    uint64_t ucb_entry;            /* the user-callback dispatcher's guest code (api/ucb.c) */
    sim_thread *spawner;           /* a thread creating one while it has left its CPU (a pool worker that blocked) */
    struct hcp_crt *crt;           /* the C runtime's own state (api/crt_state.c), made at its first use */
};

/* Charges n bytes to the process's memory budget: false (nothing charged) when they do not fit. */
bool hcp_process_charge(hcp_process *p, uint64_t n);
void hcp_process_uncharge(hcp_process *p, uint64_t n);
/* A thread of the process exited: what it held of the budget goes back (handles.c's observer). */
void hcp_process_thread_gone(hcp_process *p, sim_thread *t);

/* pe_process.c: the simulated system DLLs' import `dll!name` (or by ordinal): a thunk or a variable. */
int hcp_process_system_import(hcp_process *p, const char *dll, const char *name, unsigned ordinal, uint64_t *addr,
                              char *err, size_t cap);
/* A thread's copy of mod's TLS template: its address in *out; 0 or -1 (no guest memory). */
int hcp_process_tls_block(hcp_process *p, const hcp_module *mod, uint64_t *out);
/* The module whose image holds address a, or NULL. */
const hcp_module *hcp_module_at(const hcp_process *p, uint64_t a);

/* pe_dll.c: the program's DLLs (api/README.md "DLLs"). */
int hcp_dll_set_options(hcp_process *p, const hcp_process_opts *o);
/* Resolves an import of module `from`: a simulated system DLL's, or a DLL image's (loaded, with the
 * DLLs it imports, when it is not yet). */
int hcp_dll_import(hcp_process *p, int from, const char *dll, const char *name, unsigned ordinal, uint64_t *addr,
                   char *err, size_t cap);
/* LoadLibrary of `name` from c's gate call: a loaded module's handle (one more reference), or the
 * DLL loaded with what it imports and, when `init`, a run of their DllMain (the run's context holds
 * the result); 0 with the last error when it cannot be loaded. */
struct hcp_ctx;
uint64_t hcp_dll_loadlibrary(struct hcp_ctx *c, const char *name, bool init);
/* FreeLibrary of module mi: one reference less; at none, DLL_PROCESS_DETACH and unloaded. */
uint64_t hcp_dll_freelibrary(struct hcp_ctx *c, int mi);
/* GetProcAddress in module mi: by name, or (name NULL) by ordinal; forwarders to loaded modules. */
int hcp_dll_export(hcp_process *p, int mi, const char *name, unsigned ordinal, uint64_t *addr, char *err, size_t cap);
/* After the program's image is mapped: the initialization order of the DLLs it loaded. */
int hcp_dll_finish_load(hcp_process *p, char *err, size_t cap);
void hcp_dll_free(hcp_process *p);
/* Image ranges chosen and not yet mapped: hcp_image_choose_base avoids them. */
int hcp_dll_reserve(hcp_process *p, uint64_t base, uint64_t size);
void hcp_dll_unreserve(hcp_process *p, uint64_t base);
bool hcp_dll_reserved(const hcp_process *p, uint64_t base, uint64_t size);
/* A module's pages: their protections from its sections (the headers read-only); 0 or -1. */
int hcp_module_init_prot(hcp_module *mod);
/* k32_module.c: the guest path of the loaded module (the program or a DLL image) whose handle is h
 * (0: the program), "C:\\hcpsim\\NAME"; NULL for none. */
const char *hcp_module_path(const hcp_process *p, uint64_t h);
/* The loaded module named `name` (any folder and case, ".dll" optional), or -1. */
int hcp_module_find(const hcp_process *p, const char *name);
void hcp_dll_norm(const char *in, char *out, size_t cap);
/* A Windows DLL hcpsim does not simulate (user32.dll, an api-ms- or ext-ms- set it does not
 * serve): when no folder has it, it loads with every function a thunk that stops the run. */
bool hcp_dll_is_windows(const char *norm);
/* The file `name` in one of the folders: its bytes (malloc'd, *n of them) and *dir its folder's
 * index; NULL when none has it.  The name is tried as written, then in lower case (Windows' names
 * are case-insensitive). */
uint8_t *hcp_dll_find_file(char *const *dirs, int ndirs, const char *name, size_t *n, int *dir);

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
