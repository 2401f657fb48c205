// dlopen() of libespeak-ng: see kiosk_espeak.h for why.
#include "kiosk_espeak.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// One pointer per function, filled by kes_load; each kes_ function calls through its pointer.
#define KES_FUNCTIONS(X)                                                                                   \
    X(espeak_Initialize, int, (espeak_AUDIO_OUTPUT a, int b, const char *c, int d), (a, b, c, d))         \
    X(espeak_SetSynthCallback, void, (t_espeak_callback * a), (a))                                         \
    X(espeak_Synth, espeak_ERROR,                                                                          \
      (const void *a, size_t b, unsigned int c, espeak_POSITION_TYPE d, unsigned int e, unsigned int f,     \
       unsigned int *g, void *h),                                                                          \
      (a, b, c, d, e, f, g, h))                                                                            \
    X(espeak_SetVoiceByName, espeak_ERROR, (const char *a), (a))

#define KES_POINTER(name, ret, params, args) static ret(*p_##name) params;
KES_FUNCTIONS(KES_POINTER)

#define KES_WRAPPER(name, ret, params, args) \
    ret kes_##name params { return p_##name args; }
KES_FUNCTIONS(KES_WRAPPER)

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;  // 1: loaded, -1: failed (the reason kept), 0: not tried
static char load_error[256];

static int load_locked(void) {
    void *handle = dlopen(KES_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return -1;
    }
#define KES_RESOLVE(name, ret, params, args)                                   \
    *(void **)&p_##name = dlsym(handle, #name);                                 \
    if (!p_##name) {                                                            \
        snprintf(load_error, sizeof load_error, KES_SONAME " has no %s", #name); \
        return -1;                                                              \
    }
    KES_FUNCTIONS(KES_RESOLVE)
    return 1;
}

int kes_load(char *why, size_t why_size) {
    pthread_mutex_lock(&load_lock);
    if (loaded == 0) loaded = load_locked();
    int result = loaded;
    pthread_mutex_unlock(&load_lock);
    if (result < 0 && why && why_size > 0) snprintf(why, why_size, "%s", load_error);
    return result > 0 ? 0 : -1;
}
