// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// TagLib is C++: only the C++ shim (CKioskTags) includes it; Swift sees CKioskTags' C header.
#ifdef __cplusplus
#include <taglib/tag.h>
#endif
