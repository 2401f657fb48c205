// TagLib behind a C interface. Written against the API TagLib 1.13 (Debian bookworm) and 2.0
// (trixie) share: per-format File classes, PropertyMap, and each format's own picture frames.
#include "kiosk_tags.h"
#include "inflate_budget.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>

#include <taglib/aifffile.h>
#include <taglib/attachedpictureframe.h>
#include <taglib/flacfile.h>
#include <taglib/flacpicture.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4file.h>
#include <taglib/mpegfile.h>
#include <taglib/opusfile.h>
#include <taglib/taglib.h>
#include <taglib/textidentificationframe.h>
#include <taglib/tpropertymap.h>
#include <taglib/vorbisfile.h>
#include <taglib/wavfile.h>
#include <taglib/xiphcomment.h>

namespace {

std::unique_ptr<TagLib::File> open_file(const char *path, int format) {
    switch (format) {
    case 1: return std::make_unique<TagLib::FLAC::File>(path, false);
    case 2: return std::make_unique<TagLib::MPEG::File>(path, false);
    case 3: return std::make_unique<TagLib::Ogg::Vorbis::File>(path, false);
    case 4: return std::make_unique<TagLib::Ogg::Opus::File>(path, false);
    case 5: return std::make_unique<TagLib::RIFF::WAV::File>(path, false);
    case 6: return std::make_unique<TagLib::RIFF::AIFF::File>(path, false);
    case 7: return std::make_unique<TagLib::MP4::File>(path, false);
    default: return nullptr;
    }
}

struct Picture {
    TagLib::ByteVector data;
    TagLib::String mime;
    bool found = false;
};

// The front cover wins; otherwise the first picture.
void consider(Picture &best, const TagLib::ByteVector &data, const TagLib::String &mime, bool front) {
    if (data.isEmpty()) return;
    if (best.found && !front) return;
    best.data = data;
    best.mime = mime;
    best.found = true;
}

void from_id3v2(Picture &best, TagLib::ID3v2::Tag *tag) {
    if (!tag) return;
    const TagLib::ID3v2::FrameList &frames = tag->frameListMap()["APIC"];
    for (auto *frame : frames) {
        auto *apic = dynamic_cast<TagLib::ID3v2::AttachedPictureFrame *>(frame);
        if (!apic) continue;
        bool front = apic->type() == TagLib::ID3v2::AttachedPictureFrame::FrontCover;
        consider(best, apic->picture(), apic->mimeType(), front);
        if (front) return;
    }
}

void from_pictures(Picture &best, const TagLib::List<TagLib::FLAC::Picture *> &pictures) {
    for (auto *p : pictures) {
        bool front = p->type() == TagLib::FLAC::Picture::FrontCover;
        consider(best, p->data(), p->mimeType(), front);
        if (front) return;
    }
}

Picture find_picture(TagLib::File *file, int format) {
    Picture best;
    switch (format) {
    case 1: from_pictures(best, static_cast<TagLib::FLAC::File *>(file)->pictureList()); break;
    case 2: {
        auto *f = static_cast<TagLib::MPEG::File *>(file);
        if (f->hasID3v2Tag()) from_id3v2(best, f->ID3v2Tag());
        break;
    }
    case 3: {
        auto *tag = static_cast<TagLib::Ogg::Vorbis::File *>(file)->tag();
        if (tag) from_pictures(best, tag->pictureList());
        break;
    }
    case 4: {
        auto *tag = static_cast<TagLib::Ogg::Opus::File *>(file)->tag();
        if (tag) from_pictures(best, tag->pictureList());
        break;
    }
    case 5: {
        auto *f = static_cast<TagLib::RIFF::WAV::File *>(file);
        if (f->hasID3v2Tag()) from_id3v2(best, f->ID3v2Tag());
        break;
    }
    case 6: {
        auto *f = static_cast<TagLib::RIFF::AIFF::File *>(file);
        if (f->hasID3v2Tag()) from_id3v2(best, f->tag());
        break;
    }
    case 7: {
        auto *tag = static_cast<TagLib::MP4::File *>(file)->tag();
        if (tag && tag->contains("covr")) {
            TagLib::MP4::CoverArtList covers = tag->item("covr").toCoverArtList();
            if (!covers.isEmpty()) {
                const TagLib::MP4::CoverArt &cover = covers.front();
                const char *mime = cover.format() == TagLib::MP4::CoverArt::PNG ? "image/png"
                    : cover.format() == TagLib::MP4::CoverArt::JPEG              ? "image/jpeg"
                                                                                 : "";
                consider(best, cover.data(), mime, true);
            }
        }
        break;
    }
    default: break;
    }
    return best;
}

TagLib::ID3v2::Tag *id3v2_tag(TagLib::File *file, int format) {
    switch (format) {
    case 2: {
        auto *f = static_cast<TagLib::MPEG::File *>(file);
        return f->hasID3v2Tag() ? f->ID3v2Tag() : nullptr;
    }
    case 5: {
        auto *f = static_cast<TagLib::RIFF::WAV::File *>(file);
        return f->hasID3v2Tag() ? f->ID3v2Tag() : nullptr;
    }
    case 6: {
        auto *f = static_cast<TagLib::RIFF::AIFF::File *>(file);
        return f->hasID3v2Tag() ? f->tag() : nullptr;
    }
    default: return nullptr;
    }
}

// TagLib names TIT1 WORK and TPE4 REMIXER (mixed with TXXX frames of those names), where MPD reads
// them as Grouping and Performer: these two frames are handed over as "ID3 TIT1" and "ID3 TPE4".
void emit_id3_frames(TagLib::ID3v2::Tag *tag, kiosk_tag_property property, void *context) {
    if (!tag) return;
    for (const char *id : {"TIT1", "TPE4"}) {
        const std::string key = std::string("ID3 ") + id;
        for (auto *frame : tag->frameListMap()[id]) {
            auto *text = dynamic_cast<TagLib::ID3v2::TextIdentificationFrame *>(frame);
            if (!text) continue;
            for (const auto &value : text->fieldList()) property(context, key.c_str(), value.toCString(true));
        }
    }
}

// MP4 freeform items ----:com.apple.iTunes:NAME (where rsgain and foobar2000 put ReplayGain) are
// handed over as NAME: TagLib 1.13's property map leaves out names it has no table entry for.
void emit_mp4_freeform(TagLib::File *file, int format, kiosk_tag_property property, void *context) {
    if (format != 7) return;
    auto *tag = static_cast<TagLib::MP4::File *>(file)->tag();
    if (!tag) return;
    static const TagLib::String prefix("----:com.apple.iTunes:");
    for (const auto &item : tag->itemMap()) {
        if (!item.first.startsWith(prefix)) continue;
        const std::string name = item.first.substr(prefix.size()).upper().to8Bit(true);
        if (name.rfind("REPLAYGAIN_", 0) != 0) continue;
        for (const auto &value : item.second.toStringList()) property(context, name.c_str(), value.toCString(true));
    }
}

}  // namespace

