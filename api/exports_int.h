/* api/exports_int.h — what an export's implementation works with (api/ only).
 *
 * The dispatcher (dispatch.c) reads a call's arguments by the export spec and
 * hands the implementation a context and its named, typed arguments
 * (exports_gen.h, generated from exports.spec).  An implementation returns
 * the value of its result register (the dispatcher narrows it to the return
 * type); it reads and writes guest memory through the helpers below, fails a
 * Win32 call with hcp_fail (last error, 0), and blocks through hcp_blocking.
 * It charges nothing itself: the dispatcher charges the spec's cost class. */
#ifndef HCPSIM_API_EXPORTS_INT_H
#define HCPSIM_API_EXPORTS_INT_H

#include <string.h>

#include "api/exports.h"
#include "api/pe_int.h"

/* One call of an export, as its implementation sees it. */
struct hcp_ctx {
    hcp_os *os;
    hcp_process *p; /* the machine's process; NULL for a call from guest code placed without one */
    sim_machine *m;
    sim_thread *t;
    unsigned w; /* the guest's pointer size: 4 or 8 */
    const hcp_export *ex;
    char fn[96];  /* "msvcrt.dll!printf", for failure messages (empty until one needs it) */
    bool failed;  /* the call stopped the run (hcp_process_failure says why) */
    bool pending; /* the call waits: its thread gave its CPU away (hcp_blocking) */
    /* What the call returns when its thread runs again (NULL: the wait's result, 0 for VOID). */
    uint64_t (*resume)(hcp_ctx *c);
    uint64_t work; /* units of work done (hcp_work), priced by the row's work= rate */
    bool after;    /* guest code runs when the call returns (hcp_after_commit, api/crt_after.c) */
    /* Variadic arguments read ahead (hcp_varg, api/crt_printf.c): args_n bytes of guest memory
     * from args_at, as they were when read; every write through hcp_wr empties it. */
    uint64_t args_at;
    uint32_t args_n, args_k1; /* args_k1: 1 + the argument word at args_at, 0 for none */
    uint8_t args_b[64];
};

/* The variadic arguments of a `...` function: the argument word the first one is in. */
typedef struct hcp_va {
    int word;
} hcp_va;

