/* api — the Windows surface of hcpsim.
 *
 * One implementation of each Windows function, spelled as Windows spells it,
 * for guest code and Lua bodies alike.  Pointers are guest addresses
 * (uint64_t) and every structure is read from and written to guest memory
 * byte-exact, so a caller sees exactly which bytes a call wrote.  The calling
 * thread is the running thread of the machine (sim_sched_current).
 *
 * Errors: internal results are NTSTATUS; the Win32 functions translate them
 * with hcp_nt_to_win32() (the RtlNtStatusToDosErrorNoTeb table, HCP-SPEC §5),
 * the one translation table at the Windows boundary.
 * Includes sim/ and pmu_model/; no Lua. */
#ifndef HCPSIM_HCP_API_H
#define HCPSIM_HCP_API_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"

/* ---- constants (HCP-SPEC §3.1, §5, §6) ---------------------------------------------- */
#define MAX_HW_COUNTERS 16
#define THREAD_PROFILING_FLAG_DISPATCH 0x1u
#define PERFORMANCE_DATA_VERSION 1
#define READ_THREAD_PROFILING_FLAG_DISPATCHING 0x00000001u
#define READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS 0x00000002u
#define PMCCounter 0
#define MaxHardwareCounterType 1
#define HCP_PERFORMANCE_DATA_SIZE 288u
#define HCP_USER_BLOCK_SIZE 448u /* internal THREAD_PERFORMANCE_DATA; its address is the handle */

#define THREAD_TERMINATE 0x0001u
#define THREAD_SUSPEND_RESUME 0x0002u
#define THREAD_GET_CONTEXT 0x0008u
#define THREAD_SET_CONTEXT 0x0010u
#define THREAD_SET_INFORMATION 0x0020u
#define THREAD_QUERY_INFORMATION 0x0040u
#define THREAD_SET_THREAD_TOKEN 0x0080u
#define THREAD_IMPERSONATE 0x0100u
#define THREAD_DIRECT_IMPERSONATION 0x0200u
#define THREAD_SET_LIMITED_INFORMATION 0x0400u
#define THREAD_QUERY_LIMITED_INFORMATION 0x0800u
#define THREAD_ALL_ACCESS 0x001FFFFFu
#define MAXIMUM_ALLOWED 0x02000000u

#define SYNCHRONIZE 0x00100000u
#define EVENT_MODIFY_STATE 0x0002u
#define EVENT_ALL_ACCESS 0x001F0003u
#define MUTEX_ALL_ACCESS 0x001F0001u
#define SEMAPHORE_MODIFY_STATE 0x0002u
#define SEMAPHORE_ALL_ACCESS 0x001F0003u
#define INFINITE 0xFFFFFFFFu
#define WAIT_OBJECT_0 0x00000000u
#define WAIT_ABANDONED_0 0x00000080u
#define WAIT_TIMEOUT 0x00000102u
#define WAIT_FAILED 0xFFFFFFFFu
#define MAXIMUM_WAIT_OBJECTS 64
#define STILL_ACTIVE 259u

#define HCP_CURRENT_PROCESS UINT64_C(0xFFFFFFFFFFFFFFFF) /* (HANDLE)-1 */
#define HCP_CURRENT_THREAD UINT64_C(0xFFFFFFFFFFFFFFFE)  /* (HANDLE)-2 */

