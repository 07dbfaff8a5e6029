# recurse(n): AArch64, AAPCS64 (arguments in x0-x7, result in x0, return address in
# x30).  Recursion n levels deep (16n bytes of stack); returns n.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  2 + 7*n
# branches:      2 + 3*n
# conditional:   1 + n
# loads:         n
# stores:        n
#   a level with x0 > 0: cbz stp sub bl add ldp ret (7; cbz, bl, ret; ldp a
#   load, stp a store); the last level: cbz ret (2; 2 branches).
	.text
	.globl	recurse
	.type	recurse, %function
recurse:
.Lrecurse:
	cbz	x0, .Lzero
	stp	x29, x30, [sp, #-16]!
	sub	x0, x0, #1
	bl	.Lrecurse
	add	x0, x0, #1
	ldp	x29, x30, [sp], #16
	ret
.Lzero:
	ret
	.size	recurse, . - recurse
	.section .note.GNU-stack, "", %progbits
