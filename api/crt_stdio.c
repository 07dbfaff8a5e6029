/* api/crt_stdio.c — msvcrt's descriptors and FILE streams (api/README.md "msvcrt's stdio").
 *
 * A descriptor (_open, _fileno) names an open file of api/fs.c and its handle, with its mode:
 * text (msvcrt's default, _fmode) writes "\n" as "\r\n" and reads "\r\n" as "\n" and Ctrl-Z as
 * the end; binary moves bytes as they are.  Descriptors 0, 1 and 2 are the console's.  A FILE
 * stream is a FILE structure in guest memory (_iob[0..19] for stdin, stdout, stderr and the
 * reserved rest, heap blocks for fopen's, each followed by the CRITICAL_SECTION mingw-w64's own
 * _lock_file enters, as msvcrt's _FILEX has it) and its state here: descriptor, mode, end-of-file
 * and error flags, up to four ungetc characters.  Nothing is buffered: every write reaches the
 * file at once, so setvbuf and fflush have nothing to do, and no stream needs flushing at exit.
 *
 * hcp_file_fd and hcp_emit_text are how other code writes to a FILE* (the printf engine, the
 * UCRT's entry points): the descriptor of a stream, and bytes written to a descriptor as its
 * mode writes them.
 *
 * Locks: _lock(n) and _unlock(n) are msvcrt's numbered locks (recursive, one machine mutex each;
 * _lock(16 + i) is _iob[i]'s), _lock_file and _unlock_file a stream's.  A stream function of a
 * thread finds the stream's lock owned by another thread waits for it (WrUserRequest, as
 * EnterCriticalSection), then does its work: so a call never writes into the middle of another
 * thread's locked sequence (mingw-w64's printf holds the lock while it writes character by
 * character). */
#include <stdlib.h>

#include "api/crtio_int.h"
#include "api/exports_gen.h"
#include "api/files_int.h"

/* ---- state ---- */

hcp_crtio *hcp_crtio_of(hcp_ctx *c) {
    hcp_procx *x = c->p->x;
    if (x->io) return x->io;
    hcp_crtio *io = calloc(1, sizeof *io);
    if (!io) return NULL;
    x->io = io;
    for (int fd = 0; fd < 3; fd++) {
        crt_fdesc *d = &io->fds[fd];
        d->f = hcp_fs_std(c->p, fd);
        d->handle = 4u * (unsigned)fd + 3u;
        d->open = true;
        d->text = true;
        d->console = true;
    }
    for (int i = 0; i < 3; i++) {
        crt_stream *s = hcp_stream_new(c, c->p->d.iob + (uint64_t)i * c->p->d.file_size, i, i == 0, i != 0);
        if (!s) return NULL;
    }
    return io;
}

void hcp_crtio_free(hcp_process *p) {
    hcp_crtio *io = p->x ? p->x->io : NULL;
    if (!io) return;
    free(io->st);
    free(io->waitlock);
    free(io);
    p->x->io = NULL;
}

crt_fdesc *hcp_crt_fd(hcp_ctx *c, int fd) {
    hcp_crtio *io = hcp_crtio_of(c);
    if (!io || fd < 0 || fd >= CRT_MAX_FDS || !io->fds[fd].open) return NULL;
    return &io->fds[fd];
}

hcp_file *hcp_crt_fd_file(hcp_ctx *c, int fd) {
    crt_fdesc *d = hcp_crt_fd(c, fd);
    return d ? d->f : NULL;
}

/* ---- errno ---- */

int hcp_crt_errno_of(uint32_t w) { /* msvcrt's _dosmaperr */
    switch (w) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_NO_MORE_FILES:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_PATHNAME:
    case ERROR_FILENAME_EXCED_RANGE:
    case ERROR_INVALID_NAME: return CRT_ENOENT;
    case ERROR_TOO_MANY_OPEN_FILES: return CRT_EMFILE;
    case ERROR_ACCESS_DENIED:
    case ERROR_CURRENT_DIRECTORY:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_CANNOT_MAKE: return CRT_EACCES;
    case ERROR_INVALID_HANDLE: return CRT_EBADF;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY: return CRT_ENOMEM;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: return CRT_EEXIST;
    case ERROR_DISK_FULL: return CRT_ENOSPC;
    case ERROR_DIR_NOT_EMPTY: return CRT_ENOTEMPTY;
    case ERROR_BROKEN_PIPE: return 32;     /* EPIPE */
    case ERROR_NOT_SAME_DEVICE: return 18; /* EXDEV */
    default: return CRT_EINVAL;
    }
}

