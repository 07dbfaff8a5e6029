# spin(n): 32-bit ARM (ARM state), AAPCS (arguments in r0-r3, then the stack;
# result in r0; return address in lr).  Counts r1 = n down to zero; returns n.
#
# Counts for one call, the final return included (rules in ../README.md):
# instructions:  3 + 2*n
# branches:      2 + n
# conditional:   1 + n
# loads:         0
# stores:        0
#   movs sets Z; beq once, n x bne, bx lr.
	.arch	armv7-a
	.arm
	.text
	.globl	spin
	.type	spin, %function
spin:
	movs	r1, r0
	beq	.Ldone
.Lloop:
	subs	r1, r1, #1
	bne	.Lloop
.Ldone:
	bx	lr
	.size	spin, . - spin
	.section .note.GNU-stack, "", %progbits
