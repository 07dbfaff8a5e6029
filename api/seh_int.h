/* api/seh_int.h — exceptions and runs (api/README.md "Exceptions"): api/runner.c,
 * api/seh.c, api/seh_x64.c, api/seh_x86.c only. */
#ifndef HCPSIM_API_SEH_INT_H
#define HCPSIM_API_SEH_INT_H

#include "api/exports_int.h"

/* sim_context.gpr: the x86 encoding order, which CONTEXT and the unwind codes use too. */
enum { HCP_AX = 0, HCP_CX, HCP_DX, HCP_BX, HCP_SP, HCP_BP, HCP_SI, HCP_DI };

/* Exception codes and flags (winnt.h) */
#define EXCEPTION_NONCONTINUABLE 0x01u
#define EXCEPTION_UNWINDING 0x02u
#define EXCEPTION_EXIT_UNWIND 0x04u
#define EXCEPTION_STACK_INVALID 0x08u
#define EXCEPTION_NESTED_CALL 0x10u
#define EXCEPTION_TARGET_UNWIND 0x20u
#define EXCEPTION_COLLIDED_UNWIND 0x40u
#define EXCEPTION_MAXIMUM_PARAMETERS 15u
#define EXCEPTION_EXECUTE_HANDLER 1
#define EXCEPTION_CONTINUE_SEARCH 0
#define EXCEPTION_CONTINUE_EXECUTION (-1)
/* EXCEPTION_DISPOSITION */
#define ExceptionContinueExecution 0u
#define ExceptionContinueSearch 1u
#define ExceptionNestedException 2u
#define ExceptionCollidedUnwind 3u
#define STATUS_NONCONTINUABLE_EXCEPTION 0xC0000025u
#define STATUS_INVALID_DISPOSITION 0xC0000026u
#define STATUS_UNWIND 0xC0000027u
#define STATUS_BAD_STACK 0xC0000028u
#define STATUS_INVALID_UNWIND_TARGET 0xC0000029u
#define STATUS_UNWIND_CONSOLIDATE 0x80000029u
#define STATUS_LONGJUMP 0x80000026u

/* ---- runs (runner.c) ---------------------------------------------------------------------------- */

typedef enum hcp_run_kind {
    HCP_RUN_LOADER,   /* DllMain from LoadLibrary / FreeLibrary: a frame walk goes on at the caller's */
    HCP_RUN_DISPATCH, /* an exception's dispatch: a frame walk goes on at the exception's context */
    HCP_RUN_UNWIND,   /* RtlUnwindEx's unwind handlers: a frame walk that meets it is a collided unwind */
    HCP_RUN_CALL,     /* any other call of program code (UnhandledExceptionFilter's filter) */
} hcp_run_kind;

/* What a step does next: the call in r->fn, r->a (HCP_STEP_CALL); the run ends and the thread goes
 * on from r->resume (HCP_STEP_DONE); the call failed and stops the run (HCP_STEP_STOP); a run the
 * step started goes on instead, this one stays below it until a context leaves both behind
 * (HCP_STEP_NEWRUN). */
enum { HCP_STEP_STOP = -1, HCP_STEP_DONE = 0, HCP_STEP_CALL = 1, HCP_STEP_NEWRUN = 2 };

typedef struct hcp_run hcp_run;
/* The run's step: `first` the first time, else with the last call's result. */
typedef int (*hcp_run_step)(hcp_ctx *c, hcp_run *r, uint64_t result, bool first);
struct hcp_run {
    hcp_run_kind kind;
    hcp_run_step step;
    uint64_t block;     /* its block on the stack: the call, then the last result */
    uint64_t area;      /* the step's own bytes on the stack, above the block */
    uint64_t frame_hi;  /* its part of the stack ends here */
    uint64_t fn, a[4];  /* the next call */
    sim_context resume; /* where the thread goes on when the run ends */
    void *data;         /* the step's state */
    void (*free)(void *);
    hcp_run *outer; /* the run this one began inside of */
};

