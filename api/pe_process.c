/* api/pe_process.c — the process a loaded program makes (api/README.md "Windows
 * programs").
 *
 * hcp_process_load loads the program's image with the loader (api/pe_image.c),
 * resolves its imports (the simulated system DLLs through the export spec, its
 * own DLLs through api/pe_dll.c) and builds the process data: PEB, TEB,
 * RTL_USER_PROCESS_PARAMETERS, the command line, a fixed environment and
 * msvcrt's variables, one read/write block from sim_alloc in which nothing
 * comes from the host.  The rest is the process's threads and accessors. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/files_int.h"
#include "api/layouts.h"
#include "api/seh_int.h"
#include "api/sync_int.h"
#include "api/system.h"

#define fail hcp_pe_fail

static unsigned ptrw(const hcp_process *p) { return p->pe.pe32plus ? 8 : 4; }

/* ---- imports of the simulated system DLLs --------------------------------------------------- */

static int missing_service(hcp_process *p, const char *dll, const char *fn, char *err, size_t cap) {
    char full[96];
    snprintf(full, sizeof full, "%s!%s", dll, fn);
    for (int i = 0; i < p->nmissing; i++)
        if (strcmp(p->missing[i], full) == 0) return (int)HCP_SVC_MISSING + i;
    if (p->nmissing >= (int)HCP_MAX_MISSING)
        return fail(err, cap, "more than %u imports hcpsim does not implement", HCP_MAX_MISSING);
    if (!p->missing && !(p->missing = calloc(HCP_MAX_MISSING, sizeof *p->missing)))
        return fail(err, cap, "out of host memory");
    snprintf(p->missing[p->nmissing], sizeof p->missing[0], "%s", full);
    return (int)HCP_SVC_MISSING + p->nmissing++;
}

int hcp_process_system_import(hcp_process *p, const char *dll, const char *name, unsigned ordinal, uint64_t *addr,
                              char *err, size_t cap) {
    char fn[80];
    const hcp_export *ex;
    if (!name) {
        ex = hcp_export_by_ordinal(dll, ordinal);
        if (ex)
            snprintf(fn, sizeof fn, "%s", ex->name);
        else
            snprintf(fn, sizeof fn, "#%u", ordinal);
    } else {
        snprintf(fn, sizeof fn, "%s", name);
        ex = hcp_export_find(dll, name);
    }
    if (ex && (ex->kind == HCP_EXPORT_DATA || ex->kind == HCP_EXPORT_GUEST)) {
        *addr = hcp_export_address(p, ex);
    } else if (ex) { /* a function, or a stub: its own thunk names it when called */
        *addr = hcp_export_thunk(p->os, ex);
    } else {
        int svc = missing_service(p, dll, fn, err, cap);
        if (svc < 0) return -1;
        *addr = sim_gate_thunk(p->os->m, (uint32_t)svc);
    }
    return 0;
}

/* ---- the process data block ---------------------------------------------------------------------- */

typedef struct blk {
    uint8_t *b;
    uint32_t used, cap;
    uint64_t base;
} blk;

static uint64_t put(blk *k, const void *bytes, uint32_t n, uint32_t align) {
    k->used = (k->used + align - 1) & ~(align - 1);
    if (n > k->cap - k->used) return 0;
    uint64_t at = k->base + k->used;
    if (bytes) memcpy(k->b + k->used, bytes, n);
    k->used += n;
    return at;
}
static uint64_t put_a(blk *k, const char *s) { return put(k, s, (uint32_t)strlen(s) + 1, 2); }
static uint64_t put_w(blk *k, const char *s, uint32_t *bytes) {
    uint32_t n = (uint32_t)strlen(s);
    uint64_t at = put(k, NULL, 2 * (n + 1), 2);
    if (!at) return 0;
    uint8_t *d = k->b + (at - k->base);
    for (uint32_t i = 0; i <= n; i++) hcp_put16(d + 2 * i, (uint8_t)s[i]);
    if (bytes) *bytes = 2 * n;
    return at;
}
static void wr(blk *k, uint64_t at, uint64_t v, unsigned w) {
    if (w == 8)
        hcp_put64(k->b + (at - k->base), v);
    else if (w == 4)
        hcp_put32(k->b + (at - k->base), (uint32_t)v);
    else
        hcp_put16(k->b + (at - k->base), (uint16_t)v);
}

