# memwalk(buf, n): 32-bit ARM (ARM state), AAPCS (arguments in r0-r3, then the stack;
# result in r0; return address in lr).  Sums n 32-bit words at buf (modulo 2^32).
#
# Counts for one call, the final return included (rules in ../README.md):
# instructions:  5 + 4*n
# branches:      2 + n
# conditional:   1 + n
# loads:         n
# stores:        0
	.arch	armv7-a
	.arm
	.text
	.globl	memwalk
	.type	memwalk, %function
memwalk:
	mov	r2, r0
	mov	r0, #0
	cmp	r1, #0
	beq	.Ldone
.Lloop:
	ldr	r3, [r2], #4
	add	r0, r0, r3
	subs	r1, r1, #1
	bne	.Lloop
.Ldone:
	bx	lr
	.size	memwalk, . - memwalk
	.section .note.GNU-stack, "", %progbits
