// SPDX-License-Identifier: Apache-2.0
// xpose._xpose: the compiled half of the Python package. It reads arrays (DLPack capsules or
// buffers), validates a call, finds its plan in a bounded cache and executes it on the caller's
// stream. Allocating results, choosing streams and devices is the Python half's job
// (python/xpose/_arrays.py), since it depends on the array's library.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "array_view.hpp"
#include "dlpack.hpp"
#include "plan_cache.hpp"
#include "xpose/xpose.hpp"

namespace py = pybind11;

namespace xpose::python {
namespace {

PlanCache& plan_cache() {
  static PlanCache cache;  // used under the GIL only
  return cache;
}

// The library's status as a Python exception carrying its message: a bad argument (including
// one no kernel supports) is a ValueError; memory and device failures keep their own kinds.
[[noreturn]] void raise_status(Status status) {
  const std::string text = last_error_message();
  switch (status) {
    case Status::invalid_argument:
    case Status::unsupported:
      throw py::value_error(text);
    case Status::out_of_memory:
      PyErr_SetString(PyExc_MemoryError, text.c_str());
      throw py::error_already_set();
    default:
      throw std::runtime_error(std::string(to_string(status)) + ": " + text);
  }
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) text += (k ? ", " : "") + std::to_string(shape[k]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// Strides of size-1 dims never step, and an empty array's are never used: zeroing them lets such
// views of any stride (negative included) through and gives them one cache entry.
// Negative strides (reversed views) are refused: the kernels read and write upward.
std::vector<int64_t> normalised_strides(const ArrayView& view, const char* what) {
  std::vector<int64_t> strides = view.strides;
  bool empty = false;
  for (int64_t size : view.shape) empty = empty || size == 0;
  for (std::size_t k = 0; k < strides.size(); ++k) {
    if (empty || view.shape[k] == 1) strides[k] = 0;
    if (strides[k] < 0)
      throw py::value_error(std::string(what) + " has a negative stride on axis " + std::to_string(k) + " (" +
                            std::to_string(strides[k]) + " elements): xpose reads and writes views of "
                            "non-negative strides; make a contiguous copy of a reversed view first");
  }
  return strides;
}

// NumPy's axes: a sequence of the dims' indices in output order, negative ones counting from the
// end; None reverses the dims.
std::vector<int> read_axes(py::handle axes, int rank) {
  std::vector<int> perm(rank);
  if (axes.is_none()) {
    for (int k = 0; k < rank; ++k) perm[k] = rank - 1 - k;
    return perm;
  }
  if (!py::isinstance<py::sequence>(axes) || py::isinstance<py::str>(axes) || py::isinstance<py::bytes>(axes))
    throw py::type_error(std::string("axes must be a sequence of ints, not ") + Py_TYPE(axes.ptr())->tp_name);
  const auto sequence = py::reinterpret_borrow<py::sequence>(axes);
  if (static_cast<int>(py::len(sequence)) != rank)
    throw py::value_error("axes has " + std::to_string(py::len(sequence)) + " entries for an array of rank " +
                          std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    py::object item = sequence[i];
    if (py::isinstance<py::bool_>(item) || !PyIndex_Check(item.ptr()))
      throw py::type_error("axes[" + std::to_string(i) + "] is " + Py_TYPE(item.ptr())->tp_name + ", not an int");
    const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr()));
    if (!index) throw py::error_already_set();
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow != 0 || value < -rank || value >= rank)
      throw py::value_error("axes[" + std::to_string(i) + "] (" + py::str(index).cast<std::string>() +
                            ") is out of range for an array of rank " + std::to_string(rank));
    const int axis = static_cast<int>(value < 0 ? value + rank : value);
    if (seen[axis]) throw py::value_error("axes repeats axis " + std::to_string(axis));
    seen[axis] = true;
    perm[i] = axis;
  }
  return perm;
}

// A validated call waiting for its output: the input as read, the permutation, the result's
// shape and the plan for a packed result. The Python half allocates the output (or takes
// `out`) between prepare() and run(), so nothing is allocated for a call that cannot run.
class Pending {
 public:
  Pending(py::object source, std::unique_ptr<BufferHold> hold, ArrayView in, Permutation permutation,
          Plan plan, bool fixed_plan)
      : source_(std::move(source)), hold_(std::move(hold)), in_(std::move(in)),
        permutation_(std::move(permutation)), plan_(std::move(plan)), fixed_plan_(fixed_plan) {
    for (int axis : permutation_.perm) out_shape_.push_back(in_.shape[axis]);
  }

