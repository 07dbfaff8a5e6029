# calls(n): AArch64, AAPCS64 (arguments in x0-x7, result in x0, return address in
# x30).  n direct calls (bl) of a leaf that returns; returns n.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  5 + 4*n
# branches:      2 + 3*n
# conditional:   1 + n
# loads:         1
# stores:        1
#   saves x29, x30 (stp, one store) and restores them (ldp, one load); per
#   iteration bl, the leaf's ret, subs, b.ne (bl writes x30, not memory).
	.text
	.globl	calls
	.type	calls, %function
calls:
	stp	x29, x30, [sp, #-16]!
	mov	x1, x0
	cbz	x1, .Ldone
.Lloop:
	bl	.Lleaf
	subs	x1, x1, #1
	b.ne	.Lloop
.Ldone:
	ldp	x29, x30, [sp], #16
	ret
.Lleaf:
	ret
	.size	calls, . - calls
	.section .note.GNU-stack, "", %progbits
