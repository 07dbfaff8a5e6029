# pattern(n, mask): for i = n, n-1, ..., 1 one conditional branch that is
# taken when (i & mask) != 0 and falls through when (i & mask) == 0; returns
# the number of fall-throughs.  A periodic branch with no data: mask 0 never
# takes it, mask 1 alternates, mask 2^k - 1 falls through once every 2^k.
#
# zeros = number of i in 1..n with (i & mask) == 0 (the return value;
#         n >> k when mask = 2^k - 1).
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 4*n + zeros
# branches:      2 + 2*n
# conditional:   1 + 2*n
# loads:         1
# stores:        0
	.intel_syntax noprefix
	.text
	.globl	pattern
	.type	pattern, @function
pattern:
	xor	eax, eax
	test	rcx, rcx
	jz	.Ldone
.Lloop:
	test	rcx, rdx
	jnz	.Lnext
	inc	rax
.Lnext:
	dec	rcx
	jnz	.Lloop
.Ldone:
	ret
	.size	pattern, . - pattern
	.section .note.GNU-stack, "", @progbits
