#include "run_host.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int run_host_ipv4(uint32_t *addr)
{
    char name[256];
    *addr = INADDR_LOOPBACK;
    if (gethostname(name, sizeof(name)) != 0)
        snprintf(name, sizeof(name), "localhost");
    name[sizeof(name) - 1] = '\0';
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    if (getaddrinfo(name, NULL, &hints, &ai) != 0 || !ai)
        return -1;
    *addr = ntohl(((const struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr);
    freeaddrinfo(ai);
    return 0;
}

void run_host_position(char *buf, size_t cap, const char *unresolved)
{
    uint32_t addr;
    if (run_host_ipv4(&addr) != 0) {
        snprintf(buf, cap, "%s", unresolved);
        return;
    }
    struct in_addr in = {.s_addr = htonl(addr)};
    char ip[INET_ADDRSTRLEN];
    if (inet_ntop(AF_INET, &in, ip, sizeof(ip)))
        snprintf(buf, cap, "%s/net", ip);
    else
        snprintf(buf, cap, "%s", unresolved);
}

void run_host_user(char *buf, size_t cap)
{
    struct passwd pw, *found = NULL;
    char tmp[1024];
    const char *name = NULL;
    if (getpwuid_r(geteuid(), &pw, tmp, sizeof(tmp), &found) == 0 && found && found->pw_name &&
        *found->pw_name)
        name = found->pw_name;
    else
        name = getenv("USER");
    snprintf(buf, cap, "%s", name && *name ? name : "user");
}
