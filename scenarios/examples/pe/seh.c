/* seh.c — structured exception handling (scenarios/tests/pe_seh.sh): a program that catches its
 * own faults and exceptions with vectored handlers, continue handlers, frame-based handlers
 * (x64: __try1/__except1, the scope table __C_specific_handler reads; x86: a registration record
 * on FS:[0]) and the unhandled-exception filter, and goes on.  Each line is "ok DLL!Name: what"
 * or "not ok DLL!Name: what (got ...)"; the expected values are Microsoft's documentation of
 * EXCEPTION_RECORD, CONTEXT and the dispatcher's order, and what the same program prints under
 * Wine (pe_seh.sh compares).  With the argument "crash" it ends in an access violation nobody
 * handles; with "raise" in an exception RaiseException raised that nobody handles; with "filter"
 * its unhandled-exception filter ends the process (EXCEPTION_EXECUTE_HANDLER); with "cost 0" and
 * "cost 1" it takes one access violation through two vectored handlers, the same code both times
 * but with "cost 1" a handler of 2 instructions that searches on runs first (pe_seh.sh compares
 * the two runs' counts with api/README.md's cost of a dispatch). */
#define __USE_MINGW_ANSI_STDIO 0
#include <excpt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

static int failed;
static void check(const char *what, int ok, const char *fmt, ...) {
    char got[256] = "";
    va_list ap;
    va_start(ap, fmt);
    vsprintf(got, fmt, ap);
    va_end(ap);
    if (!ok) failed++;
    printf(ok ? "ok %s\n" : "not ok %s (got %s)\n", what, got);
}
#define K "KERNEL32.dll!"
#define N "ntdll.dll!"

#ifdef _WIN64
#define PC(ctx) ((ctx)->Rip)
#define CX(ctx) ((ctx)->Rcx)
#else
#define PC(ctx) ((ctx)->Eip)
#define CX(ctx) ((ctx)->Ecx)
#endif

/* What the handlers saw, in the order they saw it. */
static char trail[256];
static void note(const char *s) { /* strcat: not every runtime hcpsim runs has it */
    size_t n = strlen(trail);
    while (*s && n < sizeof trail - 1) trail[n++] = *s++;
    trail[n] = 0;
}

static DWORD seen_code, seen_flags, seen_nparams;
static ULONG_PTR seen_info[3];
static void *seen_addr;

/* 1: an access violation: `mov dword ptr [eax/rax], 1` (C7 00 01 00 00 00, 6 bytes) on address 0;
 * the handler skips the instruction. */
static LONG WINAPI av_handler(EXCEPTION_POINTERS *ep) {
    EXCEPTION_RECORD *r = ep->ExceptionRecord;
    if (r->ExceptionCode != EXCEPTION_ACCESS_VIOLATION) return EXCEPTION_CONTINUE_SEARCH;
    seen_code = r->ExceptionCode;
    seen_flags = r->ExceptionFlags;
    seen_nparams = r->NumberParameters;
    seen_info[0] = r->ExceptionInformation[0];
    seen_info[1] = r->ExceptionInformation[1];
    seen_addr = r->ExceptionAddress;
    note("A");
    PC(ep->ContextRecord) += 6;
    return EXCEPTION_CONTINUE_EXECUTION;
}

/* The cost of one more handler: search_on is `xor eax, eax; ret` (EXCEPTION_CONTINUE_SEARCH), 2
 * instructions; cost_run(m) registers it and av_handler in an order m picks, with the same
 * instructions for either m, and takes one access violation (write_null). */
#ifdef _WIN64
__asm__(".text\n.globl search_on\nsearch_on:\n\txor %eax, %eax\n\tret\n");
#else
__asm__(".text\n.globl _search_on@4\n_search_on@4:\n\txor %eax, %eax\n\tret $4\n");
#endif
LONG WINAPI search_on(EXCEPTION_POINTERS *ep);
static int write_null(void);
static int cost_run(unsigned m) {
    static PVECTORED_EXCEPTION_HANDLER const order[2][2] = {{search_on, av_handler}, {av_handler, search_on}};
    AddVectoredExceptionHandler(1, order[m & 1][0]);
    AddVectoredExceptionHandler(1, order[m & 1][1]); /* First: the one added last runs first */
    return write_null();
}

