// SPDX-License-Identifier: GPL-3.0-or-later
// Stream sockets for the MPD protocol server: sockaddr juggling and GNU flags Swift cannot reach
// comfortably. Every function returns -1 and sets errno on failure.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// socket(AF_UNIX) + bind(path) + chmod(path, mode) + listen(backlog); non-blocking, close-on-exec.
/// A path longer than sun_path fails with ENAMETOOLONG.
int kiosk_net_listen_unix(const char *path, int backlog, mode_t mode);
/// socket + bind + listen on a numeric IPv4 or IPv6 address and a port; SO_REUSEADDR, IPV6_V6ONLY
/// for IPv6; non-blocking, close-on-exec. An address that is not numeric fails with EINVAL.
int kiosk_net_listen_tcp(const char *address, uint16_t port, int backlog);
/// The port a listening TCP socket is bound to (after binding port 0), or -1.
int kiosk_net_local_port(int fd);
/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC).
int kiosk_net_accept(int fd);
/// send(fd, buffer, length, MSG_NOSIGNAL | MSG_DONTWAIT): a closed peer gives EPIPE, not SIGPIPE.
ssize_t kiosk_net_send(int fd, const void *buffer, size_t length);
/// recv(fd, buffer, length, MSG_DONTWAIT).
ssize_t kiosk_net_receive(int fd, void *buffer, size_t length);
/// The peer's address as text ("127.0.0.1:40000", "[::1]:40000", or "unix"); 0 or -1.
int kiosk_net_peer_name(int fd, char *buffer, size_t size);
/// A blocking connection to a Unix socket (tools and tests), close-on-exec.
int kiosk_net_connect_unix(const char *path);
/// A blocking connection to a numeric address and port (tools and tests), close-on-exec.
int kiosk_net_connect_tcp(const char *address, uint16_t port);
/// setsockopt SO_SNDBUF (send != 0) or SO_RCVBUF to `bytes`.
int kiosk_net_set_buffer_size(int fd, int send, int bytes);
