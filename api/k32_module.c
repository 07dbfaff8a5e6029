/* api/k32_module.c — KERNEL32's modules: the program's image, its DLLs and the
 * simulated system DLLs by name and handle, and what their exports resolve to
 * (api/README.md "DLLs").
 *
 * A simulated system DLL has a fixed pseudo module handle at which no image is
 * mapped; GetProcAddress on it resolves a name (or hcpsim's ordinal) as an
 * import would (api/exports.spec).  A DLL image is a module of the process
 * (api/pe_dll.c): its handle is its base. */
#include <stdio.h>
#include <strings.h>

#include "api/exports_gen.h"
#include "api/files_int.h"

#define GET_MODULE_HANDLE_EX_FLAG_PIN 0x1u
#define GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT 0x2u
#define GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS 0x4u
#define DONT_RESOLVE_DLL_REFERENCES 0x1u
#define LOAD_LIBRARY_AS_DATAFILE 0x2u
#define LOAD_LIBRARY_AS_IMAGE_RESOURCE 0x20u
#define LOAD_LIBRARY_AS_DATAFILE_EXCLUSIVE 0x40u

/* The pseudo handle of a simulated DLL (as the spec spells its name): the first three kept the
 * values they have always had; the others follow in spec order. */
static uint64_t dll_handle(const char *spec_dll) {
    static const struct {
        const char *dll;
        uint32_t handle;
    } fixed[] = {{"KERNEL32.dll", 0x77000000u}, {"ntdll.dll", 0x77100000u}, {"msvcrt.dll", 0x77200000u}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(fixed[i].dll, spec_dll) == 0) return fixed[i].handle;
    for (int i = 0; hcp_export_dll_at(i); i++)
        if (strcmp(hcp_export_dll_at(i), spec_dll) == 0) return 0x77300000u + 0x100000u * (uint32_t)i;
    return 0;
}

/* The spec's name of the DLL whose pseudo handle is h, or NULL. */
static const char *dll_of_handle(uint64_t h) {
    for (int i = 0; hcp_export_dll_at(i); i++) {
        const char *d = hcp_export_dll_at(i);
        if (strcmp(d, "hcpsim") != 0 && dll_handle(d) == h) return d;
    }
    return NULL;
}

/* The module whose handle (base) is h, or -1. */
static int module_of_handle(const hcp_process *p, uint64_t h) {
    for (int i = 0; i < p->nmods; i++)
        if (!p->mods[i].unloaded && p->mods[i].base == h) return i;
    return -1;
}

const char *hcp_module_dll_name(uint64_t h) { return dll_of_handle(h); }

const char *hcp_module_path(const hcp_process *p, uint64_t h) {
    int mi = h ? module_of_handle(p, h) : 0;
    return mi >= 0 ? p->mods[mi].path : NULL;
}

/* The handle of module `name` (a file name, any folder and case, ".dll" optional): a loaded image
 * or a simulated system DLL; 0 for none. */
static uint64_t module_handle(hcp_ctx *c, const char *name) {
    int mi = hcp_module_find(c->p, name);
    if (mi >= 0) return c->p->mods[mi].base;
    const char *d = hcp_export_dll(name);
    return d ? dll_handle(d) : 0;
}

static uint64_t get_module(hcp_ctx *c, uint64_t at, bool wide) {
    if (!at) return c->p->base;
    char full[260];
    if (!hcp_gname(c, at, wide, full, sizeof full)) return 0;
    uint64_t h = module_handle(c, full);
    return h ? h : hcp_fail(c, ERROR_MOD_NOT_FOUND);
}

uint64_t hcp_k32_GetModuleHandleA(hcp_ctx *c, const hcp_k32_GetModuleHandleA_args *a) {
    return get_module(c, a->lpModuleName, false);
}
uint64_t hcp_k32_GetModuleHandleW(hcp_ctx *c, const hcp_k32_GetModuleHandleW_args *a) {
    return get_module(c, a->lpModuleName, true);
}

/* GetModuleHandleEx: by name or (FROM_ADDRESS) by an address inside the module; PIN keeps it loaded,
 * UNCHANGED_REFCOUNT takes no reference. */
static uint64_t get_module_ex(hcp_ctx *c, uint32_t flags, uint64_t name, bool wide, uint64_t out) {
    if (!out || (flags & ~7u) ||
        (flags & (GET_MODULE_HANDLE_EX_FLAG_PIN | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT)) ==
            (GET_MODULE_HANDLE_EX_FLAG_PIN | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT))
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint64_t h;
    if (flags & GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS) {
        const hcp_module *mod = hcp_module_at(c->p, name);
        h = mod ? mod->base : 0;
    } else {
        h = get_module(c, name, wide);
        if (c->failed) return 0;
    }
    if (!hcp_wrp(c, out, h)) return 0;
    if (!h) return hcp_fail(c, ERROR_MOD_NOT_FOUND);
    int mi = module_of_handle(c->p, h);
    if (mi >= 0 && !c->p->mods[mi].is_static) {
        if (flags & GET_MODULE_HANDLE_EX_FLAG_PIN)
            c->p->mods[mi].is_static = true; /* never unloaded from now on */
        else if (!(flags & GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT))
            c->p->mods[mi].refs++;
    }
    return 1;
}
uint64_t hcp_k32_GetModuleHandleExA(hcp_ctx *c, const hcp_k32_GetModuleHandleExA_args *a) {
    return get_module_ex(c, a->dwFlags, a->lpModuleName, false, a->phModule);
}
uint64_t hcp_k32_GetModuleHandleExW(hcp_ctx *c, const hcp_k32_GetModuleHandleExW_args *a) {
    return get_module_ex(c, a->dwFlags, a->lpModuleName, true, a->phModule);
}

