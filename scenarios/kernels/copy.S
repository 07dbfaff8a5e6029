# copy(dst, src, n): copies n 64-bit words from src to dst, lowest first;
# returns n.  One load and one store per word.
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 6*n
# branches:      2 + n
# conditional:   1 + n
# loads:         1 + n
# stores:        n
	.intel_syntax noprefix
	.text
	.globl	copy
	.type	copy, @function
copy:
	mov	rax, r8
	test	r8, r8
	jz	.Ldone
.Lloop:
	mov	r9, [rdx]
	mov	[rcx], r9
	add	rdx, 8
	add	rcx, 8
	dec	r8
	jnz	.Lloop
.Ldone:
	ret
	.size	copy, . - copy
	.section .note.GNU-stack, "", @progbits
