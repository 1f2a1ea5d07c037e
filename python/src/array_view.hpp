// SPDX-License-Identifier: Apache-2.0
// What the module reads from an array: its data pointer, shape, strides (in elements), element
// type and device, from a DLPack capsule or, for CPU arrays that cannot export one (read-only
// NumPy arrays before DLPack 1.0), from the buffer protocol.
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

namespace xpose::python {

// The type as DLPack names it (code, bits), so that two arrays of the same element size but
// different types (int32, float32) are told apart; `type` is the xpose type that moves it.
struct ElementType {
  uint8_t code = 0;
  uint8_t bits = 0;
  DType type = DType::u8;

  bool operator==(const ElementType& other) const { return code == other.code && bits == other.bits; }
  std::string name() const;  // "float32", "bool", ...
};

struct ArrayView {
  void* data = nullptr;          // the first element (DLPack's byte_offset applied)
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements, one per dim (filled in for compact arrays)
  ElementType element;
  Device device = Device::cpu;
  int device_id = 0;             // the CUDA ordinal; 0 on the CPU
  bool read_only = false;

  int rank() const { return static_cast<int>(shape.size()); }
  bool packed() const;           // row-major without gaps (strides of size-1 dims ignored)
  std::string device_name() const;  // "cpu", "cuda:1"
};

// Holds a buffer-protocol view for as long as the ArrayView that points into it is used.
class BufferHold {
 public:
  BufferHold() = default;
  BufferHold(const BufferHold&) = delete;
  BufferHold& operator=(const BufferHold&) = delete;
  ~BufferHold();
  Py_buffer* acquire(PyObject* object);  // nullptr with a Python error set on failure

 private:
  Py_buffer buffer_{};
  bool held_ = false;
};

// Reads `object`: a DLPack capsule ("dltensor" or "dltensor_versioned", left unconsumed: its
// producer still owns it) or an object with the buffer protocol (held in `hold`). `what` names it
// in messages ("x", "out"). Throws pybind11's type_error or value_error.
ArrayView read_array(PyObject* object, const char* what, BufferHold& hold);

}  // namespace xpose::python
