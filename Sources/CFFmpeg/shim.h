#pragma once
// FFmpeg's demuxer and decoders for MP4/M4A (AAC, HE-AAC, ALAC), as MPD's ffmpeg plugin uses them.
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

// Values FFmpeg defines as macros Swift cannot import.
static inline int kiosk_av_error_eof(void) { return AVERROR_EOF; }
static inline int kiosk_av_error_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t kiosk_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline void kiosk_av_log_quiet(void) { av_log_set_level(AV_LOG_QUIET); }
