// SPDX-License-Identifier: Apache-2.0
// The Plan API on the CPU: create/execute, kernel names, copies, defaults, errors, and one plan
// shared by several threads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "common/transpose_check.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::Device;
using xpose::DType;
using xpose::Matrix;
using xpose::Status;

bool is_listed(const std::string& name, Device device) {
  const auto names = xpose::kernel_names(device);
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Executes `plan` on a fresh input and poisoned output and checks the result.
void expect_plan_transposes(const xpose::Plan& plan) {
  const auto problem = xpose_test::problem_for(plan.matrix(), plan.dtype());
  const auto input = xpose_test::make_input(problem);
  auto output = xpose_test::make_output(problem);
  ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok) << xpose::last_error_message();
  EXPECT_TRUE(xpose_test::transposed_correctly(input, output, problem));
}

TEST(PlanCpu, CreateThenExecuteMatchesReference) {
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, {37, 53}, DType::f64), Status::ok);
  EXPECT_TRUE(plan.valid());
  EXPECT_EQ(plan.dtype(), DType::f64);
  EXPECT_EQ(plan.device(), Device::cpu);
  expect_plan_transposes(plan);
  expect_plan_transposes(plan);  // a plan runs any number of times
}

TEST(PlanCpu, KernelListStartsWithAutoAndHasTheReference) {
  const auto names = xpose::kernel_names(Device::cpu);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "auto");
  EXPECT_TRUE(is_listed("reference", Device::cpu));
  EXPECT_TRUE(xpose::kernel_transposes(Device::cpu, "auto"));
  EXPECT_TRUE(xpose::kernel_transposes(Device::cpu, "reference"));
  EXPECT_FALSE(xpose::kernel_transposes(Device::cpu, "memcpy"));
  EXPECT_FALSE(xpose::kernel_transposes(Device::cpu, "no_such_kernel"));
}

TEST(PlanCpu, AutoNamesTheTransposingKernelItChose) {
  // Small and large problems (the choice may differ with size), all element sizes.
  for (const Matrix& matrix : std::vector<Matrix>{{3, 5}, {64, 64}, {1000, 1000}, {4096, 1}}) {
    for (DType type : {DType::u8, DType::f32, DType::c128}) {
      SCOPED_TRACE(xpose_test::describe(matrix, type));
      xpose::Plan plan;
      ASSERT_EQ(xpose::Plan::create(plan, matrix, type), Status::ok);
      const std::string name = plan.kernel_name();
      EXPECT_NE(name, "auto");
      EXPECT_TRUE(is_listed(name, Device::cpu)) << name;
      EXPECT_TRUE(xpose::kernel_transposes(Device::cpu, name)) << name;
    }
  }
}

TEST(PlanCpu, ForcedKernelNameIsReported) {
  for (const std::string& name : xpose::kernel_names(Device::cpu)) {
    if (name == "auto") continue;
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create(plan, {16, 24}, DType::f32, Device::cpu, {name, 0}), Status::ok)
        << name << ": " << xpose::last_error_message();
    EXPECT_EQ(plan.kernel_name(), name);
  }
}

// The CPU kernels state nothing beyond their name; a permute routed to a 2D kernel says the 2D
// problem it became; an empty plan describes nothing.
TEST(PlanCpu, DescribeNamesTheKernelAndWhatItRuns) {
  EXPECT_EQ(xpose::Plan().describe(), "");
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, {300, 500}, DType::f32), Status::ok);
  EXPECT_EQ(plan.describe(), plan.kernel_name());
  ASSERT_EQ(xpose::Plan::create_permute(plan, {{4, 300, 500}, {0, 2, 1}, {}, {}}, DType::f32), Status::ok);
  const std::string name = plan.kernel_name();
  ASSERT_EQ(name.rfind("transpose2d:", 0), 0u) << name;
  EXPECT_EQ(plan.describe(), name + ": as 300x500 batch 4");
  ASSERT_EQ(xpose::Plan::create_inplace(plan, {64, 64}, DType::f32), Status::ok);
  EXPECT_EQ(plan.describe(), plan.kernel_name());
}

TEST(PlanCpu, PlansAreCopyableAndMovable) {
  xpose::Plan original;
  ASSERT_EQ(xpose::Plan::create(original, {33, 65}, DType::f32, Device::cpu, {"blocked", 0}),
            Status::ok);
  xpose::Plan copy(original);
  xpose::Plan assigned;
  assigned = original;
  EXPECT_STREQ(copy.kernel_name(), "blocked");
  EXPECT_STREQ(assigned.kernel_name(), "blocked");

  xpose::Plan moved(std::move(copy));
  original = xpose::Plan{};  // the copies do not depend on the original
  EXPECT_FALSE(original.valid());
  EXPECT_TRUE(moved.valid());
  expect_plan_transposes(moved);
  expect_plan_transposes(assigned);

  xpose::Plan move_assigned;
  move_assigned = std::move(assigned);
  expect_plan_transposes(move_assigned);
}

