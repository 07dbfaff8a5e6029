#!/bin/sh
# A program's memory as Windows answers it (api/README.md "Memory budget"): the heap grows in
# segments up to the process's budget (machine option max_memory, 1 GiB by default), so a 256 MiB
# buffer works; past the budget malloc returns NULL with errno ENOMEM (12) and CreateThread NULL
# with ERROR_NOT_ENOUGH_MEMORY (8), and the program goes on.  greedy.c's counts, derived from the
# rules: segments of 16 MiB (the first), 256 MiB and 64 MiB (its two large blocks, each its own
# segment, freed and kept) hold 15 + 256 + 64 blocks of 1 MiB (the first segment less what the C
# runtime's start-up took, under 1 MiB), and the 1024 - 336 = 688 MiB left of the budget 688 more
# segments of one block each: 1023.  Threads: each takes 1 MiB of the budget for its stack until it
# exits; with the heap's first segment charged, 1024 - 16 = 1008 fit, and when they have ended one
# more can be made.  VirtualAlloc: committed pages take the budget, reserved ones not: with the
# heap's first segment charged, 1008 / 16 = 63 regions of 16 MiB are committed, the next commit
# fails with ERROR_COMMITMENT_LIMIT (1455), a 64 MiB reservation still works, and releasing a
# region gives its 16 MiB back.  With --max-memory 268435456 the 256 MiB buffer does not fit (its segment and
# the first one: 272 MiB) and malloc says so.
CLAUSE=PE-MEMORY
. scenarios/tests/lib/tap.sh
pe=$(dirname "$top/${BUILD:-build}/hcpsim")/pe
[ -d "$pe" ] || pe=$top/build/pe
echo "TAP version 13"
cr=$(printf '\r')
for bits in 64 32; do
  exe=greedy$bits.exe
  cp "$pe/$exe" .
  $HCPSIM run "$exe" > out.txt 2> err.txt; st=$?
  printf 'malloc 256 MiB: ok\nHeapAlloc 64 MiB, zeroed: ok\n1 MiB blocks: 1023, then NULL with errno 12\nafter freeing them, 256 MiB again: ok\n' > want.txt
  tr -d "$cr" < out.txt | cmp -s - want.txt
  result $? "$exe: msvcrt.dll!malloc: 256 MiB works, 1 MiB blocks until the budget runs out (1023), then NULL with ENOMEM; freed memory serves 256 MiB again" "$(cat out.txt err.txt)"
  result $([ "$st" = 0 ]; echo $?) "$exe: KERNEL32.dll!HeapAlloc: 64 MiB zeroed; the program goes on to exit 0 (status $st)"
  $HCPSIM run "$exe" threads > out.txt 2> err.txt; st=$?
  printf 'threads: 1008, then NULL with last error 8\nafter they ended, another: yes\n' > want.txt
  tr -d "$cr" < out.txt | cmp -s - want.txt && [ "$st" = 0 ]
  result $? "$exe threads: KERNEL32.dll!CreateThread: 1008 threads, then NULL with ERROR_NOT_ENOUGH_MEMORY; the program goes on, and once they ended another can be made (status $st)" "$(cat out.txt err.txt)"
  $HCPSIM run "$exe" virtual > out.txt 2> err.txt; st=$?
  printf 'committed 16 MiB regions: 63, then NULL with last error 1455\nreserve 64 MiB: ok\nafter releasing one, commit 16 MiB: ok\n' > want.txt
  tr -d "$cr" < out.txt | cmp -s - want.txt && [ "$st" = 0 ]
  result $? "$exe virtual: KERNEL32.dll!VirtualAlloc: 63 committed regions of 16 MiB, then NULL with ERROR_COMMITMENT_LIMIT; a reservation still works; a released region's memory comes back (status $st)" "$(cat out.txt err.txt)"
  $HCPSIM run --max-memory 268435456 "$exe" > out.txt 2> err.txt; st=$?
  [ "$st" = 0 ] && [ "$(head -1 out.txt | tr -d "$cr")" = "malloc 256 MiB: NULL" ]
  result $? "$exe --max-memory 268435456: the 256 MiB buffer does not fit the budget: NULL (status $st)" "$(head -2 out.txt)"
done
echo "1..$n"
exit $((fail > 0))
