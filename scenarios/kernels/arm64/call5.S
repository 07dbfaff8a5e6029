# call5(fn, a0, a1, a2, a3, a4): AArch64, AAPCS64 (arguments in x0-x7, result in x0, return address in
# x30).  Calls fn with the argument words a0..a4 in x0-x4 and returns its x0: the test harness for import thunks.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  10
# branches:      2
# conditional:   0
# loads:         1
# stores:        1
#   not counting fn: stp, 6 moves, blr, ldp, ret (stp/ldp save and restore x29, x30).
	.text
	.globl	call5
	.type	call5, %function
call5:
	stp	x29, x30, [sp, #-16]!
	mov	x16, x0
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	mov	x3, x4
	mov	x4, x5
	blr	x16
	ldp	x29, x30, [sp], #16
	ret
	.size	call5, . - call5
	.section .note.GNU-stack, "", %progbits
