/* api/k32_memory.c — KERNEL32's virtual memory, heaps and system information
 * (api/README.md "Windows programs": "Memory", "Heaps", "System"). */
#include <stdlib.h>

#include "api/exports_gen.h"
#include "api/files_int.h"
#include "api/layouts.h"

#define MEM_COMMIT 0x1000u
#define MEM_RESERVE 0x2000u
#define MEM_DECOMMIT 0x4000u
#define MEM_RELEASE 0x8000u
#define MEM_FREE 0x10000u
#define MEM_PRIVATE 0x20000u
#define MEM_IMAGE 0x1000000u
#define PAGE_NOACCESS 0x01u
#define PAGE_READONLY 0x02u
#define PAGE_READWRITE 0x04u
#define PAGE_WRITECOPY 0x08u
#define PAGE_EXECUTE 0x10u
#define PAGE_EXECUTE_READ 0x20u
#define PAGE_EXECUTE_READWRITE 0x40u
#define PAGE_EXECUTE_WRITECOPY 0x80u
#define PAGE_GUARD 0x100u
#define PAGE_NOCACHE 0x200u
#define PAGE_WRITECOMBINE 0x400u
#define HEAP_ZERO_MEMORY 0x8u

/* PAGE_* to SIM_PROT_*: -1 for no valid protection (none or two of the base values, an unknown
 * bit), -2 for one hcpsim does not give (guard pages).  PAGE_EXECUTE reads too (x86 has no
 * execute-only pages); the cache modifiers change nothing here. */
static int page_prot(uint32_t pp) {
    uint32_t base = pp & 0xFFu;
    if (pp & ~0x7FFu || !base || (base & (base - 1))) return -1;
    if (pp & PAGE_GUARD) return -2;
    switch (base) {
    case PAGE_NOACCESS: return 0;
    case PAGE_READONLY: return SIM_PROT_READ;
    case PAGE_READWRITE:
    case PAGE_WRITECOPY: return SIM_PROT_READ | SIM_PROT_WRITE;
    case PAGE_EXECUTE:
    case PAGE_EXECUTE_READ: return SIM_PROT_READ | SIM_PROT_EXEC;
    default: return SIM_PROT_READ | SIM_PROT_WRITE | SIM_PROT_EXEC;
    }
}
static int page_prot_error(int prot) { return prot == -2 ? ERROR_NOT_SUPPORTED : ERROR_INVALID_PARAMETER; }

static hcp_vregion *va_find(hcp_process *p, uint64_t a) {
    for (int i = 0; i < p->nva; i++)
        if (!p->va[i].released && a >= p->va[i].base && a - p->va[i].base < p->va[i].size) return &p->va[i];
    return NULL;
}

/* The PAGE_* array of the pages of a VirtualAlloc region or a module's image (the program's or a
 * DLL's: api/README.md "DLLs") holding `a` (its first page's address in *base, its page count in
 * *n), or NULL. */
static uint32_t *pages_of(hcp_process *p, uint64_t a, uint64_t *base, uint64_t *n, hcp_vregion **vr) {
    hcp_vregion *r = va_find(p, a);
    *vr = r;
    if (r) {
        *base = r->base;
        *n = r->size / 0x1000;
        return r->pages;
    }
    const hcp_module *mod = hcp_module_at(p, a);
    if (mod && mod->pprot) {
        *base = mod->base;
        *n = (mod->pe.size_of_image + 0xFFFu) / 0x1000u;
        return p->mods[mod - p->mods].pprot;
    }
    return NULL;
}

#define VA_SEARCH_BASE UINT64_C(0x20000000)

