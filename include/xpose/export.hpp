// SPDX-License-Identifier: Apache-2.0
// XPOSE_API marks the public API. The shared library is built with hidden visibility, so these
// are the only symbols it exports; everything else stays internal and free to change.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define XPOSE_API __attribute__((visibility("default")))
#else
#define XPOSE_API
#endif
