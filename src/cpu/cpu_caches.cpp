// SPDX-License-Identifier: Apache-2.0
#include "cpu/cpu_caches.hpp"

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>

#if defined(__unix__)
#include <unistd.h>
#endif

namespace xpose::detail {
namespace {

int64_t from_sysconf([[maybe_unused]] int name) {
#if defined(__unix__)
  const long value = sysconf(name);
  return value > 0 ? value : 0;
#else
  return 0;
#endif
}

// cpu0's caches in sysfs: the largest data or unified cache of `level` ("32K", "32768K", "1M").
int64_t from_sysfs(int level) {
  int64_t best = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), type_file(dir + "/type"), size_file(dir + "/size");
    if (!level_file || !size_file) break;
    int cache_level = 0;
    std::string type;
    int64_t size = 0;
    char unit = 0;
    level_file >> cache_level;
    type_file >> type;
    size_file >> size >> unit;
    if (unit == 'K') size <<= 10;
    if (unit == 'M') size <<= 20;
    if (cache_level == level && type != "Instruction") best = std::max(best, size);
  }
  return best;
}

// A property of cpu0's level-1 data cache in sysfs (a file of its index directory holding a
// number: "ways_of_associativity", "coherency_line_size"); 0 if not reported.
int l1d_property_from_sysfs(const char* name) {
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), type_file(dir + "/type"), value_file(dir + "/" + name);
    if (!level_file) break;
    int level = 0, value = 0;
    std::string type;
    level_file >> level;
    type_file >> type;
    value_file >> value;
    if (level == 1 && type == "Data" && value > 0) return value;
  }
  return 0;
}

int64_t cache_bytes(int level, [[maybe_unused]] int sysconf_name) {
  const int64_t reported = from_sysconf(sysconf_name);
  return reported > 0 ? reported : from_sysfs(level);
}

CpuCaches read_caches() {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  const int64_t l1 = cache_bytes(1, _SC_LEVEL1_DCACHE_SIZE);
  const int64_t l2 = cache_bytes(2, _SC_LEVEL2_CACHE_SIZE);
  const int64_t l3 = cache_bytes(3, _SC_LEVEL3_CACHE_SIZE);
#else
  const int64_t l1 = from_sysfs(1), l2 = from_sysfs(2), l3 = from_sysfs(3);
#endif
#if defined(_SC_LEVEL1_DCACHE_ASSOC)
  int ways = static_cast<int>(from_sysconf(_SC_LEVEL1_DCACHE_ASSOC));
#else
  int ways = 0;
#endif
  if (ways <= 0) ways = l1d_property_from_sysfs("ways_of_associativity");
#if defined(_SC_LEVEL1_DCACHE_LINESIZE)
  int64_t line = from_sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
#else
  int64_t line = 0;
#endif
  if (line <= 0) line = l1d_property_from_sysfs("coherency_line_size");
  CpuCaches caches;
  caches.line_bytes = line > 0 ? line : 64;
  caches.l1d_bytes = l1 > 0 ? l1 : int64_t{32} << 10;
  caches.l1d_ways = ways > 0 ? ways : 8;
  const int64_t last = std::max(l2, l3);
  caches.last_level_bytes = last > 0 ? last : int64_t{8} << 20;
  caches.l2_bytes = l2 > 0 ? l2 : int64_t{512} << 10;
  // What this process's threads can hold: hypervisors report a whole socket's L3 (384 and 508
  // MiB to the 2-core Zen 5 guests this was measured on), of which a few cores own one slice.
  const int64_t threads = std::max(1u, std::thread::hardware_concurrency());
  caches.last_level_bytes = std::min(caches.last_level_bytes, threads * kLastLevelBytesPerThread);
  caches.l2_bytes = std::min(caches.l2_bytes, caches.last_level_bytes);
  return caches;
}

}  // namespace

const CpuCaches& cpu_caches() {
  static const CpuCaches caches = read_caches();
  return caches;
}

}  // namespace xpose::detail