static uint64_t load_library(hcp_ctx *c, uint64_t at, bool wide, uint64_t file, uint32_t flags) {
    if (!at || file) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    if (flags & (LOAD_LIBRARY_AS_DATAFILE | LOAD_LIBRARY_AS_IMAGE_RESOURCE | LOAD_LIBRARY_AS_DATAFILE_EXCLUSIVE))
        return hcp_fail(c, ERROR_NOT_SUPPORTED); /* a DLL loaded as data: not simulated */
    char full[260];
    if (!hcp_gname(c, at, wide, full, sizeof full)) return 0;
    if (!full[0]) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    const char *d = hcp_export_dll(full);
    if (d) return dll_handle(d);
    return hcp_dll_loadlibrary(c, full, !(flags & DONT_RESOLVE_DLL_REFERENCES));
}

uint64_t hcp_k32_LoadLibraryA(hcp_ctx *c, const hcp_k32_LoadLibraryA_args *a) {
    return load_library(c, a->lpLibFileName, false, 0, 0);
}
uint64_t hcp_k32_LoadLibraryW(hcp_ctx *c, const hcp_k32_LoadLibraryW_args *a) {
    return load_library(c, a->lpLibFileName, true, 0, 0);
}
uint64_t hcp_k32_LoadLibraryExA(hcp_ctx *c, const hcp_k32_LoadLibraryExA_args *a) {
    return load_library(c, a->lpLibFileName, false, a->hFile, a->dwFlags);
}
uint64_t hcp_k32_LoadLibraryExW(hcp_ctx *c, const hcp_k32_LoadLibraryExW_args *a) {
    return load_library(c, a->lpLibFileName, true, a->hFile, a->dwFlags);
}

uint64_t hcp_k32_FreeLibrary(hcp_ctx *c, const hcp_k32_FreeLibrary_args *a) {
    if (!a->hLibModule) return hcp_fail(c, ERROR_INVALID_HANDLE); /* as Wine: no module is NULL */
    if (dll_of_handle(a->hLibModule)) return 1;
    int mi = module_of_handle(c->p, a->hLibModule);
    if (mi < 0) return hcp_fail(c, ERROR_MOD_NOT_FOUND);
    return hcp_dll_freelibrary(c, mi);
}

/* Fails for a module with static TLS (its TLS callbacks must see every thread), as documented. */
uint64_t hcp_k32_DisableThreadLibraryCalls(hcp_ctx *c, const hcp_k32_DisableThreadLibraryCalls_args *a) {
    int mi = module_of_handle(c->p, a->hLibModule);
    if (mi < 0 || c->p->mods[mi].has_tls) return hcp_fail(c, ERROR_MOD_NOT_FOUND);
    c->p->mods[mi].no_thread_calls = true;
    return 1;
}

uint64_t hcp_export_address(hcp_process *p, const hcp_export *e) {
    const hcp_proc_data *d = &p->d;
    if (e->kind == HCP_EXPORT_GUEST) {
        switch (e->index) {
        case HCP_GUEST_initterm: return d->stub_initterm;
        case HCP_GUEST_cexit: return d->stub_cexit;
        case HCP_GUEST_exit: return d->stub_exit;
        default: return hcp_crt_export_address(p, e); /* the C runtime's own (api/crt_guest.c) */
        }
    }
    switch (e->index) {
    case HCP_VAR_initenv: return d->v_initenv;
    case HCP_VAR_acmdln: return d->v_acmdln;
    case HCP_VAR_commode: return d->v_commode;
    case HCP_VAR_fmode: return d->v_fmode;
    case HCP_VAR_mb_cur_max: return d->v_mb_cur_max;
    case HCP_VAR_iob: return d->iob;
    case HCP_VAR_environ: return d->v_environ;
    case HCP_VAR_wenviron: return p->x->v_wenviron;
    case HCP_VAR_argc: return d->v_argc;
    case HCP_VAR_argv: return d->v_argv;
    default: return hcp_crt_export_address(p, e);
    }
}

/* A module's export by name or ordinal (a forwarder followed; a forward to a DLL not loaded fails),
 * or a simulated DLL's function (its call-gate thunk) or variable, as an import of it would
 * resolve; a stub (known, not implemented) and unknown names: ERROR_PROC_NOT_FOUND, so a program
 * that probes for an optional function falls back. */
uint64_t hcp_k32_GetProcAddress(hcp_ctx *c, const hcp_k32_GetProcAddress_args *a) {
    bool by_ordinal = a->lpProcName < 0x10000;
    char name[256] = "";
    if (!by_ordinal && !hcp_gname(c, a->lpProcName, false, name, sizeof name)) return 0;
    int mi = module_of_handle(c->p, a->hModule ? a->hModule : c->p->base);
    if (mi >= 0) {
        uint64_t addr = 0;
        char err[512];
        uint32_t saved = c->p->load_status;
        int rc = hcp_dll_export(c->p, mi, by_ordinal ? NULL : name, (unsigned)a->lpProcName, &addr, err, sizeof err);
        c->p->load_status = saved;
        if (rc != 0) return hcp_fail(c, ERROR_PROC_NOT_FOUND);
        return addr;
    }
    const char *dll = dll_of_handle(a->hModule);
    if (!dll) return hcp_fail(c, ERROR_MOD_NOT_FOUND);
    const hcp_export *e = by_ordinal ? hcp_export_by_ordinal(dll, (unsigned)a->lpProcName) : hcp_export_find(dll, name);
    if (!e || e->kind == HCP_EXPORT_STUB) return hcp_fail(c, ERROR_PROC_NOT_FOUND);
    if (e->kind == HCP_EXPORT_FUNCTION) return hcp_export_thunk(c->os, e);
    return hcp_export_address(c->p, e);
}
