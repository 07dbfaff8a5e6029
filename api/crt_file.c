/* api/crt_file.c — msvcrt's files (api/README.md "msvcrt's stdio"): the descriptor layer
 * (_open, _read, _write, _lseek, _close, ...), opening, reading, positioning and closing FILE
 * streams, their flags, perror, remove/rename, temporary files and _stat, on KERNEL32's files
 * (api/fs.c) as msvcrt sits on them: fopen is _open is CreateFile with FILE_SHARE_READ |
 * FILE_SHARE_WRITE, and errno is what msvcrt's _dosmaperr makes of the Win32 error.
 *
 * Longer than 800 lines: the descriptor layer and the FILE streams on it share the flag and
 * errno mapping; they are kept together so that fopen's mode parsing and _open's flags stay one rule.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api/crt_int.h"
#include "api/crtio_int.h"
#include "api/exports_gen.h"

#define GENERIC_READ 0x80000000u
#define GENERIC_WRITE 0x40000000u
#define DELETE_ACCESS 0x00010000u
#define FILE_SHARE_READ 1u
#define FILE_SHARE_WRITE 2u
#define FILE_SHARE_DELETE 4u
#define CREATE_NEW 1u
#define CREATE_ALWAYS 2u
#define OPEN_EXISTING 3u
#define OPEN_ALWAYS 4u
#define TRUNCATE_EXISTING 5u
#define FILE_ATTRIBUTE_READONLY 0x1u
#define FILE_ATTRIBUTE_DIRECTORY 0x10u
#define FILE_FLAG_DELETE_ON_CLOSE 0x04000000u
#define CS_SIZE(c) ((c)->w == 8 ? 40u : 24u) /* sizeof(CRITICAL_SECTION) */

/* ---- descriptors ---- */

static int fd_new(hcp_ctx *c, hcp_file *f, uint64_t handle, bool text, bool append) {
    hcp_crtio *io = hcp_crtio_of(c);
    for (int fd = 3; io && fd < CRT_MAX_FDS; fd++)
        if (!io->fds[fd].open) {
            io->fds[fd] = (crt_fdesc){f, handle, true, text, append, false, false};
            return fd;
        }
    return -1;
}

static bool text_default(hcp_ctx *c) { /* _fmode: 0 or _O_TEXT is text */
    uint8_t b[4];
    return !hcp_rd(c, c->p->d.v_fmode, b, 4) || !(hcp_get32(b) & CRT_O_BINARY);
}

/* _open(name, oflag, pmode) on a UTF-16 name: the new descriptor, or -1 with errno. */
static int crt_open(hcp_ctx *c, const uint16_t *name, size_t n, uint32_t oflag, uint32_t pmode, uint32_t share) {
    uint32_t acc = (oflag & 3) == CRT_O_WRONLY ? GENERIC_WRITE
                   : (oflag & 3) == CRT_O_RDWR ? GENERIC_READ | GENERIC_WRITE
                                               : GENERIC_READ;
    if ((oflag & 3) == 3) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return -1;
    }
    uint32_t disp = (oflag & CRT_O_CREAT)   ? ((oflag & CRT_O_EXCL)    ? CREATE_NEW
                                               : (oflag & CRT_O_TRUNC) ? CREATE_ALWAYS
                                                                       : OPEN_ALWAYS)
                    : (oflag & CRT_O_TRUNC) ? TRUNCATE_EXISTING
                                            : OPEN_EXISTING;
    uint32_t flags = 0;
    if ((oflag & CRT_O_CREAT) && !(pmode & CRT_S_IWRITE)) flags |= FILE_ATTRIBUTE_READONLY;
    if (oflag & CRT_O_TEMPORARY) {
        flags |= FILE_FLAG_DELETE_ON_CLOSE;
        acc |= DELETE_ACCESS;
        share |= FILE_SHARE_DELETE;
    }
    if (disp == TRUNCATE_EXISTING && !(acc & GENERIC_WRITE)) acc |= GENERIC_WRITE; /* msvcrt opens it to truncate */
    hcp_open o = {acc, share, disp, flags};
    uint32_t err;
    bool existed;
    hcp_file *f = hcp_fs_open(c, name, n, &o, &err, &existed);
    if (!f) {
        hcp_crt_set_errno(c, hcp_crt_errno_of(err));
        return -1;
    }
    if (hcp_file_type(f) == HCP_FT_DISK) { /* a folder cannot be a descriptor */
        hcp_finfo in;
        if (!hcp_file_info(c, f, &in) && (in.attr & FILE_ATTRIBUTE_DIRECTORY)) {
            hcp_file_unref(c, f);
            hcp_crt_set_errno(c, CRT_EACCES);
            return -1;
        }
    }
    uint64_t h = hcp_file_handle(c, f, acc);
    if (!h) {
        hcp_file_unref(c, f);
        hcp_crt_set_errno(c, CRT_EMFILE);
        return -1;
    }
    bool text = (oflag & CRT_O_BINARY) ? false : (oflag & CRT_O_TEXT) ? true : text_default(c);
    int fd = fd_new(c, f, h, text, (oflag & CRT_O_APPEND) != 0);
    if (fd < 0) {
        hcp_CloseHandle(c->os, h);
        hcp_crt_set_errno(c, CRT_EMFILE);
        return -1;
    }
    return fd;
}

