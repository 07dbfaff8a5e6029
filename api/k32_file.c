/* api/k32_file.c — KERNEL32's files on api/fs.c (api/README.md "Files"): handles, reading,
 * writing, the file pointer, sizes, attributes, searches, folders, deleting, moving, copying,
 * the current directory, full paths and temporary files; the console handles (3, 7, 11) are
 * files too.  Every function is one api_call of kernel work, plus ceil(n / 16) cycles for n bytes
 * moved (hcp_kernel_bytes). */
#include <stdio.h>
#include <stdlib.h>

#include "api/exports_gen.h"
#include "api/files_int.h"

#define INVALID_HANDLE_VALUE(c) ((c)->w == 8 ? UINT64_MAX : 0xFFFFFFFFu)
#define INVALID_SET_FILE_POINTER 0xFFFFFFFFu
#define INVALID_FILE_SIZE 0xFFFFFFFFu
#define INVALID_FILE_ATTRIBUTES 0xFFFFFFFFu
#define FILE_TYPE_UNKNOWN 0u
#define STD_HANDLE(fd) (4u * (fd) + 3u) /* 3, 7, 11 (k32_console.c) */
#define CREATE_NEW 1u
#define MAX_PATH 260u

/* ---- handles ---- */

uint64_t hcp_file_handle(hcp_ctx *c, hcp_file *f, uint32_t access) {
    uint64_t h = hcp_handle_new_ext(c->os, OBJ_FILE, f, access);
    if (!h) hcp_SetLastError(c->os, hcp_handle_error(c->os));
    return h;
}

hcp_file *hcp_handle_file(hcp_ctx *c, uint64_t h, uint32_t *err) {
    uint64_t low = h & 0xFFFFFFFFu;
    if (c->w == 4 || h >> 32 == 0) /* the console handles */
        for (int fd = 0; fd < 3; fd++)
            if (low == STD_HANDLE((unsigned)fd)) return hcp_fs_std(c->p, fd);
    hcp_file *f = hcp_handle_ext(c->os, h, OBJ_FILE, NULL);
    if (!f) *err = ERROR_INVALID_HANDLE;
    return f;
}

void hcp_file_closed(hcp_os *os, void *file) {
    hcp_process *p = hcp_os_process(os);
    if (!p || !file) return;
    hcp_ctx c = {0};
    c.os = os;
    c.p = p;
    c.m = os->m;
    c.t = hcp_current(os);
    c.w = hcp_ptr_size(os);
    hcp_file_unref(&c, file);
}

/* ---- CreateFile ---- */

static uint64_t create_file(hcp_ctx *c, uint64_t name, bool wide, uint32_t access, uint32_t share, uint32_t disp,
                            uint32_t flags) {
    if (!name) return hcp_fail(c, ERROR_PATH_NOT_FOUND), INVALID_HANDLE_VALUE(c);
    size_t n;
    uint16_t *w = hcp_gwstr(c, name, wide, &n);
    if (!w) return INVALID_HANDLE_VALUE(c);
    hcp_open o = {access, share, disp, flags};
    uint32_t err = 0;
    bool existed;
    hcp_file *f = hcp_fs_open(c, w, n, &o, &err, &existed);
    free(w);
    if (!f) return hcp_fail(c, err), INVALID_HANDLE_VALUE(c);
    uint64_t h = hcp_file_handle(c, f, access);
    if (!h) {
        hcp_file_unref(c, f);
        return INVALID_HANDLE_VALUE(c);
    }
    /* CREATE_ALWAYS and OPEN_ALWAYS tell whether the file was there; the others succeed with 0 */
    hcp_SetLastError(c->os, existed && (disp == 2 || disp == 4) ? ERROR_ALREADY_EXISTS : ERROR_SUCCESS);
    return h;
}
uint64_t hcp_k32_CreateFileA(hcp_ctx *c, const hcp_k32_CreateFileA_args *a) {
    return create_file(c, a->lpFileName, false, a->dwDesiredAccess, a->dwShareMode, a->dwCreationDisposition,
                       a->dwFlagsAndAttributes);
}
uint64_t hcp_k32_CreateFileW(hcp_ctx *c, const hcp_k32_CreateFileW_args *a) {
    return create_file(c, a->lpFileName, true, a->dwDesiredAccess, a->dwShareMode, a->dwCreationDisposition,
                       a->dwFlagsAndAttributes);
}

