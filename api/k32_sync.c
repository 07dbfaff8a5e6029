/* api/k32_sync.c — KERNEL32's waits, dispatcher objects, handles and critical
 * sections (api/README.md "Windows programs").
 *
 * Events, mutexes, semaphores and waits are waits.c's functions on
 * sim/objects.c's objects, the ones a Lua body's t:WaitForSingleObject uses,
 * so a program's thread and a Lua thread wait on the same objects by the same
 * rules.  Named objects are kept per process.  A CRITICAL_SECTION is served by
 * a mutex of the machine, found by the structure's address. */
#include <stdio.h>
#include <stdlib.h>

#include "api/sync_int.h"

/* ---- the call gate's own: shared with the Lua binding (they charge their own kernel entry) ---- */

uint64_t hcp_k32_Sleep(hcp_ctx *c, const hcp_k32_Sleep_args *a) {
    return hcp_blocking(c, hcp_Sleep(c->os, a->dwMilliseconds), NULL);
}
uint64_t hcp_k32_SwitchToThread(hcp_ctx *c) { return (uint32_t)hcp_SwitchToThread(c->os); }
uint64_t hcp_k32_SetEvent(hcp_ctx *c, const hcp_k32_SetEvent_args *a) {
    return (uint32_t)hcp_SetEvent(c->os, a->hEvent);
}
uint64_t hcp_k32_ResetEvent(hcp_ctx *c, const hcp_k32_ResetEvent_args *a) {
    return (uint32_t)hcp_ResetEvent(c->os, a->hEvent);
}
uint64_t hcp_k32_WaitForSingleObject(hcp_ctx *c, const hcp_k32_WaitForSingleObject_args *a) {
    return hcp_blocking(c, hcp_WaitForSingleObject(c->os, a->hHandle, a->dwMilliseconds), NULL);
}
uint64_t hcp_k32_WaitForMultipleObjects(hcp_ctx *c, const hcp_k32_WaitForMultipleObjects_args *a) {
    return hcp_blocking(
        c, hcp_WaitForMultipleObjects(c->os, a->nCount, a->lpHandles, a->bWaitAll != 0, a->dwMilliseconds), NULL);
}
uint64_t hcp_k32_ReleaseMutex(hcp_ctx *c, const hcp_k32_ReleaseMutex_args *a) {
    return (uint32_t)hcp_ReleaseMutex(c->os, a->hMutex);
}
uint64_t hcp_k32_ReleaseSemaphore(hcp_ctx *c, const hcp_k32_ReleaseSemaphore_args *a) {
    return (uint32_t)hcp_ReleaseSemaphore(c->os, a->hSemaphore, a->lReleaseCount, a->lpPreviousCount);
}
uint64_t hcp_k32_CloseHandle(hcp_ctx *c, const hcp_k32_CloseHandle_args *a) {
    return (uint32_t)hcp_CloseHandle(c->os, a->hObject);
}

uint64_t hcp_k32_PulseEvent(hcp_ctx *c,
                            const hcp_k32_PulseEvent_args *a) { /* set (waking what a set wakes), then reset */
    sim_object *o;
    obj_type type;
    uint32_t st = hcp_ref_object(c->os, a->hEvent, OBJ_EVENT, EVENT_MODIFY_STATE, &type, &o);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    sim_event_set(o);
    sim_event_reset(o);
    sim_sched_preempt_pending(c->t);
    return 1;
}

/* Within the process: -1 (or a process handle with PROCESS_DUP_HANDLE) as both process handles.
 * The pseudo handles give real handles (-1 the process, -2 the calling thread).  The new handle
 * gets the source's rights (DUPLICATE_SAME_ACCESS) or the rights asked for, generic rights mapped
 * to the type's own (MAXIMUM_ALLOWED: all), and HANDLE_FLAG_INHERIT when bInheritHandle;
 * DUPLICATE_CLOSE_SOURCE closes the source whatever the outcome. */