static int open_args(hcp_ctx *c, uint64_t name, bool wide, int32_t oflag, int va) {
    size_t n;
    uint16_t *w = hcp_gwstr(c, name, wide, &n);
    if (!w) return -1;
    uint64_t pmode = 0x180; /* _S_IREAD | _S_IWRITE when no third argument is read */
    if ((uint32_t)oflag & CRT_O_CREAT) hcp_word(c, va, &pmode);
    int fd = c->failed ? -1 : crt_open(c, w, n, (uint32_t)oflag, (uint32_t)pmode, FILE_SHARE_READ | FILE_SHARE_WRITE);
    free(w);
    return fd;
}
uint64_t hcp_crt__open(hcp_ctx *c, const hcp_crt__open_args *a) {
    return (uint32_t)open_args(c, a->_Filename, false, a->_OpenFlag, a->va.word);
}
uint64_t hcp_crt__wopen(hcp_ctx *c, const hcp_crt__wopen_args *a) {
    return (uint32_t)open_args(c, a->_Filename, true, a->_OpenFlag, a->va.word);
}

static int fd_close(hcp_ctx *c, int fd) {
    crt_fdesc *d = hcp_crt_fd(c, fd);
    if (!d) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return -1;
    }
    if (!d->console) hcp_CloseHandle(c->os, d->handle); /* the file goes with its last handle */
    *d = (crt_fdesc){0};
    return 0;
}
uint64_t hcp_crt__close(hcp_ctx *c, const hcp_crt__close_args *a) { return (uint32_t)fd_close(c, a->_FileHandle); }

uint64_t hcp_crt__read(hcp_ctx *c, const hcp_crt__read_args *a) {
    if (a->_MaxCharCount > 0x7FFFFFFFu) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    uint8_t *b = malloc(a->_MaxCharCount ? a->_MaxCharCount : 1);
    if (!b) return (uint32_t)-1;
    int64_t r = hcp_crt_read(c, a->_FileHandle, b, a->_MaxCharCount, false);
    if (r > 0 && !hcp_wr(c, a->_DstBuf, b, (size_t)r)) r = -1;
    free(b);
    return (uint32_t)r;
}

uint64_t hcp_crt__write(hcp_ctx *c, const hcp_crt__write_args *a) {
    uint32_t n = a->_MaxCharCount;
    if (n > (uint32_t)HCP_MAX_STR * 64u) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return (uint32_t)-1;
    int64_t r = hcp_rd(c, a->_Buf, b, n) ? hcp_crt_write(c, a->_FileHandle, b, n) : -1;
    free(b);
    return (uint32_t)r;
}

static int64_t fd_seek(hcp_ctx *c, int fd, int64_t off, int origin) {
    crt_fdesc *d = hcp_crt_fd(c, fd);
    if (!d) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return -1;
    }
    uint64_t pos;
    uint32_t err = origin < 0 || origin > 2 ? ERROR_INVALID_PARAMETER : hcp_file_seek(d->f, off, origin, &pos);
    if (err) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return -1;
    }
    d->eof = false;
    return (int64_t)pos;
}
uint64_t hcp_crt__lseek(hcp_ctx *c, const hcp_crt__lseek_args *a) {
    crt_fdesc *d = hcp_crt_fd(c, a->_FileHandle);
    uint64_t before = 0;
    if (d) hcp_file_seek(d->f, 0, 1, &before);
    int64_t r = fd_seek(c, a->_FileHandle, a->_Offset, a->_Origin);
    if (r > 0x7FFFFFFF) { /* past what a long holds: the pointer stays */
        hcp_file_seek(d->f, (int64_t)before, 0, NULL);
        hcp_crt_set_errno(c, CRT_EINVAL);
        r = -1;
    }
    return (uint32_t)r;
}
uint64_t hcp_crt__lseeki64(hcp_ctx *c, const hcp_crt__lseeki64_args *a) {
    return (uint64_t)fd_seek(c, a->_FileHandle, a->_Offset, a->_Origin);
}

uint64_t hcp_crt__get_osfhandle(hcp_ctx *c, const hcp_crt__get_osfhandle_args *a) {
    crt_fdesc *d = hcp_crt_fd(c, a->_FileHandle);
    if (!d) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu;
    }
    return d->handle;
}

uint64_t hcp_crt__open_osfhandle(hcp_ctx *c, const hcp_crt__open_osfhandle_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, (uint64_t)a->_OSFileHandle, &err);
    if (!f) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return (uint32_t)-1;
    }
    uint32_t flags = (uint32_t)a->_Flags;
    bool text = (flags & CRT_O_BINARY) ? false : (flags & CRT_O_TEXT) ? true : text_default(c);
    int fd = fd_new(c, f, (uint64_t)a->_OSFileHandle, text, (flags & CRT_O_APPEND) != 0);
    if (fd < 0)
        hcp_crt_set_errno(c, CRT_EMFILE);
    else if (hcp_file_type(f) != HCP_FT_DISK && (uint64_t)a->_OSFileHandle < 16)
        hcp_crt_fd(c, fd)->console = true;
    return (uint32_t)fd;
}

uint64_t hcp_crt__isatty(hcp_ctx *c, const hcp_crt__isatty_args *a) {
    crt_fdesc *d = hcp_crt_fd(c, a->_FileHandle);
    if (!d) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return 0;
    }
    return hcp_file_type(d->f) == HCP_FT_CHAR ? 0x40u : 0; /* msvcrt's FDEV */
}

