/* api/pe_dll.c — the program's own DLLs as real images (api/README.md "DLLs").
 *
 * An imported DLL that is not a simulated system DLL (a DLL of exports.spec, an
 * API set dispatch.c resolves) is searched the way Windows searches it: the
 * program's folder first, then the folders of the search path (`--dll-path`,
 * m:process{dll_path}); it is loaded by the same loader as the program
 * (api/pe_image.c), its imports resolved recursively (forwarders, data, by
 * ordinal), and it takes its place in the initialization order: a DLL after
 * the DLLs it imports.  The loader's calls of TLS callbacks and DllMain are
 * listed here (hcp_process_loader_calls) and made by the thread's driver
 * (scenarios/lprocess.c) as guest calls of their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/seh_int.h"

#define fail hcp_pe_fail
#define MAX_FORWARDS 16 /* a forwarder chain longer than this is refused (a loop) */

struct hcp_dll_state {
    char **dirs; /* host folders searched, in order */
    int ndirs;
    int *init; /* DLL modules in initialization order */
    int ninit, capinit;
    int forwards; /* depth of the forwarder chain being resolved */
    bool no_load; /* GetProcAddress: a forward to a DLL not loaded fails, loads nothing */
    struct {
        uint64_t base, size;
    } res[256]; /* images placed, not yet mapped (their imports are being resolved) */
    int nres;
};

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

int hcp_dll_set_options(hcp_process *p, const hcp_process_opts *o) {
    struct hcp_dll_state *st = calloc(1, sizeof *st);
    if (!st) return -1;
    p->dll = st;
    int n = (o && o->dll_dir ? 1 : 0) + (o ? o->ndll_path : 0);
    if (!(st->dirs = calloc((size_t)n + 1, sizeof *st->dirs))) return -1;
    if (o && o->dll_dir && !(st->dirs[st->ndirs++] = dup_str(o->dll_dir))) return -1;
    for (int i = 0; o && i < o->ndll_path; i++)
        if (!(st->dirs[st->ndirs++] = dup_str(o->dll_path[i]))) return -1;
    return 0;
}

void hcp_dll_free(hcp_process *p) {
    struct hcp_dll_state *st = p->dll;
    if (!st) return;
    for (int i = 0; i < st->ndirs; i++) free(st->dirs[i]);
    free(st->dirs);
    free(st->init);
    free(st);
    p->dll = NULL;
}

/* ---- names ---------------------------------------------------------------------------------------- */

static int lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch; }
static bool eq_ci(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (lower((unsigned char)*a) != lower((unsigned char)*b)) return false;
    return !*a && !*b;
}

/* A module name as Windows compares it: the file name without its folder, ".dll" added when it has
 * no extension. */
void hcp_dll_norm(const char *in, char *out, size_t cap) {
    const char *b = in;
    for (const char *s = in; *s; s++)
        if (*s == '\\' || *s == '/') b = s + 1;
    snprintf(out, cap, "%s%s", b, strchr(b, '.') ? "" : ".dll");
}

/* Windows system DLLs: imported, they load as simulated system DLLs unless a file of that name is
 * found first. An import with a row in the export spec (exports.spec: ucrtbase, vcruntime140 and
 * shell32 have some) is simulated; any other is a thunk that stops the run when called
 * (api/README.md "Windows programs"). */
static const char *const system_dlls[] = {
    "advapi32.dll", "bcrypt.dll",   "comctl32.dll",     "comdlg32.dll", "crypt32.dll",  "dbghelp.dll",
    "gdi32.dll",    "imm32.dll",    "iphlpapi.dll",     "mswsock.dll",  "ole32.dll",    "oleaut32.dll",
    "psapi.dll",    "rpcrt4.dll",   "secur32.dll",      "setupapi.dll", "shell32.dll",  "shlwapi.dll",
    "user32.dll",   "userenv.dll",  "uuid.dll",         "version.dll",  "winmm.dll",    "ws2_32.dll",
    "wsock32.dll",  "ucrtbase.dll", "vcruntime140.dll", "msvcp140.dll", "ntoskrnl.exe", NULL};

bool hcp_dll_is_windows(const char *norm) {
    if (strncmp(norm, "api-ms-", 7) == 0 || strncmp(norm, "ext-ms-", 7) == 0) return true;
    for (int i = 0; system_dlls[i]; i++)
        if (eq_ci(system_dlls[i], norm)) return true;
    return false;
}

