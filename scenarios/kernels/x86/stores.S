# stores(buf, n): stdcall, IA-32 (arguments on the stack, [esp+4], [esp+8], ...; the
# callee pops them with ret n; result in eax).  Writes 32-bit word i = n - i (n, n-1, ..., 1); returns n.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  6 + 4*n
# branches:      2 + n
# conditional:   1 + n
# loads:         3
# stores:        n
	.intel_syntax noprefix
	.text
	.globl	stores
	.type	stores, @function
stores:
	mov	ecx, dword ptr [esp + 4]
	mov	edx, dword ptr [esp + 8]
	mov	eax, edx
	test	edx, edx
	jz	.Ldone
.Lloop:
	mov	dword ptr [ecx], edx
	add	ecx, 4
	dec	edx
	jnz	.Lloop
.Ldone:
	ret	8
	.size	stores, . - stores
	.section .note.GNU-stack, "", @progbits
