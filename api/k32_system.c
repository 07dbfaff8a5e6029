/* api/k32_system.c — KERNEL32's small system functions (api/README.md "System information"):
 * the process options (pe.h hcp_process_opts), GetModuleFileName, IsDebuggerPresent,
 * OutputDebugString, GlobalMemoryStatusEx, FormatMessage for the system's error messages, the
 * error mode, the lstr* string functions and GetComputerName. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/crtio_int.h"
#include "api/exports_gen.h"

#define COMPUTER_NAME "HCPSIM" /* GetComputerName: fixed */
#define IMAGE_FOLDER "C:\\hcpsim\\"
#define SYSTEM_FOLDER "C:\\Windows\\system32\\"
#define MACHINE_MEMORY (UINT64_C(4) << 30) /* GlobalMemoryStatusEx's physical memory: 4 GiB */

/* ---- process options ---- */

int hcp_process_options(hcp_process *p, const hcp_process_opts *o, char *err, size_t cap) {
    static const hcp_process_opts none = {0};
    if (!o) o = &none;
    hcp_procx *x = p->x;
    if (o->timezone && !hcp_tz_known(o->timezone)) {
        snprintf(err, cap, "unknown time zone '%s' (valid: %s)", o->timezone, hcp_tz_names());
        return -1;
    }
    x->tz = o->timezone ? hcp_tz_index(o->timezone) : 0;
    x->debug_stderr = o->debug_stderr;
    if (o->stdin_path) {
        FILE *in = strcmp(o->stdin_path, "-") ? fopen(o->stdin_path, "rb") : stdin;
        if (!in) return snprintf(err, cap, "%s: cannot read it as the program's standard input", o->stdin_path), -1;
        if (in != stdin) fclose(in);
        char *sp = malloc(strlen(o->stdin_path) + 1);
        if (!sp) return snprintf(err, cap, "out of host memory"), -1;
        x->stdin_path = strcpy(sp, o->stdin_path);
    }
    if (hcp_env_init(p, o->env, o->nenv, err, cap) != 0) return -1;
    return hcp_fs_init(p, o->cwd, err, cap);
}

void hcp_process_options_free(hcp_process *p) {
    hcp_crtio_free(p);
    hcp_env_free(p);
    hcp_fs_free(p);
    free((char *)p->x->stdin_path);
    free(p->x->stdin_data);
}

/* ---- modules, debugger, memory ---- */

static uint64_t module_file(hcp_ctx *c, uint64_t h, uint64_t buf, uint32_t size, bool wide) {
    char path[320];
    const char *dll = h ? hcp_module_dll_name(h) : NULL, *own = hcp_module_path(c->p, h);
    if (!h || h == c->p->base)
        snprintf(path, sizeof path, IMAGE_FOLDER "%s", c->p->name);
    else if (own) /* a DLL image the program loaded (api/README.md "DLLs") */
        snprintf(path, sizeof path, "%s", own);
    else if (dll)
        snprintf(path, sizeof path, SYSTEM_FOLDER "%s", dll);
    else
        return hcp_fail(c, ERROR_MOD_NOT_FOUND);
    uint16_t *w = hcp_wfroma(path);
    if (!w) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    size_t n = hcp_wlen(w);
    uint64_t r;
    if (n < size) { /* the whole name and its NUL */
        r = hcp_put_str(c, buf, wide, w, n) ? n : 0;
        hcp_SetLastError(c->os, ERROR_SUCCESS);
    } else { /* truncated to size units, the NUL included; the result is size */
        if (size) hcp_put_str(c, buf, wide, w, size - 1);
        r = size;
        hcp_SetLastError(c->os, ERROR_INSUFFICIENT_BUFFER);
    }
    free(w);
    return r;
}
uint64_t hcp_k32_GetModuleFileNameA(hcp_ctx *c, const hcp_k32_GetModuleFileNameA_args *a) {
    return module_file(c, a->hModule, a->lpFilename, a->nSize, false);
}
uint64_t hcp_k32_GetModuleFileNameW(hcp_ctx *c, const hcp_k32_GetModuleFileNameW_args *a) {
    return module_file(c, a->hModule, a->lpFilename, a->nSize, true);
}