/* ---- reading and writing ---- */

/* OVERLAPPED on a synchronous handle: the transfer starts at its Offset/OffsetHigh (after the two
 * pointer-sized Internal fields); InternalHigh gets the bytes moved. */
static bool overlapped_offset(hcp_ctx *c, uint64_t ov, uint64_t *off) {
    uint8_t b[8];
    if (!hcp_rd(c, ov + 2 * c->w, b, 8)) return false;
    *off = hcp_get32(b) | (uint64_t)hcp_get32(b + 4) << 32;
    return true;
}

static uint64_t transfer(hcp_ctx *c, uint64_t h, uint64_t buf, uint32_t n, uint64_t done_at, uint64_t ov, bool write) {
    uint32_t err = 0;
    if (done_at && !hcp_wr32(c, done_at, 0)) return 0;
    hcp_file *f = hcp_handle_file(c, h, &err);
    if (!f) return hcp_fail(c, err);
    if (n > HCP_MAX_STR * 64u) n = HCP_MAX_STR * 64u;
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    uint32_t done = 0;
    if (ov) {
        uint64_t off;
        if (!overlapped_offset(c, ov, &off)) {
            free(b);
            return 0;
        }
        hcp_file_seek(f, (int64_t)off, 0, NULL);
    }
    if (write) {
        if (hcp_rd(c, buf, b, n)) err = hcp_file_write(c, f, b, n, &done);
    } else {
        err = hcp_file_read(c, f, b, n, &done);
        if (!err && done) hcp_wr(c, buf, b, done);
    }
    free(b);
    if (c->failed) return 0;
    if (done_at) hcp_wr32(c, done_at, done);
    if (ov) hcp_wrp(c, ov + c->w, done);
    if (err) return hcp_fail(c, err);
    if (ov && !write && !done && n) return hcp_fail(c, ERROR_HANDLE_EOF); /* a read at or past the end */
    return 1;
}
uint64_t hcp_k32_ReadFile(hcp_ctx *c, const hcp_k32_ReadFile_args *a) {
    return transfer(c, a->hFile, a->lpBuffer, a->nNumberOfBytesToRead, a->lpNumberOfBytesRead, a->lpOverlapped, false);
}
uint64_t hcp_k32_WriteFile(hcp_ctx *c, const hcp_k32_WriteFile_args *a) {
    return transfer(c, a->hFile, a->lpBuffer, a->nNumberOfBytesToWrite, a->lpNumberOfBytesWritten, a->lpOverlapped,
                    true);
}

/* ---- the file pointer and size ---- */

uint64_t hcp_k32_SetFilePointer(hcp_ctx *c, const hcp_k32_SetFilePointer_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, a->hFile, &err);
    if (!f) return hcp_fail(c, err), INVALID_SET_FILE_POINTER;
    int64_t dist = a->lDistanceToMove;
    if (a->lpDistanceToMoveHigh) {
        uint8_t b[4];
        if (!hcp_rd(c, a->lpDistanceToMoveHigh, b, 4)) return 0;
        dist = (int64_t)((uint64_t)hcp_get32(b) << 32 | (uint32_t)a->lDistanceToMove);
    }
    if (a->dwMoveMethod > 2) return hcp_fail(c, ERROR_INVALID_PARAMETER), INVALID_SET_FILE_POINTER;
    uint64_t pos;
    err = hcp_file_seek(f, dist, (int)a->dwMoveMethod, &pos);
    if (err) return hcp_fail(c, err), INVALID_SET_FILE_POINTER;
    if (a->lpDistanceToMoveHigh) hcp_wr32(c, a->lpDistanceToMoveHigh, (uint32_t)(pos >> 32));
    if ((uint32_t)pos == INVALID_SET_FILE_POINTER) hcp_SetLastError(c->os, ERROR_SUCCESS);
    return (uint32_t)pos;
}