int hcp_module_find(const hcp_process *p, const char *name) {
    char n[300];
    hcp_dll_norm(name, n, sizeof n);
    for (int i = 0; i < p->nmods; i++)
        if (!p->mods[i].unloaded && eq_ci(p->mods[i].name, n)) return i;
    return -1;
}

/* ---- loading ----------------------------------------------------------------------------------------- */

uint8_t *hcp_dll_find_file(char *const *dirs, int ndirs, const char *name, size_t *n, int *dir) {
    char low[300];
    snprintf(low, sizeof low, "%s", name);
    for (char *c = low; *c; c++) *c = (char)lower((unsigned char)*c);
    for (int d = 0; d < ndirs; d++) {
        for (int v = 0; v < 2; v++) {
            if (v == 1 && strcmp(low, name) == 0) break;
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", dirs[d], v ? low : name);
            FILE *f = fopen(path, "rb");
            if (!f) continue;
            size_t limit = (size_t)HCP_PE_MAX_IMAGE * 2, len = 0;
            uint8_t *b = malloc(limit + 1);
            if (b) len = fread(b, 1, limit + 1, f);
            fclose(f);
            if (!b) return NULL;
            if (len > limit) len = limit; /* the parser names what is missing */
            *n = len;
            *dir = d;
            return b;
        }
    }
    return NULL;
}

static int add_module(hcp_process *p) {
    if (p->nmods == p->capmods) {
        int nc = 2 * p->capmods;
        hcp_module *m = realloc(p->mods, (size_t)nc * sizeof *m);
        if (!m) return -1;
        p->mods = m;
        p->capmods = nc;
    }
    memset(&p->mods[p->nmods], 0, sizeof p->mods[0]);
    p->mods[p->nmods].order = -1;
    p->mods[p->nmods].tls_slot = -1;
    return p->nmods++;
}

static int export_of(hcp_process *p, int mi, const char *name, unsigned ordinal, const char *importer, uint64_t *addr,
                     char *err, size_t cap);

int hcp_dll_export(hcp_process *p, int mi, const char *name, unsigned ordinal, uint64_t *addr, char *err, size_t cap) {
    p->dll->no_load = true;
    int rc = export_of(p, mi, name, ordinal, "GetProcAddress", addr, err, cap);
    p->dll->no_load = false;
    return rc;
}

static int dll_import_cb(void *ud, const char *dll, const char *name, unsigned ordinal, uint64_t *addr, char *err,
                         size_t cap);

typedef struct import_ctx {
    hcp_process *p;
    int from;
} import_ctx;

/* The TLS blocks of a module loaded while threads run: one for each live thread (the main thread's
 * array in the process block, the others' in their TEB pages). */
static int tls_for_threads(hcp_process *p, int mi) {
    const hcp_module *mod = &p->mods[mi];
    unsigned w = p->pe.pe32plus ? 8 : 4;
    for (int i = 0; i < p->nthr; i++) {
        uint64_t block;
        uint8_t b[8];
        if (sim_thread_state_of(p->thr[i].t) == SIM_TS_TERMINATED) continue;
        if (hcp_process_tls_block(p, mod, &block) != 0) return -1;
        hcp_put64(b, block);
        if (sim_mem_write(p->os->m, p->thr[i].tls_array + (uint64_t)mod->tls_slot * w, b, w) != SIM_OK) return -1;
    }
    if (p->nthr == 0) { /* at load: the main thread's array */
        uint64_t block;
        uint8_t b[8];
        if (hcp_process_tls_block(p, mod, &block) != 0) return -1;
        hcp_put64(b, block);
        if (sim_mem_write(p->os->m, p->d.tls_array + (uint64_t)mod->tls_slot * w, b, w) != SIM_OK) return -1;
    }
    return 0;
}

/* Loads DLL `norm` (a normalised name) found in the search folders; its index, or -1 with the
 * reason in err and p->load_status. */
