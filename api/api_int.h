/* api/api_int.h — private state of the simulated OS (api/ only). */
#ifndef HCPSIM_API_INT_H
#define HCPSIM_API_INT_H

#include <stdbool.h>

#include "api/hcp_api.h"
#include "api/platform.h"

/* Layout checks against HCP-SPEC §3.3 (edge cases 1 and 2). */
#include <stddef.h>
_Static_assert(sizeof(PERFORMANCE_DATA) == 288, "PERFORMANCE_DATA size");
_Static_assert(offsetof(PERFORMANCE_DATA, Size) == 0x00, "Size");
_Static_assert(offsetof(PERFORMANCE_DATA, Version) == 0x02, "Version");
_Static_assert(offsetof(PERFORMANCE_DATA, HwCountersCount) == 0x03, "HwCountersCount");
_Static_assert(offsetof(PERFORMANCE_DATA, ContextSwitchCount) == 0x04, "ContextSwitchCount");
_Static_assert(offsetof(PERFORMANCE_DATA, WaitReasonBitMap) == 0x08, "WaitReasonBitMap");
_Static_assert(offsetof(PERFORMANCE_DATA, CycleTime) == 0x10, "CycleTime");
_Static_assert(offsetof(PERFORMANCE_DATA, RetryCount) == 0x18, "RetryCount");
_Static_assert(offsetof(PERFORMANCE_DATA, Reserved) == 0x1C, "Reserved");
_Static_assert(offsetof(PERFORMANCE_DATA, HwCounters) == 0x20, "HwCounters");
_Static_assert(offsetof(PERFORMANCE_DATA, HwCounters[15]) == 0x110, "HwCounters[15]");
_Static_assert(sizeof(HARDWARE_COUNTER_DATA) == 16, "HARDWARE_COUNTER_DATA size");
_Static_assert(offsetof(HARDWARE_COUNTER_DATA, Reserved) == 4, "HCD.Reserved");
_Static_assert(offsetof(HARDWARE_COUNTER_DATA, Value) == 8, "HCD.Value");
_Static_assert(sizeof(HARDWARE_COUNTER) == 16, "HARDWARE_COUNTER size");
_Static_assert(offsetof(HARDWARE_COUNTER, Index) == 8, "HC.Index");
_Static_assert(sizeof(FILETIME) == 8 && _Alignof(FILETIME) == 4, "FILETIME: 8 bytes, alignment 4 (HCP-SPEC §8.3)");
_Static_assert(offsetof(FILETIME, dwHighDateTime) == 4, "FILETIME.dwHighDateTime");
/* EVENT_TRACE_HEADER, HCP-SPEC §7.4 (edge case 53). */
_Static_assert(sizeof(EVENT_TRACE_HEADER) == HCP_ETW_HEADER_SIZE, "EVENT_TRACE_HEADER size");
_Static_assert(offsetof(EVENT_TRACE_HEADER, Type) == 4, "Class.Type");
_Static_assert(offsetof(EVENT_TRACE_HEADER, Version) == 6, "Class.Version");
_Static_assert(offsetof(EVENT_TRACE_HEADER, ThreadId) == 8, "ThreadId");
_Static_assert(offsetof(EVENT_TRACE_HEADER, ProcessId) == 12, "ProcessId");
_Static_assert(offsetof(EVENT_TRACE_HEADER, TimeStamp) == 16, "TimeStamp");
_Static_assert(offsetof(EVENT_TRACE_HEADER, Guid) == 24, "Guid");
_Static_assert(offsetof(EVENT_TRACE_HEADER, KernelTime) == 40, "KernelTime");

#define PD_OFF(f) offsetof(PERFORMANCE_DATA, f)

/* What a semantics decides (HCP-SPEC §11), one row per hcp_semantics; the
 * table is in profiling.c, next to its main user. */
typedef struct hcp_sem_rules {
    bool times_always;      /* §11.3 Read: every Read writes CycleTime, RetryCount and WaitReasonBitMap = 0;
                               else CycleTime and RetryCount only with DISPATCHING */
    bool unconfigured_zero; /* §11.4 Read: a mask bit with no configured counter writes {PMCCounter, 0, 0};
                               else its slot is left untouched */
    bool count_configured;  /* §11.5 Read: HwCountersCount = configured counters (0 when the mask is 0);
                               else the elements holding counter data */
    bool keset_any_blocks;  /* §11.6 KeSet: any non-empty configuration blocks a new non-empty one (before
                               the array is read); else only a request naming an index already configured */
} hcp_sem_rules;
extern const hcp_sem_rules HCP_SEM_RULES[2];

typedef enum obj_type { OBJ_NONE = 0, OBJ_THREAD, OBJ_EVENT, OBJ_MUTEX, OBJ_SEMAPHORE, OBJ_FILE } obj_type;

typedef struct handle_slot {
    obj_type type;
    uint8_t gen; /* 1..255, bumped when the slot is freed */
    uint32_t access;
    sim_thread *thread; /* OBJ_THREAD */
    sim_object *object; /* OBJ_EVENT, OBJ_MUTEX, OBJ_SEMAPHORE */
    int next_free;      /* OBJ_NONE: the next slot of the free list, or -1 */
    void *ext;          /* OBJ_FILE: the open file (api/fs.c), released by hcp_file_closed */
} handle_slot;