static void *fault_at;
#ifdef _WIN64
#define LEA_LABEL "lea 1f(%%rip), %0\n\t"
#else
#define LEA_LABEL "mov $1f, %0\n\t"
#endif
static __attribute__((noinline)) int write_null(void) {
    void *at;
    int after;
    __asm__ volatile(LEA_LABEL "1: movl $1, (%2)\n\t" /* C7 00 01 00 00 00 */
                     "mov $7, %1"
                     : "=&r"(at), "=&r"(after)
                     : "a"((void *)0)
                     : "memory");
    fault_at = at;
    return after;
}

/* 2: division by zero: `div ecx` (F7 F1) with ecx = 0; the handler sets ecx to 4 and the division
 * runs again. */
static LONG WINAPI div_handler(EXCEPTION_POINTERS *ep) {
    if (ep->ExceptionRecord->ExceptionCode != EXCEPTION_INT_DIVIDE_BY_ZERO) return EXCEPTION_CONTINUE_SEARCH;
    note("D");
    CX(ep->ContextRecord) = 4;
    return EXCEPTION_CONTINUE_EXECUTION;
}
static __attribute__((noinline)) unsigned divide(unsigned a, unsigned b) {
    unsigned q;
    __asm__ volatile("xor %%edx, %%edx\n\tdivl %%ecx" : "=a"(q) : "a"(a), "c"(b) : "edx");
    return q;
}

/* 3: the order of vectored handlers (First: at the head) and of continue handlers. */
static LONG WINAPI veh_a(EXCEPTION_POINTERS *ep) {
    if (ep->ExceptionRecord->ExceptionCode != 0xE0000001u) return EXCEPTION_CONTINUE_SEARCH;
    note("a");
    return EXCEPTION_CONTINUE_SEARCH;
}
static LONG WINAPI veh_b(EXCEPTION_POINTERS *ep) {
    EXCEPTION_RECORD *r = ep->ExceptionRecord;
    if (r->ExceptionCode != 0xE0000001u) return EXCEPTION_CONTINUE_SEARCH;
    note("b");
    seen_flags = r->ExceptionFlags;
    seen_nparams = r->NumberParameters;
    for (int i = 0; i < 3; i++) seen_info[i] = r->ExceptionInformation[i];
    seen_addr = r->ExceptionAddress;
    return EXCEPTION_CONTINUE_EXECUTION;
}
static LONG WINAPI vch_c(EXCEPTION_POINTERS *ep) {
    if (ep->ExceptionRecord->ExceptionCode == 0xE0000001u) note("c");
    return EXCEPTION_CONTINUE_SEARCH;
}

/* 4: breakpoint and illegal instruction: Rip at the instruction; the handler steps over it. */
static LONG WINAPI step_handler(EXCEPTION_POINTERS *ep) {
    EXCEPTION_RECORD *r = ep->ExceptionRecord;
    if (r->ExceptionCode == EXCEPTION_BREAKPOINT) {
        note(PC(ep->ContextRecord) == (ULONG_PTR)r->ExceptionAddress ? "B" : "b?");
        PC(ep->ContextRecord) += 1; /* int3 */
        return EXCEPTION_CONTINUE_EXECUTION;
    }
    if (r->ExceptionCode == EXCEPTION_ILLEGAL_INSTRUCTION) {
        note(PC(ep->ContextRecord) == (ULONG_PTR)r->ExceptionAddress ? "U" : "u?");
        PC(ep->ContextRecord) += 2; /* ud2 */
        return EXCEPTION_CONTINUE_EXECUTION;
    }
    return EXCEPTION_CONTINUE_SEARCH;
}

/* 5: the unhandled-exception filter: the last to see an exception no handler took. */
static LONG WINAPI top_filter(EXCEPTION_POINTERS *ep) {
    if (ep->ExceptionRecord->ExceptionCode != 0xE0000002u) return EXCEPTION_CONTINUE_SEARCH;
    note("F");
    return EXCEPTION_CONTINUE_EXECUTION;
}
static LONG WINAPI exit_filter(EXCEPTION_POINTERS *ep) {
    (void)ep;
    printf("filter: EXCEPTION_EXECUTE_HANDLER\n");
    fflush(stdout);
    return EXCEPTION_EXECUTE_HANDLER;
}