static int load_dll(hcp_process *p, const char *norm, const char *importer, char *err, size_t cap) {
    struct hcp_dll_state *st = p->dll;
    size_t n = 0;
    int dir = -1;
    uint8_t *file = hcp_dll_find_file(st->dirs, st->ndirs, norm, &n, &dir);
    if (!file) {
        p->load_status = STATUS_DLL_NOT_FOUND;
        int k = snprintf(err, cap,
                         "The code execution cannot proceed because %s was not found. Reinstalling the program may "
                         "fix this problem. (%s imports it; hcpsim looked in ",
                         norm, importer);
        for (int d = 0; d < st->ndirs && k > 0 && (size_t)k < cap; d++)
            k += snprintf(err + k, cap - (size_t)k, "%s%s", d ? ", " : "", st->dirs[d]);
        if (k > 0 && (size_t)k < cap)
            snprintf(err + k, cap - (size_t)k, "%s)", st->ndirs ? "" : "no folder: none was given");
        return -1;
    }
    char why[384];
    hcp_image im;
    int rc = hcp_image_open(file, n, true, &im, why, sizeof why);
    if (!rc && im.pe.machine != p->pe.machine) {
        rc = fail(why, sizeof why, "an %s image; this process runs %s code", hcp_pe_machine_name(im.pe.machine),
                  hcp_pe_machine_name(p->pe.machine));
    }
    if (!rc) rc = hcp_image_layout(file, &im, why, sizeof why);
    free(file);
    if (rc) {
        p->load_status = STATUS_INVALID_IMAGE_FORMAT;
        fail(err, cap, "The application was unable to start correctly (0xc000007b): %s (in %s): %s", norm,
             st->dirs[dir], why);
        hcp_image_close(&im);
        return -1;
    }
    int mi = add_module(p);
    if (mi < 0) {
        hcp_image_close(&im);
        return fail(err, cap, "out of host memory");
    }
    hcp_module *mod = &p->mods[mi];
    snprintf(mod->name, sizeof mod->name, "%s", norm);
    snprintf(mod->path, sizeof mod->path, "C:\\hcpsim\\%s", norm);
    mod->pe = im.pe;
    mod->dll = true;
    if (!hcp_image_choose_base(p->os->m, &im, p))
        rc = fail(why, sizeof why, "no free guest address range of 0x%X bytes for the image", im.pe.size_of_image);
    if (!rc && im.base != im.pe.image_base) {
        if ((im.pe.characteristics & IMAGE_FILE_RELOCS_STRIPPED) || !im.pe.dir_rva[HCP_DIR_BASERELOC])
            rc = fail(why, sizeof why, "its preferred base 0x%llX is taken and it has no base relocations",
                      (unsigned long long)im.pe.image_base);
        else
            rc = hcp_image_relocate(&im, why, sizeof why);
    }
    p->mods[mi].base = im.base;
    if (!rc && im.pe.dir_rva[HCP_DIR_TLS]) {
        if (p->ntls_slots >= HCP_TLS_MODULES)
            rc = fail(why, sizeof why, "more than %u modules with TLS", HCP_TLS_MODULES);
        else
            p->mods[mi].tls_slot = p->ntls_slots++;
    }
    if (!rc) rc = hcp_image_tls(&im, &p->mods[mi], why, sizeof why);
    if (!rc && p->mods[mi].has_tls && tls_for_threads(p, mi) != 0)
        rc = fail(why, sizeof why, "no guest memory for the TLS block");
    if (!rc) rc = hcp_image_exports(&im, &p->mods[mi], why, sizeof why);
    if (rc) {
        if (!p->load_status) p->load_status = STATUS_INVALID_IMAGE_FORMAT;
        fail(err, cap, "%s: %s", norm, why);
        hcp_image_close(&im);
        return -1;
    }
    /* its imports load the DLLs it needs, which must not take its range: reserved until it is mapped */
    import_ctx ic = {p, mi};
    rc = hcp_dll_reserve(p, im.base, im.pe.size_of_image);
    if (!rc) rc = hcp_image_imports(&im, dll_import_cb, &ic, err, cap);
    hcp_dll_unreserve(p, im.base);
    if (!rc && hcp_image_map(p->os->m, &im, why, sizeof why) != 0) rc = fail(err, cap, "%s: %s", norm, why);
    if (!rc && hcp_module_init_prot(&p->mods[mi]) != 0) rc = fail(err, cap, "out of host memory");
    if (!rc && im.pe.entry) p->mods[mi].entry = im.base + im.pe.entry;
    hcp_image_close(&im);
    return rc ? -1 : mi;
}

