# call5(fn, a0, a1, a2, a3, a4): 32-bit ARM (ARM state), AAPCS (arguments in r0-r3, then the stack;
# result in r0; return address in lr).  Calls fn with the argument words a0..a4 (a0-a2 in r0-r2, a3 in r3, a4 at [sp]) and returns its r0: the test harness for import thunks.
#
# Counts for one call, the final return included (rules in ../README.md):
# instructions:  12
# branches:      2
# conditional:   0
# loads:         3
# stores:        2
#   not counting fn.  Entry: fn r0, a0-a2 r1-r3, a3 [sp], a4 [sp+4].  The
#   frame: push {r4, lr} (8 bytes), sub sp 8, so a4 goes to [sp] for fn; loads
#   ldr a3, ldr a4, pop; stores push, str a4.
	.arch	armv7-a
	.arm
	.text
	.globl	call5
	.type	call5, %function
call5:
	push	{r4, lr}
	sub	sp, sp, #8
	mov	r12, r0
	mov	r0, r1
	mov	r1, r2
	mov	r2, r3
	ldr	r3, [sp, #16]
	ldr	r4, [sp, #20]
	str	r4, [sp]
	blx	r12
	add	sp, sp, #8
	pop	{r4, pc}
	.size	call5, . - call5
	.section .note.GNU-stack, "", %progbits