  py::tuple shape() const { return py::cast(out_shape_); }
  std::string device() const { return in_.device_name(); }

  // Writes the result into `out` (a DLPack capsule or a buffer) on `stream`.
  void run(py::handle out, uintptr_t stream) {
    BufferHold hold;
    const ArrayView view = read_out(out, hold);
    const Plan plan = plan_for(view);
    Status status;
    {
      py::gil_scoped_release release;
      status = plan.execute(in_.data, view.data, reinterpret_cast<void*>(stream));
    }
    if (status != Status::ok) raise_status(status);
  }

  // Writes the result at `data`: the row-major array of the result's shape and the input's type
  // on the input's device that an adapter has just allocated for this call, so it needs no reading.
  void run_fresh(uintptr_t data, uintptr_t stream) {
    Status status;
    {
      py::gil_scoped_release release;
      status = plan_.execute(in_.data, reinterpret_cast<void*>(data), reinterpret_cast<void*>(stream));
    }
    if (status != Status::ok) raise_status(status);
  }

  // Host seconds per call of Plan::execute for this call, `iterations` calls back to back: the
  // floor that the Python call's overhead is measured against.
  double time_execute(py::handle out, uintptr_t stream, int iterations) {
    BufferHold hold;
    const ArrayView view = read_out(out, hold);
    const Plan plan = plan_for(view);
    if (iterations < 1) throw py::value_error("iterations must be at least 1");
    py::gil_scoped_release release;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i)
      if (Status s = plan.execute(in_.data, view.data, reinterpret_cast<void*>(stream)); s != Status::ok) {
        py::gil_scoped_acquire acquire;
        raise_status(s);
      }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    return elapsed.count() / iterations;
  }

 private:
  ArrayView read_out(py::handle out, BufferHold& hold) const {
    ArrayView view = read_array(out.ptr(), "out", hold);
    if (view.read_only) throw py::value_error("out is read-only");
    if (view.device != in_.device || view.device_id != in_.device_id)
      throw py::value_error("out lives on " + view.device_name() + " but x on " + in_.device_name());
    if (!(view.element == in_.element))
      throw py::value_error("out has dtype " + view.element.name() + " but x has " + in_.element.name());
    if (view.shape != out_shape_)
      throw py::value_error("out has shape " + shape_text(view.shape) + " but the result has shape " +
                            shape_text(out_shape_));
    return view;
  }

  Plan plan_for(const ArrayView& out) const {
    if (out.packed()) return plan_;
    if (fixed_plan_)
      throw py::value_error("this Plan writes a row-major (C-contiguous) result; out is a strided view");
    Permutation strided = permutation_;
    strided.out_strides = normalised_strides(out, "out");
    Plan plan;
    if (Status s = plan_cache().get(strided, in_.element.type, in_.device, in_.device_id, &plan); s != Status::ok)
      raise_status(s);
    return plan;
  }

  py::object source_;  // keeps the input's capsule (or object) alive until the call is done
  std::unique_ptr<BufferHold> hold_;
  ArrayView in_;
  Permutation permutation_;
  std::vector<int64_t> out_shape_;
  Plan plan_;
  bool fixed_plan_;
};

struct Source {
  py::object object;
  std::unique_ptr<BufferHold> hold = std::make_unique<BufferHold>();
  ArrayView view;
};

Source read_source(py::object x) {
  Source source;
  source.view = read_array(x.ptr(), "x", *source.hold);
  source.object = std::move(x);
  return source;
}

std::unique_ptr<Pending> prepare_cached(Source source, std::vector<int> perm) {
  Permutation permutation{source.view.shape, std::move(perm), normalised_strides(source.view, "x"), {}};
  Plan plan;
  if (Status s = plan_cache().get(permutation, source.view.element.type, source.view.device,
                                  source.view.device_id, &plan);
      s != Status::ok)
    raise_status(s);
  return std::make_unique<Pending>(std::move(source.object), std::move(source.hold), std::move(source.view),
                                   std::move(permutation), std::move(plan), false);
}

