#pragma once
// The inflate budget of the calling thread (inflate_budget.cpp): armed while TagLib reads one file.
#include "kiosk_tags.h"

namespace kiosk {

/// Arms `budget` for zlib's `inflate` on this thread for its lifetime (nothing when it is null).
class InflateBudgetScope {
public:
    explicit InflateBudgetScope(kiosk_tag_budget *budget);
    ~InflateBudgetScope();
    InflateBudgetScope(const InflateBudgetScope &) = delete;
    InflateBudgetScope &operator=(const InflateBudgetScope &) = delete;

private:
    kiosk_tag_budget *previous;
};

}  // namespace kiosk
