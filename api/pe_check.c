/* api/pe_check.c — a program's imports and what hcpsim gives each, without loading it (api/pe_check.h).
 *
 * The image is checked by hcp_pe_parse and built in host memory as hcp_process_load builds it
 * (headers and sections at their RVAs), then its import directory is read with the loader's
 * bounds and messages.  Every import goes through lookup(), the one place that asks the loader's
 * tables what a run would resolve it to; every DLL through locate(), the one place that says where
 * a run finds it: a simulated system DLL, else a DLL image in the folders a run searches (the
 * program's, then --dll-path: api/README.md "DLLs"), whose export table answers for its imports
 * (image_lookup, forwarders followed) and whose own imports are checked the same way, listed
 * after it (check_image's `depth`); else a Windows DLL hcpsim does not simulate (its functions
 * missing) or nothing (the run does not start). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/exports.h"
#include "api/pe_check.h"
#include "api/pe_int.h"

#define DIR_IMPORT 1
#define SCN_CNT_UNINIT 0x00000080u
#define MAX_DEPTH 8 /* DLLs importing DLLs: a bound for when DLL images are found */

static int fail(char *err, size_t cap, const char *msg, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *msg, ...) {
    va_list ap;
    va_start(ap, msg);
    vsnprintf(err, cap, msg, ap);
    va_end(ap);
    return -1;
}

const char *hcp_check_state_name(hcp_imp_state s) {
    switch (s) {
    case HCP_IMP_IMPLEMENTED: return "implemented";
    case HCP_IMP_NOOP: return "no-op";
    case HCP_IMP_NEVER_CALLED: return "never-called";
    case HCP_IMP_MISSING: return "missing";
    case HCP_IMP_STATES: break;
    }
    return "?";
}

/* What a run gives the import dll!name (ordinal >= 0: dll!#ordinal): the export spec's row, as
 * the loader resolves it (hcp_export_find, hcp_export_by_ordinal; api/exports.h). */
static void lookup(const char *dll, const char *name, int ordinal, hcp_check_import *o) {
    const hcp_export *e = ordinal >= 0 ? hcp_export_by_ordinal(dll, (unsigned)ordinal) : hcp_export_find(dll, name);
    if (ordinal >= 0 && e) snprintf(o->name, sizeof o->name, "%s", e->name);
    if (ordinal >= 0 && !e) snprintf(o->name, sizeof o->name, "#%d", ordinal);
    o->ordinal = ordinal;
    o->kind = NULL;
    o->note = NULL;
    o->state = HCP_IMP_MISSING;
    if (!e) return;
    if (e->kind == HCP_EXPORT_STUB) { /* in the spec, not implemented: a call stops the run */
        o->note = "known to hcpsim, not implemented";
        return;
    }
    o->state = HCP_IMP_IMPLEMENTED;
    o->kind = e->kind == HCP_EXPORT_DATA ? "data" : e->kind == HCP_EXPORT_GUEST ? "guest code" : "function";
    if (e->flags & HCP_EX_NOP) {
        o->state = HCP_IMP_NOOP;
        o->note = "returns 0 and does nothing";
    } else if (e->flags & HCP_EX_TRUE) {
        o->state = HCP_IMP_NOOP;
        o->note = "returns TRUE and does nothing";
    }
}

/* A DLL image a run would load: its file, its export table, and whether its imports were listed. */
typedef struct found_dll {
    char norm[300]; /* the name as the loader compares it (hcp_dll_norm) */
    char path[4400];
    uint8_t *bytes; /* the file, until its imports are checked */
    size_t n;
    hcp_module mod;  /* its exports (hcp_image_exports) */
    bool usable;     /* a DLL of the program's machine the loader accepts */
    const char *why; /* else why not */
    bool listed;
} found_dll;

typedef struct caps {
    int dlls, imports, texts;
    char *const *dirs; /* the folders a run searches for DLLs */
    int ndirs;
    uint16_t machine;
    found_dll *found;
    int nfound, capfound;
} caps;

