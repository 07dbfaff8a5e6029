# memwalk(buf, n): AArch64, AAPCS64 (arguments in x0-x7, result in x0, return address in
# x30).  Sums n 64-bit words at buf (modulo 2^64).
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  4 + 4*n
# branches:      2 + n
# conditional:   1 + n
# loads:         n
# stores:        0
	.text
	.globl	memwalk
	.type	memwalk, %function
memwalk:
	mov	x2, x0
	mov	x0, #0
	cbz	x1, .Ldone
.Lloop:
	ldr	x3, [x2], #8
	add	x0, x0, x3
	subs	x1, x1, #1
	b.ne	.Lloop
.Ldone:
	ret
	.size	memwalk, . - memwalk
	.section .note.GNU-stack, "", %progbits