/* The kernel's per-thread profiling record (KTHREAD_COUNTERS, HCP-SPEC §3.3). */
typedef struct prof_record {
    bool enabled;
    uint64_t block; /* guest address of the user block = PerformanceDataHandle */
    uint32_t flags;
    uint64_t mask;
    uint32_t ctxsw;     /* switch-ins since enable (with THREAD_PROFILING_FLAG_DISPATCH) */
    uint64_t wr_bitmap; /* wait reasons of switch-ins since the last read */
    pmu_bank start;     /* the thread's bank at enable: CycleTime bias and PMC starts */
    uint32_t inject;    /* concurrent kernel updates the next read meets (hcp_inject_kernel_updates) */
} prof_record;

struct hcp_ctx;
typedef struct os_thread {
    uint32_t last_error;
    /* a call of an export that blocked (dispatch.c): what it returns when the thread runs again (NULL: the
     * wait's result) */
    uint64_t (*resume)(struct hcp_ctx *c);
    prof_record prof;
} os_thread;

/* The NT Kernel Logger session of a machine (api/etw.c): at most one. */
typedef struct hcp_etw {
    bool active;
    bool in_sink; /* a sink call is in progress */
    uint32_t flags;
    int observer;
    hcp_etw_sink sink;
    void *ud;
    const sim_thread *exiting; /* its End was logged at its last CSwitch; its exit is not finished */
    int version;               /* the Thread class version its Start/End/DCStart/DCEnd events have */
    /* payload layouts, by slot: Thread types 1-4, CSwitch, ReadyThread (hcp_etw_layout) */
    hcp_etw_field layout[6][16];
    int nfields[6];
    const char *names[6];
} hcp_etw;

struct hcp_os {
    sim_machine *m;
    hcp_semantics sem;
    const hcp_platform *plat; /* platform profile (api/platform.c) */
    int observer;
    handle_slot *handles;
    int nhandles, caphandles; /* slots made (in use or free), slots allocated */
    int free_head;            /* the most recently freed slot, -1 when none: reused first */
    int open_handles;         /* slots in use */
    int max_handles;          /* the machine option max_handles */
    bool handles_full;        /* the last failed hcp_handle_new hit max_handles (not host memory) */
    os_thread *threads;       /* by sim thread index */
    int nthreads;
    /* global hardware-counter configuration (KiHwCountersCount / indices) */
    uint32_t cfg_count;
    uint32_t cfg_index[MAX_HW_COUNTERS];
    hcp_etw etw;     /* the NT Kernel Logger session (api/etw.c) */
    int etw_version; /* Thread class version for sessions (hcp_etw_set_thread_version); -1: the profile's */
    hcp_call_fn call_fn[HCP_MAX_CALL_OBSERVERS]; /* observers of guest calls (hcp_add_call_observer, dispatch.c) */
    void *call_ud[HCP_MAX_CALL_OBSERVERS];
    struct hcp_process *proc; /* the process of a loaded image (api/pe.c), or NULL */
    hcp_warn_fn warn_fn;      /* hcp_set_warning_handler, or NULL */
    void *warn_ud;
    unsigned warned; /* the kinds of warning given (profiling.c), once each */
    bool entered;    /* inside an export's call (dispatch.c): its one kernel entry is already charged */
};

/* A new handle for a thread or a dispatcher object; 0 when the table is full
 * (max_handles open) or host memory ran out: hcp_handle_error says which. */
uint64_t hcp_handle_new(hcp_os *os, obj_type type, sim_thread *t, sim_object *o, uint32_t access);

/* A handle of type `type` (OBJ_FILE) for an object api/ keeps itself (ext), and the object of
 * such a handle (NULL: not a handle of that type). */
uint64_t hcp_handle_new_ext(hcp_os *os, obj_type type, void *ext, uint32_t access);
void *hcp_handle_ext(hcp_os *os, uint64_t v, obj_type type, uint32_t *access);

/* Resolves a waitable handle (thread, event, mutex, semaphore) of type `want`
 * (OBJ_NONE: any) for `access`; the type is checked before the access, as
 * ObReferenceObjectByHandle does. */
uint32_t hcp_ref_object(hcp_os *os, uint64_t h, obj_type want, uint32_t access, obj_type *type, sim_object **out);

/* Per-thread OS state, grown on demand; NULL on host memory exhaustion. */
os_thread *hcp_os_thread(hcp_os *os, sim_thread *t);
/* What handle v refers to (-2: the calling thread, all access): DuplicateHandle. */
uint32_t hcp_handle_info(hcp_os *os, uint64_t v, obj_type *type, sim_thread **t, sim_object **o, uint32_t *access);
sim_thread *hcp_current(hcp_os *os);
void hcp_kernel_entry(hcp_os *os); /* charges a kernel entry to the calling thread */
/* A function the platform does not have: SetLastError(ERROR_CALL_NOT_IMPLEMENTED)
 * and that code, as a Win32 stub does (api/README.md "Platforms"). */
uint32_t hcp_not_implemented(hcp_os *os);
/* Bytes of a pointer or HANDLE in guest memory: 4 or 8 (the platform's). */
unsigned hcp_ptr_size(const hcp_os *os);
/* A HANDLE argument as the platform sees it: on a 32-bit platform only its low
 * 32 bits, sign-extended, so (HANDLE)-2 is 0xFFFFFFFE from guest code and -2 from Lua. */
uint64_t hcp_handle_arg(const hcp_os *os, uint64_t h);
/* Kernel-side thread exit: releases the profiling record (the user block leaks, HCP-SPEC §2.2). */
void hcp_prof_thread_exit(hcp_os *os, sim_thread *t);
void hcp_prof_switch_in(hcp_os *os, sim_thread *t, int reason);
void hcp_process_free(struct hcp_process *p); /* api/pe.c */
/* A handle of an open file was closed: its reference goes (api/k32_file.c). */
void hcp_file_closed(hcp_os *os, void *file);

#endif
