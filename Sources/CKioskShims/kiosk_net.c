// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include "kiosk_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int fill_unix(struct sockaddr_un *sun, const char *path) {
    memset(sun, 0, sizeof *sun);
    sun->sun_family = AF_UNIX;
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof sun->sun_path) {
        errno = length == 0 ? EINVAL : ENAMETOOLONG;
        return -1;
    }
    memcpy(sun->sun_path, path, length + 1);
    return 0;
}

int kiosk_net_listen_unix(const char *path, int backlog, mode_t mode) {
    struct sockaddr_un sun;
    if (fill_unix(&sun, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0 || chmod(path, mode) != 0 || listen(fd, backlog) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* A numeric IPv4 or IPv6 address and a port; EINVAL for anything else (no name lookups). */
static int fill_inet(struct sockaddr_storage *storage, socklen_t *size, const char *address, uint16_t port) {
    memset(storage, 0, sizeof *storage);
    struct sockaddr_in *in4 = (struct sockaddr_in *)storage;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)storage;
    if (inet_pton(AF_INET, address, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons(port);
        *size = sizeof *in4;
    } else if (inet_pton(AF_INET6, address, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
        *size = sizeof *in6;
    } else {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int kiosk_net_listen_tcp(const char *address, uint16_t port, int backlog) {
    struct sockaddr_storage storage;
    socklen_t size;
    if (fill_inet(&storage, &size, address, port) != 0) return -1;
    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (storage.ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&storage, size) != 0 || listen(fd, backlog) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int kiosk_net_local_port(int fd) {
    struct sockaddr_storage storage;
    socklen_t size = sizeof storage;
    if (getsockname(fd, (struct sockaddr *)&storage, &size) != 0) return -1;
    if (storage.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&storage)->sin_port);
    if (storage.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&storage)->sin6_port);
    errno = EINVAL;
    return -1;
}

int kiosk_net_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

ssize_t kiosk_net_send(int fd, const void *buffer, size_t length) {
    return send(fd, buffer, length, MSG_NOSIGNAL | MSG_DONTWAIT);
}

ssize_t kiosk_net_receive(int fd, void *buffer, size_t length) { return recv(fd, buffer, length, MSG_DONTWAIT); }

int kiosk_net_peer_name(int fd, char *buffer, size_t size) {
    struct sockaddr_storage storage;
    socklen_t length = sizeof storage;
    if (getpeername(fd, (struct sockaddr *)&storage, &length) != 0) return -1;
    char text[INET6_ADDRSTRLEN];
    if (storage.ss_family == AF_INET) {
        struct sockaddr_in *in4 = (struct sockaddr_in *)&storage;
        inet_ntop(AF_INET, &in4->sin_addr, text, sizeof text);
        snprintf(buffer, size, "%s:%u", text, (unsigned)ntohs(in4->sin_port));
    } else if (storage.ss_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&storage;
        inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        snprintf(buffer, size, "[%s]:%u", text, (unsigned)ntohs(in6->sin6_port));
    } else {
        snprintf(buffer, size, "unix");
    }
    return 0;
}

int kiosk_net_connect_unix(const char *path) {
    struct sockaddr_un sun;
    if (fill_unix(&sun, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int kiosk_net_connect_tcp(const char *address, uint16_t port) {
    struct sockaddr_storage storage;
    socklen_t size;
    if (fill_inet(&storage, &size, address, port) != 0) return -1;
    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&storage, size) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int kiosk_net_set_buffer_size(int fd, int send, int bytes) {
    return setsockopt(fd, SOL_SOCKET, send ? SO_SNDBUF : SO_RCVBUF, &bytes, sizeof bytes);
}
