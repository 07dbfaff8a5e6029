# stores(buf, n): AArch64, AAPCS64 (arguments in x0-x7, result in x0, return address in
# x30).  Writes 64-bit word i = n - i (n, n-1, ..., 1); returns n.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  4 + 3*n
# branches:      2 + n
# conditional:   1 + n
# loads:         0
# stores:        n
	.text
	.globl	stores
	.type	stores, %function
stores:
	mov	x2, x0
	mov	x0, x1
	cbz	x1, .Ldone
.Lloop:
	str	x1, [x2], #8
	subs	x1, x1, #1
	b.ne	.Lloop
.Ldone:
	ret
	.size	stores, . - stores
	.section .note.GNU-stack, "", %progbits
