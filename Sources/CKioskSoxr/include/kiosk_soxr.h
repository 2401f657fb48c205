// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// libsoxr loaded with dlopen() by the first resampler, not linked: a device that takes the stream's
// rate (the common case, and every bit-perfect one) never needs it, and it brings libgomp (OpenMP)
// along: together ~360 KB of RSS and two more libraries to relocate at every start. The header is
// soxr's own (Debian's libsoxr-dev, build time only); the soname loaded is that of its ABI,
// libsoxr.so.0. `kso_load` must succeed before any kso_ call.
#include <soxr.h>
#include <stddef.h>

/// The soname `kso_load` opens (for messages).
#define KSO_SONAME "libsoxr.so.0"

/// Loads libsoxr and resolves every function below. 0 on success; -1 with the reason in `why`
/// (e.g. "libsoxr.so.0: cannot open shared object file"). Thread-safe; the library stays loaded.
int kso_load(char *why, size_t why_size);

soxr_io_spec_t kso_soxr_io_spec(soxr_datatype_t itype, soxr_datatype_t otype);
soxr_quality_spec_t kso_soxr_quality_spec(unsigned long recipe, unsigned long flags);
soxr_t kso_soxr_create(
    double input_rate, double output_rate, unsigned num_channels, soxr_error_t *error, soxr_io_spec_t const *io_spec,
    soxr_quality_spec_t const *quality_spec, soxr_runtime_spec_t const *runtime_spec);
soxr_error_t kso_soxr_process(
    soxr_t resampler, soxr_in_t in, size_t ilen, size_t *idone, soxr_out_t out, size_t olen, size_t *odone);
double kso_soxr_delay(soxr_t resampler);
soxr_error_t kso_soxr_clear(soxr_t resampler);
void kso_soxr_delete(soxr_t resampler);
