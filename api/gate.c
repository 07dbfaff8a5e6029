/* api/gate.c — the call gate: guest code calls the Windows functions through
 * import thunks.
 *
 * sim/ maps a page of thunks (x64 thunk k: `mov eax, k; syscall; ret`; x86
 * `mov eax, k; int 0x2e; ret n`; ARM64 and ARM `svc #k` and a return) and
 * calls the handler registered here when guest code enters thunk k.  The
 * handler reads the arguments by the machine's calling convention, one
 * argument word at a time from sim_gate_arg, a DWORD64 from sim_gate_arg64
 * (the ISA layer pairs words: x86 two stack words, ARM an even-aligned
 * register or stack pair; on 32-bit guests a HANDLE is sign-extended, a
 * pointer zero-extended), calls the very function
 * a Lua body's binding calls (there is one implementation of each), and
 * hands back the result register: a DWORD or BOOL zero-extended, a HANDLE in
 * full (32-bit guests: eax or r0).  On x86 each thunk pops its arguments
 * (`ret 4 x words`, set when the gate is attached), as stdcall requires.  Structures stay in guest memory, so a
 * guest PERFORMANCE_DATA is validated exactly as one a Lua body passes.
 * A call that blocks (Sleep, a wait that must wait) reports itself pending;
 * sim/ stops the guest and asks for the result when the thread runs again.
 * What a guest call retires is stated in api/README.md ("Call gate"). */
#include <string.h>

#include "api/api_int.h"
#include "api/pe_int.h"

/* The imports, in thunk order (the order is fixed: it is the thunks' addresses). */
typedef enum imp {
    IMP_GetCurrentThread,
    IMP_GetCurrentThreadId,
    IMP_GetLastError,
    IMP_SetLastError,
    IMP_EnableThreadProfiling,
    IMP_DisableThreadProfiling,
    IMP_QueryThreadProfiling,
    IMP_ReadThreadProfilingData,
    IMP_QueryThreadCycleTime,
    IMP_GetThreadTimes,
    IMP_Sleep,
    IMP_SwitchToThread,
    IMP_SetEvent,
    IMP_ResetEvent,
    IMP_WaitForSingleObject,
    IMP_WaitForMultipleObjects,
    IMP_ReleaseMutex,
    IMP_ReleaseSemaphore,
    IMP_OpenThread,
    IMP_CloseHandle,
    IMP_GetExitCodeThread,
    IMP__COUNT
} imp;

/* Each import's parameters, one letter each: h HANDLE, p pointer, d DWORD
 * (or LONG), b BOOL, q DWORD64. */
static const struct {
    const char *name;
    int nargs;
    const char *sig;
} imports[IMP__COUNT] = {
    [IMP_GetCurrentThread] = {"GetCurrentThread", 0, ""},
    [IMP_GetCurrentThreadId] = {"GetCurrentThreadId", 0, ""},
    [IMP_GetLastError] = {"GetLastError", 0, ""},
    [IMP_SetLastError] = {"SetLastError", 1, "d"},
    [IMP_EnableThreadProfiling] = {"EnableThreadProfiling", 4, "hdqp"},
    [IMP_DisableThreadProfiling] = {"DisableThreadProfiling", 1, "h"},
    [IMP_QueryThreadProfiling] = {"QueryThreadProfiling", 2, "hp"},
    [IMP_ReadThreadProfilingData] = {"ReadThreadProfilingData", 3, "hdp"},
    [IMP_QueryThreadCycleTime] = {"QueryThreadCycleTime", 2, "hp"},
    [IMP_GetThreadTimes] = {"GetThreadTimes", 5, "hpppp"},
    [IMP_Sleep] = {"Sleep", 1, "d"},
    [IMP_SwitchToThread] = {"SwitchToThread", 0, ""},
    [IMP_SetEvent] = {"SetEvent", 1, "h"},
    [IMP_ResetEvent] = {"ResetEvent", 1, "h"},
    [IMP_WaitForSingleObject] = {"WaitForSingleObject", 2, "hd"},
    [IMP_WaitForMultipleObjects] = {"WaitForMultipleObjects", 4, "dpbd"},
    [IMP_ReleaseMutex] = {"ReleaseMutex", 1, "h"},
    [IMP_ReleaseSemaphore] = {"ReleaseSemaphore", 3, "hdp"},
    [IMP_OpenThread] = {"OpenThread", 3, "dbd"},
    [IMP_CloseHandle] = {"CloseHandle", 1, "h"},
    [IMP_GetExitCodeThread] = {"GetExitCodeThread", 2, "hp"},
};

