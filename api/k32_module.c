/* api/k32_module.c — KERNEL32's modules: the image and the simulated system
 * DLLs by name and handle, and what their exports resolve to (api/README.md
 * "Windows programs": "Modules").
 *
 * A simulated system DLL has a fixed pseudo module handle at which no image is
 * mapped; GetProcAddress on it resolves a name as an import of that name
 * would (api/exports.spec). */
#include <stdio.h>
#include <strings.h>

#include "api/exports_gen.h"
#include "api/files_int.h"

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

const char *hcp_module_dll_name(uint64_t h) { return dll_of_handle(h); }

/* The handle of module `name` (a file name, any case, ".dll" optional): the image or a
 * simulated system DLL; 0 for none. */
static uint64_t module_handle(hcp_ctx *c, const char *name) {
    if (strcasecmp(name, c->p->name) == 0) return c->p->base;
    const char *d = hcp_export_dll(name);
    return d ? dll_handle(d) : 0;
}

static uint64_t get_module(hcp_ctx *c, uint64_t at, bool wide, bool load) {
    if (!at) return load ? hcp_fail(c, ERROR_INVALID_PARAMETER) : c->p->base;
    char full[260];
    if (!hcp_gname(c, at, wide, full, sizeof full)) return 0;
    const char *b = full;
    for (const char *q = full; *q; q++)
        if (*q == '\\' || *q == '/') b = q + 1;
    uint64_t h = module_handle(c, b);
    return h ? h : hcp_fail(c, ERROR_MOD_NOT_FOUND); /* hcpsim loads no other DLL */
}

uint64_t hcp_k32_GetModuleHandleA(hcp_ctx *c, const hcp_k32_GetModuleHandleA_args *a) {
    return get_module(c, a->lpModuleName, false, false);
}
uint64_t hcp_k32_GetModuleHandleW(hcp_ctx *c, const hcp_k32_GetModuleHandleW_args *a) {
    return get_module(c, a->lpModuleName, true, false);
}
uint64_t hcp_k32_LoadLibraryA(hcp_ctx *c, const hcp_k32_LoadLibraryA_args *a) {
    return get_module(c, a->lpLibFileName, false, true);
}
uint64_t hcp_k32_LoadLibraryW(hcp_ctx *c, const hcp_k32_LoadLibraryW_args *a) {
    return get_module(c, a->lpLibFileName, true, true);
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

/* The image's exports, or a simulated DLL's function (its call-gate thunk) or variable, as an
 * import of that name would resolve; a stub (known, not implemented), ordinals and unknown
 * names: ERROR_PROC_NOT_FOUND, so a program that probes for an optional function falls back. */
uint64_t hcp_k32_GetProcAddress(hcp_ctx *c, const hcp_k32_GetProcAddress_args *a) {
    if (a->lpProcName < 0x10000) return hcp_fail(c, ERROR_PROC_NOT_FOUND); /* by ordinal */
    char name[128];
    if (!hcp_gname(c, a->lpProcName, false, name, sizeof name)) return 0;
    if (a->hModule == c->p->base) {
        for (int i = 0; i < c->p->nexports; i++)
            if (strcmp(c->p->exports[i].name, name) == 0) return c->p->exports[i].addr;
        return hcp_fail(c, ERROR_PROC_NOT_FOUND);
    }
    const char *dll = dll_of_handle(a->hModule);
    const hcp_export *e = dll ? hcp_export_find(dll, name) : NULL;
    if (!e || e->kind == HCP_EXPORT_STUB) return hcp_fail(c, ERROR_PROC_NOT_FOUND);
    if (e->kind == HCP_EXPORT_FUNCTION) return hcp_export_thunk(c->os, e);
    return hcp_export_address(c->p, e);
}
