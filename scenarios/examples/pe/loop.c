/* loop.c — a counting loop: spin(n) runs `dec; jnz` n times (scenarios/tests/pe.sh derives the
 * counts from the built image's disassembly). */
#include <stdlib.h>

__attribute__((noinline)) static unsigned spin(unsigned n) {
    __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
    return n;
}

int main(int argc, char **argv) { return (int)spin(argc > 1 ? (unsigned)atoi(argv[1]) : 1u); }
