/* api/crt_guest.c — msvcrt's guest-code exports (_initterm, _cexit, exit): they
 * call back into the program, so they run as its own user-mode code.  Their
 * machine code is assembled from api/guest/crt_x64.S and crt_x86.S; a process
 * places one copy after its image and patches in the addresses of the thunks
 * it calls (api/README.md "Windows programs": "Cost"). */
#include "api/exports_gen.h"
#include "api/guest_gen.h"

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
    } else {
        imm(code + HCP_GUEST_CRT_X86_CEXIT_NEXT_IMM, next, 4);
        imm(code + HCP_GUEST_CRT_X86_EXIT_CEXIT_IMM, base + HCP_GUEST_CRT_X86_CEXIT, 4);
        imm(code + HCP_GUEST_CRT_X86_EXIT_EXITPROCESS_IMM, exitp, 4);
        imm(code + HCP_GUEST_CRT_X86_AFTER_BEGIN_IMM, thunk(os, "after_begin"), 4);
        imm(code + HCP_GUEST_CRT_X86_AFTER_END_IMM, thunk(os, "after_end"), 4);
    }
    sim_err e = sim_map_fixed(m, base, 0x1000, SIM_PROT_READ | SIM_PROT_EXEC, code, n);
    if (e != SIM_OK) return e;
    p->d.stubs = base;
    p->d.stub_initterm = base + (x64 ? HCP_GUEST_CRT_X64_INITTERM : HCP_GUEST_CRT_X86_INITTERM);
    p->d.stub_cexit = base + (x64 ? HCP_GUEST_CRT_X64_CEXIT : HCP_GUEST_CRT_X86_CEXIT);
    p->d.stub_exit = base + (x64 ? HCP_GUEST_CRT_X64_EXIT : HCP_GUEST_CRT_X86_EXIT);
    p->d.stub_after = base + (x64 ? HCP_GUEST_CRT_X64_AFTER : HCP_GUEST_CRT_X86_AFTER);
    return SIM_OK;
}
