# profile_loop(imports, n, pd, mask): 32-bit ARM, AAPCS.  Profiles itself
# from guest code through import thunks.  imports points to 4 thunk
# addresses, 4 bytes each (m:import_table): [0] GetCurrentThread, [1]
# EnableThreadProfiling, [2] ReadThreadProfilingData, [3]
# DisableThreadProfiling.  It calls EnableThreadProfiling(GetCurrentThread(),
# THREAD_PROFILING_FLAG_DISPATCH, mask (a DWORD64 in r2:r3, high word 0),
# &handle (at [sp], a 4-byte HANDLE)), spins n times (subs/bne), calls
# ReadThreadProfilingData(handle, DISPATCHING | HARDWARE_COUNTERS, pd), then
# DisableThreadProfiling(handle).  Returns Enable's code | Read's code << 11 |
# Disable's code << 22 (r0 is 32 bits; the codes it meets are below 2048);
# when Enable fails, its code alone, and nothing else is called.  Saves r4-r8
# and lr; the handle lives at [sp + 8].
# native: no (it calls imports)
#
# Counts for one call when Enable succeeds, the final return and the four
# thunks included; each thunk (svc #k; bx lr) retires 2 instructions,
# 2 branches, no load:
# instructions:  40 + 2*n
# branches:      15 + n
# conditional:   2 + n
# loads:         7
# stores:        2
#   own code: 32 + 2n instructions; branches 4 blx, bne, beq, n x bne,
#   pop {pc}; loads 4 thunk addresses, 2 handle reads, pop; stores push, str.
#   When Enable fails (bne taken; two imports called): 24 instructions,
#   8 branches, 1 conditional, 3 loads, 2 stores.
# The PERFORMANCE_DATA window runs from Enable's thunk bx lr to Read's thunk
# svc (bx, 4 instructions, the loop, 5 up to the blx, svc):
# window instructions:  11 + 2*n
# window branches:      5 + n
	.arch	armv7-a
	.arm
	.text
	.globl	profile_loop
	.type	profile_loop, %function
profile_loop:
	push	{r4, r5, r6, r7, r8, lr}
	sub	sp, sp, #16
	mov	r4, r0
	mov	r5, r1
	mov	r6, r2
	mov	r7, r3
	ldr	r12, [r4]
	blx	r12
	mov	r1, #1
	mov	r2, r7
	mov	r3, #0
	add	r12, sp, #8
	str	r12, [sp]
	ldr	r12, [r4, #4]
	blx	r12
	movs	r8, r0
	bne	.Ldone
	movs	r1, r5
	beq	.Lread
.Lloop:
	subs	r1, r1, #1
	bne	.Lloop
.Lread:
	ldr	r0, [sp, #8]
	mov	r1, #3
	mov	r2, r6
	ldr	r12, [r4, #8]
	blx	r12
	orr	r8, r8, r0, lsl #11
	ldr	r0, [sp, #8]
	ldr	r12, [r4, #12]
	blx	r12
	orr	r8, r8, r0, lsl #22
.Ldone:
	mov	r0, r8
	add	sp, sp, #16
	pop	{r4, r5, r6, r7, r8, pc}
	.size	profile_loop, . - profile_loop
	.section .note.GNU-stack, "", %progbits
