// SPDX-License-Identifier: GPL-3.0-or-later
// dlopen() on first use, for the shims of kiosk_loader.h.
#include "kiosk_loader.h"

#include <dlfcn.h>
#include <stdio.h>

static int load_locked(struct kld_library *library) {
    void *handles[KLD_MAX_SONAMES] = {0};
    if (library->soname_count == 0 || library->soname_count > KLD_MAX_SONAMES) {
        snprintf(library->error, sizeof library->error, "%s: bad loader table", library->name);
        return -1;
    }
    int opened = 1;
    for (size_t i = 0; i < library->soname_count; i++) {
        handles[i] = dlopen(library->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i] && opened) {
            snprintf(library->error, sizeof library->error, "%s", dlerror());
            opened = 0;
        }
    }
    if (!opened) return -1;
    for (size_t s = 0; s < library->symbol_count; s++) {
        const struct kld_symbol *symbol = &library->symbols[s];
        *symbol->pointer = NULL;
        for (size_t i = 0; i < library->soname_count && !*symbol->pointer; i++)
            *symbol->pointer = dlsym(handles[i], symbol->name);
        if (!*symbol->pointer) {
            snprintf(library->error, sizeof library->error, "%s has no %s", library->name, symbol->name);
            return -1;
        }
    }
    if (library->loaded) library->loaded(handles);
    return 1;
}

int kld_load(struct kld_library *library, char *why, size_t why_size) {
    pthread_mutex_lock(&library->lock);
    if (library->state == 0) library->state = load_locked(library);
    int result = library->state;
    pthread_mutex_unlock(&library->lock);
    if (result < 0 && why && why_size > 0) snprintf(why, why_size, "%s", library->error);
    return result > 0 ? 0 : -1;
}
