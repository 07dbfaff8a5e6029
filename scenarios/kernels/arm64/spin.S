# spin(n): AArch64, AAPCS64 (arguments in x0-x7, result in x0, return address in
# x30).  Counts x1 = n down to zero; returns n.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  3 + 2*n
# branches:      2 + n
# conditional:   1 + n
# loads:         0
# stores:        0
#   cbz once, n x b.ne, ret (AArch64's ret reads no memory: the return address is in x30).
	.text
	.globl	spin
	.type	spin, %function
spin:
	mov	x1, x0
	cbz	x1, .Ldone
.Lloop:
	subs	x1, x1, #1
	b.ne	.Lloop
.Ldone:
	ret
	.size	spin, . - spin
	.section .note.GNU-stack, "", %progbits
