/* api/handles.c — the OS object, per-thread OS state, the handle table and the
 * small thread functions (GetCurrentThread, OpenThread, CloseHandle, ...).
 *
 * Handle values: slot s and generation g encode as (g << 24) | ((s + 1) << 2),
 * small multiples of 4 as on Windows.  The low two bits are ignored, as
 * Windows ignores its tag bits.  Closing a handle bumps its slot's
 * generation, so a stale or closed handle resolves to STATUS_INVALID_HANDLE,
 * never to another object.  Free slots form a list, most recently freed first,
 * so creating and closing a handle take constant time however many are open;
 * a new slot is made only when the list is empty.  Both orders depend on the
 * calls alone, so handle values are deterministic. */
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "api/pe_int.h"
#include "api/sync_int.h"

static void on_switch_in(void *ud, sim_thread *t, int reason) { hcp_prof_switch_in(ud, t, reason); }
static void on_thread_exit(void *ud, sim_thread *t) {
    hcp_os *os = ud;
    hcp_prof_thread_exit(os, t);
    if (os->proc) hcp_process_thread_gone(os->proc, t);
}

hcp_os *hcp_os_new(sim_machine *m, hcp_semantics s) {
    hcp_os *os = calloc(1, sizeof *os);
    if (!os) return NULL;
    os->m = m;
    os->sem = s;
    os->plat = hcp_platform_at(0);
    os->etw_version = -1;
    os->free_head = -1;
    os->max_handles = HCP_DEFAULT_MAX_HANDLES;
    sim_observer o = {on_switch_in, on_thread_exit, NULL, os};
    os->observer = sim_add_observer(m, &o);
    if (os->observer < 0) {
        free(os);
        return NULL;
    }
    return os;
}

void hcp_os_free(hcp_os *os) {
    if (!os) return;
    sim_remove_observer(os->m, os->observer);
    for (int i = 0; i < os->nthreads; i++) hcp_xthread_free(os->threads[i].x);
    free(os->handles);
    free(os->threads);
    hcp_process_free(os->proc);
    free(os);
}

hcp_semantics hcp_os_semantics(const hcp_os *os) { return os->sem; }
void hcp_os_set_platform(hcp_os *os, const hcp_platform *p) { os->plat = p ? p : hcp_platform_at(0); }
const hcp_platform *hcp_os_platform(const hcp_os *os) { return os->plat; }
void hcp_os_set_max_handles(hcp_os *os, int max_handles) {
    os->max_handles = max_handles < 1 ? 1 : max_handles > HCP_MAX_HANDLES ? HCP_MAX_HANDLES : max_handles;
}
int hcp_os_max_handles(const hcp_os *os) { return os->max_handles; }
uint32_t hcp_handle_error(const hcp_os *os) {
    return os->handles_full ? ERROR_NO_SYSTEM_RESOURCES : ERROR_NOT_ENOUGH_MEMORY;
}