#define DUPLICATE_CLOSE_SOURCE 0x1u
#define DUPLICATE_SAME_ACCESS 0x2u

static uint32_t ref_process(hcp_ctx *c, uint64_t h, uint32_t access) {
    obj_type type;
    sim_object *o;
    return hcp_ref_object(c->os, h, OBJ_PROCESS, access, &type, &o);
}

uint64_t hcp_k32_DuplicateHandle(hcp_ctx *c, const hcp_k32_DuplicateHandle_args *a) {
    uint32_t st = ref_process(c, a->hSourceProcessHandle, PROCESS_DUP_HANDLE);
    if (st == STATUS_SUCCESS) st = ref_process(c, a->hTargetProcessHandle, PROCESS_DUP_HANDLE);
    obj_type type = OBJ_NONE;
    sim_thread *t = NULL;
    sim_object *o = NULL;
    uint32_t have = 0;
    if (st == STATUS_SUCCESS) st = hcp_handle_info(c->os, a->hSourceHandle, &type, &t, &o, &have);
    if (st == STATUS_SUCCESS && a->lpTargetHandle && sim_mem_probe(c->m, a->lpTargetHandle, c->w, true) != SIM_OK)
        st = STATUS_ACCESS_VIOLATION;
    uint64_t h = 0;
    if (st == STATUS_SUCCESS) {
        uint32_t want = (a->dwOptions & DUPLICATE_SAME_ACCESS) ? have : hcp_map_access(type, a->dwDesiredAccess);
        h = hcp_handle_new(c->os, type, t, o, want);
        if (!h) {
            if (a->dwOptions & DUPLICATE_CLOSE_SOURCE) hcp_CloseHandle(c->os, a->hSourceHandle);
            return hcp_fail(c, hcp_handle_error(c->os));
        }
        if (a->bInheritHandle) hcp_handle_slot(c->os, h)->flags |= HANDLE_FLAG_INHERIT;
        if (o) hcp_named_addref(c, o);
    }
    if (a->dwOptions & DUPLICATE_CLOSE_SOURCE) hcp_CloseHandle(c->os, a->hSourceHandle);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    if (a->lpTargetHandle) hcp_wrp(c, a->lpTargetHandle, h);
    return 1;
}

uint64_t hcp_k32_GetHandleInformation(hcp_ctx *c, const hcp_k32_GetHandleInformation_args *a) {
    handle_slot *h = hcp_handle_slot(c->os, a->hObject);
    if (!h) return hcp_fail(c, ERROR_INVALID_HANDLE);
    if (!hcp_wr32(c, a->lpdwFlags, h->flags)) return 0;
    return 1;
}

uint64_t hcp_k32_SetHandleInformation(hcp_ctx *c, const hcp_k32_SetHandleInformation_args *a) {
    handle_slot *h = hcp_handle_slot(c->os, a->hObject);
    if (!h) return hcp_fail(c, ERROR_INVALID_HANDLE);
    uint32_t m = a->dwMask & (HANDLE_FLAG_INHERIT | HANDLE_FLAG_PROTECT_FROM_CLOSE);
    h->flags = (uint8_t)((h->flags & ~m) | (a->dwFlags & m));
    return 1;
}

/* ---- named objects ----
 * One namespace for events, mutexes, semaphores and waitable timers, per process.  A name lives as
 * long as a handle to its object is open: the last CloseHandle removes it, so an Open of it then
 * fails and a Create makes a new object. */

static hcp_named *named_find(hcp_process *p, const char *name) {
    for (int i = 0; i < p->nnamed; i++)
        if (strcmp(p->named[i].name, name) == 0) return &p->named[i];
    return NULL;
}

static hcp_named *named_of(hcp_process *p, const sim_object *o) {
    for (int i = 0; p && i < p->nnamed; i++)
        if (p->named[i].o == o) return &p->named[i];
    return NULL;
}