/* Field FIELD of guest structure S at guest address `at` (api/layouts.h), in the process block. */
#define LAY(at, S, FIELD, v) hcp_lay_put(k.b + ((at)-k.base), HCP_L_##S##_##FIELD, x64, (uint64_t)(v))

/* Appends one argument to the command line so that CommandLineToArgvW and the C runtimes' argv
 * rules give it back unchanged: as it is when it holds no blank, tab or quote; else a quote becomes
 * \" and the backslashes before it double; an empty argument or one with a blank or tab is
 * quoted, the backslashes before the closing quote doubled (api/README.md "Windows programs"). */
static size_t put_arg(char *cmd, size_t c, size_t cap, const char *s) {
    bool quote = !*s || strpbrk(s, " \t") != NULL;
    size_t bs = 0;
#define PUT(ch)                                                                                                        \
    do {                                                                                                               \
        if (c + 1 >= cap) return cap; /* too long: the caller refuses it */                                            \
        cmd[c++] = (ch);                                                                                               \
    } while (0)
    PUT(' ');
    if (quote) PUT('"');
    for (const char *q = s; *q; q++) {
        if (*q == '\\') {
            bs++;
        } else {
            if (*q == '"')
                for (size_t i = 0; i <= bs; i++) PUT('\\');
            bs = 0;
        }
        PUT(*q);
    }
    if (quote) {
        for (size_t i = 0; i < bs; i++) PUT('\\');
        PUT('"');
    }
#undef PUT
    cmd[c] = 0;
    return c;
}

#define DATA_BLOCK 0x10000u

