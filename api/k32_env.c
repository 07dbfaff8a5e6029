/* api/k32_env.c — the environment: KERNEL32's variables (Get/SetEnvironmentVariable,
 * GetEnvironmentStrings, ExpandEnvironmentStrings) and msvcrt's copy of them (getenv, _putenv,
 * _environ, _wenviron; api/README.md "The environment").
 *
 * KERNEL32's variables are a sorted list (Windows keeps the block in the order of its names,
 * compared case-insensitively: RtlSetEnvironmentVariable inserts there); the PEB's block is
 * rebuilt from it in guest memory after each change.  msvcrt takes its own copy at start-up, as
 * msvcrt does: _putenv changes both, SetEnvironmentVariable only KERNEL32's. */
#include <stdio.h>
#include <stdlib.h>

#include "api/exports_gen.h"
#include "api/files_int.h"

#define MAX_ENV_VARS 4096      /* variables of the process */
#define MAX_ENV_UNITS 32767u   /* a variable's NAME=VALUE, as Windows limits a value */
#define MAX_ENV_BLOCK 0x20000u /* UTF-16 units of the whole block */

/* The fixed environment (api/README.md "The environment"), sorted. */
static const char *const fixed_env[] = {
    "HCPSIM=1", "PATH=C:\\Windows\\system32;C:\\Windows", "SystemRoot=C:\\Windows", "TEMP=C:\\hcpsim", "TMP=C:\\hcpsim",
};

static size_t name_len(const uint16_t *s) { /* a leading '=' belongs to the name ("=C:=C:\\x") */
    size_t i = s[0] == '=' ? 1 : 0;
    while (s[i] && s[i] != '=') i++;
    return i;
}

