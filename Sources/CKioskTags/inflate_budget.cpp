// zlib's `inflate`, interposed so compressed tag data inflates within a budget. TagLib (1.13 and 2.0)
// inflates a compressed ID3v2 frame whole in zlib::decompress, 1 KiB at a time, from the frame's data
// to the end of the zlib stream (past the frame's end, whatever its data-length indicator says), and
// 1.13's FrameFactory::createFrame is not virtual: no hook in TagLib sees the size before it
// allocates, so the count is kept here, where every inflated byte passes. The executable's definition
// takes precedence over libz's for libtag (an ordinary ELF interposition, as allocators use);
// calls from other libraries, or on threads with no budget armed, go straight to zlib's.
#include "inflate_budget.hpp"

#include <dlfcn.h>
#include <zlib.h>

namespace {

thread_local kiosk_tag_budget *armed = nullptr;

using InflateFunction = int (*)(z_streamp, int);

InflateFunction zlib_inflate() {
    static const InflateFunction real = reinterpret_cast<InflateFunction>(dlsym(RTLD_NEXT, "inflate"));
    return real;
}

}  // namespace

kiosk::InflateBudgetScope::InflateBudgetScope(kiosk_tag_budget *budget) : previous(armed) {
    if (budget) armed = budget;
}

kiosk::InflateBudgetScope::~InflateBudgetScope() { armed = previous; }

extern "C" int inflate(z_streamp stream, int flush) {
    const InflateFunction real = zlib_inflate();
    if (!real) return Z_STREAM_ERROR;
    kiosk_tag_budget *budget = armed;
    if (!budget || !stream) return real(stream, flush);
    const unsigned long left =
        budget->inflated_bytes < budget->max_inflated_bytes ? budget->max_inflated_bytes - budget->inflated_bytes : 0;
    // zlib is offered one byte more than the budget has left: if it writes that byte, the stream is over.
    const uInt room = stream->avail_out;
    const uInt offered = static_cast<unsigned long>(room) > left + 1 ? static_cast<uInt>(left + 1) : room;
    stream->avail_out = offered;
    const int result = real(stream, flush);
    const unsigned long produced = offered - stream->avail_out;
    stream->avail_out += room - offered;
    if (produced > left) {
        // Spent: later compressed data of this file is refused too (the budget is per file, not per frame).
        budget->inflated_bytes = budget->max_inflated_bytes;
        budget->refused_streams += 1;
        return Z_DATA_ERROR;
    }
    budget->inflated_bytes += produced;
    return result;
}

extern "C" int kiosk_tags_inflate_is_budgeted(void) {
    return dlsym(RTLD_DEFAULT, "inflate") == reinterpret_cast<void *>(&inflate) ? 1 : 0;
}
