// SPDX-License-Identifier: GPL-3.0-or-later
// dlopen() of FFmpeg: see kiosk_ffmpeg.h for why.
#include "kiosk_ffmpeg.h"

#include <dlfcn.h>

#include "kiosk_loader.h"

#define KFF_STRING2(x) #x
#define KFF_STRING(x) KFF_STRING2(x)

// One pointer per function, filled by kff_load; each kff_ function calls through its pointer.
#define KFF_FUNCTIONS(X)                                                                              \
    X(avformat_open_input, int, (AVFormatContext * *a, const char *b, const AVInputFormat *c, AVDictionary **d), (a, b, c, d)) \
    X(av_find_input_format, const AVInputFormat *, (const char *a), (a))                               \
    X(avformat_find_stream_info, int, (AVFormatContext * a, AVDictionary **b), (a, b))                 \
    X(av_find_best_stream, int, (AVFormatContext * a, enum AVMediaType b, int c, int d, const AVCodec **e, int f), (a, b, c, d, e, f)) \
    X(avformat_close_input, void, (AVFormatContext * *a), (a))                                         \
    X(av_read_frame, int, (AVFormatContext * a, AVPacket *b), (a, b))                                  \
    X(av_seek_frame, int, (AVFormatContext * a, int b, int64_t c, int d), (a, b, c, d))                \
    X(avcodec_alloc_context3, AVCodecContext *, (const AVCodec *a), (a))                              \
    X(avcodec_free_context, void, (AVCodecContext * *a), (a))                                          \
    X(avcodec_parameters_to_context, int, (AVCodecContext * a, const AVCodecParameters *b), (a, b))    \
    X(avcodec_open2, int, (AVCodecContext * a, const AVCodec *b, AVDictionary **c), (a, b, c))         \
    X(avcodec_send_packet, int, (AVCodecContext * a, const AVPacket *b), (a, b))                       \
    X(avcodec_receive_frame, int, (AVCodecContext * a, AVFrame *b), (a, b))                            \
    X(avcodec_flush_buffers, void, (AVCodecContext * a), (a))                                          \
    X(av_packet_alloc, AVPacket *, (void), ())                                                        \
    X(av_packet_free, void, (AVPacket * *a), (a))                                                      \
    X(av_packet_unref, void, (AVPacket * a), (a))                                                      \
    X(av_frame_alloc, AVFrame *, (void), ())                                                          \
    X(av_frame_free, void, (AVFrame * *a), (a))                                                        \
    X(av_frame_unref, void, (AVFrame * a), (a))                                                        \
    X(av_dict_get, AVDictionaryEntry *, (const AVDictionary *a, const char *b, const AVDictionaryEntry *c, int d), (a, b, c, d)) \
    X(av_rescale_q, int64_t, (int64_t a, AVRational b, AVRational c), (a, b, c))                      \
    X(av_sample_fmt_is_planar, int, (enum AVSampleFormat a), (a))

#define KFF_POINTER(name, ret, params, args) static ret(*p_##name) params;
KFF_FUNCTIONS(KFF_POINTER)

#define KFF_WRAPPER(name, ret, params, args) \
    ret kff_##name params { return p_##name args; }
KFF_FUNCTIONS(KFF_WRAPPER)

// FFmpeg logs to stderr unless told not to (libavutil is the last soname).
static void quiet_logging(void *const *handles) {
    void (*set_level)(int) = NULL;
    *(void **)&set_level = dlsym(handles[2], "av_log_set_level");
    if (set_level) set_level(AV_LOG_QUIET);
}

#define KFF_SYMBOL(name, ret, params, args) {#name, (void **)&p_##name},
static const struct kld_symbol symbols[] = {KFF_FUNCTIONS(KFF_SYMBOL)};
// The sonames of the headers this was built with (libavformat.so.61 on Debian trixie), searched in
// this order for each function.
static const char *const sonames[] = {
    "libavformat.so." KFF_STRING(LIBAVFORMAT_VERSION_MAJOR),
    "libavcodec.so." KFF_STRING(LIBAVCODEC_VERSION_MAJOR),
    "libavutil.so." KFF_STRING(LIBAVUTIL_VERSION_MAJOR),
};
static struct kld_library library = KLD_LIBRARY("FFmpeg", sonames, symbols, quiet_logging);

int kff_load(char *why, size_t why_size) { return kld_load(&library, why, why_size); }
