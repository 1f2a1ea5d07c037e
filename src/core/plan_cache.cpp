// SPDX-License-Identifier: Apache-2.0
#include "core/plan_cache.hpp"

#include <cstdint>
#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/kernel_registry.hpp"

namespace xpose {
namespace detail {
namespace {

constexpr std::size_t kDefaultCapacity = 128;

// Every field a plan depends on, as one list of words: the kind of call, the type, the device
// and, for Device::cuda, the current GPU (a plan is made for the GPU current at creation), then
// the shape and both views' layouts. Stride lists carry their length, so packed (empty) lists
// stay distinct from explicit ones.
using Key = std::vector<int64_t>;

struct KeyHash {
  std::size_t operator()(const Key& key) const {
    uint64_t hash = 1469598103934665603ULL;  // FNV-1a over the words
    for (int64_t word : key) {
      hash ^= static_cast<uint64_t>(word);
      hash *= 1099511628211ULL;
    }
    return static_cast<std::size_t>(hash);
  }
};

void begin_key(int64_t kind, DType type, Device device, Key& key) {
  key.clear();
  key.push_back(kind);
  key.push_back(static_cast<int64_t>(type));
  key.push_back(static_cast<int64_t>(device));
  key.push_back(device == Device::cuda ? cuda_current_device() : 0);
}

void matrix_key(const Matrix& m, DType type, Device device, Key& key) {
  begin_key(0, type, device, key);
  key.insert(key.end(), {m.rows, m.cols, m.ld_in, m.ld_out, m.batch, m.stride_in, m.stride_out});
}

void permute_key(const Permutation& p, DType type, Device device, Key& key) {
  begin_key(1, type, device, key);
  key.push_back(static_cast<int64_t>(p.dims.size()));
  key.insert(key.end(), p.dims.begin(), p.dims.end());
  key.push_back(static_cast<int64_t>(p.perm.size()));
  key.insert(key.end(), p.perm.begin(), p.perm.end());
  key.push_back(static_cast<int64_t>(p.in_strides.size()));
  key.insert(key.end(), p.in_strides.begin(), p.in_strides.end());
  key.push_back(static_cast<int64_t>(p.out_strides.size()));
  key.insert(key.end(), p.out_strides.begin(), p.out_strides.end());
}

class PlanCache {
 public:
  // The cached plan for `key`, or the one `create` makes (cached when it succeeds). Plans are
  // created outside the lock: two threads missing on one key both create, and one is kept.
  template <typename Create>
  Status get(const Key& key, Plan* plan, Create&& create) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto found = index_.find(key); found != index_.end()) {
        entries_.splice(entries_.begin(), entries_, found->second);
        *plan = found->second->second;
        return Status::ok;
      }
    }
    Plan created;
    if (Status s = create(created); s != Status::ok) return s;
    *plan = created;
    std::lock_guard<std::mutex> lock(mutex_);
    if (capacity_ == 0 || index_.count(key) != 0) return Status::ok;
    while (entries_.size() >= capacity_) evict_oldest();
    entries_.emplace_front(key, std::move(created));
    index_.emplace(entries_.front().first, entries_.begin());
    return Status::ok;
  }

  void set_capacity(std::size_t capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = capacity;
    while (entries_.size() > capacity_) evict_oldest();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    entries_.clear();
  }
  std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

 private:
  void evict_oldest() {
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }

  using Entries = std::list<std::pair<Key, Plan>>;  // most recently used first
  std::mutex mutex_;
  Entries entries_;
  std::unordered_map<Key, Entries::iterator, KeyHash> index_;
  std::size_t capacity_ = kDefaultCapacity;
};

PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache;  // never destroyed: calls may come during static destruction
  return *cache;
}

// One key buffer per thread, so that a hit allocates nothing once the buffer has grown.
Key& scratch_key() {
  thread_local Key key;
  return key;
}

}  // namespace

Status cached_plan(const Matrix& matrix, DType type, Device device, Plan* plan) {
  Key& key = scratch_key();
  matrix_key(matrix, type, device, key);
  return plan_cache().get(key, plan, [&](Plan& created) { return Plan::create(created, matrix, type, device); });
}

Status cached_permute_plan(const Permutation& permutation, DType type, Device device, Plan* plan) {
  Key& key = scratch_key();
  permute_key(permutation, type, device, key);
  return plan_cache().get(
      key, plan, [&](Plan& created) { return Plan::create_permute(created, permutation, type, device); });
}

}  // namespace detail

void set_plan_cache_capacity(std::size_t plans) { detail::plan_cache().set_capacity(plans); }
void clear_plan_cache() { detail::plan_cache().clear(); }
std::size_t plan_cache_size() { return detail::plan_cache().size(); }

}  // namespace xpose