/* ---- descriptors: reading and writing in their mode ---- */

/* Writes n bytes to fd, "\n" as "\r\n" in text mode: n, or -1 with errno. */
int64_t hcp_crt_write(hcp_ctx *c, int fd, const uint8_t *b, size_t n) {
    crt_fdesc *d = hcp_crt_fd(c, fd);
    if (!d) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return -1;
    }
    if (!hcp_file_can(d->f, true)) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return -1;
    }
    if (n == 0) return 0;
    const uint8_t *out = b;
    uint8_t *tmp = NULL, small[1024]; /* a short text's CR LF form needs no host allocation */
    size_t m = n;
    if (d->text) {
        size_t nl = 0;
        for (size_t i = 0; i < n; i++) nl += b[i] == '\n';
        if (nl) {
            tmp = n + nl <= sizeof small ? small : malloc(n + nl);
            if (!tmp) {
                hcp_crt_set_errno(c, CRT_ENOMEM);
                return -1;
            }
            m = 0;
            for (size_t i = 0; i < n; i++) {
                if (b[i] == '\n') tmp[m++] = '\r';
                tmp[m++] = b[i];
            }
            out = tmp;
        }
    }
    if (d->append) hcp_file_seek(d->f, 0, 2, NULL);
    uint32_t done = 0, err = 0;
    for (size_t off = 0; off < m && !err;) {
        uint32_t chunk = m - off > (1u << 30) ? (1u << 30) : (uint32_t)(m - off);
        err = hcp_file_write(c, d->f, out + off, chunk, &done);
        off += done;
        if (!err && done < chunk) err = ERROR_DISK_FULL;
    }
    if (tmp != small) free(tmp);
    if (err) {
        hcp_crt_set_errno(c, hcp_crt_errno_of(err));
        return -1;
    }
    return (int64_t)n;
}

/* Reads up to n bytes from fd in its mode; with `line`, stops after the first '\n' it returns.
 * The raw bytes read past what it returns go back to the file.  The count, 0 at the end, or -1
 * with errno. */
int64_t hcp_crt_read(hcp_ctx *c, int fd, uint8_t *b, size_t n, bool line) {
    crt_fdesc *d = hcp_crt_fd(c, fd);
    if (!d || !hcp_file_can(d->f, false)) {
        hcp_crt_set_errno(c, CRT_EBADF);
        return -1;
    }
    if (n == 0 || d->eof) return 0;
    if (n > (1u << 30)) n = 1u << 30;
    uint32_t got = 0;
    uint8_t *raw = d->text ? malloc(n + 1) : b;
    if (!raw) {
        hcp_crt_set_errno(c, CRT_ENOMEM);
        return -1;
    }
    size_t want = line && !d->text ? n : n; /* a text read takes one more byte to see "\r\n" */
    uint32_t err = hcp_file_read(c, d->f, raw, (uint32_t)want, &got);
    if (err) {
        if (raw != b) free(raw);
        hcp_crt_set_errno(c, hcp_crt_errno_of(err));
        return -1;
    }
    size_t k = 0, i = 0;
    if (!d->text) {
        if (line) {
            while (i < got && b[i] != '\n') i++;
            if (i < got) i++; /* the '\n' */
            hcp_file_unread(c, d->f, (uint32_t)(got - i));
            return (int64_t)i;
        }
        return got;
    }
    while (i < got && k < n) {
        uint8_t ch = raw[i];
        if (ch == 0x1A) { /* Ctrl-Z ends a text file */
            d->eof = true;
            break;
        }
        if (ch == '\r') {
            if (i + 1 == got) { /* look at one byte more */
                uint32_t one = 0;
                if (!hcp_file_read(c, d->f, raw + got, 1, &one) && one) got++;
            }
            if (i + 1 < got && raw[i + 1] == '\n') {
                i++;
                ch = '\n';
            }
        }
        b[k++] = ch;
        i++;
        if (line && ch == '\n') break;
    }
    hcp_file_unread(c, d->f, (uint32_t)(got - i));
    free(raw);
    return (int64_t)k;
}

/* ---- streams ---- */