/* A run of `kind` (NULL without host memory; data is then freed). */
hcp_run *hcp_run_new(hcp_run_kind kind, hcp_run_step step, void *data, void (*freefn)(void *));
/* Starts r on c's thread from context `from` (a gate call's, or a fault's): its area of `extra`
 * bytes and its block below `top`; the thread goes to the runner when the first step calls.  The
 * first step's result (HCP_STEP_*); r is the thread's (freed when it ends) in every case. */
int hcp_run_start(hcp_ctx *c, hcp_run *r, const sim_context *from, uint64_t top, uint32_t extra);
/* The run whose part of t's stack holds sp, or NULL. */
hcp_run *hcp_run_at(hcp_process *p, sim_thread *t, uint64_t sp);
void hcp_run_drop_below(hcp_pthread *th, uint64_t sp);
void hcp_runs_free(hcp_pthread *th);
sim_err hcp_runner_place(hcp_process *p);

/* ---- guest structures (seh.c) -------------------------------------------------------------------- */

uint32_t hcp_context_size(unsigned w); /* CONTEXT: 0x4D0 (x64), 0x2CC (x86) */
uint32_t hcp_excrec_size(unsigned w);  /* EXCEPTION_RECORD: 0x98, 0x50 */
bool hcp_context_write(hcp_ctx *c, uint64_t at, const sim_context *ctx);
bool hcp_context_read(hcp_ctx *c, uint64_t at, sim_context *ctx);
typedef struct hcp_excrec {
    uint32_t code, flags;
    uint64_t record, address;
    uint32_t nparams;
    uint64_t info[EXCEPTION_MAXIMUM_PARAMETERS];
} hcp_excrec;
bool hcp_excrec_write(hcp_ctx *c, uint64_t at, const hcp_excrec *e);
bool hcp_excrec_read(hcp_ctx *c, uint64_t at, hcp_excrec *e);

/* ---- dispatch (seh.c) ------------------------------------------------------------------------------ */

/* Dispatches exception e raised in context ctx of c's thread (a fault, RaiseException): vectored
 * handlers, frame-based handlers, the unhandled-exception filter, vectored continue handlers.
 * `fault` the fault it comes from (its report), or NULL. */
int hcp_seh_dispatch(hcp_ctx *c, const hcp_excrec *e, const sim_context *ctx, const sim_fault *fault);
/* The fault handler of the machine (sim_set_fault_handler). */
bool hcp_seh_fault(void *ud, sim_thread *t);
/* A call context for the OS's own work on thread t outside a gate call (the fault handler). */
void hcp_ctx_for(hcp_ctx *c, hcp_os *os, sim_thread *t, const char *fn);

/* ---- frame walks (seh_x64.c, seh_x86.c) --------------------------------------------------------- */

/* One frame of a walk, as the dispatcher (DISPATCHER_CONTEXT) sees it. */
typedef struct hcp_frame {
    uint64_t control_pc, image_base, function_entry, establisher, handler, handler_data;
    uint32_t scope_index;
    int from_run; /* the frame was a run's: 1 a dispatch (go on at its exception's context), 2 a collided
                     unwind (the frame is the unwind's, handler included), 3 a loader or other call */
} hcp_frame;
/* x64: unwinds ctx one frame (type UNW_FLAG_EHANDLER or UHANDLER); false at the end of the stack. */
bool hcp_x64_walk(hcp_ctx *c, uint32_t type, sim_context *ctx, hcp_frame *f);
/* x64: the dispatcher context of an unwind run (a collided unwind's) into f and ctx. */
bool hcp_x64_collided(hcp_ctx *c, hcp_run *r, sim_context *ctx, hcp_frame *f);
/* x64: the frame-based part of a dispatch (seh_x64.c owns its state, in d). */
struct hcp_dispatch;
int hcp_x64_frames_step(hcp_ctx *c, hcp_run *r, struct hcp_dispatch *d, uint64_t result, bool first);
int hcp_x86_frames_step(hcp_ctx *c, hcp_run *r, struct hcp_dispatch *d, uint64_t result, bool first);
/* frames_step's verdicts besides HCP_STEP_CALL and HCP_STEP_STOP */
#define FR_CONTINUE 1000  /* a handler said to go on */
#define FR_UNHANDLED 1001 /* no handler took it */
/* x86 RtlUnwind (seh_x86.c) */
uint64_t hcp_x86_RtlUnwind(hcp_ctx *c, uint64_t frame, uint64_t target, uint64_t rec, uint64_t retval);
uint32_t hcp_seh_area(unsigned w);
/* sp lies in the thread's stack (its TEB's StackLimit..StackBase). */
bool hcp_seh_on_stack(hcp_ctx *c, uint64_t sp);
void hcp_seh_free(hcp_process *p);
void hcp_seh64_free(hcp_process *p);