/* The index of `name` in the sorted list, or -(insertion point) - 1. */
static int env_find(const hcp_procx *x, const uint16_t *name, size_t n) {
    int lo = 0, hi = x->nenv - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = hcp_wcmp_ci(x->env[mid], name_len(x->env[mid]), name, n);
        if (!c) return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

/* Sets name to value (value NULL: removes it).  False: no host memory or too many variables. */
static bool env_set(hcp_procx *x, const uint16_t *name, size_t n, const uint16_t *value, size_t vn) {
    int i = env_find(x, name, n);
    if (!value) {
        if (i < 0) return true;
        free(x->env[i]);
        memmove(&x->env[i], &x->env[i + 1], (size_t)(x->nenv - i - 1) * sizeof *x->env);
        x->nenv--;
        return true;
    }
    uint16_t *s = malloc((n + vn + 2) * sizeof *s);
    if (!s) return false;
    memcpy(s, name, n * sizeof *s);
    s[n] = '=';
    memcpy(s + n + 1, value, vn * sizeof *s);
    s[n + 1 + vn] = 0;
    if (i >= 0) {
        free(x->env[i]);
        x->env[i] = s;
        return true;
    }
    if (x->nenv >= MAX_ENV_VARS) {
        free(s);
        return false;
    }
    if (x->nenv == x->capenv) {
        int nc = x->capenv ? 2 * x->capenv : 16;
        uint16_t **ne = realloc(x->env, (size_t)nc * sizeof *ne);
        if (!ne) {
            free(s);
            return false;
        }
        x->env = ne;
        x->capenv = nc;
    }
    i = -i - 1;
    memmove(&x->env[i + 1], &x->env[i], (size_t)(x->nenv - i) * sizeof *x->env);
    x->env[i] = s;
    x->nenv++;
    return true;
}

int hcp_env_init(hcp_process *p, const char *const *add, int nadd, char *err, size_t cap) {
    hcp_procx *x = p->x;
    for (size_t i = 0; i < sizeof fixed_env / sizeof fixed_env[0]; i++) {
        uint16_t *w = hcp_wfroma(fixed_env[i]);
        size_t n = w ? name_len(w) : 0;
        bool ok = w && env_set(x, w, n, w + n + 1, hcp_wlen(w + n + 1));
        free(w);
        if (!ok) return snprintf(err, cap, "out of host memory"), -1;
    }
    size_t total = 0;
    for (int i = 0; i < nadd; i++) {
        const char *eq = strchr(add[i], '=');
        if (!eq || eq == add[i]) {
            snprintf(err, cap, "environment variable '%s': it must be NAME=VALUE with a non-empty NAME", add[i]);
            return -1;
        }
        size_t n = 0;
        uint16_t *w = hcp_utf8_to_w(add[i], &n);
        if (!w) {
            snprintf(err, cap, "environment variable '%s': not valid UTF-8", add[i]);
            return -1;
        }
        size_t nl = name_len(w);
        total += n + 1;
        if (n > MAX_ENV_UNITS || total > MAX_ENV_BLOCK / 2) {
            free(w);
            snprintf(err, cap,
                     "environment variable '%.40s...': the environment may hold at most %u characters a "
                     "variable and %u in all",
                     add[i], MAX_ENV_UNITS, MAX_ENV_BLOCK / 2);
            return -1;
        }
        bool ok = env_set(x, w, nl, w + nl + 1, n - nl - 1);
        free(w);
        if (!ok) return snprintf(err, cap, "more than %d environment variables", MAX_ENV_VARS), -1;
    }
    return 0;
}

void hcp_env_free(hcp_process *p) {
    hcp_procx *x = p->x;
    for (int i = 0; i < x->nenv; i++) free(x->env[i]);
    free(x->env);
    for (int i = 0; i < x->ncenv; i++) free(x->cenv[i].s);
    free(x->cenv);
}

const uint16_t *hcp_env_get(hcp_process *p, const uint16_t *name, size_t n, size_t *vn) {
    int i = env_find(p->x, name, n);
    if (i < 0) return NULL;
    const uint16_t *v = p->x->env[i] + name_len(p->x->env[i]) + 1;
    if (vn) *vn = hcp_wlen(v);
    return v;
}

int hcp_env_count(hcp_process *p) { return p->x->nenv; }

size_t hcp_env_block_a(hcp_process *p, char *out, size_t cap) {
    size_t k = 0;
    for (int i = 0; i < p->x->nenv; i++)
        for (const uint16_t *s = p->x->env[i];; s++) {
            if (k < cap) out[k] = (char)(*s < 256 ? *s : '?');
            k++;
            if (!*s) break;
        }
    if (k < cap) out[k] = '\0';
    return k + 1;
}

/* The block "A=B\0C=D\0\0" as UTF-16 (wide) or ANSI, in a new heap block: its address or 0. */
static uint64_t block_copy(hcp_ctx *c, bool wide) {
    hcp_wbuf b = {0};
    static const uint16_t nul = 0;
    for (int i = 0; i < c->p->x->nenv; i++) hcp_wbuf_add(&b, c->p->x->env[i], hcp_wlen(c->p->x->env[i]) + 1);
    hcp_wbuf_add(&b, &nul, 1);
    if (c->p->x->nenv == 0) hcp_wbuf_add(&b, &nul, 1); /* an empty block is two NULs */
    uint64_t at = b.oom ? 0 : hcp_heap_alloc(c, b.n * (wide ? 2 : 1));
    if (at && !hcp_put_str(c, at, wide, b.s, b.n - 1)) at = 0;
    hcp_wbuf_free(&b);
    return at;
}

/* After a change: a new PEB block (RTL_USER_PROCESS_PARAMETERS.Environment), the old one freed. */
static void peb_block(hcp_ctx *c) {
    uint64_t at = block_copy(c, true);
    if (!at) return;
    hcp_wrp(c, c->p->d.params + (c->w == 8 ? 0x80 : 0x48), at);
    if (c->p->x->env_heap) hcp_heap_free(c, c->p->x->env_heap);
    c->p->x->env_heap = at;
}

/* ---- KERNEL32 ---- */

static uint64_t get_var(hcp_ctx *c, uint64_t name, uint64_t buf, uint32_t size, bool wide) {
    if (!name) return hcp_fail(c, ERROR_ENVVAR_NOT_FOUND);
    size_t n;
    uint16_t *w = hcp_gwstr(c, name, wide, &n);
    if (!w) return 0;
    size_t vn = 0;
    const uint16_t *v = n ? hcp_env_get(c->p, w, n, &vn) : NULL;
    free(w);
    if (!v) return hcp_fail(c, ERROR_ENVVAR_NOT_FOUND);
    return hcp_str_out(c, buf, size, wide, v, vn);
}
uint64_t hcp_k32_GetEnvironmentVariableA(hcp_ctx *c, const hcp_k32_GetEnvironmentVariableA_args *a) {
    return get_var(c, a->lpName, a->lpBuffer, a->nSize, false);
}
uint64_t hcp_k32_GetEnvironmentVariableW(hcp_ctx *c, const hcp_k32_GetEnvironmentVariableW_args *a) {
    return get_var(c, a->lpName, a->lpBuffer, a->nSize, true);
}

static uint64_t set_var(hcp_ctx *c, uint64_t name, uint64_t value, bool wide) {
    if (!name) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    size_t n, vn = 0;
    uint16_t *w = hcp_gwstr(c, name, wide, &n), *v = NULL;
    if (!w) return 0;
    if (!n || name_len(w) != n) { /* empty, or '=' past a leading one */
        free(w);
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    }
    if (value && !(v = hcp_gwstr(c, value, wide, &vn))) {
        free(w);
        return 0;
    }
    bool ok = vn <= MAX_ENV_UNITS && env_set(c->p->x, w, n, v, vn);
    free(w);
    free(v);
    if (!ok) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    peb_block(c);
    return 1;
}
uint64_t hcp_k32_SetEnvironmentVariableA(hcp_ctx *c, const hcp_k32_SetEnvironmentVariableA_args *a) {
    return set_var(c, a->lpName, a->lpValue, false);
}
uint64_t hcp_k32_SetEnvironmentVariableW(hcp_ctx *c, const hcp_k32_SetEnvironmentVariableW_args *a) {
    return set_var(c, a->lpName, a->lpValue, true);
}

uint64_t hcp_k32_GetEnvironmentStrings(hcp_ctx *c) {
    uint64_t at = block_copy(c, false);
    return at ? at : hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
}
uint64_t hcp_k32_GetEnvironmentStringsW(hcp_ctx *c) {
    uint64_t at = block_copy(c, true);
    return at ? at : hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
}
uint64_t hcp_k32_FreeEnvironmentStringsA(hcp_ctx *c, const hcp_k32_FreeEnvironmentStringsA_args *a) {
    if (hcp_heap_find(c->p, a->penv) < 0) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return hcp_heap_free(c, a->penv) ? 1 : 0;
}

/* %NAME% replaced by NAME's value; an unknown name and an unfinished one are kept as written. */
static void expand(hcp_ctx *c, const uint16_t *s, size_t n, hcp_wbuf *o) {
    for (size_t i = 0; i < n;) {
        if (s[i] != '%') {
            hcp_wbuf_add(o, s + i, 1);
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < n && s[j] != '%') j++;
        if (j >= n) { /* no closing '%': the rest as it is */
            hcp_wbuf_add(o, s + i, n - i);
            return;
        }
        size_t vn;
        const uint16_t *v = j > i + 1 ? hcp_env_get(c->p, s + i + 1, j - i - 1, &vn) : NULL;
        if (v)
            hcp_wbuf_add(o, v, vn);
        else
            hcp_wbuf_add(o, s + i, j + 1 - i);
        i = j + 1;
    }
}

static uint64_t expand_strings(hcp_ctx *c, uint64_t src, uint64_t dst, uint32_t size, bool wide) {
    size_t n = 0;
    uint16_t *s = src ? hcp_gwstr(c, src, wide, &n) : hcp_wdup(NULL, 0);
    if (!s) return 0;
    hcp_wbuf o = {0};
    static const uint16_t nul = 0;
    expand(c, s, n, &o);
    hcp_wbuf_add(&o, &nul, 0);
    free(s);
    if (o.oom) {
        hcp_wbuf_free(&o);
        return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    }
    uint64_t need = o.n + 1; /* units (bytes for ANSI), the NUL included */
    if (need <= size && dst && !hcp_put_str(c, dst, wide, o.s, o.n)) need = 0;
    hcp_wbuf_free(&o);
    return need;
}
uint64_t hcp_k32_ExpandEnvironmentStringsA(hcp_ctx *c, const hcp_k32_ExpandEnvironmentStringsA_args *a) {
    return expand_strings(c, a->lpSrc, a->lpDst, a->nSize, false);
}
uint64_t hcp_k32_ExpandEnvironmentStringsW(hcp_ctx *c, const hcp_k32_ExpandEnvironmentStringsW_args *a) {
    return expand_strings(c, a->lpSrc, a->lpDst, a->nSize, true);
}

/* ---- msvcrt: its own copy, _environ and _wenviron ---- */

static bool cenv_reserve(hcp_procx *x) {
    if (x->ncenv < x->capcenv) return true;
    int nc = x->capcenv ? 2 * x->capcenv : 16;
    hcp_crtenv *n = realloc(x->cenv, (size_t)nc * sizeof *n);
    if (!n) return false;
    x->cenv = n;
    x->capcenv = nc;
    return true;
}

int hcp_crtenv_init(hcp_process *p, const uint64_t *strings) {
    hcp_procx *x = p->x;
    for (int i = 0; i < x->nenv; i++) {
        if (!cenv_reserve(x)) return -1;
        size_t n = hcp_wlen(x->env[i]);
        char *s = malloc(n + 1);
        if (!s) return -1;
        for (size_t k = 0; k <= n; k++) s[k] = (char)(x->env[i][k] < 256 ? x->env[i][k] : '?');
        x->cenv[x->ncenv++] = (hcp_crtenv){s, strings[i], false};
    }
    return 0;
}

static int cenv_find(const hcp_procx *x, const char *name, size_t n) {
    for (int i = 0; i < x->ncenv; i++) {
        const char *s = x->cenv[i].s;
        size_t k = 0;
        while (k < n && s[k] && s[k] != '=' && hcp_wupper((uint8_t)s[k]) == hcp_wupper((uint8_t)name[k])) k++;
        if (k == n && s[k] == '=') return i;
    }
    return -1;
}

/* _wenviron's array and strings anew from msvcrt's variables (the old ones freed). */
static bool wenv_rebuild(hcp_ctx *c) {
    hcp_procx *x = c->p->x;
    uint64_t old = x->wenv_array, w = hcp_heap_alloc(c, (uint64_t)c->w * (uint64_t)(x->ncenv + 1));
    if (!w) return false;
    for (int i = 0; old; i++) {
        uint64_t s;
        if (!hcp_rdp(c, old + (uint64_t)c->w * (uint64_t)i, &s) || !s) break;
        hcp_heap_free(c, s);
    }
    if (old) hcp_heap_free(c, old);
    for (int i = 0; i < x->ncenv; i++) {
        uint16_t *ws = hcp_wfroma(x->cenv[i].s);
        size_t n = ws ? hcp_wlen(ws) : 0;
        uint64_t at = ws ? hcp_heap_alloc(c, 2 * (n + 1)) : 0;
        if (at) hcp_put_str(c, at, true, ws, n);
        free(ws);
        hcp_wrp(c, w + (uint64_t)c->w * (uint64_t)i, at);
    }
    hcp_wrp(c, w + (uint64_t)c->w * (uint64_t)x->ncenv, 0);
    x->wenv_array = w;
    hcp_wrp(c, x->v_wenviron, w);
    return true;
}

/* _environ's array anew (the old one freed when it was a heap block); _wenviron's too once made. */
static bool cenv_arrays(hcp_ctx *c) {
    hcp_procx *x = c->p->x;
    uint64_t arr = hcp_heap_alloc(c, (uint64_t)c->w * (uint64_t)(x->ncenv + 1));
    if (!arr) return false;
    for (int i = 0; i < x->ncenv; i++) hcp_wrp(c, arr + (uint64_t)c->w * (uint64_t)i, x->cenv[i].at);
    hcp_wrp(c, arr + (uint64_t)c->w * (uint64_t)x->ncenv, 0);
    if (x->cenv_array) hcp_heap_free(c, x->cenv_array);
    x->cenv_array = arr;
    hcp_wrp(c, c->p->d.v_environ, arr);
    return !x->wenv_array || wenv_rebuild(c);
}

static uint64_t crt_getenv(hcp_ctx *c, const char *name, size_t n) {
    int i = cenv_find(c->p->x, name, n);
    return i < 0 ? 0 : c->p->x->cenv[i].at + n + 1;
}

uint64_t hcp_crt_getenv(hcp_ctx *c, const hcp_crt_getenv_args *a) {
    size_t n;
    char *name = hcp_gstr(c, a->_VarName, &n);
    if (!name) return 0;
    uint64_t r = n && !strchr(name, '=') ? crt_getenv(c, name, n) : 0;
    free(name);
    return r;
}

static bool wenv_make(hcp_ctx *c);

/* "NAME=VALUE": sets; "NAME=": removes (msvcrt's rule); then KERNEL32's variable the same way. */
static int32_t crt_putenv(hcp_ctx *c, const char *s) {
    hcp_procx *x = c->p->x;
    const char *eq = strchr(s, '=');
    if (!eq || eq == s) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return -1;
    }
    size_t n = (size_t)(eq - s);
    int i = cenv_find(x, s, n);
    if (i >= 0) {
        if (x->cenv[i].heap) hcp_heap_free(c, x->cenv[i].at);
        free(x->cenv[i].s);
        memmove(&x->cenv[i], &x->cenv[i + 1], (size_t)(x->ncenv - i - 1) * sizeof *x->cenv);
        x->ncenv--;
    }
    if (eq[1]) {
        size_t len = strlen(s);
        char *d = malloc(len + 1);
        uint64_t at = d && cenv_reserve(x) ? hcp_heap_alloc(c, len + 1) : 0;
        if (!at) {
            free(d);
            hcp_crt_set_errno(c, CRT_ENOMEM);
            return -1;
        }
        memcpy(d, s, len + 1);
        hcp_wr(c, at, d, len + 1);
        x->cenv[x->ncenv++] = (hcp_crtenv){d, at, true};
    }
    if (!cenv_arrays(c)) {
        hcp_crt_set_errno(c, CRT_ENOMEM);
        return -1;
    }
    uint16_t *w = hcp_wfroma(s);
    if (w) {
        env_set(x, w, n, eq[1] ? w + n + 1 : NULL, eq[1] ? hcp_wlen(w + n + 1) : 0);
        peb_block(c);
    }
    free(w);
    return 0;
}

