/*
 * run_host: who this process is, for the login messages and post user information of the
 * tools: the host's IPv4 address (its name resolved), the Position the ETA tools send
 * ("<IPv4>/net") and the default user name (the system login name).
 */
#ifndef RWFPERF_RUN_HOST_H
#define RWFPERF_RUN_HOST_H

#include <stddef.h>
#include <stdint.h>

/* The IPv4 address this host's name resolves to, host order, into *addr. Returns 0, or -1 when
 * the name does not resolve (*addr is then 127.0.0.1). */
int run_host_ipv4(uint32_t *addr);

/* Writes the Position into buf (cap bytes, always NUL-terminated): "<IPv4>/net", or
 * `unresolved` when the host name does not resolve (the providers send "localhost", ConsPerf
 * "localhost/net"). */
void run_host_position(char *buf, size_t cap, const char *unresolved);

/* Writes the login name of the user running the process ($USER, then "user" when unknown).
 * Safe in any thread. */
void run_host_user(char *buf, size_t cap);

#endif