uint64_t hcp_k32_IsDebuggerPresent(hcp_ctx *c) {
    (void)c;
    return 0; /* no debugger: the PEB's BeingDebugged is 0 */
}

/* The text goes to the run's trace (a debug-output instant event), and to the program's stderr
 * with the option (hcp_process_opts.debug_stderr: --debug-output stderr). */
static uint64_t debug_output(hcp_ctx *c, uint64_t s, bool wide) {
    if (!s) return 0;
    size_t n;
    uint16_t *w = hcp_gwstr(c, s, wide, &n);
    if (!w) return 0;
    char *u = hcp_w_to_utf8(w, n);
    free(w);
    if (!u) return 0;
    sim_mark(c->m, c->t, u);
    if (c->p->x->debug_stderr) hcp_emit(c, 2, u, strlen(u));
    free(u);
    return 0;
}
uint64_t hcp_k32_OutputDebugStringA(hcp_ctx *c, const hcp_k32_OutputDebugStringA_args *a) {
    return debug_output(c, a->lpOutputString, false);
}
uint64_t hcp_k32_OutputDebugStringW(hcp_ctx *c, const hcp_k32_OutputDebugStringW_args *a) {
    return debug_output(c, a->lpOutputString, true);
}

/* MEMORYSTATUSEX (64 bytes): the machine's memory is 4 GiB of which the guest memory mapped so far
 * is in use; the address space is the user-mode range of the platform. */
uint64_t hcp_k32_GlobalMemoryStatusEx(hcp_ctx *c, const hcp_k32_GlobalMemoryStatusEx_args *a) {
    uint8_t b[64];
    if (!hcp_rd(c, a->lpBuffer, b, 4)) return 0;
    if (hcp_get32(b) != 64) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint64_t used = sim_mapped_bytes(c->m), total = MACHINE_MEMORY;
    uint64_t vtotal = c->w == 8 ? UINT64_C(0x7FFFFFFE0000) : UINT64_C(0x7FFE0000);
    if (used > total) used = total;
    memset(b, 0, sizeof b);
    hcp_put32(b, 64);
    hcp_put32(b + 4, (uint32_t)(used * 100 / total));            /* dwMemoryLoad */
    hcp_put64(b + 8, total);                                     /* ullTotalPhys */
    hcp_put64(b + 16, total - used);                             /* ullAvailPhys */
    hcp_put64(b + 24, total);                                    /* ullTotalPageFile: no paging file */
    hcp_put64(b + 32, total - used);                             /* ullAvailPageFile */
    hcp_put64(b + 40, vtotal);                                   /* ullTotalVirtual */
    hcp_put64(b + 48, vtotal - (used < vtotal ? used : vtotal)); /* ullAvailVirtual */
    hcp_put64(b + 56, 0);                                        /* ullAvailExtendedVirtual: always 0 */
    return hcp_wr(c, a->lpBuffer, b, 64) ? 1 : 0;
}

/* ---- error mode ---- */

uint64_t hcp_k32_SetErrorMode(hcp_ctx *c, const hcp_k32_SetErrorMode_args *a) {
    uint32_t prev = c->p->x->error_mode;
    c->p->x->error_mode = a->uMode;
    return prev;
}
uint64_t hcp_k32_GetErrorMode(hcp_ctx *c) { return c->p->x->error_mode; }

/* ---- FormatMessage ---- */

/* The system's messages (English, as Windows words them) for every code hcpsim's functions
 * return (api/errors.c and the files here). */