os_thread *hcp_os_thread(hcp_os *os, sim_thread *t) {
    int i = sim_thread_index(t);
    if (i >= os->nthreads) {
        int nc = os->nthreads ? os->nthreads : 16;
        while (nc <= i) nc *= 2;
        os_thread *n = realloc(os->threads, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        memset(n + os->nthreads, 0, (size_t)(nc - os->nthreads) * sizeof *n);
        os->threads = n;
        os->nthreads = nc;
    }
    return &os->threads[i];
}

sim_thread *hcp_current(hcp_os *os) { return sim_sched_current(os->m); }

uint32_t hcp_not_implemented(hcp_os *os) {
    hcp_SetLastError(os, ERROR_CALL_NOT_IMPLEMENTED);
    return ERROR_CALL_NOT_IMPLEMENTED;
}

unsigned hcp_ptr_size(const hcp_os *os) { return hcp_platform_ptr_size(os->plat); }

uint64_t hcp_handle_arg(const hcp_os *os, uint64_t h) {
    return hcp_ptr_size(os) == 4 ? (uint64_t)(int64_t)(int32_t)(uint32_t)h : h;
}

/* A function that enters the kernel: its fixed cost (api_call_cycles of the
 * cost table) is kernel work of the calling thread.  Functions served in user
 * mode (GetCurrentThread, GetLastError, ReadThreadProfilingData's reader) do
 * not call this. */
void hcp_kernel_entry(hcp_os *os) {
    if (os->entered) return; /* a program's import that calls this function charged its entry already */
    sim_thread *t = hcp_current(os);
    if (t) sim_kernel_work(t, sim_machine_config(os->m)->cost.api_call_cycles);
}

static uint64_t encode(int slot, uint8_t gen) { return ((uint64_t)gen << 24) | ((uint64_t)(slot + 1) << 2); }

uint64_t hcp_thread_handle(hcp_os *os, sim_thread *t, uint32_t access) {
    return hcp_handle_new(os, OBJ_THREAD, t, NULL, access);
}

uint64_t hcp_handle_new(hcp_os *os, obj_type type, sim_thread *t, sim_object *o, uint32_t access) {
    if (os->open_handles >= os->max_handles) {
        os->handles_full = true;
        return 0;
    }
    int slot = os->free_head;
    if (slot >= 0) {
        os->free_head = os->handles[slot].next_free;
    } else {
        if (os->nhandles == os->caphandles) {
            int nc = os->caphandles ? os->caphandles * 2 : 64;
            handle_slot *n = realloc(os->handles, (size_t)nc * sizeof *n);
            if (!n) {
                os->handles_full = false;
                return 0;
            }
            os->handles = n;
            os->caphandles = nc;
        }
        slot = os->nhandles++;
        os->handles[slot] = (handle_slot){OBJ_NONE, 1, 0, 0, NULL, NULL, -1, NULL};
    }
    handle_slot *h = &os->handles[slot];
    h->type = type;
    h->flags = 0;
    h->access = access;
    h->thread = t;
    h->object = o;
    h->next_free = -1;
    os->open_handles++;
    return encode(slot, h->gen);
}

static handle_slot *lookup(hcp_os *os, uint64_t v) {
    if (v >> 32) return NULL;
    int slot = (int)((v >> 2) & HCP_MAX_HANDLES) - 1;
    uint8_t gen = (uint8_t)(v >> 24);
    if (slot < 0 || slot >= os->nhandles) return NULL;
    handle_slot *h = &os->handles[slot];
    return h->type != OBJ_NONE && h->gen == gen ? h : NULL;
}

handle_slot *hcp_handle_slot(hcp_os *os, uint64_t v) { return lookup(os, hcp_handle_arg(os, v)); }

sim_object *hcp_process_object(hcp_os *os) {
    if (!os->proc_obj) os->proc_obj = sim_event_new(os->m, true, false);
    return os->proc_obj;
}

uint32_t hcp_ref_thread(hcp_os *os, uint64_t v, uint32_t access, sim_thread **out) {
    *out = NULL;
    v = hcp_handle_arg(os, v);
    if (v == HCP_CURRENT_THREAD) {
        *out = hcp_current(os);
        return *out ? STATUS_SUCCESS : STATUS_INVALID_HANDLE;
    }
    if (v == HCP_CURRENT_PROCESS) return STATUS_OBJECT_TYPE_MISMATCH;
    handle_slot *h = lookup(os, v);
    if (!h) return STATUS_INVALID_HANDLE;
    if (h->type != OBJ_THREAD) return STATUS_OBJECT_TYPE_MISMATCH;
    if ((h->access & access) != access) return STATUS_ACCESS_DENIED;
    *out = h->thread;
    return STATUS_SUCCESS;
}

uint32_t hcp_ref_object(hcp_os *os, uint64_t v, obj_type want, uint32_t access, obj_type *type, sim_object **out) {
    *out = NULL;
    *type = OBJ_NONE;
    v = hcp_handle_arg(os, v);
    if (v == HCP_CURRENT_THREAD) {
        sim_thread *t = hcp_current(os);
        if (!t) return STATUS_INVALID_HANDLE;
        if (want != OBJ_NONE && want != OBJ_THREAD) return STATUS_OBJECT_TYPE_MISMATCH;
        *type = OBJ_THREAD;
        *out = sim_thread_object(t);
        return *out ? STATUS_SUCCESS : STATUS_NO_MEMORY;
    }
    if (v == HCP_CURRENT_PROCESS) { /* the process: waitable, signalled when it ends */
        if (want != OBJ_NONE && want != OBJ_PROCESS) return STATUS_OBJECT_TYPE_MISMATCH;
        *type = OBJ_PROCESS;
        *out = hcp_process_object(os);
        return *out ? STATUS_SUCCESS : STATUS_NO_MEMORY;
    }
    handle_slot *h = lookup(os, v);
    if (!h) return STATUS_INVALID_HANDLE;
    if (want != OBJ_NONE && h->type != want) return STATUS_OBJECT_TYPE_MISMATCH; /* type before access */
    if ((h->access & access) != access) return STATUS_ACCESS_DENIED;
    *type = h->type;
    *out = h->type == OBJ_THREAD ? sim_thread_object(h->thread) : h->object;
    return *out ? STATUS_SUCCESS : STATUS_NO_MEMORY;
}

uint64_t hcp_GetCurrentThread(hcp_os *os) {
    (void)os;
    return HCP_CURRENT_THREAD;
}

uint32_t hcp_GetCurrentThreadId(hcp_os *os) {
    sim_thread *t = hcp_current(os);
    return t ? sim_thread_id(t) : 0;
}

uint32_t hcp_GetLastError(hcp_os *os) {
    sim_thread *t = hcp_current(os);
    os_thread *ot = t ? hcp_os_thread(os, t) : NULL;
    return ot ? ot->last_error : 0;
}

void hcp_SetLastError(hcp_os *os, uint32_t v) {
    sim_thread *t = hcp_current(os);
    os_thread *ot = t ? hcp_os_thread(os, t) : NULL;
    if (ot) ot->last_error = v;
}

uint64_t hcp_OpenThread(hcp_os *os, uint32_t dwDesiredAccess, int bInheritHandle, uint32_t dwThreadId) {
    hcp_kernel_entry(os);
    sim_thread *t = sim_thread_by_id(os->m, dwThreadId);
    if (!t) {
        hcp_SetLastError(os, ERROR_INVALID_PARAMETER);
        return 0;
    }
    /* generic rights map to the thread's specific rights; MAXIMUM_ALLOWED grants all */
    uint32_t access = hcp_map_access(OBJ_THREAD, dwDesiredAccess) & THREAD_ALL_ACCESS;
    uint64_t h = hcp_thread_handle(os, t, access);
    if (!h) hcp_SetLastError(os, hcp_handle_error(os));
    handle_slot *s = h && bInheritHandle ? lookup(os, h) : NULL;
    if (s) s->flags |= HANDLE_FLAG_INHERIT;
    return h;
}

int hcp_CloseHandle(hcp_os *os, uint64_t hObject) {
    hcp_kernel_entry(os);
    hObject = hcp_handle_arg(os, hObject);
    if (hObject == HCP_CURRENT_THREAD || hObject == HCP_CURRENT_PROCESS) return 1;
    handle_slot *h = lookup(os, hObject);
    if (!h || (h->flags & HANDLE_FLAG_PROTECT_FROM_CLOSE)) { /* a protected one: STATUS_HANDLE_NOT_CLOSABLE */
        hcp_SetLastError(os, ERROR_INVALID_HANDLE);
        return 0;
    }
    void *file = h->type == OBJ_FILE ? h->ext : NULL;
    obj_type type = h->type;
    sim_object *o = h->object;
    h->type = OBJ_NONE;
    h->thread = NULL;
    h->object = NULL;
    h->ext = NULL;
    h->gen = (uint8_t)(h->gen == 255 ? 1 : h->gen + 1);
    h->next_free = os->free_head;
    os->free_head = (int)(h - os->handles);
    os->open_handles--;
    if (file) hcp_file_closed(os, file);
    if (o) hcp_handle_closed(os, type, o);
    return 1;
}

uint32_t hcp_handle_info(hcp_os *os, uint64_t v, obj_type *type, sim_thread **t, sim_object **o, uint32_t *access) {
    *type = OBJ_NONE;
    *t = NULL;
    *o = NULL;
    *access = 0;
    v = hcp_handle_arg(os, v);
    if (v == HCP_CURRENT_THREAD) {
        *t = hcp_current(os);
        if (!*t) return STATUS_INVALID_HANDLE;
        *type = OBJ_THREAD;
        *access = THREAD_ALL_ACCESS;
        return STATUS_SUCCESS;
    }
    if (v == HCP_CURRENT_PROCESS) {
        *o = hcp_process_object(os);
        if (!*o) return STATUS_NO_MEMORY;
        *type = OBJ_PROCESS;
        *access = PROCESS_ALL_ACCESS;
        return STATUS_SUCCESS;
    }
    handle_slot *h = lookup(os, v);
    if (!h) return STATUS_INVALID_HANDLE;
    *type = h->type;
    *t = h->thread;
    *o = h->object;
    *access = h->access;
    return STATUS_SUCCESS;
}

uint64_t hcp_handle_new_ext(hcp_os *os, obj_type type, void *ext, uint32_t access) {
    uint64_t v = hcp_handle_new(os, type, NULL, NULL, access);
    if (v) lookup(os, v)->ext = ext;
    return v;
}

void *hcp_handle_ext(hcp_os *os, uint64_t v, obj_type type, uint32_t *access) {
    handle_slot *h = lookup(os, hcp_handle_arg(os, v));
    if (!h || h->type != type) return NULL;
    if (access) *access = h->access;
    return h->ext;
}
