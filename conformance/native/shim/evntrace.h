/* conformance/native/shim/evntrace.h — just enough of <evntrace.h> (event tracing: the NT Kernel
 * Logger session and its consumer) for conformance/native/hcpcheck.c to compile on Linux.  The
 * structures have the SDK's members, in the SDK's order (EVENT_TRACE_HEADER is 48 bytes, as
 * HCP-SPEC §7.4 states); hcpshim_etw.c implements the functions on hcpsim's kernel logger. */
#ifndef HCPSIM_NATIVE_SHIM_EVNTRACE_H
#define HCPSIM_NATIVE_SHIM_EVNTRACE_H

#include "windows.h"

typedef ULONG64 TRACEHANDLE, *PTRACEHANDLE;

#define KERNEL_LOGGER_NAMEA "NT Kernel Logger"
#define WNODE_FLAG_TRACED_GUID 0x00020000u
#define EVENT_TRACE_FLAG_THREAD 0x00000002u
#define EVENT_TRACE_FLAG_CSWITCH 0x00000010u
#define EVENT_TRACE_FLAG_DISPATCHER 0x00000800u
#define EVENT_TRACE_TYPE_START 0x01
#define EVENT_TRACE_TYPE_END 0x02
#define EVENT_TRACE_TYPE_DC_START 0x03
#define EVENT_TRACE_TYPE_DC_END 0x04
#define EVENT_TRACE_FILE_MODE_SEQUENTIAL 0x00000001u
#define EVENT_TRACE_CONTROL_STOP 1u
#define INVALID_PROCESSTRACE_HANDLE ((TRACEHANDLE)(ULONG_PTR)(LONG_PTR)-1)

typedef struct WNODE_HEADER {
    ULONG BufferSize;
    ULONG ProviderId;
    ULONG64 HistoricalContext;
    LARGE_INTEGER TimeStamp;
    GUID Guid;
    ULONG ClientContext;
    ULONG Flags;
} WNODE_HEADER;

typedef struct EVENT_TRACE_PROPERTIES {
    WNODE_HEADER Wnode;
    ULONG BufferSize, MinimumBuffers, MaximumBuffers, MaximumFileSize, LogFileMode, FlushTimer, EnableFlags;
    LONG AgeLimit;
    ULONG NumberOfBuffers, FreeBuffers, EventsLost, BuffersWritten, LogBuffersLost, RealTimeBuffersLost;
    HANDLE LoggerThreadId;
    ULONG LogFileNameOffset, LoggerNameOffset;
} EVENT_TRACE_PROPERTIES, *PEVENT_TRACE_PROPERTIES;

typedef struct EVENT_TRACE_HEADER {
    USHORT Size;
    union {
        USHORT FieldTypeFlags;
        struct {
            UCHAR HeaderType, MarkerFlags;
        };
    };
    union {
        ULONG Version;
        struct {
            UCHAR Type, Level;
            USHORT Version;
        } Class;
    };
    ULONG ThreadId;
    ULONG ProcessId;
    LARGE_INTEGER TimeStamp;
    union {
        GUID Guid;
        ULONGLONG GuidPtr;
    };
    union {
        struct {
            ULONG KernelTime, UserTime;
        };
        ULONG64 ProcessorTime;
    };
} EVENT_TRACE_HEADER, *PEVENT_TRACE_HEADER;

typedef struct ETW_BUFFER_CONTEXT {
    UCHAR ProcessorNumber, Alignment;
    USHORT LoggerId;
} ETW_BUFFER_CONTEXT;

typedef struct EVENT_TRACE {
    EVENT_TRACE_HEADER Header;
    ULONG InstanceId, ParentInstanceId;
    GUID ParentGuid;
    void *MofData;
    ULONG MofLength;
    union {
        ULONG ClientContext;
        ETW_BUFFER_CONTEXT BufferContext;
    };
} EVENT_TRACE, *PEVENT_TRACE;

typedef void(WINAPI *PEVENT_CALLBACK)(PEVENT_TRACE);

typedef struct EVENT_TRACE_LOGFILEA {
    LPSTR LogFileName;
    LPSTR LoggerName;
    LONGLONG CurrentTime;
    ULONG BuffersRead;
    union {
        ULONG LogFileMode;
        ULONG ProcessTraceMode;
    };
    EVENT_TRACE CurrentEvent;
    ULONG BufferSize, Filled, EventsLost;
    PEVENT_CALLBACK EventCallback;
    ULONG IsKernelTrace;
    void *Context;
} EVENT_TRACE_LOGFILEA, *PEVENT_TRACE_LOGFILEA;

#endif
