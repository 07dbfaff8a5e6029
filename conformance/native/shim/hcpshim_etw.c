/* conformance/native/shim/hcpshim_etw.c — advapi32's event tracing functions for
 * conformance/native/hcpcheck.c inside hcpsim: StartTraceA and ControlTraceA(STOP) run the
 * simulator's NT Kernel Logger (api/etw.c, through hcpshim_etw_start/_stop), which hands every
 * event to this file synchronously; the events are kept in memory in logging order (the log file
 * the program names is not written), and OpenTraceA + ProcessTrace deliver them to the program's
 * EventCallback as EVENT_TRACE records: the header decoded field by field from the logged bytes
 * (little-endian, HCP-SPEC §7.4), MofData the payload, BufferContext.ProcessorNumber the CPU.
 * One session at a time, as on Windows; its events stay until CloseTrace or the next StartTraceA. */
#include <stdlib.h>
#include <string.h>

#include "conformance/native/shim/evntrace.h"

#define MAX_EVENTS 200000 /* more are counted as lost (EventsLost) */
#define SHIM_ERROR_INVALID_HANDLE 6u
#define SHIM_ERROR_BAD_LENGTH 24u
#define SHIM_ERROR_INVALID_PARAMETER 87u
#define SHIM_ERROR_ALREADY_EXISTS 183u
#define SHIM_ERROR_WMI_INSTANCE_NOT_FOUND 4201u
#define SESSION_HANDLE 0x4B4Cu /* the one logger handle StartTraceA hands out */
#define CONSUMER_HANDLE 0x4B4Du

typedef struct rec {
    uint8_t *data;
    size_t size;
    int cpu;
} rec;

static struct {
    int running;
    rec *ev;
    size_t n, cap;
    ULONG lost;
    PEVENT_CALLBACK callback; /* set by OpenTraceA */
} L;

static void drop_events(void) {
    for (size_t i = 0; i < L.n; i++) free(L.ev[i].data);
    free(L.ev);
    L.ev = NULL;
    L.n = L.cap = 0;
    L.lost = 0;
}

static void sink(void *ud, const uint8_t *data, size_t size, int cpu) {
    (void)ud;
    if (L.n == MAX_EVENTS || size < 48) {
        L.lost++;
        return;
    }
    if (L.n == L.cap) {
        size_t cap = L.cap ? 2 * L.cap : 256;
        rec *p = realloc(L.ev, cap * sizeof *p);
        if (!p) {
            L.lost++;
            return;
        }
        L.ev = p;
        L.cap = cap;
    }
    uint8_t *copy = malloc(size);
    if (!copy) {
        L.lost++;
        return;
    }
    memcpy(copy, data, size);
    rec *r = &L.ev[L.n++];
    r->data = copy;
    r->size = size;
    r->cpu = cpu;
}

static int is_kernel_logger(const char *name) { return name && strcmp(name, KERNEL_LOGGER_NAMEA) == 0; }

static ULONG WINAPI s_StartTraceA(TRACEHANDLE *h, const char *name, EVENT_TRACE_PROPERTIES *p) {
    if (!h || !p || !is_kernel_logger(name)) return SHIM_ERROR_INVALID_PARAMETER;
    if (p->Wnode.BufferSize < sizeof *p) return SHIM_ERROR_BAD_LENGTH;
    if (L.running) return SHIM_ERROR_ALREADY_EXISTS;
    drop_events();
    uint32_t rc = hcpshim_etw_start(p->EnableFlags, sink, NULL);
    if (rc != 0) return rc;
    L.running = 1;
    *h = SESSION_HANDLE;
    return 0;
}

static ULONG WINAPI s_ControlTraceA(TRACEHANDLE h, const char *name, EVENT_TRACE_PROPERTIES *p, ULONG code) {
    if (code != EVENT_TRACE_CONTROL_STOP) return SHIM_ERROR_INVALID_PARAMETER;
    if (!L.running || (h != SESSION_HANDLE && !is_kernel_logger(name))) return SHIM_ERROR_WMI_INSTANCE_NOT_FOUND;
    uint32_t rc = hcpshim_etw_stop();
    L.running = 0;
    if (p) p->EventsLost = L.lost;
    return rc;
}

static TRACEHANDLE WINAPI s_OpenTraceA(EVENT_TRACE_LOGFILEA *lf) {
    if (!lf || !lf->EventCallback || L.running) {
        SetLastError(SHIM_ERROR_INVALID_PARAMETER);
        return INVALID_PROCESSTRACE_HANDLE;
    }
    L.callback = lf->EventCallback;
    return CONSUMER_HANDLE;
}

static uint16_t g16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t g32(const uint8_t *p) { return (uint32_t)g16(p) | (uint32_t)g16(p + 2) << 16; }

static ULONG WINAPI s_ProcessTrace(TRACEHANDLE *h, ULONG n, FILETIME *start, FILETIME *stop) {
    (void)start;
    (void)stop;
    if (!h || n != 1 || *h != CONSUMER_HANDLE || !L.callback) return SHIM_ERROR_INVALID_HANDLE;
    for (size_t i = 0; i < L.n; i++) {
        const uint8_t *b = L.ev[i].data;
        EVENT_TRACE ev;
        memset(&ev, 0, sizeof ev);
        ev.Header.Size = g16(b);
        ev.Header.HeaderType = b[2];
        ev.Header.MarkerFlags = b[3];
        ev.Header.Class.Type = b[4];
        ev.Header.Class.Level = b[5];
        ev.Header.Class.Version = g16(b + 6);
        ev.Header.ThreadId = g32(b + 8);
        ev.Header.ProcessId = g32(b + 12);
        ev.Header.TimeStamp.QuadPart = (LONGLONG)((uint64_t)g32(b + 16) | (uint64_t)g32(b + 20) << 32);
        ev.Header.Guid.Data1 = g32(b + 24);
        ev.Header.Guid.Data2 = g16(b + 28);
        ev.Header.Guid.Data3 = g16(b + 30);
        memcpy(ev.Header.Guid.Data4, b + 32, 8);
        ev.Header.KernelTime = g32(b + 40);
        ev.Header.UserTime = g32(b + 44);
        ev.MofData = L.ev[i].size > 48 ? L.ev[i].data + 48 : NULL;
        ev.MofLength = (ULONG)(L.ev[i].size - 48);
        ev.BufferContext.ProcessorNumber = (UCHAR)L.ev[i].cpu;
        L.callback(&ev);
    }
    return 0;
}

static ULONG WINAPI s_CloseTrace(TRACEHANDLE h) {
    if (h != CONSUMER_HANDLE) return SHIM_ERROR_INVALID_HANDLE;
    L.callback = NULL;
    drop_events(); /* the one consumer is done with them */
    return 0;
}

hcpshim_proc hcpshim_etw_export(const char *name) {
    static const struct {
        const char *name;
        hcpshim_proc fn;
    } fns[] = {
        {"StartTraceA", (hcpshim_proc)s_StartTraceA}, {"ControlTraceA", (hcpshim_proc)s_ControlTraceA},
        {"OpenTraceA", (hcpshim_proc)s_OpenTraceA},   {"ProcessTrace", (hcpshim_proc)s_ProcessTrace},
        {"CloseTrace", (hcpshim_proc)s_CloseTrace},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (strcmp(fns[i].name, name) == 0) return fns[i].fn;
    return NULL;
}
