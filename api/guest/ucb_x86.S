/* api/guest/ucb_x86.S — the user-callback dispatcher, x86 (see ucb_x64.S).  The record holds
 *   [0] function (0: none left), [4] [8] [12] [16] its arguments, [20] the result,
 *   [24] the bytes the interrupted call's stdcall return pops (its arguments)
 * Callbacks are stdcall (they pop what they take); esi keeps the stack pointer across each,
 * whatever it pops.  The final return pops the interrupted call's arguments as its thunk's
 * `ret n` would (it moves the return address over the last of them). */
        .intel_syntax noprefix
        .code32
        .text
        .globl usercb, next_imm

usercb:
        push    esi
        push    edi
        mov     esi, esp
1:      push    eax                     /* cb_next(the last callback's result), stdcall */
        .byte   0xB8                    /* mov eax, cb_next's thunk */
next_imm:
        .long   0
        call    eax                     /* eax = the thread's record */
        mov     ecx, [eax]
        test    ecx, ecx
        je      2f
        push    dword ptr [eax + 16]
        push    dword ptr [eax + 12]
        push    dword ptr [eax + 8]
        push    dword ptr [eax + 4]
        call    ecx
        mov     esp, esi
        jmp     1b
2:      mov     ecx, [eax + 24]
        mov     eax, [eax + 20]
        pop     edi
        pop     esi
        mov     edx, [esp]
        mov     [esp + ecx], edx
        add     esp, ecx
        ret
