/* api/crt_sort.c — qsort, qsort_s, bsearch and bsearch_s, which call the program's comparator:
 * the guest code of api/guest/crt_*.S runs the comparator and the swaps as the program's own user
 * code, and calls sort_next, this file's internal service, for what to do next (api/README.md
 * "The C runtime": "qsort and bsearch").  sort_next is msvcrt's algorithm as a resumable state
 * machine: the comparisons come in the order native msvcrt makes them (the sequences Wine's tests
 * record from Windows), so equal elements end where Windows puts them — a quicksort on the median
 * of the first, middle and last elements with a selection sort below 9 elements, the larger part
 * sorted first; bsearch halves [min, max] at min + (max - min) / 2. */
#include <stdlib.h>

#include "api/crt_int.h"

enum { OP_DONE = 0, OP_CMP = 1, OP_SWAP = 2 };
enum { K_QSORT = 0, K_QSORT_S = 1, K_BSEARCH = 2, K_BSEARCH_S = 3 };
#define SORT_STACK 130 /* two pushes per partition, the smaller part last: 2 x 64 levels at most */

typedef struct crt_sort {
    uint64_t frame;
    int kind;
    uint64_t base, num, size, key;
    int pc;       /* where the machine resumes (a source line of sort_step) */
    int32_t r;    /* the last comparison's result */
    int64_t a, b; /* the elements of the pending comparison or swap (indices; -1: the key) */
    int sp;
    int64_t stack_lo[SORT_STACK], stack_hi[SORT_STACK];
    int64_t beg, end, lo, hi, med, e, i, max, p;
    uint64_t found;
} crt_sort;

/* Comparison or swap of elements A and B, then the machine resumes at the next line. */
#define CMP(A, B)                                                                                                      \
    do {                                                                                                               \
        s->a = (A);                                                                                                    \
        s->b = (B);                                                                                                    \
        s->pc = __LINE__;                                                                                              \
        return OP_CMP;                                                                                                 \
    case __LINE__:;                                                                                                    \
    } while (0)
#define SWAP(A, B)                                                                                                     \
    do {                                                                                                               \
        s->a = (A);                                                                                                    \
        s->b = (B);                                                                                                    \
        s->pc = __LINE__;                                                                                              \
        return OP_SWAP;                                                                                                \
    case __LINE__:;                                                                                                    \
    } while (0)

static int sort_step(crt_sort *s) {
    switch (s->pc) {
    case 0:
        if (s->kind >= K_BSEARCH) { /* bsearch: (key, element) comparisons */
            s->lo = 0;
            s->hi = (int64_t)s->num - 1;
            while (s->lo <= s->hi) {
                s->med = s->lo + (s->hi - s->lo) / 2;
                CMP(-1, s->med);
                if (!s->r) {
                    s->found = s->base + (uint64_t)s->med * s->size;
                    return OP_DONE;
                }
                if (s->r < 0)
                    s->hi = s->med - 1;
                else
                    s->lo = s->med + 1;
            }
            return OP_DONE;
        }
        s->sp = 0;
        s->stack_lo[0] = 0;
        s->stack_hi[0] = (int64_t)s->num - 1;
        while (s->sp >= 0) {
            s->beg = s->stack_lo[s->sp];
            s->end = s->stack_hi[s->sp--];
            if (s->end - s->beg < 8) { /* selection sort: the largest of [0, e) to its end */
                for (s->e = s->end - s->beg + 1; s->e > 1; s->e--) {
                    s->max = 0;
                    for (s->i = 1; s->i < s->e; s->i++) {
                        s->p = s->i;
                        CMP(s->beg + s->p, s->beg + s->max);
                        if (s->r > 0) s->max = s->p;
                    }
                    if (s->p != s->max) SWAP(s->beg + s->p, s->beg + s->max);
                }
                continue;
            }
            s->lo = s->beg;
            s->hi = s->end;
            s->med = s->lo + (s->hi - s->lo + 1) / 2;
            CMP(s->lo, s->med);
            if (s->r > 0) SWAP(s->lo, s->med);
            CMP(s->lo, s->hi);
            if (s->r > 0) SWAP(s->lo, s->hi);
            CMP(s->med, s->hi);
            if (s->r > 0) SWAP(s->med, s->hi);
            s->lo++;
            s->hi--;
            for (;;) {
                while (s->lo <= s->hi) {
                    if (s->lo != s->med) {
                        CMP(s->lo, s->med);
                        if (s->r > 0) break;
                    }
                    s->lo++;
                }
                while (s->med != s->hi) {
                    CMP(s->hi, s->med);
                    if (s->r <= 0) break;
                    s->hi--;
                }
                if (s->hi < s->lo) break;
                SWAP(s->lo, s->hi);
                if (s->hi == s->med) s->med = s->lo;
                s->lo++;
                s->hi--;
            }
            while (s->hi > s->beg) { /* elements equal to the pivot stay with it */
                if (s->hi != s->med) {
                    CMP(s->hi, s->med);
                    if (s->r != 0) break;
                }
                s->hi--;
            }
            if (s->sp + 2 >= SORT_STACK) return OP_DONE; /* cannot happen: the smaller part goes last */
            if (s->hi - s->beg >= s->end - s->lo) {
                s->stack_lo[++s->sp] = s->beg;
                s->stack_hi[s->sp] = s->hi;
                s->stack_lo[++s->sp] = s->lo;
                s->stack_hi[s->sp] = s->end;
            } else {
                s->stack_lo[++s->sp] = s->lo;
                s->stack_hi[s->sp] = s->end;
                s->stack_lo[++s->sp] = s->beg;
                s->stack_hi[s->sp] = s->hi;
            }
        }
        return OP_DONE;
    default: return OP_DONE;
    }
}
#undef CMP
#undef SWAP

