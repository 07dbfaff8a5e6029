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

#include "api/exports_gen.h"

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

/* ---- the Ex waits: alertable waits end only as the plain ones do (no APCs are simulated) ---- */

uint64_t hcp_k32_WaitForSingleObjectEx(hcp_ctx *c, const hcp_k32_WaitForSingleObjectEx_args *a) {
    return hcp_blocking(c, hcp_WaitForSingleObject(c->os, a->hHandle, a->dwMilliseconds), NULL);
}
uint64_t hcp_k32_WaitForMultipleObjectsEx(hcp_ctx *c, const hcp_k32_WaitForMultipleObjectsEx_args *a) {
    return hcp_blocking(
        c, hcp_WaitForMultipleObjects(c->os, a->nCount, a->lpHandles, a->bWaitAll != 0, a->dwMilliseconds), NULL);
}
static uint64_t zero(hcp_ctx *c) {
    (void)c;
    return 0;
}
uint64_t hcp_k32_SleepEx(hcp_ctx *c, const hcp_k32_SleepEx_args *a) {
    return hcp_blocking(c, hcp_Sleep(c->os, a->dwMilliseconds), zero);
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

uint64_t hcp_k32_DuplicateHandle(hcp_ctx *c, const hcp_k32_DuplicateHandle_args *a) {
    if (a->hSourceProcessHandle != HCP_CURRENT_PROCESS || a->hTargetProcessHandle != HCP_CURRENT_PROCESS)
        return hcp_fail(c, ERROR_INVALID_HANDLE);
    obj_type type;
    sim_thread *t;
    sim_object *o;
    uint32_t have;
    uint32_t st = hcp_handle_info(c->os, a->hSourceHandle, &type, &t, &o, &have);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    if (a->lpTargetHandle && sim_mem_probe(c->m, a->lpTargetHandle, c->w, true) != SIM_OK)
        return hcp_fail(c, ERROR_NOACCESS);
    uint32_t want = (a->dwOptions & 2) ? have : a->dwDesiredAccess; /* DUPLICATE_SAME_ACCESS */
    if (type == OBJ_THREAD && (want & MAXIMUM_ALLOWED)) want = THREAD_ALL_ACCESS;
    uint64_t h = hcp_handle_new(c->os, type, t, o, want);
    if (!h) return hcp_fail(c, hcp_handle_error(c->os));
    if (a->dwOptions & 1) hcp_CloseHandle(c->os, a->hSourceHandle); /* DUPLICATE_CLOSE_SOURCE */
    if (a->lpTargetHandle) hcp_wrp(c, a->lpTargetHandle, h);
    return 1;
}

/* ---- named objects ---- */

static hcp_named *named_find(hcp_process *p, const char *name) {
    for (int i = 0; i < p->nnamed; i++)
        if (strcmp(p->named[i].name, name) == 0) return &p->named[i];
    return NULL;
}

static uint32_t all_access(obj_type t) {
    return t == OBJ_EVENT ? EVENT_ALL_ACCESS : t == OBJ_MUTEX ? MUTEX_ALL_ACCESS : SEMAPHORE_ALL_ACCESS;
}

/* What a Create* call makes when its name is new. */
typedef struct made {
    obj_type type;
    uint32_t x, y; /* event: manual, initial; mutex: initial owner; semaphore: initial, maximum */
} made;

static uint64_t make(hcp_ctx *c, const made *k) {
    switch (k->type) {
    case OBJ_EVENT: return hcp_create_event(c->os, k->x != 0, k->y != 0);
    case OBJ_MUTEX: return hcp_create_mutex(c->os, k->x != 0);
    case OBJ_SEMAPHORE: return hcp_create_semaphore(c->os, (int32_t)k->x, (int32_t)k->y);
    case OBJ_NONE:
    case OBJ_THREAD:
    case OBJ_FILE: break;
    }
    return 0;
}

/* Create*: a name already used returns a new handle to that object with ERROR_ALREADY_EXISTS
 * (another type: ERROR_INVALID_HANDLE); otherwise a new object, registered under its name. */
static uint64_t create_named(hcp_ctx *c, const made *k, uint64_t name_at, bool wide) {
    hcp_process *p = c->p;
    char name[128];
    if (!hcp_gname(c, name_at, wide, name, sizeof name)) return 0;
    hcp_named *n = name[0] ? named_find(p, name) : NULL;
    if (n) {
        if (n->type != k->type) return hcp_fail(c, ERROR_INVALID_HANDLE);
        uint64_t h = hcp_handle_new(c->os, k->type, NULL, n->o, all_access(k->type));
        if (!h) return hcp_fail(c, hcp_handle_error(c->os));
        hcp_SetLastError(c->os, ERROR_ALREADY_EXISTS);
        return h;
    }
    uint64_t h = make(c, k);
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
    hcp_SetLastError(c->os, ERROR_SUCCESS);
    return h;
}

static uint64_t open_named(hcp_ctx *c, obj_type type, uint32_t access, uint64_t name_at, bool wide) {
    char name[128];
    if (!hcp_gname(c, name_at, wide, name, sizeof name)) return 0;
    if (!name[0]) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    hcp_named *n = named_find(c->p, name);
    if (!n) return hcp_fail(c, ERROR_FILE_NOT_FOUND);
    if (n->type != type) return hcp_fail(c, ERROR_INVALID_HANDLE);
    if (access & MAXIMUM_ALLOWED) access = all_access(type);
    uint64_t h = hcp_handle_new(c->os, type, NULL, n->o, access & all_access(type));
    if (!h) return hcp_fail(c, hcp_handle_error(c->os));
    return h;
}

uint64_t hcp_k32_CreateEventA(hcp_ctx *c, const hcp_k32_CreateEventA_args *a) {
    made k = {OBJ_EVENT, a->bManualReset, a->bInitialState};
    return create_named(c, &k, a->lpName, false);
}
uint64_t hcp_k32_CreateEventW(hcp_ctx *c, const hcp_k32_CreateEventW_args *a) {
    made k = {OBJ_EVENT, a->bManualReset, a->bInitialState};
    return create_named(c, &k, a->lpName, true);
}
uint64_t hcp_k32_CreateMutexA(hcp_ctx *c, const hcp_k32_CreateMutexA_args *a) {
    made k = {OBJ_MUTEX, a->bInitialOwner, 0};
    return create_named(c, &k, a->lpName, false);
}
uint64_t hcp_k32_CreateMutexW(hcp_ctx *c, const hcp_k32_CreateMutexW_args *a) {
    made k = {OBJ_MUTEX, a->bInitialOwner, 0};
    return create_named(c, &k, a->lpName, true);
}
uint64_t hcp_k32_CreateSemaphoreA(hcp_ctx *c, const hcp_k32_CreateSemaphoreA_args *a) {
    made k = {OBJ_SEMAPHORE, (uint32_t)a->lInitialCount, (uint32_t)a->lMaximumCount};
    return create_named(c, &k, a->lpName, false);
}
uint64_t hcp_k32_CreateSemaphoreW(hcp_ctx *c, const hcp_k32_CreateSemaphoreW_args *a) {
    made k = {OBJ_SEMAPHORE, (uint32_t)a->lInitialCount, (uint32_t)a->lMaximumCount};
    return create_named(c, &k, a->lpName, true);
}
uint64_t hcp_k32_OpenEventA(hcp_ctx *c, const hcp_k32_OpenEventA_args *a) {
    return open_named(c, OBJ_EVENT, a->dwDesiredAccess, a->lpName, false);
}
uint64_t hcp_k32_OpenEventW(hcp_ctx *c, const hcp_k32_OpenEventW_args *a) {
    return open_named(c, OBJ_EVENT, a->dwDesiredAccess, a->lpName, true);
}
uint64_t hcp_k32_OpenMutexA(hcp_ctx *c, const hcp_k32_OpenMutexA_args *a) {
    return open_named(c, OBJ_MUTEX, a->dwDesiredAccess, a->lpName, false);
}
uint64_t hcp_k32_OpenMutexW(hcp_ctx *c, const hcp_k32_OpenMutexW_args *a) {
    return open_named(c, OBJ_MUTEX, a->dwDesiredAccess, a->lpName, true);
}
uint64_t hcp_k32_OpenSemaphoreA(hcp_ctx *c, const hcp_k32_OpenSemaphoreA_args *a) {
    return open_named(c, OBJ_SEMAPHORE, a->dwDesiredAccess, a->lpName, false);
}
uint64_t hcp_k32_OpenSemaphoreW(hcp_ctx *c, const hcp_k32_OpenSemaphoreW_args *a) {
    return open_named(c, OBJ_SEMAPHORE, a->dwDesiredAccess, a->lpName, true);
}

/* ---- critical sections: a mutex of the machine per CRITICAL_SECTION address ---- */

static hcp_cs *cs_find(hcp_process *p, uint64_t addr) {
    for (int i = 0; i < p->ncs; i++)
        if (p->cs[i].addr == addr) return &p->cs[i];
    return NULL;
}

/* 40 bytes (x64) / 24 (x86): LockCount -1, the rest 0; a new, unowned lock (re-initialization
 * forgets the old one).  false after a failure. */
static bool cs_init(hcp_ctx *c, uint64_t at) {
    hcp_process *p = c->p;
    uint8_t b[40] = {0};
    unsigned n = c->w == 8 ? 40 : 24;
    hcp_put32(b + c->w, 0xFFFFFFFFu);
    if (!hcp_wr(c, at, b, n)) return false;
    hcp_cs *e = cs_find(p, at);
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
    return true;
}

uint64_t hcp_k32_InitializeCriticalSection(hcp_ctx *c, const hcp_k32_InitializeCriticalSection_args *a) {
    cs_init(c, a->lpCriticalSection);
    return 0;
}
uint64_t hcp_k32_InitializeCriticalSection2(hcp_ctx *c, const hcp_k32_InitializeCriticalSection2_args *a) {
    return cs_init(c, a->lpCriticalSection);
}
uint64_t hcp_k32_InitializeCriticalSectionEx(hcp_ctx *c, const hcp_k32_InitializeCriticalSectionEx_args *a) {
    return cs_init(c, a->lpCriticalSection);
}

static sim_object *cs_mutex(hcp_ctx *c, uint64_t at) {
    hcp_cs *e = cs_find(c->p, at);
    if (!e || !e->mx) {
        hcp_stop(c, "0x%llX is not an initialized CRITICAL_SECTION (an access violation on Windows)",
                 (unsigned long long)at);
        return NULL;
    }
    return e->mx;
}

uint64_t hcp_k32_EnterCriticalSection(hcp_ctx *c, const hcp_k32_EnterCriticalSection_args *a) {
    sim_object *mx = cs_mutex(c, a->lpCriticalSection);
    if (!mx) return 0;
    if (sim_wait(c->t, &mx, 1, false, SIM_INFINITE, SIM_WR_USER_REQUEST) == SIM_WAIT_BLOCKED) {
        c->pending = true;
        c->resume = zero;
    }
    return 0;
}
uint64_t hcp_k32_TryEnterCriticalSection(hcp_ctx *c, const hcp_k32_TryEnterCriticalSection_args *a) {
    sim_object *mx = cs_mutex(c, a->lpCriticalSection);
    if (!mx) return 0;
    sim_wait(c->t, &mx, 1, false, 0, SIM_WR_USER_REQUEST); /* a zero timeout never blocks */
    return sim_wait_status(c->t) == SIM_WAIT_OBJECT_0;
}
uint64_t hcp_k32_LeaveCriticalSection(hcp_ctx *c, const hcp_k32_LeaveCriticalSection_args *a) {
    sim_object *mx = cs_mutex(c, a->lpCriticalSection);
    if (!mx) return 0;
    if (sim_mutex_release(c->t, mx) != 0)
        return hcp_stop(c, "thread %u does not own the CRITICAL_SECTION at 0x%llX", (unsigned)sim_thread_id(c->t),
                        (unsigned long long)a->lpCriticalSection);
    sim_sched_preempt_pending(c->t);
    return 0;
}
uint64_t hcp_k32_DeleteCriticalSection(hcp_ctx *c, const hcp_k32_DeleteCriticalSection_args *a) {
    hcp_cs *e = cs_find(c->p, a->lpCriticalSection);
    if (e) e->mx = NULL;
    return 0;
}