/* Ranges of images chosen and not yet mapped (hcp_image_choose_base avoids them). */
int hcp_dll_reserve(hcp_process *p, uint64_t base, uint64_t size) {
    struct hcp_dll_state *st = p->dll;
    if (st->nres == (int)(sizeof st->res / sizeof st->res[0])) return -1;
    st->res[st->nres].base = base;
    st->res[st->nres++].size = (size + 0xFFFu) & ~(uint64_t)0xFFFu;
    return 0;
}
void hcp_dll_unreserve(hcp_process *p, uint64_t base) {
    struct hcp_dll_state *st = p->dll;
    for (int i = 0; i < st->nres; i++)
        if (st->res[i].base == base) {
            st->res[i] = st->res[--st->nres];
            return;
        }
}
bool hcp_dll_reserved(const hcp_process *p, uint64_t base, uint64_t size) {
    const struct hcp_dll_state *st = p && p->dll ? p->dll : NULL;
    for (int i = 0; st && i < st->nres; i++)
        if (base < st->res[i].base + st->res[i].size && st->res[i].base < base + size) return true;
    return false;
}

/* ---- resolving ------------------------------------------------------------------------------------- */

static void add_dep(hcp_process *p, int from, int to) {
    hcp_module *mod = &p->mods[from];
    if (from == to) return;
    for (int i = 0; i < mod->ndeps; i++)
        if (mod->deps[i] == to) return;
    if (mod->ndeps == mod->capdeps) {
        int nc = mod->capdeps ? 2 * mod->capdeps : 8;
        int *d = realloc(mod->deps, (size_t)nc * sizeof *d);
        if (!d) return;
        mod->deps = d;
        mod->capdeps = nc;
    }
    mod->deps[mod->ndeps++] = to;
}

/* Export `name` (or `ordinal`) of module mi: its address, a forwarder followed. */
static int export_of(hcp_process *p, int mi, const char *name, unsigned ordinal, const char *importer, uint64_t *addr,
                     char *err, size_t cap) {
    const hcp_module *mod = &p->mods[mi];
    int idx = -1;
    if (name)
        idx = hcp_module_export_index(mod, name);
    else if (ordinal >= mod->exp_base && ordinal - mod->exp_base < mod->exp_nfun)
        idx = (int)(ordinal - mod->exp_base);
    if (idx < 0 || (!mod->exp_rva[idx] && !mod->exp_fwd[idx])) {
        p->load_status = name ? STATUS_ENTRYPOINT_NOT_FOUND : STATUS_ORDINAL_NOT_FOUND;
        if (name)
            return fail(err, cap,
                        "The procedure entry point %s could not be located in the dynamic link library %s (%s imports "
                        "it)",
                        name, mod->name, importer);
        return fail(err, cap, "The ordinal %u could not be located in the dynamic link library %s (%s imports it)",
                    ordinal, mod->name, importer);
    }
    if (!mod->exp_fwd[idx]) {
        *addr = mod->base + mod->exp_rva[idx];
        return 0;
    }
    char fdll[300], fname[256];
    const char *fwd = mod->exp_fwd[idx], *dot = strrchr(fwd, '.');
    snprintf(fdll, sizeof fdll, "%.*s", (int)(dot - fwd), fwd);
    snprintf(fname, sizeof fname, "%s", dot + 1);
    struct hcp_dll_state *st = p->dll;
    if (st->forwards >= MAX_FORWARDS) {
        p->load_status = STATUS_ENTRYPOINT_NOT_FOUND;
        return fail(err, cap, "%s's export %s forwards to %s: a chain of more than %d forwarders", mod->name,
                    name ? name : "(by ordinal)", fwd, MAX_FORWARDS);
    }
    st->forwards++;
    int rc;
    if (fname[0] == '#') {
        char *end;
        unsigned long o = strtoul(fname + 1, &end, 10);
        rc = *end || o > 0xFFFF ? fail(err, cap, "%s: forwarder '%s' has no ordinal after '#'", mod->name, fwd)
                                : hcp_dll_import(p, mi, fdll, NULL, (unsigned)o, addr, err, cap);
    } else {
        rc = hcp_dll_import(p, mi, fdll, fname, 0, addr, err, cap);
    }
    st->forwards--;
    return rc;
}

