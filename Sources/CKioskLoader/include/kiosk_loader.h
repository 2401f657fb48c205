// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one loader of the libraries opened with dlopen on first use (FFmpeg, libsoxr, libespeak-ng):
// each shim gives its sonames and its functions' pointers; this opens them once, under the
// library's lock, and keeps the first failure's reason for every later caller.
#include <pthread.h>
#include <stddef.h>

/// A function to resolve: its name, and the pointer that receives it.
struct kld_symbol {
    const char *name;
    void **pointer;
};

/// A library and its state. `name` is what messages call it ("libsoxr.so.0", "FFmpeg"); every
/// soname is opened, and each symbol taken from the first that has it. `loaded` (optional) runs
/// once every symbol is resolved, with the handles in `sonames`' order. Define one per shim with
/// KLD_LIBRARY and leave the rest to kld_load.
struct kld_library {
    const char *name;
    const char *const *sonames;
    size_t soname_count;
    const struct kld_symbol *symbols;
    size_t symbol_count;
    void (*loaded)(void *const *handles);
    pthread_mutex_t lock;
    int state;  // 1: loaded, -1: failed (the reason kept), 0: not tried
    char error[256];
};

/// At most this many sonames per library.
#define KLD_MAX_SONAMES 4

#define KLD_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/// A library of `sonames_` and `symbols_` (arrays), with `loaded_` (or NULL) after loading.
#define KLD_LIBRARY(name_, sonames_, symbols_, loaded_)                                                  \
    {.name = (name_), .sonames = (sonames_), .soname_count = KLD_COUNT(sonames_), .symbols = (symbols_), \
     .symbol_count = KLD_COUNT(symbols_), .loaded = (loaded_), .lock = PTHREAD_MUTEX_INITIALIZER}

/// Loads `library` on the first call and resolves every symbol. 0 on success; -1 with the reason in
/// `why` (e.g. "libsoxr.so.0: cannot open shared object file", "FFmpeg has no av_read_frame"), the
/// same on every later call. Thread-safe; the library stays loaded.
int kld_load(struct kld_library *library, char *why, size_t why_size);
