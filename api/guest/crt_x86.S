/* api/guest/crt_x86.S — msvcrt's functions that call back into the program, as
 * guest code the program runs as its own (user mode), x86 (cdecl; api/README.md
 * "Windows programs": "Cost").  As crt_x64.S: the 4-byte immediates after the
 * `_imm` symbols are patched when a process is loaded (api/crt_guest.c). */
        .intel_syntax noprefix
        .code32
        .text
        .globl initterm, cexit, exit, cexit_next_imm, exit_cexit_imm, exit_exitprocess_imm
        .globl after, after_begin_imm, after_end_imm
        .globl initterm_e, onexit_table, onexit_table_next_imm
        .globl qsort, qsort_s, bsearch, bsearch_s, sort_next_imm
        .globl setjmp, setjmp3, longjmp, bt_entry, bt_endthread_imm

/* _initterm(first, last): calls each non-NULL function pointer in [first, last). */
initterm:
        push    esi
        push    edi
        mov     esi, [esp + 0xC]
        mov     edi, [esp + 0x10]
1:      cmp     esi, edi
        jae     3f
        mov     eax, [esi]
        test    eax, eax
        je      2f
        call    eax
2:      add     esi, 4
        jmp     1b
3:      pop     edi
        pop     esi
        ret

/* _cexit(): the atexit functions, last registered first (onexit_next hands them out). */
cexit:
1:      .byte   0xB8            /* mov eax, onexit_next's thunk */
cexit_next_imm:
        .long   0
        call    eax
        test    eax, eax
        je      2f
        call    eax
        jmp     1b
2:      ret

/* exit(code): _cexit, then ExitProcess(code) (stdcall: it pops its argument). */
exit:
        mov     esi, [esp + 4]
        .byte   0xB8            /* mov eax, cexit */
exit_cexit_imm:
        .long   0
        call    eax
        push    esi
        .byte   0xB8            /* mov eax, ExitProcess's thunk */
exit_exitprocess_imm:
        .long   0
        call    eax
        int3

/* after: as crt_x64.S's, cdecl: the block at esp (the callback's five argument words, then the
 * function, the result, the mode and, at its top, the caller's return address). */
after:
        sub     esp, 0x28
        push    esp                     /* the block's address (esp before the push) */
        .byte   0xB8                    /* mov eax, after_begin's thunk */
after_begin_imm:
        .long   0
        call    eax
        add     esp, 4
        call    dword ptr [esp + 20]    /* fn(a1..a5): the words at esp */
        push    eax
        lea     eax, [esp + 4]
        push    eax
        .byte   0xB8                    /* mov eax, after_end's thunk */
after_end_imm:
        .long   0
        call    eax
        add     esp, 0x2C
        ret

/* _initterm_e(first, last): as crt_x64.S's. */
initterm_e:
        push    esi
        push    edi
        mov     esi, [esp + 0xC]
        mov     edi, [esp + 0x10]
1:      xor     eax, eax
        cmp     esi, edi
        jae     3f
        mov     eax, [esi]
        test    eax, eax
        je      2f
        call    eax
        test    eax, eax
        jne     3f
2:      add     esi, 4
        jmp     1b
3:      pop     edi
        pop     esi
        ret

/* _execute_onexit_table(table): as crt_x64.S's. */
onexit_table:
        push    ebx
        mov     ebx, [esp + 8]
1:      push    ebx
        .byte   0xB8                    /* mov eax, onexit_table_next's thunk */
onexit_table_next_imm:
        .long   0
        call    eax
        add     esp, 4
        test    eax, eax
        je      2f
        call    eax
        jmp     1b
2:      xor     eax, eax
        pop     ebx
        ret

/* qsort, qsort_s, bsearch, bsearch_s: as crt_x64.S's, cdecl, 4-byte frame words at ebx: [0] a, [4]
 * b, [8] result, [12] comparator, [16] context, [20] base, [24] count, [28] size, [32] key, [36]
 * kind, [40] bsearch's result.  Arguments at [esp+0x54] after the prologue. */
qsort:
        push    ebx
        push    esi
        push    edi
        sub     esp, 0x40
        mov     ebx, esp
        mov     eax, [esp + 0x50]
        mov     [ebx + 20], eax
        mov     eax, [esp + 0x54]
        mov     [ebx + 24], eax
        mov     eax, [esp + 0x58]
        mov     [ebx + 28], eax
        mov     eax, [esp + 0x5C]
        mov     [ebx + 12], eax
        mov     dword ptr [ebx + 36], 0
        jmp     sort_common
qsort_s:
        push    ebx
        push    esi
        push    edi
        sub     esp, 0x40
        mov     ebx, esp
        mov     eax, [esp + 0x50]
        mov     [ebx + 20], eax
        mov     eax, [esp + 0x54]
        mov     [ebx + 24], eax
        mov     eax, [esp + 0x58]
        mov     [ebx + 28], eax
        mov     eax, [esp + 0x5C]
        mov     [ebx + 12], eax
        mov     eax, [esp + 0x60]
        mov     [ebx + 16], eax
        mov     dword ptr [ebx + 36], 1
        jmp     sort_common
