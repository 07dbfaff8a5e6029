/* files.c — KERNEL32's files in the program's folder (scenarios/tests/pe_files.sh; api/README.md
 * "Files").  A benchmark harness's part: it writes its results as a CSV, reads them back and sums
 * a column, lists the folder; then one check per documented outcome of each file function
 * ("ok KERNEL32.dll!Name: what" or "not ok ... (got ...)"), expected values from Microsoft's
 * documentation of each function and its error codes.  Run it in an empty folder.
 *
 * The checks named "[hcpsim]" concern the mapped folder's boundary and run only where the
 * environment has HCPSIM=1 (hcpsim's fixed environment): elsewhere (Wine, Windows) C:\Windows and
 * other drives exist and are readable.  Every other line must be the same under Wine. */
#define __USE_MINGW_ANSI_STDIO 0 /* msvcrt's own printf and sscanf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static int failed;
static void check(const char *what, int ok, const char *fmt, ...) {
    char got[256] = "";
    va_list ap;
    va_start(ap, fmt);
    _vsnprintf(got, sizeof got - 1, fmt, ap); /* msvcrt's (mingw-w64's vsnprintf imports _vscprintf) */
    va_end(ap);
    if (!ok) failed++;
    printf(ok ? "ok %s\n" : "not ok %s (got %s)\n", what, got);
}
#define K "KERNEL32.dll!"