TEST(PlanCpu, EmptyPlanReportsNothingAndCannotExecute) {
  const xpose::Plan plan;
  EXPECT_FALSE(plan.valid());
  EXPECT_STREQ(plan.kernel_name(), "");
  EXPECT_EQ(plan.matrix().rows, 0);
  EXPECT_EQ(plan.matrix().cols, 0);
  std::vector<float> input(4, 1.0f);
  xpose_test::GuardedBuffer output(16, 0, xpose_test::kPoison);
  EXPECT_EQ(plan.execute(input.data(), output.view()), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("empty plan"));
  EXPECT_TRUE(xpose_test::untouched(output));
}

TEST(PlanCpu, MatrixShowsFilledDefaults) {
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, {3, 5}, DType::u16), Status::ok);
  const Matrix& packed = plan.matrix();
  EXPECT_EQ(packed.rows, 3);
  EXPECT_EQ(packed.cols, 5);
  EXPECT_EQ(packed.ld_in, 5);
  EXPECT_EQ(packed.ld_out, 3);
  EXPECT_EQ(packed.batch, 1);
  EXPECT_EQ(packed.stride_in, 15);
  EXPECT_EQ(packed.stride_out, 15);

  ASSERT_EQ(xpose::Plan::create(plan, {3, 5, 8, 4, 2}, DType::u16), Status::ok);
  const Matrix& padded = plan.matrix();
  EXPECT_EQ(padded.ld_in, 8);
  EXPECT_EQ(padded.ld_out, 4);
  EXPECT_EQ(padded.batch, 2);
  EXPECT_EQ(padded.stride_in, 3 * 8);
  EXPECT_EQ(padded.stride_out, 5 * 4);

  ASSERT_EQ(xpose::Plan::create(plan, {3, 5, 0, 0, 2, 100, 200}, DType::u16), Status::ok);
  EXPECT_EQ(plan.matrix().stride_in, 100);
  EXPECT_EQ(plan.matrix().stride_out, 200);
}

TEST(PlanCpu, UnknownKernelIsRejectedWithTheKnownNames) {
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create(plan, {4, 4}, DType::f32, Device::cpu, {"tiled_magic", 0}),
            Status::invalid_argument);
  const std::string message = xpose::last_error_message();
  EXPECT_THAT(message, HasSubstr("unknown kernel 'tiled_magic' for cpu"));
  for (const std::string& name : xpose::kernel_names(Device::cpu))
    EXPECT_THAT(message, HasSubstr(" " + name)) << "the message should list every known kernel";
  EXPECT_FALSE(plan.valid());
}

TEST(PlanCpu, ForcedMemcpyOnPaddedViewIsUnsupported) {
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create(plan, {64, 32, 40, 0}, DType::f32, Device::cpu, {"memcpy", 0}),
            Status::unsupported);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("kernel 'memcpy' cannot run 64 x 32 f32"));
  EXPECT_FALSE(plan.valid());
}

TEST(PlanCpu, FailedCreateLeavesThePlanUnchanged) {
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, {33, 65}, DType::f32, Device::cpu, {"blocked", 0}),
            Status::ok);
  EXPECT_EQ(xpose::Plan::create(plan, {-1, 65}, DType::f32), Status::invalid_argument);
  EXPECT_EQ(xpose::Plan::create(plan, {8, 8}, DType::f32, Device::cpu, {"nope", 0}),
            Status::invalid_argument);
  EXPECT_TRUE(plan.valid());
  EXPECT_STREQ(plan.kernel_name(), "blocked");
  EXPECT_EQ(plan.matrix().rows, 33);
  expect_plan_transposes(plan);
}

// execute() is const and shared: four threads run one plan at once, each on its own buffers.
TEST(PlanCpu, OnePlanExecutesConcurrentlyFromFourThreads) {
  constexpr int kThreads = 4;
  constexpr int kRepeats = 3;
  // A small problem (one thread per call) and one large enough for the threaded kernel.
  for (const Matrix& matrix : std::vector<Matrix>{{129, 67, 0, 0, 2}, {1024, 1000}}) {
    SCOPED_TRACE(xpose_test::describe(matrix, DType::f32));
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create(plan, matrix, DType::f32), Status::ok);
    const auto problem = xpose_test::problem_for(matrix, DType::f32);
    std::vector<xpose_test::GuardedBuffer> inputs, outputs;
    for (int t = 0; t < kThreads; ++t) {
      inputs.push_back(xpose_test::make_input(problem, 0, /*salt=*/t + 1));
      outputs.push_back(xpose_test::make_output(problem));
    }
    std::vector<Status> statuses(kThreads, Status::ok);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int r = 0; r < kRepeats && statuses[t] == Status::ok; ++r)
          statuses[t] = plan.execute(inputs[t].view(), outputs[t].view());
      });
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      SCOPED_TRACE("thread " + std::to_string(t));
      EXPECT_EQ(statuses[t], Status::ok);
      EXPECT_TRUE(xpose_test::transposed_correctly(inputs[t], outputs[t], problem));
    }
  }
}

}  // namespace
