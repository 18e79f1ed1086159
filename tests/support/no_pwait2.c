/*
 * no_pwait2: runs a program as on a kernel without epoll_pwait2 (Linux before 5.11).
 *
 *   no_pwait2 PROGRAM [ARG...]
 *
 * Installs a seccomp filter under which the epoll_pwait2 system call fails with ENOSYS, then
 * executes PROGRAM with its arguments; the filter stays in force across the exec. Exit status:
 * PROGRAM's, 77 (skipped) where the filter cannot be installed or the system call has no number
 * in these headers, 2 on a usage error, 127 when PROGRAM cannot be executed.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: no_pwait2 PROGRAM [ARG...]\n");
        return 2;
    }
#if defined(__NR_epoll_pwait2) && defined(__x86_64__)
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_epoll_pwait2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog fprog = {.len = sizeof(prog) / sizeof(prog[0]), .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
        fprintf(stderr, "no_pwait2: SKIP: cannot install a seccomp filter: %s\n", strerror(errno));
        return 77;
    }
    execv(argv[1], argv + 1);
    fprintf(stderr, "no_pwait2: cannot execute %s: %s\n", argv[1], strerror(errno));
    return 127;
#else
    fprintf(stderr, "no_pwait2: SKIP: epoll_pwait2 has no x86-64 number in these headers\n");
    return 77;
#endif
}
