// SPDX-License-Identifier: Apache-2.0
// Facts fixed when the CLI was built: version, git commit, source directory.
#pragma once

namespace xpose::cli {

const char* xpose_version();  // "0.1.0"
const char* git_commit();     // "687b61d", "687b61d-dirty" or "unknown"
// The source tree this binary was built from: the last place to look for suites and scripts.
const char* source_dir();

}  // namespace xpose::cli
