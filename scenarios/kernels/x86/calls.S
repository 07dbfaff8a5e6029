# calls(n): stdcall, IA-32 (arguments on the stack, [esp+4], [esp+8], ...; the
# callee pops them with ret n; result in eax).  n direct calls of a leaf that returns; returns n.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  5 + 4*n
# branches:      2 + 3*n
# conditional:   1 + n
# loads:         2 + n
# stores:        n
#   per iteration: call (a store), the leaf's ret (a load), dec, jnz.
	.intel_syntax noprefix
	.text
	.globl	calls
	.type	calls, @function
calls:
	mov	ecx, dword ptr [esp + 4]
	mov	eax, ecx
	test	ecx, ecx
	jz	.Ldone
.Lloop:
	call	.Lleaf
	dec	ecx
	jnz	.Lloop
.Ldone:
	ret	4
.Lleaf:
	ret
	.size	calls, . - calls
	.section .note.GNU-stack, "", @progbits
