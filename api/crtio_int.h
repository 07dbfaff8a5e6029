/* api/crtio_int.h — msvcrt's descriptors and streams, shared by crt_stdio.c, crt_file.c and
 * crt_scanf.c (api/README.md "msvcrt's stdio"). */
#ifndef HCPSIM_API_CRTIO_INT_H
#define HCPSIM_API_CRTIO_INT_H

#include "api/files_int.h"

#define CRT_MAX_FDS 2048    /* msvcrt's descriptors (_NHANDLE_) */
#define CRT_MAX_STREAMS 512 /* _getmaxstdio's default */
#define CRT_IOB_ENTRIES 20  /* _iob[]: stdin, stdout, stderr and 17 more */
#define CRT_STREAM_LOCKS 16 /* _lock(16 + i) is _iob[i]'s (msvcrt.dll's and mingw-w64's internal.h) */
#define CRT_TOTAL_LOCKS 64  /* numbered locks _lock accepts (msvcrt has 36) */
#define CRT_EOF ((uint32_t)-1)
#define CRT_MAX_UNGET 4

/* FILE._flag */
#define CRT_IOREAD 0x0001u
#define CRT_IOWRT 0x0002u
#define CRT_IOEOF 0x0010u
#define CRT_IOERR 0x0020u
#define CRT_IORW 0x0080u
/* _open's flags */
#define CRT_O_RDONLY 0x0000u
#define CRT_O_WRONLY 0x0001u
#define CRT_O_RDWR 0x0002u
#define CRT_O_APPEND 0x0008u
#define CRT_O_RANDOM 0x0010u
#define CRT_O_SEQUENTIAL 0x0020u
#define CRT_O_TEMPORARY 0x0040u
#define CRT_O_NOINHERIT 0x0080u
#define CRT_O_CREAT 0x0100u
#define CRT_O_TRUNC 0x0200u
#define CRT_O_EXCL 0x0400u
#define CRT_O_SHORT_LIVED 0x1000u
#define CRT_O_TEXT 0x4000u
#define CRT_O_BINARY 0x8000u
#define CRT_S_IWRITE 0x0080u

typedef struct crt_fdesc {
    hcp_file *f;
    uint64_t handle; /* _get_osfhandle's: a handle of the table, or a console handle (3, 7, 11) */
    bool open, text, append, eof, console;
} crt_fdesc;

typedef struct crt_stream {
    uint64_t at; /* the FILE in guest memory */
    int fd;
    bool rd, wr, eof, err;
    bool heap; /* a heap block (fopen's), freed at fclose with its CRITICAL_SECTION */
    uint8_t unget[CRT_MAX_UNGET];
    int nunget;
    uint64_t tmpname; /* _tmpfname: a heap string (tmpfile's), or 0 */
} crt_stream;

typedef struct crt_lock { /* a numbered lock's mutex, or the CRITICAL_SECTION at cs */
    sim_object *mx;
    uint64_t cs;
} crt_lock;

struct hcp_crtio {
    crt_fdesc fds[CRT_MAX_FDS];
    crt_stream *st;
    int nst, capst;
    sim_object *locks[CRT_TOTAL_LOCKS];
    crt_lock *waitlock; /* per thread index: the lock a call of it waits for */
    int nwaitlock;
    uint32_t tmpnam_n;
    uint64_t tmpnam_buf;
};

hcp_crtio *hcp_crtio_of(hcp_ctx *c); /* made at its first use: descriptors 0-2, _iob[0..2] */
void hcp_crtio_free(hcp_process *p);
crt_fdesc *hcp_crt_fd(hcp_ctx *c, int fd); /* an open descriptor, or NULL */
int64_t hcp_crt_write(hcp_ctx *c, int fd, const uint8_t *b, size_t n);
int64_t hcp_crt_read(hcp_ctx *c, int fd, uint8_t *b, size_t n, bool line);

crt_stream *hcp_stream_new(hcp_ctx *c, uint64_t at, int fd, bool rd, bool wr);
crt_stream *hcp_stream_of(hcp_ctx *c, uint64_t file);
void hcp_stream_drop(hcp_ctx *c, crt_stream *s);
void hcp_stream_sync(hcp_ctx *c, crt_stream *s); /* FILE._flag and _file from the state */
/* One byte from a stream (its ungetc bytes first): 0..255, or -1 at the end (eof flag) or on an
 * error (error flag). */
int hcp_stream_getc(hcp_ctx *c, crt_stream *s);

#endif