/* ---- the service ---- */

static bool rdw(hcp_ctx *c, uint64_t frame, int k, uint64_t *v) { return hcp_rdp(c, frame + (uint64_t)k * c->w, v); }
static bool wrw(hcp_ctx *c, uint64_t frame, int k, uint64_t v) { return hcp_wrp(c, frame + (uint64_t)k * c->w, v); }

/* The frame's words (api/guest/crt_*.S): 0 a, 1 b, 2 result, 3 comparator, 4 context, 5 base,
 * 6 count, 7 size, 8 key, 9 kind, 10 bsearch's result. */
uint64_t hcp_int_sort_next(hcp_ctx *c, const hcp_int_sort_next_args *a) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t) return OP_DONE;
    uint64_t f = a->frame;
    int slot = -1;
    for (int i = 0; i < CRT_MAX_SORTS; i++)
        if (t->sorts[i] && t->sorts[i]->frame == f) slot = i;
    crt_sort *s;
    if (slot < 0) { /* a new call: its arguments, checked as msvcrt checks them */
        uint64_t v[11];
        for (int i = 0; i < 11; i++)
            if (!rdw(c, f, i, &v[i])) return OP_DONE;
        int kind = (int)v[9];
        bool search = kind >= K_BSEARCH;
        /* bsearch's documented checks add the key: a NULL one is EINVAL, not a comparison */
        if ((!v[5] && v[6]) || !v[7] || !v[3] || (search && !v[8])) {
            hcp_crt_invalid(c, CRT_EINVAL);
            return OP_DONE;
        }
        if (!search && (v[6] < 2 || (v[6] && v[7] > UINT64_MAX / v[6]))) return OP_DONE;
        if (search && !v[6]) return OP_DONE;
        for (int i = 0; i < CRT_MAX_SORTS && slot < 0; i++)
            if (!t->sorts[i]) slot = i;
        if (slot < 0) return hcp_stop(c, "more than %d sorts in progress in one thread", CRT_MAX_SORTS);
        s = t->sorts[slot] = calloc(1, sizeof *s);
        if (!s) return hcp_stop(c, "out of host memory");
        s->frame = f;
        s->kind = kind;
        s->base = v[5];
        s->num = v[6];
        s->size = v[7];
        s->key = v[8];
    } else {
        s = t->sorts[slot];
        uint64_t r;
        if (!rdw(c, f, 2, &r)) return OP_DONE;
        s->r = (int32_t)(uint32_t)r;
    }
    int op = sort_step(s);
    if (op == OP_DONE) {
        if (s->kind >= K_BSEARCH) wrw(c, f, 10, s->found);
        free(s);
        t->sorts[slot] = NULL;
        return OP_DONE;
    }
    uint64_t x = s->a < 0 ? s->key : s->base + (uint64_t)s->a * s->size;
    uint64_t y = s->base + (uint64_t)s->b * s->size;
    wrw(c, f, 0, x);
    wrw(c, f, 1, y);
    return (uint64_t)op;
}