uint64_t hcp_crt__eof(hcp_ctx *c, const hcp_crt__eof_args *a) {
    crt_fdesc *d = hcp_crt_fd(c, a->_FileHandle);
    if (!d) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return (uint32_t)-1;
    }
    uint64_t pos, size;
    if (hcp_file_type(d->f) != HCP_FT_DISK || hcp_file_seek(d->f, 0, 1, &pos) || hcp_file_size(d->f, &size)) return 0;
    return pos >= size;
}

/* The file's length in bytes; -1 and EBADF for a descriptor that is not open. */
static int64_t fd_length(hcp_ctx *c, int fd) {
    crt_fdesc *d = hcp_crt_fd(c, fd);
    uint64_t size;
    if (!d || hcp_file_size(d->f, &size)) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return -1;
    }
    return (int64_t)size;
}
uint64_t hcp_crt__filelength(hcp_ctx *c, const hcp_crt__filelength_args *a) {
    int64_t n = fd_length(c, a->_FileHandle);
    return (uint32_t)(n > INT32_MAX ? -1 : (int32_t)n); /* a length past LONG's range: -1, as msvcrt */
}
uint64_t hcp_crt__filelengthi64(hcp_ctx *c, const hcp_crt__filelengthi64_args *a) {
    return (uint64_t)fd_length(c, a->_FileHandle);
}

uint64_t hcp_crt__chsize(hcp_ctx *c, const hcp_crt__chsize_args *a) {
    crt_fdesc *d = hcp_crt_fd(c, a->_FileHandle);
    if (!d || a->_Size < 0) {
        hcp_crt_set_errno(c, d ? CRT_EINVAL : CRT_EBADF);
        return (uint32_t)-1;
    }
    uint64_t pos;
    hcp_file_seek(d->f, 0, 1, &pos);
    hcp_file_seek(d->f, a->_Size, 0, NULL);
    uint32_t err = hcp_file_truncate(c, d->f);
    hcp_file_seek(d->f, (int64_t)pos, 0, NULL);
    if (err) {
        hcp_crt_set_errno(c, err == ERROR_ACCESS_DENIED ? CRT_EBADF : hcp_crt_errno_of(err));
        return (uint32_t)-1;
    }
    return 0;
}

/* ---- opening and closing streams ---- */

/* fopen's mode: r w a, then + b t and msvcrt's c n N S R T D; false for anything else. */
static bool parse_mode(const char *m, uint32_t *oflag, bool *rd, bool *wr) {
    uint32_t o;
    switch (*m++) {
    case 'r':
        o = CRT_O_RDONLY;
        *rd = true, *wr = false;
        break;
    case 'w':
        o = CRT_O_WRONLY | CRT_O_CREAT | CRT_O_TRUNC;
        *rd = false, *wr = true;
        break;
    case 'a':
        o = CRT_O_WRONLY | CRT_O_CREAT | CRT_O_APPEND;
        *rd = false, *wr = true;
        break;
    default: return false;
    }
    for (; *m; m++) {
        switch (*m) {
        case '+':
            o = (o & ~3u) | CRT_O_RDWR;
            *rd = *wr = true;
            break;
        case 'b': o |= CRT_O_BINARY; break;
        case 't': o |= CRT_O_TEXT; break;
        case 'T': o |= CRT_O_SHORT_LIVED; break;
        case 'D': o |= CRT_O_TEMPORARY; break;
        case 'N': o |= CRT_O_NOINHERIT; break;
        case 'S': o |= CRT_O_SEQUENTIAL; break;
        case 'R': o |= CRT_O_RANDOM; break;
        case 'c':
        case 'n':
        case ' ': break;
        default: return false;
        }
    }
    *oflag = o;
    return true;
}

/* A new FILE (heap) with its CRITICAL_SECTION for a descriptor; 0 with errno when none is left. */
static uint64_t stream_make(hcp_ctx *c, int fd, bool rd, bool wr) {
    uint64_t size = c->p->d.file_size + CS_SIZE(c);
    uint64_t at = hcp_heap_alloc(c, size);
    if (!at || !hcp_zero(c, at, size)) {
        hcp_crt_set_errno(c, CRT_ENOMEM);
        return 0;
    }
    const hcp_k32_InitializeCriticalSection_args ia = {at + c->p->d.file_size};
    hcp_k32_InitializeCriticalSection(c, &ia);
    crt_stream *s = hcp_stream_new(c, at, fd, rd, wr);
    if (!s) {
        hcp_heap_free(c, at);
        hcp_crt_set_errno(c, CRT_EMFILE);
        return 0;
    }
    s->heap = true;
    return at;
}

