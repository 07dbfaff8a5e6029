# stride(buf, n, stride): sums n 64-bit words at buf, buf + stride,
# buf + 2*stride, ... (stride in bytes, any sign; wrapping sum); returns the
# sum.  n loads at a fixed stride: 8 is memwalk, 64 touches one word per
# cache line, 4096 one per page.
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 4*n
# branches:      2 + n
# conditional:   1 + n
# loads:         1 + n
# stores:        0
	.intel_syntax noprefix
	.text
	.globl	stride
	.type	stride, @function
stride:
	xor	eax, eax
	test	rdx, rdx
	jz	.Ldone
.Lloop:
	add	rax, [rcx]
	add	rcx, r8
	dec	rdx
	jnz	.Lloop
.Ldone:
	ret
	.size	stride, . - stride
	.section .note.GNU-stack, "", @progbits