/* Argument words an import takes on x86 (stdcall: what its thunk pops / 4). */
static uint32_t stdcall_words(imp f) {
    uint32_t w = 0;
    for (const char *c = imports[f].sig; *c; c++) w += *c == 'q' ? 2u : 1u;
    return w;
}

/* The arguments of import f, composed from the call's argument words by the
 * machine's convention; false when a stack word is unreadable. */
static bool fetch_args(hcp_os *os, sim_thread *t, imp f, uint64_t a[5], int *got) {
    int w = 0;
    *got = 0;
    for (int k = 0; k < imports[f].nargs; k++) {
        char c = imports[f].sig[k];
        uint64_t v;
        if (c == 'q') { /* a DWORD64: the ISA layer knows how its convention passes one */
            if (sim_gate_arg64(t, &w, &v) != SIM_OK) return false;
        } else {
            if (sim_gate_arg(t, w, &v) != SIM_OK) return false;
            w++;
            if (c == 'h') v = hcp_handle_arg(os, v);
        }
        a[k] = v;
        *got = k + 1;
    }
    return true;
}
_Static_assert(IMP__COUNT <= SIM_GATE_SERVICES, "one thunk per import");

const char *hcp_import_name(int i) { return i >= 0 && i < IMP__COUNT ? imports[i].name : NULL; }

uint64_t hcp_import_address(const sim_machine *m, const char *name) {
    for (int i = 0; i < IMP__COUNT; i++)
        if (strcmp(imports[i].name, name) == 0) return sim_gate_thunk(m, (uint32_t)i);
    return 0;
}

/* DWORD, BOOL and LONG arguments are the low 32 bits of their register or
 * stack slot (the upper half is undefined in the Windows x64 convention). */
static uint32_t dw(uint64_t v) { return (uint32_t)v; }
static int boolean(uint64_t v) { return (uint32_t)v != 0; }
static uint64_t ret32(uint32_t v) { return v; }
static uint64_t ret_bool(int v) { return (uint32_t)v; }

/* A blocked call, now that its thread runs again. */
static uint64_t resume(hcp_os *os, imp f) {
    if (f == IMP_Sleep) return 0; /* VOID */
    return ret32(hcp_wait_result(os));
}