static int build_data(hcp_process *p, const char *const *args, int nargs, char *err, size_t cap) {
    sim_machine *m = p->os->m;
    unsigned w = ptrw(p);
    bool x64 = w == 8;
    uint64_t base;
    /* The environment (k32_env.c), in ANSI and UTF-16 and as envp's strings: a larger block when
     * the variables the run added need it (the fixed environment fits the first 64 KiB). */
    size_t env_bytes = hcp_env_block_a(p, NULL, 0);
    int nenv = hcp_env_count(p);
    uint32_t block_size = DATA_BLOCK;
    if (env_bytes > 1024)
        block_size += (uint32_t)((4 * env_bytes + (size_t)w * (size_t)(nenv + 1) + 0xFFFF) & ~(size_t)0xFFFF);
    char *envb = malloc(env_bytes);
    if (!envb) return fail(err, cap, "out of host memory");
    hcp_env_block_a(p, envb, env_bytes);
    if (sim_alloc(m, block_size, &base) != SIM_OK) {
        free(envb);
        return fail(err, cap, "no guest memory for the process block");
    }
    blk k = {calloc(1, block_size), 0, block_size, base};
    if (!k.b) {
        free(envb);
        return fail(err, cap, "out of host memory");
    }
    hcp_proc_data *d = &p->d;
    d->base = base;
    d->peb = put(&k, NULL, 0x800, 16);
    d->teb = put(&k, NULL, 0x1000, 0x1000);
    d->params = put(&k, NULL, 0x400, 16);
    d->tls_array = put(&k, NULL, 8 * HCP_TLS_MODULES, 16);
    char path[96], cmd[4096];
    snprintf(path, sizeof path, "C:\\hcpsim\\%s", p->name);
    /* the program's path, quoted when its name holds a blank (as a shell quotes it) */
    size_t c = (size_t)snprintf(cmd, sizeof cmd, strpbrk(path, " \t") ? "\"%s\"" : "%s", path);
    for (int i = 0; i < nargs && c < sizeof cmd; i++) c = put_arg(cmd, c, sizeof cmd, args[i]);
    if (c >= sizeof cmd - 1) {
        free(k.b);
        free(envb);
        return fail(err, cap, "the command line is longer than %zu bytes", sizeof cmd - 2);
    }
    uint32_t cmd_bytes = 0, path_bytes = 0;
    d->cmdline_a = put_a(&k, cmd);
    d->cmdline_w = put_w(&k, cmd, &cmd_bytes);
    d->image_w = put_w(&k, path, &path_bytes);
    /* environment: "A=B\0C=D\0\0", ANSI and UTF-16 */
    size_t e = env_bytes;
    d->env_a = put(&k, envb, (uint32_t)e, 2);
    d->env_w = put(&k, NULL, (uint32_t)(2 * e), 2);
    for (size_t i = 0; i < e; i++) wr(&k, d->env_w + 2 * i, (uint8_t)envb[i], 2);
    /* argv and envp: pointer arrays, NULL-terminated */
    d->argv = put(&k, NULL, (uint32_t)(w * ((unsigned)nargs + 2)), 16);
    wr(&k, d->argv, put_a(&k, path), w);
    for (int i = 0; i < nargs; i++) wr(&k, d->argv + w * (unsigned)(i + 1), put_a(&k, args[i]), w);
    p->argc = nargs + 1;
    d->envp = put(&k, NULL, w * (unsigned)(nenv + 1), 16);
    uint64_t *envs = calloc((size_t)nenv + 1, sizeof *envs);
    for (size_t i = 0, at = 0; envs && (int)i < nenv; i++, at += strlen(envb + at) + 1) {
        envs[i] = put_a(&k, envb + at);
        wr(&k, d->envp + w * (unsigned)i, envs[i], w);
    }
    free(envb);
    if (!envs || hcp_crtenv_init(p, envs) != 0) {
        free(envs);
        free(k.b);
        return fail(err, cap, "out of host memory");
    }
    free(envs);
    /* msvcrt's variables */
    d->file_size = hcp_lay_off(HCP_L_FILE__size, x64);
    d->iob = put(&k, NULL, 20 * d->file_size, 16); /* _iob[20] (_IOB_ENTRIES); 0-2 are open */
    /* _flag: _IOREAD for stdin, _IOWRT for the others; _file = i */
    for (unsigned i = 0; i < 3; i++) {
        LAY(d->iob + i * d->file_size, FILE, _flag, i == 0 ? 0x1 : 0x2);
        LAY(d->iob + i * d->file_size, FILE, _file, i);
    }
    d->v_initenv = put(&k, NULL, w, 16);
    wr(&k, d->v_initenv, d->envp, w);
    d->v_environ = put(&k, NULL, w, 16);
    wr(&k, d->v_environ, d->envp, w);
    p->x->v_wenviron = put(&k, NULL, w, 16); /* _wenviron: NULL until made (k32_env.c) */
    d->v_acmdln = put(&k, NULL, w, 16);
    wr(&k, d->v_acmdln, d->cmdline_a, w);
    d->v_argc = put(&k, NULL, 4, 16);
    wr(&k, d->v_argc, (uint32_t)p->argc, 4);
    d->v_argv = put(&k, NULL, w, 16);
    wr(&k, d->v_argv, d->argv, w);
    d->v_commode = put(&k, NULL, 4, 16);
    d->v_fmode = put(&k, NULL, 4, 16);
    d->v_mb_cur_max = put(&k, NULL, 4, 16);
    wr(&k, d->v_mb_cur_max, 1, 4);
    d->v_errno = put(&k, NULL, 4, 16);
    /* struct lconv of the "C" locale: decimal_point ".", the other strings "" and CHAR_MAX fields */
    uint64_t dot = put_a(&k, "."), empty = put_a(&k, "");
    d->lconv = put(&k, NULL, 10 * w + 8, 16);
    wr(&k, d->lconv, dot, w);
    for (unsigned i = 1; i < 10; i++) wr(&k, d->lconv + i * w, empty, w);
    memset(k.b + (d->lconv + 10 * w - base), 0x7F, 8);
    d->strerr = put(&k, NULL, 128, 16);
    d->clocale = put_a(&k, "C");
    /* RTL_USER_PROCESS_PARAMETERS: StandardInput/Output/Error, ImagePathName, CommandLine, Environment */
    uint64_t pp = d->params;
    LAY(pp, PP, MaximumLength, 0x400);
    LAY(pp, PP, Length, 0x400);
    LAY(pp, PP, Flags, 0x1); /* RTL_USER_PROC_PARAMS_NORMALIZED */
    LAY(pp, PP, StandardInput, 0);
    LAY(pp, PP, StandardOutput, 0);
    LAY(pp, PP, StandardError, 0);
    uint64_t img = pp + hcp_lay_off(HCP_L_PP_ImagePathName, x64), cl = pp + hcp_lay_off(HCP_L_PP_CommandLine, x64);
    LAY(img, US, Length, path_bytes);
    LAY(img, US, MaximumLength, path_bytes + 2);
    LAY(img, US, Buffer, d->image_w);
    LAY(cl, US, Length, cmd_bytes);
    LAY(cl, US, MaximumLength, cmd_bytes + 2);
    LAY(cl, US, Buffer, d->cmdline_w);
    LAY(pp, PP, Environment, d->env_w);
    /* PEB: ImageBaseAddress, ProcessParameters, ProcessHeap (the runtime heap), NumberOfProcessors */
    LAY(d->peb, PEB, ImageBaseAddress, p->base);
    LAY(d->peb, PEB, ProcessParameters, pp);
    LAY(d->peb, PEB, NumberOfProcessors, (uint32_t)sim_cpu_count(m));
    LAY(d->peb, PEB, OSMajorVersion, 10);
    /* TEB: NT_TIB (ExceptionList, StackBase and StackLimit at each call, Self), ClientId, PEB, TLS array */
    LAY(d->teb, TEB, ExceptionList, x64 ? 0 : 0xFFFFFFFFu); /* x86: the end of the SEH chain */
    LAY(d->teb, TEB, Self, d->teb);
    LAY(d->teb, TEB, UniqueProcess, HCP_ETW_PROCESS_ID);
    LAY(d->teb, TEB, ProcessEnvironmentBlock, d->peb);
    LAY(d->teb, TEB, ThreadLocalStoragePointer, d->tls_array);
    sim_err se = sim_mem_write(m, base, k.b, k.used);
    free(k.b);
    if (se != SIM_OK) return fail(err, cap, "writing the process block: %s", sim_strerror(se));
    return 0;
}

