// SPDX-License-Identifier: GPL-3.0-or-later
// dlopen() of libsoxr: see kiosk_soxr.h for why.
#include "kiosk_soxr.h"

#include "kiosk_loader.h"

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

#define KSO_SYMBOL(name, ret, params, args) {#name, (void **)&p_##name},
static const struct kld_symbol symbols[] = {KSO_FUNCTIONS(KSO_SYMBOL)};
static const char *const sonames[] = {KSO_SONAME};
static struct kld_library library = KLD_LIBRARY(KSO_SONAME, sonames, symbols, NULL);

int kso_load(char *why, size_t why_size) { return kld_load(&library, why, why_size); }