crt_stream *hcp_stream_new(hcp_ctx *c, uint64_t at, int fd, bool rd, bool wr) {
    hcp_crtio *io = c->p->x->io;
    if (io->nst >= CRT_MAX_STREAMS) return NULL;
    if (io->nst == io->capst) {
        int nc = io->capst ? 2 * io->capst : 16;
        crt_stream *n = realloc(io->st, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        io->st = n;
        io->capst = nc;
    }
    crt_stream *s = &io->st[io->nst++];
    memset(s, 0, sizeof *s);
    s->at = at;
    s->fd = fd;
    s->rd = rd;
    s->wr = wr;
    hcp_stream_sync(c, s);
    return s;
}

crt_stream *hcp_stream_of(hcp_ctx *c, uint64_t file) {
    hcp_crtio *io = hcp_crtio_of(c);
    for (int i = 0; io && file && i < io->nst; i++)
        if (io->st[i].at == file) return &io->st[i];
    return NULL;
}

void hcp_stream_drop(hcp_ctx *c, crt_stream *s) {
    hcp_crtio *io = c->p->x->io;
    *s = io->st[--io->nst];
}

/* The FILE's _flag and _file as msvcrt keeps them (mingw-w64's inline code reads them); bits this
 * code does not own (_IOLOCKED) are kept. */
void hcp_stream_sync(hcp_ctx *c, crt_stream *s) {
    unsigned w = c->w;
    uint64_t fl = s->at + (w == 8 ? 24 : 12), fi = s->at + (w == 8 ? 28 : 16);
    uint8_t b[4];
    uint32_t flag = 0;
    if (hcp_rd(c, fl, b, 4)) flag = hcp_get32(b) & ~(CRT_IOREAD | CRT_IOWRT | CRT_IORW | CRT_IOEOF | CRT_IOERR);
    flag |= s->rd && s->wr ? CRT_IORW : s->rd ? CRT_IOREAD : s->wr ? CRT_IOWRT : 0;
    if (s->eof) flag |= CRT_IOEOF;
    if (s->err) flag |= CRT_IOERR;
    hcp_wr32(c, fl, flag);
    hcp_wr32(c, fi, (uint32_t)s->fd);
}

int hcp_file_fd(hcp_ctx *c, uint64_t f) {
    crt_stream *s = hcp_stream_of(c, f);
    return s ? s->fd : -1;
}

void hcp_emit(hcp_ctx *c, int fd, const char *s, size_t n) {
    if (c->p->out && n) c->p->out(c->p->out_ud, fd, s, n);
}

void hcp_emit_text(hcp_ctx *c, int fd, const char *s, size_t n) {
    if (hcp_crt_write(c, fd, (const uint8_t *)s, n) >= 0) return;
    hcp_crtio *io = c->p->x->io; /* the streams on fd get their error flag */
    for (int i = 0; io && i < io->nst; i++)
        if (io->st[i].fd == fd) {
            io->st[i].err = true;
            hcp_stream_sync(c, &io->st[i]);
        }
}

int64_t hcp_stream_write(hcp_ctx *c, uint64_t file, const void *b, size_t n) {
    crt_stream *s = hcp_stream_of(c, file);
    if (!s || !s->wr) {
        if (s) {
            s->err = true;
            hcp_stream_sync(c, s);
        }
        hcp_crt_set_errno(c, CRT_EBADF);
        return -1;
    }
    s->nunget = 0;
    int64_t r = hcp_crt_write(c, s->fd, b, n);
    if (r < 0) {
        s->err = true;
        hcp_stream_sync(c, s);
    }
    return r;
}

/* ---- locks ---- */

static sim_object *lock_number(hcp_ctx *c, int n) {
    hcp_crtio *io = hcp_crtio_of(c);
    if (!io || n < 0 || n >= CRT_TOTAL_LOCKS) return NULL;
    if (!io->locks[n]) io->locks[n] = sim_mutex_new(c->m, false);
    return io->locks[n];
}

/* The lock of the stream at `file`: _iob[i]'s is lock 16 + i; another FILE's is the
 * CRITICAL_SECTION after it (mingw-w64's own _lock_file enters that one itself). */
static crt_lock stream_lock(hcp_ctx *c, uint64_t file) {
    uint64_t iob = c->p->d.iob, fs = c->p->d.file_size;
    if (file >= iob && file < iob + CRT_IOB_ENTRIES * fs && (file - iob) % fs == 0)
        return (crt_lock){lock_number(c, CRT_STREAM_LOCKS + (int)((file - iob) / fs)), 0};
    return (crt_lock){NULL, file + fs};
}

static bool held_set(hcp_ctx *c, crt_lock l) {
    hcp_crtio *io = c->p->x->io;
    int i = sim_thread_index(c->t);
    if (i >= io->nwaitlock) {
        int nc = i + 16;
        crt_lock *n = realloc(io->waitlock, (size_t)nc * sizeof *n);
        if (!n) return false;
        memset(n + io->nwaitlock, 0, (size_t)(nc - io->nwaitlock) * sizeof *n);
        io->waitlock = n;
        io->nwaitlock = nc;
    }
    io->waitlock[i] = l;
    return true;
}

static void lock_leave(hcp_ctx *c, crt_lock l) {
    if (!c->t) return;
    if (l.cs) {
        const hcp_k32_LeaveCriticalSection_args a = {l.cs};
        hcp_k32_LeaveCriticalSection(c, &a);
        return;
    }
    if (!l.mx) return;
    sim_mutex_release(c->t, l.mx);
    sim_sched_preempt_pending(c->t);
}

/* After the wait: the thread owns the lock; the call does its work (taking the lock again,
 * recursively), then lets it go. */
static uint64_t relock_resume(hcp_ctx *c) {
    hcp_crtio *io = c->p->x->io;
    int i = sim_thread_index(c->t);
    crt_lock l = io && i < io->nwaitlock ? io->waitlock[i] : (crt_lock){NULL, 0};
    uint64_t r = hcp_call_again(c);
    if (io && i < io->nwaitlock) io->waitlock[i] = (crt_lock){NULL, 0};
    lock_leave(c, l);
    return r;
}

/* Takes the lock for the call (at once when free or the caller's); false when the call must wait:
 * it then returns at once and runs again when its thread owns the lock. */
static bool lock_enter(hcp_ctx *c, crt_lock l) {
    if (!c->t) return true;
    if (l.cs) {
        const hcp_k32_EnterCriticalSection_args a = {l.cs};
        hcp_k32_EnterCriticalSection(c, &a);
        if (!c->pending) return !c->failed;
    } else {
        sim_object *mx = l.mx;
        if (!mx || sim_wait(c->t, &mx, 1, false, SIM_INFINITE, SIM_WR_USER_REQUEST) != SIM_WAIT_BLOCKED) return true;
        c->pending = true;
    }
    held_set(c, l);
    c->resume = relock_resume;
    return false;
}

bool hcp_stream_enter(hcp_ctx *c, uint64_t file) { return lock_enter(c, stream_lock(c, file)); }
void hcp_stream_leave(hcp_ctx *c, uint64_t file) { lock_leave(c, stream_lock(c, file)); }

uint64_t hcp_crt__lock(hcp_ctx *c, const hcp_crt__lock_args *a) {
    sim_object *mx = lock_number(c, a->locknum);
    if (!mx) return 0;
    if (sim_wait(c->t, &mx, 1, false, SIM_INFINITE, SIM_WR_USER_REQUEST) == SIM_WAIT_BLOCKED) c->pending = true;
    return 0;
}
uint64_t hcp_crt__unlock(hcp_ctx *c, const hcp_crt__unlock_args *a) {
    sim_object *mx = lock_number(c, a->locknum);
    if (!mx || sim_mutex_release(c->t, mx) != 0) return 0; /* not the owner: msvcrt's LeaveCriticalSection ignores it */
    sim_sched_preempt_pending(c->t);
    return 0;
}
uint64_t hcp_crt__lock_file(hcp_ctx *c, const hcp_crt__lock_file_args *a) {
    crt_lock l = stream_lock(c, a->_File);
    if (l.cs) {
        const hcp_k32_EnterCriticalSection_args e = {l.cs};
        return hcp_k32_EnterCriticalSection(c, &e);
    }
    sim_object *mx = l.mx;
    if (mx && sim_wait(c->t, &mx, 1, false, SIM_INFINITE, SIM_WR_USER_REQUEST) == SIM_WAIT_BLOCKED) c->pending = true;
    return 0;
}
uint64_t hcp_crt__unlock_file(hcp_ctx *c, const hcp_crt__unlock_file_args *a) {
    crt_lock l = stream_lock(c, a->_File);
    if (l.cs) {
        const hcp_k32_LeaveCriticalSection_args e = {l.cs};
        return hcp_k32_LeaveCriticalSection(c, &e);
    }
    if (!l.mx || sim_mutex_release(c->t, l.mx) != 0) return 0;
    sim_sched_preempt_pending(c->t);
    return 0;
}

/* ---- output ---- */

/* The stream of a call, locked for it: NULL when the call waits for the lock (c->pending) or the
 * FILE is not a stream (*bad). */
static crt_stream *begin(hcp_ctx *c, uint64_t file, bool *bad) {
    *bad = false;
    crt_stream *s = hcp_stream_of(c, file);
    if (!s) {
        *bad = true;
        hcp_crt_set_errno(c, CRT_EINVAL);
        return NULL;
    }
    if (!hcp_stream_enter(c, file)) return NULL;
    return hcp_stream_of(c, file);
}

static int64_t put_bytes(hcp_ctx *c, uint64_t file, const void *b, size_t n, bool *waits) {
    bool bad;
    *waits = false;
    crt_stream *s = begin(c, file, &bad);
    if (!s) {
        *waits = !bad;
        return -1;
    }
    int64_t r = hcp_stream_write(c, file, b, n);
    hcp_stream_leave(c, file);
    return r;
}

uint64_t hcp_crt_fputc(hcp_ctx *c, const hcp_crt_fputc_args *a) {
    uint8_t ch = (uint8_t)a->_Ch;
    bool w;
    int64_t r = put_bytes(c, a->_File, &ch, 1, &w);
    return r < 0 ? CRT_EOF : ch;
}

uint64_t hcp_crt_putchar(hcp_ctx *c, const hcp_crt_putchar_args *a) {
    const hcp_crt_fputc_args f = {a->_Ch, c->p->d.iob + c->p->d.file_size};
    return hcp_crt_fputc(c, &f);
}

static uint64_t put_string(hcp_ctx *c, uint64_t str, uint64_t file, bool nl) {
    size_t n;
    char *b = hcp_gstr(c, str, &n);
    if (!b) return CRT_EOF;
    if (nl) b[n++] = '\n'; /* hcp_gstr leaves room for the NUL it wrote */
    bool w;
    int64_t r = put_bytes(c, file, b, n, &w);
    free(b);
    return r < 0 ? CRT_EOF : 0;
}
uint64_t hcp_crt_puts(hcp_ctx *c, const hcp_crt_puts_args *a) {
    return put_string(c, a->_Str, c->p->d.iob + c->p->d.file_size, true);
}
uint64_t hcp_crt_fputs(hcp_ctx *c, const hcp_crt_fputs_args *a) { return put_string(c, a->_Str, a->_File, false); }

uint64_t hcp_crt_fwrite(hcp_ctx *c, const hcp_crt_fwrite_args *a) {
    uint64_t size = a->_Size, count = a->_Count;
    if (!size || !count) return 0;
    if (count > (uint64_t)HCP_MAX_STR * 64 / size) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return 0;
    }
    size_t n = (size_t)(size * count);
    char *b = malloc(n);
    if (!b) return 0;
    bool w;
    int64_t r = hcp_rd(c, a->_Str, b, n) ? put_bytes(c, a->_File, b, n, &w) : -1;
    free(b);
    return r < 0 ? 0 : count;
}

