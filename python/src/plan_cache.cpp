// SPDX-License-Identifier: Apache-2.0
#include "plan_cache.hpp"

namespace xpose::python {
namespace {

// Every field a plan depends on, in one vector; empty stride lists (packed) stay distinguishable
// from explicit ones by their length word.
void make_key(const Permutation& p, DType type, Device device, int device_id, std::vector<int64_t>& key) {
  key.clear();
  key.reserve(5 + p.dims.size() * 2 + p.in_strides.size() + p.out_strides.size());
  key.push_back(static_cast<int64_t>(type));
  key.push_back(static_cast<int64_t>(device));
  key.push_back(device_id);
  key.push_back(static_cast<int64_t>(p.dims.size()));
  key.insert(key.end(), p.dims.begin(), p.dims.end());
  key.insert(key.end(), p.perm.begin(), p.perm.end());
  key.push_back(static_cast<int64_t>(p.in_strides.size()));
  key.insert(key.end(), p.in_strides.begin(), p.in_strides.end());
  key.push_back(static_cast<int64_t>(p.out_strides.size()));
  key.insert(key.end(), p.out_strides.begin(), p.out_strides.end());
}

}  // namespace

std::size_t PlanCache::KeyHash::operator()(const Key& key) const {
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a over the words
  for (int64_t word : key) {
    hash ^= static_cast<uint64_t>(word);
    hash *= 1099511628211ULL;
  }
  return static_cast<std::size_t>(hash);
}

Status PlanCache::get(const Permutation& permutation, DType type, Device device, int device_id,
                      Plan* plan) {
  make_key(permutation, type, device, device_id, scratch_);
  if (auto found = index_.find(scratch_); found != index_.end()) {
    ++hits_;
    entries_.splice(entries_.begin(), entries_, found->second);
    *plan = found->second->second;
    return Status::ok;
  }
  ++misses_;
  Plan created;
  if (Status s = Plan::create_permute(created, permutation, type, device); s != Status::ok) return s;
  *plan = created;
  if (capacity_ == 0) return Status::ok;
  while (entries_.size() >= capacity_) {
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }
  entries_.emplace_front(scratch_, std::move(created));
  index_.emplace(entries_.front().first, entries_.begin());
  return Status::ok;
}

void PlanCache::clear() {
  index_.clear();
  entries_.clear();
  hits_ = misses_ = 0;
}

void PlanCache::set_capacity(std::size_t capacity) {
  capacity_ = capacity;
  while (entries_.size() > capacity_) {
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }
}

}  // namespace xpose::python