#ifdef _WIN64
/* 6 (x64): __try1/__except1, mingw-w64's scope-table macros: __C_specific_handler calls the filter
 * and unwinds to the end of the block. */
static int filter_calls;
static volatile int reached;
static volatile int *volatile nullp; /* NULL, unknown to the compiler (a known NULL store would be a trap) */
LONG filter_av(EXCEPTION_POINTERS *ep); /* the scope table names it: not static */
LONG filter_av(EXCEPTION_POINTERS *ep) {
    filter_calls++;
    return ep->ExceptionRecord->ExceptionCode == EXCEPTION_ACCESS_VIOLATION ? EXCEPTION_EXECUTE_HANDLER
                                                                            : EXCEPTION_CONTINUE_SEARCH;
}
static __attribute__((noinline)) void try_av(volatile int *p) {
    __try1(filter_av) {
        *p = 5;
        reached = 1; /* volatile: stays inside the block */
    }
    __except1;
}

/* 7 (x64): the unwind data of this very function: RtlCaptureContext, RtlLookupFunctionEntry,
 * RtlVirtualUnwind give the caller's return address. */
static __attribute__((noinline)) void *unwind_once(void) {
    CONTEXT ctx;
    RtlCaptureContext(&ctx);
    DWORD64 base = 0;
    PRUNTIME_FUNCTION f = RtlLookupFunctionEntry(ctx.Rip, &base, NULL);
    if (!f) return NULL;
    void *data;
    DWORD64 frame;
    RtlVirtualUnwind(UNW_FLAG_NHANDLER, base, ctx.Rip, f, &ctx, &data, &frame, NULL);
    return (void *)ctx.Rip;
}
#else
/* 6 (x86): a registration record on FS:[0]; its handler fixes ecx and the division runs again. */
static EXCEPTION_DISPOSITION __cdecl frame_handler(EXCEPTION_RECORD *r, void *frame, CONTEXT *ctx, void *disp) {
    (void)frame, (void)disp;
    if (r->ExceptionFlags & EXCEPTION_UNWINDING) {
        note("u");
        return ExceptionContinueSearch;
    }
    if (r->ExceptionCode != EXCEPTION_INT_DIVIDE_BY_ZERO) return ExceptionContinueSearch;
    note("H");
    ctx->Ecx = 5;
    return ExceptionContinueExecution;
}
typedef struct reg_rec {
    struct reg_rec *next;
    void *handler;
} reg_rec;
static __attribute__((noinline)) unsigned frame_divide(unsigned a, unsigned b) {
    reg_rec rec;
    __asm__ volatile("mov %%fs:0, %%eax\n\tmov %%eax, %0" : "=m"(rec.next) : : "eax");
    rec.handler = (void *)frame_handler;
    __asm__ volatile("mov %0, %%fs:0" : : "r"(&rec) : "memory");
    unsigned q = divide(a, b);
    __asm__ volatile("mov %0, %%fs:0" : : "r"(rec.next) : "memory");
    return q;
}
/* RtlUnwind from the record's own frame: its handler sees EXCEPTION_UNWINDING, the chain loses it. */
static __attribute__((noinline)) int unwind_records(void) {
    reg_rec r[2]; /* r[0] the inner record, below r[1] on the stack as a callee's would be */
    __asm__ volatile("mov %%fs:0, %%eax\n\tmov %%eax, %0" : "=m"(r[1].next) : : "eax");
    r[1].handler = (void *)frame_handler;
    r[0].next = &r[1];
    r[0].handler = (void *)frame_handler;
    __asm__ volatile("mov %0, %%fs:0" : : "r"(&r[0]) : "memory");
    RtlUnwind(&r[1], NULL, NULL, NULL);
    void *head;
    __asm__ volatile("mov %%fs:0, %0" : "=r"(head));
    __asm__ volatile("mov %0, %%fs:0" : : "r"(r[1].next) : "memory");
    return head == (void *)&r[1];
}
/* RtlUnwind without a target frame (an exit unwind) over a chain of two records of its own: each
 * handler, inner first, gets a record of code STATUS_UNWIND (0xC0000027) with EXCEPTION_UNWINDING |
 * EXCEPTION_EXIT_UNWIND (Microsoft's EXCEPTION_RECORD page; Wine's i386 RtlUnwind), and the chain
 * is left empty (its end, 0xFFFFFFFF). */
