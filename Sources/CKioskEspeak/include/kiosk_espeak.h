// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// libespeak-ng loaded with dlopen() by the first prompt, not linked: it brings libpcaudio and through
// it PulseAudio, X11/xcb, D-Bus, libsndfile, LAME, libsystemd and libgcrypt (some thirty libraries,
// ~7 MB of RSS and their relocations at every start) to a player that speaks only when speech is on.
// The header is espeak-ng's own (Debian's libespeak-ng-dev, build time only); the soname loaded is
// that of its ABI, libespeak-ng.so.1. `kes_load` must succeed before any kes_ call.
#include <espeak-ng/speak_lib.h>
#include <stddef.h>

/// The soname `kes_load` opens (for messages).
#define KES_SONAME "libespeak-ng.so.1"

/// Loads libespeak-ng and resolves every function below. 0 on success; -1 with the reason in `why`
/// (e.g. "libespeak-ng.so.1: cannot open shared object file"). Thread-safe; the library stays loaded.
int kes_load(char *why, size_t why_size);

int kes_espeak_Initialize(espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options);
void kes_espeak_SetSynthCallback(t_espeak_callback *callback);
espeak_ERROR kes_espeak_Synth(
    const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
    unsigned int end_position, unsigned int flags, unsigned int *unique_identifier, void *user_data);
espeak_ERROR kes_espeak_SetVoiceByName(const char *name);
const char *kes_espeak_Info(const char **path_data);
