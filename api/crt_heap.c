/* api/crt_heap.c — the process heap: msvcrt's malloc family, and the blocks
 * HeapAlloc & co hand out (api/README.md "Windows programs": "Heap").
 *
 * Segments of guest memory, first fit over their blocks (16-byte multiples,
 * kept in address order, merged on free with a free neighbour of the same
 * segment).  The first segment is HCP_HEAP_SIZE; when no free block fits, a
 * new segment is made: a block of HCP_HEAP_LARGE or more gets one of its own,
 * rounded up to 64 KiB, a smaller one a segment of HCP_HEAP_SIZE.  Each
 * segment is charged to the process's memory budget (hcp_process_charge:
 * the machine option max_memory), so the heap grows until guest memory runs
 * out, and then an allocation fails as Windows' does (NULL) and the program
 * goes on.  Freeing a pointer that is not a block stops the run (heap
 * corruption). */
#include <stdlib.h>

#include "api/exports_gen.h"

#define ENOMEM 12

/* Inserts block b at index i (the list stays in address order); false when the list is full. */
static bool insert(hcp_process *p, int i, heap_block b) {
    if (p->nblocks >= HCP_HEAP_MAX_BLOCKS) return false;
    if (p->nblocks == p->capblocks) {
        int nc = p->capblocks ? p->capblocks * 2 : 64;
        heap_block *nb = realloc(p->blocks, (size_t)nc * sizeof *nb);
        if (!nb) return false;
        p->blocks = nb;
        p->capblocks = nc;
    }
    memmove(&p->blocks[i + 1], &p->blocks[i], (size_t)(p->nblocks - i) * sizeof *p->blocks);
    p->blocks[i] = b;
    p->nblocks++;
    return true;
}

/* A new segment of `size` bytes (charged to the budget) as one free block: false when the budget,
 * the guest address space or host memory has no room. */
static bool grow(hcp_ctx *c, uint64_t size) {
    hcp_process *p = c->p;
    uint64_t at;
    if (size > SIZE_MAX || !hcp_process_charge(p, size)) return false;
    if (sim_alloc(c->m, (size_t)size, &at) != SIM_OK) {
        hcp_process_uncharge(p, size);
        return false;
    }
    int i = 0;
    while (i < p->nblocks && p->blocks[i].addr < at) i++;
    if (!insert(p, i, (heap_block){at, size, 0, false})) return false; /* the segment stays charged: unusable */
    return true;
}

/* The first free block of at least `size` bytes: its index, or -1. */
static int first_fit(const hcp_process *p, uint64_t size) {
    for (int i = 0; i < p->nblocks; i++)
        if (!p->blocks[i].used && p->blocks[i].size >= size) return i;
    return -1;
}

uint64_t hcp_heap_alloc(hcp_ctx *c, uint64_t n) {
    hcp_process *p = c->p;
    if (n > UINT64_C(1) << 40) return 0;
    uint64_t size = (n + 15) & ~(uint64_t)15;
    if (!size) size = 16;
    if (!p->nblocks && !grow(c, HCP_HEAP_SIZE)) return 0;
    int i = first_fit(p, size);
    if (i < 0) { /* a new segment: a large block its own, else a standard one */
        uint64_t seg = size >= HCP_HEAP_LARGE ? (size + 0xFFFFu) & ~(uint64_t)0xFFFF : HCP_HEAP_SIZE;
        if (!grow(c, seg) || (i = first_fit(p, size)) < 0) return 0;
    }
    heap_block *b = &p->blocks[i];
    if (b->size > size) { /* split: the rest stays free after it */
        heap_block rest = {b->addr + size, b->size - size, 0, false};
        if (!insert(p, i + 1, rest)) return 0;
        b = &p->blocks[i];
        b->size = size;
    }
    b->used = true;
    b->req = n;
    return b->addr;
}

int hcp_heap_find(const hcp_process *p, uint64_t a) {
    int lo = 0, hi = p->blocks ? p->nblocks - 1 : -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (p->blocks[mid].addr == a) return p->blocks[mid].used ? mid : -1;
        if (p->blocks[mid].addr < a)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Blocks i and i+1 are free and adjacent (the same segment): one block. */
static void merge(hcp_process *p, int i) {
    if (i < 0 || i + 1 >= p->nblocks) return;
    heap_block *a = &p->blocks[i], *b = &p->blocks[i + 1];
    if (a->used || b->used || a->addr + a->size != b->addr) return;
    a->size += b->size;
    memmove(&p->blocks[i + 1], &p->blocks[i + 2], (size_t)(p->nblocks - i - 2) * sizeof *p->blocks);
    p->nblocks--;
}

bool hcp_heap_free(hcp_ctx *c, uint64_t a) {
    hcp_process *p = c->p;
    if (!a) return true;
    int i = hcp_heap_find(p, a);
    if (i < 0) {
        hcp_stop(c, "0x%llX is not a block of the heap (heap corruption)", (unsigned long long)a);
        return false;
    }
    p->blocks[i].used = false;
    merge(p, i);
    merge(p, i - 1);
    return true;
}

uint64_t hcp_heap_realloc(hcp_ctx *c, uint64_t old, uint64_t n, bool zero) {
    int i = hcp_heap_find(c->p, old);
    if (i < 0) return 0;
    uint64_t have = c->p->blocks[i].req;
    uint64_t a = hcp_heap_alloc(c, n);
    if (!a) return 0;
    uint64_t k = have < n ? have : n;
    for (uint64_t off = 0; off < k && !c->failed;) { /* copied a page at a time: no host buffer of the size */
        uint8_t buf[4096];
        size_t chunk = k - off < sizeof buf ? (size_t)(k - off) : sizeof buf;
        if (hcp_rd(c, old + off, buf, chunk)) hcp_wr(c, a + off, buf, chunk);
        off += chunk;
    }
    if (zero && n > k) hcp_zero(c, a + k, n - k);
    hcp_heap_free(c, old);
    return a;
}

/* msvcrt sets errno to ENOMEM when an allocation fails. */
static uint64_t crt_result(hcp_ctx *c, uint64_t a) {
    if (!a && !c->failed) hcp_wr32(c, c->p->d.v_errno, ENOMEM);
    return a;
}

uint64_t hcp_crt_malloc(hcp_ctx *c, const hcp_crt_malloc_args *a) { return crt_result(c, hcp_heap_alloc(c, a->_Size)); }

uint64_t hcp_crt_calloc(hcp_ctx *c, const hcp_crt_calloc_args *a) {
    uint64_t n = a->_Count, k = a->_Size;
    if (k && n > (UINT64_C(1) << 40) / k) return crt_result(c, 0);
    uint64_t at = hcp_heap_alloc(c, n * k);
    if (at) hcp_zero(c, at, n * k);
    return crt_result(c, at);
}

uint64_t hcp_crt_free(hcp_ctx *c, const hcp_crt_free_args *a) {
    hcp_heap_free(c, a->_Memory);
    return 0;
}

uint64_t hcp_crt_realloc(hcp_ctx *c, const hcp_crt_realloc_args *a) {
    if (!a->_Memory) return crt_result(c, hcp_heap_alloc(c, a->_NewSize));
    if (hcp_heap_find(c->p, a->_Memory) < 0 || !a->_NewSize) { /* not a block: corruption; size 0: free */
        hcp_heap_free(c, a->_Memory);
        return 0;
    }
    return crt_result(c, hcp_heap_realloc(c, a->_Memory, a->_NewSize, false));
}