int hcp_dll_import(hcp_process *p, int from, const char *dll, const char *name, unsigned ordinal, uint64_t *addr,
                   char *err, size_t cap) {
    if (hcp_export_dll(dll)) return hcp_process_system_import(p, dll, name, ordinal, addr, err, cap);
    char norm[300];
    hcp_dll_norm(dll, norm, sizeof norm);
    int mi = hcp_module_find(p, norm);
    if (mi < 0 && p->dll->no_load) return fail(err, cap, "%s is not loaded", norm);
    if (mi < 0) {
        mi = load_dll(p, norm, p->mods[from].name, err, cap);
        if (mi < 0) {
            if (p->load_status == STATUS_DLL_NOT_FOUND && hcp_dll_is_windows(norm)) { /* a Windows DLL hcpsim lacks */
                p->load_status = 0;
                return hcp_process_system_import(p, norm, name, ordinal, addr, err, cap);
            }
            return -1;
        }
    }
    add_dep(p, from, mi);
    return export_of(p, mi, name, ordinal, p->mods[from].name, addr, err, cap);
}

static int dll_import_cb(void *ud, const char *dll, const char *name, unsigned ordinal, uint64_t *addr, char *err,
                         size_t cap) {
    import_ctx *ic = ud;
    return hcp_dll_import(ic->p, ic->from, dll, name, ordinal, addr, err, cap);
}

/* ---- initialization order ----------------------------------------------------------------------- */

/* Post-order over the import graph from module mi: a DLL after the DLLs it imports, in the order
 * its imports name them (a cycle is broken where it closes). */
static int order_from(hcp_process *p, int mi, int depth) {
    hcp_module *mod = &p->mods[mi];
    struct hcp_dll_state *st = p->dll;
    if (mod->order != -1 || depth > 4096) return 0;
    mod->order = -2; /* on the path */
    for (int i = 0; i < mod->ndeps; i++)
        if (order_from(p, mod->deps[i], depth + 1) != 0) return -1;
    if (!mod->dll) {
        mod->order = -3; /* the program: its TLS callbacks come after every DLL's initialization */
        return 0;
    }
    if (st->ninit == st->capinit) {
        int nc = st->capinit ? 2 * st->capinit : 16;
        int *a = realloc(st->init, (size_t)nc * sizeof *a);
        if (!a) return -1;
        st->init = a;
        st->capinit = nc;
    }
    mod->order = st->ninit;
    st->init[st->ninit++] = mi;
    return 0;
}

int hcp_dll_finish_load(hcp_process *p, char *err, size_t cap) {
    for (int i = 0; i < p->nmods; i++) {
        p->mods[i].is_static = true; /* loaded with the program: never unloaded */
        if (order_from(p, i, 0) != 0) return fail(err, cap, "out of host memory");
    }
    return 0;
}

/* ---- the loader's calls ------------------------------------------------------------------------- */

static int push_call(hcp_loader_call **a, int *n, int *capn, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2,
                     bool dllmain, int module) {
    if (*n == *capn) {
        int nc = *capn ? 2 * *capn : 16;
        hcp_loader_call *x = realloc(*a, (size_t)nc * sizeof *x);
        if (!x) return -1;
        *a = x;
        *capn = nc;
    }
    (*a)[(*n)++] = (hcp_loader_call){fn, {a0, a1, a2}, dllmain, module};
    return 0;
}

/* Module mi's calls for `reason`: its TLS callbacks, then its DllMain. */
static int module_calls(hcp_process *p, int mi, uint32_t reason, uint64_t reserved, hcp_loader_call **a, int *n,
                        int *capn) {
    const hcp_module *mod = &p->mods[mi];
    for (int k = 0; k < mod->ntls_cb; k++)
        if (push_call(a, n, capn, mod->tls_cb[k], mod->base, reason, mi ? reserved : 0, false, mi) != 0) return -1;
    if (mod->dll && mod->entry && push_call(a, n, capn, mod->entry, mod->base, reason, reserved, true, mi) != 0)
        return -1;
    return 0;
}

