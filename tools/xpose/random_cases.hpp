// SPDX-License-Identifier: Apache-2.0
// The shape-space suite: bench cases drawn at random from named classes of shapes
// (`xpose bench --random N --seed S [--class C,...]`), and the per-class summary of a run.
//
// A draw depends only on (seed, class, index within the class), never on the other classes asked
// for or on the machine: the same seed gives the same cases everywhere. docs/shape-space.md lists
// the classes and their distributions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_results.hpp"
#include "suite.hpp"

namespace xpose::cli {

struct ShapeClass {
  const char* name;
  const char* summary;
};

// Every class, in the order cases are dealt to them.
const std::vector<ShapeClass>& shape_classes();

struct RandomDraw {
  int count = 0;                     // cases in all, dealt to the classes in turn
  uint64_t seed = 0;
  std::vector<std::string> classes;  // empty: every class
  // Cases are scaled down to at most this many bytes (of the view's elements); 0: no cap. The
  // CPU bench uses it so that the classes fit a host's memory and time.
  int64_t max_bytes = 0;
};

// Draws `draw.count` cases; false with a one-line message for an unknown class or a bad count.
// Each case's shape_class names its class and origin reads "random:<class>:<index>".
bool draw_random_cases(const RandomDraw& draw, std::vector<BenchCase>* cases, std::string* error);

// Per class: cases, how many ran below 85% of memcpy, and the min / p10 / median of the `auto`
// variant's % of memcpy. Cases without a timed `auto` are counted apart.
struct ClassFigures {
  std::string name;
  int cases = 0, timed = 0, below_85 = 0;
  double min = 0, p10 = 0, median = 0;
};
std::vector<ClassFigures> summarize_classes(const std::vector<CaseResult>& results);
// The same as a printable table, one line per class and one for all cases together.
std::string class_summary_table(const std::vector<CaseResult>& results);

}  // namespace xpose::cli