/* A thread's copy of module mod's TLS template, its address in *out; 0 or -1. */
int hcp_process_tls_block(hcp_process *p, const hcp_module *mod, uint64_t *out) {
    uint64_t block;
    if (sim_alloc(p->os->m, (size_t)mod->tls_len + mod->tls_zero + 16, &block) != SIM_OK) return -1;
    if (mod->tls_len && sim_mem_write(p->os->m, block, mod->tls_tmpl, mod->tls_len) != SIM_OK) return -1;
    *out = block;
    return 0;
}

/* ---- the process --------------------------------------------------------------------------------- */

static int resolve_import(void *ud, const char *dll, const char *name, unsigned ordinal, uint64_t *addr, char *err,
                          size_t cap) {
    return hcp_dll_import(ud, 0, dll, name, ordinal, addr, err, cap);
}

hcp_process *hcp_process_load(hcp_os *os, const char *name, const uint8_t *img, size_t n, const char *const *args,
                              int nargs, char *err, size_t cap) {
    return hcp_process_load_ex(os, name, img, n, args, nargs, NULL, err, cap);
}

hcp_process *hcp_process_load_ex(hcp_os *os, const char *name, const uint8_t *img, size_t n, const char *const *args,
                                 int nargs, const hcp_process_opts *opts, char *err, size_t cap) {
    char msg[384];
    const char *nm = name;
    for (const char *s = name; *s; s++)
        if (*s == '/' || *s == '\\') nm = s + 1;
    if (os->proc) {
        snprintf(err, cap, "%s: this machine already has a process (one per machine)", nm);
        return NULL;
    }
    hcp_process *p = calloc(1, sizeof *p);
    if (!p || !(p->mods = calloc(4, sizeof *p->mods))) {
        free(p);
        snprintf(err, cap, "%s: out of host memory", nm);
        return NULL;
    }
    p->capmods = 4;
    p->nmods = 1;
    p->os = os;
    p->load_status = 0;
    p->mem_limit = HCP_DEFAULT_MAX_MEMORY;
    if (!(p->x = calloc(1, sizeof *p->x))) {
        free(p->mods);
        free(p);
        snprintf(err, cap, "%s: out of host memory", nm);
        return NULL;
    }
    snprintf(p->name, sizeof p->name, "%s", nm);
    hcp_module *mod = &p->mods[0];
    snprintf(mod->name, sizeof mod->name, "%s", nm);
    snprintf(mod->path, sizeof mod->path, "C:\\hcpsim\\%s", nm);
    mod->is_static = true;
    mod->order = -1;
    if (hcp_dll_set_options(p, opts) != 0) {
        hcp_process_free(p);
        snprintf(err, cap, "%s: out of host memory", nm);
        return NULL;
    }
    hcp_image im;
    int rc = hcp_image_open(img, n, false, &im, msg, sizeof msg);
    if (!rc) p->pe = mod->pe = im.pe;
    if (!rc) rc = hcp_process_options(p, opts, msg, sizeof msg);
    sim_arch arch = sim_machine_config(os->m)->arch;
    if (!rc && (arch == SIM_ARCH_X64) != p->pe.pe32plus)
        rc = fail(msg, sizeof msg, "a %s image cannot run on this machine (its guest is %s; platform %s runs it)",
                  hcp_pe_machine_name(p->pe.machine), sim_arch_name(arch), p->pe.pe32plus ? "win10-x64" : "win7-x86");
    if (!rc && arch != SIM_ARCH_X64 && arch != SIM_ARCH_X86)
        rc = fail(msg, sizeof msg, "this machine's guest is %s: hcpsim loads images on x64 and x86 machines only",
                  sim_arch_name(arch));
    if (!rc) rc = hcp_image_layout(img, &im, msg, sizeof msg);
    if (!rc && !hcp_image_choose_base(os->m, &im, p))
        rc = fail(msg, sizeof msg, "no free guest address range of 0x%X bytes for the image", p->pe.size_of_image);
    if (!rc) p->base = mod->base = im.base;
    if (!rc && p->base != p->pe.image_base) {
        if ((p->pe.characteristics & IMAGE_FILE_RELOCS_STRIPPED) || !p->pe.dir_rva[HCP_DIR_BASERELOC])
            rc = fail(msg, sizeof msg, "its preferred base 0x%llX is taken and it has no base relocations",
                      (unsigned long long)p->pe.image_base);
        else
            rc = hcp_image_relocate(&im, msg, sizeof msg);
    }
    os->proc = p;
    if (!rc) rc = build_data(p, args, nargs, msg, sizeof msg);
    mod->tls_slot = p->ntls_slots++; /* slot 0: the program's */
    if (!rc) rc = hcp_image_tls(&im, mod, msg, sizeof msg);
    if (!rc && mod->has_tls) { /* the main thread's copy of the template */
        uint64_t block;
        uint8_t b[8];
        if (hcp_process_tls_block(p, mod, &block) != 0) rc = fail(msg, sizeof msg, "no guest memory for the TLS block");
        hcp_put64(b, block);
        if (!rc) sim_mem_write(os->m, p->d.tls_array + (uint64_t)mod->tls_slot * ptrw(p), b, ptrw(p));
    }
    if (!rc && hcp_crt_guest_place(p) != SIM_OK) rc = fail(msg, sizeof msg, "no guest memory for the runtime's code");
    if (!rc && hcp_runner_place(p) != SIM_OK) rc = fail(msg, sizeof msg, "no guest memory for the runtime's code");
    if (!rc && hcp_ucb_place(p) != SIM_OK) rc = fail(msg, sizeof msg, "no guest memory for the callback dispatcher");
    if (!rc && hcp_dll_reserve(p, im.base, im.pe.size_of_image) != 0) rc = fail(msg, sizeof msg, "out of host memory");
    if (!rc) rc = hcp_image_imports(&im, resolve_import, p, msg, sizeof msg);
    hcp_dll_unreserve(p, im.base);
    if (!rc) rc = hcp_image_exports(&im, mod, msg, sizeof msg);
    if (!rc && mod->exp_nnames && !(p->exports = calloc(mod->exp_nnames, sizeof *p->exports)))
        rc = fail(msg, sizeof msg, "out of host memory");
    for (uint32_t i = 0; !rc && i < mod->exp_nnames; i++) { /* p.exports: the named functions */
        uint32_t o = mod->exp_ord[i];
        if (mod->exp_fwd[o] || !mod->exp_rva[o]) continue;
        hcp_image_export *e = &p->exports[p->nexports++];
        snprintf(e->name, sizeof e->name, "%s", mod->exp_name[i]);
        e->addr = p->base + mod->exp_rva[o];
    }
    if (!rc) rc = hcp_image_map(os->m, &im, msg, sizeof msg);
    if (!rc && hcp_module_init_prot(mod) != 0) rc = fail(msg, sizeof msg, "out of host memory");
    if (!rc) rc = hcp_dll_finish_load(p, msg, sizeof msg);
    hcp_image_close(&im);
    if (rc) {
        os->proc = NULL;
        snprintf(err, cap, "%s: %s", nm, msg);
        if (opts && opts->status) *opts->status = p->load_status;
        hcp_process_free(p);
        return NULL;
    }
    p->entry = mod->entry = p->base + p->pe.entry;
    sim_set_fault_handler(os->m, hcp_seh_fault, os); /* its threads' faults go to its handlers (api/seh.c) */
    return p;
}

