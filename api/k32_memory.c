/* api/k32_memory.c — KERNEL32's virtual memory, heaps and system information
 * (api/README.md "Windows programs": "Memory", "Heaps", "System"). */
#include <stdlib.h>

#include "api/exports_gen.h"

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
#define PAGE_EXECUTE_READ 0x20u
#define PAGE_EXECUTE_READWRITE 0x40u
#define PAGE_EXECUTE_WRITECOPY 0x80u
#define HEAP_ZERO_MEMORY 0x8u

/* PAGE_* to SIM_PROT_*: -1 for a protection hcpsim cannot give (executable memory, guard pages). */
static int page_prot(uint32_t pp) {
    switch (pp) {
    case PAGE_NOACCESS: return 0;
    case PAGE_READONLY: return SIM_PROT_READ;
    case PAGE_READWRITE: return SIM_PROT_READ | SIM_PROT_WRITE;
    default: return -1;
    }
}

static hcp_vregion *va_find(hcp_process *p, uint64_t a) {
    for (int i = 0; i < p->nva; i++)
        if (!p->va[i].released && a >= p->va[i].base && a - p->va[i].base < p->va[i].size) return &p->va[i];
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
    if (prot < 0) return hcp_fail(c, ERROR_NOT_SUPPORTED);
    if (want) { /* inside a region already made: a commit of reserved pages (reserved pages are committed) */
        hcp_vregion *r = va_find(p, want);
        if (r && size <= r->base + r->size - want) return want & ~(uint64_t)0xFFF;
        if (r) return hcp_fail(c, ERROR_INVALID_ADDRESS);
    }
    uint64_t len = (size + 0xFFFu) & ~(uint64_t)0xFFF, top = c->w == 4 ? UINT64_C(0x7FFF0000) : UINT64_C(1) << 46;
    if (len > (uint64_t)1 << 32) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    uint64_t base = want ? want & ~(uint64_t)0xFFFF : VA_SEARCH_BASE;
    if (want && !sim_range_free(c->m, base, len)) return hcp_fail(c, ERROR_INVALID_ADDRESS);
    for (int k = 0; !want && k < 65536 && !sim_range_free(c->m, base, len); k++) base += 0x10000;
    if (base + len > top || sim_map_fixed(c->m, base, len, (unsigned)prot, NULL, 0) != SIM_OK)
        return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if (p->nva == p->capva) {
        int nc = p->capva ? 2 * p->capva : 16;
        hcp_vregion *n = realloc(p->va, (size_t)nc * sizeof *n);
        if (!n) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        p->va = n;
        p->capva = nc;
    }
    p->va[p->nva++] = (hcp_vregion){base, len, a->flProtect, false};
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
    }
    return 1;
}

uint64_t hcp_k32_VirtualProtect(hcp_ctx *c, const hcp_k32_VirtualProtect_args *a) {
    hcp_vregion *r = va_find(c->p, a->lpAddress);
    uint64_t old = a->lpflOldProtect;
    if (old && sim_mem_probe(c->m, old, 4, true) != SIM_OK) return hcp_fail(c, ERROR_NOACCESS);
    if (!r) { /* the pages of a module (api/pe_dll.c): mingw's pseudo-relocations make .rdata writable */
        uint32_t was = 0;
        int64_t st = hcp_module_protect(c->p, a->lpAddress, a->dwSize, a->flNewProtect, &was);
        if (st < 0) return hcp_fail(c, ERROR_INVALID_ADDRESS);
        if (st > 0) return hcp_fail(c, (uint32_t)st);
        if (old) hcp_wr32(c, old, was);
        return 1;
    }
    int prot = page_prot(a->flNewProtect);
    if (prot < 0) return hcp_fail(c, ERROR_NOT_SUPPORTED);
    if (a->lpAddress != r->base || ((a->dwSize + 0xFFFu) & ~(uint64_t)0xFFF) != r->size)
        return hcp_fail(c, ERROR_NOT_SUPPORTED); /* part of a region: see the README */
    if (sim_protect_fixed(c->m, r->base, r->size, (unsigned)prot) != SIM_OK)
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    if (old) hcp_wr32(c, old, r->protect);
    r->protect = a->flNewProtect;
    return 1;
}

