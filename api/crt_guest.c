/* api/crt_guest.c — msvcrt's guest-code exports (_initterm, _cexit, exit): they
 * call back into the program, so they run as its own user-mode code.  Their
 * machine code is assembled from api/guest/crt_x64.S and crt_x86.S; a process
 * places one copy after its image and patches in the addresses of the thunks
 * it calls (api/README.md "Windows programs": "Cost"). */
#include <stdlib.h>

#include "api/crt_int.h"
#include "api/guest_gen.h"

#define CRT_DATA_SIZE 0x4000u /* the runtime's data block: class tables, time zone, error messages */

static void imm(uint8_t *at, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) at[i] = (uint8_t)(v >> (8 * i));
}

/* The internal row `name` (hcpsim's own services are not importable: hcp_export_find skips them). */
static const hcp_export *row(const char *dll, const char *name) {
    for (int i = 0; hcp_export_at(i); i++)
        if (strcmp(hcp_export_at(i)->dll, dll) == 0 && strcmp(hcp_export_at(i)->name, name) == 0)
            return hcp_export_at(i);
    return NULL;
}

/* The runtime's data block (guest memory, read+write): the class tables (crt_ctype.c), the time zone
 * variables as msvcrt starts with them (Pacific time until _tzset: crt_time.c), _sys_errlist. */
static sim_err crt_data(hcp_process *p) {
    hcp_crt *r = hcp_crt_of_process(p);
    if (!r) return SIM_ERR_ARG;
    unsigned w = p->pe.pe32plus ? 8 : 4;
    uint64_t at;
    sim_err e = sim_alloc(p->os->m, CRT_DATA_SIZE, &at);
    if (e != SIM_OK) return e;
    uint8_t *b = calloc(1, CRT_DATA_SIZE);
    if (!b) return SIM_ERR_ARG;
    size_t k = hcp_crt_ctype_data(b, at, w, &r->ad);
    k = (k + 15) & ~(size_t)15;
    hcp_crt_addr *ad = &r->ad;
    ad->timezone = at + k, hcp_put32(b + k, 28800), k += 8;          /* 8 hours west: PST */
    ad->daylight = at + k, hcp_put32(b + k, 1), k += 8;              /* with daylight saving time */
    ad->dstbias = at + k, hcp_put32(b + k, (uint32_t)-3600), k += 8; /* an hour */
    ad->tzname = at + k;
    k += 2 * 8;
    for (int i = 0; i < 2; i++) { /* two 64-byte buffers: "PST", "PDT" */
        uint64_t s = at + k;
        memcpy(b + k, i ? "PDT" : "PST", 4);
        k += 64;
        if (w == 8)
            hcp_put64(b + (ad->tzname - at) + 8 * (unsigned)i, s);
        else
            hcp_put32(b + (ad->tzname - at) + 4 * (unsigned)i, (uint32_t)s);
    }
    ad->xcptinfo = at + k, k += 8;
    ad->lc_handle = at + k, k += 32;
    ad->wclocale = at + k, hcp_put16(b + k, 'C'), k += 8;
    ad->sys_nerr = at + k, hcp_put32(b + k, (uint32_t)hcp_crt_nerr()), k += 8;
    ad->sys_errlist = at + k;
    size_t list = k;
    k += (size_t)(hcp_crt_nerr() + 1) * w;
    for (int i = 0; i <= hcp_crt_nerr(); i++) {
        const char *m = hcp_crt_errmsg(i);
        size_t n = strlen(m) + 1;
        if (k + n > CRT_DATA_SIZE) break;
        memcpy(b + k, m, n);
        if (w == 8)
            hcp_put64(b + list + 8 * (size_t)i, at + k);
        else
            hcp_put32(b + list + 4 * (size_t)i, (uint32_t)(at + k));
        k += n;
    }
    e = sim_mem_write(p->os->m, at, b, k);
    free(b);
    return e;
}

uint64_t hcp_crt_export_address(hcp_process *p, const hcp_export *e) {
    hcp_crt *r = p->crt;
    if (!r) return 0;
    if (e->kind == HCP_EXPORT_DATA) {
        switch (e->index) {
        case HCP_VAR_ctype: return r->ad.ctype;
        case HCP_VAR_wctype: return r->ad.wctype;
        case HCP_VAR_pctype: return r->ad.pctype;
        case HCP_VAR_pwctype: return r->ad.pwctype;
        case HCP_VAR_timezone: return r->ad.timezone;
        case HCP_VAR_daylight: return r->ad.daylight;
        case HCP_VAR_dstbias: return r->ad.dstbias;
        case HCP_VAR_tzname: return r->ad.tzname;
        case HCP_VAR_sys_errlist: return r->ad.sys_errlist;
        case HCP_VAR_sys_nerr: return r->ad.sys_nerr;
        default: return 0;
        }
    }
    switch (e->index) { /* guest code */
    case HCP_GUEST_initterm_e: return r->g.initterm_e;
    case HCP_GUEST_onexit_table: return r->g.onexit_table;
    case HCP_GUEST_qsort: return r->g.qsort;
    case HCP_GUEST_qsort_s: return r->g.qsort_s;
    case HCP_GUEST_bsearch: return r->g.bsearch;
    case HCP_GUEST_bsearch_s: return r->g.bsearch_s;
    case HCP_GUEST_setjmp: return r->g.setjmp;
    case HCP_GUEST_setjmp3: return r->g.setjmp3;
    case HCP_GUEST_longjmp: return r->g.longjmp;
    default: return 0;
    }
}