uint64_t hcp_k32_SetFilePointerEx(hcp_ctx *c, const hcp_k32_SetFilePointerEx_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, a->hFile, &err);
    if (!f) return hcp_fail(c, err);
    uint64_t pos;
    err = hcp_file_seek(f, a->liDistanceToMove, (int)a->dwMoveMethod, &pos);
    if (err) return hcp_fail(c, err);
    if (a->lpNewFilePointer && !hcp_wr64(c, a->lpNewFilePointer, pos)) return 0;
    return 1;
}

uint64_t hcp_k32_SetEndOfFile(hcp_ctx *c, const hcp_k32_SetEndOfFile_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, a->hFile, &err);
    if (!f) return hcp_fail(c, err);
    err = hcp_file_truncate(c, f);
    return err ? hcp_fail(c, err) : 1;
}

uint64_t hcp_k32_GetFileSize(hcp_ctx *c, const hcp_k32_GetFileSize_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, a->hFile, &err);
    uint64_t size = 0;
    if (f) err = hcp_file_size(f, &size);
    if (err) return hcp_fail(c, err), INVALID_FILE_SIZE;
    if (a->lpFileSizeHigh && !hcp_wr32(c, a->lpFileSizeHigh, (uint32_t)(size >> 32))) return 0;
    if ((uint32_t)size == INVALID_FILE_SIZE) hcp_SetLastError(c->os, ERROR_SUCCESS);
    return (uint32_t)size;
}

uint64_t hcp_k32_GetFileSizeEx(hcp_ctx *c, const hcp_k32_GetFileSizeEx_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, a->hFile, &err);
    uint64_t size = 0;
    if (f) err = hcp_file_size(f, &size);
    if (err) return hcp_fail(c, err);
    return hcp_wr64(c, a->lpFileSize, size) ? 1 : 0;
}

uint64_t hcp_k32_GetFileType(hcp_ctx *c, const hcp_k32_GetFileType_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, a->hFile, &err);
    if (!f) return hcp_fail(c, err), FILE_TYPE_UNKNOWN;
    hcp_SetLastError(c->os, ERROR_SUCCESS);
    return (uint32_t)hcp_file_type(f);
}

uint64_t hcp_k32_FlushFileBuffers(hcp_ctx *c, const hcp_k32_FlushFileBuffers_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, a->hFile, &err);
    if (f) err = hcp_file_flush(f);
    return err ? hcp_fail(c, err) : 1;
}

static void put_ft(uint8_t *b, uint64_t ft) {
    hcp_put32(b, (uint32_t)ft);
    hcp_put32(b + 4, (uint32_t)(ft >> 32));
}

/* BY_HANDLE_FILE_INFORMATION: 52 bytes. */
uint64_t hcp_k32_GetFileInformationByHandle(hcp_ctx *c, const hcp_k32_GetFileInformationByHandle_args *a) {
    uint32_t err = 0;
    hcp_file *f = hcp_handle_file(c, a->hFile, &err);
    hcp_finfo in;
    if (f) err = hcp_file_info(c, f, &in);
    if (err) return hcp_fail(c, err);
    uint8_t b[52];
    hcp_put32(b, in.attr);
    put_ft(b + 4, in.ctime);
    put_ft(b + 12, in.atime);
    put_ft(b + 20, in.mtime);
    hcp_put32(b + 28, HCP_VOLUME_SERIAL);
    hcp_put32(b + 32, (uint32_t)(in.size >> 32));
    hcp_put32(b + 36, (uint32_t)in.size);
    hcp_put32(b + 40, in.links);
    hcp_put32(b + 44, (uint32_t)(in.index >> 32));
    hcp_put32(b + 48, (uint32_t)in.index);
    return hcp_wr(c, a->lpFileInformation, b, sizeof b) ? 1 : 0;
}

