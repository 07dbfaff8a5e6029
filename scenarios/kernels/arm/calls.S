# calls(n): 32-bit ARM (ARM state), AAPCS (arguments in r0-r3, then the stack;
# result in r0; return address in lr).  n direct calls (bl) of a leaf that returns; returns n.
#
# Counts for one call, the final return included (rules in ../README.md):
# instructions:  4 + 4*n
# branches:      2 + 3*n
# conditional:   1 + n
# loads:         1
# stores:        1
#   push {r4, lr} (one store), pop {r4, pc} (one load, the return); per
#   iteration bl, the leaf's bx lr, subs, bne.
	.arch	armv7-a
	.arm
	.text
	.globl	calls
	.type	calls, %function
calls:
	push	{r4, lr}
	movs	r4, r0
	beq	.Ldone
.Lloop:
	bl	.Lleaf
	subs	r4, r4, #1
	bne	.Lloop
.Ldone:
	pop	{r4, pc}
.Lleaf:
	bx	lr
	.size	calls, . - calls
	.section .note.GNU-stack, "", %progbits
