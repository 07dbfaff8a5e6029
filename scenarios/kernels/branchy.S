# branchy(buf, n): counts the 64-bit words among the n at buf whose low bit is
# set; returns that count.  One data-dependent conditional branch per word
# (the jz is taken for an even word, falls through for an odd one), so the
# taken/not-taken sequence follows the data: random data defeats a branch
# predictor, sorted or periodic data does not.
#
# odd = number of the n words with bit 0 set (the return value).
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 5*n + odd
# branches:      2 + 2*n
# conditional:   1 + 2*n
# loads:         1 + n
# stores:        0
#   per word: test, jz, (inc when odd), add, dec, jnz.  Taken jz per call:
#   n - odd (plus 1 when n = 0).
	.intel_syntax noprefix
	.text
	.globl	branchy
	.type	branchy, @function
branchy:
	xor	eax, eax
	test	rdx, rdx
	jz	.Ldone
.Lloop:
	test	byte ptr [rcx], 1
	jz	.Leven
	inc	rax
.Leven:
	add	rcx, 8
	dec	rdx
	jnz	.Lloop
.Ldone:
	ret
	.size	branchy, . - branchy
	.section .note.GNU-stack, "", @progbits
