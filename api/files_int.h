/* api/files_int.h — the process's files, environment, text and time zone, shared by KERNEL32's
 * file, environment and system functions and msvcrt's stdio (api/ only; api/README.md "Files",
 * "The environment", "System information", "Time zone", "msvcrt's stdio").
 *
 * Strings inside: UTF-16 code units (Windows' own form).  An ANSI ("A") string is code page
 * 1252 taken as Latin-1, as MultiByteToWideChar does here: byte b is code unit b, and a code unit
 * above 255 becomes '?'. */
#ifndef HCPSIM_API_FILES_INT_H
#define HCPSIM_API_FILES_INT_H

#include "api/exports_int.h"

/* ---- Win32 error codes these files return (api/hcp_api.h has the shared ones) ---- */
#define ERROR_PATH_NOT_FOUND 3u
#define ERROR_TOO_MANY_OPEN_FILES 4u
#define ERROR_INVALID_DRIVE 15u
#define ERROR_CURRENT_DIRECTORY 16u
#define ERROR_NOT_SAME_DEVICE 17u
#define ERROR_NO_MORE_FILES 18u
#define ERROR_SEEK 25u
#define ERROR_WRITE_FAULT 29u
#define ERROR_READ_FAULT 30u
#define ERROR_SHARING_VIOLATION 32u
#define ERROR_LOCK_VIOLATION 33u
#define ERROR_HANDLE_EOF 38u
#define ERROR_HANDLE_DISK_FULL 39u
#define ERROR_BAD_NETPATH 53u
#define ERROR_FILE_EXISTS 80u
#define ERROR_CANNOT_MAKE 82u
#define ERROR_INVALID_PASSWORD 86u
#define ERROR_BROKEN_PIPE 109u
#define ERROR_OPEN_FAILED 110u
#define ERROR_BUFFER_OVERFLOW 111u
#define ERROR_DISK_FULL 112u
#define ERROR_INVALID_NAME 123u
#define ERROR_INVALID_LEVEL 124u
#define ERROR_NEGATIVE_SEEK 131u
#define ERROR_SEEK_ON_DEVICE 132u
#define ERROR_DIR_NOT_EMPTY 145u
#define ERROR_BAD_PATHNAME 161u
#define ERROR_BUSY 170u
#define ERROR_FILENAME_EXCED_RANGE 206u
#define ERROR_ENVVAR_NOT_FOUND 203u
#define ERROR_MORE_DATA 234u
#define ERROR_DIRECTORY 267u
#define ERROR_NOT_A_REPARSE_POINT 4390u
#define ERROR_CANT_RESOLVE_FILENAME 1921u
#define ERROR_NO_UNICODE_TRANSLATION 1113u
#define ERROR_INVALID_FLAGS 1004u
#define ERROR_TIMEOUT 1460u
#define ERROR_RESOURCE_LANG_NOT_FOUND 1815u
#define ERROR_INVALID_DATA 13u
#define ERROR_OUTOFMEMORY 14u
#define ERROR_GEN_FAILURE 31u
#define ERROR_NOT_READY 21u
#define ERROR_INVALID_ACCESS 12u
#define ERROR_BAD_FORMAT 11u
#define ERROR_NEGATIVE_SEEK_OFFSET ERROR_NEGATIVE_SEEK

/* ---- UTF-16 strings ---- */
typedef struct hcp_wbuf {
    uint16_t *s; /* NUL-terminated when non-empty */
    size_t n, cap;
    bool oom;
} hcp_wbuf;
void hcp_wbuf_add(hcp_wbuf *b, const uint16_t *s, size_t n);
void hcp_wbuf_adda(hcp_wbuf *b, const char *s); /* ASCII/Latin-1 bytes, one unit each */
void hcp_wbuf_free(hcp_wbuf *b);
size_t hcp_wlen(const uint16_t *s);
uint16_t *hcp_wdup(const uint16_t *s, size_t n); /* n units and a NUL; NULL: no host memory */
uint16_t *hcp_wfroma(const char *s);             /* Latin-1 bytes widened */
uint16_t hcp_wupper(uint16_t u); /* the upcase table: ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic */
int hcp_wcmp_ci(const uint16_t *a, size_t an, const uint16_t *b, size_t bn);
/* UTF-16 <-> UTF-8 (host file names, messages): NULL on an unpaired surrogate or invalid UTF-8. */
char *hcp_w_to_utf8(const uint16_t *s, size_t n);
uint16_t *hcp_utf8_to_w(const char *s, size_t *n);