/* The thunk of hcpsim's internal service `name`. */
static uint64_t thunk(hcp_os *os, const char *name) { return hcp_export_thunk(os, row("hcpsim", name)); }

sim_err hcp_crt_guest_place(hcp_process *p) {
    hcp_os *os = p->os;
    sim_machine *m = os->m;
    bool x64 = p->pe.pe32plus;
    uint64_t next = hcp_export_thunk(os, row("hcpsim", "onexit_next")),
             exitp = hcp_export_thunk(os, row("KERNEL32.dll", "ExitProcess"));
    uint8_t code[4096];
    size_t n = x64 ? hcp_guest_crt_x64_size : hcp_guest_crt_x86_size;
    if (n > sizeof code) return SIM_ERR_ARG;
    memcpy(code, x64 ? hcp_guest_crt_x64 : hcp_guest_crt_x86, n);
    /* exit calls _cexit by an absolute address: the code goes at a fixed, free address after the image */
    uint64_t base = p->base + (((uint64_t)p->pe.size_of_image + 0xFFFFu) & ~(uint64_t)0xFFFFu);
    for (int k = 0; k < 256 && !sim_range_free(m, base, 0x1000); k++) base += 0x10000;
    if (x64) {
        imm(code + HCP_GUEST_CRT_X64_CEXIT_NEXT_IMM, next, 8);
        imm(code + HCP_GUEST_CRT_X64_EXIT_CEXIT_IMM, base + HCP_GUEST_CRT_X64_CEXIT, 8);
        imm(code + HCP_GUEST_CRT_X64_EXIT_EXITPROCESS_IMM, exitp, 8);
        imm(code + HCP_GUEST_CRT_X64_AFTER_BEGIN_IMM, thunk(os, "after_begin"), 8);
        imm(code + HCP_GUEST_CRT_X64_AFTER_END_IMM, thunk(os, "after_end"), 8);
        imm(code + HCP_GUEST_CRT_X64_ONEXIT_TABLE_NEXT_IMM, thunk(os, "onexit_table_next"), 8);
        imm(code + HCP_GUEST_CRT_X64_SORT_NEXT_IMM, thunk(os, "sort_next"), 8);
        imm(code + HCP_GUEST_CRT_X64_BT_ENDTHREAD_IMM, hcp_export_thunk(os, row("msvcrt.dll", "_endthread")), 8);
    } else {
        imm(code + HCP_GUEST_CRT_X86_CEXIT_NEXT_IMM, next, 4);
        imm(code + HCP_GUEST_CRT_X86_EXIT_CEXIT_IMM, base + HCP_GUEST_CRT_X86_CEXIT, 4);
        imm(code + HCP_GUEST_CRT_X86_EXIT_EXITPROCESS_IMM, exitp, 4);
        imm(code + HCP_GUEST_CRT_X86_AFTER_BEGIN_IMM, thunk(os, "after_begin"), 4);
        imm(code + HCP_GUEST_CRT_X86_AFTER_END_IMM, thunk(os, "after_end"), 4);
        imm(code + HCP_GUEST_CRT_X86_ONEXIT_TABLE_NEXT_IMM, thunk(os, "onexit_table_next"), 4);
        imm(code + HCP_GUEST_CRT_X86_SORT_NEXT_IMM, thunk(os, "sort_next"), 4);
        imm(code + HCP_GUEST_CRT_X86_BT_ENDTHREAD_IMM, hcp_export_thunk(os, row("msvcrt.dll", "_endthread")), 4);
    }
    sim_err e = sim_map_fixed(m, base, 0x1000, SIM_PROT_READ | SIM_PROT_EXEC, code, n);
    if (e != SIM_OK) return e;
    p->d.stubs = base;
    p->d.stub_initterm = base + (x64 ? HCP_GUEST_CRT_X64_INITTERM : HCP_GUEST_CRT_X86_INITTERM);
    p->d.stub_cexit = base + (x64 ? HCP_GUEST_CRT_X64_CEXIT : HCP_GUEST_CRT_X86_CEXIT);
    p->d.stub_exit = base + (x64 ? HCP_GUEST_CRT_X64_EXIT : HCP_GUEST_CRT_X86_EXIT);
    p->d.stub_after = base + (x64 ? HCP_GUEST_CRT_X64_AFTER : HCP_GUEST_CRT_X86_AFTER);
    hcp_crt *r = hcp_crt_of_process(p);
    if (!r) return SIM_ERR_ARG;
#define AT(sym) (base + (x64 ? HCP_GUEST_CRT_X64_##sym : HCP_GUEST_CRT_X86_##sym))
    r->g.initterm_e = AT(INITTERM_E);
    r->g.onexit_table = AT(ONEXIT_TABLE);
    r->g.qsort = AT(QSORT);
    r->g.qsort_s = AT(QSORT_S);
    r->g.bsearch = AT(BSEARCH);
    r->g.bsearch_s = AT(BSEARCH_S);
    r->g.setjmp = AT(SETJMP);
    r->g.setjmp3 = AT(SETJMP3);
    r->g.longjmp = AT(LONGJMP);
    r->g.bt_entry = AT(BT_ENTRY);
#undef AT
    return crt_data(p);
}
