# recurse(n): stdcall, IA-32 (arguments on the stack, [esp+4], [esp+8], ...; the
# callee pops them with ret n; result in eax).  Recursion n levels deep below an entry frame (4(n+1) bytes of stack); returns n.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  7 + 7*n
# branches:      4 + 3*n
# conditional:   1 + n
# loads:         3 + n
# stores:        1 + n
#   entry: mov, call, ret 4 (2 branches, 2 loads, 1 store); a level with
#   ecx > 0: xor test jz dec call inc ret (7; 3 branches; ret a load, call a
#   store); the last level: xor test jz ret (4; 2 branches; 1 load).
	.intel_syntax noprefix
	.text
	.globl	recurse
	.type	recurse, @function
recurse:
	mov	ecx, dword ptr [esp + 4]
	call	.Lrecurse
	ret	4
.Lrecurse:
	xor	eax, eax
	test	ecx, ecx
	jz	.Ldone
	dec	ecx
	call	.Lrecurse
	inc	eax
.Ldone:
	ret
	.size	recurse, . - recurse
	.section .note.GNU-stack, "", @progbits