/* ---- attributes ---- */

/* The path argument of a path function, or NULL after a failure (NULL path: ERROR_PATH_NOT_FOUND;
 * last error set). */
static uint16_t *path_arg(hcp_ctx *c, uint64_t at, bool wide, size_t *n) {
    if (!at) {
        hcp_fail(c, ERROR_PATH_NOT_FOUND);
        return NULL;
    }
    return hcp_gwstr(c, at, wide, n);
}

static uint64_t attributes(hcp_ctx *c, uint64_t name, bool wide) {
    size_t n;
    uint16_t *w = path_arg(c, name, wide, &n);
    if (!w) return INVALID_FILE_ATTRIBUTES;
    hcp_finfo in;
    uint32_t err = hcp_fs_attributes(c, w, n, &in);
    free(w);
    if (err) return hcp_fail(c, err), INVALID_FILE_ATTRIBUTES;
    return in.attr;
}
uint64_t hcp_k32_GetFileAttributesA(hcp_ctx *c, const hcp_k32_GetFileAttributesA_args *a) {
    return attributes(c, a->lpFileName, false);
}
uint64_t hcp_k32_GetFileAttributesW(hcp_ctx *c, const hcp_k32_GetFileAttributesW_args *a) {
    return attributes(c, a->lpFileName, true);
}

/* WIN32_FILE_ATTRIBUTE_DATA (GetFileExInfoStandard, level 0): 36 bytes. */
static uint64_t attributes_ex(hcp_ctx *c, uint64_t name, uint32_t level, uint64_t out, bool wide) {
    if (level != 0) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    size_t n;
    uint16_t *w = path_arg(c, name, wide, &n);
    if (!w) return 0;
    hcp_finfo in;
    uint32_t err = hcp_fs_attributes(c, w, n, &in);
    free(w);
    if (err) return hcp_fail(c, err);
    uint8_t b[36];
    hcp_put32(b, in.attr);
    put_ft(b + 4, in.ctime);
    put_ft(b + 12, in.atime);
    put_ft(b + 20, in.mtime);
    hcp_put32(b + 28, (uint32_t)(in.size >> 32));
    hcp_put32(b + 32, (uint32_t)in.size);
    return hcp_wr(c, out, b, sizeof b) ? 1 : 0;
}
uint64_t hcp_k32_GetFileAttributesExA(hcp_ctx *c, const hcp_k32_GetFileAttributesExA_args *a) {
    return attributes_ex(c, a->lpFileName, a->fInfoLevelId, a->lpFileInformation, false);
}
uint64_t hcp_k32_GetFileAttributesExW(hcp_ctx *c, const hcp_k32_GetFileAttributesExW_args *a) {
    return attributes_ex(c, a->lpFileName, a->fInfoLevelId, a->lpFileInformation, true);
}

/* ---- searches ---- */

/* WIN32_FIND_DATAW: 592 bytes; WIN32_FIND_DATAA: 320.  No short (8.3) names: cAlternateFileName
 * is empty. */
static bool find_data(hcp_ctx *c, uint64_t at, const hcp_fentry *e, bool wide) {
    uint8_t b[592] = {0};
    unsigned size = wide ? 592 : 320;
    hcp_put32(b, e->attr);
    put_ft(b + 4, e->ctime);
    put_ft(b + 12, e->atime);
    put_ft(b + 20, e->mtime);
    hcp_put32(b + 28, (uint32_t)(e->size >> 32));
    hcp_put32(b + 32, (uint32_t)e->size);
    hcp_put32(b + 36, e->reparse_tag);
    for (size_t i = 0; i < e->n && i < MAX_PATH - 1; i++) {
        if (wide)
            hcp_put16(b + 44 + 2 * i, e->name[i]);
        else
            b[44 + i] = (uint8_t)(e->name[i] < 256 ? e->name[i] : '?');
    }
    return hcp_wr(c, at, b, size);
}

