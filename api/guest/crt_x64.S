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
        .globl initterm_e, onexit_table, onexit_table_next_imm
        .globl qsort, qsort_s, bsearch, bsearch_s, sort_next_imm
        .globl setjmp, setjmp3, longjmp, bt_entry, bt_endthread_imm

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

/* _initterm_e(first, last): calls each non-NULL int (*)(void) in [first, last) until one returns
 * non-zero, and returns that (0 when all returned 0). */
initterm_e:
        push    rsi
        push    rdi
        sub     rsp, 0x28
        mov     rsi, rcx
        mov     rdi, rdx
1:      xor     eax, eax
        cmp     rsi, rdi
        jae     3f
        mov     rax, [rsi]
        test    rax, rax
        je      2f
        call    rax
        test    eax, eax
        jne     3f
2:      add     rsi, 8
        jmp     1b
3:      add     rsp, 0x28
        pop     rdi
        pop     rsi
        ret

/* _execute_onexit_table(table): the table's functions, last registered first (onexit_table_next
 * hands them out and empties the table at the end); 0. */
onexit_table:
        push    rbx
        sub     rsp, 0x20
        mov     rbx, rcx
1:      mov     rcx, rbx
        .byte   0x48, 0xB8              /* movabs rax, onexit_table_next's thunk */
onexit_table_next_imm:
        .quad   0
        call    rax
        test    rax, rax
        je      2f
        call    rax
        jmp     1b
2:      xor     eax, eax
        add     rsp, 0x20
        pop     rbx
        ret

/* qsort, qsort_s, bsearch, bsearch_s: the program's comparator called from its own code, driven by
 * sort_next (api/crt_sort.c), which keeps msvcrt's order of comparisons and says what to do next in
 * the frame at rbx: [0] a, [8] b, [0x10] the comparator's result, [0x18] the comparator, [0x20] the
 * context, [0x28] base, [0x30] count, [0x38] size, [0x40] key, [0x48] kind (bit 0: the _s form's
 * context first), [0x50] bsearch's result.  Swaps are done here, byte by byte, as msvcrt's are. */
qsort:
        push    rbx
        push    rsi
        push    rdi
        sub     rsp, 0x80
        lea     rbx, [rsp + 0x20]
        mov     [rbx + 0x28], rcx
        mov     [rbx + 0x30], rdx
        mov     [rbx + 0x38], r8
        mov     [rbx + 0x18], r9
        mov     qword ptr [rbx + 0x48], 0
        jmp     sort_common
qsort_s:
        push    rbx
        push    rsi
        push    rdi
        sub     rsp, 0x80
        lea     rbx, [rsp + 0x20]
        mov     [rbx + 0x28], rcx
        mov     [rbx + 0x30], rdx
        mov     [rbx + 0x38], r8
        mov     [rbx + 0x18], r9
        mov     rax, [rsp + 0xC0]       /* the 5th argument: the context */
        mov     [rbx + 0x20], rax
        mov     qword ptr [rbx + 0x48], 1
        jmp     sort_common
bsearch:
        push    rbx
        push    rsi
        push    rdi
        sub     rsp, 0x80
        lea     rbx, [rsp + 0x20]
        mov     [rbx + 0x40], rcx
        mov     [rbx + 0x28], rdx
        mov     [rbx + 0x30], r8
        mov     [rbx + 0x38], r9
        mov     rax, [rsp + 0xC0]       /* the comparator */
        mov     [rbx + 0x18], rax
        mov     qword ptr [rbx + 0x48], 2
        jmp     sort_common
bsearch_s:
        push    rbx
        push    rsi
        push    rdi
        sub     rsp, 0x80
        lea     rbx, [rsp + 0x20]
        mov     [rbx + 0x40], rcx
        mov     [rbx + 0x28], rdx
        mov     [rbx + 0x30], r8
        mov     [rbx + 0x38], r9
        mov     rax, [rsp + 0xC0]
        mov     [rbx + 0x18], rax
        mov     rax, [rsp + 0xC8]
        mov     [rbx + 0x20], rax
        mov     qword ptr [rbx + 0x48], 3
sort_common:
        mov     qword ptr [rbx], 0
        mov     qword ptr [rbx + 0x50], 0
1:      mov     rcx, rbx
        .byte   0x48, 0xB8              /* movabs rax, sort_next's thunk */
