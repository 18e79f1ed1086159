/*
 * ts_netns: a private network namespace for tests that use multicast, so that they never
 * touch the host's interfaces. ts_netns_enter() moves the calling process (call it before
 * starting threads) into a new network namespace, brings its loopback up with multicast on
 * and routes 224.0.0.0/4 to it: the namespace ends with the process, nothing to clean up.
 * It needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN).
 *
 * Header-only, so that fuzz targets (which do not link the test support library) can use it.
 */
#ifndef RWFPERF_TS_NETNS_H
#define RWFPERF_TS_NETNS_H

#include <errno.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Enters a new network namespace with lo up, multicast on, and 224.0.0.0/4 routed to lo.
 * Returns 0, or -1 with the reason in why. */
static inline int ts_netns_enter(char *why, size_t cap)
{
    if (unshare(CLONE_NEWNET) < 0) {
        snprintf(why, cap, "cannot create a network namespace (unshare: %s); it needs root",
                 strerror(errno));
        return -1;
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        snprintf(why, cap, "socket: %s", strerror(errno));
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
        snprintf(why, cap, "reading the flags of lo: %s", strerror(errno));
        close(fd);
        return -1;
    }
    ifr.ifr_flags |= IFF_UP | IFF_MULTICAST;
    if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
        snprintf(why, cap, "bringing lo up: %s", strerror(errno));
        close(fd);
        return -1;
    }
    struct rtentry rt;
    memset(&rt, 0, sizeof(rt));
    struct sockaddr_in *dst = (struct sockaddr_in *)&rt.rt_dst;
    struct sockaddr_in *mask = (struct sockaddr_in *)&rt.rt_genmask;
    dst->sin_family = mask->sin_family = AF_INET;
    dst->sin_addr.s_addr = htonl(0xE0000000u);  /* 224.0.0.0 */
    mask->sin_addr.s_addr = htonl(0xF0000000u); /* /4 */
    rt.rt_flags = RTF_UP;
    rt.rt_dev = ifr.ifr_name;
    if (ioctl(fd, SIOCADDRT, &rt) < 0 && errno != EEXIST) {
        snprintf(why, cap, "routing 224.0.0.0/4 to lo: %s", strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

/* ts_netns_enter(), or prints "SKIP: <why>" and exits with 77 (ctest's "skipped"). */
static inline void ts_netns_enter_or_skip(void)
{
    char why[256];
    if (ts_netns_enter(why, sizeof(why)) < 0) {
        printf("SKIP: multicast tests run in a private network namespace: %s\n", why);
        fflush(stdout);
        exit(77);
    }
}

#endif
