/*
 * pv_host: who this process is, for the login messages of the provider tools: the Position
 * the ETA tools send ("<IPv4 of the host name>/net", "localhost" when the host name does not
 * resolve) and the default user name (the system login name).
 */
#ifndef RWFPERF_PV_HOST_H
#define RWFPERF_PV_HOST_H

#include <stddef.h>

/* Writes the Position into buf (cap bytes, always NUL-terminated). */
void pv_host_position(char *buf, size_t cap);

/* Writes the login name of the user running the process ("user" when unknown). */
void pv_host_user(char *buf, size_t cap);

#endif
