/* api/guest/crt_x64.S — msvcrt's functions that call back into the program, as
 * guest code the program runs as its own (user mode), x64 (api/README.md
 * "Windows programs": "Cost").  Assembled by the Makefile; api/guestgen.pl turns
 * the bytes and the symbols into C (hcp_guest_code).  The patch points (the
 * 8-byte immediates after `_imm`) get the addresses of the thunks and of cexit
 * when a process is loaded (api/crt_guest.c). */
        .intel_syntax noprefix
        .text
        .globl initterm, cexit, exit, cexit_next_imm, exit_cexit_imm, exit_exitprocess_imm
        .globl after, after_begin_imm, after_end_imm

/* _initterm(first, last): calls each non-NULL function pointer in [first, last). */
initterm:
        push    rsi
        push    rdi
        sub     rsp, 0x28
        mov     rsi, rcx
        mov     rdi, rdx
1:      cmp     rsi, rdi
        jae     3f
        mov     rax, [rsi]
        test    rax, rax
        je      2f
        call    rax
2:      add     rsi, 8
        jmp     1b
3:      add     rsp, 0x28
        pop     rdi
        pop     rsi
        ret

/* _cexit(): the atexit functions, last registered first (onexit_next hands them out). */
cexit:
        sub     rsp, 0x28
1:      .byte   0x48, 0xB8      /* movabs rax, onexit_next's thunk */
cexit_next_imm:
        .quad   0
        call    rax
        test    rax, rax
        je      2f
        call    rax
        jmp     1b
2:      add     rsp, 0x28
        ret

/* exit(code): _cexit, then ExitProcess(code). */
exit:
        push    rbx
        sub     rsp, 0x20
        mov     ebx, ecx
        .byte   0x48, 0xB8      /* movabs rax, cexit */
exit_cexit_imm:
        .quad   0
        call    rax
        mov     ecx, ebx
        .byte   0x48, 0xB8      /* movabs rax, ExitProcess's thunk */
exit_exitprocess_imm:
        .quad   0
        call    rax
        int3

/* after: entered by the return of a call that asked for a callback (api/crt_after.c), with rsp
 * where the caller's call left it and the caller's return address gone to the frame's top slot.
 * Calls fn(a1, a2, a3, a4, a5) from the frame after_begin fills, then returns to the caller what
 * after_end gives (the call's result, the callback's, or no return at all). */
after:
        sub     rsp, 0x70               /* the block at rsp+0x20; its slot 9 (rsp+0x68) the return address */
        lea     rcx, [rsp + 0x20]
        .byte   0x48, 0xB8              /* movabs rax, after_begin's thunk */
after_begin_imm:
        .quad   0
        call    rax
        mov     rcx, [rsp + 0x30]
        mov     rdx, [rsp + 0x38]
        mov     r8, [rsp + 0x40]
        mov     r9, [rsp + 0x48]
        call    qword ptr [rsp + 0x28]  /* fn; its 5th argument is the block's slot 0, at rsp+0x20 */
        mov     rdx, rax
        lea     rcx, [rsp + 0x20]
        .byte   0x48, 0xB8              /* movabs rax, after_end's thunk */
after_end_imm:
        .quad   0
        call    rax
        add     rsp, 0x68
        ret
