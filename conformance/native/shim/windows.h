/* conformance/native/shim/windows.h — just enough of <windows.h> for
 * conformance/native/hcpcheck.c to compile on Linux and run inside hcpsim.
 *
 * Types and constants are spelt as the Windows SDK spells them (values from
 * HCP-SPEC §3 and §5).  The structures use the same tags as api/hcp_api.h
 * (PERFORMANCE_DATA, not _PERFORMANCE_DATA) so the two translation units see
 * compatible types.  The functions, with LARGE_INTEGER and SYSTEMTIME that
 * they take, are declared in hcpshim.h under their Windows names and defined
 * in hcpshim.c. */
#ifndef HCPSIM_NATIVE_SHIM_WINDOWS_H
#define HCPSIM_NATIVE_SHIM_WINDOWS_H

#define HCPSHIM 1 /* hcpcheck.c: the shim provides main() */

#include <stddef.h>
#include <stdint.h>

#include "hcpshim.h"

#define WINAPI
#define APIENTRY WINAPI
#define TRUE 1
#define FALSE 0

typedef uint8_t BYTE;
typedef uint8_t BOOLEAN, *PBOOLEAN;
typedef uint16_t WORD;
typedef uint32_t DWORD, *LPDWORD;
typedef uint64_t DWORD64, ULONG64, *PULONG64;
typedef uintptr_t ULONG_PTR, DWORD_PTR, *PDWORD_PTR;
typedef intptr_t LONG_PTR;
typedef uint32_t ULONG, *PULONG;
typedef int64_t LONGLONG;
typedef uint8_t UCHAR;
typedef uint16_t USHORT;
typedef uint64_t ULONGLONG;
typedef char *LPSTR;
typedef struct GUID {
    uint32_t Data1;
    uint16_t Data2, Data3;
    uint8_t Data4[8];
} GUID;
#define MAX_PATH 260
typedef int BOOL;
typedef int32_t LONG, *PLONG, *LPLONG, NTSTATUS;
typedef uint16_t WCHAR;
typedef const void *LPCVOID;
typedef void *HANDLE, *PHANDLE, *HMODULE, *LPVOID;
typedef const char *LPCSTR;
typedef size_t SIZE_T;
typedef void *LPSECURITY_ATTRIBUTES;
typedef hcpshim_proc FARPROC;
typedef hcpshim_start_fn LPTHREAD_START_ROUTINE;

typedef struct FILETIME {
    DWORD dwLowDateTime;
    DWORD dwHighDateTime;
} FILETIME, *PFILETIME, *LPFILETIME;

/* winnt.h (HCP-SPEC §3.2) */
#define MAX_HW_COUNTERS 16
#define THREAD_PROFILING_FLAG_DISPATCH 0x1
typedef enum _HARDWARE_COUNTER_TYPE { PMCCounter, MaxHardwareCounterType } HARDWARE_COUNTER_TYPE;
typedef struct HARDWARE_COUNTER_DATA {
    HARDWARE_COUNTER_TYPE Type;
    DWORD Reserved;
    DWORD64 Value;
} HARDWARE_COUNTER_DATA, *PHARDWARE_COUNTER_DATA;
typedef struct PERFORMANCE_DATA {
    WORD Size;
    BYTE Version;
    BYTE HwCountersCount;
    DWORD ContextSwitchCount;
    DWORD64 WaitReasonBitMap;
    DWORD64 CycleTime;
    DWORD RetryCount;
    DWORD Reserved;
    HARDWARE_COUNTER_DATA HwCounters[MAX_HW_COUNTERS];
} PERFORMANCE_DATA, *PPERFORMANCE_DATA;
#define PERFORMANCE_DATA_VERSION 1
#define READ_THREAD_PROFILING_FLAG_DISPATCHING 0x00000001
#define READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS 0x00000002

/* access rights, waits */
#define SYNCHRONIZE 0x00100000u
#define THREAD_SET_INFORMATION 0x0020u
#define THREAD_QUERY_INFORMATION 0x0040u
#define THREAD_QUERY_LIMITED_INFORMATION 0x0800u
#define THREAD_ALL_ACCESS 0x001FFFFFu
#define INFINITE 0xFFFFFFFFu
#define WAIT_OBJECT_0 0x00000000u
#define WAIT_TIMEOUT 0x00000102u
#define WAIT_FAILED 0xFFFFFFFFu
#define WAIT_ABANDONED 0x00000080u
#define STILL_ACTIVE 259u
#define MAXIMUM_WAIT_OBJECTS 64
#define CREATE_SUSPENDED 0x00000004u
#define THREAD_PRIORITY_IDLE (-15)
#define THREAD_PRIORITY_LOWEST (-2)
#define THREAD_PRIORITY_BELOW_NORMAL (-1)
#define THREAD_PRIORITY_NORMAL 0
#define THREAD_PRIORITY_ABOVE_NORMAL 1
#define THREAD_PRIORITY_HIGHEST 2
#define THREAD_PRIORITY_TIME_CRITICAL 15

/* winerror.h */
#define ERROR_SUCCESS 0u
#define ERROR_ACCESS_DENIED 5u
#define ERROR_INVALID_HANDLE 6u
#define ERROR_NOT_ENOUGH_MEMORY 8u
#define ERROR_NOT_SUPPORTED 50u
#define ERROR_INVALID_PARAMETER 87u
#define ERROR_CALL_NOT_IMPLEMENTED 120u
#define ERROR_PROC_NOT_FOUND 127u
#define ERROR_NOACCESS 998u
#define ERROR_ALREADY_EXISTS 183u
#define ERROR_NOT_OWNER 288u
#define ERROR_TOO_MANY_POSTS 298u
#define ERROR_PARTIAL_COPY 299u
#define ERROR_INVALID_USER_BUFFER 1784u
#define ERROR_WMI_ALREADY_ENABLED 4206u
#define ERROR_WMI_ALREADY_DISABLED 4212u

#endif
