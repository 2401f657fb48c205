// SPDX-License-Identifier: GPL-3.0-or-later
// libasound calls that Swift cannot make itself: the local error handler takes a va_list, and a
// Swift closure of that type crashes Debian's Swift 6.0.3 on aarch64 (SILGen), so it lives here.
#pragma once

/// Opens the ALSA PCM `device` for playback (non-blocking) and closes it at once, with libasound's
/// own messages silenced for this thread while it tries. 0 when it opened, else the negative errno.
int kiosk_alsa_probe_playback(const char *device);

/// Silences libasound's own messages for this thread (quiet != 0) or restores the handler it had, so
/// a caller that reports ALSA's errors itself (`kiosk-player doctor`) prints each once, its own way.
void kiosk_alsa_set_quiet(int quiet);
