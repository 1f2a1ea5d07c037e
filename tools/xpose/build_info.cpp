// SPDX-License-Identifier: Apache-2.0
#include "build_info.hpp"

#include "xpose_git_commit.hpp"  // generated into the build directory

namespace xpose::cli {

const char* xpose_version() { return XPOSE_VERSION; }
const char* git_commit() { return XPOSE_GIT_COMMIT; }
const char* source_dir() { return XPOSE_SOURCE_DIR; }

}  // namespace xpose::cli
