/* api/crt_heap.c — the process heap: msvcrt's malloc family, and the blocks
 * HeapAlloc & co hand out (api/README.md "Windows programs": "Heap").
 *
 * First fit over one region of guest memory, 16-byte blocks kept in address
 * order and merged on free.  Freeing a pointer that is not a block stops the
 * run (heap corruption). */
#include <stdlib.h>

#include "api/exports_gen.h"

static bool heap_init(hcp_ctx *c) {
    hcp_process *p = c->p;
    if (p->blocks) return true;
    if (sim_alloc(c->m, HCP_HEAP_SIZE, &p->heap_base) != SIM_OK) return false;
    p->blocks = malloc(64 * sizeof *p->blocks);
    if (!p->blocks) return false;
    p->capblocks = 64;
    p->blocks[0] = (heap_block){p->heap_base, HCP_HEAP_SIZE, 0, false};
    p->nblocks = 1;
    return true;
}

uint64_t hcp_heap_alloc(hcp_ctx *c, uint64_t n) {
    hcp_process *p = c->p;
    if (!heap_init(c) || n > HCP_HEAP_SIZE) return 0;
    uint32_t size = (uint32_t)((n + 15) & ~(uint64_t)15);
    if (!size) size = 16;
    for (int i = 0; i < p->nblocks; i++) {
        heap_block *b = &p->blocks[i];
        if (b->used || b->size < size) continue;
        if (b->size > size) { /* split: the rest stays free after it */
            if (p->nblocks >= HCP_HEAP_MAX_BLOCKS) return 0;
            if (p->nblocks == p->capblocks) {
                heap_block *nb = realloc(p->blocks, (size_t)p->capblocks * 2 * sizeof *nb);
                if (!nb) return 0;
                p->blocks = nb;
                p->capblocks *= 2;
                b = &p->blocks[i];
            }
            memmove(&p->blocks[i + 2], &p->blocks[i + 1], (size_t)(p->nblocks - i - 1) * sizeof *b);
            p->blocks[i + 1] = (heap_block){b->addr + size, b->size - size, 0, false};
            p->nblocks++;
            b->size = size;
        }
        b->used = true;
        b->req = (uint32_t)n;
        return b->addr;
    }
    return 0;
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

bool hcp_heap_free(hcp_ctx *c, uint64_t a) {
    hcp_process *p = c->p;
    if (!a) return true;
    int i = hcp_heap_find(p, a);
    if (i < 0) {
        hcp_stop(c, "0x%llX is not a block of the heap (heap corruption)", (unsigned long long)a);
        return false;
    }
    p->blocks[i].used = false;
    if (i + 1 < p->nblocks && !p->blocks[i + 1].used) { /* merge with the next */
        p->blocks[i].size += p->blocks[i + 1].size;
        memmove(&p->blocks[i + 1], &p->blocks[i + 2], (size_t)(p->nblocks - i - 2) * sizeof *p->blocks);
        p->nblocks--;
    }
    if (i > 0 && !p->blocks[i - 1].used) { /* and the previous */
        p->blocks[i - 1].size += p->blocks[i].size;
        memmove(&p->blocks[i], &p->blocks[i + 1], (size_t)(p->nblocks - i - 1) * sizeof *p->blocks);
        p->nblocks--;
    }
    return true;
}

uint64_t hcp_heap_realloc(hcp_ctx *c, uint64_t old, uint64_t n, bool zero) {
    int i = hcp_heap_find(c->p, old);
    if (i < 0) return 0;
    uint64_t have = c->p->blocks[i].req;
    uint64_t a = hcp_heap_alloc(c, n);
    if (!a) return 0;
    uint64_t k = have < n ? have : n;
    char *b = malloc(k ? (size_t)k : 1);
    if (b && hcp_rd(c, old, b, (size_t)k)) hcp_wr(c, a, b, (size_t)k);
    free(b);
    if (zero && n > k) hcp_zero(c, a + k, n - k);
    hcp_heap_free(c, old);
    return a;
}

uint64_t hcp_crt_malloc(hcp_ctx *c, const hcp_crt_malloc_args *a) { return hcp_heap_alloc(c, a->_Size); }

uint64_t hcp_crt_calloc(hcp_ctx *c, const hcp_crt_calloc_args *a) {
    uint64_t n = a->_Count, k = a->_Size;
    if (k && n > UINT32_MAX / k) return 0;
    uint64_t at = hcp_heap_alloc(c, n * k);
    if (at) hcp_zero(c, at, n * k);
    return at;
}

uint64_t hcp_crt_free(hcp_ctx *c, const hcp_crt_free_args *a) {
    hcp_heap_free(c, a->_Memory);
    return 0;
}

uint64_t hcp_crt_realloc(hcp_ctx *c, const hcp_crt_realloc_args *a) {
    if (!a->_Memory) return hcp_heap_alloc(c, a->_NewSize);
    if (hcp_heap_find(c->p, a->_Memory) < 0 || !a->_NewSize) { /* not a block: corruption; size 0: free */
        hcp_heap_free(c, a->_Memory);
        return 0;
    }
    return hcp_heap_realloc(c, a->_Memory, a->_NewSize, false);
}