static uint64_t open_stream(hcp_ctx *c, uint64_t name, uint64_t mode, bool wide) {
    size_t n, mn;
    if (!name || !mode) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return 0;
    }
    uint16_t *w = hcp_gwstr(c, name, wide, &n), *wm = w ? hcp_gwstr(c, mode, wide, &mn) : NULL;
    if (!wm) {
        free(w);
        return 0;
    }
    char m[32];
    size_t k = 0;
    for (; k < mn && k < sizeof m - 1; k++) m[k] = (char)(wm[k] < 128 ? wm[k] : '?');
    m[k] = '\0';
    free(wm);
    uint32_t oflag;
    bool rd, wr;
    if (!hcp_crtio_of(c) || !parse_mode(m, &oflag, &rd, &wr)) {
        free(w);
        hcp_crt_set_errno(c, CRT_EINVAL);
        return 0;
    }
    int fd = crt_open(c, w, n, oflag, 0x180, FILE_SHARE_READ | FILE_SHARE_WRITE);
    free(w);
    if (fd < 0) return 0;
    uint64_t at = stream_make(c, fd, rd, wr);
    if (!at) fd_close(c, fd);
    return at;
}
uint64_t hcp_crt_fopen(hcp_ctx *c, const hcp_crt_fopen_args *a) {
    return open_stream(c, a->_Filename, a->_Mode, false);
}
uint64_t hcp_crt__wfopen(hcp_ctx *c, const hcp_crt__wfopen_args *a) {
    return open_stream(c, a->_Filename, a->_Mode, true);
}

uint64_t hcp_crt__fdopen(hcp_ctx *c, const hcp_crt__fdopen_args *a) {
    char *m = hcp_gstr(c, a->_Mode, NULL);
    if (!m) return 0;
    uint32_t oflag;
    bool rd, wr, ok = parse_mode(m, &oflag, &rd, &wr);
    free(m);
    if (!ok || !hcp_crt_fd(c, a->_FileHandle)) {
        hcp_crt_set_errno(c, ok ? CRT_EBADF : CRT_EINVAL);
        return 0;
    }
    if (oflag & CRT_O_BINARY) hcp_crt_fd(c, a->_FileHandle)->text = false;
    if (oflag & CRT_O_APPEND) hcp_crt_fd(c, a->_FileHandle)->append = true;
    return stream_make(c, a->_FileHandle, rd, wr);
}

static int stream_close(hcp_ctx *c, crt_stream *s) {
    int r = fd_close(c, s->fd) == 0 ? 0 : -1;
    bool heap = s->heap;
    uint64_t at = s->at, tmp = s->tmpname;
    hcp_stream_drop(c, s);
    if (heap) {
        const hcp_k32_DeleteCriticalSection_args da = {at + c->p->d.file_size};
        hcp_k32_DeleteCriticalSection(c, &da);
        hcp_heap_free(c, at);
    } else { /* _iob[i] stays: a closed stream */
        hcp_wr32(c, at + (c->w == 8 ? 24 : 12), 0);
    }
    if (tmp) hcp_heap_free(c, tmp);
    return r;
}

uint64_t hcp_crt_fclose(hcp_ctx *c, const hcp_crt_fclose_args *a) {
    crt_stream *s = hcp_stream_of(c, a->_File);
    if (!s) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return CRT_EOF;
    }
    if (!hcp_stream_enter(c, a->_File)) return 0; /* waits for another thread's lock */
    s = hcp_stream_of(c, a->_File);
    uint64_t at = a->_File;
    bool heap = s->heap;
    int r = stream_close(c, s);
    if (!heap) hcp_stream_leave(c, at);
    return (uint32_t)r;
}

uint64_t hcp_crt__fcloseall(hcp_ctx *c) {
    hcp_crtio *io = hcp_crtio_of(c);
    int n = 0;
    for (int i = io ? io->nst - 1 : -1; i >= 0; i--)
        if (io->st[i].heap) {
            stream_close(c, &io->st[i]);
            n++;
        }
    return (uint32_t)n;
}
uint64_t hcp_crt__flushall(hcp_ctx *c) {
    hcp_crtio *io = hcp_crtio_of(c);
    return io ? (uint32_t)io->nst : 0; /* the streams open; nothing to flush */
}

/* ---- reading ---- */

int hcp_stream_getc(hcp_ctx *c, crt_stream *s) {
    if (s->nunget) return s->unget[--s->nunget];
    if (!s->rd) {
        s->err = true;
        hcp_stream_sync(c, s);
        hcp_crt_set_errno(c, CRT_EBADF);
        return -1;
    }
    uint8_t ch;
    int64_t r = hcp_crt_read(c, s->fd, &ch, 1, false);
    if (r == 1) return ch;
    if (r == 0)
        s->eof = true;
    else
        s->err = true;
    hcp_stream_sync(c, s);
    return -1;
}

/* The stream of a reading call, locked (NULL: not a stream, errno set, or the call waits). */
static crt_stream *reading(hcp_ctx *c, uint64_t file, bool *waits) {
    *waits = false;
    if (!hcp_stream_of(c, file)) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return NULL;
    }
    if (!hcp_stream_enter(c, file)) {
        *waits = true;
        return NULL;
    }
    return hcp_stream_of(c, file);
}

uint64_t hcp_crt_getc(hcp_ctx *c, const hcp_crt_getc_args *a) {
    bool w;
    crt_stream *s = reading(c, a->_File, &w);
    if (!s) return CRT_EOF;
    int ch = hcp_stream_getc(c, s);
    hcp_stream_leave(c, a->_File);
    return (uint32_t)ch;
}
uint64_t hcp_crt_getchar(hcp_ctx *c) {
    const hcp_crt_getc_args a = {c->p->d.iob};
    return hcp_crt_getc(c, &a);
}
uint64_t hcp_crt__filbuf(hcp_ctx *c, const hcp_crt__filbuf_args *a) {
    const hcp_crt_getc_args g = {a->_File};
    return hcp_crt_getc(c, &g);
}
uint64_t hcp_crt__flsbuf(hcp_ctx *c, const hcp_crt__flsbuf_args *a) {
    const hcp_crt_fputc_args f = {a->_Ch, a->_File};
    return hcp_crt_fputc(c, &f);
}

