# profile_loop(imports, n, pd, mask): profiles itself from guest code through
# import thunks.  imports points to 4 thunk addresses (m:import_table):
# [0] GetCurrentThread, [1] EnableThreadProfiling, [2] ReadThreadProfilingData,
# [3] DisableThreadProfiling.  It calls EnableThreadProfiling(GetCurrentThread(),
# THREAD_PROFILING_FLAG_DISPATCH, mask, &handle), spins n times (dec/jnz, as
# spin), calls ReadThreadProfilingData(handle, DISPATCHING | HARDWARE_COUNTERS,
# pd) into the PERFORMANCE_DATA at pd (the caller sets its Size and Version),
# then DisableThreadProfiling(handle).  Returns Enable's code | Read's code << 16
# | Disable's code << 32 (Win32 codes fit 16 bits); when Enable fails, its code
# alone, and nothing else is called.  A non-leaf Windows x64 function: saves
# rbx, rsi, rdi, r12, keeps rsp 16-byte aligned at each call, gives each callee
# 32 bytes of shadow space, and keeps the handle at [rsp + 0x20].
# native: no (it calls imports; conformance/kernels.lua and conformance/gate.lua check it)
#
# Counts for one call when Enable succeeds, the final ret and the four thunks
# included; each thunk (mov eax, k; syscall; ret) retires 3 instructions,
# 2 branches (syscall, ret), 1 load (ret) (api/README.md "Call gate"):
# instructions:  50 + 2*n
# branches:      15 + n
# conditional:   2 + n
# loads:         15
# stores:        8
#   own code: 38 + 2n instructions; branches 4 calls, jnz, jz, n x jnz, ret;
#   loads 4 calls through memory, 2 handle reads, 4 pops, ret; stores 4 pushes,
#   4 calls.  Thunks: 12 instructions, 8 branches, 4 loads.
#   When Enable fails (jnz taken; two imports called): 31 instructions,
#   8 branches, 1 conditional, 9 loads, 6 stores.
# What the PERFORMANCE_DATA counts: Enable takes its snapshot inside its
# thunk's syscall, Read reads inside its own, so the window runs from Enable's
# thunk ret to Read's thunk syscall (ret, 6 instructions, the loop, 4
# instructions up to the call, mov eax, syscall):
# window instructions:  13 + 2*n
# window branches:      5 + n
	.intel_syntax noprefix
	.text
	.globl	profile_loop
	.type	profile_loop, @function
profile_loop:
	push	rbx
	push	rsi
	push	rdi
	push	r12
	sub	rsp, 0x38
	mov	rbx, rcx
	mov	rsi, rdx
	mov	rdi, r8
	mov	r12, r9
	call	qword ptr [rbx]
	mov	rcx, rax
	mov	edx, 1
	mov	r8, r12
	lea	r9, [rsp + 0x20]
	call	qword ptr [rbx + 8]
	mov	r12d, eax
	test	eax, eax
	jnz	.Ldone
	mov	rcx, rsi
	test	rcx, rcx
	jz	.Lread
.Lloop:
	dec	rcx
	jnz	.Lloop
.Lread:
	mov	rcx, qword ptr [rsp + 0x20]
	mov	edx, 3
	mov	r8, rdi
	call	qword ptr [rbx + 16]
	shl	eax, 16
	or	r12, rax
	mov	rcx, qword ptr [rsp + 0x20]
	call	qword ptr [rbx + 24]
	shl	rax, 32
	or	r12, rax
.Ldone:
	mov	rax, r12
	add	rsp, 0x38
	pop	r12
	pop	rdi
	pop	rsi
	pop	rbx
	ret
	.size	profile_loop, . - profile_loop
	.section .note.GNU-stack, "", @progbits
