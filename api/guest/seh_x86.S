/* api/guest/seh_x86.S — the call runner of the simulated ntdll, x86 (as
 * seh_x64.S).  ebx = the run's block (the function, four arguments, the last
 * result); esi keeps the stack pointer across a call, so the callee may be
 * stdcall (pops its arguments) or cdecl (does not). */
        .intel_syntax noprefix
        .code32
        .text
        .globl runner, runner_next_imm, runner_ret

runner:
1:      mov     esi, esp
        push    dword ptr [ebx + 16]
        push    dword ptr [ebx + 12]
        push    dword ptr [ebx + 8]
        push    dword ptr [ebx + 4]
        call    dword ptr [ebx]
runner_ret:
        mov     esp, esi
        mov     [ebx + 20], eax
        push    ebx
        .byte   0xB8            /* mov eax, runner_next's thunk (stdcall: it pops the block) */
runner_next_imm:
        .long   0
        call    eax
        jmp     1b
