// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_web.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

/// What the daemon's callbacks need.
typedef struct kiosk_web_daemon_context {
    kiosk_web_accept_fn accept;
    kiosk_web_handler_fn handler;
    void *context;
    size_t max_body_bytes;
} kiosk_web_daemon_context;

/// A request's body as it arrives (the callback's per-request pointer).
typedef struct kiosk_web_body {
    char *data;
    size_t length;
    int too_large;
} kiosk_web_body;

static kiosk_web_daemon_context daemon_context;

static const char too_large_text[] = "request too large\n";

static enum MHD_Result queue_text(struct MHD_Connection *connection, unsigned int status, const char *text) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

void kiosk_web_address_text(const struct sockaddr *address, char *out, size_t size) {
    if (size == 0) return;
    out[0] = 0;
    if (address == NULL) return;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, out, (socklen_t)size);
    } else if (address->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)address)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a)) {
            inet_ntop(AF_INET, &a->s6_addr[12], out, (socklen_t)size);
        } else {
            inet_ntop(AF_INET6, a, out, (socklen_t)size);
        }
    }
}

static enum MHD_Result on_accept(void *cls, const struct sockaddr *address, socklen_t length) {
    kiosk_web_daemon_context *c = cls;
    return c->accept(c->context, address, length) ? MHD_YES : MHD_NO;
}

static enum MHD_Result on_request(
    void *cls, struct MHD_Connection *connection, const char *url, const char *method, const char *version,
    const char *upload_data, size_t *upload_data_size, void **request_state) {
    (void)version;
    kiosk_web_daemon_context *c = cls;
    kiosk_web_body *body = *request_state;
    if (body == NULL) {
        // First call: the headers. A declared length over the bound is refused before any byte.
        const char *declared = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (declared != NULL) {
            char *end = NULL;
            errno = 0;
            unsigned long long n = strtoull(declared, &end, 10);
            if (errno != 0 || end == declared || n > c->max_body_bytes) {
                return queue_text(connection, MHD_HTTP_CONTENT_TOO_LARGE, too_large_text);
            }
        }
        body = calloc(1, sizeof *body);
        if (body == NULL) return MHD_NO;
        *request_state = body;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        // A chunked body has no declared length: bounded as it arrives.
        if (!body->too_large && body->length + *upload_data_size <= c->max_body_bytes) {
            char *grown = realloc(body->data, body->length + *upload_data_size + 1);
            if (grown == NULL) return MHD_NO;
            body->data = grown;
            memcpy(body->data + body->length, upload_data, *upload_data_size);
            body->length += *upload_data_size;
            body->data[body->length] = 0;
        } else {
            body->too_large = 1;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (body->too_large) return queue_text(connection, MHD_HTTP_CONTENT_TOO_LARGE, too_large_text);
    kiosk_web_request request = {
        .connection = connection, .method = method, .url = url, .body = body->data, .body_length = body->length,
    };
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    kiosk_web_address_text(info != NULL ? info->client_addr : NULL, request.client, sizeof request.client);
    unsigned int status = 500;
    struct MHD_Response *response = c->handler(c->context, &request, &status);
    if (response == NULL) return queue_text(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error\n");
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

static void on_completed(
    void *cls, struct MHD_Connection *connection, void **request_state, enum MHD_RequestTerminationCode code) {
    (void)cls;
    (void)connection;
    (void)code;
    kiosk_web_body *body = *request_state;
    if (body == NULL) return;
    free(body->data);
    free(body);
    *request_state = NULL;
}

struct MHD_Daemon *kiosk_web_start(
    const kiosk_web_options *options, kiosk_web_accept_fn accept, kiosk_web_handler_fn handler, void *context) {
    daemon_context = (kiosk_web_daemon_context){
        .accept = accept, .handler = handler, .context = context, .max_body_bytes = options->max_body_bytes,
    };
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL
        | MHD_USE_ERROR_LOG;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *bind_to = NULL;
    if (options->bind_address != NULL) {
        memset(&v4, 0, sizeof v4);
        memset(&v6, 0, sizeof v6);
        if (inet_pton(AF_INET, options->bind_address, &v4.sin_addr) == 1) {
            v4.sin_family = AF_INET;
            v4.sin_port = htons(options->port);
            bind_to = (const struct sockaddr *)&v4;
        } else if (inet_pton(AF_INET6, options->bind_address, &v6.sin6_addr) == 1) {
            v6.sin6_family = AF_INET6;
            v6.sin6_port = htons(options->port);
            bind_to = (const struct sockaddr *)&v6;
            flags |= MHD_USE_IPv6;
        } else {
            errno = EINVAL;
            return NULL;
        }
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        // Every address: IPv6 with IPv4 mapped first, IPv4 alone where the kernel has no IPv6.
        unsigned int these = flags | (bind_to == NULL && attempt == 0 ? MHD_USE_DUAL_STACK : 0);
        struct MHD_Daemon *d = MHD_start_daemon(
            these, options->port, on_accept, &daemon_context, on_request, &daemon_context,
            MHD_OPTION_CONNECTION_LIMIT, options->connection_limit,
            MHD_OPTION_PER_IP_CONNECTION_LIMIT, options->per_ip_connection_limit,
            MHD_OPTION_CONNECTION_TIMEOUT, options->timeout_seconds,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, options->connection_memory_limit,
            MHD_OPTION_THREAD_STACK_SIZE, options->thread_stack_size,
            MHD_OPTION_NOTIFY_COMPLETED, on_completed, &daemon_context,
            MHD_OPTION_SOCK_ADDR, bind_to,
            MHD_OPTION_END);
        if (d != NULL || bind_to != NULL) return d;
    }
    return NULL;
}

const char *kiosk_web_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

struct argument_visit {
    kiosk_web_argument_fn fn;
    void *context;
    unsigned int left;
};

static enum MHD_Result visit_argument(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct argument_visit *visit = cls;
    if (visit->left == 0) return MHD_NO;
    visit->left--;
    visit->fn(visit->context, key, value);
    return MHD_YES;
}

void kiosk_web_arguments(
    struct MHD_Connection *connection, unsigned int limit, kiosk_web_argument_fn fn, void *context) {
    struct argument_visit visit = {fn, context, limit};
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, visit_argument, &visit);
}

struct MHD_Response *kiosk_web_response_copy(const void *data, size_t size) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

void kiosk_web_stop(struct MHD_Daemon *daemon) {
    if (daemon != NULL) MHD_stop_daemon(daemon);
}