uint64_t hcp_crt__putenv(hcp_ctx *c, const hcp_crt__putenv_args *a) {
    char *s = hcp_gstr(c, a->_EnvString, NULL);
    if (!s) return (uint32_t)-1;
    int32_t r = crt_putenv(c, s);
    free(s);
    return (uint32_t)r;
}

uint64_t hcp_crt__wputenv(hcp_ctx *c, const hcp_crt__wputenv_args *a) {
    size_t n;
    uint16_t *w = hcp_gwstr(c, a->_EnvString, true, &n);
    if (!w) return (uint32_t)-1;
    char *s = malloc(n + 1);
    if (s) {
        for (size_t i = 0; i <= n; i++) s[i] = (char)(w[i] < 256 ? w[i] : '?');
    }
    free(w);
    int32_t r = s ? crt_putenv(c, s) : -1;
    free(s);
    if (r == 0 && !wenv_make(c)) { /* the wide variables are made by a wide call, as msvcrt and the UCRT make them */
        hcp_crt_set_errno(c, CRT_ENOMEM);
        r = -1;
    }
    return (uint32_t)r;
}

/* _wenviron is made at its first use, from msvcrt's variables (msvcrt makes it lazily too). */
static bool wenv_make(hcp_ctx *c) { return c->p->x->wenv_array || wenv_rebuild(c); }

