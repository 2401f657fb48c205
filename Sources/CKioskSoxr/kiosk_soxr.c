// dlopen() of libsoxr: see kiosk_soxr.h for why.
#include "kiosk_soxr.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// One pointer per function, filled by kso_load; each kso_ function calls through its pointer.
#define KSO_FUNCTIONS(X)                                                                                \
    X(soxr_io_spec, soxr_io_spec_t, (soxr_datatype_t a, soxr_datatype_t b), (a, b))                    \
    X(soxr_quality_spec, soxr_quality_spec_t, (unsigned long a, unsigned long b), (a, b))              \
    X(soxr_create, soxr_t,                                                                              \
      (double a, double b, unsigned c, soxr_error_t *d, soxr_io_spec_t const *e,                        \
       soxr_quality_spec_t const *f, soxr_runtime_spec_t const *g),                                     \
      (a, b, c, d, e, f, g))                                                                            \
    X(soxr_process, soxr_error_t,                                                                       \
      (soxr_t a, soxr_in_t b, size_t c, size_t *d, soxr_out_t e, size_t f, size_t *g), (a, b, c, d, e, f, g)) \
    X(soxr_delay, double, (soxr_t a), (a))                                                              \
    X(soxr_clear, soxr_error_t, (soxr_t a), (a))                                                        \
    X(soxr_delete, void, (soxr_t a), (a))

#define KSO_POINTER(name, ret, params, args) static ret(*p_##name) params;
KSO_FUNCTIONS(KSO_POINTER)

#define KSO_WRAPPER(name, ret, params, args) \
    ret kso_##name params { return p_##name args; }
KSO_FUNCTIONS(KSO_WRAPPER)

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;  // 1: loaded, -1: failed (the reason kept), 0: not tried
static char load_error[256];

static int load_locked(void) {
    void *handle = dlopen(KSO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return -1;
    }
#define KSO_RESOLVE(name, ret, params, args)                                   \
    *(void **)&p_##name = dlsym(handle, #name);                                 \
    if (!p_##name) {                                                            \
        snprintf(load_error, sizeof load_error, KSO_SONAME " has no %s", #name); \
        return -1;                                                              \
    }
    KSO_FUNCTIONS(KSO_RESOLVE)
    return 1;
}

int kso_load(char *why, size_t why_size) {
    pthread_mutex_lock(&load_lock);
    if (loaded == 0) loaded = load_locked();
    int result = loaded;
    pthread_mutex_unlock(&load_lock);
    if (result < 0 && why && why_size > 0) snprintf(why, why_size, "%s", load_error);
    return result > 0 ? 0 : -1;
}