static uint64_t find_first(hcp_ctx *c, uint64_t name, uint64_t out, bool wide) {
    size_t n;
    uint16_t *w = path_arg(c, name, wide, &n);
    if (!w) return INVALID_HANDLE_VALUE(c);
    hcp_find *f;
    uint32_t err = hcp_fs_find(c, w, n, &f);
    free(w);
    if (err) return hcp_fail(c, err), INVALID_HANDLE_VALUE(c);
    const hcp_fentry *e = hcp_find_next(f);
    if (!find_data(c, out, e, wide)) {
        hcp_find_free(f);
        return INVALID_HANDLE_VALUE(c);
    }
    uint64_t h = hcp_find_handle(c, f);
    if (!h) {
        hcp_find_free(f);
        return hcp_fail(c, ERROR_NO_SYSTEM_RESOURCES), INVALID_HANDLE_VALUE(c);
    }
    return h;
}
uint64_t hcp_k32_FindFirstFileA(hcp_ctx *c, const hcp_k32_FindFirstFileA_args *a) {
    return find_first(c, a->lpFileName, a->lpFindFileData, false);
}
uint64_t hcp_k32_FindFirstFileW(hcp_ctx *c, const hcp_k32_FindFirstFileW_args *a) {
    return find_first(c, a->lpFileName, a->lpFindFileData, true);
}

static uint64_t find_next(hcp_ctx *c, uint64_t h, uint64_t out, bool wide) {
    hcp_find *f = hcp_find_of(c, h, false);
    if (!f) return hcp_fail(c, ERROR_INVALID_HANDLE);
    const hcp_fentry *e = hcp_find_next(f);
    if (!e) return hcp_fail(c, ERROR_NO_MORE_FILES);
    return find_data(c, out, e, wide) ? 1 : 0;
}
uint64_t hcp_k32_FindNextFileA(hcp_ctx *c, const hcp_k32_FindNextFileA_args *a) {
    return find_next(c, a->hFindFile, a->lpFindFileData, false);
}
uint64_t hcp_k32_FindNextFileW(hcp_ctx *c, const hcp_k32_FindNextFileW_args *a) {
    return find_next(c, a->hFindFile, a->lpFindFileData, true);
}
uint64_t hcp_k32_FindClose(hcp_ctx *c, const hcp_k32_FindClose_args *a) {
    hcp_find *f = hcp_find_of(c, a->hFindFile, true);
    if (!f) return hcp_fail(c, ERROR_INVALID_HANDLE);
    hcp_find_free(f);
    return 1;
}

/* ---- folders, deleting, moving, copying ---- */