static DWORD exit_seen[2];
static int exit_calls;
static EXCEPTION_DISPOSITION __cdecl exit_handler(EXCEPTION_RECORD *r, void *frame, CONTEXT *ctx, void *disp) {
    (void)frame, (void)ctx, (void)disp;
    if (exit_calls < 2 && r->ExceptionCode == 0xC0000027u) exit_seen[exit_calls] = r->ExceptionFlags;
    exit_calls++;
    return ExceptionContinueSearch;
}
static __attribute__((noinline)) void *exit_unwind(void) {
    reg_rec r[2];
    void *saved, *head;
    __asm__ volatile("mov %%fs:0, %0" : "=r"(saved));
    r[1].next = (reg_rec *)~(ULONG_PTR)0; /* the chain's end: the handlers outside stay out of it */
    r[1].handler = (void *)exit_handler;
    r[0].next = &r[1];
    r[0].handler = (void *)exit_handler;
    __asm__ volatile("mov %0, %%fs:0" : : "r"(&r[0]) : "memory");
    RtlUnwind(NULL, NULL, NULL, NULL);
    __asm__ volatile("mov %%fs:0, %0" : "=r"(head));
    __asm__ volatile("mov %0, %%fs:0" : : "r"(saved) : "memory");
    return head;
}
#endif

static LONG WINAPI uef_filter(EXCEPTION_POINTERS *ep) {
    return ep->ExceptionRecord->ExceptionCode == 0xE0000005u ? EXCEPTION_CONTINUE_EXECUTION : EXCEPTION_CONTINUE_SEARCH;
}

static int raised_seen;
static LONG WINAPI count_handler(EXCEPTION_POINTERS *ep) {
    if (ep->ExceptionRecord->ExceptionCode != 0xE0000006u) return EXCEPTION_CONTINUE_SEARCH;
    raised_seen++;
    return EXCEPTION_CONTINUE_EXECUTION;
}

#ifdef _WIN64
typedef VOID(NTAPI *capture_fn)(PCONTEXT);
typedef PRUNTIME_FUNCTION(NTAPI *lookup_fn)(DWORD64, PDWORD64, PUNWIND_HISTORY_TABLE);
typedef PEXCEPTION_ROUTINE(NTAPI *vunwind_fn)(DWORD, DWORD64, DWORD64, PRUNTIME_FUNCTION, PCONTEXT, PVOID *,
                                               PDWORD64, PKNONVOLATILE_CONTEXT_POINTERS);
typedef VOID(NTAPI *unwindex_fn)(PVOID, PVOID, PEXCEPTION_RECORD, PVOID, PCONTEXT, PUNWIND_HISTORY_TABLE);
typedef VOID(NTAPI *unwind_fn)(PVOID, PVOID, PEXCEPTION_RECORD, PVOID);
static capture_fn cap;
static lookup_fn look;
static vunwind_fn vun;
static unwindex_fn unex;
static unwind_fn unw;
static int use_plain_unwind;

