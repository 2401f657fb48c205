// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <FLAC/stream_decoder.h>
#include <FLAC/stream_encoder.h>
#include <FLAC/metadata.h>
#include <FLAC/format.h>
