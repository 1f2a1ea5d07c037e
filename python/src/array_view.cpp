// SPDX-License-Identifier: Apache-2.0
#include "array_view.hpp"

#include <pybind11/pybind11.h>

#include <algorithm>

#include "dlpack.hpp"

namespace py = pybind11;

namespace xpose::python {
namespace {

template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::string text;
  ((text += parts), ...);
  return text;
}

// DLPack (code, bits) -> the xpose type that moves such elements. Types without an xpose name
// of their own move as the unsigned type of their size: bool as u8, 8-bit floats as u8, complex32
// as u32. Returns false for anything else (vectors of lanes, sub-byte and unknown types).
bool element_from_dlpack(uint8_t code, uint8_t bits, uint16_t lanes, ElementType* element) {
  using namespace dlpack;
  if (lanes != 1) return false;
  element->code = code;
  element->bits = bits;
  const auto pick = [&](DType type) {
    element->type = type;
    return true;
  };
  switch (code) {
    case kDLInt:
      if (bits == 8) return pick(DType::i8);
      if (bits == 16) return pick(DType::i16);
      if (bits == 32) return pick(DType::i32);
      if (bits == 64) return pick(DType::i64);
      return false;
    case kDLUInt:
      if (bits == 8) return pick(DType::u8);
      if (bits == 16) return pick(DType::u16);
      if (bits == 32) return pick(DType::u32);
      if (bits == 64) return pick(DType::u64);
      return false;
    case kDLFloat:
      if (bits == 16) return pick(DType::f16);
      if (bits == 32) return pick(DType::f32);
      if (bits == 64) return pick(DType::f64);
      return false;
    case kDLBfloat:
      return bits == 16 && pick(DType::bf16);
    case kDLComplex:
      if (bits == 32) return pick(DType::u32);
      if (bits == 64) return pick(DType::c64);
      if (bits == 128) return pick(DType::c128);
      return false;
    case kDLBool:
      return bits == 8 && pick(DType::u8);
    default:
      return code >= kDLFloat8First && code <= kDLFloat8Last && bits == 8 && pick(DType::u8);
  }
}

// A buffer-protocol format ("<f", "Zd", "?") -> its DLPack (code, bits), for the same checks
// as a DLPack array.
bool element_from_format(const char* format, Py_ssize_t itemsize, ElementType* element) {
  if (format == nullptr) format = "B";
  while (*format == '@' || *format == '=' || *format == '<' || *format == '>' || *format == '!') ++format;
  const auto bits = static_cast<uint8_t>(itemsize * 8);
  if (itemsize <= 0 || itemsize > 16) return false;
  using namespace dlpack;
  if (format[0] == 'Z' && format[1] != '\0' && format[2] == '\0') {
    return (format[1] == 'f' || format[1] == 'd') && element_from_dlpack(kDLComplex, bits, 1, element);
  }
  if (format[0] == '\0' || format[1] != '\0') return false;
  switch (format[0]) {
    case '?':
      return element_from_dlpack(kDLBool, bits, 1, element);
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
      return element_from_dlpack(kDLInt, bits, 1, element);
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
      return element_from_dlpack(kDLUInt, bits, 1, element);
    case 'e': case 'f': case 'd':
      return element_from_dlpack(kDLFloat, bits, 1, element);
    default:
      return false;
  }
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * std::max<int64_t>(shape[k], 1);
  return strides;
}

ArrayView from_dlpack(const dlpack::Tensor& tensor, bool read_only, const char* what) {
  ArrayView view;
  switch (tensor.device.device_type) {
    case dlpack::kDLCPU:
    case dlpack::kDLCUDAHost:
      view.device = Device::cpu;
      break;
    case dlpack::kDLCUDA:
    case dlpack::kDLCUDAManaged:
      view.device = Device::cuda;
      view.device_id = tensor.device.device_id;
      break;
    default:
      throw py::type_error(concat(what, " lives on DLPack device type ",
                                  std::to_string(tensor.device.device_type),
                                  "; xpose works on CPU and CUDA arrays"));
  }
  if (!element_from_dlpack(tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes, &view.element))
    throw py::type_error(concat(what, " has a DLPack dtype (code ", std::to_string(tensor.dtype.code),
                                ", ", std::to_string(tensor.dtype.bits), " bits, ",
                                std::to_string(tensor.dtype.lanes),
                                " lanes) that xpose does not move: it moves single elements of 1, "
                                "2, 4, 8 or 16 bytes"));
  if (tensor.ndim < 0) throw py::value_error(concat(what, " has a negative rank"));
  view.shape.assign(tensor.shape, tensor.shape + tensor.ndim);
  view.strides = tensor.strides != nullptr ? std::vector<int64_t>(tensor.strides, tensor.strides + tensor.ndim)
                                           : row_major_strides(view.shape);
  view.data = static_cast<char*>(tensor.data) + tensor.byte_offset;
  view.read_only = read_only;
  return view;
}

ArrayView from_buffer(const Py_buffer& buffer, const char* what) {
  ArrayView view;
  if (!element_from_format(buffer.format, buffer.itemsize, &view.element))
    throw py::type_error(concat(what, " has the buffer format '", buffer.format ? buffer.format : "B",
                                "', which xpose does not move"));
  view.shape.assign(buffer.shape, buffer.shape + buffer.ndim);
  if (buffer.strides == nullptr) {
    view.strides = row_major_strides(view.shape);
  } else {
    view.strides.resize(buffer.ndim);
    for (int k = 0; k < buffer.ndim; ++k) {
      if (buffer.strides[k] % buffer.itemsize != 0)
        throw py::value_error(concat(what, "'s stride ", std::to_string(k), " (",
                                     std::to_string(buffer.strides[k]),
                                     " bytes) is not a whole number of elements"));
      view.strides[k] = buffer.strides[k] / buffer.itemsize;
    }
  }
  view.data = buffer.buf;
  view.read_only = buffer.readonly != 0;
  return view;
}

}  // namespace