uint64_t hcp_crt_ungetc(hcp_ctx *c, const hcp_crt_ungetc_args *a) {
    crt_stream *s = hcp_stream_of(c, a->_File);
    if (!s) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return CRT_EOF;
    }
    if (a->_Ch == -1 || s->nunget >= CRT_MAX_UNGET || !s->rd) return CRT_EOF;
    s->unget[s->nunget++] = (uint8_t)a->_Ch;
    s->eof = false;
    hcp_stream_sync(c, s);
    return (uint8_t)a->_Ch;
}

uint64_t hcp_crt_fread(hcp_ctx *c, const hcp_crt_fread_args *a) {
    uint64_t size = a->_ElementSize, count = a->_Count;
    if (!size || !count) return 0;
    if (count > (uint64_t)HCP_MAX_STR * 64 / size) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return 0;
    }
    bool w;
    crt_stream *s = reading(c, a->_File, &w);
    if (!s) return 0;
    size_t total = (size_t)(size * count), got = 0;
    uint8_t *b = malloc(total);
    if (!b) {
        hcp_stream_leave(c, a->_File);
        return 0;
    }
    while (got < total && s->nunget) b[got++] = s->unget[--s->nunget];
    while (got < total) {
        if (!s->rd) {
            s->err = true;
            hcp_crt_set_errno(c, CRT_EBADF);
            break;
        }
        int64_t r = hcp_crt_read(c, s->fd, b + got, total - got, false);
        if (r < 0) {
            s->err = true;
            break;
        }
        if (r == 0) {
            s->eof = true;
            break;
        }
        got += (size_t)r;
    }
    hcp_stream_sync(c, s);
    if (got) hcp_wr(c, a->_DstBuf, b, got);
    free(b);
    hcp_stream_leave(c, a->_File);
    return got / size;
}

uint64_t hcp_crt_fgets(hcp_ctx *c, const hcp_crt_fgets_args *a) {
    int32_t n = a->_MaxCount;
    if (n <= 0 || !a->_Buf) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return 0;
    }
    bool w;
    crt_stream *s = reading(c, a->_File, &w);
    if (!s) return 0;
    uint8_t *b = malloc((size_t)n);
    size_t got = 0;
    bool any = true;
    if (b) {
        while (got + 1 < (size_t)n && s->nunget) {
            b[got] = s->unget[--s->nunget];
            if (b[got++] == '\n') break;
        }
        while (got + 1 < (size_t)n && (!got || b[got - 1] != '\n')) {
            if (!s->rd) {
                s->err = true;
                break;
            }
            int64_t r = hcp_crt_read(c, s->fd, b + got, (size_t)n - 1 - got, true);
            if (r <= 0) {
                if (r == 0)
                    s->eof = true;
                else
                    s->err = true;
                break;
            }
            got += (size_t)r;
        }
        any = got > 0;
        b[got] = 0;
        if (any) hcp_wr(c, a->_Buf, b, got + 1);
    }
    free(b);
    hcp_stream_sync(c, s);
    hcp_stream_leave(c, a->_File);
    return b && any ? a->_Buf : 0;
}

/* ---- positions and flags ---- */

static int stream_seek(hcp_ctx *c, uint64_t file, int64_t off, int origin) {
    crt_stream *s = hcp_stream_of(c, file);
    if (!s || origin < 0 || origin > 2) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return -1;
    }
    if (origin == 1) off -= s->nunget; /* the pushed-back bytes were not read from the file */
    int64_t r = fd_seek(c, s->fd, off, origin);
    if (r < 0) return -1;
    s->nunget = 0;
    s->eof = false;
    hcp_stream_sync(c, s);
    return 0;
}
uint64_t hcp_crt_fseek(hcp_ctx *c, const hcp_crt_fseek_args *a) {
    return (uint32_t)stream_seek(c, a->_File, a->_Offset, a->_Origin);
}
uint64_t hcp_crt__fseeki64(hcp_ctx *c, const hcp_crt__fseeki64_args *a) {
    return (uint32_t)stream_seek(c, a->_File, a->_Offset, a->_Origin);
}

static int64_t stream_tell(hcp_ctx *c, uint64_t file) {
    crt_stream *s = hcp_stream_of(c, file);
    crt_fdesc *d = s ? hcp_crt_fd(c, s->fd) : NULL;
    if (!d) {
        hcp_crt_set_errno(c, s ? CRT_EBADF : CRT_EINVAL);
        return -1;
    }
    uint64_t pos;
    if (hcp_file_seek(d->f, 0, 1, &pos)) return -1;
    return (int64_t)pos - s->nunget < 0 ? 0 : (int64_t)pos - s->nunget;
}
uint64_t hcp_crt_ftell(hcp_ctx *c, const hcp_crt_ftell_args *a) {
    int64_t r = stream_tell(c, a->_File);
    if (r > 0x7FFFFFFF) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        r = -1;
    }
    return (uint32_t)r;
}
uint64_t hcp_crt__ftelli64(hcp_ctx *c, const hcp_crt__ftelli64_args *a) { return (uint64_t)stream_tell(c, a->_File); }
uint64_t hcp_crt_rewind(hcp_ctx *c, const hcp_crt_rewind_args *a) {
    crt_stream *s = hcp_stream_of(c, a->_File);
    if (!s) return 0;
    stream_seek(c, a->_File, 0, 0);
    s = hcp_stream_of(c, a->_File);
    s->err = false;
    hcp_stream_sync(c, s);
    return 0;
}

