/* api/pe.h — Windows programs as guests: the PE loader, the process and the
 * imports it is served (api/README.md "Windows programs").
 *
 * hcp_pe_parse validates an image (PE32+ x86-64 or PE32 i386, as mingw-w64
 * links them) without a machine; hcp_process_load maps it into a machine's
 * guest memory, relocates it when its preferred base is taken, resolves its
 * imports to call-gate thunks (an import hcpsim lacks resolves to a thunk
 * that stops the run when called) and builds the PEB, the process parameters
 * and the C runtime's data.  One process per machine. */
#ifndef HCPSIM_API_PE_H
#define HCPSIM_API_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/hcp_api.h"

#define HCP_PE_MACHINE_AMD64 0x8664u
#define HCP_PE_MACHINE_I386 0x014Cu
#define HCP_PE_MAX_IMAGE (64u << 20) /* SizeOfImage at most 64 MiB */
#define HCP_PE_MAX_SECTIONS 96u
#define HCP_PE_MAX_TLS_CALLBACKS 64u
/* The exit status of `hcpsim run PROGRAM.exe` when the simulation, not the
 * program, ends the run (an import hcpsim lacks, a fault, a limit, a deadlock). */
#define HCP_EXIT_SIMULATION 125

typedef struct hcp_pe_section {
    char name[9];
    uint32_t rva, vsize, raw, rawsize, flags;
} hcp_pe_section;

/* What hcp_pe_parse found: enough to load the image. */
typedef struct hcp_pe_info {
    uint16_t machine;
    bool pe32plus;
    uint64_t image_base;
    uint32_t size_of_image, size_of_headers, entry, section_align, file_align;
    uint16_t characteristics, subsystem;
    uint32_t dir_rva[16], dir_size[16];
    int nsections;
    hcp_pe_section sec[HCP_PE_MAX_SECTIONS];
} hcp_pe_info;

/* 0, or -1 with a message naming what is wrong (no file name) in err. */
int hcp_pe_parse(const uint8_t *img, size_t n, hcp_pe_info *out, char *err, size_t cap);

typedef struct hcp_process hcp_process;

/* Output of the process (fd 1 stdout, 2 stderr), as it is written. */
typedef void (*hcp_output_fn)(void *ud, int fd, const char *bytes, size_t n);

/* Loads `img` (the file's bytes; `name` its file name, e.g. "x.exe") into
 * os's machine with arguments args[0..nargs).  NULL with "name: message" in
 * err on a malformed image, an image the machine's ISA cannot run, or a
 * guest-memory limit.  The process belongs to os from then on (freed with it). */
hcp_process *hcp_process_load(hcp_os *os, const char *name, const uint8_t *img, size_t n, const char *const *args,
                              int nargs, char *err, size_t cap);
/* What a process gets besides its image and arguments (api/README.md "Files", "The environment",
 * "Time zone"); every field may be left 0. */
typedef struct hcp_process_opts {
    const char *cwd;        /* the host folder the program sees as C:\hcpsim, its current directory; NULL: no
                               files (every path is refused) */
    const char *const *env; /* "NAME=VALUE" added to the fixed environment or replacing its variable */
    int nenv;
    const char *timezone;   /* a zone of k32_tz.c's table (a Windows or IANA name), NULL: UTC */
    bool debug_stderr;      /* OutputDebugString also writes to stderr */
    const char *stdin_path; /* the program's standard input: a host file, "-" hcpsim's own; NULL: empty */
    /* Where the loader looks for the program's DLLs (api/README.md "DLLs"): dll_dir (the program's
     * own folder on the host; NULL: not searched) first, then each folder of dll_path in order.
     * status (may be NULL) gets a failed load's Windows status: STATUS_DLL_NOT_FOUND (0xC0000135),
     * STATUS_ENTRYPOINT_NOT_FOUND (0xC0000139), STATUS_INVALID_IMAGE_FORMAT (0xC000007B), or 0
     * for any other failure. */
    const char *dll_dir;
    const char *const *dll_path;
    int ndll_path;
    uint32_t *status;
} hcp_process_opts;
/* The time zones a process may have (api/README.md "Time zone"): a name's validity, and the list
 * for messages. */
bool hcp_timezone_known(const char *name);
const char *hcp_timezone_names(void);
/* hcp_process_load with options (opts NULL: the defaults). */
hcp_process *hcp_process_load_ex(hcp_os *os, const char *name, const uint8_t *img, size_t n, const char *const *args,
                                 int nargs, const hcp_process_opts *opts, char *err, size_t cap);
void hcp_process_set_output(hcp_process *p, hcp_output_fn fn, void *ud);
/* CreateThread's factory (scenarios/ supplies it): a new Ready thread of the
 * machine, named `name`, whose body calls start(param) in guest code and exits
 * with its result; NULL with the reason in err when none can be made. */
typedef sim_thread *(*hcp_spawn_fn)(void *ud, const char *name, uint64_t start, uint64_t param, char *err, size_t cap);
void hcp_process_set_spawn(hcp_process *p, hcp_spawn_fn fn, void *ud);
/* The thread creating a thread while it has left its CPU (a pool worker that blocked in a callback
 * lets its pool add a worker), or NULL: the factory's caller is then the running thread. */
