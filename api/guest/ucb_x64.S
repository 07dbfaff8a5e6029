/* api/guest/ucb_x64.S — the user-callback dispatcher, x64 (api/README.md "User callbacks").
 * The simulated OS runs the program's callbacks (APCs, FLS callbacks, InitOnce functions, thread
 * pool callbacks) as the program's own user-mode code on the thread they belong to, as
 * ntdll's KiUserApcDispatcher and the pool's worker loop do: a call that has callbacks to run
 * returns here instead of to its caller (sim_gate_redirect), and a pool worker starts here.
 * hcpsim!cb_next hands out one callback at a time through the thread's record
 *   [0] function (0: none left), [8] [16] [24] [32] its arguments, [40] the result
 * and takes the last callback's result as its argument; when none is left the dispatcher
 * returns the record's result to the interrupted call's caller (or ends the worker's thread).
 * Assembled by the Makefile; api/guestgen.pl turns it into C; api/ucb.c patches the thunk's
 * address at next_imm.  Entry: rsp = 8 mod 16 (just after a call), as at a thunk's ret. */
        .intel_syntax noprefix
        .text
        .globl usercb, next_imm

usercb:
        sub     rsp, 0x28               /* home space for the callees; rsp 16-aligned */
1:      mov     rcx, rax                /* the last callback's result */
        .byte   0x48, 0xB8              /* movabs rax, cb_next's thunk */
next_imm:
        .quad   0
        call    rax                     /* rax = the thread's record */
        mov     r10, [rax]
        test    r10, r10
        je      2f
        mov     rcx, [rax + 8]
        mov     rdx, [rax + 16]
        mov     r8, [rax + 24]
        mov     r9, [rax + 32]
        call    r10
        jmp     1b
2:      mov     rax, [rax + 40]
        add     rsp, 0x28
        ret