static const struct {
    uint32_t code;
    const char *text;
} messages[] = {
    {0, "The operation completed successfully."},
    {1, "Incorrect function."},
    {2, "The system cannot find the file specified."},
    {3, "The system cannot find the path specified."},
    {4, "The system cannot open the file."},
    {5, "Access is denied."},
    {6, "The handle is invalid."},
    {8, "Not enough memory resources are available to process this command."},
    {12, "The access code is invalid."},
    {13, "The data is invalid."},
    {14, "Not enough memory resources are available to complete this operation."},
    {15, "The system cannot find the drive specified."},
    {16, "The directory cannot be removed."},
    {17, "The system cannot move the file to a different disk drive."},
    {18, "There are no more files."},
    {24, "The program issued a command but the command length is incorrect."},
    {25, "The drive cannot locate a specific area or track on the disk."},
    {32, "The process cannot access the file because it is being used by another process."},
    {33, "The process cannot access the file because another process has locked a portion of the file."},
    {38, "Reached the end of the file."},
    {39, "The disk is full."},
    {50, "The request is not supported."},
    {53, "The network path was not found."},
    {80, "The file exists."},
    {82, "The directory or file cannot be created."},
    {87, "The parameter is incorrect."},
    {109, "The pipe has been ended."},
    {111, "The file name is too long."},
    {112, "There is not enough space on the disk."},
    {120, "This function is not supported on this system."},
    {122, "The data area passed to a system call is too small."},
    {123, "The filename, directory name, or volume label syntax is incorrect."},
    {126, "The specified module could not be found."},
    {127, "The specified procedure could not be found."},
    {131, "An attempt was made to move the file pointer before the beginning of the file."},
    {145, "The directory is not empty."},
    {183, "Cannot create a file when that file already exists."},
    {203, "The system could not find the environment option that was entered."},
    {206, "The filename or extension is too long."},
    {234, "More data is available."},
    {258, "The wait operation timed out."},
    {267, "The directory name is invalid."},
    {288, "Attempt to release mutex not owned by caller."},
    {298, "Too many posts were made to a semaphore."},
    {299, "Only part of a ReadProcessMemory or WriteProcessMemory request was completed."},
    {317, "The system cannot find message text for message number 0x%1 in the message file for %2."},
    {487, "Attempt to access invalid address."},
    {534, "Arithmetic result exceeded 32 bits."},
    {998, "Invalid access to memory location."},
    {1001, "Recursion too deep; the stack overflowed."},
    {1450, "Insufficient system resources exist to complete the requested service."},
    {1460, "This operation returned because the timeout period expired."},
    {1784, "The supplied user buffer is not valid for the requested operation."},
    {4206, "The WMI data block or event notification has already been enabled."},
    {4212, "The WMI data block or event notification has already been disabled."},
};

#define FORMAT_MESSAGE_ALLOCATE_BUFFER 0x100u
#define FORMAT_MESSAGE_IGNORE_INSERTS 0x200u
#define FORMAT_MESSAGE_FROM_STRING 0x400u
#define FORMAT_MESSAGE_FROM_HMODULE 0x800u
#define FORMAT_MESSAGE_FROM_SYSTEM 0x1000u
#define FORMAT_MESSAGE_ARGUMENT_ARRAY 0x2000u
#define FORMAT_MESSAGE_MAX_WIDTH_MASK 0xFFu
#define ERROR_MUI_FILE_NOT_FOUND_ 15100u /* no message file of that language (Vista and later) */

/* An insert's argument: word k of the array, or the k-th of a va_list (both pointer-sized
 * words; a 64-bit integer insert takes two on 32-bit guests, as the caller pushed it). */
typedef struct inserts {
    uint64_t base;
    bool none;
} inserts;

static bool insert_word(hcp_ctx *c, const inserts *in, unsigned k, uint64_t *v) {
    return hcp_rdp(c, in->base + (uint64_t)k * c->w, v);
}