/* Guest strings: a NUL-terminated ANSI (wide = false, widened) or UTF-16 string at `at` (NULL
 * after a failed read, which stops the run as hcp_gstr does); *n its length in units. */
uint16_t *hcp_gwstr(hcp_ctx *c, uint64_t at, bool wide, size_t *n);
/* Writes s[0..n) and a NUL at `at` as ANSI or UTF-16. */
bool hcp_put_str(hcp_ctx *c, uint64_t at, bool wide, const uint16_t *s, size_t n);
/* A Win32 "copy a string out" result: when cap (in units, the NUL included) holds n + 1 units,
 * the string is written and n returned; otherwise nothing is written and n + 1 returned (the size
 * needed), as GetCurrentDirectory, GetEnvironmentVariable and GetFullPathName do. */
uint64_t hcp_str_out(hcp_ctx *c, uint64_t at, uint32_t cap, bool wide, const uint16_t *s, size_t n);

/* ---- kernel work proportional to data ---- */
/* A transfer or search of n bytes: ceil(n / 16) kernel cycles more than the call's api_call (one
 * 16-byte copy a cycle), none when the cost table's api_call is 0 (cost = "unit"). */
void hcp_kernel_bytes(hcp_ctx *c, uint64_t n);

/* ---- the process's state of these files (hcp_process.x) ---- */
typedef struct hcp_fs hcp_fs;
typedef struct hcp_crtio hcp_crtio;
typedef struct hcp_crtenv { /* a variable of msvcrt's copy of the environment: "NAME=VALUE" */
    char *s;
    uint64_t at; /* its guest string */
    bool heap;   /* at is a heap block (freed when replaced), not the process block */
} hcp_crtenv;
typedef struct hcp_procx {
    /* the environment (k32_env.c): "NAME=VALUE" in UTF-16, sorted by name as Windows keeps it */
    uint16_t **env;
    int nenv, capenv;
    uint64_t env_heap; /* the PEB's current environment block when SetEnvironmentVariable made one */
    /* msvcrt's copies (_environ, _wenviron), made from it at start; _putenv changes both */
    hcp_crtenv *cenv;
    int ncenv, capcenv;
    uint64_t cenv_array; /* the char *[] _environ points at (0: the process block's envp) */
    uint64_t wenv_array; /* _wenviron's wchar_t *[] (0: not made yet) */
    uint64_t v_wenviron; /* the variable _wenviron */
    /* files */
    hcp_fs *fs;
    hcp_crtio *io;
    /* system */
    uint32_t error_mode;
    bool debug_stderr;
    int tz;                 /* index in k32_tz.c's table */
    const char *stdin_path; /* the program's standard input: a host file, "-" hcpsim's own, NULL empty */
    uint8_t *stdin_data;
    size_t stdin_n, stdin_pos;
    bool stdin_loaded;
    uint32_t temp_unique; /* GetTempFileName's last number */
} hcp_procx;

/* The process options (pe.h): 0, or -1 with a message (k32_system.c); and their state freed. */
int hcp_process_options(hcp_process *p, const hcp_process_opts *o, char *err, size_t cap);
void hcp_process_options_free(hcp_process *p);

/* ---- the environment (k32_env.c) ---- */
/* The process's environment from the fixed block and `add` ("NAME=VALUE" each, added or replacing
 * a variable of that name): 0, or -1 with a message. */
int hcp_env_init(hcp_process *p, const char *const *add, int nadd, char *err, size_t cap);
void hcp_env_free(hcp_process *p);
/* The value of `name` (UTF-16, case-insensitive), or NULL: the process's variables (KERNEL32's). */
const uint16_t *hcp_env_get(hcp_process *p, const uint16_t *name, size_t n, size_t *vn);
/* The initial block "A=B\0C=D\0\0" in ANSI, its size in bytes (the NULs included); and the
 * number of variables. */
size_t hcp_env_block_a(hcp_process *p, char *out, size_t cap);
int hcp_env_count(hcp_process *p);
/* msvcrt's copy: after the process block holds envp (the ANSI strings of the initial variables,
 * in order), the C runtime's variables point at them. */
int hcp_crtenv_init(hcp_process *p, const uint64_t *strings);
/* The address of _wenviron (the runtime's wide variables), made first when make is true. */
uint64_t hcp_crtenv_wenviron(hcp_ctx *c, bool make);