int hcp_process_loader_calls(hcp_process *p, uint32_t reason, hcp_loader_call **out) {
    struct hcp_dll_state *st = p->dll;
    hcp_loader_call *a = NULL;
    int n = 0, capn = 0;
    bool attach = reason == HCP_DLL_PROCESS_ATTACH || reason == HCP_DLL_THREAD_ATTACH;
    bool process = reason == HCP_DLL_PROCESS_ATTACH || reason == HCP_DLL_PROCESS_DETACH;
    uint64_t reserved = process ? 1 : 0; /* lpReserved: non-NULL for a static load and at process exit */
    for (int k = 0; k < st->ninit; k++) {
        int mi = st->init[attach ? k : st->ninit - 1 - k];
        hcp_module *mod = &p->mods[mi];
        if (mod->unloaded) continue;
        if (reason == HCP_DLL_PROCESS_ATTACH) {
            if (mod->attached || !mod->is_static) continue;
            mod->attached = true;
        } else if (!mod->attached || (!process && mod->no_thread_calls)) {
            continue;
        }
        if (reason == HCP_DLL_PROCESS_DETACH) mod->attached = false;
        if (module_calls(p, mi, reason, reserved, &a, &n, &capn) != 0) {
            free(a);
            return -1;
        }
    }
    if (module_calls(p, 0, reason, 0, &a, &n, &capn) != 0) { /* the program's TLS callbacks: last */
        free(a);
        return -1;
    }
    *out = a;
    return n;
}

static const char *hcp_process_module_name(const hcp_process *p, int mi) {
    return mi >= 0 && mi < p->nmods ? p->mods[mi].name : "?";
}

void hcp_process_start_failed(hcp_process *p, int mi) {
    p->load_status = STATUS_DLL_INIT_FAILED;
    snprintf(p->failure, sizeof p->failure,
             "%s: The application was unable to start correctly (0xc0000142): %s's DllMain returned FALSE for "
             "DLL_PROCESS_ATTACH",
             p->name, hcp_process_module_name(p, mi));
}

uint32_t hcp_process_load_status(const hcp_process *p) { return p->load_status; }

/* ---- loading and unloading while the program runs (LoadLibrary, FreeLibrary) ----------------------- */

/* Module mi unloaded: its pages inaccessible, its range still taken (hcpsim unmaps nothing). */
static void unload_one(hcp_process *p, int mi) {
    hcp_module *mod = &p->mods[mi];
    if (mod->unloaded) return;
    mod->unloaded = true;
    mod->attached = false;
    sim_protect_pages(p->os->m, mod->base, (mod->pe.size_of_image + 0xFFFull) & ~0xFFFull, 0);
}

/* A LoadLibrary or FreeLibrary run: the TLS callbacks and DllMain of the modules concerned. */
typedef struct loader_run {
    hcp_loader_call *calls;
    int n, next;
    uint64_t result; /* what the call returns: the handle, TRUE */
    int first_new;   /* LoadLibrary: the modules it added (undone when a DllMain fails) */
    bool failed;     /* a DllMain returned FALSE for DLL_PROCESS_ATTACH */
    int *unload;     /* FreeLibrary: the modules to unload once detached */
    int nunload;
} loader_run;

static void loader_free(void *v) {
    loader_run *l = v;
    free(l->calls);
    free(l->unload);
    free(l);
}

static int loader_step(hcp_ctx *c, hcp_run *r, uint64_t result, bool first) {
    loader_run *l = r->data;
    hcp_process *p = c->p;
    if (!first && !l->failed) {
        const hcp_loader_call *prev = &l->calls[l->next - 1];
        if (prev->dllmain && prev->a[1] == HCP_DLL_PROCESS_ATTACH && (uint32_t)result == 0) {
            /* Windows calls it again with DLL_PROCESS_DETACH and unloads what this load added */
            l->failed = true;
            l->calls[0] = (hcp_loader_call){prev->fn, {prev->a[0], HCP_DLL_PROCESS_DETACH, 0}, true, prev->module};
            l->n = 1;
            l->next = 0;
        }
    }
    if (l->next < l->n) {
        const hcp_loader_call *k = &l->calls[l->next++];
        r->fn = k->fn;
        memcpy(r->a, k->a, sizeof k->a);
        r->a[3] = 0;
        return HCP_STEP_CALL;
    }
    if (l->failed) {
        for (int i = l->first_new; i < p->nmods; i++) unload_one(p, i);
        hcp_SetLastError(c->os, ERROR_DLL_INIT_FAILED);
        r->resume.gpr[HCP_AX] = 0;
        return HCP_STEP_DONE;
    }
    for (int i = 0; i < l->nunload; i++) unload_one(p, l->unload[i]);
    r->resume.gpr[HCP_AX] = l->result;
    return HCP_STEP_DONE;
}

