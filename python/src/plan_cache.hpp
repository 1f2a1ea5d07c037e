// SPDX-License-Identifier: Apache-2.0
// A bounded, least-recently-used cache of permute plans for the one-shot calls, keyed by
// everything a plan depends on: element type, device, shape, permutation and both views' strides.
// Callers hold the GIL, which serialises every use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xpose/xpose.hpp"

namespace xpose::python {

class PlanCache {
 public:
  static constexpr std::size_t kDefaultCapacity = 256;

  // The plan for `permutation`, created on a miss. On failure returns the library's status (its
  // message in last_error_message()) and caches nothing.
  Status get(const Permutation& permutation, DType type, Device device, int device_id, Plan* plan);

  void clear();
  void set_capacity(std::size_t capacity);  // 0 disables caching
  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return entries_.size(); }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  using Key = std::vector<int64_t>;
  struct KeyHash {
    std::size_t operator()(const Key& key) const;
  };
  using Entries = std::list<std::pair<Key, Plan>>;  // most recently used first

  Key scratch_;  // the key of the current lookup, reused so that a hit allocates nothing
  Entries entries_;
  std::unordered_map<Key, Entries::iterator, KeyHash> index_;
  std::size_t capacity_ = kDefaultCapacity;
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace xpose::python