/* NTSTATUS */
#define STATUS_SUCCESS 0x00000000u
#define STATUS_DATATYPE_MISALIGNMENT 0x80000002u
#define STATUS_NOT_IMPLEMENTED 0xC0000002u
#define STATUS_INFO_LENGTH_MISMATCH 0xC0000004u
#define STATUS_ACCESS_VIOLATION 0xC0000005u
#define STATUS_INVALID_HANDLE 0xC0000008u
#define STATUS_INVALID_PARAMETER 0xC000000Du
#define STATUS_NO_MEMORY 0xC0000017u
#define STATUS_ACCESS_DENIED 0xC0000022u
#define STATUS_BUFFER_TOO_SMALL 0xC0000023u
#define STATUS_OBJECT_TYPE_MISMATCH 0xC0000024u
#define STATUS_NOT_SUPPORTED 0xC00000BBu
#define STATUS_INVALID_USER_BUFFER 0xC00000E8u
#define STATUS_INVALID_PARAMETER_1 0xC00000EFu
#define STATUS_INVALID_PARAMETER_2 0xC00000F0u
#define STATUS_INVALID_PARAMETER_3 0xC00000F1u
#define STATUS_INVALID_BUFFER_SIZE 0xC0000206u
#define STATUS_WMI_ALREADY_DISABLED 0xC0000302u
#define STATUS_WMI_ALREADY_ENABLED 0xC0000303u
#define STATUS_ILLEGAL_INSTRUCTION 0xC000001Du
#define STATUS_PRIVILEGED_INSTRUCTION 0xC0000096u
#define STATUS_STACK_OVERFLOW 0xC00000FDu
#define STATUS_INTEGER_DIVIDE_BY_ZERO 0xC0000094u
#define STATUS_BREAKPOINT 0x80000003u
#define STATUS_SINGLE_STEP 0x80000004u
#define STATUS_INTEGER_OVERFLOW 0xC0000095u
#define STATUS_ARRAY_BOUNDS_EXCEEDED 0xC000008Cu
#define STATUS_STACK_BUFFER_OVERRUN 0xC0000409u
#define STATUS_ASSERTION_FAILURE 0xC0000420u
#define STATUS_INVALID_SYSTEM_SERVICE 0xC000001Cu
/* the loader (api/README.md "DLLs") */
#define STATUS_INVALID_IMAGE_FORMAT 0xC000007Bu
#define STATUS_DLL_NOT_FOUND 0xC0000135u
#define STATUS_ORDINAL_NOT_FOUND 0xC0000138u
#define STATUS_ENTRYPOINT_NOT_FOUND 0xC0000139u
#define STATUS_DLL_INIT_FAILED 0xC0000142u
/* the file system (api/fs.c's families; RtlNtStatusToDosError, KB 113996) */
#define STATUS_END_OF_FILE 0xC0000011u
#define STATUS_OBJECT_PATH_NOT_FOUND 0xC000003Au
#define STATUS_SHARING_VIOLATION 0xC0000043u
#define STATUS_DIRECTORY_NOT_EMPTY 0xC0000101u
#define STATUS_NOT_A_DIRECTORY 0xC0000103u
#define STATUS_NO_MORE_FILES 0x80000006u

