// SPDX-License-Identifier: Apache-2.0
#include "baselines/cublas_geam.hpp"

#include <cublas_v2.h>
#include <cuComplex.h>

#include <map>

namespace xpose::baselines {
namespace {

const char* cublas_status_name(cublasStatus_t s) { return cublasGetStatusName(s); }

Status check_cublas(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return Status::ok;
  const Status status = s == CUBLAS_STATUS_ALLOC_FAILED ? Status::out_of_memory : Status::device_error;
  return detail::fail(status, detail::message(what, ": ", cublas_status_name(s)));
}

// cuBLAS handles are not safe to share between threads that set different streams, so each host
// thread keeps one per device. They live until the thread ends (never destroyed: destroying at
// process exit can run after the CUDA runtime is gone).
Status thread_handle(cublasHandle_t* handle) {
  thread_local std::map<int, cublasHandle_t> handles;
  int device = 0;
  XPOSE_GPU_TRY(cudaGetDevice(&device));
  auto it = handles.find(device);
  if (it == handles.end()) {
    cublasHandle_t created = nullptr;
    if (Status s = check_cublas(cublasCreate(&created), "cublasCreate"); s != Status::ok) return s;
    it = handles.emplace(device, created).first;
  }
  *handle = it->second;
  return Status::ok;
}

// Row-major rows x cols with ld_in is column-major cols x rows with lda = ld_in; its transpose,
// row-major cols x rows with ld_out, is column-major rows x cols with ldc = ld_out. So
// C (m = rows, n = cols) = A^T with lda = ld_in and ldc = ld_out: the destination's leading
// dimension is the source height, which the first AMD seed gets wrong.
template <typename T, typename Geam>
Status geam_batch(Geam geam, cublasHandle_t handle, const void* in, void* out,
                  const detail::Transpose2D& p, T one, T zero) {
  const T* a = static_cast<const T*>(in);
  T* c = static_cast<T*>(out);
  for (int64_t b = 0; b < p.batch; ++b) {
    const cublasStatus_t s = geam(handle, CUBLAS_OP_T, CUBLAS_OP_N, p.rows, p.cols, &one,
                                  a + b * p.stride_in, p.ld_in, &zero, c + b * p.stride_out, p.ld_out,
                                  c + b * p.stride_out, p.ld_out);
    if (Status st = check_cublas(s, "cublas geam"); st != Status::ok) return st;
  }
  return Status::ok;
}

}  // namespace

bool cublas_geam_supports(const detail::Transpose2D& p, std::string* why) {
  const bool float_type = p.type == DType::f32 || p.type == DType::f64 || p.type == DType::c64 ||
                          p.type == DType::c128;
  if (!float_type) {
    if (why) *why = "cuBLAS geam supports f32, f64, c64 and c128 only";
    return false;
  }
  // The 64-bit API (cublas*geam_64) is not used: the baseline keeps cuBLAS' classic int sizes.
  constexpr int64_t kIntMax = 2147483647;
  if (p.rows > kIntMax || p.cols > kIntMax || p.ld_in > kIntMax || p.ld_out > kIntMax) {
    if (why) *why = "cuBLAS geam takes 32-bit sizes and leading dimensions";
    return false;
  }
  return true;
}

Status launch_cublas_geam(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  cublasHandle_t handle = nullptr;
  if (Status s = thread_handle(&handle); s != Status::ok) return s;
  if (Status s = check_cublas(cublasSetStream(handle, stream), "cublasSetStream"); s != Status::ok) return s;
  if (Status s = check_cublas(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
      s != Status::ok)
    return s;
  switch (p.type) {
    case DType::f32: return geam_batch<float>(cublasSgeam, handle, in, out, p, 1.0f, 0.0f);
    case DType::f64: return geam_batch<double>(cublasDgeam, handle, in, out, p, 1.0, 0.0);
    case DType::c64:
      return geam_batch<cuComplex>(cublasCgeam, handle, in, out, p, make_cuComplex(1, 0), make_cuComplex(0, 0));
    case DType::c128:
      return geam_batch<cuDoubleComplex>(cublasZgeam, handle, in, out, p, make_cuDoubleComplex(1, 0),
                                         make_cuDoubleComplex(0, 0));
    default: return detail::fail(Status::unsupported, "cuBLAS geam: unsupported dtype");
  }
}

}  // namespace xpose::baselines
