#include "pv_host.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void pv_host_position(char *buf, size_t cap)
{
    char host[256];
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    if (getaddrinfo(host, NULL, &hints, &res) == 0 && res) {
        char ip[INET_ADDRSTRLEN];
        const struct sockaddr_in *sin = (const struct sockaddr_in *)res->ai_addr;
        if (inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip))) {
            snprintf(buf, cap, "%s/net", ip);
            freeaddrinfo(res);
            return;
        }
    }
    if (res)
        freeaddrinfo(res);
    snprintf(buf, cap, "localhost");
}

void pv_host_user(char *buf, size_t cap)
{
    const struct passwd *pw = getpwuid(geteuid());
    const char *name = pw && pw->pw_name && *pw->pw_name ? pw->pw_name : getenv("USER");
    snprintf(buf, cap, "%s", name && *name ? name : "user");
}
