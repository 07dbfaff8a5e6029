# recurse(n): calls itself n levels deep, then returns through every level;
# returns n.  Nested calls and returns (return-stack depth n); uses 8*n bytes
# of stack (the default 256 KiB guest stack holds n up to about 30000).
#
# Counts for one call, the final ret included (rules in README.md):
# instructions:  4 + 7*n
# branches:      2 + 3*n
# conditional:   1 + n
# loads:         1 + n
# stores:        n
#   each of the n outer levels: xor, test, jz, dec, call, inc, ret; the
#   innermost: xor, test, jz, ret.
	.intel_syntax noprefix
	.text
	.globl	recurse
	.type	recurse, @function
recurse:
.Lrecurse:
	xor	eax, eax
	test	rcx, rcx
	jz	.Ldone
	dec	rcx
	call	.Lrecurse
	inc	rax
.Ldone:
	ret
	.size	recurse, . - recurse
	.section .note.GNU-stack, "", @progbits
