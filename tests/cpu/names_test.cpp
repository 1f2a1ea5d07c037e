// SPDX-License-Identifier: Apache-2.0
// Names of statuses, element types and devices: printing, parsing, sizes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "xpose/xpose.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::Device;
using xpose::DType;
using xpose::Status;

TEST(Names, EveryStatusHasItsName) {
  const std::vector<std::pair<Status, std::string>> expected{
      {Status::ok, "ok"},
      {Status::invalid_argument, "invalid_argument"},
      {Status::unsupported, "unsupported"},
      {Status::out_of_memory, "out_of_memory"},
      {Status::device_error, "device_error"},
      {Status::internal_error, "internal_error"},
  };
  for (const auto& [status, name] : expected) EXPECT_EQ(xpose::to_string(status), name);
  EXPECT_NE(xpose::to_string(static_cast<Status>(42)), nullptr);
}

TEST(Names, EveryDTypeHasItsNameAndSize) {
  const std::vector<std::tuple<DType, std::string, std::size_t>> expected{
      {DType::u8, "u8", 1},   {DType::i8, "i8", 1},      {DType::u16, "u16", 2},
      {DType::i16, "i16", 2}, {DType::f16, "f16", 2},    {DType::bf16, "bf16", 2},
      {DType::u32, "u32", 4}, {DType::i32, "i32", 4},    {DType::f32, "f32", 4},
      {DType::u64, "u64", 8}, {DType::i64, "i64", 8},    {DType::f64, "f64", 8},
      {DType::c64, "c64", 8}, {DType::c128, "c128", 16},
  };
  ASSERT_EQ(xpose::all_dtypes().size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const auto& [type, name, size] = expected[k];
    EXPECT_EQ(xpose::all_dtypes()[k], type) << "all_dtypes() is in declaration order";
    EXPECT_EQ(xpose::to_string(type), name);
    EXPECT_EQ(xpose::size_of(type), size) << name;
  }
}

TEST(Names, DTypeNamesRoundTrip) {
  for (DType type : xpose::all_dtypes()) {
    DType parsed = type == DType::u8 ? DType::c128 : DType::u8;
    ASSERT_EQ(xpose::parse_dtype(xpose::to_string(type), &parsed), Status::ok);
    EXPECT_EQ(parsed, type) << xpose::to_string(type);
  }
}

TEST(Names, UnknownDTypeNameIsRejected) {
  for (const std::string name : {"f33", "", "F32", "float", "c256", "f32 "}) {
    DType parsed = DType::f64;
    EXPECT_EQ(xpose::parse_dtype(name, &parsed), Status::invalid_argument) << "'" << name << "'";
    EXPECT_THAT(xpose::last_error_message(), HasSubstr("unknown dtype '" + name + "'"));
    EXPECT_EQ(parsed, DType::f64) << "a failed parse leaves the output alone";
  }
}

TEST(Names, InvalidDTypeValueHasNoSize) {
  EXPECT_EQ(xpose::size_of(static_cast<DType>(99)), 0u);
  EXPECT_NE(xpose::to_string(static_cast<DType>(99)), nullptr);
}

TEST(Names, DeviceNamesRoundTrip) {
  for (Device device : {Device::cpu, Device::cuda}) {
    Device parsed = device == Device::cpu ? Device::cuda : Device::cpu;
    ASSERT_EQ(xpose::parse_device(xpose::to_string(device), &parsed), Status::ok);
    EXPECT_EQ(parsed, device);
  }
  EXPECT_STREQ(xpose::to_string(Device::cpu), "cpu");
  EXPECT_STREQ(xpose::to_string(Device::cuda), "cuda");
  Device parsed = Device::cpu;
  EXPECT_EQ(xpose::parse_device("gpu", &parsed), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("unknown device 'gpu'"));
}

}  // namespace
