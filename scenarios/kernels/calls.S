# calls(n): n direct calls of a leaf that returns at once; returns n.
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 4*n
# branches:      2 + 3*n
# conditional:   1 + n
# loads:         1 + n
# stores:        n
#   branches: jz, n x (call, ret, jnz), ret.  Each call stores the return
#   address (a store), each ret reads it back (a load).
	.intel_syntax noprefix
	.text
	.globl	calls
	.type	calls, @function
calls:
	mov	rax, rcx
	test	rcx, rcx
	jz	.Ldone
.Lloop:
	call	.Lleaf
	dec	rcx
	jnz	.Lloop
.Ldone:
	ret
.Lleaf:
	ret
	.size	calls, . - calls
	.section .note.GNU-stack, "", @progbits
