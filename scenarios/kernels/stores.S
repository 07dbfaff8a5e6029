# stores(buf, n): writes the n 64-bit words at buf, word i = n - i
# (n, n-1, ..., 1); returns n.  One 8-byte store per word, sequential.
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 4*n
# branches:      2 + n
# conditional:   1 + n
# loads:         1
# stores:        n
	.intel_syntax noprefix
	.text
	.globl	stores
	.type	stores, @function
stores:
	mov	rax, rdx
	test	rdx, rdx
	jz	.Ldone
.Lloop:
	mov	qword ptr [rcx], rdx
	add	rcx, 8
	dec	rdx
	jnz	.Lloop
.Ldone:
	ret
	.size	stores, . - stores
	.section .note.GNU-stack, "", @progbits