/* B: unwinds straight back into its caller A, as if it had returned 1234 (its own return says 0). */
static __attribute__((noinline)) int unwind_to_caller(void) {
    CONTEXT c;
    cap(&c);
    DWORD64 base;
    PVOID data;
    DWORD64 frame;
    PRUNTIME_FUNCTION f = look(c.Rip, &base, NULL); /* this function */
    vun(UNW_FLAG_NHANDLER, base, c.Rip, f, &c, &data, &frame, NULL);
    DWORD64 target = c.Rip; /* back in the caller */
    f = look(c.Rip, &base, NULL);
    vun(UNW_FLAG_NHANDLER, base, c.Rip, f, &c, &data, &frame, NULL); /* the caller's establisher frame */
    if (use_plain_unwind)
        unw((PVOID)frame, (PVOID)target, NULL, (PVOID)1234);
    else
        unex((PVOID)frame, (PVOID)target, NULL, (PVOID)1234, &c, NULL);
    return 0;
}
static __attribute__((noinline)) int call_unwinder(void) {
    int r = unwind_to_caller();
    __asm__ volatile("" ::: "memory");
    return r;
}
#endif

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "crash") == 0) return write_null();
    if (argc > 1 && strcmp(argv[1], "raise") == 0) {
        ULONG_PTR info[2] = {1, 2};
        RaiseException(0xE0000003u, 0, 2, info);
        return 9;
    }
    if (argc > 2 && strcmp(argv[1], "cost") == 0) return cost_run((unsigned)(argv[2][0] - '0'));
    if (argc > 1 && strcmp(argv[1], "filter") == 0) {
        SetUnhandledExceptionFilter(exit_filter);
        RaiseException(0xE0000004u, 0, 0, NULL);
        return 9;
    }

    PVOID h = AddVectoredExceptionHandler(1, av_handler);
    int r = write_null();
    check(K "AddVectoredExceptionHandler: the handler sees the access violation and continues after the instruction",
          h && r == 7 && !strcmp(trail, "A"), "handle %p, r %d, trail %s", h, r, trail);
    check("EXCEPTION_RECORD of an access violation: code 0xC0000005, flags 0, 2 parameters (1: writing, address 0), "
          "ExceptionAddress the instruction",
          seen_code == 0xC0000005u && seen_flags == 0 && seen_nparams == 2 && seen_info[0] == 1 && seen_info[1] == 0 &&
              seen_addr == fault_at,
          "code 0x%lX flags %lu n %lu info %lu %lu at %p (instruction %p)", seen_code, seen_flags, seen_nparams,
          (unsigned long)seen_info[0], (unsigned long)seen_info[1], seen_addr, fault_at);
    ULONG removed = RemoveVectoredExceptionHandler(h), again = RemoveVectoredExceptionHandler(h);
    check(K "RemoveVectoredExceptionHandler: nonzero for a handler, 0 for one already removed", removed && !again,
          "%lu %lu", removed, again);

    trail[0] = 0;
    h = AddVectoredExceptionHandler(0, div_handler);
    unsigned q = divide(100, 0);
    check("a division by zero (EXCEPTION_INT_DIVIDE_BY_ZERO) reaches the vectored handler, which fixes the divisor: "
          "100 / 4",
          q == 25 && !strcmp(trail, "D"), "q %u trail %s", q, trail);
    RemoveVectoredExceptionHandler(h);

    trail[0] = 0;
    PVOID ha = AddVectoredExceptionHandler(0, veh_a), hb = AddVectoredExceptionHandler(0, veh_b);
    PVOID hc = AddVectoredContinueHandler(0, vch_c);
    PVOID hfirst = AddVectoredExceptionHandler(1, veh_a); /* First: before veh_a and veh_b */
    ULONG_PTR info[3] = {11, 22, 33};
    RaiseException(0xE0000001u, EXCEPTION_NONCONTINUABLE & 0, 3, info);
    check(K "RaiseException: the vectored handlers in their order (First at the head), then the continue handler "
            "once one says go on; RaiseException returns",
          !strcmp(trail, "aabc"), "trail %s", trail);
    check(K "AddVectoredContinueHandler: the continue handler runs after a handler returned "
            "EXCEPTION_CONTINUE_EXECUTION",
          hc != NULL && strchr(trail, 'c') != NULL, "%p %s", hc, trail);
    check("RaiseException's EXCEPTION_RECORD: flags 0, 3 parameters as given",
          seen_flags == 0 && seen_nparams == 3 && seen_info[0] == 11 && seen_info[1] == 22 && seen_info[2] == 33,
          "flags %lu n %lu %lu %lu %lu", seen_flags, seen_nparams, (unsigned long)seen_info[0],
          (unsigned long)seen_info[1], (unsigned long)seen_info[2]);
    ULONG rc = RemoveVectoredContinueHandler(hc), rc2 = RemoveVectoredContinueHandler(hc);
    check(K "RemoveVectoredContinueHandler: nonzero, then 0", rc && !rc2, "%lu %lu", rc, rc2);
    RemoveVectoredExceptionHandler(ha);
    RemoveVectoredExceptionHandler(hb);
    RemoveVectoredExceptionHandler(hfirst);

    trail[0] = 0;
    h = AddVectoredExceptionHandler(1, step_handler);
    __asm__ volatile("int3");
    __asm__ volatile("ud2");
    check("int3 (EXCEPTION_BREAKPOINT) and ud2 (EXCEPTION_ILLEGAL_INSTRUCTION) reach the handler with the context's "
          "instruction pointer at the instruction",
          !strcmp(trail, "BU"), "trail %s", trail);
    RemoveVectoredExceptionHandler(h);

    trail[0] = 0;
    LPTOP_LEVEL_EXCEPTION_FILTER prev = SetUnhandledExceptionFilter(top_filter);
    RaiseException(0xE0000002u, 0, 0, NULL);
    LPTOP_LEVEL_EXCEPTION_FILTER mine = SetUnhandledExceptionFilter(prev);
    check(K "SetUnhandledExceptionFilter: the filter sees an exception no handler took and continues it; it returns "
            "the previous filter (the C runtime's)",
          !strcmp(trail, "F") && mine == top_filter && prev != NULL, "trail %s prev %p", trail, (void *)prev);
    check(K "IsDebuggerPresent: FALSE", !IsDebuggerPresent(), "TRUE");

