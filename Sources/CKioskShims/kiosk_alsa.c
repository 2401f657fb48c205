// SPDX-License-Identifier: GPL-3.0-or-later
#include "kiosk_alsa.h"

#include <alsa/asoundlib.h>

static void kiosk_alsa_silent(const char *file, int line, const char *function, int err, const char *fmt,
                              va_list arg) {
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    (void)fmt;
    (void)arg;
}

int kiosk_alsa_probe_playback(const char *device) {
    snd_local_error_handler_t previous = snd_lib_error_set_local(kiosk_alsa_silent);
    snd_pcm_t *pcm = NULL;
    int rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);
    if (rc >= 0) snd_pcm_close(pcm);
    snd_lib_error_set_local(previous);
    return rc < 0 ? rc : 0;
}

void kiosk_alsa_set_quiet(int quiet) {
    // Per thread, like snd_lib_error_set_local itself: the doctor's queries only.
    static __thread snd_local_error_handler_t saved;
    static __thread int active;
    if (quiet && !active) {
        saved = snd_lib_error_set_local(kiosk_alsa_silent);
        active = 1;
    } else if (!quiet && active) {
        snd_lib_error_set_local(saved);
        active = 0;
    }
}