extern "C" int kiosk_tags_read(
    const char *path, int format, kiosk_tag_budget *budget, kiosk_tag_property property, void *context,
    long *picture_bytes) {
    *picture_bytes = 0;
    kiosk::InflateBudgetScope scope(budget);
    try {
        std::unique_ptr<TagLib::File> file = open_file(path, format);
        if (!file || !file->isValid()) return -1;
        const TagLib::PropertyMap properties = file->properties();
        for (const auto &entry : properties) {
            const std::string key = entry.first.to8Bit(true);
            for (const auto &value : entry.second) property(context, key.c_str(), value.toCString(true));
        }
        emit_id3_frames(id3v2_tag(file.get(), format), property, context);
        emit_mp4_freeform(file.get(), format, property, context);
        Picture picture = find_picture(file.get(), format);
        if (picture.found) *picture_bytes = static_cast<long>(picture.data.size());
        return 0;
    } catch (...) {
        return -1;
    }
}

extern "C" int kiosk_tags_major_version(void) { return TAGLIB_MAJOR_VERSION; }

extern "C" long kiosk_tags_picture(
    const char *path, int format, kiosk_tag_budget *budget, long max_bytes, unsigned char **data, char *mime,
    size_t mime_size) {
    *data = nullptr;
    kiosk::InflateBudgetScope scope(budget);
    if (mime_size > 0) mime[0] = 0;
    try {
        std::unique_ptr<TagLib::File> file = open_file(path, format);
        if (!file || !file->isValid()) return 0;
        Picture picture = find_picture(file.get(), format);
        if (!picture.found) return 0;
        long size = static_cast<long>(picture.data.size());
        if (size > max_bytes) return -1;
        unsigned char *copy = static_cast<unsigned char *>(std::malloc(static_cast<size_t>(size)));
        if (!copy) return 0;
        std::memcpy(copy, picture.data.data(), static_cast<size_t>(size));
        *data = copy;
        if (mime_size > 0) {
            std::strncpy(mime, picture.mime.toCString(true), mime_size - 1);
            mime[mime_size - 1] = 0;
        }
        return size;
    } catch (...) {
        return 0;
    }
}
