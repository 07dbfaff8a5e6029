# recurse(n): 32-bit ARM (ARM state), AAPCS (arguments in r0-r3, then the stack;
# result in r0; return address in lr).  Recursion n levels deep (8n bytes of stack); returns n.
#
# Counts for one call, the final return included (rules in ../README.md):
# instructions:  3 + 7*n
# branches:      2 + 3*n
# conditional:   1 + n
# loads:         n
# stores:        n
#   a level with r0 > 0: cmp beq push sub bl add pop (7; beq, bl, pop {pc};
#   pop a load, push a store); the last level: cmp beq bx (3; 2 branches).
	.arch	armv7-a
	.arm
	.text
	.globl	recurse
	.type	recurse, %function
recurse:
.Lrecurse:
	cmp	r0, #0
	beq	.Lzero
	push	{r4, lr}
	sub	r0, r0, #1
	bl	.Lrecurse
	add	r0, r0, #1
	pop	{r4, pc}
.Lzero:
	bx	lr
	.size	recurse, . - recurse
	.section .note.GNU-stack, "", %progbits
