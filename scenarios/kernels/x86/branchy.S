# branchy(buf, n): stdcall, IA-32 (arguments on the stack, [esp+4], [esp+8], ...; the
# callee pops them with ret n; result in eax).  Counts the odd ones of n 32-bit words (one data-dependent jz per word); returns odd.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  6 + 5*n + odd
# branches:      2 + 2*n
# conditional:   1 + 2*n
# loads:         3 + n
# stores:        0
	.intel_syntax noprefix
	.text
	.globl	branchy
	.type	branchy, @function
branchy:
	mov	ecx, dword ptr [esp + 4]
	mov	edx, dword ptr [esp + 8]
	xor	eax, eax
	test	edx, edx
	jz	.Ldone
.Lloop:
	test	byte ptr [ecx], 1
	jz	.Leven
	inc	eax
.Leven:
	add	ecx, 4
	dec	edx
	jnz	.Lloop
.Ldone:
	ret	8
	.size	branchy, . - branchy
	.section .note.GNU-stack, "", @progbits