void hcp_named_addref(hcp_ctx *c, sim_object *o) {
    hcp_named *n = named_of(c->p, o);
    if (n) n->refs++;
}

void hcp_handle_closed(hcp_os *os, obj_type type, sim_object *o) {
    (void)type;
    hcp_process *p = os->proc;
    hcp_named *n = named_of(p, o);
    if (n && --n->refs <= 0) *n = p->named[--p->nnamed];
}

static uint32_t all_access(obj_type t) {
    switch (t) {
    case OBJ_EVENT: return EVENT_ALL_ACCESS;
    case OBJ_MUTEX: return MUTEX_ALL_ACCESS;
    case OBJ_SEMAPHORE: return SEMAPHORE_ALL_ACCESS;
    case OBJ_TIMER: return TIMER_ALL_ACCESS;
    case OBJ_THREAD: return THREAD_ALL_ACCESS;
    case OBJ_PROCESS: return PROCESS_ALL_ACCESS;
    case OBJ_KEYEDEVENT: return KEYEDEVENT_ALL_ACCESS;
    case OBJ_FILE: return 0x1F01FFu; /* FILE_ALL_ACCESS */
    case OBJ_NONE: break;
    }
    return 0;
}

/* Each type's GENERIC_MAPPING (read, write, execute, all), as Windows' object types define them. */
uint32_t hcp_map_access(obj_type type, uint32_t access) {
    uint32_t r = 0, w = 0, x = 0;
    switch (type) {
    case OBJ_EVENT:
        r = STANDARD_RIGHTS_READ | EVENT_QUERY_STATE, w = STANDARD_RIGHTS_WRITE | EVENT_MODIFY_STATE,
        x = STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE;
        break;
    case OBJ_MUTEX:
        r = STANDARD_RIGHTS_READ | MUTANT_QUERY_STATE, w = STANDARD_RIGHTS_WRITE,
        x = STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE;
        break;
    case OBJ_SEMAPHORE:
        r = STANDARD_RIGHTS_READ | SEMAPHORE_QUERY_STATE, w = STANDARD_RIGHTS_WRITE | SEMAPHORE_MODIFY_STATE,
        x = STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE;
        break;
    case OBJ_TIMER:
        r = STANDARD_RIGHTS_READ | TIMER_QUERY_STATE, w = STANDARD_RIGHTS_WRITE | TIMER_MODIFY_STATE,
        x = STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE;
        break;
    case OBJ_THREAD:
        r = STANDARD_RIGHTS_READ | THREAD_QUERY_INFORMATION | THREAD_GET_CONTEXT;
        w = STANDARD_RIGHTS_WRITE | THREAD_SET_LIMITED_INFORMATION | THREAD_SET_INFORMATION | THREAD_SET_CONTEXT |
            THREAD_SUSPEND_RESUME | THREAD_TERMINATE | 0x04u;
        x = STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE | THREAD_RESUME | THREAD_QUERY_LIMITED_INFORMATION;
        break;
    case OBJ_PROCESS:
        r = STANDARD_RIGHTS_READ | PROCESS_VM_READ | PROCESS_QUERY_INFORMATION;
        w = STANDARD_RIGHTS_WRITE | PROCESS_SUSPEND_RESUME | PROCESS_SET_INFORMATION | PROCESS_SET_QUOTA |
            PROCESS_CREATE_PROCESS | PROCESS_DUP_HANDLE | PROCESS_VM_WRITE | PROCESS_VM_OPERATION |
            PROCESS_CREATE_THREAD;
        x = STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_TERMINATE;
        break;
    case OBJ_KEYEDEVENT:
        r = STANDARD_RIGHTS_READ | KEYEDEVENT_WAIT, w = STANDARD_RIGHTS_WRITE | KEYEDEVENT_WAKE,
        x = STANDARD_RIGHTS_EXECUTE;
        break;
    case OBJ_FILE: /* FILE_GENERIC_READ, _WRITE, _EXECUTE */ r = 0x120089u, w = 0x120116u, x = 0x1200A0u; break;
    case OBJ_NONE: return access;
    }
    uint32_t out = access & ~(GENERIC_READ | GENERIC_WRITE | GENERIC_EXECUTE | GENERIC_ALL | MAXIMUM_ALLOWED);
    if (access & GENERIC_READ) out |= r;
    if (access & GENERIC_WRITE) out |= w;
    if (access & GENERIC_EXECUTE) out |= x;
    if (access & (GENERIC_ALL | MAXIMUM_ALLOWED)) out |= all_access(type);
    return out & all_access(type);
}