uint64_t hcp_k32_VirtualAlloc(hcp_ctx *c, const hcp_k32_VirtualAlloc_args *a) {
    hcp_process *p = c->p;
    uint64_t want = a->lpAddress, size = a->dwSize;
    uint32_t type = a->flAllocationType;
    int prot = page_prot(a->flProtect);
    if (!size || !(type & (MEM_COMMIT | MEM_RESERVE)) || (type & ~(MEM_COMMIT | MEM_RESERVE)))
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    if (prot < 0 || (a->flProtect & 0xFFu) == PAGE_WRITECOPY || (a->flProtect & 0xFFu) == PAGE_EXECUTE_WRITECOPY)
        return hcp_fail(c, page_prot_error(prot)); /* copy-on-write is for mapped views */
    if (want) { /* inside a region already made: a commit of its pages (committed ones get the protection) */
        hcp_vregion *r = va_find(p, want);
        if (r && (type & MEM_COMMIT) && size <= r->base + r->size - want) {
            uint64_t lo = want & ~(uint64_t)0xFFF, hi = (want + size + 0xFFFu) & ~(uint64_t)0xFFF, fresh = 0;
            for (uint64_t pg = lo; pg < hi; pg += 0x1000) fresh += r->pages[(pg - r->base) / 0x1000] ? 0 : 0x1000;
            if (!hcp_process_charge(p, fresh)) return hcp_fail(c, ERROR_COMMITMENT_LIMIT); /* the budget */
            sim_err e = sim_protect_pages(c->m, lo, hi - lo, (unsigned)prot);
            if (e != SIM_OK) {
                hcp_process_uncharge(p, fresh);
                return hcp_fail(c, e == SIM_ERR_MAPPINGS ? ERROR_NOT_ENOUGH_MEMORY : ERROR_INVALID_ADDRESS);
            }
            for (uint64_t pg = lo; pg < hi; pg += 0x1000) r->pages[(pg - r->base) / 0x1000] = a->flProtect;
            return lo;
        }
        if (r) return hcp_fail(c, ERROR_INVALID_ADDRESS); /* reserving reserved pages, or past the region */
    }
    uint64_t len = (size + 0xFFFu) & ~(uint64_t)0xFFF, top = c->w == 4 ? UINT64_C(0x7FFF0000) : UINT64_C(1) << 46;
    if (len > (uint64_t)1 << 32) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    uint64_t base = want ? want & ~(uint64_t)0xFFFF : VA_SEARCH_BASE;
    if (want && !sim_range_free(c->m, base, len)) return hcp_fail(c, ERROR_INVALID_ADDRESS);
    for (int k = 0; !want && k < 65536 && !sim_range_free(c->m, base, len); k++) base += 0x10000;
    if (p->nva == p->capva) {
        int nc = p->capva ? 2 * p->capva : 16;
        hcp_vregion *n = realloc(p->va, (size_t)nc * sizeof *n);
        if (!n) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        p->va = n;
        p->capva = nc;
    }
    uint32_t *pages = malloc((size_t)(len / 0x1000) * sizeof *pages);
    if (!pages) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    /* MEM_RESERVE alone: the pages are reserved (no access, PAGE_* 0) until a MEM_COMMIT; MEM_COMMIT
     * without MEM_RESERVE at no address reserves and commits, as Windows does */
    bool commit = type & MEM_COMMIT;
    if (commit && !hcp_process_charge(p, len)) { /* committed pages take the memory budget; reserved ones not */
        free(pages);
        return hcp_fail(c, ERROR_COMMITMENT_LIMIT);
    }
    if (base + len > top || sim_map_fixed(c->m, base, len, commit ? (unsigned)prot : 0u, NULL, 0) != SIM_OK) {
        if (commit) hcp_process_uncharge(p, len);
        free(pages);
        return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    }
    for (uint64_t i = 0; i < len / 0x1000; i++) pages[i] = commit ? a->flProtect : 0;
    p->va[p->nva++] = (hcp_vregion){base, len, a->flProtect, false, pages};
    return base;
}

uint64_t hcp_k32_VirtualFree(hcp_ctx *c, const hcp_k32_VirtualFree_args *a) {
    hcp_vregion *r = va_find(c->p, a->lpAddress);
    uint32_t type = a->dwFreeType;
    if (!r || (type != MEM_RELEASE && type != MEM_DECOMMIT)) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    if (type == MEM_RELEASE) {
        if (a->lpAddress != r->base || a->dwSize) return hcp_fail(c, ERROR_INVALID_PARAMETER);
        sim_protect_fixed(c->m, r->base, r->size, 0); /* its pages fault from now on; the range stays taken */
        r->released = true;
        for (uint64_t i = 0; i < r->size / 0x1000; i++)
            if (r->pages[i]) hcp_process_uncharge(c->p, 0x1000); /* its committed pages leave the budget */
        return 1;
    }
    /* MEM_DECOMMIT: the pages of [lpAddress, lpAddress + dwSize) (dwSize 0 at the base: the whole
     * region) become reserved; their bytes are zeroed now, so a later commit finds zeros */
    uint64_t lo = a->lpAddress & ~(uint64_t)0xFFF, hi = (a->lpAddress + a->dwSize + 0xFFFu) & ~(uint64_t)0xFFF;
    if (!a->dwSize) {
        if (a->lpAddress != r->base) return hcp_fail(c, ERROR_INVALID_PARAMETER);
        hi = r->base + r->size;
    }
    if (hi > r->base + r->size) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    static const uint8_t zero[0x1000];
    for (uint64_t pg = lo; pg < hi; pg += 0x1000) {
        uint32_t *pp = &r->pages[(pg - r->base) / 0x1000];
        if (!*pp) continue;
        if (sim_protect_pages(c->m, pg, 0x1000, SIM_PROT_READ | SIM_PROT_WRITE) != SIM_OK ||
            sim_mem_write(c->m, pg, zero, sizeof zero) != SIM_OK || sim_protect_pages(c->m, pg, 0x1000, 0) != SIM_OK)
            return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        *pp = 0;
        hcp_process_uncharge(c->p, 0x1000);
    }
    return 1;
}