/* Win32 error codes */
#define ERROR_SUCCESS 0u
#define ERROR_INVALID_FUNCTION 1u
#define ERROR_FILE_NOT_FOUND 2u
#define ERROR_ACCESS_DENIED 5u
#define ERROR_INVALID_HANDLE 6u
#define ERROR_NOT_ENOUGH_MEMORY 8u
#define ERROR_BAD_LENGTH 24u
#define ERROR_NOT_SUPPORTED 50u
#define ERROR_INVALID_PARAMETER 87u
#define ERROR_CALL_NOT_IMPLEMENTED 120u
#define ERROR_INSUFFICIENT_BUFFER 122u
#define ERROR_MOD_NOT_FOUND 126u
#define ERROR_PROC_NOT_FOUND 127u
#define ERROR_INVALID_ORDINAL 182u
#define ERROR_BAD_EXE_FORMAT 193u
#define ERROR_DLL_INIT_FAILED 1114u
#define ERROR_NOT_OWNER 288u
#define ERROR_ARITHMETIC_OVERFLOW 534u
#define ERROR_TOO_MANY_POSTS 298u
#define ERROR_PARTIAL_COPY 299u
#define ERROR_MR_MID_NOT_FOUND 317u
#define ERROR_INVALID_ADDRESS 487u
#define ERROR_COMMITMENT_LIMIT 1455u
#define ERROR_NOACCESS 998u
#define ERROR_STACK_OVERFLOW 1001u
#define ERROR_INVALID_USER_BUFFER 1784u
#define ERROR_WMI_ALREADY_DISABLED 4212u
#define ERROR_WMI_ALREADY_ENABLED 4206u
#define ERROR_ALREADY_EXISTS 183u /* StartTrace: the NT Kernel Logger already runs */
#define ERROR_NO_SYSTEM_RESOURCES 1450u
#define ERROR_WMI_INSTANCE_NOT_FOUND 4201u /* ControlTrace(STOP): no such session */
/* synchronisation, APCs, timers, the pool, threads (api/sync_int.h's families) */
#define STATUS_WAIT_0 0x00000000u
#define STATUS_ABANDONED_WAIT_0 0x00000080u
#define STATUS_USER_APC 0x000000C0u
#define STATUS_ALERTED 0x00000101u
#define STATUS_TIMEOUT 0x00000102u
#define STATUS_PENDING 0x00000103u
#define STATUS_NO_YIELD_PERFORMED 0x40000024u
#define STATUS_UNSUCCESSFUL 0xC0000001u
#define STATUS_INVALID_INFO_CLASS 0xC0000003u
#define STATUS_INVALID_CID 0xC000000Bu
#define STATUS_INVALID_PARAMETER_MIX 0xC0000030u
#define STATUS_OBJECT_NAME_NOT_FOUND 0xC0000034u
#define STATUS_OBJECT_NAME_COLLISION 0xC0000035u
#define STATUS_MUTANT_NOT_OWNED 0xC0000046u
#define STATUS_SEMAPHORE_LIMIT_EXCEEDED 0xC0000047u
#define STATUS_SUSPEND_COUNT_EXCEEDED 0xC000004Au
#define STATUS_THREAD_IS_TERMINATING 0xC000004Bu
#define STATUS_INVALID_PARAMETER_4 0xC00000F2u
#define STATUS_NOT_FOUND 0xC0000225u
#define STATUS_HANDLE_NOT_CLOSABLE 0xC0000235u
#define STATUS_RESOURCE_NOT_OWNED 0xC0000264u

#define WAIT_IO_COMPLETION 0x000000C0u
#define ERROR_GEN_FAILURE 31u
#define ERROR_SIGNAL_REFUSED 156u
#define ERROR_NO_MORE_ITEMS 259u
#define ERROR_IO_PENDING 997u
#define ERROR_TIMEOUT 1460u
#define ERROR_INVALID_PARAMETER_VALUE ERROR_INVALID_PARAMETER
#define ERROR_NOT_FOUND 1168u
#define STATUS_INSUFFICIENT_RESOURCES 0xC000009Au
#define ERROR_ALERTED 739u
#define ERROR_USER_APC 737u

/* ---- structures, exactly as the Windows headers lay them out (HCP-SPEC §3.2, §3.3) --- */
/* These are layout references: guest memory is always encoded field by field
 * in little-endian order at these offsets, never by copying a host struct. */
typedef struct HARDWARE_COUNTER_DATA {
    uint32_t Type; /* HARDWARE_COUNTER_TYPE: a 4-byte enum */
    uint32_t Reserved;
    uint64_t Value;
} HARDWARE_COUNTER_DATA;

typedef struct PERFORMANCE_DATA {
    uint16_t Size;
    uint8_t Version;
    uint8_t HwCountersCount;
    uint32_t ContextSwitchCount;
    uint64_t WaitReasonBitMap;
    uint64_t CycleTime;
    uint32_t RetryCount;
    uint32_t Reserved;
    HARDWARE_COUNTER_DATA HwCounters[MAX_HW_COUNTERS];
} PERFORMANCE_DATA;

typedef struct HARDWARE_COUNTER {
    uint32_t Type;
    uint32_t Reserved;
    uint64_t Index;
} HARDWARE_COUNTER;

/* 100-ns intervals since 1601-01-01 UTC; 8 bytes, alignment 4 (HCP-SPEC §8.3). */
typedef struct FILETIME {
    uint32_t dwLowDateTime;
    uint32_t dwHighDateTime;
} FILETIME;