/* What a Create* call makes when its name is new. */
typedef struct made {
    obj_type type;
    uint32_t x, y; /* event: manual, initial; mutex: initial owner; semaphore: initial, maximum; timer: manual */
} made;

static uint64_t make(hcp_ctx *c, const made *k) {
    switch (k->type) {
    case OBJ_EVENT: return hcp_create_event(c->os, k->x != 0, k->y != 0);
    case OBJ_MUTEX: return hcp_create_mutex(c->os, k->x != 0);
    case OBJ_SEMAPHORE: return hcp_create_semaphore(c->os, (int32_t)k->x, (int32_t)k->y);
    case OBJ_TIMER: {
        sim_object *o = sim_timer_new(c->m, k->x != 0);
        if (!o) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        uint64_t h = hcp_handle_new(c->os, OBJ_TIMER, NULL, o, TIMER_ALL_ACCESS);
        return h ? h : hcp_fail(c, hcp_handle_error(c->os));
    }
    case OBJ_NONE:
    case OBJ_THREAD:
    case OBJ_FILE:
    case OBJ_PROCESS:
    case OBJ_KEYEDEVENT: break;
    }
    return 0;
}

/* SECURITY_ATTRIBUTES.bInheritHandle (after nLength and lpSecurityDescriptor); false for NULL. */
static bool sa_inherit(hcp_ctx *c, uint64_t sa) {
    uint8_t b[4];
    return sa && sim_mem_read(c->m, sa + (c->w == 8 ? 16 : 8), b, 4) == SIM_OK && hcp_get32(b) != 0;
}

static void set_inherit(hcp_ctx *c, uint64_t h, bool inherit) {
    handle_slot *s = h && inherit ? hcp_handle_slot(c->os, h) : NULL;
    if (s) s->flags |= HANDLE_FLAG_INHERIT;
}

/* Create*: a name already used returns a new handle to that object with ERROR_ALREADY_EXISTS
 * (another type: ERROR_INVALID_HANDLE); otherwise a new object, registered under its name. */
static uint64_t create_named(hcp_ctx *c, const made *k, uint64_t name_at, bool wide, uint64_t sa, uint32_t access) {
    hcp_process *p = c->p;
    char name[128];
    if (!hcp_gname(c, name_at, wide, name, sizeof name)) return 0;
    hcp_named *n = name[0] ? named_find(p, name) : NULL;
    if (n) {
        if (n->type != k->type) return hcp_fail(c, ERROR_INVALID_HANDLE);
        uint64_t h = hcp_handle_new(c->os, k->type, NULL, n->o, access);
        if (!h) return hcp_fail(c, hcp_handle_error(c->os));
        n->refs++;
        set_inherit(c, h, sa_inherit(c, sa));
        hcp_SetLastError(c->os, ERROR_ALREADY_EXISTS);
        return h;
    }
    uint64_t h = make(c, k);
    if (h && access != all_access(k->type)) hcp_handle_slot(c->os, h)->access = access;
    set_inherit(c, h, sa_inherit(c, sa));
    if (!h || !name[0]) {
        if (h) hcp_SetLastError(c->os, ERROR_SUCCESS);
        return h;
    }
    if (p->nnamed == p->capnamed) {
        int nc = p->capnamed ? 2 * p->capnamed : 8;
        hcp_named *nn = realloc(p->named, (size_t)nc * sizeof *nn);
        if (!nn) return h;
        p->named = nn;
        p->capnamed = nc;
    }
    obj_type ty;
    sim_thread *t;
    sim_object *o;
    uint32_t acc;
    hcp_handle_info(c->os, h, &ty, &t, &o, &acc);
    hcp_named *e = &p->named[p->nnamed++];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->type = k->type;
    e->o = o;
    e->refs = 1;
    hcp_SetLastError(c->os, ERROR_SUCCESS);
    return h;
}

