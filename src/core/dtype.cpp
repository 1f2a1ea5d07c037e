// SPDX-License-Identifier: Apache-2.0
// DType and Device names: the short names used by the suites and the CLI.
#include <array>

#include "core/error.hpp"

namespace xpose {
namespace {

struct DTypeInfo {
  DType type;
  const char* name;
  std::size_t size;
};

constexpr std::array<DTypeInfo, 14> kDTypes{{
    {DType::u8, "u8", 1},     {DType::i8, "i8", 1},     {DType::u16, "u16", 2},
    {DType::i16, "i16", 2},   {DType::f16, "f16", 2},   {DType::bf16, "bf16", 2},
    {DType::u32, "u32", 4},   {DType::i32, "i32", 4},   {DType::f32, "f32", 4},
    {DType::u64, "u64", 8},   {DType::i64, "i64", 8},   {DType::f64, "f64", 8},
    {DType::c64, "c64", 8},   {DType::c128, "c128", 16},
}};

const DTypeInfo* find(DType type) {
  for (const auto& info : kDTypes)
    if (info.type == type) return &info;
  return nullptr;
}

}  // namespace

std::size_t size_of(DType type) {
  const DTypeInfo* info = find(type);
  return info ? info->size : 0;
}

const char* to_string(DType type) {
  const DTypeInfo* info = find(type);
  return info ? info->name : "unknown dtype";
}

Status parse_dtype(const std::string& name, DType* type) {
  for (const auto& info : kDTypes) {
    if (name == info.name) {
      if (type) *type = info.type;
      return Status::ok;
    }
  }
  return detail::fail(Status::invalid_argument,
                      detail::message("unknown dtype '", name,
                                      "' (expected one of u8 i8 u16 i16 f16 bf16 u32 i32 f32 u64 "
                                      "i64 f64 c64 c128)"));
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> types = [] {
    std::vector<DType> all;
    for (const auto& info : kDTypes) all.push_back(info.type);
    return all;
  }();
  return types;
}

const char* to_string(Device device) {
  switch (device) {
    case Device::cpu: return "cpu";
    case Device::cuda: return "cuda";
  }
  return "unknown device";
}

Status parse_device(const std::string& name, Device* device) {
  if (name == "cpu" || name == "cuda") {
    if (device) *device = name == "cpu" ? Device::cpu : Device::cuda;
    return Status::ok;
  }
  return detail::fail(Status::invalid_argument,
                      detail::message("unknown device '", name, "' (expected cpu or cuda)"));
}

}  // namespace xpose
