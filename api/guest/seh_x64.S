/* api/guest/seh_x64.S — the call runner of the simulated ntdll, x64: the loop
 * in which the loader's and the exception dispatcher's calls of the program's
 * code are made (DllMain from LoadLibrary and FreeLibrary, exception
 * handlers, filters, unwind handlers), as the program's own user-mode code
 * (api/README.md "Exceptions": "Cost").  Assembled by the Makefile; api/guestgen.pl
 * turns it into C; the immediate after `runner_next_imm` gets the thunk of
 * hcpsim!runner_next when a process is loaded (api/runner.c).
 *
 * hcpsim enters `runner` with rbx = the run's block on the stack (the function,
 * four arguments, the last result) holding the first call, and rsp 16-byte
 * aligned above 32 bytes of shadow space.  After each call runner_next(block)
 * puts the next call in the block, or ends the run by continuing the thread
 * where the run's caller resumes. */
        .intel_syntax noprefix
        .text
        .globl runner, runner_next_imm, runner_ret

runner:
1:      mov     rcx, [rbx + 8]
        mov     rdx, [rbx + 16]
        mov     r8, [rbx + 24]
        mov     r9, [rbx + 32]
        call    [rbx]
runner_ret:
        mov     [rbx + 40], rax
        mov     rcx, rbx
        .byte   0x48, 0xB8      /* movabs rax, runner_next's thunk */
runner_next_imm:
        .quad   0
        call    rax             /* the next call into the block, or the run ends (it does not return) */
        jmp     1b
