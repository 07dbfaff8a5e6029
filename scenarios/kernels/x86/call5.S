# call5(fn, a0, a1, a2, a3, a4): stdcall, IA-32 (arguments on the stack, [esp+4], [esp+8], ...; the
# callee pops them with ret n; result in eax).  Calls the stdcall function fn with the five argument words a0..a4 (fn pops them) and returns its eax: the test harness for import thunks.
#
# Counts for one call, the final ret included (rules in ../README.md):
# instructions:  7
# branches:      2
# conditional:   0
# loads:         7
# stores:        6
#   not counting fn.  Each push [esp+24] reads and writes (a load and a store).
#   If fn did not pop exactly 20 bytes, ret 24 returns to an argument word.
	.intel_syntax noprefix
	.text
	.globl	call5
	.type	call5, @function
call5:
	push	dword ptr [esp + 24]
	push	dword ptr [esp + 24]
	push	dword ptr [esp + 24]
	push	dword ptr [esp + 24]
	push	dword ptr [esp + 24]
	call	dword ptr [esp + 24]
	ret	24
	.size	call5, . - call5
	.section .note.GNU-stack, "", @progbits