static uint64_t path_op(hcp_ctx *c, uint64_t name, bool wide, uint32_t (*op)(hcp_ctx *, const uint16_t *, size_t)) {
    size_t n;
    uint16_t *w = path_arg(c, name, wide, &n);
    if (!w) return 0;
    uint32_t err = op(c, w, n);
    free(w);
    return err ? hcp_fail(c, err) : 1;
}
uint64_t hcp_k32_CreateDirectoryA(hcp_ctx *c, const hcp_k32_CreateDirectoryA_args *a) {
    return path_op(c, a->lpPathName, false, hcp_fs_mkdir);
}
uint64_t hcp_k32_CreateDirectoryW(hcp_ctx *c, const hcp_k32_CreateDirectoryW_args *a) {
    return path_op(c, a->lpPathName, true, hcp_fs_mkdir);
}
uint64_t hcp_k32_RemoveDirectoryA(hcp_ctx *c, const hcp_k32_RemoveDirectoryA_args *a) {
    return path_op(c, a->lpPathName, false, hcp_fs_rmdir);
}
uint64_t hcp_k32_RemoveDirectoryW(hcp_ctx *c, const hcp_k32_RemoveDirectoryW_args *a) {
    return path_op(c, a->lpPathName, true, hcp_fs_rmdir);
}
uint64_t hcp_k32_DeleteFileA(hcp_ctx *c, const hcp_k32_DeleteFileA_args *a) {
    return path_op(c, a->lpFileName, false, hcp_fs_delete);
}
uint64_t hcp_k32_DeleteFileW(hcp_ctx *c, const hcp_k32_DeleteFileW_args *a) {
    return path_op(c, a->lpFileName, true, hcp_fs_delete);
}
uint64_t hcp_k32_SetCurrentDirectoryA(hcp_ctx *c, const hcp_k32_SetCurrentDirectoryA_args *a) {
    return path_op(c, a->lpPathName, false, hcp_fs_chdir);
}
uint64_t hcp_k32_SetCurrentDirectoryW(hcp_ctx *c, const hcp_k32_SetCurrentDirectoryW_args *a) {
    return path_op(c, a->lpPathName, true, hcp_fs_chdir);
}

static uint64_t two_paths(hcp_ctx *c, uint64_t x, uint64_t y, bool wide, uint32_t flags, int copy) {
    size_t n1, n2;
    uint16_t *a = path_arg(c, x, wide, &n1);
    if (!a) return 0;
    uint16_t *b = path_arg(c, y, wide, &n2);
    if (!b) {
        free(a);
        return 0;
    }
    uint32_t err = copy >= 0 ? hcp_fs_copy(c, a, n1, b, n2, copy != 0) : hcp_fs_move(c, a, n1, b, n2, flags);
    free(a);
    free(b);
    return err ? hcp_fail(c, err) : 1;
}
uint64_t hcp_k32_MoveFileA(hcp_ctx *c, const hcp_k32_MoveFileA_args *a) {
    return two_paths(c, a->lpExistingFileName, a->lpNewFileName, false, 2, -1);
}
uint64_t hcp_k32_MoveFileW(hcp_ctx *c, const hcp_k32_MoveFileW_args *a) {
    return two_paths(c, a->lpExistingFileName, a->lpNewFileName, true, 2, -1);
}
uint64_t hcp_k32_MoveFileExA(hcp_ctx *c, const hcp_k32_MoveFileExA_args *a) {
    return two_paths(c, a->lpExistingFileName, a->lpNewFileName, false, a->dwFlags, -1);
}
uint64_t hcp_k32_MoveFileExW(hcp_ctx *c, const hcp_k32_MoveFileExW_args *a) {
    return two_paths(c, a->lpExistingFileName, a->lpNewFileName, true, a->dwFlags, -1);
}
uint64_t hcp_k32_CopyFileA(hcp_ctx *c, const hcp_k32_CopyFileA_args *a) {
    return two_paths(c, a->lpExistingFileName, a->lpNewFileName, false, 0, a->bFailIfExists != 0);
}
uint64_t hcp_k32_CopyFileW(hcp_ctx *c, const hcp_k32_CopyFileW_args *a) {
    return two_paths(c, a->lpExistingFileName, a->lpNewFileName, true, 0, a->bFailIfExists != 0);
}

/* ---- the current directory, full paths, temporary files ---- */

static uint64_t get_cwd(hcp_ctx *c, uint32_t size, uint64_t buf, bool wide) {
    size_t n;
    const uint16_t *d = hcp_fs_cwd(c->p, &n);
    if (size && !buf) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return hcp_str_out(c, buf, size, wide, d, n);
}
uint64_t hcp_k32_GetCurrentDirectoryA(hcp_ctx *c, const hcp_k32_GetCurrentDirectoryA_args *a) {
    return get_cwd(c, a->nBufferLength, a->lpBuffer, false);
}
uint64_t hcp_k32_GetCurrentDirectoryW(hcp_ctx *c, const hcp_k32_GetCurrentDirectoryW_args *a) {
    return get_cwd(c, a->nBufferLength, a->lpBuffer, true);
}

