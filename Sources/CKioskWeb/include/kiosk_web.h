// SPDX-License-Identifier: GPL-3.0-or-later
// The phone page's HTTP server (kiosk-web) on GNU libmicrohttpd: what Swift cannot express or not
// safely, i.e. MHD_start_daemon's variadic options, MHD_get_connection_info (variadic too) and the
// request callback's upload protocol (a per-request pointer set through a pointer to it, the upload
// consumed by writing its size back), with the request body bounded. Every decision about a request
// is made in Swift (Sources/kiosk-web, Sources/KioskWeb).
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct MHD_Daemon;
struct MHD_Connection;
struct MHD_Response;

/// The daemon's limits (docs/architecture.md, "The phone page").
typedef struct kiosk_web_options {
    uint16_t port;
    /// A numeric IPv4 or IPv6 address to bind, or NULL: every address (IPv6 with IPv4 mapped when
    /// the kernel has IPv6, else IPv4 only).
    const char *bind_address;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int timeout_seconds;
    size_t connection_memory_limit;
    size_t thread_stack_size;
    /// A request body longer than this is answered 413 (by its Content-Length, or as it arrives).
    size_t max_body_bytes;
} kiosk_web_options;

/// One request whose body has arrived whole.
typedef struct kiosk_web_request {
    struct MHD_Connection *connection;
    const char *method;
    const char *url;
    const char *body;
    size_t body_length;
    /// The client's numeric address ("192.168.1.20", "fe80::1"; IPv4-mapped IPv6 as IPv4).
    char client[64];
} kiosk_web_request;

/// 1: accept a connection from `address`, 0: close it at once.
typedef int (*kiosk_web_accept_fn)(void *context, const struct sockaddr *address, socklen_t length);
/// The response to `request` (NULL: 500) and its status code.
typedef struct MHD_Response *(*kiosk_web_handler_fn)(
    void *context, const kiosk_web_request *request, unsigned int *status);

/// Starts the daemon (a listening thread, a thread per connection); NULL with errno set on failure.
struct MHD_Daemon *kiosk_web_start(
    const kiosk_web_options *options, kiosk_web_accept_fn accept, kiosk_web_handler_fn handler, void *context);

/// Stops the daemon (waits for its threads).
void kiosk_web_stop(struct MHD_Daemon *daemon);

/// The value of request header `name` (case-insensitive), NULL when absent.
const char *kiosk_web_header(struct MHD_Connection *connection, const char *name);

/// Receives one argument of the request's query (decoded; `value` NULL for a bare `?key`).
typedef void (*kiosk_web_argument_fn)(void *context, const char *key, const char *value);

/// Calls `fn` with each of the first `limit` arguments of the request's query: libmicrohttpd hands
/// the URL's path alone and keeps the query's arguments apart.
void kiosk_web_arguments(struct MHD_Connection *connection, unsigned int limit, kiosk_web_argument_fn fn, void *context);

/// A response holding a copy of `size` bytes at `data`.
struct MHD_Response *kiosk_web_response_copy(const void *data, size_t size);

/// The numeric form of `address` into `out` ("" when it is neither IPv4 nor IPv6); IPv4-mapped IPv6
/// addresses as IPv4.
void kiosk_web_address_text(const struct sockaddr *address, char *out, size_t size);
