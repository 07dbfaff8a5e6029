/* api/guest/crt_x86.S — msvcrt's functions that call back into the program, as
 * guest code the program runs as its own (user mode), x86 (cdecl; api/README.md
 * "Windows programs": "Cost").  As crt_x64.S: the 4-byte immediates after the
 * `_imm` symbols are patched when a process is loaded (api/crt_guest.c). */
        .intel_syntax noprefix
        .code32
        .text
        .globl initterm, cexit, exit, cexit_next_imm, exit_cexit_imm, exit_exitprocess_imm
        .globl after, after_begin_imm, after_end_imm

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
