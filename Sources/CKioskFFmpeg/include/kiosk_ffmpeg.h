// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// FFmpeg's demuxer and decoders (MP4/M4A: AAC, HE-AAC, ALAC) loaded with dlopen() the first time an
// MP4 is opened, not linked: libavcodec brings some forty libraries (x265, rav1e, gnutls, librsvg…)
// that cost a player of FLAC and MP3 about 25 MB of RSS for nothing. The headers are those of the
// libraries the build found, and the sonames loaded are their major versions, so the layouts of the
// structures read here match the libraries that run. `kff_load` must succeed before any kff_ call.
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <stddef.h>

/// Loads libavformat, libavcodec and libavutil and resolves every function below. 0 on success;
/// -1 with the reason in `why` (e.g. "libavformat.so.61: cannot open shared object file").
/// Thread-safe; the libraries stay loaded.
int kff_load(char *why, size_t why_size);

int kff_avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options);
const AVInputFormat *kff_av_find_input_format(const char *short_name);
int kff_avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options);
int kff_av_find_best_stream(
    AVFormatContext *ic, enum AVMediaType type, int wanted, int related, const AVCodec **decoder, int flags);
void kff_avformat_close_input(AVFormatContext **s);
int kff_av_read_frame(AVFormatContext *s, AVPacket *pkt);
int kff_av_seek_frame(AVFormatContext *s, int stream_index, int64_t timestamp, int flags);
AVCodecContext *kff_avcodec_alloc_context3(const AVCodec *codec);
void kff_avcodec_free_context(AVCodecContext **avctx);
int kff_avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par);
int kff_avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options);
int kff_avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt);
int kff_avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame);
void kff_avcodec_flush_buffers(AVCodecContext *avctx);
AVPacket *kff_av_packet_alloc(void);
void kff_av_packet_free(AVPacket **pkt);
void kff_av_packet_unref(AVPacket *pkt);
AVFrame *kff_av_frame_alloc(void);
void kff_av_frame_free(AVFrame **frame);
void kff_av_frame_unref(AVFrame *frame);
AVDictionaryEntry *kff_av_dict_get(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags);
int64_t kff_av_rescale_q(int64_t a, AVRational bq, AVRational cq);
int kff_av_sample_fmt_is_planar(enum AVSampleFormat sample_fmt);

// Values FFmpeg defines as macros Swift cannot import.
static inline int kff_error_eof(void) { return AVERROR_EOF; }
static inline int kff_error_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t kff_nopts_value(void) { return AV_NOPTS_VALUE; }