/* MEMORY_BASIC_INFORMATION: 48 bytes (x64), 28 (x86). */
uint64_t hcp_k32_VirtualQuery(hcp_ctx *c, const hcp_k32_VirtualQuery_args *a) {
    hcp_process *p = c->p;
    uint64_t at = a->lpAddress & ~(uint64_t)0xFFF;
    unsigned n = c->w == 8 ? 48 : 28;
    if (a->dwLength < n) return hcp_fail(c, ERROR_BAD_LENGTH);
    uint64_t alloc = 0, size = 0x1000;
    uint32_t aprot = 0, state = MEM_FREE, prot = PAGE_NOACCESS, type = 0;
    hcp_vregion *r = va_find(p, at);
    if (r) {
        alloc = r->base;
        aprot = r->protect;
        prot = r->protect;
        size = r->base + r->size - at;
        state = MEM_COMMIT;
        type = MEM_PRIVATE;
    } else if (hcp_module_query(p, at, &alloc, &size, &prot)) { /* the program's image or a DLL's */
        aprot = PAGE_EXECUTE_WRITECOPY;
        state = MEM_COMMIT;
        type = MEM_IMAGE;
    } else if (sim_mem_probe(c->m, at, 1, false) == SIM_OK) { /* the process block, stacks, heaps: committed */
        bool wr = sim_mem_probe(c->m, at, 1, true) == SIM_OK;
        alloc = at;
        aprot = prot = wr ? PAGE_READWRITE : PAGE_READONLY;
        state = MEM_COMMIT;
        type = MEM_PRIVATE;
    }
    uint8_t b[48] = {0};
    if (c->w == 8) {
        hcp_put64(b, at);
        hcp_put64(b + 8, alloc);
        hcp_put32(b + 16, aprot);
        hcp_put64(b + 24, size);
        hcp_put32(b + 32, state);
        hcp_put32(b + 36, state == MEM_FREE ? PAGE_NOACCESS : prot);
        hcp_put32(b + 40, type);
    } else {
        hcp_put32(b, (uint32_t)at);
        hcp_put32(b + 4, (uint32_t)alloc);
        hcp_put32(b + 8, aprot);
        hcp_put32(b + 12, (uint32_t)size);
        hcp_put32(b + 16, state);
        hcp_put32(b + 20, state == MEM_FREE ? PAGE_NOACCESS : prot);
        hcp_put32(b + 24, type);
    }
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

/* SYSTEM_INFO: 48 bytes (x64), 36 (x86). */
uint64_t hcp_k32_GetSystemInfo(hcp_ctx *c, const hcp_k32_GetSystemInfo_args *a) {
    uint8_t b[48] = {0};
    int n = sim_cpu_count(c->m);
    uint64_t mask = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
    bool x64 = c->w == 8;
    hcp_put16(b, x64 ? 9 : 0); /* PROCESSOR_ARCHITECTURE_AMD64 / _INTEL */
    hcp_put32(b + 4, 0x1000);  /* dwPageSize */
    if (x64) {
        hcp_put64(b + 8, 0x10000);
        hcp_put64(b + 16, UINT64_C(0x7FFFFFFEFFFF));
        hcp_put64(b + 24, mask);
        hcp_put32(b + 32, (uint32_t)n);
        hcp_put32(b + 36, 8664); /* PROCESSOR_AMD_X8664 */
        hcp_put32(b + 40, 0x10000);
        hcp_put16(b + 44, 6);
    } else {
        hcp_put32(b + 8, 0x10000);
        hcp_put32(b + 12, 0x7FFEFFFF);
        hcp_put32(b + 16, (uint32_t)mask);
        hcp_put32(b + 20, (uint32_t)n);
        hcp_put32(b + 24, 586); /* PROCESSOR_INTEL_PENTIUM */
        hcp_put32(b + 28, 0x10000);
        hcp_put16(b + 32, 6);
    }
    hcp_wr(c, a->lpSystemInfo, b, x64 ? 48 : 36);
    return 0;
}