sim_thread *hcp_process_spawner(const hcp_process *p);
/* t returned from its start routine with `code`: the address of guest code to run on it before it
 * ends (its FLS callbacks, api/README.md "User callbacks"; the code ends the thread with `code`),
 * or 0 when it has none. */
uint64_t hcp_process_exit_callbacks(hcp_process *p, sim_thread *t, uint32_t code);
/* True when t, a thread of the process, called ExitThread (or was terminated
 * by itself): its guest call has ended; *code is its exit code. */
bool hcp_process_thread_exited(hcp_process *p, const sim_thread *t, uint32_t *code);
/* Forgets t's ExitThread (its detach calls follow: one of them may call ExitThread again). */
void hcp_process_thread_reset_exit(hcp_process *p, const sim_thread *t);
/* The threads of the process still alive. */
int hcp_process_live_threads(hcp_process *p);
/* Export i of the image (0, 1, ...): its name and address; false past the end. */
bool hcp_process_export(const hcp_process *p, int i, const char **name, uint64_t *addr);
/* Ends the process with `code` from outside a guest call (the last thread
 * returned without ExitProcess). */
void hcp_process_set_exited(hcp_process *p, uint32_t code);
/* Where guest address a lies: "NAME.exe+0x1234", "msvcrt.dll (hcpsim)",
 * "KERNEL32.dll (hcpsim)" or "?" (no module). */
void hcp_process_where(const hcp_process *p, uint64_t a, char *out, size_t cap);
/* The main thread: its environment block (TEB) and stack fields. */
int hcp_process_attach_thread(hcp_process *p, sim_thread *t);
uint64_t hcp_process_entry(const hcp_process *p);
uint64_t hcp_process_base(const hcp_process *p);
int hcp_process_tls_callbacks(const hcp_process *p, uint64_t *out, int cap);
/* The loader's calls (api/README.md "DLLs"): each DLL's TLS callbacks then its DllMain, DLLs in
 * initialization order for an attach and in reverse for a detach, then the program's own TLS
 * callbacks.  A driver makes them as guest calls of the thread concerned: PROCESS_ATTACH before the
 * entry point, THREAD_ATTACH before a new thread's start routine, THREAD_DETACH when a thread ends,
 * PROCESS_DETACH on the thread that ends the process. */
#define HCP_DLL_PROCESS_DETACH 0u
#define HCP_DLL_PROCESS_ATTACH 1u
#define HCP_DLL_THREAD_ATTACH 2u
#define HCP_DLL_THREAD_DETACH 3u
typedef struct hcp_loader_call {
    uint64_t fn, a[3];
    bool dllmain; /* DllMain: a FALSE result of PROCESS_ATTACH fails the start (hcp_process_start_failed) */
    int module;
} hcp_loader_call;
/* The calls for `reason` in *out (malloc'd; the caller frees it): their count, -1 without host memory. */
int hcp_process_loader_calls(hcp_process *p, uint32_t reason, hcp_loader_call **out);
/* Module mi's DllMain returned FALSE for DLL_PROCESS_ATTACH: the start fails with
 * STATUS_DLL_INIT_FAILED and Windows' message (hcp_process_failure). */
void hcp_process_start_failed(hcp_process *p, int mi);
/* The Windows status a load or start ended with (hcp_process_opts.status), or 0. */
uint32_t hcp_process_load_status(const hcp_process *p);
/* True once the process called ExitProcess (or exit, abort); *code its exit code. */
bool hcp_process_exited(const hcp_process *p, uint32_t *code);
/* The run-stopping failure ("x.exe called KERNEL32.dll!Foo, which hcpsim does
 * not implement"), or NULL. */
const char *hcp_process_failure(const hcp_process *p);
/* True when that failure is a call of an import hcpsim lacks (the run's status "missing-import"). */
bool hcp_process_failure_missing(const hcp_process *p);
/* Whether that failure is an exception no handler took (its report: api/README.md "Exceptions"). */
bool hcp_process_failure_exception(const hcp_process *p);
/* What a call of an import hcpsim lacks (or of a spec stub) does (api/README.md "Missing
 * imports"): stop the run naming it (false, the default), or (true) return failure as a missing
 * function would on a Windows without it: 0 with ERROR_CALL_NOT_IMPLEMENTED (ntdll's Nt and Zw
 * functions: STATUS_NOT_IMPLEMENTED), a warning once per function through the warning handler. */
void hcp_process_set_missing_fail(hcp_process *p, bool fail);
/* The process's memory budget (api/README.md "Memory budget"): the bytes its heap segments, its
 * threads' stacks and its VirtualAlloc regions may take together (the machine option max_memory;
 * HCP_DEFAULT_MAX_MEMORY until set).  Past it they fail as Windows' fail. */
void hcp_process_set_memory_limit(hcp_process *p, uint64_t bytes);
uint64_t hcp_process_memory_used(const hcp_process *p);
const char *hcp_process_name(const hcp_process *p);
/* os's process or NULL (api/ internal users: the gate). */
hcp_process *hcp_os_process(hcp_os *os);
void hcp_process_free(hcp_process *p);

#endif