static uint64_t open_named(hcp_ctx *c, obj_type type, uint32_t access, bool inherit, uint64_t name_at, bool wide) {
    char name[128];
    if (!hcp_gname(c, name_at, wide, name, sizeof name)) return 0;
    if (!name[0]) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    hcp_named *n = named_find(c->p, name);
    if (!n) return hcp_fail(c, ERROR_FILE_NOT_FOUND);
    if (n->type != type) return hcp_fail(c, ERROR_INVALID_HANDLE);
    uint64_t h = hcp_handle_new(c->os, type, NULL, n->o, hcp_map_access(type, access));
    if (!h) return hcp_fail(c, hcp_handle_error(c->os));
    n->refs++;
    set_inherit(c, h, inherit);
    return h;
}

uint64_t hcp_named_create(hcp_ctx *c, obj_type type, uint32_t x, uint32_t y, uint64_t name, bool wide, uint64_t sa,
                          uint32_t access);
uint64_t hcp_named_create(hcp_ctx *c, obj_type type, uint32_t x, uint32_t y, uint64_t name, bool wide, uint64_t sa,
                          uint32_t access) {
    made k = {type, x, y};
    return create_named(c, &k, name, wide, sa, access ? hcp_map_access(type, access) : all_access(type));
}
uint64_t hcp_named_open(hcp_ctx *c, obj_type type, uint32_t access, bool inherit, uint64_t name, bool wide);
uint64_t hcp_named_open(hcp_ctx *c, obj_type type, uint32_t access, bool inherit, uint64_t name, bool wide) {
    return open_named(c, type, access, inherit, name, wide);
}

