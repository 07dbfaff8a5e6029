/* api/pe_check.c — a program's imports and what hcpsim gives each, without loading it (api/pe_check.h).
 *
 * The image is checked by hcp_pe_parse and built in host memory as hcp_process_load builds it
 * (headers and sections at their RVAs), then its import directory is read with the loader's
 * bounds and messages.  Every import goes through lookup(), the one place that asks the loader's
 * tables what a run would resolve it to; every DLL through locate(), the one place that says where
 * a run finds it.  A DLL image found there would be checked the same way, its imports listed under
 * it (check_image's `depth`): hcpsim loads no DLL images yet, so today only its simulated system
 * DLLs are found and the recursion has nothing to follow. */
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
    /* The language-specific handler of x64 unwind data: only the OS's exception dispatch calls it,
     * and hcpsim dispatches no exceptions (api/README.md "Windows programs"). */
    if ((!e || e->kind == HCP_EXPORT_STUB) && hcp_export_dll(dll) && strcmp(hcp_export_dll(dll), "msvcrt.dll") == 0 &&
        strcmp(o->name, "__C_specific_handler") == 0) {
        o->state = HCP_IMP_NEVER_CALLED;
        o->note = "only exception dispatch calls it, and hcpsim dispatches no exceptions";
        return;
    }
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

/* Where a run finds DLL `dll`: the system DLL hcpsim simulates that serves it (an API-set name
 * too: api/exports.h), NULL when it finds none.  This is where a later version looks for a
 * program's own DLL images (its folder, --dll-path): a found image would be read into *img and
 * checked. */
static const char *locate(const char *dll, uint8_t **img, size_t *n) {
    *img = NULL;
    *n = 0;
    return hcp_export_dll(dll);
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

typedef struct caps {
    int dlls, imports;
} caps;

/* The imports of image `name`, DLL by DLL, with the loader's checks and messages (api/pe.c). */
static int check_image(hcp_check *c, caps *cp, const char *name, const uint8_t *img, size_t n, int depth, char *err,
                       size_t cap) {
    hcp_pe_info pe;
    if (hcp_pe_parse(img, n, &pe, err, cap) != 0) return -1;
    if (depth == 0) {
        c->machine = pe.pe32plus ? "x86-64" : "i386";
        c->platform = pe.pe32plus ? "win10-x64" : "win7-x86";
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
        uint8_t *dimg;
        size_t dn;
        dl->found = locate(dll, &dimg, &dn);
        if (!dl->found) c->dlls_not_found++;
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
            lookup(dll, fn ? fn : "", ordinal ? (int)(e & 0xFFFFu) : -1, o);
            if (!c->dlls[di].found) { /* a DLL no run finds: none of its functions resolves */
                o->state = HCP_IMP_MISSING;
                o->kind = o->note = NULL;
            }
            c->dlls[di].count++;
            c->dlls[di].n[o->state]++;
            c->n[o->state]++;
        }
        /* a DLL image found (none yet: locate) is checked the same way, its imports after it */
        if (rc == 0 && dimg && depth < MAX_DEPTH) rc = check_image(c, cp, dll, dimg, dn, depth + 1, err, cap);
        free(dimg);
    }
    free(im);
    return rc;
}

int hcp_pe_check(const char *name, const uint8_t *img, size_t n, hcp_check *out, char *err, size_t cap) {
    memset(out, 0, sizeof *out);
    snprintf(out->image, sizeof out->image, "%s", name);
    caps cp = {0, 0};
    if (check_image(out, &cp, out->image, img, n, 0, err, cap) != 0) {
        hcp_check_free(out);
        return -1;
    }
    return 0;
}

void hcp_check_free(hcp_check *c) {
    free(c->dlls);
    free(c->imports);
    c->dlls = NULL;
    c->imports = NULL;
    c->ndlls = c->nimports = 0;
}

void hcp_check_verdict(const hcp_check *c, char *buf, size_t cap) {
    size_t len = 0;
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        if (len < cap) len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__);                                     \
    } while (0)
    int missing = c->n[HCP_IMP_MISSING], noops = c->n[HCP_IMP_NOOP];
    if (!missing) {
        ADD("%s can run: nothing it imports is missing", c->image);
        if (noops) ADD(" (%d no-op%s)", noops, noops == 1 ? "" : "s");
        return;
    }
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
        for (int d = 0, k = 0; d < c->ndlls; d++)
            if (!c->dlls[d].found) ADD("%s%s", k++ ? ", " : "", c->dlls[d].name);
        ADD(")");
    }
    ADD(": its run stops at the first call of a missing one (status %d)", HCP_EXIT_SIMULATION);
#undef ADD
    if (len >= cap && cap > 4) memcpy(buf + cap - 4, "...", 4);
}