#ifdef _WIN64
    try_av(nullp);
    check("msvcrt.dll!__C_specific_handler: __try1/__except1 catch an access violation: the filter runs once, the "
          "block stops at the fault and the program goes on after it",
          reached == 0 && filter_calls == 1, "reached %d filter calls %d", reached, filter_calls);
    void *ret = unwind_once(), *want = __builtin_return_address(0);
    (void)want;
    check(K "RtlCaptureContext: " K "RtlLookupFunctionEntry: " K
            "RtlVirtualUnwind: one frame unwound from a function gives the return address into its caller",
          ret != NULL && (char *)ret > (char *)main && (char *)ret < (char *)main + 0x1000, "%p (main %p)", ret,
          (void *)main);
#else
    trail[0] = 0;
    q = frame_divide(100, 0);
    check("a registration record on FS:[0]: its handler (cdecl) fixes the divisor and returns "
          "ExceptionContinueExecution: 100 / 5",
          q == 20 && !strcmp(trail, "H"), "q %u trail %s", q, trail);
    trail[0] = 0;
    int ok = unwind_records();
    check(K "RtlUnwind: the records above the target frame see EXCEPTION_UNWINDING and leave the chain",
          ok && !strcmp(trail, "u"), "ok %d trail %s", ok, trail);
    void *after = exit_unwind();
    check(K "RtlUnwind: with no target frame (an exit unwind) both handlers see STATUS_UNWIND with "
            "EXCEPTION_UNWINDING | EXCEPTION_EXIT_UNWIND (6) and the chain ends empty",
          exit_calls == 2 && exit_seen[0] == 6 && exit_seen[1] == 6 && after == (void *)~(ULONG_PTR)0,
          "%d calls, flags 0x%lX 0x%lX, head %p", exit_calls, (unsigned long)exit_seen[0], (unsigned long)exit_seen[1],
          after);
#endif
    LPTOP_LEVEL_EXCEPTION_FILTER was = SetUnhandledExceptionFilter(uef_filter);
    EXCEPTION_RECORD er = {0};
    CONTEXT ec = {0};
    er.ExceptionCode = 0xE0000005u;
    EXCEPTION_POINTERS ep = {&er, &ec};
    LONG uef = UnhandledExceptionFilter(&ep);
    SetUnhandledExceptionFilter(was);
    check(K "UnhandledExceptionFilter: calls the top-level filter and returns its EXCEPTION_CONTINUE_EXECUTION", uef == -1,
          "%ld", uef);

    /* ntdll's forms, found with GetProcAddress */
    HMODULE nt = GetModuleHandleA("ntdll.dll");
    PVOID(NTAPI * add_veh)(ULONG, PVECTORED_EXCEPTION_HANDLER) = (void *)GetProcAddress(nt, "RtlAddVectoredExceptionHandler");
    ULONG(NTAPI * rm_veh)(PVOID) = (void *)GetProcAddress(nt, "RtlRemoveVectoredExceptionHandler");
    PVOID(NTAPI * add_vch)(ULONG, PVECTORED_EXCEPTION_HANDLER) = (void *)GetProcAddress(nt, "RtlAddVectoredContinueHandler");
    ULONG(NTAPI * rm_vch)(PVOID) = (void *)GetProcAddress(nt, "RtlRemoveVectoredContinueHandler");
    VOID(NTAPI * rtl_raise)(PEXCEPTION_RECORD) = (void *)GetProcAddress(nt, "RtlRaiseException");
    raised_seen = 0;
    h = add_veh(1, count_handler);
