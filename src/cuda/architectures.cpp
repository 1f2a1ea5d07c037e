// SPDX-License-Identifier: Apache-2.0
#include "cuda/architectures.hpp"

#include <cctype>
#include <sstream>

namespace xpose::detail {
namespace {

// One entry of the list: "86", "86-real", "86-virtual", "90a-real", "100f".
struct Architecture {
  int major = 0, minor = 0;
  bool real = true, virtual_ = true;  // machine code, PTX
  char suffix = '\0';                 // 'a': this exact GPU only; 'f': its family
};

bool parse(std::string entry, Architecture* out) {
  Architecture a;
  const auto dash = entry.find('-');
  if (dash != std::string::npos) {
    const std::string kind = entry.substr(dash + 1);
    if (kind == "real") a.virtual_ = false;
    else if (kind == "virtual") a.real = false;
    else return false;
    entry.resize(dash);
  }
  if (!entry.empty() && (entry.back() == 'a' || entry.back() == 'f')) {
    a.suffix = entry.back();
    entry.pop_back();
  }
  if (entry.size() < 2 || entry.size() > 3) return false;
  for (char c : entry)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  const int number = std::stoi(entry);
  a.major = number / 10;
  a.minor = number % 10;
  *out = a;
  return true;
}

bool runs_on(const Architecture& a, int major, int minor) {
  const bool same_family = major == a.major && minor >= a.minor;
  if (a.suffix == 'a') return major == a.major && minor == a.minor;  // machine code and PTX alike
  if (a.suffix == 'f') return same_family;
  return (a.real && same_family) || (a.virtual_ && (major > a.major || same_family));
}

}  // namespace

bool architectures_cover(const std::string& architectures, int major, int minor) {
  std::istringstream list(architectures);
  std::string entry;
  while (std::getline(list, entry, ';')) {
    if (entry.empty()) continue;
    Architecture a;
    if (!parse(entry, &a) || runs_on(a, major, minor)) return true;
  }
  return false;
}

std::string missing_code_message(const std::string& device_name, int major, int minor,
                                 const std::string& architectures) {
  std::ostringstream out;
  out << "this build of xpose has no code for " << device_name << " (compute capability " << major << "."
      << minor << "); it was built for CUDA architectures " << (architectures.empty() ? "(none)" : architectures)
      << ": rebuild with -DXPOSE_CUDA_ARCHITECTURES=" << major << minor
      << " (or native, on this machine), or with the default, which covers every GPU this CUDA toolkit supports";
  return out.str();
}

}  // namespace xpose::detail