std::unique_ptr<Pending> prepare(py::object x, py::handle axes) {
  Source source = read_source(std::move(x));
  std::vector<int> perm = read_axes(axes, source.view.rank());
  return prepare_cached(std::move(source), std::move(perm));
}

std::unique_ptr<Pending> prepare_matrix_transpose(py::object x) {
  Source source = read_source(std::move(x));
  const int rank = source.view.rank();
  if (rank < 2)
    throw py::value_error("matrix_transpose needs an array of rank 2 or more; x has rank " + std::to_string(rank));
  std::vector<int> perm(rank);
  for (int k = 0; k < rank; ++k) perm[k] = k;
  std::swap(perm[rank - 2], perm[rank - 1]);
  return prepare_cached(std::move(source), std::move(perm));
}

// xpose.transpose_(x): the last two axes of a packed array transposed in place. The adapters
// pass x again as `out` (the memory to write), so run() checks that it is the same memory.
class InplaceCall {
 public:
  explicit InplaceCall(Source source)
      : source_(std::move(source.object)), hold_(std::move(source.hold)), in_(std::move(source.view)) {
    const int rank = in_.rank();
    if (rank < 2)
      throw py::value_error("transpose_ needs an array of rank 2 or more; x has rank " + std::to_string(rank));
    bool empty = false;
    for (int64_t size : in_.shape) empty = empty || size == 0;
    if (!empty && !in_.packed())  // an empty array's strides are never used (exporters differ on them)
      throw py::value_error("x has strides " + shape_text(in_.strides) + " (in elements): transpose_ transposes "
                            "C-contiguous arrays only (the result must fill the same memory)");
    if (in_.read_only) throw py::value_error("x is read-only");
    Matrix matrix{in_.shape[rank - 2], in_.shape[rank - 1]};
    matrix.batch = 1;
    for (int k = 0; k < rank - 2; ++k)  // the array exists, so a non-empty product fits
      matrix.batch = empty ? 0 : matrix.batch * in_.shape[k];
    if (Status s = Plan::create_inplace(plan_, matrix, in_.element.type, in_.device); s != Status::ok)
      raise_status(s);
    out_shape_ = in_.shape;
    std::swap(out_shape_[rank - 2], out_shape_[rank - 1]);
  }

  py::tuple shape() const { return py::cast(out_shape_); }

  void run(py::handle out, uintptr_t stream) {
    BufferHold hold;
    const ArrayView view = read_array(out.ptr(), "x", hold);
    if (view.data != in_.data || view.shape != in_.shape || !(view.element == in_.element))
      throw py::value_error("transpose_ writes x itself; it was given another array to write");
    if (view.read_only) throw py::value_error("x is read-only");
    Status status;
    {
      py::gil_scoped_release release;
      status = plan_.execute_inplace(view.data, reinterpret_cast<void*>(stream));
    }
    if (status != Status::ok) raise_status(status);
  }

 private:
  py::object source_;
  std::unique_ptr<BufferHold> hold_;
  ArrayView in_;
  std::vector<int64_t> out_shape_;
  Plan plan_;
};

std::unique_ptr<InplaceCall> prepare_inplace(py::object x) {
  return std::make_unique<InplaceCall>(read_source(std::move(x)));
}

DType dtype_from_name(const std::string& name) {
  DType type;
  if (parse_dtype(name, &type) != Status::ok) raise_status(Status::invalid_argument);
  return type;
}

// xpose.Plan's compiled half: one permutation of one layout, with the options of a C++ plan.
class UserPlan {
 public:
  UserPlan(std::vector<int64_t> shape, py::handle axes, const std::string& dtype, const std::string& device,
           int device_id, std::optional<std::vector<int64_t>> strides, const std::string& kernel, int threads)
      : type_(dtype_from_name(dtype)), device_id_(device_id) {
    if (parse_device(device, &device_) != Status::ok) raise_status(Status::invalid_argument);
    if (device_ == Device::cpu) device_id_ = 0;
    permutation_.dims = std::move(shape);
    permutation_.perm = read_axes(axes, static_cast<int>(permutation_.dims.size()));
    if (strides) {
      ArrayView layout;
      layout.shape = permutation_.dims;
      layout.strides = *strides;
      if (layout.strides.size() != layout.shape.size())
        throw py::value_error("strides has " + std::to_string(layout.strides.size()) + " entries for rank " +
                              std::to_string(layout.shape.size()));
      permutation_.in_strides = normalised_strides(layout, "strides");
    }
    PlanOptions options;
    options.kernel = kernel;
    options.threads = threads;
    if (Status s = Plan::create_permute(plan_, permutation_, type_, device_, options); s != Status::ok)
      raise_status(s);
  }

