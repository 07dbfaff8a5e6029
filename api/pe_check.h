/* api/pe_check.h — what a program imports and what hcpsim gives it, without loading it: the
 * facts of `hcpsim check PROGRAM.exe`, of a Lua scenario's hcp.check(path) and p.imports
 * (scenarios/README.md "Checking a program"; api/pe_check.c).
 *
 * Every import of the image is looked up DLL by DLL the way hcp_process_load resolves it, and
 * marked implemented, no-op (resolved to a function that does nothing), never-called (an import
 * only exception dispatch would call: none since hcpsim dispatches exceptions, the state is kept
 * for the format) or missing (the run stops at its first call: no row of the export spec, or a row
 * not implemented; or, for a DLL image, not exported: the run does not start).  Each DLL the image
 * names is located as a run would (api/README.md "DLLs"): a simulated system DLL, a DLL image in
 * the folders given (whose imports are listed after it), a Windows DLL hcpsim does not simulate
 * (functions missing), or none (the run does not start). */
#ifndef HCPSIM_API_PE_CHECK_H
#define HCPSIM_API_PE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    HCP_IMP_IMPLEMENTED = 0,
    HCP_IMP_NOOP,
    HCP_IMP_NEVER_CALLED,
    HCP_IMP_MISSING,
    HCP_IMP_STATES
} hcp_imp_state;

typedef struct hcp_check_import {
    char name[96]; /* the function or variable; "#N" for an ordinal no row of hcpsim's has */
    int ordinal;   /* imported by ordinal N, else -1 */
    hcp_imp_state state;
    const char *kind; /* "function", "data", "guest code" (hcpsim describe --imports); NULL when missing */
    const char *note; /* a no-op: what it does instead; never-called: why; missing from the spec's DLL: why */
} hcp_check_import;

typedef struct hcp_check_dll {
    char name[96]; /* as the importing image spells it */
    char by[64];   /* the image that imports it */
    /* where a run finds it: the simulated system DLL that serves it ("KERNEL32.dll"), a DLL image's
     * host path ("dir/libfoo.dll", `image`), NULL: nowhere */
    const char *found;
    bool image;          /* a DLL image in one of the folders */
    bool windows;        /* not found: a Windows DLL hcpsim does not simulate (it loads, functions missing) */
    const char *problem; /* an image the loader refuses: why */
    int first, count;    /* its imports: imports[first .. first + count) */
    int n[HCP_IMP_STATES];
} hcp_check_dll;

typedef struct hcp_check {
    char image[64];       /* the file name */
    const char *machine;  /* "x86-64", "i386" */
    const char *platform; /* the profile hcpsim run picks for it: "win10-x64", "win7-x86" */
    hcp_check_dll *dlls;  /* in the order of the import directory */
    int ndlls, dlls_not_found;
    hcp_check_import *imports;
    int nimports;
    int n[HCP_IMP_STATES];   /* imports per state */
    uint32_t start_status;   /* the Windows status the run would not start with (STATUS_DLL_NOT_FOUND, ...), 0 */
    const char *start_error; /* why, when start_status */
    char **texts;            /* the notes made for this check */
    int ntexts;
} hcp_check;

/* Checks the image `img` (n bytes; `name` its file name): 0 and *out filled (free it with
 * hcp_check_free), or -1 with "message" in err for an image hcp_process_load would refuse (the
 * same message) or when host memory runs out. */
int hcp_pe_check(const char *name, const uint8_t *img, size_t n, hcp_check *out, char *err, size_t cap);
/* The same, with the folders a run searches for the program's DLLs (its own, then --dll-path). */
int hcp_pe_check_in(const char *name, const uint8_t *img, size_t n, const char *const *dirs, int ndirs, hcp_check *out,
                    char *err, size_t cap);
void hcp_check_free(hcp_check *c);
/* "implemented", "no-op", "never-called", "missing" */
const char *hcp_check_state_name(hcp_imp_state s);
/* The one-line verdict: "NAME can run: ...", "NAME: 2 of 40 imports missing (...): ..." or "NAME
 * does not start: libfoo.dll is not found (no folder has it) (status 53)[; 2 of 40 ...]". */
void hcp_check_verdict(const hcp_check *c, char *buf, size_t cap);

#endif