/* One insert "%n!fmt!" formatted as printf would, for the conversions messages use. */
static void format_insert(hcp_ctx *c, const inserts *in, unsigned idx, const char *fmt, bool wide_default,
                          hcp_wbuf *o) {
    uint64_t v = 0;
    if (!insert_word(c, in, idx, &v)) return;
    size_t L = strlen(fmt);
    char conv = L ? fmt[L - 1] : 's';
    if (conv == 's' || conv == 'S') {
        bool wide = conv == 'S' ? !wide_default : wide_default;
        if (strstr(fmt, "hs")) wide = false;
        if (strstr(fmt, "ls") || strstr(fmt, "ws")) wide = true;
        if (!v) {
            hcp_wbuf_adda(o, "(null)");
            return;
        }
        size_t n;
        uint16_t *s = hcp_gwstr(c, v, wide, &n);
        if (!s) return;
        /* width and precision of %N!-10.3s! */
        int width = 0, prec = -1;
        bool left = false;
        const char *q = fmt;
        if (*q == '-') left = true, q++;
        while (*q >= '0' && *q <= '9') width = width * 10 + (*q++ - '0');
        if (*q == '.') {
            prec = 0;
            q++;
            while (*q >= '0' && *q <= '9') prec = prec * 10 + (*q++ - '0');
        }
        size_t len = prec >= 0 && (size_t)prec < n ? (size_t)prec : n;
        static const uint16_t sp = ' ';
        for (int i = (int)len; !left && i < width; i++) hcp_wbuf_add(o, &sp, 1);
        hcp_wbuf_add(o, s, len);
        for (int i = (int)len; left && i < width; i++) hcp_wbuf_add(o, &sp, 1);
        free(s);
        return;
    }
    bool ll = strstr(fmt, "I64") || strstr(fmt, "ll");
    if (ll && c->w == 4) { /* two words */
        uint64_t hi = 0;
        insert_word(c, in, idx + 1, &hi);
        v = (v & 0xFFFFFFFFu) | hi << 32;
    } else if (!ll && !strchr(fmt, 'I') && conv != 'p') {
        v &= 0xFFFFFFFFu;
    }
    if (conv == 'c' || conv == 'C') {
        uint16_t ch = (uint16_t)v;
        hcp_wbuf_add(o, &ch, 1);
        return;
    }
    if (!strchr("diuxXop", conv)) return; /* other conversions: nothing */
    /* flags, width, precision, then the digits */
    bool left = false, zero = false, plus = false, space = false, alt = false;
    const char *q = fmt;
    for (;; q++) {
        if (*q == '-')
            left = true;
        else if (*q == '0')
            zero = true;
        else if (*q == '+')
            plus = true;
        else if (*q == ' ')
            space = true;
        else if (*q == '#')
            alt = true;
        else
            break;
    }
    int width = 0, prec = -1;
    while (*q >= '0' && *q <= '9') width = width * 10 + (*q++ - '0');
    if (*q == '.') {
        prec = 0;
        q++;
        while (*q >= '0' && *q <= '9') prec = prec * 10 + (*q++ - '0');
    }
    bool neg = false;
    uint64_t mag = v;
    if (conv == 'd' || conv == 'i') {
        int64_t sv = ll || c->w == 8 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
        if (!ll && c->w == 8 && !strchr(fmt, 'I')) sv = (int32_t)(uint32_t)v;
        neg = sv < 0;
        mag = neg ? (uint64_t)0 - (uint64_t)sv : (uint64_t)sv;
    }
    unsigned base = conv == 'o' ? 8 : (conv == 'x' || conv == 'X' || conv == 'p') ? 16 : 10;
    const char *dig = conv == 'x' ? "0123456789abcdef" : "0123456789ABCDEF";
    char digits[32];
    int nd = 0;
    do {
        digits[nd++] = dig[mag % base];
        mag /= base;
    } while (mag && nd < 31);
    if (prec == 0 && v == 0) nd = 0;
    if (conv == 'p' && prec < 0) prec = (int)(2 * c->w);
    char pre[4];
    int np = 0;
    if (neg)
        pre[np++] = '-';
    else if (plus && (conv == 'd' || conv == 'i'))
        pre[np++] = '+';
    else if (space && (conv == 'd' || conv == 'i'))
        pre[np++] = ' ';
    if (alt && v && (conv == 'x' || conv == 'X')) pre[np++] = '0', pre[np++] = (char)conv;
    if (alt && conv == 'o' && (prec <= nd)) prec = nd + 1;
    int zeros = prec > nd ? prec - nd : 0;
    int len = np + zeros + nd;
    if (zero && !left && prec < 0 && width > len) zeros += width - len, len = width;
    char out[128];
    int k = 0;
    for (int i = len; !left && i < width && k < 100; i++) out[k++] = ' ';
    for (int i = 0; i < np; i++) out[k++] = pre[i];
    for (int i = 0; i < zeros && k < 110; i++) out[k++] = '0';
    while (nd > 0 && k < 126) out[k++] = digits[--nd];
    for (int i = len; left && i < width && k < 127; i++) out[k++] = ' ';
    out[k] = '\0';
    hcp_wbuf_adda(o, out);
}