/* ---- the simulated OS ------------------------------------------------------------------- */
typedef enum hcp_semantics {
    HCP_DOCUMENTED = 0, /* what Microsoft's documentation says (default) */
    HCP_OBSERVED = 1,   /* what the Windows 10/11 implementation does (HCP-SPEC §11) */
} hcp_semantics;

typedef struct hcp_os hcp_os;

/* Creates the OS state of a machine (handle table, profiling records, the
 * global counter configuration) and registers it as the scheduler's observer.
 * NULL on host memory exhaustion.  hcp_os_free(NULL) is a no-op. */
hcp_os *hcp_os_new(sim_machine *m, hcp_semantics s);
void hcp_os_free(hcp_os *os);
hcp_semantics hcp_os_semantics(const hcp_os *os);
/* The platform profile whose OS behaviour this OS follows (api/platform.h);
 * win10-x64 until set.  Set it before any thread exists. */
struct hcp_platform;
void hcp_os_set_platform(hcp_os *os, const struct hcp_platform *p);
const struct hcp_platform *hcp_os_platform(const hcp_os *os);

/* NTSTATUS -> Win32 error (RtlNtStatusToDosError); unknown -> ERROR_MR_MID_NOT_FOUND. */
uint32_t hcp_nt_to_win32(uint32_t status);
/* The exception code Windows reports for a guest fault of this kind
 * (sim_fault_kind: the machine's own terms). */
uint32_t hcp_fault_status(sim_fault_kind kind);
/* "STATUS_ACCESS_VIOLATION" etc.; NULL when the code has no name here. */
const char *hcp_status_name(uint32_t status);
const char *hcp_error_name(uint32_t win32);

/* ---- threads and handles ------------------------------------------------------------- */
/* The handle table holds at most max_handles open handles (the machine option
 * max_handles, 1..HCP_MAX_HANDLES, the most the handle encoding has room for). */
#define HCP_MAX_HANDLES 0x3FFFFF
#define HCP_DEFAULT_MAX_HANDLES 1048576
void hcp_os_set_max_handles(hcp_os *os, int max_handles);
/* Test hook (edge case 31; simulator-defined): the next ReadThreadProfilingData
 * of t's profiling block meets n kernel updates of the block while it reads,
 * so its seqlock loop (HCP-SPEC §2.4 step 5) runs n + 1 times and RetryCount
 * is n.  The snapshot it returns is the one after the last update: the
 * values of a read without updates.  ERROR_INVALID_PARAMETER when t is not
 * profiling (the hook is kept until the next read, or until Disable). */
uint32_t hcp_inject_kernel_updates(hcp_os *os, sim_thread *t, uint32_t n);
int hcp_os_max_handles(const hcp_os *os);
/* A new handle to thread t with `access`; 0 when the table is full or host
 * memory ran out (hcp_handle_error says which). */
uint64_t hcp_thread_handle(hcp_os *os, sim_thread *t, uint32_t access);
/* The Win32 error of the last failed handle creation: ERROR_NO_SYSTEM_RESOURCES
 * when max_handles handles were open (STATUS_INSUFFICIENT_RESOURCES, what the
 * object manager returns when ExCreateHandle fails), ERROR_NOT_ENOUGH_MEMORY
 * when host memory ran out. */
uint32_t hcp_handle_error(const hcp_os *os);
/* Resolves a thread handle for `access`: STATUS_SUCCESS, STATUS_INVALID_HANDLE,
 * STATUS_OBJECT_TYPE_MISMATCH or STATUS_ACCESS_DENIED. */
uint32_t hcp_ref_thread(hcp_os *os, uint64_t h, uint32_t access, sim_thread **out);