/* Runs l's calls from c's gate call, or returns its result at once when there are none. */
static uint64_t run_loader(hcp_ctx *c, loader_run *l) {
    if (l->n == 0) {
        uint64_t rv = l->result;
        for (int i = 0; i < l->nunload; i++) unload_one(c->p, l->unload[i]);
        loader_free(l);
        return rv;
    }
    sim_context gate;
    if (sim_thread_context(c->t, &gate) != SIM_OK) {
        loader_free(l);
        return hcp_stop(c, "no context");
    }
    hcp_run *r = hcp_run_new(HCP_RUN_LOADER, loader_step, l, loader_free);
    if (!r) return hcp_stop(c, "out of host memory");
    hcp_run_start(c, r, &gate, gate.gpr[HCP_SP], 0);
    return 0; /* the run's context holds the result */
}

uint64_t hcp_dll_loadlibrary(hcp_ctx *c, const char *name, bool init) {
    hcp_process *p = c->p;
    struct hcp_dll_state *st = p->dll;
    char norm[300], msg[512];
    hcp_dll_norm(name, norm, sizeof norm);
    int mi = hcp_module_find(p, norm);
    if (mi >= 0) {
        if (!p->mods[mi].is_static && p->mods[mi].refs > 0) p->mods[mi].refs++;
        return p->mods[mi].base;
    }
    int first_new = p->nmods, ninit = st->ninit;
    uint32_t saved = p->load_status;
    p->load_status = 0;
    mi = load_dll(p, norm, "LoadLibrary", msg, sizeof msg);
    uint32_t status = p->load_status;
    p->load_status = saved;
    if (mi < 0 || order_from(p, mi, 0) != 0) {
        for (int i = first_new; i < p->nmods; i++) unload_one(p, i);
        st->ninit = ninit;
        return hcp_fail(c, status ? hcp_nt_to_win32(status) : ERROR_NOT_ENOUGH_MEMORY);
    }
    for (int i = first_new; i < p->nmods; i++) p->mods[i].refs = 1; /* the others: held by their importers */
    loader_run *l = calloc(1, sizeof *l);
    if (!l) return hcp_stop(c, "out of host memory");
    l->result = p->mods[mi].base;
    l->first_new = first_new;
    int capn = 0;
    for (int k = ninit; init && k < st->ninit; k++) { /* the new modules, a DLL after those it imports */
        hcp_module *mod = &p->mods[st->init[k]];
        mod->attached = true;
        if (module_calls(p, st->init[k], HCP_DLL_PROCESS_ATTACH, 0, &l->calls, &l->n, &capn) != 0) {
            loader_free(l);
            return hcp_stop(c, "out of host memory");
        }
    }
    return run_loader(c, l);
}

/* Drops a reference to module mi; those that reach none join `out` (its dependencies too). */
static void release(hcp_process *p, int mi, int **out, int *n, int depth) {
    hcp_module *mod = &p->mods[mi];
    if (mod->is_static || mod->unloaded || mod->refs <= 0 || depth > 64) return;
    if (--mod->refs > 0) return;
    int *x = realloc(*out, (size_t)(*n + 1) * sizeof *x);
    if (!x) return;
    *out = x;
    (*out)[(*n)++] = mi;
    for (int i = 0; i < mod->ndeps; i++) release(p, mod->deps[i], out, n, depth + 1);
}

uint64_t hcp_dll_freelibrary(hcp_ctx *c, int mi) {
    hcp_process *p = c->p;
    struct hcp_dll_state *st = p->dll;
    loader_run *l = calloc(1, sizeof *l);
    if (!l) return hcp_stop(c, "out of host memory");
    l->result = 1;
    release(p, mi, &l->unload, &l->nunload, 0);
    int capn = 0;
    for (int k = st->ninit - 1; k >= 0; k--) { /* DLL_PROCESS_DETACH, lpReserved NULL: reverse init order */
        int m = st->init[k];
        bool going = false;
        for (int i = 0; i < l->nunload; i++) going |= l->unload[i] == m;
        if (!going || !p->mods[m].attached) continue;
        p->mods[m].attached = false;
        if (module_calls(p, m, HCP_DLL_PROCESS_DETACH, 0, &l->calls, &l->n, &capn) != 0) {
            loader_free(l);
            return hcp_stop(c, "out of host memory");
        }
    }
    return run_loader(c, l);
}