/* ---- the time zone (k32_tz.c) ---- */
/* Names a zone of the table (api/README.md "Time zone"), case-insensitively; false when none. */
bool hcp_tz_known(const char *name);
int hcp_tz_index(const char *name); /* its index in the table (0: UTC), -1 for none */
const char *hcp_tz_names(void);     /* "UTC, ..." for messages */
/* Local time = UTC time - bias: the bias in minutes at UTC FILETIME t, and whether daylight
 * saving time is in force (the process's zone).  The C runtime's localtime asks this. */
int32_t hcp_tz_bias_at(hcp_process *p, uint64_t utc, bool *dst);
/* The process's zone as GetTimeZoneInformation gives it: its bias and daylight bias (minutes),
 * whether it has daylight saving time, its standard and daylight names.  The C runtime's _tzset. */
void hcp_tz_zone(hcp_process *p, int32_t *bias, int32_t *dst_bias, bool *has_dst, const char **std_name,
                 const char **dst_name);

/* ---- modules (k32_module.c) ---- */
/* The spec's name of the simulated system DLL whose module handle is h ("KERNEL32.dll"), or NULL. */
const char *hcp_module_dll_name(uint64_t h);

/* ---- files (fs.c) ---- */
typedef struct hcp_fs hcp_fs;
typedef struct hcp_file hcp_file;

/* The folder the process sees as C:\hcpsim (its current directory at start), or none (host_dir
 * NULL: every path of the drive is refused).  0, or -1 with a message. */
int hcp_fs_init(hcp_process *p, const char *host_dir, char *err, size_t cap);
void hcp_fs_free(hcp_process *p);

/* CreateFile's arguments, after the A/W string. */
typedef struct hcp_open {
    uint32_t access, share, disposition,
        flags; /* dwDesiredAccess, dwShareMode, dwCreationDisposition, dwFlagsAndAttributes */
} hcp_open;
/* Opens or creates `path` (UTF-16, as given): the file or 0 with *err a Win32 code; *existed: the
 * file was there before (CREATE_ALWAYS and OPEN_ALWAYS then set ERROR_ALREADY_EXISTS). */
hcp_file *hcp_fs_open(hcp_ctx *c, const uint16_t *path, size_t n, const hcp_open *o, uint32_t *err, bool *existed);
void hcp_file_ref(hcp_file *f);
void hcp_file_unref(hcp_ctx *c, hcp_file *f);
/* The standard console files: 0 input, 1 output, 2 error (one object each, never closed). */
hcp_file *hcp_fs_std(hcp_process *p, int which);

enum { HCP_FT_DISK = 1, HCP_FT_CHAR = 2 };
int hcp_file_type(const hcp_file *f); /* FILE_TYPE_DISK or FILE_TYPE_CHAR */
bool hcp_file_can(const hcp_file *f, bool write);
/* Reads or writes at the file pointer (writes: at the end when opened for append only), moving it:
 * 0 or a Win32 error; *done the bytes moved.  A console read takes what is left of the input. */
uint32_t hcp_file_read(hcp_ctx *c, hcp_file *f, uint8_t *b, uint32_t n, uint32_t *done);
uint32_t hcp_file_write(hcp_ctx *c, hcp_file *f, const uint8_t *b, uint32_t n, uint32_t *done);
/* SetFilePointerEx: whence 0 begin, 1 current, 2 end; 0 or a Win32 error (ERROR_NEGATIVE_SEEK). */
uint32_t hcp_file_seek(hcp_file *f, int64_t off, int whence, uint64_t *pos);
/* The last n bytes read go back (the next read returns them again). */
void hcp_file_unread(hcp_ctx *c, hcp_file *f, uint32_t n);
uint32_t hcp_file_size(hcp_file *f, uint64_t *size);
uint32_t hcp_file_truncate(hcp_ctx *c, hcp_file *f); /* SetEndOfFile at the file pointer */
uint32_t hcp_file_flush(hcp_file *f);
/* BY_HANDLE_FILE_INFORMATION fields and the times of an open file. */
typedef struct hcp_finfo {
    uint32_t attr;
    uint64_t ctime, atime, mtime, size, index;
    uint32_t links;
} hcp_finfo;
uint32_t hcp_file_info(hcp_ctx *c, hcp_file *f, hcp_finfo *out);
#define HCP_VOLUME_SERIAL 0x48435053u /* "HCPS": the volume serial number of C: */