#ifndef _WIN64
    void *sp0, *sp1;
    __asm__ volatile("mov %%esp, %0" : "=r"(sp0) : : "memory");
#endif
    RaiseException(0xE0000006u, 0, 0, NULL);
#ifndef _WIN64
    __asm__ volatile("mov %%esp, %0" : "=r"(sp1) : : "memory");
    check(K "RaiseException (x86, stdcall): a handler that continues: it returns with its four arguments popped "
            "(ESP as before the call)",
          sp0 == sp1, "%p %p", sp0, sp1);
#endif
    EXCEPTION_RECORD rr = {0};
    rr.ExceptionCode = 0xE0000006u;
    rtl_raise(&rr);
    ULONG rm1 = rm_veh(h), rm2 = rm_veh(h);
    check(N "RtlAddVectoredExceptionHandler: as AddVectoredExceptionHandler: its handler takes two exceptions", raised_seen == 2,
          "%d", raised_seen);
    check(N "RtlRaiseException: raises the record it is given; a handler continues it", raised_seen == 2, "%d", raised_seen);
    check(N "RtlRemoveVectoredExceptionHandler: nonzero, then 0", rm1 && !rm2, "%lu %lu", rm1, rm2);
    trail[0] = 0;
    hb = AddVectoredExceptionHandler(0, veh_b);
    hc = add_vch(0, vch_c);
    RaiseException(0xE0000001u, 0, 3, info);
    ULONG rmc1 = rm_vch(hc), rmc2 = rm_vch(hc);
    RemoveVectoredExceptionHandler(hb);
    check(N "RtlAddVectoredContinueHandler: the continue handler runs after the handler said go on", !strcmp(trail, "bc"),
          "%s", trail);
    check(N "RtlRemoveVectoredContinueHandler: nonzero, then 0", rmc1 && !rmc2, "%lu %lu", rmc1, rmc2);