uint64_t hcp_k32_CreateEventA(hcp_ctx *c, const hcp_k32_CreateEventA_args *a) {
    return hcp_named_create(c, OBJ_EVENT, a->bManualReset, a->bInitialState, a->lpName, false, a->lpEventAttributes, 0);
}
uint64_t hcp_k32_CreateEventW(hcp_ctx *c, const hcp_k32_CreateEventW_args *a) {
    return hcp_named_create(c, OBJ_EVENT, a->bManualReset, a->bInitialState, a->lpName, true, a->lpEventAttributes, 0);
}
uint64_t hcp_k32_CreateMutexA(hcp_ctx *c, const hcp_k32_CreateMutexA_args *a) {
    return hcp_named_create(c, OBJ_MUTEX, a->bInitialOwner, 0, a->lpName, false, a->lpMutexAttributes, 0);
}
uint64_t hcp_k32_CreateMutexW(hcp_ctx *c, const hcp_k32_CreateMutexW_args *a) {
    return hcp_named_create(c, OBJ_MUTEX, a->bInitialOwner, 0, a->lpName, true, a->lpMutexAttributes, 0);
}
uint64_t hcp_k32_CreateSemaphoreA(hcp_ctx *c, const hcp_k32_CreateSemaphoreA_args *a) {
    return hcp_named_create(c, OBJ_SEMAPHORE, (uint32_t)a->lInitialCount, (uint32_t)a->lMaximumCount, a->lpName, false,
                            a->lpSemaphoreAttributes, 0);
}
uint64_t hcp_k32_CreateSemaphoreW(hcp_ctx *c, const hcp_k32_CreateSemaphoreW_args *a) {
    return hcp_named_create(c, OBJ_SEMAPHORE, (uint32_t)a->lInitialCount, (uint32_t)a->lMaximumCount, a->lpName, true,
                            a->lpSemaphoreAttributes, 0);
}
uint64_t hcp_k32_OpenEventA(hcp_ctx *c, const hcp_k32_OpenEventA_args *a) {
    return open_named(c, OBJ_EVENT, a->dwDesiredAccess, a->bInheritHandle != 0, a->lpName, false);
}
uint64_t hcp_k32_OpenEventW(hcp_ctx *c, const hcp_k32_OpenEventW_args *a) {
    return open_named(c, OBJ_EVENT, a->dwDesiredAccess, a->bInheritHandle != 0, a->lpName, true);
}
uint64_t hcp_k32_OpenMutexA(hcp_ctx *c, const hcp_k32_OpenMutexA_args *a) {
    return open_named(c, OBJ_MUTEX, a->dwDesiredAccess, a->bInheritHandle != 0, a->lpName, false);
}
uint64_t hcp_k32_OpenMutexW(hcp_ctx *c, const hcp_k32_OpenMutexW_args *a) {
    return open_named(c, OBJ_MUTEX, a->dwDesiredAccess, a->bInheritHandle != 0, a->lpName, true);
}
uint64_t hcp_k32_OpenSemaphoreA(hcp_ctx *c, const hcp_k32_OpenSemaphoreA_args *a) {
    return open_named(c, OBJ_SEMAPHORE, a->dwDesiredAccess, a->bInheritHandle != 0, a->lpName, false);
}
uint64_t hcp_k32_OpenSemaphoreW(hcp_ctx *c, const hcp_k32_OpenSemaphoreW_args *a) {
    return open_named(c, OBJ_SEMAPHORE, a->dwDesiredAccess, a->bInheritHandle != 0, a->lpName, true);
}

/* ---- critical sections: a mutex of the machine per CRITICAL_SECTION address ----
 * RTL_CRITICAL_SECTION, x64 (40 bytes) / x86 (24): DebugInfo, LockCount, RecursionCount,
 * OwningThread, LockSemaphore, SpinCount.  After each call the fields hold the mutex's state as
 * Windows (Vista and later) keeps them: LockCount = -1 - 4 x waiters - 1 if held (bit 0 clear:
 * held; bit 1 set: no waiter was woken and has yet to take the lock, always so here since a
 * release hands the lock to its oldest waiter; the rest: the waiters' count, ones' complement),
 * RecursionCount and OwningThread (the owner's id) while held, 0 otherwise.  DebugInfo is
 * (PRTL_CRITICAL_SECTION_DEBUG)-1 on Windows 8 and later (and with
 * RTL_CRITICAL_SECTION_FLAG_NO_DEBUG_INFO), else a debug block in the OS heap whose
 * ContentionCount counts the waits. */

#define RTL_CRITICAL_SECTION_FLAG_NO_DEBUG_INFO 0x01000000u
#define RTL_CRITICAL_SECTION_ALL_FLAG_BITS 0xFF000000u

static hcp_cs *cs_find(hcp_process *p, uint64_t addr) {
    for (int i = 0; i < p->ncs; i++)
        if (p->cs[i].addr == addr) return &p->cs[i];
    return NULL;
}

static unsigned debug_size(const hcp_ctx *c) { return c->w == 8 ? 48 : 32; }