uint64_t hcp_GetCurrentThread(hcp_os *os);
uint32_t hcp_GetCurrentThreadId(hcp_os *os);
uint32_t hcp_GetLastError(hcp_os *os);
void hcp_SetLastError(hcp_os *os, uint32_t v);
uint64_t hcp_OpenThread(hcp_os *os, uint32_t dwDesiredAccess, int bInheritHandle, uint32_t dwThreadId);
int hcp_CloseHandle(hcp_os *os, uint64_t hObject);

/* ---- synchronisation (api/waits.c) -------------------------------------------------------- */
/* A call that blocks returns HCP_PENDING: the calling thread is Waiting (or
 * gave up its CPU) and the caller must return to the scheduler; when the
 * thread runs again, hcp_wait_result() gives the call's return value.  Any
 * call may also leave the calling thread switched out (a higher-priority
 * thread it readied took its CPU): check sim_sched_current(). */
#define HCP_PENDING 0xFFFFFFFEu
uint64_t hcp_create_event(hcp_os *os, int bManualReset, int bInitialState);
uint64_t hcp_create_mutex(hcp_os *os, int bInitialOwner);
uint64_t hcp_create_semaphore(hcp_os *os, int32_t lInitialCount, int32_t lMaximumCount);
int hcp_SetEvent(hcp_os *os, uint64_t hEvent);
int hcp_ResetEvent(hcp_os *os, uint64_t hEvent);
int hcp_ReleaseMutex(hcp_os *os, uint64_t hMutex);
int hcp_ReleaseSemaphore(hcp_os *os, uint64_t hSemaphore, int32_t lReleaseCount,
                         uint64_t lpPreviousCount /* LONG* or 0 */);
uint32_t hcp_WaitForSingleObject(hcp_os *os, uint64_t hHandle, uint32_t dwMilliseconds);
uint32_t hcp_WaitForMultipleObjects(hcp_os *os, uint32_t nCount, uint64_t lpHandles, int bWaitAll,
                                    uint32_t dwMilliseconds);
uint32_t hcp_Sleep(hcp_os *os, uint32_t dwMilliseconds); /* 0 or HCP_PENDING (Windows' Sleep returns nothing) */
int hcp_SwitchToThread(hcp_os *os);                      /* TRUE when it gave up the CPU */
uint32_t hcp_wait_result(hcp_os *os);
int hcp_GetExitCodeThread(hcp_os *os, uint64_t hThread, uint64_t lpExitCode /* DWORD* */);
/* Issue 33's waits for Lua bodies (api/README.md, scenarios/API.md): a waitable timer (manual: a
 * notification timer) and SetWaitableTimer with a LARGE_INTEGER due time (negative: relative,
 * 100 ns) and a period in ms, without a completion routine; SuspendThread / ResumeThread (the
 * previous count, 0xFFFFFFFF on failure; a body cannot suspend itself: ERROR_NOT_SUPPORTED);
 * NtAlertThreadByThreadId and NtWaitForAlertByThreadId with a timeout in ms (HCP_PENDING, or
 * STATUS_ALERTED / STATUS_TIMEOUT; hcp_alert_result after a wait). */
uint64_t hcp_create_timer(hcp_os *os, int manual);
int hcp_SetWaitableTimer(hcp_os *os, uint64_t hTimer, int64_t DueTime, int32_t lPeriod);
int hcp_CancelWaitableTimer(hcp_os *os, uint64_t hTimer);
uint32_t hcp_SuspendThread(hcp_os *os, uint64_t hThread);
uint32_t hcp_ResumeThread(hcp_os *os, uint64_t hThread);
uint32_t hcp_AlertThreadByThreadId(hcp_os *os, uint32_t ThreadId);
uint32_t hcp_WaitForAlertByThreadId(hcp_os *os, uint32_t dwMilliseconds);
uint32_t hcp_alert_result(hcp_os *os);

/* ---- Hardware Counter Profiling (HCP-SPEC §2, §4) ---------------------------------------- */
uint32_t hcp_EnableThreadProfiling(hcp_os *os, uint64_t ThreadHandle, uint32_t Flags, uint64_t HardwareCounters,
                                   uint64_t PerformanceDataHandle /* HANDLE * */);