/* Pages [lpAddress, lpAddress + dwSize) of one VirtualAlloc region or of the image get the new
 * protection, enforced by the CPU (sim/README.md "Written code"); *lpflOldProtect the first
 * page's old one. */
uint64_t hcp_k32_VirtualProtect(hcp_ctx *c, const hcp_k32_VirtualProtect_args *a) {
    uint64_t old = a->lpflOldProtect;
    if (!old || sim_mem_probe(c->m, old, 4, true) != SIM_OK) return hcp_fail(c, ERROR_NOACCESS);
    int prot = page_prot(a->flNewProtect);
    if (prot < 0) return hcp_fail(c, page_prot_error(prot));
    uint64_t lo = a->lpAddress & ~(uint64_t)0xFFF, hi = (a->lpAddress + a->dwSize + 0xFFFu) & ~(uint64_t)0xFFF;
    if (!a->dwSize) hi = lo + 0x1000; /* the page holding lpAddress */
    uint64_t base, n;
    hcp_vregion *vr;
    uint32_t *pages = pages_of(c->p, a->lpAddress, &base, &n, &vr);
    if (!pages || hi > base + n * 0x1000 || hi <= lo) return hcp_fail(c, ERROR_INVALID_ADDRESS);
    for (uint64_t pg = lo; pg < hi; pg += 0x1000)
        if (!pages[(pg - base) / 0x1000]) return hcp_fail(c, ERROR_INVALID_ADDRESS); /* reserved, not committed */
    uint32_t was = pages[(lo - base) / 0x1000];
    sim_err e = sim_protect_pages(c->m, lo, hi - lo, (unsigned)prot);
    if (e == SIM_ERR_MAPPINGS) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if (e != SIM_OK) return hcp_fail(c, ERROR_INVALID_ADDRESS);
    for (uint64_t pg = lo; pg < hi; pg += 0x1000) pages[(pg - base) / 0x1000] = a->flNewProtect;
    hcp_wr32(c, old, was);
    return 1;
}

/* MEMORY_BASIC_INFORMATION (api/layouts.h); a region is a run of pages of one
 * protection in one allocation. */
uint64_t hcp_k32_VirtualQuery(hcp_ctx *c, const hcp_k32_VirtualQuery_args *a) {
    hcp_process *p = c->p;
    uint64_t at = a->lpAddress & ~(uint64_t)0xFFF;
    unsigned n = hcp_lay_off(HCP_L_MBI__size, c->w == 8);
    if (a->dwLength < n) return hcp_fail(c, ERROR_BAD_LENGTH);
    uint64_t alloc = 0, size = 0x1000, base, np;
    uint32_t aprot = 0, state = MEM_FREE, prot = PAGE_NOACCESS, type = 0;
    hcp_vregion *vr;
    uint32_t *pages = pages_of(p, at, &base, &np, &vr);
    if (pages) {
        uint64_t i = (at - base) / 0x1000, j = i;
        while (j < np && pages[j] == pages[i]) j++;
        prot = pages[i]; /* 0 for a reserved page */
        size = (j - i) * 0x1000;
        alloc = base;
        aprot = vr ? vr->protect : PAGE_EXECUTE_WRITECOPY;
        state = prot ? MEM_COMMIT : MEM_RESERVE;
        type = vr ? MEM_PRIVATE : MEM_IMAGE;
    } else if (sim_mem_probe(c->m, at, 1, false) == SIM_OK) { /* the process block, stacks, heaps: committed */
        bool wr = sim_mem_probe(c->m, at, 1, true) == SIM_OK;
        alloc = at;
        aprot = prot = wr ? PAGE_READWRITE : PAGE_READONLY;
        state = MEM_COMMIT;
        type = MEM_PRIVATE;
    }
    uint8_t b[48] = {0};
    bool x64 = c->w == 8;
    hcp_lay_put(b, HCP_L_MBI_BaseAddress, x64, at);
    hcp_lay_put(b, HCP_L_MBI_AllocationBase, x64, alloc);
    hcp_lay_put(b, HCP_L_MBI_AllocationProtect, x64, aprot);
    hcp_lay_put(b, HCP_L_MBI_RegionSize, x64, size);
    hcp_lay_put(b, HCP_L_MBI_State, x64, state);
    hcp_lay_put(b, HCP_L_MBI_Protect, x64, state == MEM_FREE ? PAGE_NOACCESS : prot);
    hcp_lay_put(b, HCP_L_MBI_Type, x64, type);
    return hcp_wr(c, a->lpBuffer, b, n) ? n : 0;
}

