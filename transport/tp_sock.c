/* Socket plumbing shared by clients and servers: name resolution, socket options, the
 * non-blocking connect, the listening socket. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tp_int.h"

int tp_sock_resolve(const char *host, const char *port, struct sockaddr_in *out)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (!host)
        hints.ai_flags = AI_PASSIVE;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0 || !res) {
        err_set("cannot resolve %s:%s: %s", host ? host : "*", port,
                rc ? gai_strerror(rc) : "no address");
        /* A name (or service) the resolver says does not exist stays so: final. A resolver
         * that could not answer now (EAI_AGAIN), or ran out of memory, may answer later. */
        if (rc == EAI_NONAME || rc == EAI_SERVICE || rc == EAI_FAIL || rc == 0
#ifdef EAI_NODATA
            || rc == EAI_NODATA
#endif
#ifdef EAI_ADDRFAMILY
            || rc == EAI_ADDRFAMILY
#endif
        )
            err_final();
        return -1;
    }
    memcpy(out, res->ai_addr, sizeof(*out));
    freeaddrinfo(res);
    return 0;
}

/* strict: fail when an option cannot be set (TCP sockets); adopted sockets may be of another
 * family and ignore TCP_NODELAY errors. */
int tp_sock_options(int fd, const tp_opts *o, int strict)
{
    int one = 1;
    if (o->tcp_nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 && strict)
        return err_set_errno(errno, "setsockopt(TCP_NODELAY)");
    if (o->sndbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o->sndbuf, sizeof(int)) < 0)
        return err_set_errno(errno, "setsockopt(SO_SNDBUF, %d)", o->sndbuf);
    if (o->rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf, sizeof(int)) < 0)
        return err_set_errno(errno, "setsockopt(SO_RCVBUF, %d)", o->rcvbuf);
    return 0;
}

/* A hint for the kernel: a socket that refuses it works as before, so errors are ignored. */
void tp_sock_notsent_lowat(int fd)
{
    int lowat = TP_NOTSENT_LOWAT;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat));
}

int tp_sock_connect(tp_channel *ch)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_set_errno(errno, "socket()");
    if (tp_sock_options(fd, &ch->o, 1) < 0) {
        close(fd);
        return -1;
    }
    if (ch->o.interface) {
        struct sockaddr_in local;
        if (tp_sock_resolve(ch->o.interface, "0", &local) < 0) {
            close(fd);
            return err_push("interface");
        }
        if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0) {
            int e = errno;
            close(fd);
            return err_set_errno(e, "cannot bind to interface %s", ch->o.interface);
        }
    }
    if (connect(fd, (struct sockaddr *)&ch->addr, sizeof(ch->addr)) < 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        return err_set_errno(e, "connect to %s:%s", ch->host[0] ? ch->host : "localhost", ch->port);
    }
    ch->fd = fd;
    return 0;
}

int tp_sock_bind(tp_server *s)
{
    struct sockaddr_in addr;
    if (tp_sock_resolve(s->o.interface, s->o.port, &addr) < 0)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_set_errno(errno, "socket()");
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    /* buffer sizes set on the listener are inherited by accepted sockets (and take effect
     * before the window is negotiated) */
    if (s->o.sndbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &s->o.sndbuf, sizeof(int));
    if (s->o.rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &s->o.rcvbuf, sizeof(int));
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
        int e = errno;
        close(fd);
        return err_set_errno(e, "cannot bind %s:%s", s->o.interface ? s->o.interface : "*",
                             s->o.port);
    }
    if (listen(fd, 128) < 0) {
        int e = errno;
        close(fd);
        return err_set_errno(e, "listen()");
    }
    socklen_t len = sizeof(addr);
    if (getsockname(fd, (struct sockaddr *)&addr, &len) == 0)
        s->port = ntohs(addr.sin_port);
    s->fd = fd;
    return 0;
}

int tp_sock_local_ip(int fd, char *ip, size_t cap)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    ip[0] = 0;
    if (getsockname(fd, (struct sockaddr *)&a, &len) < 0 || a.sin_family != AF_INET)
        return -1;
    if (!inet_ntop(AF_INET, &a.sin_addr, ip, (socklen_t)cap))
        return -1;
    return 0;
}

int tp_sock_peer(int fd, char *ip, size_t cap, uint16_t *port)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    snprintf(ip, cap, "?");
    *port = 0;
    if (getpeername(fd, (struct sockaddr *)&a, &len) < 0 || a.sin_family != AF_INET)
        return -1;
    if (!inet_ntop(AF_INET, &a.sin_addr, ip, (socklen_t)cap))
        return -1;
    *port = ntohs(a.sin_port);
    return 0;
}