uint32_t hcp_DisableThreadProfiling(hcp_os *os, uint64_t PerformanceDataHandle);
uint32_t hcp_QueryThreadProfiling(hcp_os *os, uint64_t ThreadHandle, uint64_t Enabled /* PBOOLEAN */);
/* Whether thread t has profiling enabled (what QueryThreadProfiling answers), without a handle. */
bool hcp_thread_profiling(hcp_os *os, sim_thread *t);
uint32_t hcp_ReadThreadProfilingData(hcp_os *os, uint64_t PerformanceDataHandle, uint32_t Flags,
                                     uint64_t PerformanceData /* PPERFORMANCE_DATA */);

/* ---- thread times (api/times.c, HCP-SPEC §8) --------------------------------------------- */
/* BOOL functions: TRUE on success; FALSE with the thread's last error set on
 * failure (ERROR_INVALID_HANDLE, ERROR_ACCESS_DENIED, ERROR_NOACCESS).  The
 * handle needs THREAD_QUERY_LIMITED_INFORMATION or THREAD_QUERY_INFORMATION.
 * Output pointers are guest addresses; a NULL one is skipped
 * (simulator-defined, as Wine does); api/README.md states the accounting. */
int hcp_GetThreadTimes(hcp_os *os, uint64_t hThread, uint64_t lpCreationTime /* FILETIME* */,
                       uint64_t lpExitTime /* FILETIME* */, uint64_t lpKernelTime /* FILETIME* */,
                       uint64_t lpUserTime /* FILETIME* */);
int hcp_QueryThreadCycleTime(hcp_os *os, uint64_t ThreadHandle, uint64_t CycleTime /* PULONG64 */);

/* Kernel DDIs: return NTSTATUS. */
uint32_t hcp_KeSetHardwareCounterConfiguration(hcp_os *os, uint64_t CounterArray, uint32_t Count);
uint32_t hcp_KeQueryHardwareCounterConfiguration(hcp_os *os, uint64_t CounterArray, uint32_t MaximumCount,
                                                 uint64_t Count /* PULONG */);

/* ---- the call gate (api/dispatch.c): guest code calls the functions above -------------------- */
/* Each import has a thunk in guest memory (sim_set_gate, sim/README.md "Call
 * gate"); a guest `call` of it runs the same function a Lua body's binding
 * calls, with the Windows x64 convention.  api/README.md "Call gate" lists
 * the imports and what a call retires.  Attach after hcp_os_new, detach
 * before hcp_os_free (detaching NULL is a no-op). */
void hcp_gate_attach(hcp_os *os);
void hcp_gate_detach(hcp_os *os);

/* One guest call through the gate (api/dispatch.c), as an observer sees it (run
 * reports, traces): the export's name and spec row (NULL for an import hcpsim
 * lacks), the calling thread, its fixed parameters' values as the export spec
 * normalises them (api/exports.h; strings as their pointers: hcp_call_string
 * reads them), the virtual time the call began at, and the result register.  A
 * call that blocks is seen twice: first with pending = true (no result yet),
 * then with resumed = true and its result when the thread runs again.  A call
 * that never returns to its caller (ExitThread, a missing import, a fault in
 * simulated OS code) has completed = false.  Valid during the observer call only. */
struct hcp_export;
typedef struct hcp_call {
    const char *name;
    const struct hcp_export *ex;
    sim_thread *thread;
    const uint64_t *args;
    int nargs;
    uint64_t start; /* cycles, the caller's CPU clock when the call began */
    uint64_t result;
    bool pending, resumed, completed;
} hcp_call;
typedef void (*hcp_call_fn)(void *ud, const hcp_call *c);
/* Adds an observer of guest calls: its slot (0..HCP_MAX_CALL_OBSERVERS-1), or -1 when every slot
 * is taken.  Observers see each call in the order they were added. */
