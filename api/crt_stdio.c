/* api/crt_stdio.c — msvcrt's FILE streams: stdin, stdout and stderr (_iob[0..2]),
 * written to the process's output in text mode ("\n" as "\r\n") unless
 * _setmode made a stream binary (api/README.md "Windows programs": "Output"). */
#include <stdlib.h>

#include "api/exports_gen.h"

#define O_TEXT 0x4000u
#define O_BINARY 0x8000u
#define EBADF 9u
#define EINVAL 22u
#define CRT_EOF ((uint32_t)-1)

void hcp_emit(hcp_ctx *c, int fd, const char *s, size_t n) {
    if (c->p->out && n) c->p->out(c->p->out_ud, fd, s, n);
}

void hcp_emit_text(hcp_ctx *c, int fd, const char *s, size_t n) {
    if (fd >= 0 && fd < 3 && c->p->binary[fd]) {
        hcp_emit(c, fd, s, n);
        return;
    }
    size_t from = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n') {
            hcp_emit(c, fd, s + from, i - from);
            hcp_emit(c, fd, "\r\n", 2);
            from = i + 1;
        }
    hcp_emit(c, fd, s + from, n - from);
}

int hcp_file_fd(hcp_ctx *c, uint64_t f) {
    for (unsigned i = 0; i < 3; i++)
        if (f == c->p->d.iob + i * c->p->d.file_size) return (int)i;
    return -1;
}

uint64_t hcp_crt_fputc(hcp_ctx *c, const hcp_crt_fputc_args *a) {
    int fd = hcp_file_fd(c, a->_File);
    char ch = (char)a->_Ch;
    if (fd < 1) return CRT_EOF;
    hcp_emit_text(c, fd, &ch, 1);
    return (uint8_t)ch;
}

uint64_t hcp_crt_putchar(hcp_ctx *c, const hcp_crt_putchar_args *a) {
    char ch = (char)a->_Ch;
    hcp_emit_text(c, 1, &ch, 1);
    return (uint8_t)ch;
}

static uint64_t put_string(hcp_ctx *c, uint64_t s, int fd, bool nl) {
    size_t n;
    char *b = hcp_gstr(c, s, &n);
    if (!b) return CRT_EOF;
    if (fd < 1) {
        free(b);
        return CRT_EOF;
    }
    hcp_emit_text(c, fd, b, n);
    if (nl) hcp_emit_text(c, fd, "\n", 1);
    free(b);
    return 0;
}
uint64_t hcp_crt_puts(hcp_ctx *c, const hcp_crt_puts_args *a) { return put_string(c, a->_Str, 1, true); }
uint64_t hcp_crt_fputs(hcp_ctx *c, const hcp_crt_fputs_args *a) {
    return put_string(c, a->_Str, hcp_file_fd(c, a->_File), false);
}

uint64_t hcp_crt_fwrite(hcp_ctx *c, const hcp_crt_fwrite_args *a) {
    uint64_t size = a->_Size, count = a->_Count;
    int fd = hcp_file_fd(c, a->_File);
    if (!size || !count) return 0;
    if (fd < 1 || count > HCP_MAX_STR / size) return 0;
    char *b = malloc((size_t)(size * count));
    if (b && hcp_rd(c, a->_Str, b, (size_t)(size * count))) hcp_emit_text(c, fd, b, (size_t)(size * count));
    free(b);
    return c->failed ? 0 : count;
}

uint64_t hcp_crt_fflush(hcp_ctx *c, const hcp_crt_fflush_args *a) {
    (void)c;
    (void)a;
    return 0; /* nothing is buffered */
}

uint64_t hcp_crt__fileno(hcp_ctx *c, const hcp_crt__fileno_args *a) { return (uint32_t)hcp_file_fd(c, a->_File); }

/* (fd, mode): the previous mode, _O_TEXT or _O_BINARY. */
uint64_t hcp_crt__setmode(hcp_ctx *c, const hcp_crt__setmode_args *a) {
    int32_t fd = a->_FileHandle;
    uint32_t mode = (uint32_t)a->_Mode;
    if (fd < 0 || fd > 2 || (mode != O_TEXT && mode != O_BINARY)) {
        hcp_wr32(c, c->p->d.v_errno, fd < 0 || fd > 2 ? EBADF : EINVAL);
        return CRT_EOF;
    }
    uint32_t prev = c->p->binary[fd] ? O_BINARY : O_TEXT;
    c->p->binary[fd] = mode == O_BINARY;
    return prev;
}