sort_next_imm:
        .quad   0
        call    rax
        cmp     eax, 1
        je      2f
        cmp     eax, 2
        je      4f
        mov     rax, [rbx + 0x50]
        add     rsp, 0x80
        pop     rdi
        pop     rsi
        pop     rbx
        ret
2:      test    byte ptr [rbx + 0x48], 1
        jnz     3f
        mov     rcx, [rbx]
        mov     rdx, [rbx + 8]
        call    qword ptr [rbx + 0x18]
        mov     [rbx + 0x10], eax
        jmp     1b
3:      mov     rcx, [rbx + 0x20]
        mov     rdx, [rbx]
        mov     r8, [rbx + 8]
        call    qword ptr [rbx + 0x18]
        mov     [rbx + 0x10], eax
        jmp     1b
4:      mov     rsi, [rbx]
        mov     rdi, [rbx + 8]
        mov     rcx, [rbx + 0x38]
5:      mov     al, [rsi]
        mov     dl, [rdi]
        mov     [rdi], al
        mov     [rsi], dl
        inc     rsi
        inc     rdi
        dec     rcx
        jnz     5b
        jmp     1b

/* _setjmp(buf, frame), _setjmpex, __intrinsic_setjmp(ex): msvcrt's x64 _JUMP_BUFFER: Frame, Rbx,
 * Rsp (after the return), Rbp, Rsi, Rdi, R12-R15, Rip, MxCsr, FpCsr, Xmm6-Xmm15; returns 0. */
setjmp:
setjmp3:
        mov     [rcx], rdx
        mov     [rcx + 0x08], rbx
        lea     rax, [rsp + 8]
        mov     [rcx + 0x10], rax
        mov     [rcx + 0x18], rbp
        mov     [rcx + 0x20], rsi
        mov     [rcx + 0x28], rdi
        mov     [rcx + 0x30], r12
        mov     [rcx + 0x38], r13
        mov     [rcx + 0x40], r14
        mov     [rcx + 0x48], r15
        mov     rax, [rsp]
        mov     [rcx + 0x50], rax
        stmxcsr [rcx + 0x58]
        fnstcw  [rcx + 0x5C]
        movdqu  [rcx + 0x60], xmm6
        movdqu  [rcx + 0x70], xmm7
        movdqu  [rcx + 0x80], xmm8
        movdqu  [rcx + 0x90], xmm9
        movdqu  [rcx + 0xA0], xmm10
        movdqu  [rcx + 0xB0], xmm11
        movdqu  [rcx + 0xC0], xmm12
        movdqu  [rcx + 0xD0], xmm13
        movdqu  [rcx + 0xE0], xmm14
        movdqu  [rcx + 0xF0], xmm15
        xor     eax, eax
        ret

/* longjmp(buf, value): back to the _setjmp with the registers it saved; the value (1 for 0) as its
 * result.  The frames in between are left without unwinding them (api/README.md). */
longjmp:
        mov     eax, edx
        test    eax, eax
        jne     1f
        inc     eax
1:      mov     rbx, [rcx + 0x08]
        mov     rsp, [rcx + 0x10]
        mov     rbp, [rcx + 0x18]
        mov     rsi, [rcx + 0x20]
        mov     rdi, [rcx + 0x28]
        mov     r12, [rcx + 0x30]
        mov     r13, [rcx + 0x38]
        mov     r14, [rcx + 0x40]
        mov     r15, [rcx + 0x48]
        ldmxcsr [rcx + 0x58]
        fnclex
        fldcw   [rcx + 0x5C]
        movdqu  xmm6, [rcx + 0x60]
        movdqu  xmm7, [rcx + 0x70]
        movdqu  xmm8, [rcx + 0x80]
        movdqu  xmm9, [rcx + 0x90]
        movdqu  xmm10, [rcx + 0xA0]
        movdqu  xmm11, [rcx + 0xB0]
        movdqu  xmm12, [rcx + 0xC0]
        movdqu  xmm13, [rcx + 0xD0]
        movdqu  xmm14, [rcx + 0xE0]
        movdqu  xmm15, [rcx + 0xF0]
        jmp     qword ptr [rcx + 0x50]

/* _beginthread's thread: the block {start, arg} it was given; start(arg), then _endthread(). */
bt_entry:
        sub     rsp, 0x28
        mov     rax, [rcx]
        mov     rcx, [rcx + 8]
        call    rax
        .byte   0x48, 0xB8              /* movabs rax, _endthread's thunk */
bt_endthread_imm:
        .quad   0
        call    rax
        int3
