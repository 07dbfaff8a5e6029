# icalls(n): n indirect calls (call through a register) of a leaf that
# returns at once; returns n.  The leaf's address comes from a rip-relative
# lea, so the code is position-independent.
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  5 + 4*n
# branches:      2 + 3*n
# conditional:   1 + n
# loads:         1 + n
# stores:        n
#   branches: jz, n x (call r10, ret, jnz), ret.
	.intel_syntax noprefix
	.text
	.globl	icalls
	.type	icalls, @function
icalls:
	lea	r10, [rip + .Lleaf]
	mov	rax, rcx
	test	rcx, rcx
	jz	.Ldone
.Lloop:
	call	r10
	dec	rcx
	jnz	.Lloop
.Ldone:
	ret
.Lleaf:
	ret
	.size	icalls, . - icalls
	.section .note.GNU-stack, "", @progbits