#define UNW_FLAG_NHANDLER 0u
#define UNW_FLAG_EHANDLER 1u
#define UNW_FLAG_UHANDLER 2u
#define UNW_FLAG_CHAININFO 4u

/* x64 unwinding (seh_x64.c), for seh_csh.c. */
typedef struct hcp_ctx_ptrs { /* where unwinding restored registers from (KNONVOLATILE_CONTEXT_POINTERS) */
    uint64_t gpr[16], xmm[16];
} hcp_ctx_ptrs;
typedef struct fn_table { /* a table of RtlAddFunctionTable */
    uint64_t table, base;
    uint32_t count;
} fn_table;
struct hcp_seh64_state {
    fn_table *t;
    int n, cap;
};
/* The RUNTIME_FUNCTION covering pc (an image's, or a table's), its base in *base; 0 for a leaf. */
uint64_t hcp_x64_lookup(hcp_ctx *c, uint64_t pc, uint64_t *base);
/* RtlVirtualUnwind: x unwound by one frame; the handler of `type`, its data, the establisher frame. */
uint64_t hcp_x64_virtual_unwind(hcp_ctx *c, uint32_t type, uint64_t base, uint64_t pc, uint64_t entry, sim_context *x,
                                uint64_t *data, uint64_t *establisher, hcp_ctx_ptrs *cp);
bool hcp_x64_read_disp(hcp_ctx *c, uint64_t at, hcp_frame *f, uint64_t *ctxrec);
/* A STATUS_LONGJUMP record's jump buffer applied to x (other records: nothing). */
bool hcp_x64_restore_record(hcp_ctx *c, uint64_t rec, sim_context *x);
/* RtlUnwindEx from a gate call (`gate` its context) walking from `from`. */
int hcp_x64_start_unwind(hcp_ctx *c, const sim_context *gate, const sim_context *from, uint64_t end_frame,
                         uint64_t target, uint64_t rec, uint64_t retval, uint64_t ctxrec, uint64_t history);
/* The gate call's caller's context once it returned (the return address and `pop` bytes popped). */
bool hcp_x64_caller_context(hcp_ctx *c, sim_context *x, unsigned pop);

/* The dispatch's state (seh.c, seh_x64.c, seh_x86.c). */
typedef struct hcp_dispatch {
    int phase; /* 0 vectored handlers, 1 frames, 2 the unhandled filter, 3 continue handlers */
    int index; /* in the vectored lists */
    uint64_t rec, ctx, ptrs, disp, ctx1; /* EXCEPTION_RECORD, CONTEXT, EXCEPTION_POINTERS, DISPATCHER_CONTEXT, the
                                            walk's CONTEXT: in the run's area */
    uint32_t code;
    bool has_fault;
    sim_fault fault;
    sim_context walk; /* x64: the frame being searched, unwound */
    hcp_frame frame;  /* x64: its dispatcher context */
    bool frame_ready; /* x64: `frame` holds a frame whose handler is to be called */
    uint64_t reg;     /* x86: the registration record being tried */
    uint64_t nested_frame;
} hcp_dispatch;

#endif
