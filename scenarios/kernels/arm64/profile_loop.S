# profile_loop(imports, n, pd, mask): AArch64, AAPCS64.  Profiles itself
# from guest code through import thunks.  imports points to 4 thunk
# addresses, 8 bytes each (m:import_table): [0] GetCurrentThread, [1]
# EnableThreadProfiling, [2] ReadThreadProfilingData, [3]
# DisableThreadProfiling.  It calls EnableThreadProfiling(GetCurrentThread(),
# THREAD_PROFILING_FLAG_DISPATCH, mask, &handle), spins n times (subs/b.ne),
# calls ReadThreadProfilingData(handle, DISPATCHING | HARDWARE_COUNTERS, pd),
# then DisableThreadProfiling(handle).  Returns Enable's code | Read's code
# << 16 | Disable's code << 32, as the x64 kernel; when Enable fails, its code
# alone, and nothing else is called.  Saves x19-x22, x29, x30 in a 64-byte
# frame with the handle at [sp + 48].
# native: no (it calls imports)
#
# Counts for one call when Enable succeeds, the final ret and the four thunks
# included; each thunk (svc #k; ret) retires 2 instructions, 2 branches, no
# load:
# instructions:  41 + 2*n
# branches:      15 + n
# conditional:   2 + n
# loads:         9
# stores:        3
#   own code: 33 + 2n instructions; branches 4 blr, cbnz, cbz, n x b.ne, ret;
#   loads 4 thunk addresses, 2 handle reads, 3 ldp; stores 3 stp.
#   When Enable fails (cbnz taken; two imports called): 25 instructions,
#   8 branches, 1 conditional, 5 loads, 3 stores.
# The PERFORMANCE_DATA window runs from Enable's thunk ret to Read's thunk
# svc (ret, 4 instructions, the loop, 5 up to the blr, svc):
# window instructions:  11 + 2*n
# window branches:      5 + n
	.text
	.globl	profile_loop
	.type	profile_loop, %function
profile_loop:
	stp	x29, x30, [sp, #-64]!
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	mov	x19, x0
	mov	x20, x1
	mov	x21, x2
	mov	x22, x3
	ldr	x16, [x19]
	blr	x16
	mov	w1, #1
	mov	x2, x22
	add	x3, sp, #48
	ldr	x16, [x19, #8]
	blr	x16
	mov	w22, w0
	cbnz	w0, .Ldone
	mov	x1, x20
	cbz	x1, .Lread
.Lloop:
	subs	x1, x1, #1
	b.ne	.Lloop
.Lread:
	ldr	x0, [sp, #48]
	mov	w1, #3
	mov	x2, x21
	ldr	x16, [x19, #16]
	blr	x16
	orr	x22, x22, x0, lsl #16
	ldr	x0, [sp, #48]
	ldr	x16, [x19, #24]
	blr	x16
	orr	x22, x22, x0, lsl #32
.Ldone:
	mov	x0, x22
	ldp	x21, x22, [sp, #32]
	ldp	x19, x20, [sp, #16]
	ldp	x29, x30, [sp], #64
	ret
	.size	profile_loop, . - profile_loop
	.section .note.GNU-stack, "", %progbits