static BOOL put(const char *name, const char *text) {
    HANDLE h = CreateFileA(name, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    DWORD n = 0;
    BOOL ok = h != INVALID_HANDLE_VALUE && WriteFile(h, text, (DWORD)strlen(text), &n, NULL) && n == strlen(text);
    if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
    return ok;
}

/* Opens with CreateFileA and returns the last error (0 on success; the handle closed). */
static DWORD open_err(const char *name, DWORD access, DWORD share, DWORD disp, DWORD flags) {
    SetLastError(0xDEAD);
    HANDLE h = CreateFileA(name, access, share, NULL, disp, flags, NULL);
    DWORD e = GetLastError();
    if (h == INVALID_HANDLE_VALUE) return e;
    CloseHandle(h);
    return 0;
}

int main(void) {
    char env[16] = "";
    BOOL sim = GetEnvironmentVariableA("HCPSIM", env, sizeof env) == 1 && env[0] == '1';
    SetErrorMode(SEM_FAILCRITICALERRORS);

    /* ---- the CSV ---- */
    HANDLE h = CreateFileA("results.csv", GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    check(K "CreateFileA: CREATE_NEW makes a new file, last error 0", h != INVALID_HANDLE_VALUE && GetLastError() == 0,
          "%lu", GetLastError());
    char buf[4096];
    int n = sprintf(buf, "run,kernel,cycles\n");
    long total = 0;
    for (int i = 1; i <= 10; i++) {
        n += sprintf(buf + n, "%d,%s,%d\n", i, i % 2 ? "spin" : "walk", 1000 * i + i);
        total += 1000 * i + i;
    }
    DWORD done = 0;
    check(K "WriteFile: all bytes written, *lpNumberOfBytesWritten = their count",
          WriteFile(h, buf, (DWORD)n, &done, NULL) && done == (DWORD)n, "%lu", done);
    SetLastError(0);
    HANDLE h2 = CreateFileA("results.csv", GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    check(K "CreateFileA: opening a file another handle holds without sharing: ERROR_SHARING_VIOLATION",
          h2 == INVALID_HANDLE_VALUE && GetLastError() == ERROR_SHARING_VIOLATION, "%lu", GetLastError());
    check(K "FlushFileBuffers: TRUE on a handle opened for writing", FlushFileBuffers(h), "%lu", GetLastError());
    check(K "CloseHandle: TRUE for a file handle", CloseHandle(h), "%lu", GetLastError());
    h = CreateFileA("RESULTS.CSV", GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    check(K "CreateFileA: OPEN_EXISTING finds the file whatever the case of its name", h != INVALID_HANDLE_VALUE,
          "%lu", GetLastError());
    char in[4096];
    DWORD got = 0;
    check(K "ReadFile: the bytes written, in one read", ReadFile(h, in, sizeof in, &got, NULL) && got == (DWORD)n &&
                                                            memcmp(in, buf, got) == 0,
          "%lu", got);
    DWORD again = 7;
    check(K "ReadFile: at the end of the file TRUE with 0 bytes", ReadFile(h, in + got, 10, &again, NULL) && again == 0,
          "%lu", again);
    long sum = 0;
    int rows = 0;
    in[got] = 0;
    for (char *line = strchr(in, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        int run, cyc;
        char kern[16];
        if (sscanf(line + 1, "%d,%15[a-z],%d", &run, kern, &cyc) == 3) sum += cyc, rows++;
    }
    check("CSV: 10 rows read back, cycles summing to 55055", rows == 10 && sum == total && total == 55055,
          "%d rows, %ld", rows, sum);
    LARGE_INTEGER sz = {{0}};
    check(K "GetFileSizeEx: the file's size", GetFileSizeEx(h, &sz) && sz.QuadPart == n, "%lld", (long long)sz.QuadPart);
    DWORD hi = 9;
    check(K "GetFileSize: the low part, 0 in *lpFileSizeHigh", GetFileSize(h, &hi) == (DWORD)n && hi == 0, "%lu", hi);
    check(K "GetFileType: FILE_TYPE_DISK for a file", GetFileType(h) == FILE_TYPE_DISK, "%lu", GetFileType(h));
    BY_HANDLE_FILE_INFORMATION bi;
    check(K "GetFileInformationByHandle: FILE_ATTRIBUTE_ARCHIVE, the size, one link",
          GetFileInformationByHandle(h, &bi) && bi.dwFileAttributes == FILE_ATTRIBUTE_ARCHIVE &&
              bi.nFileSizeLow == (DWORD)n && bi.nFileSizeHigh == 0 && bi.nNumberOfLinks == 1,
          "%lx %lu", bi.dwFileAttributes, bi.nFileSizeLow);
    SetLastError(0);
    check(K "WriteFile: FALSE with ERROR_ACCESS_DENIED on a handle opened for reading",
          !WriteFile(h, "x", 1, &done, NULL) && GetLastError() == ERROR_ACCESS_DENIED, "%lu", GetLastError());
    SetLastError(0);
    check(K "FlushFileBuffers: FALSE with ERROR_ACCESS_DENIED on a handle opened for reading",
          !FlushFileBuffers(h) && GetLastError() == ERROR_ACCESS_DENIED, "%lu", GetLastError());
    /* the file pointer */
    check(K "SetFilePointer: FILE_BEGIN 4 returns 4", SetFilePointer(h, 4, NULL, FILE_BEGIN) == 4, "other");
    check(K "SetFilePointer: FILE_CURRENT +2 returns 6", SetFilePointer(h, 2, NULL, FILE_CURRENT) == 6, "other");
    check(K "SetFilePointer: FILE_END -1 returns size - 1", SetFilePointer(h, -1, NULL, FILE_END) == (DWORD)n - 1,
          "other");
    ReadFile(h, in, 1, &got, NULL);
    check("ReadFile: after FILE_END -1, the last byte ('\\n')", got == 1 && in[0] == '\n', "%lu %d", got, in[0]);
    SetLastError(0);
    DWORD r = SetFilePointer(h, -100, NULL, FILE_BEGIN);
    check(K "SetFilePointer: before the start: INVALID_SET_FILE_POINTER, ERROR_NEGATIVE_SEEK",
          r == INVALID_SET_FILE_POINTER && GetLastError() == ERROR_NEGATIVE_SEEK, "%lu %lu", r, GetLastError());
    LONG high = 1;
    SetLastError(0);
    r = SetFilePointer(h, 16, &high, FILE_BEGIN);
    check(K "SetFilePointer: with lpDistanceToMoveHigh = 1, position 4 GiB + 16 (low 16, high 1)",
          r == 16 && high == 1 && GetLastError() == 0, "%lu %ld", r, high);
    LARGE_INTEGER d, np;
    d.QuadPart = 3;
    check(K "SetFilePointerEx: FILE_BEGIN 3, *lpNewFilePointer 3",
          SetFilePointerEx(h, d, &np, FILE_BEGIN) && np.QuadPart == 3, "%lld", (long long)np.QuadPart);
    d.QuadPart = -10;
    SetLastError(0);
    check(K "SetFilePointerEx: before the start fails with ERROR_NEGATIVE_SEEK",
          !SetFilePointerEx(h, d, &np, FILE_BEGIN) && GetLastError() == ERROR_NEGATIVE_SEEK, "%lu", GetLastError());
    d.QuadPart = 0;
    SetLastError(0);
    check(K "SetFilePointerEx: method 3 fails with ERROR_INVALID_PARAMETER",
          !SetFilePointerEx(h, d, &np, 3) && GetLastError() == ERROR_INVALID_PARAMETER, "%lu", GetLastError());
    CloseHandle(h);

    /* ---- dispositions and their errors ---- */
    check(K "CreateFileA: CREATE_NEW on an existing file: ERROR_FILE_EXISTS",
          open_err("results.csv", GENERIC_WRITE, 0, CREATE_NEW, 0) == ERROR_FILE_EXISTS, "%lu",
          open_err("results.csv", GENERIC_WRITE, 0, CREATE_NEW, 0));
    check(K "CreateFileA: OPEN_EXISTING of a missing file: ERROR_FILE_NOT_FOUND",
          open_err("missing.txt", GENERIC_READ, 0, OPEN_EXISTING, 0) == ERROR_FILE_NOT_FOUND, "%lu",
          open_err("missing.txt", GENERIC_READ, 0, OPEN_EXISTING, 0));
    check(K "CreateFileA: a file in a missing folder: ERROR_PATH_NOT_FOUND",
          open_err("nofolder\\x.txt", GENERIC_WRITE, 0, CREATE_ALWAYS, 0) == ERROR_PATH_NOT_FOUND, "%lu",
          open_err("nofolder\\x.txt", GENERIC_WRITE, 0, CREATE_ALWAYS, 0));
    check(K "CreateFileA: dwCreationDisposition 0: ERROR_INVALID_PARAMETER",
          open_err("results.csv", GENERIC_READ, 0, 0, 0) == ERROR_INVALID_PARAMETER, "%lu",
          open_err("results.csv", GENERIC_READ, 0, 0, 0));
    put("trunc.txt", "12345");
    h = CreateFileA("trunc.txt", GENERIC_WRITE, 0, NULL, TRUNCATE_EXISTING, 0, NULL);
    check(K "CreateFileA: TRUNCATE_EXISTING empties an existing file",
          h != INVALID_HANDLE_VALUE && GetFileSize(h, NULL) == 0, "%lu", GetLastError());
    CloseHandle(h);
    DeleteFileA("trunc.txt");
    check(K "CreateFileA: TRUNCATE_EXISTING of a missing file: ERROR_FILE_NOT_FOUND",
          open_err("trunc.txt", GENERIC_WRITE, 0, TRUNCATE_EXISTING, 0) == ERROR_FILE_NOT_FOUND, "%lu",
          open_err("trunc.txt", GENERIC_WRITE, 0, TRUNCATE_EXISTING, 0));
    check(K "CreateFileA: a name with '<': ERROR_INVALID_NAME",
          open_err("a<b.txt", GENERIC_WRITE, 0, CREATE_ALWAYS, 0) == ERROR_INVALID_NAME, "%lu",
          open_err("a<b.txt", GENERIC_WRITE, 0, CREATE_ALWAYS, 0));
    SetLastError(0);
    h = CreateFileA("results.csv", GENERIC_READ, 0, NULL, OPEN_ALWAYS, 0, NULL);
    check(K "CreateFileA: OPEN_ALWAYS of an existing file succeeds with last error ERROR_ALREADY_EXISTS",
          h != INVALID_HANDLE_VALUE && GetLastError() == ERROR_ALREADY_EXISTS, "%lu", GetLastError());
    CloseHandle(h);
    SetLastError(0xDEAD);
    h = CreateFileA("new.txt", GENERIC_WRITE, 0, NULL, OPEN_ALWAYS, 0, NULL);
    check(K "CreateFileA: OPEN_ALWAYS of a new file succeeds with last error 0",
          h != INVALID_HANDLE_VALUE && GetLastError() == 0, "%lu", GetLastError());
    WriteFile(h, "0123456789", 10, &done, NULL);
    check(K "SetEndOfFile: cuts the file at the file pointer",
          SetFilePointer(h, 4, NULL, FILE_BEGIN) == 4 && SetEndOfFile(h) && GetFileSize(h, NULL) == 4, "%lu",
          GetFileSize(h, NULL));
    check(K "SetEndOfFile: extends it to a pointer past the end",
          SetFilePointer(h, 8, NULL, FILE_BEGIN) == 8 && SetEndOfFile(h) && GetFileSize(h, NULL) == 8, "%lu",
          GetFileSize(h, NULL));
    CloseHandle(h);
    SetLastError(0);
    h = CreateFileA("new.txt", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    check(K "CreateFileA: CREATE_ALWAYS of an existing file empties it, last error ERROR_ALREADY_EXISTS",
          h != INVALID_HANDLE_VALUE && GetLastError() == ERROR_ALREADY_EXISTS && GetFileSize(h, NULL) == 0, "%lu",
          GetLastError());
    CloseHandle(h);
    h = CreateFileW(L"wide.txt", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_NEW, 0, NULL);
    check(K "CreateFileW: a new file by its UTF-16 name", h != INVALID_HANDLE_VALUE, "%lu", GetLastError());
    WriteFile(h, "abc", 3, &done, NULL);
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = 1;
    char two[2] = {0, 0};
    check(K "ReadFile: with an OVERLAPPED on a synchronous handle, from its Offset",
          ReadFile(h, two, 2, &got, &ov) && got == 2 && two[0] == 'b' && two[1] == 'c', "%lu %c", got, two[0]);
    ov.Offset = 3; /* the end of the 3-byte file */
    SetLastError(0);
    BOOL eof = ReadFile(h, two, 2, &got, &ov);
    DWORD eoferr = GetLastError();
    check(K "ReadFile: with an OVERLAPPED whose Offset is the end of the file: FALSE, ERROR_HANDLE_EOF, 0 bytes",
          !eof && eoferr == ERROR_HANDLE_EOF && got == 0, "%d %lu %lu", eof, eoferr, got);
    CloseHandle(h);
    check(K "CreateFileA: a folder without FILE_FLAG_BACKUP_SEMANTICS: ERROR_ACCESS_DENIED",
          open_err(".", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING, 0) == ERROR_ACCESS_DENIED, "%lu",
          open_err(".", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING, 0));
    check(K "CreateFileA: a folder with FILE_FLAG_BACKUP_SEMANTICS opens",
          open_err(".", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS) ==
              0,
          "%lu", GetLastError());
    h = CreateFileA("NUL", GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
    check(K "CreateFileA: NUL is the null device: it takes every byte",
          h != INVALID_HANDLE_VALUE && WriteFile(h, "xyz", 3, &done, NULL) && done == 3, "%lu", GetLastError());
    check(K "GetFileType: FILE_TYPE_CHAR for NUL", GetFileType(h) == FILE_TYPE_CHAR, "%lu", GetFileType(h));
    CloseHandle(h);
    check(K "GetFileType: FILE_TYPE_UNKNOWN with ERROR_INVALID_HANDLE for a closed handle",
          GetFileType(h) == FILE_TYPE_UNKNOWN && GetLastError() == ERROR_INVALID_HANDLE, "%lu", GetLastError());
    SetLastError(0);
    check(K "ReadFile: FALSE with ERROR_INVALID_HANDLE for a closed handle",
          !ReadFile(h, in, 1, &got, NULL) && GetLastError() == ERROR_INVALID_HANDLE, "%lu", GetLastError());

    /* ---- attributes ---- */
    check(K "GetFileAttributesA: FILE_ATTRIBUTE_ARCHIVE for a file",
          GetFileAttributesA("results.csv") == FILE_ATTRIBUTE_ARCHIVE, "%lx", GetFileAttributesA("results.csv"));
    check(K "GetFileAttributesW: FILE_ATTRIBUTE_DIRECTORY for \".\"", GetFileAttributesW(L".") == FILE_ATTRIBUTE_DIRECTORY,
          "%lx", GetFileAttributesW(L"."));
    SetLastError(0);
    check(K "GetFileAttributesA: INVALID_FILE_ATTRIBUTES, ERROR_FILE_NOT_FOUND for a missing file",
          GetFileAttributesA("missing.txt") == INVALID_FILE_ATTRIBUTES && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu",
          GetLastError());
    SetLastError(0);
    check(K "GetFileAttributesA: ERROR_PATH_NOT_FOUND for a file in a missing folder",
          GetFileAttributesA("nofolder\\x") == INVALID_FILE_ATTRIBUTES && GetLastError() == ERROR_PATH_NOT_FOUND, "%lu",
          GetLastError());
    WIN32_FILE_ATTRIBUTE_DATA fa;
    check(K "GetFileAttributesExA: attributes and size",
          GetFileAttributesExA("results.csv", GetFileExInfoStandard, &fa) &&
              fa.dwFileAttributes == FILE_ATTRIBUTE_ARCHIVE && fa.nFileSizeLow == (DWORD)n,
          "%lx %lu", fa.dwFileAttributes, fa.nFileSizeLow);
    SetLastError(0);
    check(K "GetFileAttributesExW: info level 1 fails with ERROR_INVALID_PARAMETER",
          !GetFileAttributesExW(L"results.csv", (GET_FILEEX_INFO_LEVELS)1, &fa) &&
              GetLastError() == ERROR_INVALID_PARAMETER,
          "%lu", GetLastError());
    check(K "GetFileAttributesExW: a folder's attributes",
          GetFileAttributesExW(L".", GetFileExInfoStandard, &fa) && fa.dwFileAttributes == FILE_ATTRIBUTE_DIRECTORY,
          "%lx", fa.dwFileAttributes);

    /* ---- folders ---- */
    check(K "CreateDirectoryA: a new folder", CreateDirectoryA("sub", NULL), "%lu", GetLastError());
    SetLastError(0);
    check(K "CreateDirectoryA: an existing one fails with ERROR_ALREADY_EXISTS",
          !CreateDirectoryA("sub", NULL) && GetLastError() == ERROR_ALREADY_EXISTS, "%lu", GetLastError());
    SetLastError(0);
    check(K "CreateDirectoryW: in a missing folder fails with ERROR_PATH_NOT_FOUND",
          !CreateDirectoryW(L"nofolder\\sub", NULL) && GetLastError() == ERROR_PATH_NOT_FOUND, "%lu", GetLastError());
    check(K "CreateDirectoryW: a folder inside the new one", CreateDirectoryW(L"sub\\deeper", NULL), "%lu",
          GetLastError());
    put("sub/inner.txt", "inner");
    SetLastError(0);
    check(K "RemoveDirectoryA: a folder that is not empty: ERROR_DIR_NOT_EMPTY",
          !RemoveDirectoryA("sub") && GetLastError() == ERROR_DIR_NOT_EMPTY, "%lu", GetLastError());
    SetLastError(0);
    check(K "RemoveDirectoryA: a file: ERROR_DIRECTORY",
          !RemoveDirectoryA("results.csv") && GetLastError() == ERROR_DIRECTORY, "%lu", GetLastError());
    SetLastError(0);
    check(K "RemoveDirectoryW: a missing folder: ERROR_FILE_NOT_FOUND",
          !RemoveDirectoryW(L"nothere") && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu", GetLastError());
    check(K "RemoveDirectoryW: an empty folder", RemoveDirectoryW(L"sub\\deeper"), "%lu", GetLastError());

    /* ---- the current directory and full paths ---- */
    char cwd[MAX_PATH], full[MAX_PATH], *part = NULL;
    DWORD cl = GetCurrentDirectoryA(sizeof cwd, cwd);
    check(K "GetCurrentDirectoryA: its length, no trailing backslash", cl > 3 && cl == strlen(cwd) && cwd[cl - 1] != '\\',
          "%lu", cl);
    check(K "GetCurrentDirectoryA: a buffer too small: the size needed, its NUL included",
          GetCurrentDirectoryA(2, full) == cl + 1, "%lu", GetCurrentDirectoryA(2, full));
    if (sim)
        check(K "GetCurrentDirectoryA: C:\\hcpsim [hcpsim]", strcmp(cwd, "C:\\hcpsim") == 0, "%s", cwd);
    WCHAR wcwd[MAX_PATH];
    check(K "GetCurrentDirectoryW: the same length in UTF-16", GetCurrentDirectoryW(MAX_PATH, wcwd) == cl, "other");
    char want[MAX_PATH * 2];
    DWORD fl = GetFullPathNameA("sub\\..\\./x.txt", sizeof full, full, &part);
    sprintf(want, "%s\\x.txt", cwd);
    check(K "GetFullPathNameA: the current directory, '.' and '..' resolved, '/' made '\\', the file part",
          fl == strlen(want) && strcmp(full, want) == 0 && part && strcmp(part, "x.txt") == 0, "%s", full);
    fl = GetFullPathNameA("a.txt. . ", sizeof full, full, &part);
    sprintf(want, "%s\\a.txt", cwd);
    check(K "GetFullPathNameA: trailing dots and spaces of the last name dropped", strcmp(full, want) == 0, "%s", full);
    fl = GetFullPathNameA("dir\\", sizeof full, full, &part);
    check(K "GetFullPathNameA: a path ending in '\\' has no file part (NULL)", part == NULL && full[fl - 1] == '\\', "%s",
          full);
    WCHAR wfull[MAX_PATH];
    check(K "GetFullPathNameW: a buffer too small: the size needed with the NUL",
          GetFullPathNameW(L"x.txt", 3, wfull, NULL) == strlen(cwd) + 7, "%lu", GetFullPathNameW(L"x.txt", 3, wfull, NULL));
    check(K "SetCurrentDirectoryA: into a folder", SetCurrentDirectoryA("sub"), "%lu", GetLastError());
    GetCurrentDirectoryA(sizeof full, full);
    sprintf(want, "%s\\sub", cwd);
    check("GetCurrentDirectoryA: the new folder", strcmp(full, want) == 0, "%s", full);
    check("relative paths now start there", GetFileAttributesA("inner.txt") == FILE_ATTRIBUTE_ARCHIVE, "%lx",
          GetFileAttributesA("inner.txt"));
    check(K "SetCurrentDirectoryW: back with \"..\"", SetCurrentDirectoryW(L".."), "%lu", GetLastError());
    SetLastError(0);
    check(K "SetCurrentDirectoryA: a missing folder: ERROR_FILE_NOT_FOUND",
          !SetCurrentDirectoryA("nothere") && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu", GetLastError());
    SetLastError(0);
    check(K "SetCurrentDirectoryA: a file: ERROR_DIRECTORY",
          !SetCurrentDirectoryA("results.csv") && GetLastError() == ERROR_DIRECTORY, "%lu", GetLastError());

    /* ---- moving, copying, deleting ---- */
    put("a.txt", "alpha");
    put("b.txt", "beta");
    SetLastError(0);
    check(K "MoveFileA: onto an existing file fails with ERROR_ALREADY_EXISTS",
          !MoveFileA("a.txt", "b.txt") && GetLastError() == ERROR_ALREADY_EXISTS, "%lu", GetLastError());
    check(K "MoveFileExA: MOVEFILE_REPLACE_EXISTING replaces it", MoveFileExA("a.txt", "b.txt", MOVEFILE_REPLACE_EXISTING),
          "%lu", GetLastError());
    check("MoveFileExA: the old name is gone, the new holds the moved bytes",
          GetFileAttributesA("a.txt") == INVALID_FILE_ATTRIBUTES && GetFileAttributesExA("b.txt", GetFileExInfoStandard, &fa) &&
              fa.nFileSizeLow == 5,
          "%lu", fa.nFileSizeLow);
    check(K "MoveFileW: a rename into a folder", MoveFileW(L"b.txt", L"sub\\moved.txt"), "%lu", GetLastError());
    SetLastError(0);
    check(K "MoveFileW: a missing file: ERROR_FILE_NOT_FOUND",
          !MoveFileW(L"b.txt", L"c.txt") && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu", GetLastError());
    check(K "MoveFileExW: a folder renamed", MoveFileExW(L"sub", L"sub2", 0), "%lu", GetLastError());
    check(K "CopyFileA: a copy with the same bytes", CopyFileA("results.csv", "copy.csv", TRUE) &&
                                                         GetFileAttributesExA("copy.csv", GetFileExInfoStandard, &fa) &&
                                                         fa.nFileSizeLow == (DWORD)n,
          "%lu", GetLastError());
    SetLastError(0);
    check(K "CopyFileA: bFailIfExists TRUE onto an existing file: ERROR_FILE_EXISTS",
          !CopyFileA("results.csv", "copy.csv", TRUE) && GetLastError() == ERROR_FILE_EXISTS, "%lu", GetLastError());
    BOOL cw = CopyFileW(L"wide.txt", L"copy.csv", FALSE);
    DWORD cwe = GetLastError();
    check(K "CopyFileW: bFailIfExists FALSE replaces it",
          cw && GetFileAttributesExA("copy.csv", GetFileExInfoStandard, &fa) && fa.nFileSizeLow == 3, "%d %lu %lu", cw,
          cwe, fa.nFileSizeLow);
    SetLastError(0);
    check(K "CopyFileW: a missing source: ERROR_FILE_NOT_FOUND",
          !CopyFileW(L"nothere.txt", L"x.txt", FALSE) && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu", GetLastError());
    h = CreateFileA("copy.csv", GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    SetLastError(0);
    check(K "DeleteFileA: a file open without FILE_SHARE_DELETE: ERROR_SHARING_VIOLATION",
          !DeleteFileA("copy.csv") && GetLastError() == ERROR_SHARING_VIOLATION, "%lu", GetLastError());
    CloseHandle(h);
    check(K "DeleteFileA: deletes a closed file", DeleteFileA("copy.csv"), "%lu", GetLastError());
    SetLastError(0);
    check(K "DeleteFileA: a missing file: ERROR_FILE_NOT_FOUND",
          !DeleteFileA("copy.csv") && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu", GetLastError());
    SetLastError(0);
    check(K "DeleteFileW: a folder: ERROR_ACCESS_DENIED", !DeleteFileW(L"sub2") && GetLastError() == ERROR_ACCESS_DENIED,
          "%lu", GetLastError());
    check(K "DeleteFileW: by its UTF-16 name", DeleteFileW(L"new.txt"), "%lu", GetLastError());

    /* ---- temporary files ---- */
    char tmp[MAX_PATH], tname[MAX_PATH];
    DWORD tl = GetTempPathA(sizeof tmp, tmp);
    check(K "GetTempPathA: a folder ending in '\\'", tl > 0 && tl == strlen(tmp) && tmp[tl - 1] == '\\', "%lu", tl);
    if (sim) check(K "GetTempPathA: TMP = C:\\hcpsim, the program's folder [hcpsim]", strcmp(tmp, "C:\\hcpsim\\") == 0, "%s", tmp);
    WCHAR wtmp[MAX_PATH];
    check(K "GetTempPathW: the same folder", GetTempPathW(MAX_PATH, wtmp) == tl, "other");
    check(K "GetTempPathA: too small a buffer: the size needed", GetTempPathA(1, tmp) == tl + 1, "other");
    UINT u = GetTempFileNameA(".", "res", 0x1234, tname);
    check(K "GetTempFileNameA: uUnique given: that number, the name .\\res1234.tmp, no file made",
          u == 0x1234 && strcmp(tname, ".\\res1234.tmp") == 0 && GetFileAttributesA(tname) == INVALID_FILE_ATTRIBUTES,
          "%u %s", u, tname);
    u = GetTempFileNameA(".", "tst", 0, tname);
    check(K "GetTempFileNameA: uUnique 0: a new empty file, its number in the name",
          u != 0 && GetFileAttributesA(tname) == FILE_ATTRIBUTE_ARCHIVE && strncmp(tname, ".\\tst", 5) == 0, "%u %s", u,
          tname);
    DeleteFileA(tname);
    WCHAR wt[MAX_PATH];
    SetLastError(0);
    check(K "GetTempFileNameW: a missing folder: ERROR_DIRECTORY",
          GetTempFileNameW(L"nothere", L"x", 0, wt) == 0 && GetLastError() == ERROR_DIRECTORY, "%lu", GetLastError());

    /* ---- listing the folder ---- */
    WIN32_FIND_DATAA fd;
    HANDLE fh = FindFirstFileA("*", &fd);
    char list[1024] = "";
    int entries = 0;
    check(K "FindFirstFileA: a search handle and the first entry", fh != INVALID_HANDLE_VALUE, "%lu", GetLastError());
    if (fh != INVALID_HANDLE_VALUE) {
        do {
            if (strcmp(fd.cFileName, ".") && strcmp(fd.cFileName, "..") && strncmp(fd.cFileName, "link", 4) &&
                strncmp(fd.cFileName, "dirlink", 7))
                sprintf(list + strlen(list), "%s%s%s", list[0] ? " " : "", fd.cFileName,
                        (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? "/" : "");
            entries++;
        } while (FindNextFileA(fh, &fd));
        check(K "FindNextFileA: FALSE with ERROR_NO_MORE_FILES after the last", GetLastError() == ERROR_NO_MORE_FILES,
              "%lu", GetLastError());
        check(K "FindClose: TRUE", FindClose(fh), "FALSE");
    }
    printf("listing: %s\n", list);
    WIN32_FIND_DATAW wfd;
    fh = FindFirstFileW(L"*.csv", &wfd);
    check(K "FindFirstFileW: \"*.csv\" matches results.csv only",
          fh != INVALID_HANDLE_VALUE && lstrcmpW(wfd.cFileName, L"results.csv") == 0 && !FindNextFileW(fh, &wfd) &&
              GetLastError() == ERROR_NO_MORE_FILES && wfd.nFileSizeLow == (DWORD)n,
          "%lu", GetLastError());
    FindClose(fh);
    SetLastError(0);
    fh = FindFirstFileA("*.nomatch", &fd);
    check(K "FindFirstFileA: no match: INVALID_HANDLE_VALUE, ERROR_FILE_NOT_FOUND",
          fh == INVALID_HANDLE_VALUE && GetLastError() == ERROR_FILE_NOT_FOUND, "%lu", GetLastError());
    SetLastError(0);
    fh = FindFirstFileA("nofolder\\*", &fd);
    check(K "FindFirstFileA: a missing folder: ERROR_PATH_NOT_FOUND",
          fh == INVALID_HANDLE_VALUE && GetLastError() == ERROR_PATH_NOT_FOUND, "%lu", GetLastError());
    SetLastError(0);
    check(K "FindClose: an invalid handle: FALSE, ERROR_INVALID_HANDLE",
          !FindClose(INVALID_HANDLE_VALUE) && GetLastError() == ERROR_INVALID_HANDLE, "%lu", GetLastError());
    fh = FindFirstFileA("sub2\\*", &fd);
    char sublist[256] = "";
    if (fh != INVALID_HANDLE_VALUE) {
        do sprintf(sublist + strlen(sublist), "%s ", fd.cFileName);
        while (FindNextFileA(fh, &fd));
        FindClose(fh);
    }
    check(K "FindNextFileW: a folder's entries: \".\", \"..\" first, then by name", strcmp(sublist, ". .. inner.txt moved.txt ") == 0,
          "%s", sublist);

    /* ---- the boundary of the mapped folder (hcpsim only) ---- */
    if (sim) {
        check("..\\ past C:\\hcpsim: ERROR_ACCESS_DENIED [hcpsim]",
              open_err("..\\escape.txt", GENERIC_WRITE, 0, CREATE_ALWAYS, 0) == ERROR_ACCESS_DENIED, "%lu",
              open_err("..\\escape.txt", GENERIC_WRITE, 0, CREATE_ALWAYS, 0));
        check("C:\\Windows\\win.ini: ERROR_ACCESS_DENIED [hcpsim]",
              open_err("C:\\Windows\\win.ini", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING, 0) == ERROR_ACCESS_DENIED,
              "%lu", GetLastError());
        check("D:\\x.txt, another drive: ERROR_PATH_NOT_FOUND [hcpsim]",
              open_err("D:\\x.txt", GENERIC_READ, 0, OPEN_EXISTING, 0) == ERROR_PATH_NOT_FOUND, "%lu",
              open_err("D:\\x.txt", GENERIC_READ, 0, OPEN_EXISTING, 0));
        check("\\\\server\\share\\x: ERROR_BAD_NETPATH [hcpsim]",
              open_err("\\\\server\\share\\x", GENERIC_READ, 0, OPEN_EXISTING, 0) == ERROR_BAD_NETPATH, "%lu",
              open_err("\\\\server\\share\\x", GENERIC_READ, 0, OPEN_EXISTING, 0));
        check("sub2\\..\\..\\..\\x stays at C:\\ and is refused: ERROR_ACCESS_DENIED [hcpsim]",
              open_err("sub2\\..\\..\\..\\x", GENERIC_READ, 0, OPEN_EXISTING, 0) == ERROR_ACCESS_DENIED, "other");
        SetLastError(0);
        fh = FindFirstFileA("C:\\*", &fd);
        check("FindFirstFileA of C:\\*: ERROR_ACCESS_DENIED [hcpsim]",
              fh == INVALID_HANDLE_VALUE && GetLastError() == ERROR_ACCESS_DENIED, "%lu", GetLastError());
        SetLastError(0);
        check("SetCurrentDirectoryA(\"..\"): ERROR_ACCESS_DENIED [hcpsim]",
              !SetCurrentDirectoryA("..") && GetLastError() == ERROR_ACCESS_DENIED, "%lu", GetLastError());
        check("a host symbolic link in the folder, to a file outside: ERROR_ACCESS_DENIED [hcpsim]",
              open_err("link-out", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING, 0) == ERROR_ACCESS_DENIED, "%lu",
              open_err("link-out", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING, 0));
        check("a path through a host symbolic link to a folder outside: ERROR_ACCESS_DENIED [hcpsim]",
              open_err("dirlink\\x.txt", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING, 0) == ERROR_ACCESS_DENIED, "%lu",
              open_err("dirlink\\x.txt", GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING, 0));
        check("C:\\HCPSIM\\RESULTS.CSV: the folder's own path in any case [hcpsim]",
              GetFileAttributesA("C:\\HCPSIM\\RESULTS.CSV") == FILE_ATTRIBUTE_ARCHIVE, "%lx", GetLastError());
        check("C:/hcpsim/sub2/inner.txt: forward slashes [hcpsim]",
              GetFileAttributesA("C:/hcpsim/sub2/inner.txt") == FILE_ATTRIBUTE_ARCHIVE, "%lx", GetLastError());
        check("C:sub2\\inner.txt: drive-relative [hcpsim]",
              GetFileAttributesA("C:sub2\\inner.txt") == FILE_ATTRIBUTE_ARCHIVE, "%lx", GetLastError());
        check("\\hcpsim\\results.csv: rooted on the current drive [hcpsim]",
              GetFileAttributesA("\\hcpsim\\results.csv") == FILE_ATTRIBUTE_ARCHIVE, "%lx", GetLastError());
        FILETIME ft = bi.ftLastWriteTime;
        check("file times come from the virtual clock: 2026 [hcpsim]",
              ft.dwHighDateTime >= 0x01DC7AB1 && ft.dwHighDateTime < 0x01DD0000, "%lx", ft.dwHighDateTime);
    }
    printf("%d failed\n", failed);
    return failed ? 1 : 0;
}