/* fpos_t: the position as a 64-bit integer. */
uint64_t hcp_crt_fgetpos(hcp_ctx *c, const hcp_crt_fgetpos_args *a) {
    int64_t r = stream_tell(c, a->_File);
    if (r < 0) return (uint32_t)-1;
    return hcp_wr64(c, a->_Pos, (uint64_t)r) ? 0 : (uint32_t)-1;
}
uint64_t hcp_crt_fsetpos(hcp_ctx *c, const hcp_crt_fsetpos_args *a) {
    uint8_t b[8];
    if (!hcp_rd(c, a->_Pos, b, 8)) return (uint32_t)-1;
    return (uint32_t)stream_seek(c, a->_File, (int64_t)hcp_get64(b), 0);
}

uint64_t hcp_crt_feof(hcp_ctx *c, const hcp_crt_feof_args *a) {
    crt_stream *s = hcp_stream_of(c, a->_File);
    return s && s->eof ? CRT_IOEOF : 0;
}
uint64_t hcp_crt_ferror(hcp_ctx *c, const hcp_crt_ferror_args *a) {
    crt_stream *s = hcp_stream_of(c, a->_File);
    return s && s->err ? CRT_IOERR : 0;
}
uint64_t hcp_crt_clearerr(hcp_ctx *c, const hcp_crt_clearerr_args *a) {
    crt_stream *s = hcp_stream_of(c, a->_File);
    if (s) {
        s->eof = s->err = false;
        crt_fdesc *d = hcp_crt_fd(c, s->fd);
        if (d) d->eof = false;
        hcp_stream_sync(c, s);
    }
    return 0;
}