static inline double hcp_f64_of(uint64_t v) {
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}
static inline float hcp_f32_of(uint64_t v) {
    uint32_t b = (uint32_t)v;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
static inline uint64_t hcp_f64_bits(double d) {
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

/* Strings and buffers simulated OS code reads at most (a longer one stops the run). */
#define HCP_MAX_STR (1u << 20)

/* ---- guest memory (dispatch.c) ----
 * A function given memory it cannot read or write stops the run (Windows would raise an access
 * violation inside the DLL): hcp_bad records why and returns false; every helper below does so
 * on failure.  Zero-length transfers always succeed. */
bool hcp_bad(hcp_ctx *c, uint64_t addr, bool write);
bool hcp_rd(hcp_ctx *c, uint64_t at, void *b, size_t n);
bool hcp_wr(hcp_ctx *c, uint64_t at, const void *b, size_t n);
bool hcp_wr16(hcp_ctx *c, uint64_t at, uint16_t v);
bool hcp_wr32(hcp_ctx *c, uint64_t at, uint32_t v);
bool hcp_wr64(hcp_ctx *c, uint64_t at, uint64_t v);
bool hcp_wrp(hcp_ctx *c, uint64_t at, uint64_t v); /* a pointer-sized value */
bool hcp_rdp(hcp_ctx *c, uint64_t at, uint64_t *v);
bool hcp_zero(hcp_ctx *c, uint64_t at, uint64_t n);
/* The NUL-terminated string at `at` (malloc'd, at most HCP_MAX_STR bytes), or NULL after a failure. */
char *hcp_gstr(hcp_ctx *c, uint64_t at, size_t *len);
/* A name (an object's or a module's) of at most cap-1 characters: ANSI, or UTF-16 with code units
 * above 255 as '?'; "" for NULL; false after a failure. */
bool hcp_gname(hcp_ctx *c, uint64_t at, bool wide, char *out, size_t cap);
/* Argument word k of the call (variadic arguments): false after a failure. */
bool hcp_word(hcp_ctx *c, int k, uint64_t *v);

/* ---- cost ---- */
/* Reports n more units of work (bytes, characters or elements, as the row's work= names them): the
 * dispatcher charges ceil(total x N / D) kernel cycles after the call (nothing for a row without
 * work=). */
static inline void hcp_work(hcp_ctx *c, uint64_t n) { c->work += n; }

/* ---- results ---- */
/* SetLastError(err), then 0 (FALSE, NULL). */
uint64_t hcp_fail(hcp_ctx *c, uint32_t err);
/* As hcp_fail with the Win32 code of an NTSTATUS. */
uint64_t hcp_nt_fail(hcp_ctx *c, uint32_t status);
/* A call that may wait: r is an api/ function's result; HCP_PENDING makes the call wait, and
 * `resume` (NULL: the wait's result) gives what it returns when the thread runs again. */
uint64_t hcp_blocking(hcp_ctx *c, uint32_t r, uint64_t (*resume)(hcp_ctx *c));
/* In a resumed call (its `resume` function): the call's implementation run again with its
 * arguments read again, as when it began (a call that waited for a lock, then does its work). */
uint64_t hcp_call_again(hcp_ctx *c);
/* Stops the run with a message (printf-style, after "PROGRAM.exe: DLL!Function: "). */
uint64_t hcp_stop(hcp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ExitProcess: ends every other thread of the process with `code`, then the caller's call. */
uint64_t hcp_end_process(hcp_ctx *c, uint32_t code);
/* ExitThread: ends the caller's call and thread with `code`. */
uint64_t hcp_end_thread(hcp_ctx *c, uint32_t code);

/* ---- the C runtime's heap (crt_heap.c), shared with HeapAlloc & co ---- */
uint64_t hcp_heap_alloc(hcp_ctx *c, uint64_t n);
bool hcp_heap_free(hcp_ctx *c, uint64_t a);
/* The block at a: its index, or -1 when a is not an allocated block. */
int hcp_heap_find(const hcp_process *p, uint64_t a);
/* Moves the block at old to a new block of n bytes (its first min(size, n) bytes copied, `zero`:
 * the rest zeroed); 0 when old is no block or no memory is left (old stays). */
uint64_t hcp_heap_realloc(hcp_ctx *c, uint64_t old, uint64_t n, bool zero);

/* ---- output (crt_stdio.c) ---- */
/* Bytes the process writes to fd (1 stdout, 2 stderr), as given. */
void hcp_emit(hcp_ctx *c, int fd, const char *s, size_t n);
/* Bytes written to descriptor fd as its mode writes them (text, msvcrt's default: each "\n" as
 * "\r\n"; _O_BINARY: as given), to the console or a file; a failure sets the error flag of the
 * streams on fd. */
void hcp_emit_text(hcp_ctx *c, int fd, const char *s, size_t n);
/* The descriptor of a FILE* (an open stream: _iob[0..2] and fopen's), or -1. */
int hcp_file_fd(hcp_ctx *c, uint64_t f);
/* Writing through a stream (crt_stdio.c): take its lock first (false: another thread holds it, the
 * call waits and runs again once its thread owns it: return at once), write (n, or -1 with errno
 * and the stream's error flag), let it go. */
bool hcp_stream_enter(hcp_ctx *c, uint64_t file);
int64_t hcp_stream_write(hcp_ctx *c, uint64_t file, const void *b, size_t n);
void hcp_stream_leave(hcp_ctx *c, uint64_t file);

/* ---- after-call callbacks (crt_after.c) ---- */
/* The call asked for guest code to run before its caller gets its result (c->after): the caller's
 * return address is replaced by the runtime's callback stub, which calls the function recorded
 * for the thread and then returns r (the narrowed result) to the caller.  false: the stub cannot
 * be reached (no process, or an ISA without it): the run stops. */
bool hcp_after_commit(hcp_ctx *c, uint64_t r);

/* ---- modules (k32_module.c) ---- */
/* The address a data or guest-code export resolves to in process p. */
uint64_t hcp_export_address(hcp_process *p, const hcp_export *e);
/* The same for the C runtime's own variables and guest code (crt_guest.c); 0 for others. */
uint64_t hcp_crt_export_address(hcp_process *p, const hcp_export *e);

#endif