/* Path operations (UTF-16 paths as given): 0 or a Win32 error. */
uint32_t hcp_fs_attributes(hcp_ctx *c, const uint16_t *path, size_t n, hcp_finfo *out);
uint32_t hcp_fs_mkdir(hcp_ctx *c, const uint16_t *path, size_t n);
uint32_t hcp_fs_rmdir(hcp_ctx *c, const uint16_t *path, size_t n);
uint32_t hcp_fs_delete(hcp_ctx *c, const uint16_t *path, size_t n);
/* MoveFileEx's flags: MOVEFILE_REPLACE_EXISTING 1, MOVEFILE_COPY_ALLOWED 2 (moving across folders
 * is always allowed here), MOVEFILE_WRITE_THROUGH 8; copy: CopyFile (fail_if_exists). */
uint32_t hcp_fs_move(hcp_ctx *c, const uint16_t *from, size_t fn, const uint16_t *to, size_t tn, uint32_t flags);
uint32_t hcp_fs_copy(hcp_ctx *c, const uint16_t *from, size_t fn, const uint16_t *to, size_t tn, bool fail_if_exists);
/* The current directory (UTF-16, no trailing backslash but for a root), and changing it. */
const uint16_t *hcp_fs_cwd(hcp_process *p, size_t *n);
uint32_t hcp_fs_chdir(hcp_ctx *c, const uint16_t *path, size_t n);
/* GetFullPathName's normalization of `path` against the current directory: 0 or a Win32 error;
 * *out (malloc'd) the full path, *file the offset of its last component (n when it ends in '\'). */
uint32_t hcp_fs_fullpath(hcp_process *p, const uint16_t *path, size_t n, uint16_t **out, size_t *outn, size_t *file);

/* A directory search (FindFirstFile): the sorted entries of the folder the pattern's folder part
 * names that match its last part; 0 or a Win32 error (ERROR_FILE_NOT_FOUND: none matches). */
typedef struct hcp_find hcp_find;
typedef struct hcp_fentry {
    uint16_t *name;
    size_t n;
    uint32_t attr;
    uint64_t size, ctime, atime, mtime;
    uint32_t reparse_tag;
} hcp_fentry;
uint32_t hcp_fs_find(hcp_ctx *c, const uint16_t *pattern, size_t n, hcp_find **out);
const hcp_fentry *hcp_find_next(hcp_find *f); /* NULL at the end */
void hcp_find_free(hcp_find *f);
/* A search's handle (FindFirstFile's result; 0: none left), and the search of a handle (take: it
 * leaves the table, FindClose). */
uint64_t hcp_find_handle(hcp_ctx *c, hcp_find *f);
hcp_find *hcp_find_of(hcp_ctx *c, uint64_t h, bool take);

/* A new empty file in the temporary folder (GetTempPath's), named as GetTempFileName names it
 * with this prefix: 0 and its full path (malloc'd), or a Win32 error. */
uint32_t hcp_temp_file(hcp_ctx *c, const char *prefix, uint16_t **path, size_t *n);

/* Handles of open files (the handle table, type OBJ_FILE): a new handle takes over the caller's
 * reference; 0 when the table is full. */
uint64_t hcp_file_handle(hcp_ctx *c, hcp_file *f, uint32_t access);
/* The file a handle names: one of the table's or a console handle (3, 7, 11); NULL with *err. */
hcp_file *hcp_handle_file(hcp_ctx *c, uint64_t h, uint32_t *err);

/* ---- msvcrt's stdio (crt_stdio.c, crt_file.c) ---- */
/* The descriptor table entry of fd: its file (NULL when fd is not open). */
hcp_file *hcp_crt_fd_file(hcp_ctx *c, int fd);
/* C errno values of msvcrt. */
#define CRT_EPERM 1
#define CRT_ENOENT 2
#define CRT_EBADF 9
#define CRT_ENOMEM 12
#define CRT_EACCES 13
#define CRT_EEXIST 17
#define CRT_EISDIR 21
#define CRT_EINVAL 22
#define CRT_EMFILE 24
#define CRT_ENOSPC 28
#define CRT_ESPIPE 29
#define CRT_ERANGE 34
#define CRT_ENOTEMPTY 41
/* errno for a Win32 error, as msvcrt's _dosmaperr maps it. */
int hcp_crt_errno_of(uint32_t win32);
void hcp_crt_set_errno(hcp_ctx *c, uint32_t e); /* the calling thread's errno (crt_state.c) */
uint32_t hcp_crt_get_errno(hcp_ctx *c);

#endif