/* A new, unowned lock at `at` (re-initialization forgets the old one): false after a failure. */
static bool cs_init(hcp_ctx *c, uint64_t at, uint32_t spin, uint32_t flags) {
    hcp_process *p = c->p;
    unsigned w = c->w;
    hcp_cs *e = cs_find(p, at);
    if (e && e->debug) {
        sim_heap_free(c->m, e->debug, debug_size(c));
        e->debug = 0;
    }
    uint64_t debug = w == 8 ? UINT64_MAX : 0xFFFFFFFFu;
    if (!c->os->plat->win8 && !(flags & RTL_CRITICAL_SECTION_FLAG_NO_DEBUG_INFO)) {
        if (sim_heap_alloc(c->m, debug_size(c), &debug) != SIM_OK) return false;
        uint8_t d[48] = {0}; /* Type 0, CriticalSection, ProcessLocksList (here linked to itself) */
        unsigned list = w == 8 ? 16 : 8;
        if (w == 8) {
            hcp_put64(d + 8, at);
            hcp_put64(d + list, debug + list);
            hcp_put64(d + list + 8, debug + list);
        } else {
            hcp_put32(d + 4, (uint32_t)at);
            hcp_put32(d + list, (uint32_t)(debug + list));
            hcp_put32(d + list + 4, (uint32_t)(debug + list));
        }
        if (!hcp_wr(c, debug, d, debug_size(c))) return false;
    }
    uint8_t b[40] = {0};
    if (w == 8)
        hcp_put64(b, debug);
    else
        hcp_put32(b, (uint32_t)debug);
    hcp_put32(b + w, 0xFFFFFFFFu);
    /* the spin count counts on a multiprocessor only (its flag bits dropped) */
    uint64_t sc = sim_cpu_count(c->m) > 1 ? (spin & ~RTL_CRITICAL_SECTION_ALL_FLAG_BITS) : 0;
    if (w == 8)
        hcp_put64(b + 3 * w + 8, sc);
    else
        hcp_put32(b + 3 * w + 8, (uint32_t)sc);
    if (!hcp_wr(c, at, b, w == 8 ? 40 : 24)) return false;
    if (!e) {
        if (p->ncs == p->capcs) {
            int nc = p->capcs ? 2 * p->capcs : 16;
            hcp_cs *ncs = realloc(p->cs, (size_t)nc * sizeof *ncs);
            if (!ncs) return false;
            p->cs = ncs;
            p->capcs = nc;
        }
        e = &p->cs[p->ncs++];
        e->addr = at;
    }
    e->mx = sim_mutex_new(c->m, false);
    e->debug = debug == UINT64_MAX || debug == 0xFFFFFFFFu ? 0 : debug;
    e->contentions = 0;
    return e->mx != NULL;
}

uint64_t hcp_k32_InitializeCriticalSection(hcp_ctx *c, const hcp_k32_InitializeCriticalSection_args *a) {
    cs_init(c, a->lpCriticalSection, 0, 0);
    return 0;
}
uint64_t hcp_k32_InitializeCriticalSection2(hcp_ctx *c, const hcp_k32_InitializeCriticalSection2_args *a) {
    return cs_init(c, a->lpCriticalSection, a->dwSpinCount, 0);
}
uint64_t hcp_k32_InitializeCriticalSectionEx(hcp_ctx *c, const hcp_k32_InitializeCriticalSectionEx_args *a) {
    return cs_init(c, a->lpCriticalSection, a->dwSpinCount, a->Flags);
}
uint64_t hcp_nt_RtlInitializeCriticalSection(hcp_ctx *c, const hcp_nt_RtlInitializeCriticalSection_args *a) {
    return cs_init(c, a->lpCriticalSection, 0, 0) ? STATUS_SUCCESS : STATUS_NO_MEMORY;
}
uint64_t
hcp_nt_RtlInitializeCriticalSectionAndSpinCount(hcp_ctx *c,
                                                const hcp_nt_RtlInitializeCriticalSectionAndSpinCount_args *a) {
    return cs_init(c, a->lpCriticalSection, a->dwSpinCount, 0) ? STATUS_SUCCESS : STATUS_NO_MEMORY;
}
uint64_t hcp_nt_RtlInitializeCriticalSectionEx(hcp_ctx *c, const hcp_nt_RtlInitializeCriticalSectionEx_args *a) {
    return cs_init(c, a->lpCriticalSection, a->dwSpinCount, a->Flags) ? STATUS_SUCCESS : STATUS_NO_MEMORY;
}

