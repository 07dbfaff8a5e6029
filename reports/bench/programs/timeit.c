/* timeit.c — runs one command and prints its wall, user and system time in microseconds and its
 * exit status ("WALL USER SYS STATUS"), as reports/bench/programs.sh needs them: the child's own
 * resource usage (wait4), not the shell's.  Usage: timeit OUTFILE COMMAND [ARGS...]; the
 * command's stdout goes to OUTFILE, its stderr stays. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long us(struct timeval tv) { return (long long)tv.tv_sec * 1000000 + tv.tv_usec; }

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: timeit OUTFILE COMMAND [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0) _exit(126);
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid) return 2;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long wall = (long long)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
    printf("%lld %lld %lld %d\n", wall, us(ru.ru_utime), us(ru.ru_stime), WIFEXITED(st) ? WEXITSTATUS(st) : 128);
    return 0;
}
