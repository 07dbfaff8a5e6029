# spin(n): stdcall, IA-32 (arguments on the stack, [esp+4], [esp+8], ...; the
# callee pops them with ret n; result in eax).  Counts ecx down to zero; returns n.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  5 + 2*n
# branches:      2 + n
# conditional:   1 + n
# loads:         2
# stores:        0
#   mov ecx, [esp+4] and ret 4 are the two loads; jz once, n x jnz, ret.
	.intel_syntax noprefix
	.text
	.globl	spin
	.type	spin, @function
spin:
	mov	ecx, dword ptr [esp + 4]
	mov	eax, ecx
	test	ecx, ecx
	jz	.Ldone
.Lloop:
	dec	ecx
	jnz	.Lloop
.Ldone:
	ret	4
	.size	spin, . - spin
	.section .note.GNU-stack, "", @progbits