/* Buffering: nothing is buffered, so the mode is checked and kept nowhere. */
uint64_t hcp_crt_setvbuf(hcp_ctx *c, const hcp_crt_setvbuf_args *a) {
    int32_t mode = a->_Mode;
    if (!hcp_stream_of(c, a->_File) || (mode != 0 && mode != 0x40 && mode != 4) ||
        (mode != 4 && (a->_Size < 2 || a->_Size > 0x7FFFFFFF))) { /* _IOFBF, _IOLBF, _IONBF */
        hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    return 0;
}
uint64_t hcp_crt_setbuf(hcp_ctx *c, const hcp_crt_setbuf_args *a) {
    (void)c;
    (void)a;
    return 0;
}

uint64_t hcp_crt_perror(hcp_ctx *c, const hcp_crt_perror_args *a) {
    int e = (int)hcp_crt_get_errno(c);
    char *s = a->_ErrMsg ? hcp_gstr(c, a->_ErrMsg, NULL) : NULL;
    if (a->_ErrMsg && !s) return 0;
    const char *m = hcp_crt_errmsg(e); /* _sys_errlist (crt_stdlib.c) */
    size_t n = (s ? strlen(s) : 0) + strlen(m) + 4;
    char *line = malloc(n);
    if (line) {
        snprintf(line, n, "%s%s%s\n", s && *s ? s : "", s && *s ? ": " : "", m);
        hcp_crt_write(c, 2, (const uint8_t *)line, strlen(line));
    }
    free(line);
    free(s);
    return 0;
}

/* ---- files by name ---- */

static uint64_t by_name(hcp_ctx *c, uint64_t name, bool wide, uint32_t (*op)(hcp_ctx *, const uint16_t *, size_t)) {
    size_t n;
    uint16_t *w = name ? hcp_gwstr(c, name, wide, &n) : NULL;
    if (!w) {
        if (!name) hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    uint32_t err = op(c, w, n);
    free(w);
    if (err) {
        hcp_crt_set_errno(c, hcp_crt_errno_of(err));
        return (uint32_t)-1;
    }
    return 0;
}
uint64_t hcp_crt_remove(hcp_ctx *c, const hcp_crt_remove_args *a) {
    return by_name(c, a->_Filename, false, hcp_fs_delete);
}
uint64_t hcp_crt__wremove(hcp_ctx *c, const hcp_crt__wremove_args *a) {
    return by_name(c, a->_Filename, true, hcp_fs_delete);
}
uint64_t hcp_crt__mkdir(hcp_ctx *c, const hcp_crt__mkdir_args *a) { return by_name(c, a->_Path, false, hcp_fs_mkdir); }
uint64_t hcp_crt__rmdir(hcp_ctx *c, const hcp_crt__rmdir_args *a) { return by_name(c, a->_Path, false, hcp_fs_rmdir); }
uint64_t hcp_crt__chdir(hcp_ctx *c, const hcp_crt__chdir_args *a) { return by_name(c, a->_Path, false, hcp_fs_chdir); }

static uint64_t crt_rename(hcp_ctx *c, uint64_t from, uint64_t to, bool wide) {
    size_t n1, n2;
    uint16_t *a = from ? hcp_gwstr(c, from, wide, &n1) : NULL;
    uint16_t *b = a && to ? hcp_gwstr(c, to, wide, &n2) : NULL;
    uint32_t err = b ? hcp_fs_move(c, a, n1, b, n2, 2 /* MOVEFILE_COPY_ALLOWED */) : ERROR_INVALID_PARAMETER;
    free(a);
    free(b);
    if (c->failed) return (uint32_t)-1;
    if (err) {
        hcp_crt_set_errno(c, hcp_crt_errno_of(err));
        return (uint32_t)-1;
    }
    return 0;
}
uint64_t hcp_crt_rename(hcp_ctx *c, const hcp_crt_rename_args *a) {
    return crt_rename(c, a->_OldFilename, a->_NewFilename, false);
}
uint64_t hcp_crt__wrename(hcp_ctx *c, const hcp_crt__wrename_args *a) {
    return crt_rename(c, a->_OldFilename, a->_NewFilename, true);
}

/* _access(path, mode): 0 exists, 2 writable, 4 readable, 6 both; 0 or -1 (ENOENT, EACCES). */
uint64_t hcp_crt__access(hcp_ctx *c, const hcp_crt__access_args *a) {
    size_t n;
    uint16_t *w = a->_Filename ? hcp_gwstr(c, a->_Filename, false, &n) : NULL;
    if (!w) {
        if (!a->_Filename) hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    hcp_finfo in;
    uint32_t err = hcp_fs_attributes(c, w, n, &in);
    free(w);
    if (err) {
        hcp_crt_set_errno(c, hcp_crt_errno_of(err));
        return (uint32_t)-1;
    }
    if (((uint32_t)a->_AccessMode & ~6u)) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    if ((a->_AccessMode & 2) && (in.attr & FILE_ATTRIBUTE_READONLY) && !(in.attr & FILE_ATTRIBUTE_DIRECTORY)) {
        hcp_crt_set_errno(c, CRT_EACCES);
        return (uint32_t)-1;
    }
    return 0;
}

/* _getcwd(buf, n): the current directory; buf NULL: a malloc'd copy of at least n bytes. */
uint64_t hcp_crt__getcwd(hcp_ctx *c, const hcp_crt__getcwd_args *a) {
    size_t n;
    const uint16_t *d = hcp_fs_cwd(c->p, &n);
    uint64_t buf = a->_DstBuf;
    if (!buf) {
        size_t size = (size_t)a->_SizeInBytes > n + 1 ? (size_t)a->_SizeInBytes : n + 1;
        if (!(buf = hcp_heap_alloc(c, size))) {
            hcp_crt_set_errno(c, CRT_ENOMEM);
            return 0;
        }
    } else if (a->_SizeInBytes <= 0 || (size_t)a->_SizeInBytes < n + 1) {
        hcp_crt_set_errno(c, a->_SizeInBytes <= 0 ? CRT_EINVAL : CRT_ERANGE);
        return 0;
    }
    return hcp_put_str(c, buf, false, d, n) ? buf : 0;
}

/* ---- temporary files ---- */

uint64_t hcp_crt_tmpfile(hcp_ctx *c) {
    uint16_t *name;
    size_t n;
    uint32_t err = hcp_temp_file(c, "t", &name, &n);
    if (err) {
        hcp_crt_set_errno(c, hcp_crt_errno_of(err));
        return 0;
    }
    int fd =
        crt_open(c, name, n, CRT_O_RDWR | CRT_O_BINARY | CRT_O_TEMPORARY, 0x180, FILE_SHARE_READ | FILE_SHARE_WRITE);
    free(name);
    if (fd < 0) return 0;
    uint64_t at = stream_make(c, fd, true, true);
    if (!at) fd_close(c, fd);
    return at;
}

/* msvcrt's names: "\s" + the process id and then a counter, in base 32 (a file in the root of the
 * drive, which Windows does not let a program create there: use GetTempFileName or tmpfile). */
uint64_t hcp_crt_tmpnam(hcp_ctx *c, const hcp_crt_tmpnam_args *a) {
    hcp_crtio *io = hcp_crtio_of(c);
    if (!io) return 0;
    static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
    char name[32], pid[8], num[8];
    int k = 0;
    for (uint32_t v = HCP_ETW_PROCESS_ID; v || !k; v /= 32) pid[k++] = digits[v % 32];
    pid[k] = '\0';
    uint32_t cnt = ++io->tmpnam_n;
    int j = 0;
    for (uint32_t v = cnt; v || !j; v /= 32) num[j++] = digits[v % 32];
    num[j] = '\0';
    size_t len = 0;
    name[len++] = '\\';
    name[len++] = 's';
    while (k) name[len++] = pid[--k];
    name[len++] = '.';
    while (j) name[len++] = num[--j];
    name[len] = '\0';
    uint64_t buf = a->_Buffer;
    if (!buf) {
        if (!io->tmpnam_buf) io->tmpnam_buf = hcp_heap_alloc(c, 260);
        buf = io->tmpnam_buf;
    }
    return buf && hcp_wr(c, buf, name, len + 1) ? buf : 0;
}

/* ---- _stat and _fstat ---- */

#define S_IFCHR 0x2000u
#define S_IFDIR 0x4000u
#define S_IFREG 0x8000u
#define S_IREAD 0x0100u
#define S_IWRITE 0x0080u
#define S_IEXEC 0x0040u

static int64_t unix_time(uint64_t ft) { return (int64_t)(ft / 10000000u) - INT64_C(11644473600); }

/* The fields msvcrt fills: st_mode (the permissions repeated for group and others), st_nlink 1,
 * st_dev and st_rdev the drive (C: = 2), st_size, and the times in seconds since 1970. */
typedef struct crt_st {
    uint32_t dev;
    uint16_t mode;
    int64_t size, atime, mtime, ctime;
} crt_st;

static void st_of(const hcp_finfo *in, const uint16_t *name, size_t n, crt_st *o) {
    uint32_t mode = (in->attr & FILE_ATTRIBUTE_DIRECTORY) ? S_IFDIR | S_IEXEC : S_IFREG;
    mode |= S_IREAD;
    if (!(in->attr & FILE_ATTRIBUTE_READONLY)) mode |= S_IWRITE;
    if (name && n >= 4 && name[n - 4] == '.') { /* .exe .bat .cmd .com are executable */
        static const char *const ext[] = {"EXE", "BAT", "CMD", "COM"};
        for (int i = 0; i < 4; i++)
            if (hcp_wupper(name[n - 3]) == (uint8_t)ext[i][0] && hcp_wupper(name[n - 2]) == (uint8_t)ext[i][1] &&
                hcp_wupper(name[n - 1]) == (uint8_t)ext[i][2])
                mode |= S_IEXEC;
    }
    mode |= (mode & 0x1C0) >> 3;
    mode |= (mode & 0x1C0) >> 6;
    *o = (crt_st){
        2, (uint16_t)mode, (int64_t)in->size, unix_time(in->atime), unix_time(in->mtime), unix_time(in->ctime)};
}

/* Writes the structure: kind 0 _stat32 (36 bytes), 1 _stat64i32 (48), 2 _stat64 (56). */
static bool st_write(hcp_ctx *c, uint64_t at, const crt_st *s, int kind) {
    uint8_t b[56] = {0};
    hcp_put32(b, s->dev);
    hcp_put16(b + 6, s->mode);
    hcp_put16(b + 8, 1);
    hcp_put32(b + 16, s->dev);
    unsigned n;
    if (kind == 0) {
        hcp_put32(b + 20, (uint32_t)s->size);
        hcp_put32(b + 24, (uint32_t)s->atime);
        hcp_put32(b + 28, (uint32_t)s->mtime);
        hcp_put32(b + 32, (uint32_t)s->ctime);
        n = 36;
    } else if (kind == 1) {
        hcp_put32(b + 20, (uint32_t)s->size);
        hcp_put64(b + 24, (uint64_t)s->atime);
        hcp_put64(b + 32, (uint64_t)s->mtime);
        hcp_put64(b + 40, (uint64_t)s->ctime);
        n = 48;
    } else {
        hcp_put64(b + 24, (uint64_t)s->size);
        hcp_put64(b + 32, (uint64_t)s->atime);
        hcp_put64(b + 40, (uint64_t)s->mtime);
        hcp_put64(b + 48, (uint64_t)s->ctime);
        n = 56;
    }
    return hcp_wr(c, at, b, n);
}

static uint64_t stat_path(hcp_ctx *c, uint64_t name, uint64_t out, int kind) {
    size_t n;
    uint16_t *w = name ? hcp_gwstr(c, name, false, &n) : NULL;
    if (!w || !out) {
        free(w);
        if (!c->failed) hcp_crt_set_errno(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    hcp_finfo in;
    uint32_t err = 0;
    for (size_t i = 0; i < n; i++)
        if (w[i] == '*' || w[i] == '?') err = ERROR_FILE_NOT_FOUND;
    if (!err) err = hcp_fs_attributes(c, w, n, &in);
    crt_st st;
    if (!err) st_of(&in, w, n, &st);
    free(w);
    if (err) {
        hcp_crt_set_errno(c, CRT_ENOENT);
        return (uint32_t)-1;
    }
    return st_write(c, out, &st, kind) ? 0 : (uint32_t)-1;
}

static uint64_t stat_fd(hcp_ctx *c, int fd, uint64_t out, int kind) {
    crt_fdesc *d = hcp_crt_fd(c, fd);
    if (!d || !out) {
        hcp_crt_set_errno(c, d ? CRT_EINVAL : CRT_EBADF);
        return (uint32_t)-1;
    }
    crt_st st = {(uint32_t)fd, S_IFCHR, 0, 0, 0, 0};
    if (hcp_file_type(d->f) == HCP_FT_DISK) {
        hcp_finfo in;
        if (hcp_file_info(c, d->f, &in)) {
            hcp_crt_set_errno(c, CRT_EBADF);
            return (uint32_t)-1;
        }
        st_of(&in, NULL, 0, &st);
    }
    return st_write(c, out, &st, kind) ? 0 : (uint32_t)-1;
}

/* msvcrt's _stat and _fstat: struct _stat is _stat64i32 on x64, _stat32 on x86. */
uint64_t hcp_crt__stat(hcp_ctx *c, const hcp_crt__stat_args *a) {
    return stat_path(c, a->_Filename, a->_Stat, c->w == 8 ? 1 : 0);
}
uint64_t hcp_crt__fstat(hcp_ctx *c, const hcp_crt__fstat_args *a) {
    return stat_fd(c, a->_FileDes, a->_Stat, c->w == 8 ? 1 : 0);
}
uint64_t hcp_crt__stat64(hcp_ctx *c, const hcp_crt__stat64_args *a) { return stat_path(c, a->_Filename, a->_Stat, 2); }
uint64_t hcp_crt__fstat64(hcp_ctx *c, const hcp_crt__fstat64_args *a) { return stat_fd(c, a->_FileDes, a->_Stat, 2); }
