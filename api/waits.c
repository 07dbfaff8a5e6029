/* api/waits.c — events, mutexes, semaphores and the wait functions
 * (WaitForSingleObject, WaitForMultipleObjects, Sleep, SwitchToThread) on
 * top of sim/'s dispatcher objects.  Error codes are Windows': a bad handle
 * is ERROR_INVALID_HANDLE, a handle without SYNCHRONIZE is ERROR_ACCESS_DENIED,
 * a failed wait returns WAIT_FAILED with the reason in GetLastError. */
#include "api/api_int.h"

static uint32_t fail(hcp_os *os, uint32_t status) {
    hcp_SetLastError(os, hcp_nt_to_win32(status));
    return 0;
}

static uint64_t new_object(hcp_os *os, obj_type type, sim_object *o, uint32_t access) {
    if (!o) {
        os->handles_full = false; /* hcp_handle_error: host memory */
        hcp_SetLastError(os, ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    uint64_t h = hcp_handle_new(os, type, NULL, o, access);
    if (!h) hcp_SetLastError(os, hcp_handle_error(os));
    return h;
}

uint64_t hcp_create_event(hcp_os *os, int bManualReset, int bInitialState) {
    return new_object(os, OBJ_EVENT, sim_event_new(os->m, bManualReset, bInitialState), EVENT_ALL_ACCESS);
}

uint64_t hcp_create_mutex(hcp_os *os, int bInitialOwner) {
    return new_object(os, OBJ_MUTEX, sim_mutex_new(os->m, bInitialOwner && hcp_current(os)), MUTEX_ALL_ACCESS);
}

uint64_t hcp_create_semaphore(hcp_os *os, int32_t lInitialCount, int32_t lMaximumCount) {
    if (lMaximumCount <= 0 || lInitialCount < 0 || lInitialCount > lMaximumCount) {
        hcp_SetLastError(os, ERROR_INVALID_PARAMETER);
        return 0;
    }
    return new_object(os, OBJ_SEMAPHORE, sim_semaphore_new(os->m, lInitialCount, lMaximumCount), SEMAPHORE_ALL_ACCESS);
}

/* Resolves a handle of one object type. */
static uint32_t ref_typed(hcp_os *os, uint64_t h, obj_type want, uint32_t access, sim_object **o) {
    obj_type type;
    return hcp_ref_object(os, h, want, access, &type, o);
}

/* After a call that may have readied threads: the caller may lose its CPU. */
static void maybe_preempted(hcp_os *os) {
    sim_thread *t = hcp_current(os);
    if (t) sim_sched_preempt_pending(t);
}

int hcp_SetEvent(hcp_os *os, uint64_t hEvent) {
    hcp_kernel_entry(os);
    sim_object *o;
    uint32_t st = ref_typed(os, hEvent, OBJ_EVENT, EVENT_MODIFY_STATE, &o);
    if (st != STATUS_SUCCESS) return (int)fail(os, st);
    sim_event_set(o);
    maybe_preempted(os);
    return 1;
}

int hcp_ResetEvent(hcp_os *os, uint64_t hEvent) {
    hcp_kernel_entry(os);
    sim_object *o;
    uint32_t st = ref_typed(os, hEvent, OBJ_EVENT, EVENT_MODIFY_STATE, &o);
    if (st != STATUS_SUCCESS) return (int)fail(os, st);
    sim_event_reset(o);
    return 1;
}

int hcp_ReleaseMutex(hcp_os *os, uint64_t hMutex) {
    hcp_kernel_entry(os);
    sim_object *o;
    uint32_t st = ref_typed(os, hMutex, OBJ_MUTEX, 0, &o);
    if (st != STATUS_SUCCESS) return (int)fail(os, st);
    sim_thread *t = hcp_current(os);
    if (!t || sim_mutex_release(t, o) != 0) {
        hcp_SetLastError(os, ERROR_NOT_OWNER);
        return 0;
    }
    maybe_preempted(os);
    return 1;
}

int hcp_ReleaseSemaphore(hcp_os *os, uint64_t hSemaphore, int32_t lReleaseCount, uint64_t lpPreviousCount) {
    hcp_kernel_entry(os);
    sim_object *o;
    uint32_t st = ref_typed(os, hSemaphore, OBJ_SEMAPHORE, SEMAPHORE_MODIFY_STATE, &o);
    if (st != STATUS_SUCCESS) return (int)fail(os, st);
    if (lReleaseCount <= 0) return (int)fail(os, STATUS_INVALID_PARAMETER);
    if (lpPreviousCount && sim_mem_probe(os->m, lpPreviousCount, 4, true) != SIM_OK)
        return (int)fail(os, STATUS_ACCESS_VIOLATION);
    int32_t prev;
    if (sim_semaphore_release(o, lReleaseCount, &prev) != 0) {
        hcp_SetLastError(os, ERROR_TOO_MANY_POSTS);
        return 0;
    }
    if (lpPreviousCount) {
        uint8_t b[4];
        hcp_put32(b, (uint32_t)prev);
        sim_mem_write(os->m, lpPreviousCount, b, 4);
    }
    maybe_preempted(os);
    return 1;
}

static uint64_t timeout_cycles(hcp_os *os, uint32_t ms) {
    return ms == INFINITE ? SIM_INFINITE : sim_ms_to_cycles(os->m, ms);
}

static uint32_t wait_on(hcp_os *os, sim_object *const *objs, uint32_t n, int all, uint32_t ms) {
    sim_thread *t = hcp_current(os);
    if (!t) {
        fail(os, STATUS_INVALID_HANDLE);
        return WAIT_FAILED;
    }
    if (sim_wait(t, objs, (int)n, all != 0, timeout_cycles(os, ms), SIM_WR_USER_REQUEST) == SIM_WAIT_BLOCKED)
        return HCP_PENDING;
    return sim_wait_status(t);
}

uint32_t hcp_WaitForSingleObject(hcp_os *os, uint64_t hHandle, uint32_t dwMilliseconds) {
    hcp_kernel_entry(os);
    obj_type type;
    sim_object *o;
    uint32_t st = hcp_ref_object(os, hHandle, OBJ_NONE, SYNCHRONIZE, &type, &o);
    if (st != STATUS_SUCCESS) {
        fail(os, st);
        return WAIT_FAILED;
    }
    return wait_on(os, &o, 1, 0, dwMilliseconds);
}

uint32_t hcp_WaitForMultipleObjects(hcp_os *os, uint32_t nCount, uint64_t lpHandles, int bWaitAll,
                                    uint32_t dwMilliseconds) {
    hcp_kernel_entry(os);
    if (nCount == 0 || nCount > MAXIMUM_WAIT_OBJECTS) {
        fail(os, STATUS_INVALID_PARAMETER);
        return WAIT_FAILED;
    }
    unsigned hs = hcp_ptr_size(os); /* HANDLE: 4 or 8 bytes */
    uint8_t raw[8 * MAXIMUM_WAIT_OBJECTS];
    if (sim_mem_read(os->m, lpHandles, raw, hs * nCount) != SIM_OK) {
        fail(os, STATUS_ACCESS_VIOLATION);
        return WAIT_FAILED;
    }
    sim_object *objs[MAXIMUM_WAIT_OBJECTS];
    for (uint32_t i = 0; i < nCount; i++) {
        obj_type type;
        uint32_t st = hcp_ref_object(os, hs == 4 ? hcp_get32(raw + 4 * i) : hcp_get64(raw + 8 * i), OBJ_NONE,
                                     SYNCHRONIZE, &type, &objs[i]);
        if (st != STATUS_SUCCESS) {
            fail(os, st);
            return WAIT_FAILED;
        }
        if (bWaitAll)
            for (uint32_t j = 0; j < i; j++)
                if (objs[j] == objs[i]) { /* the same object twice in a wait-all (STATUS_INVALID_PARAMETER_MIX) */
                    fail(os, STATUS_INVALID_PARAMETER);
                    return WAIT_FAILED;
                }
    }
    return wait_on(os, objs, nCount, bWaitAll, dwMilliseconds);
}

uint32_t hcp_Sleep(hcp_os *os, uint32_t dwMilliseconds) {
    hcp_kernel_entry(os);
    sim_thread *t = hcp_current(os);
    if (!t) return 0;
    if (dwMilliseconds == 0) return sim_yield(t, false) ? HCP_PENDING : 0;
    return sim_wait(t, NULL, 0, false, timeout_cycles(os, dwMilliseconds), SIM_WR_DELAY_EXECUTION) == SIM_WAIT_BLOCKED
               ? HCP_PENDING
               : 0;
}

int hcp_SwitchToThread(hcp_os *os) {
    hcp_kernel_entry(os);
    sim_thread *t = hcp_current(os);
    return t && sim_yield(t, true);
}

uint32_t hcp_wait_result(hcp_os *os) {
    sim_thread *t = hcp_current(os);
    return t ? sim_wait_status(t) : WAIT_FAILED;
}

int hcp_GetExitCodeThread(hcp_os *os, uint64_t hThread, uint64_t lpExitCode) {
    sim_thread *t;
    /* THREAD_QUERY_INFORMATION implies THREAD_QUERY_LIMITED_INFORMATION (as GetThreadTimes: times.c) */
    uint32_t st = hcp_ref_thread(os, hThread, THREAD_QUERY_LIMITED_INFORMATION, &t);
    if (st == STATUS_ACCESS_DENIED) st = hcp_ref_thread(os, hThread, THREAD_QUERY_INFORMATION, &t);
    if (st != STATUS_SUCCESS) return (int)fail(os, st);
    uint8_t b[4];
    hcp_put32(b, sim_thread_exit_code(t));
    if (sim_mem_write(os->m, lpExitCode, b, 4) != SIM_OK) return (int)fail(os, STATUS_ACCESS_VIOLATION);
    return 1;
}
