// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tags and embedded pictures of music files through TagLib, behind a C interface Swift can call.
// `format` is KioskAudio's AudioFileFormat raw value (1 FLAC, 2 MP3, 3 Ogg Vorbis, 4 Opus, 5 WAV,
// 6 AIFF, 7 MP4): the file is opened as that format, found by content, never by its name.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What one file's tag reading may cost, and what it refused. TagLib inflates every compressed ID3v2
/// frame whole (to the end of the zlib stream, whatever the frame's data-length indicator says), so
/// the budget is kept at the one door it inflates through: zlib's `inflate`, which this library
/// interposes (a call past `max_inflated_bytes` fails as damaged data, and TagLib drops that frame).
typedef struct kiosk_tag_budget {
    /// Bytes all compressed frames of the file may inflate to, together.
    unsigned long max_inflated_bytes;
    /// Out: zlib streams refused because they would have inflated past the budget.
    unsigned long refused_streams;
    /// Out: bytes inflated (within the budget).
    unsigned long inflated_bytes;
} kiosk_tag_budget;

/// Receives one property (TagLib's unified names: TITLE, ARTIST, ALBUMARTIST, TRACKNUMBER …),
/// both UTF-8 and NUL-terminated, one call per value.
typedef void (*kiosk_tag_property)(void *context, const char *key, const char *value);

/// Reads the tags of `path`. Returns 0 when TagLib could parse the file, -1 when not.
/// `*picture_bytes` is set to the size of the front cover (or first picture), 0 when none.
int kiosk_tags_read(
    const char *path, int format, kiosk_tag_budget *budget, kiosk_tag_property property, void *context,
    long *picture_bytes);

/// The front cover (else the first picture) of `path`, when at most `max_bytes` long: copied into
/// a malloc'd buffer at `*data` (the caller frees it) with its MIME type in `mime` (may be "").
/// Returns its size, 0 when there is none, -1 when it is larger than `max_bytes`.
long kiosk_tags_picture(
    const char *path, int format, kiosk_tag_budget *budget, long max_bytes, unsigned char **data, char *mime,
    size_t mime_size);

/// Whether this process's zlib `inflate` is the budgeted one (false if the linker did not let it
/// interpose zlib's, e.g. in a statically linked TagLib: the budget would then not hold).
int kiosk_tags_inflate_is_budgeted(void);

/// TagLib's major version (1 on Debian bookworm, 2 on trixie).
int kiosk_tags_major_version(void);

#ifdef __cplusplus
}
#endif