bsearch:
        push    ebx
        push    esi
        push    edi
        sub     esp, 0x40
        mov     ebx, esp
        mov     eax, [esp + 0x50]
        mov     [ebx + 32], eax
        mov     eax, [esp + 0x54]
        mov     [ebx + 20], eax
        mov     eax, [esp + 0x58]
        mov     [ebx + 24], eax
        mov     eax, [esp + 0x5C]
        mov     [ebx + 28], eax
        mov     eax, [esp + 0x60]
        mov     [ebx + 12], eax
        mov     dword ptr [ebx + 36], 2
        jmp     sort_common
bsearch_s:
        push    ebx
        push    esi
        push    edi
        sub     esp, 0x40
        mov     ebx, esp
        mov     eax, [esp + 0x50]
        mov     [ebx + 32], eax
        mov     eax, [esp + 0x54]
        mov     [ebx + 20], eax
        mov     eax, [esp + 0x58]
        mov     [ebx + 24], eax
        mov     eax, [esp + 0x5C]
        mov     [ebx + 28], eax
        mov     eax, [esp + 0x60]
        mov     [ebx + 12], eax
        mov     eax, [esp + 0x64]
        mov     [ebx + 16], eax
        mov     dword ptr [ebx + 36], 3
sort_common:
        mov     dword ptr [ebx], 0
        mov     dword ptr [ebx + 40], 0
1:      push    ebx
        .byte   0xB8                    /* mov eax, sort_next's thunk */
sort_next_imm:
        .long   0
        call    eax
        add     esp, 4
        cmp     eax, 1
        je      2f
        cmp     eax, 2
        je      4f
        mov     eax, [ebx + 40]
        add     esp, 0x40
        pop     edi
        pop     esi
        pop     ebx
        ret
2:      test    byte ptr [ebx + 36], 1
        jnz     3f
        push    dword ptr [ebx + 4]
        push    dword ptr [ebx]
        call    dword ptr [ebx + 12]
        add     esp, 8
        mov     [ebx + 8], eax
        jmp     1b
3:      push    dword ptr [ebx + 4]
        push    dword ptr [ebx]
        push    dword ptr [ebx + 16]
        call    dword ptr [ebx + 12]
        add     esp, 12
        mov     [ebx + 8], eax
        jmp     1b
4:      mov     esi, [ebx]
        mov     edi, [ebx + 4]
        mov     ecx, [ebx + 28]
5:      mov     al, [esi]
        mov     dl, [edi]
        mov     [edi], al
        mov     [esi], dl
        inc     esi
        inc     edi
        dec     ecx
        jnz     5b
        jmp     1b

/* _setjmp(buf), _setjmp3(buf, count, ...): msvcrt's i386 _JUMP_BUFFER: Ebp, Ebx, Edi, Esi, Esp
 * (after the return), Eip, Registration (fs:[0]), TryLevel -1, Cookie "VC20", UnwindFunc 0. */
setjmp:
setjmp3:
        mov     edx, [esp + 4]
        mov     [edx], ebp
        mov     [edx + 4], ebx
        mov     [edx + 8], edi
        mov     [edx + 12], esi
        lea     eax, [esp + 4]
        mov     [edx + 16], eax
        mov     eax, [esp]
        mov     [edx + 20], eax
        mov     eax, fs:[0]
        mov     [edx + 24], eax
        mov     dword ptr [edx + 28], 0xFFFFFFFF
        mov     dword ptr [edx + 32], 0x56433230
        mov     dword ptr [edx + 36], 0
        xor     eax, eax
        ret

/* longjmp(buf, value): the saved registers, fs:[0] back to the saved registration (the frames'
 * handlers in between are not called), the value (1 for 0) as _setjmp's result. */
longjmp:
        mov     edx, [esp + 4]
        mov     eax, [esp + 8]
        test    eax, eax
        jne     1f
        inc     eax
1:      mov     ecx, [edx + 24]
        mov     fs:[0], ecx
        mov     ebp, [edx]
        mov     ebx, [edx + 4]
        mov     edi, [edx + 8]
        mov     esi, [edx + 12]
        mov     esp, [edx + 16]
        jmp     dword ptr [edx + 20]

/* _beginthread's thread (a stdcall thread procedure): start(arg) from the block, then _endthread(). */
bt_entry:
        mov     eax, [esp + 4]
        push    dword ptr [eax + 4]
        call    dword ptr [eax]
        add     esp, 4
        .byte   0xB8                    /* mov eax, _endthread's thunk */
bt_endthread_imm:
        .long   0
        call    eax
        int3