uint64_t hcp_crt__wgetenv(hcp_ctx *c, const hcp_crt__wgetenv_args *a) {
    size_t n;
    uint16_t *w = hcp_gwstr(c, a->_VarName, true, &n);
    if (!w) return 0;
    char *s = malloc(n + 1);
    int i = -1;
    if (s) {
        for (size_t k = 0; k <= n; k++) s[k] = (char)(w[k] < 256 ? w[k] : '?');
        i = n && !strchr(s, '=') ? cenv_find(c->p->x, s, n) : -1;
    }
    free(w);
    free(s);
    if (i < 0 || !wenv_make(c)) return 0;
    uint64_t at;
    if (!hcp_rdp(c, c->p->x->wenv_array + (uint64_t)c->w * (uint64_t)i, &at) || !at) return 0;
    return at + 2 * (n + 1);
}

uint64_t hcp_crt___p__environ(hcp_ctx *c) { return c->p->d.v_environ; }
uint64_t hcp_crtenv_wenviron(hcp_ctx *c, bool make) {
    if (make) wenv_make(c);
    return c->p->x->v_wenviron;
}
uint64_t hcp_crt___p__wenviron(hcp_ctx *c) { return hcp_crtenv_wenviron(c, true); }

/* errno_t getenv_s(size_t *pReturnValue, char *buffer, size_t numberOfElements, const char *varname) */
uint64_t hcp_crt_getenv_s(hcp_ctx *c, const hcp_crt_getenv_s_args *a) {
    if (!a->pReturnValue || !a->varname || (!a->buffer && a->numberOfElements)) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return CRT_EINVAL;
    }
    size_t n;
    char *name = hcp_gstr(c, a->varname, &n);
    if (!name) return CRT_EINVAL;
    uint64_t v = n ? crt_getenv(c, name, n) : 0;
    free(name);
    if (!v) {
        hcp_wrp(c, a->pReturnValue, 0);
        if (a->numberOfElements) hcp_wr(c, a->buffer, "", 1);
        return 0;
    }
    size_t vn;
    char *val = hcp_gstr(c, v, &vn);
    if (!val) return CRT_EINVAL;
    hcp_wrp(c, a->pReturnValue, vn + 1);
    uint32_t r = 0;
    if (a->numberOfElements < vn + 1) {
        if (a->numberOfElements) hcp_wr(c, a->buffer, "", 1);
        r = CRT_ERANGE;
        hcp_crt_set_errno(c, CRT_ERANGE);
    } else {
        hcp_wr(c, a->buffer, val, vn + 1);
    }
    free(val);
    return r;
}