#ifdef _WIN64
    {
        volatile int pass0 = 0;
        CONTEXT rc0;
        RtlCaptureContext(&rc0);
        if (pass0++ == 0) RtlRestoreContext(&rc0, NULL);
        check(K "RtlCaptureContext: " K "RtlRestoreContext: the thread goes on where the context was captured", pass0 == 2,
              "%d", pass0);
    }
    {
        VOID(CDECL * nt_restore)(PCONTEXT, PEXCEPTION_RECORD) = (void *)GetProcAddress(nt, "RtlRestoreContext");
        NTSTATUS(NTAPI * nt_continue)(PCONTEXT, BOOLEAN) = (void *)GetProcAddress(nt, "NtContinue");
        cap = (capture_fn)(void *)GetProcAddress(nt, "RtlCaptureContext");
        volatile int pass = 0;
        CONTEXT rc1;
        cap(&rc1);
        if (pass == 0) {
            pass = 1;
            nt_restore(&rc1, NULL);
        }
        if (pass == 1) {
            pass = 2;
            nt_continue(&rc1, FALSE);
        }
        check(N "RtlCaptureContext: " N "RtlRestoreContext: " N "NtContinue: each goes on where the context was captured",
              pass == 2, "%d", pass);
        look = (lookup_fn)(void *)GetProcAddress(nt, "RtlLookupFunctionEntry");
        vun = (vunwind_fn)(void *)GetProcAddress(nt, "RtlVirtualUnwind");
        unex = (unwindex_fn)(void *)GetProcAddress(nt, "RtlUnwindEx");
        unw = (unwind_fn)(void *)GetProcAddress(nt, "RtlUnwind");
        int r1 = call_unwinder();
        use_plain_unwind = 1;
        int r2 = call_unwinder();
        check(N "RtlLookupFunctionEntry: " N "RtlVirtualUnwind: " N "RtlUnwindEx: " N
                "RtlUnwind: unwinding to the caller's frame and return address returns ReturnValue (1234) there",
              r1 == 1234 && r2 == 1234, "%d %d", r1, r2);
        cap = (capture_fn)RtlCaptureContext;
        look = (lookup_fn)RtlLookupFunctionEntry;
        vun = (vunwind_fn)RtlVirtualUnwind;
        unex = (unwindex_fn)RtlUnwindEx;
        unw = (unwind_fn)(void *)RtlUnwind;
        use_plain_unwind = 0;
        r1 = call_unwinder();
        use_plain_unwind = 1;
        r2 = call_unwinder();
        check(K "RtlUnwindEx: " K "RtlUnwind: the same from KERNEL32", r1 == 1234 && r2 == 1234, "%d %d", r1, r2);

        /* a function table of one's own, outside every image */
        char *mem = VirtualAlloc(NULL, 0x1000, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
        RUNTIME_FUNCTION *tab = (RUNTIME_FUNCTION *)(mem + 0x100);
        tab[0].BeginAddress = 0x10;
        tab[0].EndAddress = 0x20;
        tab[0].UnwindData = 0x200;
        BOOLEAN(NTAPI * nt_add)(PRUNTIME_FUNCTION, DWORD, DWORD64) = (void *)GetProcAddress(nt, "RtlAddFunctionTable");
        BOOLEAN(NTAPI * nt_del)(PRUNTIME_FUNCTION) = (void *)GetProcAddress(nt, "RtlDeleteFunctionTable");
        DWORD64 fb = 0;
        BOOLEAN added = RtlAddFunctionTable(tab, 1, (DWORD64)mem);
        PRUNTIME_FUNCTION found = RtlLookupFunctionEntry((DWORD64)mem + 0x18, &fb, NULL);
        BOOLEAN deleted = RtlDeleteFunctionTable(tab), again2 = RtlDeleteFunctionTable(tab);
        PRUNTIME_FUNCTION gone = RtlLookupFunctionEntry((DWORD64)mem + 0x18, &fb, NULL);
        check(K "RtlAddFunctionTable: " K "RtlDeleteFunctionTable: a table's entry is found for an address it covers, "
                "with its base, until the table is deleted (TRUE, then FALSE)",
              added && found == tab && deleted && !again2 && !gone, "%d %p %d %d %p", added, (void *)found, deleted,
              again2, (void *)gone);
        added = nt_add(tab, 1, (DWORD64)mem);
        found = RtlLookupFunctionEntry((DWORD64)mem + 0x18, &fb, NULL);
        deleted = nt_del(tab);
        check(N "RtlAddFunctionTable: " N "RtlDeleteFunctionTable: the same from ntdll", added && found == tab && deleted &&
              fb == (DWORD64)mem, "%d %p %d", added, (void *)found, deleted);
        VirtualFree(mem, 0, MEM_RELEASE);

        /* __C_specific_handler with an empty scope table searches on */
        EXCEPTION_DISPOSITION(*csh)(PEXCEPTION_RECORD, PVOID, PCONTEXT, PVOID) = (void *)GetProcAddress(nt, "__C_specific_handler");
        static DWORD empty_table[1] = {0};
        DISPATCHER_CONTEXT dc = {0};
        dc.ControlPc = (DWORD64)main;
        dc.ImageBase = (DWORD64)GetModuleHandleA(NULL);
        dc.HandlerData = empty_table;
        EXCEPTION_RECORD cr = {0};
        cr.ExceptionCode = 0xE0000007u;
        CONTEXT cc = {0};
        EXCEPTION_DISPOSITION d = csh(&cr, NULL, &cc, &dc);
        check(N "__C_specific_handler: no scope covers the address: ExceptionContinueSearch", d == ExceptionContinueSearch,
              "%d", (int)d);
    }
#endif
    HMODULE self = GetModuleHandleA(NULL);
    PVOID base = NULL;
    PVOID got = RtlPcToFileHeader((PVOID)main, &base);
    check(K "RtlPcToFileHeader: the program's base for an address in it", got == self && base == self, "%p %p (%p)",
          got, base, (void *)self);
    PVOID(NTAPI * nt_pc)(PVOID, PVOID *) = (void *)GetProcAddress(GetModuleHandleA("ntdll.dll"), "RtlPcToFileHeader");
    base = NULL;
    got = nt_pc((PVOID)main, &base);
    check(N "RtlPcToFileHeader: the same from ntdll", got == self && base == self, "%p %p", got, base);
    printf("%d failed\n", failed);
    return failed;
}