#define HCP_MAX_CALL_OBSERVERS 4
int hcp_add_call_observer(hcp_os *os, hcp_call_fn fn, void *ud);
void hcp_remove_call_observer(hcp_os *os, int slot);
/* The string at guest address `at` (UTF-16 when `wide`) as UTF-8 (bytes above 0x7F read as
 * code page 1252's Latin-1 range), at most cap-1 bytes, cut with "..." when longer: its length,
 * or -1 when its first byte is not readable.  For observers showing LPCSTR / LPCWSTR arguments. */
int hcp_guest_string(sim_machine *m, uint64_t at, bool wide, char *out, size_t cap);
/* A program's use of the HCP functions that leaves it without data Windows would give it
 * (scenarios/README.md "Warnings"): HardwareCounters bits with no configured counter.
 * fn(ud, t, message) is called once per kind per OS, for calls made by a thread of the OS's
 * process (api/pe.h), inside the call; it may end t's guest call (sim_gate_end_call).  NULL (the
 * default): no such warnings, so a Lua scenario's own calls never get them. */
typedef void (*hcp_warn_fn)(void *ud, sim_thread *t, const char *message);
void hcp_set_warning_handler(hcp_os *os, hcp_warn_fn fn, void *ud);
/* Import i (0, 1, ... in thunk order): its name, or NULL past the last. */
const char *hcp_import_name(int i);
/* The guest address of the thunk of `name` (as Windows spells it) on machine
 * m (NULL: on an x64 machine), or 0. */
uint64_t hcp_import_address(const sim_machine *m, const char *name);

/* ---- ETW: the NT Kernel Logger's thread events (api/etw.c, HCP-SPEC §7) ------------------ */
#define EVENT_TRACE_FLAG_PROCESS 0x00000001u
#define EVENT_TRACE_FLAG_THREAD 0x00000002u     /* Thread Start, End, DCStart, DCEnd */
#define EVENT_TRACE_FLAG_CSWITCH 0x00000010u    /* CSwitch */
#define EVENT_TRACE_FLAG_DISPATCHER 0x00000800u /* ReadyThread */
#define EVENT_TRACE_TYPE_INFO 0x00
#define EVENT_TRACE_TYPE_START 0x01
#define EVENT_TRACE_TYPE_END 0x02
#define EVENT_TRACE_TYPE_DC_START 0x03
#define EVENT_TRACE_TYPE_DC_END 0x04
#define EVENT_TRACE_TYPE_CSWITCH 36     /* hcpsim's name: MOF EventTypeName "CSwitch" (Thread_V2) */
#define EVENT_TRACE_TYPE_READYTHREAD 50 /* hcpsim's name: MOF EventTypeName "ReadyThread" (Thread_V2) */
#define HCP_ETW_HEADER_SIZE 48u
#define HCP_ETW_PROCESS_ID 996u /* the scenario's one process: just below the first thread id, 1000 */

/* Layout reference (HCP-SPEC §7.4, edge case 53); the unions FieldTypeFlags
 * (HeaderType, MarkerFlags), Version (Class) and KernelTime/UserTime
 * (ProcessorTime) are spelt out as their members.  Events are encoded field
 * by field, never by copying this struct. */
typedef struct EVENT_TRACE_HEADER {
    uint16_t Size;       /* header + payload */
    uint8_t HeaderType;  /* FieldTypeFlags, low byte */
    uint8_t MarkerFlags; /* FieldTypeFlags, high byte */
    uint8_t Type;        /* Class.Type: EVENT_TRACE_TYPE_* */
    uint8_t Level;       /* Class.Level */
    uint16_t Version;    /* Class.Version: the MOF class's EventVersion */
    uint32_t ThreadId;   /* the context the event was logged in */
    uint32_t ProcessId;
    int64_t TimeStamp;   /* LARGE_INTEGER */
    uint8_t Guid[16];    /* the event class GUID, in memory order */
    uint32_t KernelTime; /* of the logging thread, in clock ticks */
    uint32_t UserTime;
} EVENT_TRACE_HEADER;