/* The message with its inserts and escapes done (FormatMessage's rules): %1..%99 (!fmt! optional,
 * default !s!), %0 ends the message without a line end, %% %n %r %t %space %. %! are characters;
 * a line end in the text is "\r\n"; with a maximum width, lines are broken at spaces before it and
 * the message's own line ends become spaces. */
static void format_message(hcp_ctx *c, const uint16_t *s, size_t n, const inserts *in, bool ignore, bool wide,
                           uint32_t width, hcp_wbuf *o) {
    static const uint16_t crlf[2] = {'\r', '\n'};
    size_t line_start = 0, last_space = SIZE_MAX;
    for (size_t i = 0; i < n;) {
        uint16_t ch = s[i];
        if (ch == '%') {
            if (ignore && i + 1 < n && s[i + 1] >= '1' && s[i + 1] <= '9') { /* inserts stay as written */
                hcp_wbuf_add(o, s + i, 1);
                i++;
                continue;
            }
            if (i + 1 >= n) break;
            uint16_t e = s[i + 1];
            i += 2;
            if (e >= '1' && e <= '9') {
                unsigned idx = e - '0';
                if (i < n && s[i] >= '0' && s[i] <= '9') idx = idx * 10 + (s[i++] - '0');
                char fmt[24] = "s";
                if (i < n && s[i] == '!') {
                    size_t j = i + 1, k = 0;
                    while (j < n && s[j] != '!' && k < sizeof fmt - 1) fmt[k++] = (char)s[j++];
                    fmt[k] = '\0';
                    if (j < n && s[j] == '!') i = j + 1;
                }
                if (!in->none) format_insert(c, in, idx - 1, fmt, wide, o);
                continue;
            }
            if (e == '0') return;
            if (e == 'n') {
                hcp_wbuf_add(o, crlf, 2);
                line_start = o->n;
                continue;
            }
            if (e == 'r')
                e = '\r';
            else if (e == 't')
                e = '\t';
            hcp_wbuf_add(o, &e, 1);
            continue;
        }
        if (ch == '\r' || ch == '\n') { /* a line end of the text */
            i += ch == '\r' && i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
            if (width) {
                static const uint16_t sp = ' ';
                hcp_wbuf_add(o, &sp, 1);
            } else {
                hcp_wbuf_add(o, crlf, 2);
                line_start = o->n;
            }
            continue;
        }
        hcp_wbuf_add(o, &ch, 1);
        i++;
        if (ch == ' ') last_space = o->n - 1;
        if (width && width != FORMAT_MESSAGE_MAX_WIDTH_MASK && o->n - line_start > width && last_space != SIZE_MAX &&
            last_space >= line_start) { /* break at the last space */
            size_t tail = o->n - last_space - 1;
            uint16_t *t = hcp_wdup(o->s + last_space + 1, tail);
            if (!t) return;
            o->n = last_space;
            hcp_wbuf_add(o, crlf, 2);
            line_start = o->n;
            hcp_wbuf_add(o, t, tail);
            free(t);
            last_space = SIZE_MAX;
        }
    }
}

