// SPDX-License-Identifier: GPL-3.0-or-later
// dlopen() of libespeak-ng: see kiosk_espeak.h for why.
#include "kiosk_espeak.h"

#include "kiosk_loader.h"

// One pointer per function, filled by kes_load; each kes_ function calls through its pointer.
#define KES_FUNCTIONS(X)                                                                                   \
    X(espeak_Initialize, int, (espeak_AUDIO_OUTPUT a, int b, const char *c, int d), (a, b, c, d))         \
    X(espeak_SetSynthCallback, void, (t_espeak_callback * a), (a))                                         \
    X(espeak_Synth, espeak_ERROR,                                                                          \
      (const void *a, size_t b, unsigned int c, espeak_POSITION_TYPE d, unsigned int e, unsigned int f,     \
       unsigned int *g, void *h),                                                                          \
      (a, b, c, d, e, f, g, h))                                                                            \
    X(espeak_SetVoiceByName, espeak_ERROR, (const char *a), (a))                                          \
    X(espeak_Info, const char *, (const char **a), (a))

#define KES_POINTER(name, ret, params, args) static ret(*p_##name) params;
KES_FUNCTIONS(KES_POINTER)

#define KES_WRAPPER(name, ret, params, args) \
    ret kes_##name params { return p_##name args; }
KES_FUNCTIONS(KES_WRAPPER)

#define KES_SYMBOL(name, ret, params, args) {#name, (void **)&p_##name},
static const struct kld_symbol symbols[] = {KES_FUNCTIONS(KES_SYMBOL)};
static const char *const sonames[] = {KES_SONAME};
static struct kld_library library = KLD_LIBRARY(KES_SONAME, sonames, symbols, NULL);

int kes_load(char *why, size_t why_size) { return kld_load(&library, why, why_size); }
