# memwalk(buf, n): sums the n 64-bit words at buf (wrapping); returns the sum.
# One load per word, sequential.
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 4*n
# branches:      2 + n
# conditional:   1 + n
# loads:         1 + n
# stores:        0
#   loads: n x add rax, [rcx]; ret.
	.intel_syntax noprefix
	.text
	.globl	memwalk
	.type	memwalk, @function
memwalk:
	xor	eax, eax
	test	rdx, rdx
	jz	.Ldone
.Lloop:
	add	rax, [rcx]
	add	rcx, 8
	dec	rdx
	jnz	.Lloop
.Ldone:
	ret
	.size	memwalk, . - memwalk
	.section .note.GNU-stack, "", @progbits
