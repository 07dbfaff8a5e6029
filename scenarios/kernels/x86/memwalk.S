# memwalk(buf, n): stdcall, IA-32 (arguments on the stack, [esp+4], [esp+8], ...; the
# callee pops them with ret n; result in eax).  Sums n 32-bit words at buf (modulo 2^32).
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  6 + 4*n
# branches:      2 + n
# conditional:   1 + n
# loads:         3 + n
# stores:        0
#   loads: the two argument reads, one add per word, ret 8.
	.intel_syntax noprefix
	.text
	.globl	memwalk
	.type	memwalk, @function
memwalk:
	mov	ecx, dword ptr [esp + 4]
	mov	edx, dword ptr [esp + 8]
	xor	eax, eax
	test	edx, edx
	jz	.Ldone
.Lloop:
	add	eax, dword ptr [ecx]
	add	ecx, 4
	dec	edx
	jnz	.Lloop
.Ldone:
	ret	8
	.size	memwalk, . - memwalk
	.section .note.GNU-stack, "", @progbits
