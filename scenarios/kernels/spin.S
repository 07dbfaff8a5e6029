# spin(n): counts rcx down to zero; returns n.  The smallest loop: two
# instructions (dec, jnz) and one conditional branch per iteration.
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 2*n
# branches:      2 + n
# conditional:   1 + n
# loads:         1
# stores:        0
#   jz once, n x jnz (taken n-1 times), ret (the one load: it reads the stack).
	.intel_syntax noprefix
	.text
	.globl	spin
	.type	spin, @function
spin:
	mov	rax, rcx
	test	rcx, rcx
	jz	.Ldone
.Lloop:
	dec	rcx
	jnz	.Lloop
.Ldone:
	ret
	.size	spin, . - spin
	.section .note.GNU-stack, "", @progbits