  std::unique_ptr<Pending> prepare(py::object x) const {
    Source source = read_source(std::move(x));
    const ArrayView& view = source.view;
    if (view.shape != permutation_.dims)
      throw py::value_error("x has shape " + shape_text(view.shape) + " but the plan is for " +
                            shape_text(permutation_.dims));
    if (view.element.type != type_)
      throw py::value_error("x has dtype " + view.element.name() + " (moved as " + to_string(view.element.type) +
                            ") but the plan is for " + to_string(type_));
    if (view.device != device_ || view.device_id != device_id_)
      throw py::value_error("x lives on " + view.device_name() + " but the plan is for " + device_name());
    const std::vector<int64_t> strides = normalised_strides(view, "x");
    const bool matches = permutation_.in_strides.empty() ? view.packed() : strides == permutation_.in_strides;
    if (!matches)
      throw py::value_error("x has strides " + shape_text(view.strides) + " (in elements), which the plan was not "
                            "made for (pass strides= to Plan for a strided view)");
    Permutation permutation = permutation_;
    return std::make_unique<Pending>(std::move(source.object), std::move(source.hold), std::move(source.view),
                                     std::move(permutation), plan_, true);
  }

  std::string kernel_name() const { return plan_.kernel_name(); }
  std::string describe() const { return plan_.describe(); }
  std::vector<int64_t> shape() const { return permutation_.dims; }
  std::vector<int64_t> out_shape() const {
    std::vector<int64_t> out;
    for (int axis : permutation_.perm) out.push_back(permutation_.dims[axis]);
    return out;
  }
  std::vector<int> axes() const { return permutation_.perm; }
  std::string dtype() const { return to_string(type_); }
  std::string device_name() const {
    return device_ == Device::cpu ? std::string("cpu") : "cuda:" + std::to_string(device_id_);
  }

 private:
  DType type_;
  Device device_ = Device::cpu;
  int device_id_ = 0;
  Permutation permutation_;
  Plan plan_;
};

// A DLPack capsule that shares another's tensor and keeps `keep` alive until its consumer
// releases it: a result handed to a library that imports it (JAX) holds the input's export and
// the memory it was written into until that library is done with the result.
struct KeptTensor {
  dlpack::ManagedTensor managed;
  PyObject* keep;
};

void release_kept(dlpack::ManagedTensor* self) {
  auto* kept = reinterpret_cast<KeptTensor*>(self);
  if (Py_IsInitialized()) {
    const PyGILState_STATE state = PyGILState_Ensure();
    Py_XDECREF(kept->keep);
    PyGILState_Release(state);
  }
  delete kept;
}

// DLPack's rule for a capsule's destructor: a capsule still named "dltensor" was never consumed,
// so its producer (here) deletes it; a consumer renames the ones it took.
void destroy_unconsumed(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, dlpack::kUsedCapsuleName)) return;
#if PY_VERSION_HEX >= 0x030C0000
  PyObject* pending = PyErr_GetRaisedException();
#else
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
#endif
  auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleName));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
  else PyErr_Clear();
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(pending);
#else
  PyErr_Restore(type, value, traceback);
#endif
}

py::capsule keep_alive_capsule(py::object capsule, py::object keep) {
  const dlpack::Tensor* tensor = nullptr;
  if (PyCapsule_IsValid(capsule.ptr(), dlpack::kCapsuleName))
    tensor = &static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), dlpack::kCapsuleName))->dl_tensor;
  else if (PyCapsule_IsValid(capsule.ptr(), dlpack::kCapsuleNameVersioned))
    tensor = &static_cast<dlpack::ManagedTensorVersioned*>(
                  PyCapsule_GetPointer(capsule.ptr(), dlpack::kCapsuleNameVersioned))->dl_tensor;
  else
    throw py::type_error("keep_alive_capsule takes an unused DLPack capsule");
  auto* kept = new KeptTensor{{*tensor, nullptr, release_kept}, nullptr};
  kept->managed.manager_ctx = kept;
  // The shape and strides arrays belong to `capsule`, which `keep` holds too.
  kept->keep = py::make_tuple(capsule, keep).release().ptr();
  PyObject* result = PyCapsule_New(&kept->managed, dlpack::kCapsuleName, destroy_unconsumed);
  if (result == nullptr) {
    release_kept(&kept->managed);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(result);
}