static uint64_t dispatch_call(void *ud, sim_thread *t, uint32_t service, bool resumed, bool *pending) {
    hcp_os *os = ud;
    if (service >= IMP__COUNT) return STATUS_INVALID_SYSTEM_SERVICE;
    imp f = (imp)service;
    if (resumed) return resume(os, f);
    uint64_t a[5] = {0};
    int got;
    if (!fetch_args(os, t, f, a, &got)) { /* a stack argument the callee cannot read */
        hcp_SetLastError(os, ERROR_NOACCESS);
        return 0; /* FALSE: a 32-bit guest's arguments are all on the stack (x86) */
    }
    uint32_t r;
    switch (f) {
    case IMP_GetCurrentThread: return hcp_GetCurrentThread(os);
    case IMP_GetCurrentThreadId: return ret32(hcp_GetCurrentThreadId(os));
    case IMP_GetLastError: return ret32(hcp_GetLastError(os));
    case IMP_SetLastError: hcp_SetLastError(os, dw(a[0])); return 0; /* VOID */
    case IMP_EnableThreadProfiling: return ret32(hcp_EnableThreadProfiling(os, a[0], dw(a[1]), a[2], a[3]));
    case IMP_DisableThreadProfiling: return ret32(hcp_DisableThreadProfiling(os, a[0]));
    case IMP_QueryThreadProfiling: return ret32(hcp_QueryThreadProfiling(os, a[0], a[1]));
    case IMP_ReadThreadProfilingData: return ret32(hcp_ReadThreadProfilingData(os, a[0], dw(a[1]), a[2]));
    case IMP_QueryThreadCycleTime: return ret_bool(hcp_QueryThreadCycleTime(os, a[0], a[1]));
    case IMP_GetThreadTimes: return ret_bool(hcp_GetThreadTimes(os, a[0], a[1], a[2], a[3], a[4]));
    case IMP_Sleep: *pending = hcp_Sleep(os, dw(a[0])) == HCP_PENDING; return 0;
    case IMP_SwitchToThread: return ret_bool(hcp_SwitchToThread(os));
    case IMP_SetEvent: return ret_bool(hcp_SetEvent(os, a[0]));
    case IMP_ResetEvent: return ret_bool(hcp_ResetEvent(os, a[0]));
    case IMP_WaitForSingleObject:
        r = hcp_WaitForSingleObject(os, a[0], dw(a[1]));
        *pending = r == HCP_PENDING;
        return ret32(r);
    case IMP_WaitForMultipleObjects:
        r = hcp_WaitForMultipleObjects(os, dw(a[0]), a[1], boolean(a[2]), dw(a[3]));
        *pending = r == HCP_PENDING;
        return ret32(r);
    case IMP_ReleaseMutex: return ret_bool(hcp_ReleaseMutex(os, a[0]));
    case IMP_ReleaseSemaphore: return ret_bool(hcp_ReleaseSemaphore(os, a[0], (int32_t)dw(a[1]), a[2]));
    case IMP_OpenThread: return hcp_OpenThread(os, dw(a[0]), boolean(a[1]), dw(a[2]));
    case IMP_CloseHandle: return ret_bool(hcp_CloseHandle(os, a[0]));
    case IMP_GetExitCodeThread: return ret_bool(hcp_GetExitCodeThread(os, a[0], a[1]));
    case IMP__COUNT: break;
    }
    return STATUS_INVALID_SYSTEM_SERVICE;
}

/* The handler: the call itself, then the call observer (hcp_set_call_observer) sees it. */
static uint64_t dispatch(void *ud, sim_thread *t, uint32_t service, bool resumed, bool *pending) {
    hcp_os *os = ud;
    if (service >= HCP_SVC_WIN32) return hcp_win32_call(os, t, service, resumed, pending); /* a program's imports */
    if (!os->call_fn || service >= IMP__COUNT) return dispatch_call(ud, t, service, resumed, pending);
    hcp_call c = {imports[service].name, t, NULL, 0, sim_clock(os->m), 0, false, resumed};
    uint64_t a[5] = {0};
    if (!resumed) fetch_args(os, t, (imp)service, a, &c.nargs);
    c.args = a;
    uint64_t r = dispatch_call(ud, t, service, resumed, pending);
    c.pending = *pending;
    c.result = c.pending ? 0 : r;
    os->call_fn(os->call_ud, &c);
    return r;
}

void hcp_set_call_observer(hcp_os *os, hcp_call_fn fn, void *ud) {
    os->call_fn = fn;
    os->call_ud = fn ? ud : NULL;
}

void hcp_gate_attach(hcp_os *os) {
    sim_set_gate(os->m, dispatch, os);
    sim_set_gate_refusal(os->m, STATUS_INVALID_SYSTEM_SERVICE); /* a syscall no thunk serves */
    for (int i = 0; i < IMP__COUNT; i++) sim_gate_set_pop(os->m, (uint32_t)i, 4 * stdcall_words((imp)i));
}

void hcp_gate_detach(hcp_os *os) {
    if (os) sim_set_gate(os->m, NULL, NULL);
}