/* A note made for this check: kept with it (hcp_check_free). */
static const char *text(hcp_check *c, caps *cp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static const char *text(hcp_check *c, caps *cp, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (c->ntexts == cp->texts) {
        int nc = cp->texts ? 2 * cp->texts : 16;
        char **a = realloc(c->texts, (size_t)nc * sizeof *a);
        if (!a) return "out of host memory";
        c->texts = a;
        cp->texts = nc;
    }
    size_t len = strlen(buf) + 1;
    char *s = malloc(len);
    if (!s) return "out of host memory";
    memcpy(s, buf, len);
    c->texts[c->ntexts++] = s;
    return s;
}

/* The first reason the run would not start (Windows stops at the first). */
static void cannot_start(hcp_check *c, caps *cp, uint32_t status, const char *why) {
    if (c->start_status) return;
    c->start_status = status;
    c->start_error = text(c, cp, "%s", why);
}

/* Where a run finds DLL `dll` (api/README.md "DLLs"): the system DLL hcpsim simulates that serves
 * it (an API-set name too: api/exports.h), else a DLL image in the folders (*fi its entry in
 * cp->found, the return value its path), else NULL (*windows: a Windows DLL hcpsim does not
 * simulate, which loads with its functions missing; otherwise the run does not start). */
static const char *locate(hcp_check *c, caps *cp, const char *dll, int *fi, bool *windows) {
    *fi = -1;
    *windows = false;
    const char *sys = hcp_export_dll(dll);
    if (sys) return sys;
    char norm[300];
    hcp_dll_norm(dll, norm, sizeof norm);
    for (int i = 0; i < cp->nfound; i++)
        if (strcasecmp(cp->found[i].norm, norm) == 0) {
            *fi = i;
            return cp->found[i].path;
        }
    size_t n = 0;
    int dir = -1;
    uint8_t *b = cp->ndirs ? hcp_dll_find_file(cp->dirs, cp->ndirs, norm, &n, &dir) : NULL;
    if (!b) {
        *windows = hcp_dll_is_windows(norm);
        if (!*windows) cannot_start(c, cp, STATUS_DLL_NOT_FOUND, text(c, cp, "%s is not found", norm));
        return NULL;
    }
    if (cp->nfound == cp->capfound) {
        int nc = cp->capfound ? 2 * cp->capfound : 8;
        found_dll *a = realloc(cp->found, (size_t)nc * sizeof *a);
        if (!a) {
            free(b);
            return NULL;
        }
        cp->found = a;
        cp->capfound = nc;
    }
    found_dll *f = &cp->found[cp->nfound];
    memset(f, 0, sizeof *f);
    snprintf(f->norm, sizeof f->norm, "%s", norm);
    snprintf(f->path, sizeof f->path, "%s/%s", cp->dirs[dir], norm);
    f->bytes = b;
    f->n = n;
    char why[384];
    hcp_image im;
    int rc = hcp_image_open(b, n, true, &im, why, sizeof why);
    if (!rc && im.pe.machine != cp->machine)
        rc = hcp_pe_fail(why, sizeof why, "an %s image; the program is %s", hcp_pe_machine_name(im.pe.machine),
                         hcp_pe_machine_name(cp->machine));
    if (!rc) rc = hcp_image_layout(b, &im, why, sizeof why);
    if (!rc) {
        f->mod.pe = im.pe;
        rc = hcp_image_exports(&im, &f->mod, why, sizeof why);
    }
    hcp_image_close(&im);
    f->usable = rc == 0;
    if (!f->usable) {
        f->why = text(c, cp, "%s cannot load: %s", norm, why);
        cannot_start(c, cp, STATUS_INVALID_IMAGE_FORMAT, f->why);
    }
    *fi = cp->nfound++;
    return f->path;
}

static void image_lookup(hcp_check *c, caps *cp, int fi, const char *name, int ordinal, hcp_check_import *o, int depth);

/* An export's kind: "function" when its RVA lies in an executable section, else "data". */
static const char *export_kind(const hcp_module *mod, uint32_t rva) {
    for (int s = 0; s < mod->pe.nsections; s++) {
        const hcp_pe_section *sc = &mod->pe.sec[s];
        uint32_t span = sc->vsize ? sc->vsize : sc->rawsize;
        if (rva >= sc->rva && rva - sc->rva < span) return (sc->flags & 0x20000000u) ? "function" : "data";
    }
    return "data";
}

/* What a run gives the import name (or ordinal) of DLL image cp->found[fi]: the export it has,
 * a forwarder followed to where it leads, or missing (the run does not start). */
static void image_lookup(hcp_check *c, caps *cp, int fi, const char *name, int ordinal, hcp_check_import *o,
                         int depth) {
    const found_dll *f = &cp->found[fi];
    o->ordinal = ordinal;
    o->state = HCP_IMP_MISSING;
    o->kind = o->note = NULL;
    if (!f->usable) {
        o->note = "its DLL cannot load";
        return;
    }
    const hcp_module *mod = &f->mod;
    int idx = -1;
    if (ordinal < 0)
        idx = hcp_module_export_index(mod, name);
    else if ((unsigned)ordinal >= mod->exp_base && (unsigned)ordinal - mod->exp_base < mod->exp_nfun)
        idx = (int)((unsigned)ordinal - mod->exp_base);
    if (ordinal >= 0 && !o->name[0]) {
        snprintf(o->name, sizeof o->name, "#%d", ordinal);
        for (uint32_t i = 0; idx >= 0 && i < mod->exp_nnames; i++)
            if (mod->exp_ord[i] == idx) snprintf(o->name, sizeof o->name, "%s", mod->exp_name[i]);
    }
    if (idx < 0 || (!mod->exp_rva[idx] && !mod->exp_fwd[idx])) {
        o->note = text(c, cp, "%s does not export it: the run does not start", f->norm);
        if (ordinal < 0)
            cannot_start(c, cp, STATUS_ENTRYPOINT_NOT_FOUND,
                         text(c, cp, "the procedure entry point %s is not in %s", name, f->norm));
        else
            cannot_start(c, cp, STATUS_ORDINAL_NOT_FOUND, text(c, cp, "the ordinal %d is not in %s", ordinal, f->norm));
        return;
    }
    if (!mod->exp_fwd[idx]) {
        o->state = HCP_IMP_IMPLEMENTED;
        o->kind = export_kind(mod, mod->exp_rva[idx]);
        return;
    }
    /* a forwarder "DLL.Name" or "DLL.#N": what the run finds there */
    const char *fwd = mod->exp_fwd[idx], *dot = strrchr(fwd, '.');
    char fdll[300], fname[256];
    snprintf(fdll, sizeof fdll, "%.*s", (int)(dot - fwd), fwd);
    snprintf(fname, sizeof fname, "%s", dot + 1);
    int ford = fname[0] == '#' ? atoi(fname + 1) : -1;
    hcp_check_import t;
    memset(&t, 0, sizeof t);
    if (ford < 0) snprintf(t.name, sizeof t.name, "%.95s", fname);
    int tfi;
    bool windows;
    const char *where = depth < MAX_DEPTH ? locate(c, cp, fdll, &tfi, &windows) : NULL;
    if (where && tfi < 0)
        lookup(fdll, fname, ford, &t);
    else if (where)
        image_lookup(c, cp, tfi, fname, ford, &t, depth + 1);
    else
        t.state = HCP_IMP_MISSING;
    o->state = t.state;
    o->kind = t.kind;
    o->note = text(c, cp, "forwarded to %s%s%s", fwd, t.note ? ": " : "", t.note ? t.note : "");
}

/* A NUL-terminated string of at most maxlen bytes at rva inside the built image, or NULL. */
static const char *image_str(const uint8_t *im, uint32_t size, uint32_t rva, size_t maxlen) {
    if (rva >= size) return NULL;
    const uint8_t *s = im + rva, *e = memchr(s, 0, size - rva < maxlen ? size - rva : maxlen);
    return e ? (const char *)s : NULL;
}

static hcp_check_import *new_import(hcp_check *c, int *cap) {
    if (c->nimports == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        hcp_check_import *a = realloc(c->imports, (size_t)nc * sizeof *a);
        if (!a) return NULL;
        c->imports = a;
        *cap = nc;
    }
    hcp_check_import *o = &c->imports[c->nimports++];
    memset(o, 0, sizeof *o);
    return o;
}

static hcp_check_dll *new_dll(hcp_check *c, int *cap) {
    if (c->ndlls == *cap) {
        int nc = *cap ? 2 * *cap : 8;
        hcp_check_dll *a = realloc(c->dlls, (size_t)nc * sizeof *a);
        if (!a) return NULL;
        c->dlls = a;
        *cap = nc;
    }
    hcp_check_dll *d = &c->dlls[c->ndlls++];
    memset(d, 0, sizeof *d);
    return d;
}

/* The imports of image `name`, DLL by DLL, with the loader's checks and messages (api/pe.c). */
static int check_image(hcp_check *c, caps *cp, const char *name, const uint8_t *img, size_t n, int depth, char *err,
                       size_t cap) {
    hcp_pe_info pe;
    if (hcp_pe_parse_kind(img, n, depth > 0, &pe, err, cap) != 0) return -1;
    if (depth == 0) {
        c->machine = pe.pe32plus ? "x86-64" : "i386";
        c->platform = pe.pe32plus ? "win10-x64" : "win7-x86";
        cp->machine = pe.machine;
    }
    uint32_t size = pe.size_of_image, rva = pe.dir_rva[DIR_IMPORT], dsz = pe.dir_size[DIR_IMPORT];
    if (!rva) return 0;
    uint8_t *im = calloc(1, size);
    if (!im) return fail(err, cap, "out of host memory");
    memcpy(im, img, pe.size_of_headers);
    for (int s = 0; s < pe.nsections; s++) {
        const hcp_pe_section *sc = &pe.sec[s];
        uint32_t len = sc->rawsize;
        if (sc->vsize && len > sc->vsize) len = sc->vsize;
        if (len > size - sc->rva) len = size - sc->rva;
        if (!(sc->flags & SCN_CNT_UNINIT) || sc->rawsize) memcpy(im + sc->rva, img + sc->raw, len);
    }
    unsigned w = pe.pe32plus ? 8 : 4;
    int rc = 0;
    for (uint32_t off = 0; rc == 0; off += 20) {
        if (off + 20 > dsz || rva + off + 20 > size) {
            rc = fail(err, cap, "import directory (RVA 0x%X, size 0x%X) has no terminating null descriptor", rva, dsz);
            break;
        }
        const uint8_t *d = im + rva + off;
        uint32_t ilt = hcp_get32(d), dname = hcp_get32(d + 12), iat = hcp_get32(d + 16);
        if (!ilt && !dname && !iat) break;
        const char *dll = image_str(im, size, dname, 256);
        if (!dll || !*dll) {
            rc = fail(err, cap, "import descriptor %u: its DLL name (RVA 0x%X) is not a string inside the image",
                      off / 20, dname);
            break;
        }
        hcp_check_dll *dl = new_dll(c, &cp->dlls);
        if (!dl) {
            rc = fail(err, cap, "out of host memory");
            break;
        }
        int di = c->ndlls - 1;
        snprintf(dl->name, sizeof dl->name, "%s", dll);
        snprintf(dl->by, sizeof dl->by, "%s", name);
        int fi;
        bool windows;
        const char *found = locate(c, cp, dll, &fi, &windows);
        dl = &c->dlls[di];
        dl->found = fi >= 0 ? text(c, cp, "%s", found) : found;
        dl->image = fi >= 0;
        dl->windows = windows;
        if (fi >= 0 && !cp->found[fi].usable) dl->problem = cp->found[fi].why;
        bool again = false; /* a DLL two images name counts once */
        for (int e = 0; e < di && !again; e++) again = !c->dlls[e].found && strcasecmp(c->dlls[e].name, dll) == 0;
        if (!dl->found && !again) c->dlls_not_found++;
        dl->first = c->nimports;
        if (!ilt) ilt = iat;
        for (uint32_t k = 0;; k++) {
            if ((uint64_t)ilt + (uint64_t)(k + 1) * w > size || (uint64_t)iat + (uint64_t)(k + 1) * w > size) {
                rc = fail(err, cap, "imports of %s run past the end of the image (no null entry)", dll);
                break;
            }
            if (k >= 65536) {
                rc = fail(err, cap, "imports of %s: more than 65536 entries", dll);
                break;
            }
            uint64_t e = w == 8 ? hcp_get64(im + ilt + k * w) : hcp_get32(im + ilt + k * w);
            if (!e) break;
            bool ordinal = w == 8 ? (e >> 63) != 0 : (e >> 31) != 0;
            const char *fn = NULL;
            if (!ordinal) {
                fn = image_str(im, size, (uint32_t)(e & 0x7FFFFFFFu) + 2, 256);
                if ((e & 0x7FFFFFFFu) + 2 > size || !fn || !*fn) {
                    rc = fail(err, cap, "import %u of %s: its name (RVA 0x%X) is not a string inside the image", k, dll,
                              (unsigned)(e & 0x7FFFFFFFu));
                    break;
                }
            }
            hcp_check_import *o = new_import(c, &cp->imports);
            if (!o) {
                rc = fail(err, cap, "out of host memory");
                break;
            }
            if (fn) snprintf(o->name, sizeof o->name, "%s", fn);
            if (fi >= 0)
                image_lookup(c, cp, fi, fn ? fn : "", ordinal ? (int)(e & 0xFFFFu) : -1, o, depth);
            else
                lookup(dll, fn ? fn : "", ordinal ? (int)(e & 0xFFFFu) : -1, o);
            if (!c->dlls[di].found) { /* a DLL no run finds: none of its functions resolves */
                o->state = HCP_IMP_MISSING;
                o->kind = o->note = NULL;
            }
            c->dlls[di].count++;
            c->dlls[di].n[o->state]++;
            c->n[o->state]++;
        }
        /* a DLL image found is checked the same way, its imports after it, once */
        if (rc == 0 && fi >= 0 && cp->found[fi].usable && !cp->found[fi].listed && depth < MAX_DEPTH) {
            cp->found[fi].listed = true;
            uint8_t *dimg = cp->found[fi].bytes;
            size_t dn = cp->found[fi].n;
            cp->found[fi].bytes = NULL;
            char self[300];
            snprintf(self, sizeof self, "%s", cp->found[fi].norm);
            rc = check_image(c, cp, self, dimg, dn, depth + 1, err, cap);
            if (rc) { /* a DLL the loader refuses: the run does not start, the check goes on */
                cp->found[fi].why = text(c, cp, "%s cannot load: %s", self, err);
                cannot_start(c, cp, STATUS_INVALID_IMAGE_FORMAT, cp->found[fi].why);
                c->dlls[di].problem = cp->found[fi].why;
                rc = 0;
            }
            free(dimg);
        }
    }
    free(im);
    return rc;
}

int hcp_pe_check(const char *name, const uint8_t *img, size_t n, hcp_check *out, char *err, size_t cap) {
    return hcp_pe_check_in(name, img, n, NULL, 0, out, err, cap);
}

int hcp_pe_check_in(const char *name, const uint8_t *img, size_t n, const char *const *dirs, int ndirs, hcp_check *out,
                    char *err, size_t cap) {
    memset(out, 0, sizeof *out);
    snprintf(out->image, sizeof out->image, "%s", name);
    caps cp;
    memset(&cp, 0, sizeof cp);
    cp.dirs = (char *const *)dirs;
    cp.ndirs = dirs ? ndirs : 0;
    int rc = check_image(out, &cp, out->image, img, n, 0, err, cap);
    for (int i = 0; i < cp.nfound; i++) {
        free(cp.found[i].bytes);
        hcp_module_free(&cp.found[i].mod);
    }
    free(cp.found);
    if (rc != 0) {
        hcp_check_free(out);
        return -1;
    }
    return 0;
}

void hcp_check_free(hcp_check *c) {
    free(c->dlls);
    free(c->imports);
    for (int i = 0; i < c->ntexts; i++) free(c->texts[i]);
    free(c->texts);
    c->dlls = NULL;
    c->imports = NULL;
    c->texts = NULL;
    c->ndlls = c->nimports = c->ntexts = 0;
}

void hcp_check_verdict(const hcp_check *c, char *buf, size_t cap) {
    size_t len = 0;
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        if (len < cap) len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__);                                     \
    } while (0)
    int missing = c->n[HCP_IMP_MISSING], noops = c->n[HCP_IMP_NOOP];
    if (!missing && !c->start_status) {
        ADD("%s can run: nothing it imports is missing", c->image);
        if (noops) ADD(" (%d no-op%s)", noops, noops == 1 ? "" : "s");
        return;
    }
    if (c->start_status) /* Windows' loader refuses it: the reason, and its status as the exit code */
        ADD("%s does not start: %s (status %u)", c->image, c->start_error, (unsigned)(c->start_status & 0xFFu));
    if (!missing) return;
    if (c->start_status)
        ADD("; %d of %d imports missing (", missing, c->nimports);
    else
        ADD("%s: %d of %d imports missing (", c->image, missing, c->nimports);
    int shown = 0;
    for (int d = 0; d < c->ndlls; d++)
        for (int i = c->dlls[d].first; i < c->dlls[d].first + c->dlls[d].count; i++) {
            if (c->imports[i].state != HCP_IMP_MISSING) continue;
            if (shown < 5) ADD("%s%s!%s", shown ? ", " : "", c->dlls[d].name, c->imports[i].name);
            shown++;
        }
    if (shown > 5) ADD(", ...");
    ADD(")");
    if (c->dlls_not_found) {
        ADD(", %d DLL%s not found (", c->dlls_not_found, c->dlls_not_found == 1 ? "" : "s");
        int k = 0;
        for (int d = 0; d < c->ndlls; d++) {
            bool again = false; /* named by two images: once */
            for (int e = 0; e < d && !again; e++)
                again = !c->dlls[e].found && strcasecmp(c->dlls[e].name, c->dlls[d].name) == 0;
            if (!c->dlls[d].found && !again) ADD("%s%s", k++ ? ", " : "", c->dlls[d].name);
        }
        ADD(")");
    }
    if (!c->start_status) ADD(": its run stops at the first call of a missing one (status %d)", HCP_EXIT_SIMULATION);
#undef ADD
    if (len >= cap && cap > 4) memcpy(buf + cap - 4, "...", 4);
}
