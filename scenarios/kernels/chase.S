# chase(buf, n): follows n links through a table of 64-bit word indices:
# i = 0, then n times i = buf[i]; returns the last i.  Each load's address
# depends on the previous load (pointer chasing, latency-bound); the table
# holds indices, not addresses, so it works at any address.  Every index in
# the table must be inside it.
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 3*n
# branches:      2 + n
# conditional:   1 + n
# loads:         1 + n
# stores:        0
	.intel_syntax noprefix
	.text
	.globl	chase
	.type	chase, @function
chase:
	xor	eax, eax
	test	rdx, rdx
	jz	.Ldone
.Lloop:
	mov	rax, [rcx + rax*8]
	dec	rdx
	jnz	.Lloop
.Ldone:
	ret
	.size	chase, . - chase
	.section .note.GNU-stack, "", @progbits
