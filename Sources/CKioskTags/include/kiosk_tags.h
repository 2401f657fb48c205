#pragma once
// Tags and embedded pictures of music files through TagLib, behind a C interface Swift can call.
// `format` is KioskAudio's AudioFileFormat raw value (1 FLAC, 2 MP3, 3 Ogg Vorbis, 4 Opus, 5 WAV,
// 6 AIFF, 7 MP4): the file is opened as that format, found by content, never by its name.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Receives one property (TagLib's unified names: TITLE, ARTIST, ALBUMARTIST, TRACKNUMBER …),
/// both UTF-8 and NUL-terminated, one call per value.
typedef void (*kiosk_tag_property)(void *context, const char *key, const char *value);

/// Reads the tags of `path`. Returns 0 when TagLib could parse the file, -1 when not.
/// `*picture_bytes` is set to the size of the front cover (or first picture), 0 when none.
int kiosk_tags_read(const char *path, int format, kiosk_tag_property property, void *context, long *picture_bytes);

/// The front cover (else the first picture) of `path`, when at most `max_bytes` long: copied into
/// a malloc'd buffer at `*data` (the caller frees it) with its MIME type in `mime` (may be "").
/// Returns its size, 0 when there is none, -1 when it is larger than `max_bytes`.
long kiosk_tags_picture(const char *path, int format, long max_bytes, unsigned char **data, char *mime, size_t mime_size);

/// TagLib's major version (1 on Debian bookworm, 2 on trixie).
int kiosk_tags_major_version(void);

#ifdef __cplusplus
}
#endif