sim_object *hcp_cs_mutex(hcp_ctx *c, uint64_t at) {
    hcp_cs *e = cs_find(c->p, at);
    if (!e || !e->mx) {
        hcp_stop(c, "0x%llX is not an initialized CRITICAL_SECTION (an access violation on Windows)",
                 (unsigned long long)at);
        return NULL;
    }
    return e->mx;
}

void hcp_cs_fields(hcp_ctx *c, uint64_t at) {
    hcp_cs *e = cs_find(c->p, at);
    if (!e || !e->mx) return;
    sim_thread *owner = sim_mutex_owner(e->mx);
    int waiters = sim_object_waiters(e->mx);
    uint8_t b[4 + 4 + 8];
    unsigned w = c->w;
    hcp_put32(b, (uint32_t)(-1 - 4 * waiters - (owner ? 1 : 0)));
    hcp_put32(b + 4, owner ? sim_mutex_recursion(e->mx) : 0);
    hcp_put64(b + 8, owner ? sim_thread_id(owner) : 0);
    hcp_wr(c, at + w, b, 8 + w);
    if (e->debug) hcp_wr32(c, e->debug + (w == 8 ? 36 : 20), e->contentions);
}

static uint64_t cs_entered(hcp_ctx *c) {
    hcp_xthread *x = hcp_xthread_of(c->os, c->t);
    if (x) hcp_cs_fields(c, x->park_key);
    return 0;
}

uint64_t hcp_k32_EnterCriticalSection(hcp_ctx *c, const hcp_k32_EnterCriticalSection_args *a) {
    sim_object *mx = hcp_cs_mutex(c, a->lpCriticalSection);
    if (!mx) return 0;
    if (sim_wait(c->t, &mx, 1, false, SIM_INFINITE, SIM_WR_USER_REQUEST) == SIM_WAIT_BLOCKED) {
        hcp_xthread *x = hcp_xthread_of(c->os, c->t);
        if (x) x->park_key = a->lpCriticalSection; /* what cs_entered updates (no queue: a mutex wait) */
        cs_find(c->p, a->lpCriticalSection)->contentions++;
        c->pending = true;
        c->resume = cs_entered;
    }
    hcp_cs_fields(c, a->lpCriticalSection);
    return 0;
}
uint64_t hcp_k32_TryEnterCriticalSection(hcp_ctx *c, const hcp_k32_TryEnterCriticalSection_args *a) {
    sim_object *mx = hcp_cs_mutex(c, a->lpCriticalSection);
    if (!mx) return 0;
    sim_wait(c->t, &mx, 1, false, 0, SIM_WR_USER_REQUEST); /* a zero timeout never blocks */
    hcp_cs_fields(c, a->lpCriticalSection);
    return sim_wait_status(c->t) == SIM_WAIT_OBJECT_0;
}
uint64_t hcp_k32_LeaveCriticalSection(hcp_ctx *c, const hcp_k32_LeaveCriticalSection_args *a) {
    sim_object *mx = hcp_cs_mutex(c, a->lpCriticalSection);
    if (!mx) return 0;
    if (sim_mutex_release(c->t, mx) != 0)
        return hcp_stop(c, "thread %u does not own the CRITICAL_SECTION at 0x%llX", (unsigned)sim_thread_id(c->t),
                        (unsigned long long)a->lpCriticalSection);
    hcp_cs_fields(c, a->lpCriticalSection);
    sim_sched_preempt_pending(c->t);
    return 0;
}
uint64_t hcp_k32_DeleteCriticalSection(hcp_ctx *c, const hcp_k32_DeleteCriticalSection_args *a) {
    hcp_cs *e = cs_find(c->p, a->lpCriticalSection);
    if (e) {
        e->mx = NULL;
        if (e->debug) sim_heap_free(c->m, e->debug, debug_size(c));
        e->debug = 0;
    }
    return 0;
}
