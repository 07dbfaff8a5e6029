# profile_loop(imports, n, pd, mask): stdcall, IA-32.  Profiles itself from
# guest code through import thunks.  imports points to 4 thunk addresses,
# 4 bytes each (m:import_table): [0] GetCurrentThread, [1]
# EnableThreadProfiling, [2] ReadThreadProfilingData, [3]
# DisableThreadProfiling.  It calls EnableThreadProfiling(GetCurrentThread(),
# THREAD_PROFILING_FLAG_DISPATCH, mask (a DWORD64: two stack words, high 0),
# &handle (a 4-byte HANDLE)), spins n times (dec/jnz), calls
# ReadThreadProfilingData(handle, DISPATCHING | HARDWARE_COUNTERS, pd), then
# DisableThreadProfiling(handle).  Returns Enable's code | Read's code << 11 |
# Disable's code << 22 (eax is 32 bits; the codes it meets are below 2048);
# when Enable fails, its code alone, and nothing else is called.  Saves ebx,
# esi, edi, ebp; the thunks pop their arguments (ret 4n).
# native: no (it calls imports)
#
# Counts for one call when Enable succeeds, the final ret and the four thunks
# included; each thunk (mov eax, k; int 0x2e; ret n) retires 3 instructions,
# 2 branches (int, ret), 1 load (ret):
# instructions:  52 + 2*n
# branches:      15 + n
# conditional:   2 + n
# loads:         19
# stores:        17
#   own code: 40 + 2n instructions; branches 4 calls, jnz, jz, n x jnz, ret;
#   loads 4 argument reads, 4 calls through memory, 2 pushes of the handle,
#   4 pops, ret; stores 4 + 5 + 3 + 1 pushes, 4 calls.  Thunks: 12
#   instructions, 8 branches, 4 loads.
#   When Enable fails (jnz taken; two imports called): 33 instructions,
#   8 branches, 1 conditional, 13 loads, 11 stores.
# The PERFORMANCE_DATA window runs from Enable's thunk ret to Read's thunk
# int 0x2e (ret, 6 instructions, the loop, 4 up to the call, mov eax, int):
# window instructions:  13 + 2*n
# window branches:      5 + n
	.intel_syntax noprefix
	.text
	.globl	profile_loop
	.type	profile_loop, @function
profile_loop:
	push	ebx
	push	esi
	push	edi
	push	ebp
	sub	esp, 4
	mov	ebx, dword ptr [esp + 24]
	mov	esi, dword ptr [esp + 28]
	mov	edi, dword ptr [esp + 32]
	mov	ebp, dword ptr [esp + 36]
	call	dword ptr [ebx]
	mov	ecx, esp
	push	ecx
	push	0
	push	ebp
	push	1
	push	eax
	call	dword ptr [ebx + 4]
	mov	ebp, eax
	test	eax, eax
	jnz	.Ldone
	mov	ecx, esi
	test	ecx, ecx
	jz	.Lread
.Lloop:
	dec	ecx
	jnz	.Lloop
.Lread:
	push	edi
	push	3
	push	dword ptr [esp + 8]
	call	dword ptr [ebx + 8]
	shl	eax, 11
	or	ebp, eax
	push	dword ptr [esp]
	call	dword ptr [ebx + 12]
	shl	eax, 22
	or	ebp, eax
.Ldone:
	mov	eax, ebp
	add	esp, 4
	pop	ebp
	pop	edi
	pop	esi
	pop	ebx
	ret	16
	.size	profile_loop, . - profile_loop
	.section .note.GNU-stack, "", @progbits