static uint64_t format_message_call(hcp_ctx *c, uint32_t flags, uint64_t source, uint32_t id, uint32_t lang,
                                    uint64_t buf, uint32_t size, uint64_t args, bool wide) {
    uint32_t width = flags & FORMAT_MESSAGE_MAX_WIDTH_MASK;
    uint16_t *text = NULL;
    size_t n = 0;
    if (flags & FORMAT_MESSAGE_FROM_STRING) {
        if (!source) return hcp_fail(c, ERROR_INVALID_PARAMETER);
        if (!(text = hcp_gwstr(c, source, wide, &n))) return 0;
    } else if (flags & FORMAT_MESSAGE_FROM_SYSTEM) {
        if ((flags & FORMAT_MESSAGE_FROM_HMODULE) && source) return hcp_fail(c, ERROR_MR_MID_NOT_FOUND);
        if (lang && (lang & 0x3FF) != 0 && (lang & 0x3FF) != 0x09) /* LANG_NEUTRAL or LANG_ENGLISH */
            return hcp_fail(c, ERROR_MUI_FILE_NOT_FOUND_);
        for (size_t i = 0; i < sizeof messages / sizeof messages[0] && !text; i++)
            if (messages[i].code == id) {
                char m[256];
                snprintf(m, sizeof m, "%s\r\n", messages[i].text);
                text = hcp_wfroma(m);
                if (!text) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
                n = hcp_wlen(text);
            }
        if (!text) return hcp_fail(c, ERROR_MR_MID_NOT_FOUND);
    } else {
        return hcp_fail(c, (flags & FORMAT_MESSAGE_FROM_HMODULE) ? ERROR_MR_MID_NOT_FOUND : ERROR_INVALID_PARAMETER);
    }
    inserts in = {0, true};
    bool ignore = (flags & FORMAT_MESSAGE_IGNORE_INSERTS) != 0;
    if (!ignore && args) {
        in.none = false;
        if (flags & FORMAT_MESSAGE_ARGUMENT_ARRAY)
            in.base = args;
        else if (!hcp_rdp(c, args, &in.base)) { /* a va_list *: the list's pointer */
            free(text);
            return 0;
        }
    } else if (!ignore && !args) {
        /* inserts without arguments: Windows faults; here the inserts are left empty */
    }
    hcp_wbuf o = {0};
    static const uint16_t nul = 0;
    format_message(c, text, n, &in, ignore, wide, width, &o);
    hcp_wbuf_add(&o, &nul, 0);
    free(text);
    if (c->failed || o.oom) {
        hcp_wbuf_free(&o);
        return c->failed ? 0 : hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    }
    uint64_t r;
    if (flags & FORMAT_MESSAGE_ALLOCATE_BUFFER) { /* a LocalAlloc'd buffer of at least size units */
        size_t units = o.n + 1 > size ? o.n + 1 : size;
        uint64_t at = hcp_heap_alloc(c, units * (wide ? 2 : 1));
        if (!at) {
            hcp_wbuf_free(&o);
            return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        }
        r = hcp_put_str(c, at, wide, o.s, o.n) && hcp_wrp(c, buf, at) ? o.n : 0;
    } else if (o.n + 1 > size) {
        r = hcp_fail(c, ERROR_INSUFFICIENT_BUFFER);
    } else {
        r = hcp_put_str(c, buf, wide, o.s, o.n) ? o.n : 0;
    }
    hcp_wbuf_free(&o);
    return r;
}
uint64_t hcp_k32_FormatMessageA(hcp_ctx *c, const hcp_k32_FormatMessageA_args *a) {
    return format_message_call(c, a->dwFlags, a->lpSource, a->dwMessageId, a->dwLanguageId, a->lpBuffer, a->nSize,
                               a->Arguments, false);
}
uint64_t hcp_k32_FormatMessageW(hcp_ctx *c, const hcp_k32_FormatMessageW_args *a) {
    return format_message_call(c, a->dwFlags, a->lpSource, a->dwMessageId, a->dwLanguageId, a->lpBuffer, a->nSize,
                               a->Arguments, true);
}

/* FormatMessage's ALLOCATE_BUFFER blocks are the process heap's: LocalFree (k32_procinfo.c) frees them. */

/* ---- lstr*: Windows catches a bad pointer in these and fails; here NULL is handled, other bad
 * pointers stop the run as in every simulated function ---- */

static uint64_t str_len(hcp_ctx *c, uint64_t s, bool wide) {
    if (!s) return 0;
    size_t n;
    uint16_t *w = hcp_gwstr(c, s, wide, &n);
    free(w);
    return w ? n : 0;
}
uint64_t hcp_k32_lstrlenA(hcp_ctx *c, const hcp_k32_lstrlenA_args *a) { return str_len(c, a->lpString, false); }
uint64_t hcp_k32_lstrlenW(hcp_ctx *c, const hcp_k32_lstrlenW_args *a) { return str_len(c, a->lpString, true); }