void hcp_process_free(hcp_process *p) {
    if (!p) return;
    if (p->x) {
        hcp_process_options_free(p);
        free(p->x);
    }
    free(p->missing);
    free(p->warned);
    free(p->teb_free);
    free(p->blocks);
    for (int i = 0; i < p->nthr; i++) {
        free(p->thr[i].tls);
        hcp_runs_free(&p->thr[i]);
    }
    if (p->os && p->os->proc == p) sim_set_fault_handler(p->os->m, NULL, NULL);
    hcp_seh_free(p);
    hcp_seh64_free(p);
    free(p->thr);
    free(p->cs);
    free(p->named);
    for (int i = 0; i < p->nva; i++) free(p->va[i].pages);
    free(p->va);
    free(p->exports);
    for (int i = 0; i < p->nmods; i++) hcp_module_free(&p->mods[i]);
    free(p->mods);
    hcp_dll_free(p);
    hcp_xproc_free(p->sx);
    hcp_crt_state_free(p);
    free(p);
}

hcp_process *hcp_os_process(hcp_os *os) { return os ? os->proc : NULL; }
void hcp_process_set_output(hcp_process *p, hcp_output_fn fn, void *ud) {
    p->out = fn;
    p->out_ud = ud;
}
static hcp_pthread *thread_rec_new(hcp_process *p, sim_thread *t, uint64_t teb) {
    if (p->nthr == p->capthr) {
        int nc = p->capthr ? 2 * p->capthr : 8;
        hcp_pthread *n = realloc(p->thr, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        p->thr = n;
        p->capthr = nc;
    }
    hcp_pthread *r = &p->thr[p->nthr++];
    memset(r, 0, sizeof *r);
    r->t = t;
    r->teb = teb;
    return r;
}

/* TEB fields of thread t: Self, ClientId (process 996, its id). */
static void teb_ids(hcp_process *p, uint64_t teb, sim_thread *t) {
    bool x64 = p->pe.pe32plus;
    uint8_t b[8];
    hcp_put64(b, teb);
    sim_mem_write(p->os->m, teb + hcp_lay_off(HCP_L_TEB_Self, x64), b, hcp_lay_size(HCP_L_TEB_Self, x64));
    hcp_put64(b, sim_thread_id(t));
    sim_mem_write(p->os->m, teb + hcp_lay_off(HCP_L_TEB_UniqueThread, x64), b,
                  hcp_lay_size(HCP_L_TEB_UniqueThread, x64));
}

int hcp_process_attach_thread(hcp_process *p, sim_thread *t) {
    bool x64 = p->pe.pe32plus;
    hcp_pthread *r = thread_rec_new(p, t, p->d.teb);
    if (!r) return -1;
    r->tls_array = p->d.tls_array;
    teb_ids(p, p->d.teb, t);
    return sim_thread_set_env(t, p->d.teb, hcp_lay_off(HCP_L_TEB_StackBase, x64),
                              hcp_lay_off(HCP_L_TEB_StackLimit, x64)) == SIM_OK
               ? 0
               : -1;
}

/* A page for a new thread's TEB: an exited thread's, else the next of an arena of TEB_ARENA pages
 * (one guest mapping for many threads: machine option max_mappings counts mappings). */
#define TEB_ARENA 64
static bool teb_page(hcp_process *p, uint64_t *teb) {
    if (p->nteb_free) {
        *teb = p->teb_free[--p->nteb_free];
        return true;
    }
    if (!p->teb_left) {
        if (sim_alloc(p->os->m, TEB_ARENA * 0x1000, &p->teb_next) != SIM_OK) return false;
        p->teb_left = TEB_ARENA;
    }
    *teb = p->teb_next;
    p->teb_next += 0x1000;
    p->teb_left--;
    return true;
}

int hcp_process_add_thread(hcp_process *p, sim_thread *t) {
    bool x64 = p->pe.pe32plus;
    unsigned w = ptrw(p);
    uint64_t teb, arr;
    uint8_t b[0x100];
    if (!teb_page(p, &teb)) return -1;
    if (sim_mem_read(p->os->m, p->d.teb, b, sizeof b) != SIM_OK) return -1;
    /* its own TLS array: a copy of each module's template (the image's and its DLLs') */
    arr = teb + 0x800;
    hcp_lay_put(b, HCP_L_TEB_ThreadLocalStoragePointer, x64, arr);
    hcp_lay_put(b, HCP_L_TEB_ExceptionList, x64, x64 ? 0 : 0xFFFFFFFFu);
    if (sim_mem_write(p->os->m, teb, b, sizeof b) != SIM_OK) return -1;
    /* the TLS blocks go in the TEB page after the array while they fit (a TEB page is used again
     * by a later thread: the template and its zeros are written each time), else in memory of their
     * own: a thousand threads take no mapping each */
    uint64_t next = arr + 8u * HCP_TLS_MODULES, end = teb + 0x1000;
    for (int i = 0; i < p->nmods; i++) {
        const hcp_module *mod = &p->mods[i];
        uint64_t block, need = ((uint64_t)mod->tls_len + mod->tls_zero + 15) & ~(uint64_t)15;
        uint8_t v[8];
        if (!mod->has_tls || mod->unloaded) continue;
        if (need <= end - next) {
            static const uint8_t zeros[0x1000];
            block = next;
            next += need;
            if ((mod->tls_len && sim_mem_write(p->os->m, block, mod->tls_tmpl, mod->tls_len) != SIM_OK) ||
                sim_mem_write(p->os->m, block + mod->tls_len, zeros, need - mod->tls_len) != SIM_OK)
                return -1;
        } else if (hcp_process_tls_block(p, mod, &block) != 0) {
            return -1;
        }
        hcp_put64(v, block);
        if (sim_mem_write(p->os->m, arr + (uint64_t)mod->tls_slot * w, v, w) != SIM_OK) return -1;
    }
    hcp_pthread *r = thread_rec_new(p, t, teb);
    if (!r) return -1;
    r->tls_array = arr;
    teb_ids(p, teb, t);
    return sim_thread_set_env(t, teb, hcp_lay_off(HCP_L_TEB_StackBase, x64), hcp_lay_off(HCP_L_TEB_StackLimit, x64)) ==
                   SIM_OK
               ? 0
               : -1;
}

hcp_pthread *hcp_process_thread(hcp_process *p, const sim_thread *t) {
    for (int i = 0; p && t && i < p->nthr; i++)
        if (p->thr[i].t == t) return &p->thr[i];
    return NULL;
}

sim_thread *hcp_process_spawner(const hcp_process *p) { return p->spawner; }

uint64_t hcp_process_exit_callbacks(hcp_process *p, sim_thread *t, uint32_t code) {
    if (!p->ucb_entry || !hcp_fls_pending(p->os, p, t)) return 0;
    const uint64_t u[2] = {code, 0};
    return hcp_ucb_push_for(p->os, t, UCB_THREAD_EXIT, 0, u, 2) == 0 ? p->ucb_entry : 0;
}

void hcp_process_set_spawn(hcp_process *p, hcp_spawn_fn fn, void *ud) {
    p->spawn = fn;
    p->spawn_ud = ud;
}

bool hcp_process_thread_exited(hcp_process *p, const sim_thread *t, uint32_t *code) {
    hcp_pthread *r = hcp_process_thread(p, t);
    if (!r || !r->exit_req) return false;
    *code = r->exit_code;
    return true;
}

void hcp_process_thread_reset_exit(hcp_process *p, const sim_thread *t) {
    hcp_pthread *r = hcp_process_thread(p, t);
    if (r) r->exit_req = false;
}

int hcp_process_live_threads(hcp_process *p) {
    int n = 0;
    for (int i = 0; i < p->nthr; i++) n += sim_thread_state_of(p->thr[i].t) != SIM_TS_TERMINATED;
    return n;
}

bool hcp_process_export(const hcp_process *p, int i, const char **name, uint64_t *addr) {
    if (i < 0 || i >= p->nexports) return false;
    *name = p->exports[i].name;
    *addr = p->exports[i].addr;
    return true;
}

void hcp_process_set_exited(hcp_process *p, uint32_t code) {
    if (p->exited) return;
    p->exited = true;
    p->exit_code = code;
}

void hcp_process_where(const hcp_process *p, uint64_t a, char *out, size_t cap) {
    const hcp_module *mod = hcp_module_at(p, a);
    if (mod)
        snprintf(out, cap, "%s+0x%llX", mod->name, (unsigned long long)(a - mod->base));
    else if (p->d.stubs && a >= p->d.stubs && a - p->d.stubs < 0x1000)
        snprintf(out, cap, "msvcrt.dll (hcpsim)");
    else if (p->ucb_entry && a >= (p->ucb_entry & ~(uint64_t)0xFFF) && a - (p->ucb_entry & ~(uint64_t)0xFFF) < 0x1000)
        snprintf(out, cap, "ntdll.dll (hcpsim)");
    else if (a >= sim_gate_thunk(p->os->m, 0) && a < sim_gate_thunk(p->os->m, SIM_GATE_SERVICES - 1) + 16)
        snprintf(out, cap, "KERNEL32.dll (hcpsim)");
    else
        snprintf(out, cap, "?");
}

const hcp_module *hcp_module_at(const hcp_process *p, uint64_t a) {
    for (int i = 0; i < p->nmods; i++) {
        const hcp_module *mod = &p->mods[i];
        if (!mod->unloaded && a >= mod->base && a - mod->base < mod->pe.size_of_image) return mod;
    }
    return NULL;
}

uint64_t hcp_process_entry(const hcp_process *p) { return p->entry; }
uint64_t hcp_process_base(const hcp_process *p) { return p->base; }
int hcp_process_tls_callbacks(const hcp_process *p, uint64_t *out, int cap) {
    const hcp_module *mod = &p->mods[0];
    for (int i = 0; i < mod->ntls_cb && i < cap; i++) out[i] = mod->tls_cb[i];
    return mod->ntls_cb;
}
bool hcp_process_exited(const hcp_process *p, uint32_t *code) {
    if (code) *code = p->exit_code;
    return p->exited;
}
const char *hcp_process_failure(const hcp_process *p) { return p->failure[0] ? p->failure : NULL; }
bool hcp_process_failure_missing(const hcp_process *p) { return p->failure[0] && p->failure_missing; }
void hcp_process_set_memory_limit(hcp_process *p, uint64_t bytes) { p->mem_limit = bytes; }
uint64_t hcp_process_memory_used(const hcp_process *p) { return p->mem_used; }

bool hcp_process_charge(hcp_process *p, uint64_t n) {
    if (n > p->mem_limit || p->mem_used > p->mem_limit - n) return false;
    p->mem_used += n;
    return true;
}
void hcp_process_uncharge(hcp_process *p, uint64_t n) { p->mem_used -= n < p->mem_used ? n : p->mem_used; }

void hcp_process_thread_gone(hcp_process *p, sim_thread *t) {
    hcp_pthread *r = hcp_process_thread(p, t);
    if (!r || !r->charged) return; /* the main thread's stack and TEB are the process's */
    hcp_process_uncharge(p, r->charged);
    r->charged = 0;
    if (p->nteb_free == p->capteb_free) { /* its TEB page serves the next thread */
        int nc = p->capteb_free ? 2 * p->capteb_free : 16;
        uint64_t *a = realloc(p->teb_free, (size_t)nc * sizeof *a);
        if (!a) return;
        p->teb_free = a;
        p->capteb_free = nc;
    }
    p->teb_free[p->nteb_free++] = r->teb;
}
bool hcp_process_failure_exception(const hcp_process *p) { return p->failure[0] && p->failure_exception; }
void hcp_process_set_missing_fail(hcp_process *p, bool fail) { p->missing_fail = fail; }
const char *hcp_process_name(const hcp_process *p) { return p->name; }