Device device_from_name(const std::string& name) {
  Device device;
  if (parse_device(name, &device) != Status::ok) raise_status(Status::invalid_argument);
  return device;
}

}  // namespace
}  // namespace xpose::python

PYBIND11_MODULE(_xpose, m) {
  using namespace xpose::python;
  m.doc() = "xpose's compiled core; use the functions of the xpose package";

  py::class_<Pending>(m, "Pending")
      .def_property_readonly("shape", &Pending::shape)
      .def_property_readonly("device", &Pending::device)
      .def("run", &Pending::run, py::arg("out"), py::arg("stream") = 0)
      .def("run_fresh", &Pending::run_fresh, py::arg("data"), py::arg("stream") = 0)
      .def("time_execute", &Pending::time_execute, py::arg("out"), py::arg("stream"), py::arg("iterations"));

  py::class_<InplaceCall>(m, "InplaceCall")
      .def_property_readonly("shape", &InplaceCall::shape)
      .def("run", &InplaceCall::run, py::arg("out"), py::arg("stream") = 0);

  m.def("prepare", &prepare, py::arg("x"), py::arg("axes") = py::none());
  m.def("prepare_inplace", &prepare_inplace, py::arg("x"));
  m.def("prepare_matrix_transpose", &prepare_matrix_transpose, py::arg("x"));

  py::class_<UserPlan>(m, "Plan")
      .def(py::init<std::vector<int64_t>, py::handle, const std::string&, const std::string&, int,
                    std::optional<std::vector<int64_t>>, const std::string&, int>(),
           py::arg("shape"), py::arg("axes"), py::arg("dtype"), py::arg("device"), py::arg("device_id"),
           py::arg("strides"), py::arg("kernel"), py::arg("threads"))
      .def("prepare", &UserPlan::prepare, py::arg("x"))
      .def_property_readonly("kernel_name", &UserPlan::kernel_name)
      .def("describe", &UserPlan::describe)
      .def_property_readonly("shape", [](const UserPlan& p) { return py::tuple(py::cast(p.shape())); })
      .def_property_readonly("out_shape", [](const UserPlan& p) { return py::tuple(py::cast(p.out_shape())); })
      .def_property_readonly("axes", [](const UserPlan& p) { return py::tuple(py::cast(p.axes())); })
      .def_property_readonly("dtype", &UserPlan::dtype)
      .def_property_readonly("device", &UserPlan::device_name);

  m.def("kernel_names", [](const std::string& device) {
    return xpose::permute_kernel_names(device_from_name(device));
  }, py::arg("device"));
  m.def("kernel_permutes", [](const std::string& name, const std::string& device) {
    return xpose::permute_kernel_permutes(device_from_name(device), name);
  }, py::arg("name"), py::arg("device"));
  m.def("dtype_names", [] {
    std::vector<std::string> names;
    for (xpose::DType type : xpose::all_dtypes()) names.emplace_back(xpose::to_string(type));
    return names;
  });
  m.def("cuda_compiled", &xpose::cuda_compiled);
  m.def("cuda_device_count", &xpose::cuda_device_count);
  m.def("keep_alive_capsule", &keep_alive_capsule, py::arg("capsule"), py::arg("keep"));

  m.def("plan_cache_info", [] {
    const PlanCache& cache = plan_cache();
    py::dict info;
    info["size"] = cache.size();
    info["capacity"] = cache.capacity();
    info["hits"] = cache.hits();
    info["misses"] = cache.misses();
    return info;
  });
  m.def("set_plan_cache_capacity", [](std::size_t capacity) { plan_cache().set_capacity(capacity); },
        py::arg("capacity"));
  m.def("clear_plan_cache", [] { plan_cache().clear(); });
}