/* ---- heaps: every heap handle allocates from the process heap (malloc's, crt_heap.c) ---- */

#define PROCESS_HEAP_HANDLE(c) ((c)->p->d.peb + 0x700u) /* a fixed address inside the PEB's block */

uint64_t hcp_k32_GetProcessHeap(hcp_ctx *c) { return PROCESS_HEAP_HANDLE(c); }
uint64_t hcp_k32_HeapCreate(hcp_ctx *c, const hcp_k32_HeapCreate_args *a) {
    (void)a;
    return PROCESS_HEAP_HANDLE(c) + 0x10u;
}
uint64_t hcp_k32_HeapDestroy(hcp_ctx *c, const hcp_k32_HeapDestroy_args *a) {
    return a->hHeap ? 1 : hcp_fail(c, ERROR_INVALID_HANDLE);
}
uint64_t hcp_k32_HeapAlloc(hcp_ctx *c, const hcp_k32_HeapAlloc_args *a) {
    uint64_t at = hcp_heap_alloc(c, a->dwBytes);
    if (!at) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if (a->dwFlags & HEAP_ZERO_MEMORY) hcp_zero(c, at, a->dwBytes);
    return at;
}
uint64_t hcp_k32_HeapFree(hcp_ctx *c, const hcp_k32_HeapFree_args *a) { return hcp_heap_free(c, a->lpMem) ? 1 : 0; }
uint64_t hcp_k32_HeapSize(hcp_ctx *c, const hcp_k32_HeapSize_args *a) {
    int i = hcp_heap_find(c->p, a->lpMem);
    if (i < 0) {
        hcp_fail(c, ERROR_INVALID_PARAMETER);
        return c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu; /* (SIZE_T)-1 */
    }
    return c->p->blocks[i].req;
}
uint64_t hcp_k32_HeapReAlloc(hcp_ctx *c, const hcp_k32_HeapReAlloc_args *a) {
    if (hcp_heap_find(c->p, a->lpMem) < 0) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint64_t at = hcp_heap_realloc(c, a->lpMem, a->dwBytes, (a->dwFlags & HEAP_ZERO_MEMORY) != 0);
    return at ? at : hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
}

/* ---- the system ---- */

/* SYSTEM_INFO (api/layouts.h). */
uint64_t hcp_k32_GetSystemInfo(hcp_ctx *c, const hcp_k32_GetSystemInfo_args *a) {
    uint8_t b[48] = {0};
    int n = sim_cpu_count(c->m);
    uint64_t mask = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
    bool x64 = c->w == 8;
    hcp_lay_put(b, HCP_L_SI_wProcessorArchitecture, x64, x64 ? 9 : 0); /* PROCESSOR_ARCHITECTURE_AMD64 / _INTEL */
    hcp_lay_put(b, HCP_L_SI_dwPageSize, x64, 0x1000);
    hcp_lay_put(b, HCP_L_SI_lpMinimumApplicationAddress, x64, 0x10000);
    hcp_lay_put(b, HCP_L_SI_lpMaximumApplicationAddress, x64, x64 ? UINT64_C(0x7FFFFFFEFFFF) : 0x7FFEFFFF);
    hcp_lay_put(b, HCP_L_SI_dwActiveProcessorMask, x64, mask);
    hcp_lay_put(b, HCP_L_SI_dwNumberOfProcessors, x64, (uint32_t)n);
    hcp_lay_put(b, HCP_L_SI_dwProcessorType, x64, x64 ? 8664 : 586); /* PROCESSOR_AMD_X8664, _INTEL_PENTIUM */
    hcp_lay_put(b, HCP_L_SI_dwAllocationGranularity, x64, 0x10000);
    hcp_lay_put(b, HCP_L_SI_wProcessorLevel, x64, 6);
    hcp_wr(c, a->lpSystemInfo, b, hcp_lay_off(HCP_L_SI__size, x64));
    return 0;
}