static uint64_t full_path(hcp_ctx *c, uint64_t name, uint32_t size, uint64_t buf, uint64_t file_part, bool wide) {
    if (!name) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    size_t n;
    uint16_t *w = hcp_gwstr(c, name, wide, &n);
    if (!w) return 0;
    uint16_t *full;
    size_t fn, file;
    uint32_t err = n ? hcp_fs_fullpath(c->p, w, n, &full, &fn, &file) : ERROR_INVALID_NAME;
    free(w);
    if (err) return hcp_fail(c, err);
    uint64_t r = hcp_str_out(c, buf, size, wide, full, fn);
    if (r == fn && file_part) hcp_wrp(c, file_part, file < fn ? buf + file * (wide ? 2 : 1) : 0);
    free(full);
    return r;
}
uint64_t hcp_k32_GetFullPathNameA(hcp_ctx *c, const hcp_k32_GetFullPathNameA_args *a) {
    return full_path(c, a->lpFileName, a->nBufferLength, a->lpBuffer, a->lpFilePart, false);
}
uint64_t hcp_k32_GetFullPathNameW(hcp_ctx *c, const hcp_k32_GetFullPathNameW_args *a) {
    return full_path(c, a->lpFileName, a->nBufferLength, a->lpBuffer, a->lpFilePart, true);
}

/* TMP, else TEMP, else USERPROFILE, else the Windows folder; made a full path ending in '\'. */
static uint32_t temp_dir(hcp_ctx *c, hcp_wbuf *b) {
    static const char *const vars[] = {"TMP", "TEMP", "USERPROFILE"};
    const uint16_t *v = NULL;
    size_t vn = 0;
    for (size_t i = 0; i < 3 && !v; i++) {
        uint16_t *name = hcp_wfroma(vars[i]);
        if (name) v = hcp_env_get(c->p, name, hcp_wlen(name), &vn);
        free(name);
    }
    static const uint16_t windir[] = {'C', ':', '\\', 'W', 'i', 'n', 'd', 'o', 'w', 's'};
    if (!v || !vn) v = windir, vn = 10;
    uint16_t *full;
    size_t fn;
    uint32_t err = hcp_fs_fullpath(c->p, v, vn, &full, &fn, NULL);
    if (err) return err;
    static const uint16_t bs = '\\';
    hcp_wbuf_add(b, full, fn);
    if (!fn || full[fn - 1] != '\\') hcp_wbuf_add(b, &bs, 1);
    free(full);
    return b->oom ? ERROR_NOT_ENOUGH_MEMORY : 0;
}

static uint64_t temp_path(hcp_ctx *c, uint32_t size, uint64_t buf, bool wide) {
    hcp_wbuf b = {0};
    uint32_t err = temp_dir(c, &b);
    if (err) {
        hcp_wbuf_free(&b);
        return hcp_fail(c, err);
    }
    uint64_t r = hcp_str_out(c, buf, size, wide, b.s, b.n);
    hcp_wbuf_free(&b);
    return r;
}
uint64_t hcp_k32_GetTempPathA(hcp_ctx *c, const hcp_k32_GetTempPathA_args *a) {
    return temp_path(c, a->nBufferLength, a->lpBuffer, false);
}
uint64_t hcp_k32_GetTempPathW(hcp_ctx *c, const hcp_k32_GetTempPathW_args *a) {
    return temp_path(c, a->nBufferLength, a->lpBuffer, true);
}

/* PATH\PRE + the unique number in hexadecimal + ".tmp" (the prefix's first three characters).
 * make: numbers 1, 2, ... are tried (after the last one this process used) until a name is
 * free, and that file is created; otherwise the name of `num` only.  0 or a Win32 error. */