/* One logged event: EVENT_TRACE_HEADER then the MOF payload, `size` bytes
 * (= the header's Size), valid during the sink call only.  `cpu` is the
 * processor it was logged on (ETW keeps it beside the header, in the buffer). */
typedef struct hcp_etw_event {
    const uint8_t *data;
    size_t size;
    int cpu;
    const struct hcp_etw_field *fields; /* the payload's fields (hcp_etw_layout of this session) */
    int nfields;
    const char *name; /* the MOF event type name: "Start", ..., "CSwitch", "ReadyThread" */
} hcp_etw_event;
typedef void (*hcp_etw_sink)(void *ud, const hcp_etw_event *ev);

/* A payload field of a MOF class, in declaration order (pointer-sized fields
 * are 8 bytes in a 64-bit logger, 4 in a 32-bit one: hcp_etw_layout). */
typedef struct hcp_etw_field {
    const char *name; /* the MOF property name */
    uint16_t offset;
    uint8_t size; /* 1, 4 or 8 bytes, little-endian */
    bool is_signed;
} hcp_etw_field;

/* Starts the machine's NT Kernel Logger session (one at a time, as on
 * Windows) with EVENT_TRACE_FLAG_THREAD | _CSWITCH | _DISPATCHER bits; other
 * bits are ERROR_INVALID_PARAMETER; ERROR_NOT_SUPPORTED on a platform without
 * a kernel logger (ce2.12-arm).  Every event is handed to sink(ud, ev)
 * synchronously, in the order the simulator records it; the sink must not
 * call back into the machine.  With the THREAD flag, DCStart rundown events
 * for the live threads are logged before this returns.  Returns
 * ERROR_SUCCESS, ERROR_ALREADY_EXISTS, ERROR_INVALID_PARAMETER or
 * ERROR_NO_SYSTEM_RESOURCES (no observer slot).  api/README.md "ETW" states
 * every value an event carries. */
uint32_t hcp_etw_start(hcp_os *os, uint32_t EnableFlags, hcp_etw_sink sink, void *ud);
/* Stops the session; with `rundown` and the THREAD flag, DCEnd events for
 * the live threads are logged first.  ERROR_SUCCESS or
 * ERROR_WMI_INSTANCE_NOT_FOUND (no session).  Call it before hcp_os_free. */
uint32_t hcp_etw_stop(hcp_os *os, bool rundown);
bool hcp_etw_active(const hcp_os *os);
bool hcp_etw_in_sink(const hcp_os *os); /* a sink call is in progress */
/* The payload layout of event type `type` (1..4, 36, 50) logged by a kernel
 * logger that writes Thread class `version` (0-3: Thread_V0 .. Thread V3;
 * CSwitch and ReadyThread are class Thread_V2 whatever the version) with
 * `ptr`-byte pointers (4: a 32-bit logger, 8: 64-bit; HCP-SPEC §7.3): the
 * fields into out[] (at most 16), packed in declaration order; returns their
 * number (0 for other types) and the MOF event type name ("Start", ...,
 * "CSwitch") in *name when name is not NULL. */
int hcp_etw_layout(int version, unsigned ptr, uint8_t type, hcp_etw_field *out, const char **name);
/* The MOF class name of that payload ("Thread_TypeGroup1", "Thread_V1_TypeGroup2", ...), NULL for other types. */
const char *hcp_etw_payload_class(int version, uint8_t type);
/* The Thread class version (0-3) the machine's sessions log: set by
 * hcp_etw_set_thread_version (machine option etw_thread_version), else the
 * platform's default (api/platform.c).  Set it before a session starts; a
 * value outside 0-3 restores the default. */
int hcp_etw_thread_version(const hcp_os *os);
void hcp_etw_set_thread_version(hcp_os *os, int version);

/* ---- little-endian guest encoding helpers (shared by api/ and scenarios/) ---------------- */
static inline void hcp_put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void hcp_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void hcp_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t hcp_get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t hcp_get32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t hcp_get64(const uint8_t *p) { return hcp_get32(p) | ((uint64_t)hcp_get32(p + 4) << 32); }

#endif
