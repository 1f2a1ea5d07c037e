// SPDX-License-Identifier: Apache-2.0
// The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html), versions 0.x and 1.x: the
// structs that a producer's capsule points to. Only their layout matters here, so they are
// declared rather than taken from a dlpack.h that may be missing or older than 1.0 (Debian ships 0.6).
#pragma once

#include <cstdint>

namespace xpose::python::dlpack {

enum DeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13,
};

enum DataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
  // DLPack 1.1's 8-bit floats (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0fnu) and the packed
  // sub-byte ones (codes 12 to 14) that have no whole-byte element.
  kDLFloat8First = 7,
  kDLFloat8Last = 11,
};

struct Device {
  int32_t device_type;
  int32_t device_id;
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means compact row-major
  uint64_t byte_offset;
};

struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

struct PackVersion {
  uint32_t major;
  uint32_t minor;
};

constexpr uint64_t kFlagBitmaskReadOnly = 1ULL << 0;

struct ManagedTensorVersioned {
  PackVersion version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};

// Capsule names of the protocol: a producer's fresh capsule, and the name a consumer gives the
// capsules it took ownership of.
constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kCapsuleNameVersioned = "dltensor_versioned";
constexpr const char* kUsedCapsuleName = "used_dltensor";

}  // namespace xpose::python::dlpack