uint64_t hcp_crt_fflush(hcp_ctx *c, const hcp_crt_fflush_args *a) {
    if (!a->_File) return 0; /* every stream: nothing is buffered */
    crt_stream *s = hcp_stream_of(c, a->_File);
    if (!s) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return CRT_EOF;
    }
    return 0;
}

uint64_t hcp_crt__fileno(hcp_ctx *c, const hcp_crt__fileno_args *a) {
    int fd = hcp_file_fd(c, a->_File);
    if (fd < 0) hcp_crt_set_errno(c, CRT_EINVAL);
    return (uint32_t)fd;
}

/* (fd, mode): the previous mode, _O_TEXT or _O_BINARY. */
uint64_t hcp_crt__setmode(hcp_ctx *c, const hcp_crt__setmode_args *a) {
    uint32_t mode = (uint32_t)a->_Mode;
    crt_fdesc *d = hcp_crt_fd(c, a->_FileHandle);
    if (!d || (mode != CRT_O_TEXT && mode != CRT_O_BINARY)) {
        hcp_crt_set_errno(c, d ? CRT_EINVAL : CRT_EBADF);
        return CRT_EOF;
    }
    uint32_t prev = d->text ? CRT_O_TEXT : CRT_O_BINARY;
    d->text = mode == CRT_O_TEXT;
    return prev;
}
