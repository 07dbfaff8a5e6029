# branchy(buf, n): AArch64, AAPCS64 (arguments in x0-x7, result in x0, return address in
# x30).  Counts the odd ones of n 64-bit words (one data-dependent tbz per word); returns odd.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  4 + 4*n + odd
# branches:      2 + 2*n
# conditional:   1 + 2*n
# loads:         n
# stores:        0
	.text
	.globl	branchy
	.type	branchy, %function
branchy:
	mov	x2, x0
	mov	x0, #0
	cbz	x1, .Ldone
.Lloop:
	ldr	x3, [x2], #8
	tbz	x3, #0, .Leven
	add	x0, x0, #1
.Leven:
	subs	x1, x1, #1
	b.ne	.Lloop
.Ldone:
	ret
	.size	branchy, . - branchy
	.section .note.GNU-stack, "", %progbits