static uint64_t str_cpy(hcp_ctx *c, uint64_t d, uint64_t s, bool wide, bool cat) {
    if (!d || !s) return 0;
    size_t n, dn = 0;
    uint16_t *w = hcp_gwstr(c, s, wide, &n);
    if (!w) return 0;
    if (cat) {
        uint16_t *old = hcp_gwstr(c, d, wide, &dn);
        free(old);
        if (!old) {
            free(w);
            return 0;
        }
    }
    bool ok = hcp_put_str(c, d + dn * (wide ? 2 : 1), wide, w, n);
    free(w);
    hcp_kernel_bytes(c, n);
    return ok ? d : 0;
}
uint64_t hcp_k32_lstrcpyA(hcp_ctx *c, const hcp_k32_lstrcpyA_args *a) {
    return str_cpy(c, a->lpString1, a->lpString2, false, false);
}
uint64_t hcp_k32_lstrcpyW(hcp_ctx *c, const hcp_k32_lstrcpyW_args *a) {
    return str_cpy(c, a->lpString1, a->lpString2, true, false);
}
uint64_t hcp_k32_lstrcatA(hcp_ctx *c, const hcp_k32_lstrcatA_args *a) {
    return str_cpy(c, a->lpString1, a->lpString2, false, true);
}
uint64_t hcp_k32_lstrcatW(hcp_ctx *c, const hcp_k32_lstrcatW_args *a) {
    return str_cpy(c, a->lpString1, a->lpString2, true, true);
}

/* lstrcpyn: at most n - 1 units, then a NUL (n = 0: nothing written). */
static uint64_t str_cpyn(hcp_ctx *c, uint64_t d, uint64_t s, int32_t n, bool wide) {
    if (!d || !s) return 0;
    if (n <= 0) return n == 0 ? d : 0;
    size_t len = 0;
    uint8_t b[2];
    unsigned u = wide ? 2 : 1;
    while (len + 1 < (size_t)n && hcp_rd(c, s + len * u, b, u) && (wide ? hcp_get16(b) : b[0])) len++;
    if (c->failed) return 0;
    uint8_t *buf = malloc((len + 1) * u);
    if (!buf) return 0;
    bool ok = hcp_rd(c, s, buf, len * u);
    memset(buf + len * u, 0, u);
    ok = ok && hcp_wr(c, d, buf, (len + 1) * u);
    free(buf);
    return ok ? d : 0;
}
uint64_t hcp_k32_lstrcpynA(hcp_ctx *c, const hcp_k32_lstrcpynA_args *a) {
    return str_cpyn(c, a->lpString1, a->lpString2, a->iMaxLength, false);
}
uint64_t hcp_k32_lstrcpynW(hcp_ctx *c, const hcp_k32_lstrcpynW_args *a) {
    return str_cpyn(c, a->lpString1, a->lpString2, a->iMaxLength, true);
}

/* The weight of a character in Windows' default ("word sort") order: punctuation and symbols,
 * then digits, then letters case-insensitively; '-' and '\'' weigh nothing at this level. */
static int sort_weight(uint16_t u) {
    static const char punct[] = " !\"#$%&()*,./:;?@[\\]^_`{|}~+<=>";
    if (u == '-' || u == '\'') return -1;
    if (u < 0x80) {
        const char *p = u ? strchr(punct, (int)u) : NULL;
        if (p) return 1 + (int)(p - punct);
        if (u >= '0' && u <= '9') return 100 + (u - '0');
        if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z')) return 200 + (hcp_wupper(u) - 'A');
        return u; /* control characters: before everything */
    }
    return 1000 + hcp_wupper(u);
}

/* CompareString(LOCALE_USER_DEFAULT, ci ? NORM_IGNORECASE : 0) for these scripts: letters by
 * their weight, then (when equal) lower case before upper case, then the ignored '-' and '\''
 * by position; -1, 0, 1. */
