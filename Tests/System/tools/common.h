// SPDX-License-Identifier: GPL-3.0-or-later
/* Shared helpers of the system test's guest tools. Header-only: each tool is one .c file. */
#pragma once
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *tool_name = "tool";

__attribute__((noreturn, format(printf, 1, 2))) static inline void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", tool_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static inline long parse_long(const char *text, const char *what) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 0);
    if (errno != 0 || end == text || *end != '\0') die("%s: not a number: '%s'", what, text);
    return value;
}

static inline void sleep_ms(double ms) {
    if (ms <= 0) return;
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Event code names (KEY_PLAYPAUSE, BTN_LEFT, REL_X, ...) come from the kernel's UAPI header at run
 * time, so every name the kernel knows works without a table here. */
#define EVENT_CODES_HEADER "/usr/include/linux/input-event-codes.h"

static inline int code_lookup_depth(const char *name, int depth) {
    if (depth > 4) return -1;
    FILE *f = fopen(EVENT_CODES_HEADER, "r");
    if (!f) return -1;
    char line[512], def_name[128], value[128];
    int result = -1;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "#define %127s %127s", def_name, value) != 2) continue;
        if (strcmp(def_name, name) != 0) continue;
        char *end = NULL;
        long v = strtol(value, &end, 0);
        result = (end != value && *end == '\0') ? (int)v : code_lookup_depth(value, depth + 1);
        break;
    }
    fclose(f);
    return result;
}

/* Returns the code for a name like KEY_PLAYPAUSE or a number, or -1. */
static inline int code_from_name(const char *name) {
    if (name[0] >= '0' && name[0] <= '9') return (int)parse_long(name, "event code");
    return code_lookup_depth(name, 0);
}

/* Writes the name for a code with the given prefix ("KEY_", "REL_") into buf, or the number. */
static inline const char *code_to_name(int code, const char *prefix, char *buf, size_t size) {
    snprintf(buf, size, "%d", code);
    FILE *f = fopen(EVENT_CODES_HEADER, "r");
    if (!f) return buf;
    char line[512], def_name[128], value[128];
    size_t plen = strlen(prefix);
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "#define %127s %127s", def_name, value) != 2) continue;
        if (strncmp(def_name, prefix, plen) != 0) continue;
        char *end = NULL;
        long v = strtol(value, &end, 0);
        if (end != value && *end == '\0' && v == code && strstr(def_name, "_MAX") == NULL &&
            strstr(def_name, "_CNT") == NULL) {
            snprintf(buf, size, "%s", def_name);
            break;
        }
    }
    fclose(f);
    return buf;
}
