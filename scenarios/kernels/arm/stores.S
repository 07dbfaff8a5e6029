# stores(buf, n): 32-bit ARM (ARM state), AAPCS (arguments in r0-r3, then the stack;
# result in r0; return address in lr).  Writes 32-bit word i = n - i (n, n-1, ..., 1); returns n.
#
# Counts for one call, the final return included (rules in ../README.md):
# instructions:  4 + 3*n
# branches:      2 + n
# conditional:   1 + n
# loads:         0
# stores:        n
	.arch	armv7-a
	.arm
	.text
	.globl	stores
	.type	stores, %function
stores:
	mov	r2, r0
	movs	r0, r1
	beq	.Ldone
.Lloop:
	str	r1, [r2], #4
	subs	r1, r1, #1
	bne	.Lloop
.Ldone:
	bx	lr
	.size	stores, . - stores
	.section .note.GNU-stack, "", %progbits