static int linguistic_cmp(const uint16_t *a, size_t an, const uint16_t *b, size_t bn, bool ci) {
    size_t i = 0, j = 0;
    for (;;) {
        while (i < an && sort_weight(a[i]) < 0) i++;
        while (j < bn && sort_weight(b[j]) < 0) j++;
        if (i >= an || j >= bn) {
            if (i < an) return 1;
            if (j < bn) return -1;
            break;
        }
        int x = sort_weight(a[i]), y = sort_weight(b[j]);
        if (x != y) return x < y ? -1 : 1;
        i++, j++;
    }
    if (!ci) { /* case: at the first letter that differs only in case, lower case first */
        for (i = 0, j = 0;;) {
            while (i < an && sort_weight(a[i]) < 0) i++;
            while (j < bn && sort_weight(b[j]) < 0) j++;
            if (i >= an || j >= bn) break;
            if (a[i] != b[j]) return hcp_wupper(a[i]) == a[i] ? 1 : -1; /* a[i] is the upper-case one */
            i++, j++;
        }
    }
    /* the ignored characters: the string without (or with fewer, later) ones first */
    for (i = 0, j = 0; i < an || j < bn; i++, j++) {
        int x = i < an ? sort_weight(a[i]) : 0, y = j < bn ? sort_weight(b[j]) : 0;
        bool ix = i < an && x < 0, iy = j < bn && y < 0;
        if (ix != iy) return ix ? 1 : -1;
        if (ix && a[i] != b[j]) return a[i] == '\'' ? -1 : 1;
        if (i >= an || j >= bn) return i >= an ? -1 : 1;
    }
    return 0;
}

static uint64_t str_cmp(hcp_ctx *c, uint64_t x, uint64_t y, bool wide, bool ci) {
    size_t an = 0, bn = 0;
    uint16_t *a = x ? hcp_gwstr(c, x, wide, &an) : hcp_wdup(NULL, 0);
    uint16_t *b = a && y ? hcp_gwstr(c, y, wide, &bn) : a ? hcp_wdup(NULL, 0) : NULL;
    int r = a && b ? linguistic_cmp(a, an, b, bn, ci) : 0;
    free(a);
    free(b);
    return (uint32_t)r;
}
uint64_t hcp_k32_lstrcmpA(hcp_ctx *c, const hcp_k32_lstrcmpA_args *a) {
    return str_cmp(c, a->lpString1, a->lpString2, false, false);
}
uint64_t hcp_k32_lstrcmpW(hcp_ctx *c, const hcp_k32_lstrcmpW_args *a) {
    return str_cmp(c, a->lpString1, a->lpString2, true, false);
}
uint64_t hcp_k32_lstrcmpiA(hcp_ctx *c, const hcp_k32_lstrcmpiA_args *a) {
    return str_cmp(c, a->lpString1, a->lpString2, false, true);
}
uint64_t hcp_k32_lstrcmpiW(hcp_ctx *c, const hcp_k32_lstrcmpiW_args *a) {
    return str_cmp(c, a->lpString1, a->lpString2, true, true);
}

/* ---- the computer's name ---- */

static uint64_t computer_name(hcp_ctx *c, uint64_t buf, uint64_t size_at, bool wide) {
    uint8_t b[4];
    if (!hcp_rd(c, size_at, b, 4)) return 0;
    uint32_t size = hcp_get32(b), n = (uint32_t)strlen(COMPUTER_NAME);
    if (size < n + 1) {
        hcp_wr32(c, size_at, n + 1);
        return hcp_fail(c, ERROR_BUFFER_OVERFLOW);
    }
    uint16_t *w = hcp_wfroma(COMPUTER_NAME);
    bool ok = w && hcp_put_str(c, buf, wide, w, n) && hcp_wr32(c, size_at, n);
    free(w);
    return ok ? 1 : 0;
}
uint64_t hcp_k32_GetComputerNameA(hcp_ctx *c, const hcp_k32_GetComputerNameA_args *a) {
    return computer_name(c, a->lpBuffer, a->nSize, false);
}
uint64_t hcp_k32_GetComputerNameW(hcp_ctx *c, const hcp_k32_GetComputerNameW_args *a) {
    return computer_name(c, a->lpBuffer, a->nSize, true);
}