static uint32_t temp_name(hcp_ctx *c, const uint16_t *p, size_t pn, const uint16_t *x, size_t xn, uint32_t *num,
                          bool make, hcp_wbuf *b) {
    hcp_finfo in;
    uint32_t err = hcp_fs_attributes(c, p, pn, &in), tries = 0;
    if (!err && !(in.attr & 0x10u)) err = ERROR_DIRECTORY;
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND) err = ERROR_DIRECTORY;
    while (!err) {
        if (make) {
            *num = (c->p->x->temp_unique + 1) & 0xFFFFu;
            if (!*num) *num = 1;
            c->p->x->temp_unique = *num;
        }
        char tail[16];
        snprintf(tail, sizeof tail, "%X.tmp", *num);
        static const uint16_t bs = '\\';
        b->n = 0;
        hcp_wbuf_add(b, p, pn);
        if (pn && p[pn - 1] != '\\' && p[pn - 1] != '/') hcp_wbuf_add(b, &bs, 1);
        hcp_wbuf_add(b, x, xn < 3 ? xn : 3);
        hcp_wbuf_adda(b, tail);
        if (b->oom) err = ERROR_NOT_ENOUGH_MEMORY;
        if (err || !make) break;
        hcp_open o = {0x40000000u /* GENERIC_WRITE */, 0, CREATE_NEW, 0x80u};
        bool existed;
        hcp_file *f = hcp_fs_open(c, b->s, b->n, &o, &err, &existed);
        if (f) {
            hcp_file_unref(c, f);
            break;
        }
        if ((err == ERROR_FILE_EXISTS || err == ERROR_ALREADY_EXISTS) && ++tries < 65535) err = 0;
    }
    return err;
}

uint32_t hcp_temp_file(hcp_ctx *c, const char *prefix, uint16_t **path, size_t *n) {
    hcp_wbuf dir = {0}, b = {0};
    uint16_t *x = hcp_wfroma(prefix);
    uint32_t num = 0, err = x ? temp_dir(c, &dir) : ERROR_NOT_ENOUGH_MEMORY;
    if (!err) err = temp_name(c, dir.s, dir.n, x, hcp_wlen(x), &num, true, &b);
    free(x);
    hcp_wbuf_free(&dir);
    if (err) {
        hcp_wbuf_free(&b);
        return err;
    }
    *path = b.s;
    *n = b.n;
    return 0;
}

static uint64_t temp_file_name(hcp_ctx *c, uint64_t path, uint64_t prefix, uint32_t unique, uint64_t out, bool wide) {
    size_t pn, xn = 0;
    uint16_t *p = path_arg(c, path, wide, &pn);
    if (!p) return 0;
    uint16_t *x = prefix ? hcp_gwstr(c, prefix, wide, &xn) : hcp_wdup(NULL, 0);
    if (!x) {
        free(p);
        return 0;
    }
    uint32_t num = unique & 0xFFFFu;
    hcp_wbuf b = {0};
    uint32_t err = temp_name(c, p, pn, x, xn, &num, num == 0, &b);
    uint64_t r = 0;
    if (err) {
        hcp_fail(c, err);
    } else if (b.n >= MAX_PATH) {
        hcp_fail(c, ERROR_BUFFER_OVERFLOW);
    } else if (hcp_put_str(c, out, wide, b.s, b.n)) {
        r = num;
    }
    hcp_wbuf_free(&b);
    free(p);
    free(x);
    return r;
}
uint64_t hcp_k32_GetTempFileNameA(hcp_ctx *c, const hcp_k32_GetTempFileNameA_args *a) {
    return temp_file_name(c, a->lpPathName, a->lpPrefixString, a->uUnique, a->lpTempFileName, false);
}
uint64_t hcp_k32_GetTempFileNameW(hcp_ctx *c, const hcp_k32_GetTempFileNameW_args *a) {
    return temp_file_name(c, a->lpPathName, a->lpPrefixString, a->uUnique, a->lpTempFileName, true);
}