std::string ElementType::name() const {
  using namespace dlpack;
  const std::string size = std::to_string(bits);
  switch (code) {
    case kDLInt: return "int" + size;
    case kDLUInt: return "uint" + size;
    case kDLFloat: return "float" + size;
    case kDLBfloat: return "bfloat" + size;
    case kDLComplex: return "complex" + size;
    case kDLBool: return "bool";
    default: return "float8 (DLPack code " + std::to_string(code) + ")";
  }
}

bool ArrayView::packed() const {
  int64_t expected = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 0) return true;
    if (shape[k] != 1 && strides[k] != expected) return false;
    expected *= shape[k];
  }
  return true;
}

std::string ArrayView::device_name() const {
  return device == Device::cpu ? std::string("cpu") : "cuda:" + std::to_string(device_id);
}

BufferHold::~BufferHold() {
  if (held_) PyBuffer_Release(&buffer_);
}

Py_buffer* BufferHold::acquire(PyObject* object) {
  if (PyObject_GetBuffer(object, &buffer_, PyBUF_RECORDS_RO) != 0) return nullptr;
  held_ = true;
  return &buffer_;
}

ArrayView read_array(PyObject* object, const char* what, BufferHold& hold) {
  if (PyCapsule_IsValid(object, dlpack::kCapsuleName)) {
    auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(object, dlpack::kCapsuleName));
    return from_dlpack(managed->dl_tensor, false, what);
  }
  if (PyCapsule_IsValid(object, dlpack::kCapsuleNameVersioned)) {
    auto* managed = static_cast<dlpack::ManagedTensorVersioned*>(
        PyCapsule_GetPointer(object, dlpack::kCapsuleNameVersioned));
    if (managed->version.major != 1)
      throw py::type_error(concat(what, " is a DLPack ", std::to_string(managed->version.major),
                                  ".x tensor; xpose reads DLPack 0.x and 1.x"));
    return from_dlpack(managed->dl_tensor, (managed->flags & dlpack::kFlagBitmaskReadOnly) != 0, what);
  }
  if (PyCapsule_CheckExact(object))
    throw py::type_error(concat(what, " is a capsule that is not an unused DLPack tensor"));
  if (!PyObject_CheckBuffer(object))
    throw py::type_error(concat(what, " (", Py_TYPE(object)->tp_name,
                                ") is not an array: xpose takes arrays that support DLPack"));
  Py_buffer* buffer = hold.acquire(object);
  if (buffer == nullptr) {
    const std::string reason = py::error_already_set().what();
    throw py::type_error(concat(what, " (", Py_TYPE(object)->tp_name, ") cannot be read: ", reason));
  }
  return from_buffer(*buffer, what);
}

}  // namespace xpose::python
