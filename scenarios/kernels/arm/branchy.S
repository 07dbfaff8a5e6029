# branchy(buf, n): 32-bit ARM (ARM state), AAPCS (arguments in r0-r3, then the stack;
# result in r0; return address in lr).  Counts the odd ones of n 32-bit words (one data-dependent beq per word); returns odd.
#
# Counts for one call, the final return included (rules in ../README.md):
# instructions:  5 + 5*n + odd
# branches:      2 + 2*n
# conditional:   1 + 2*n
# loads:         n
# stores:        0
	.arch	armv7-a
	.arm
	.text
	.globl	branchy
	.type	branchy, %function
branchy:
	mov	r2, r0
	mov	r0, #0
	cmp	r1, #0
	beq	.Ldone
.Lloop:
	ldr	r3, [r2], #4
	tst	r3, #1
	beq	.Leven
	add	r0, r0, #1
.Leven:
	subs	r1, r1, #1
	bne	.Lloop
.Ldone:
	bx	lr
	.size	branchy, . - branchy
	.section .note.GNU-stack, "", %progbits
