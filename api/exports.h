/* api/exports.h — the export spec as data (api/README.md "The export spec").
 *
 * api/exports.spec lists every function and variable the simulated system DLLs
 * export; api/specgen.pl turns it into hcp_exports[], one row each, in spec
 * order.  A row's index is its call-gate service: rows 0..20 are the gate's own
 * imports (thunk k at the gate's base + 16k), the others get thunks as programs
 * import them.  Everything that needs a function's facts reads them here: the
 * dispatcher (marshalling, x86 pops, the call observer), the image loader
 * (import resolution), `hcpsim describe --imports`, the report decoder and the
 * fuzz targets. */
#ifndef HCPSIM_API_EXPORTS_H
#define HCPSIM_API_EXPORTS_H

#include <stdbool.h>
#include <stdint.h>

/* Parameter and result types: how a value is read from the caller and normalised, and how it is
 * shown.  Integers are normalised to the type's own width: a HANDLE is sign-extended from 32
 * bits on 32-bit guests ((HANDLE)-2 is 0xFFFFFFFE there), 32-bit types are the low 32 bits of
 * their register or slot (the upper half is undefined in the x64 convention), pointers and
 * SIZE_T are zero-extended, SSIZE_T sign-extended; 64-bit types take two words on x86 (low
 * first) and an even-aligned pair on ARM; DOUBLE and FLOAT are the IEEE bits. */
typedef enum hcp_type {
    HCP_T_VOID = 0,
    HCP_T_HANDLE,   /* HANDLE */
    HCP_T_DWORD,    /* DWORD, UINT, ULONG: decimal */
    HCP_T_MASK,     /* a 32-bit mask or set of flags: hex */
    HCP_T_TIMEOUT,  /* DWORD milliseconds: INFINITE or "N ms" */
    HCP_T_INT,      /* INT, LONG: signed decimal */
    HCP_T_BOOL,     /* BOOL: TRUE (any non-zero) or FALSE */
    HCP_T_PTR,      /* any pointer: hex */
    HCP_T_STR,      /* LPCSTR: an input string, shown as its text */
    HCP_T_WSTR,     /* LPCWSTR: an input UTF-16 string */
    HCP_T_SIZE,     /* SIZE_T, ULONG_PTR: pointer-sized unsigned */
    HCP_T_SSIZE,    /* SSIZE_T, LONG_PTR: pointer-sized signed */
    HCP_T_U64,      /* DWORD64, ULONGLONG */
    HCP_T_MASK64,   /* a 64-bit mask: hex */
    HCP_T_I64,      /* LONGLONG */
    HCP_T_F64,      /* double */
    HCP_T_F32,      /* float */
    HCP_T_VALIST,   /* va_list: a pointer to the arguments */
    HCP_T_ERRCODE,  /* a Win32 error code: ERROR_* */
    HCP_T_NTSTATUS, /* STATUS_* */
    HCP_T_WAITRES,  /* WAIT_OBJECT_0+k, WAIT_TIMEOUT, ... */
    HCP_T_PFLAGS,   /* EnableThreadProfiling's Flags */
    HCP_T_RFLAGS,   /* ReadThreadProfilingData's Flags */
    HCP_T_VARARGS,  /* `...`: the variadic arguments (not read by the marshaller) */
} hcp_type;

typedef struct hcp_param {
    const char *name; /* as Microsoft's documentation or headers name it */
    hcp_type type;
} hcp_param;

typedef enum hcp_export_kind {
    HCP_EXPORT_FUNCTION, /* simulated OS code: kernel work of the caller */
    HCP_EXPORT_STUB,     /* known, not implemented: calling it is calling a missing import */
    HCP_EXPORT_DATA,     /* a variable: the import address table holds its address */
    HCP_EXPORT_GUEST,    /* guest code the program runs as its own (user mode) */
} hcp_export_kind;

typedef enum hcp_conv { HCP_CC_NONE, HCP_CC_STDCALL, HCP_CC_CDECL } hcp_conv;
/* What a call costs its caller besides the thunk's user instructions: one api_call of kernel work
 * charged by the dispatcher; nothing (user mode only); or what the implementation charges itself
 * (the call gate's own imports, shared with the Lua binding: one api_call when they enter the
 * kernel). */
typedef enum hcp_cost { HCP_COST_CALL, HCP_COST_NONE, HCP_COST_SELF } hcp_cost;

enum {
    HCP_EX_BLOCKS = 1,    /* may wait: its result comes when the thread runs again */
    HCP_EX_NORETURN = 2,  /* never returns to its caller */
    HCP_EX_NOP = 4,       /* does nothing, returns 0 */
    HCP_EX_TRUE = 8,      /* does nothing, returns TRUE */
    HCP_EX_INTERNAL = 16, /* hcpsim's own service for its guest code: not importable */
    HCP_EX_VARARGS = 32,  /* the last parameter is `...` */
};

typedef struct hcp_ctx hcp_ctx;
typedef struct hcp_export {
    const char *dll, *name;
    int ordinal;
    hcp_export_kind kind;
    hcp_conv conv;
    int nparams; /* entries of params (`...` included) */
    int words;   /* argument words a 32-bit guest passes for the fixed parameters (x86: the stdcall pop / 4) */
    const hcp_param *params;
    hcp_type ret;
    unsigned flags; /* HCP_EX_* */
    hcp_cost cost;
    uint64_t (*call)(hcp_ctx *c, const uint64_t *v); /* the implementation, from normalised values; NULL: none */
    int index;        /* HCP_EXPORT_DATA: HCP_VAR_*; HCP_EXPORT_GUEST: HCP_GUEST_*; else -1 */
    const char *impl; /* the implementation's C name ("" for none) */
    int line;         /* its line in api/exports.spec */
} hcp_export;

/* Rows 0 .. hcp_export_count()-1, in spec order; NULL past the end. */
const hcp_export *hcp_export_at(int i);
int hcp_export_count(void);
/* The row of DLL!name (DLL case-insensitive, with or without ".dll", any folder; API-set names
 * that Windows resolves to a simulated DLL resolve too), or NULL.  Internal rows are not found. */
const hcp_export *hcp_export_find(const char *dll, const char *name);
/* The first row (in spec order, internal ones included) named `name`, whatever its DLL, or NULL:
 * the report decoder's lookup (a report names a call by its function). */
const hcp_export *hcp_export_named(const char *name);
/* The row of DLL's ordinal, or NULL. */
const hcp_export *hcp_export_by_ordinal(const char *dll, unsigned ordinal);
/* The row's index (its gate service). */
int hcp_export_service(const hcp_export *e);
/* The simulated system DLL `dll` names (its file name, without folder; case-insensitive, ".dll"
 * optional), as the spec spells it ("KERNEL32.dll"), or NULL when hcpsim does not simulate it. */
const char *hcp_export_dll(const char *dll);
/* The spec's DLLs: i = 0, 1, ... (NULL past the end); internal ones included. */
const char *hcp_export_dll_at(int i);
/* A type's name as the spec writes it ("HANDLE", "LPCSTR", ...). */
const char *hcp_type_name(hcp_type t);
/* What the row's implementation does, for `hcpsim describe --imports` and the docs: "yes",
 * "no-op", "returns TRUE", "stub" (not implemented). */
const char *hcp_export_does(const hcp_export *e);
/* The guest address of the call-gate thunk of function row e on os's machine (an x86 stdcall
 * thunk is set to pop the row's argument words). */
struct hcp_os;
uint64_t hcp_export_thunk(struct hcp_os *os, const hcp_export *e);
/* What a call costs its caller besides the thunk: "1 api_call", "none (user mode only)", ... */
const char *hcp_export_cost(const hcp_export *e);

#endif
