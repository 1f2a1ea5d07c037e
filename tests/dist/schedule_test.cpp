// SPDX-License-Identifier: Apache-2.0
// The distributed transpose's host-side arithmetic, without a GPU: layout validation, the even
// split, and the pipeline schedule (every send meets a receive of the same size in the same step,
// and the receives plus the self block cover each rank's output exactly once).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "dist/schedule.hpp"
#include "xpose/dist.hpp"

namespace {

using xpose::DType;
using xpose::Status;
using xpose::dist::Layout;
using xpose::dist::detail::make_schedule;
using xpose::dist::detail::Schedule;

std::string last_error() { return xpose::last_error_message(); }

TEST(DistLayout, EvenSplitGivesTheRemainderToTheFirstRanks) {
  EXPECT_EQ(xpose::dist::even_split(10, 3), (std::vector<int64_t>{4, 3, 3}));
  EXPECT_EQ(xpose::dist::even_split(2, 4), (std::vector<int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(xpose::dist::even_split(0, 2), (std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(xpose::dist::even_split(5, 0).empty());
}

TEST(DistLayout, AcceptsValidLayouts) {
  EXPECT_EQ(xpose::dist::validate_layout({10, 7, {4, 6}, {7, 0}}, 2, DType::f32), Status::ok);
  EXPECT_EQ(xpose::dist::validate_layout({0, 0, {0, 0, 0}, {0, 0, 0}}, 3, DType::u8), Status::ok);
  EXPECT_EQ(xpose::dist::validate_layout({10, 7, {10}, {7}, 9, 12}, 1, DType::c128), Status::ok);
}

TEST(DistLayout, RejectsBadLayoutsNamingTheField) {
  struct Case {
    Layout layout;
    int ranks;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{10, 7, {4, 6, 0}, {7, 0}}, 2, "layout.in_rows has 3 entries but the communicator has 2 ranks"},
      {{10, 7, {4, 6}, {7}}, 2, "layout.out_rows has 1 entries"},
      {{10, 7, {11, -1}, {7, 0}}, 2, "layout.in_rows[1] (-1) is negative"},
      {{10, 7, {4, 5}, {7, 0}}, 2, "layout.in_rows sums to 9 but layout.rows is 10"},
      {{10, 7, {4, 6}, {3, 3}}, 2, "layout.out_rows sums to 6 but layout.cols is 7"},
      {{-1, 7, {0, 0}, {7, 0}}, 2, "layout.rows (-1) is negative"},
      {{10, -7, {4, 6}, {0, 0}}, 2, "layout.cols (-7) is negative"},
      {{10, 7, {4, 6}, {7, 0}, 6}, 2, "layout.ld_in (6) is less than layout.cols (7)"},
      {{10, 7, {4, 6}, {7, 0}, 0, 9}, 2, "layout.ld_out (9) is less than layout.rows (10)"},
      {{int64_t{1} << 40, int64_t{1} << 30, {int64_t{1} << 40}, {int64_t{1} << 30}}, 1, "overflows 64-bit byte counts"},
      {{1, 1, {1}, {1}}, 0, "ranks (0) must be positive"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(xpose::dist::validate_layout(c.layout, c.ranks, DType::f32), Status::invalid_argument) << c.message;
    EXPECT_NE(last_error().find(c.message), std::string::npos) << last_error();
  }
  EXPECT_EQ(xpose::dist::validate_layout({1, 1, {1}, {1}}, 1, static_cast<DType>(99)), Status::invalid_argument);
}

TEST(DistSchedule, OneStepWhenStepBytesIsZeroAndNoneOnOneRank) {
  EXPECT_EQ(xpose::dist::detail::step_count({100, 60, {50, 50}, {30, 30}}, 4, 0), 1);
  EXPECT_EQ(xpose::dist::detail::step_count({100, 60, {100}, {60}}, 4, 1024), 0);
  // The largest pair moves 50 * 30 * 4 = 6000 bytes: 6 steps of at most 1024 bytes.
  EXPECT_EQ(xpose::dist::detail::step_count({100, 60, {50, 50}, {30, 30}}, 4, 1024), 6);
  // Never more steps than the largest output block has rows.
  EXPECT_EQ(xpose::dist::detail::step_count({100, 6, {50, 50}, {3, 3}}, 4, 1), 3);
}

// Checks the invariants on every rank of `layout`.
void check_schedules(const Layout& layout, int64_t elem_size, int64_t step_bytes) {
  const int ranks = static_cast<int>(layout.in_rows.size());
  std::vector<Schedule> schedules;
  for (int r = 0; r < ranks; ++r) schedules.push_back(make_schedule(layout, r, elem_size, step_bytes));
  const size_t steps = schedules[0].steps.size();
  std::vector<int64_t> in_offset(ranks + 1, 0);
  for (int r = 0; r < ranks; ++r) in_offset[r + 1] = in_offset[r] + layout.in_rows[r];

  for (int q = 0; q < ranks; ++q) {
    const Schedule& mine = schedules[q];
    ASSERT_EQ(mine.steps.size(), steps);
    // Output coverage: the self block plus every receive, each element exactly once.
    std::vector<int> hits(static_cast<size_t>(layout.out_rows[q] * layout.rows), 0);
    auto cover = [&](int64_t row, int64_t col, int64_t rows, int64_t cols) {
      for (int64_t i = row; i < row + rows; ++i)
        for (int64_t j = col; j < col + cols; ++j) {
          ASSERT_LT(i, layout.out_rows[q]);
          ASSERT_LT(j, layout.rows);
          ++hits[static_cast<size_t>(i * layout.rows + j)];
        }
    };
    cover(0, mine.self_out_col, mine.self_cols, mine.self_rows);
    int64_t received = 0;
    for (size_t s = 0; s < steps; ++s) {
      for (const auto& receive : mine.steps[s].receives) {
        cover(receive.out_row, receive.out_col, receive.rows, receive.cols);
        ASSERT_EQ(receive.out_col, in_offset[receive.peer]);
        ASSERT_EQ(receive.bytes, receive.rows * receive.cols * elem_size);
        ASSERT_LE(receive.slot_offset + receive.bytes, mine.receive_slot_bytes);
        ASSERT_EQ(receive.slot_offset % 256, 0);
        received += receive.bytes;
        // The peer sends exactly this in the same step.
        int matches = 0;
        for (const auto& send : schedules[receive.peer].steps[s].sends)
          if (send.peer == q) {
            ++matches;
            ASSERT_EQ(send.bytes, receive.bytes);
            ASSERT_EQ(send.cols, receive.rows);
            ASSERT_EQ(send.rows, receive.cols);
            // Direct stores land where the receiver reads.
            ASSERT_EQ(send.peer_slot_offset, receive.slot_offset);
          }
        ASSERT_EQ(matches, 1) << "rank " << q << " step " << s << " peer " << receive.peer;
      }
      for (const auto& send : mine.steps[s].sends) {
        ASSERT_NE(send.peer, q);
        ASSERT_LE(send.slot_offset + send.bytes, mine.send_slot_bytes);
        int matches = 0;
        for (const auto& receive : schedules[send.peer].steps[s].receives) matches += receive.peer == q;
        ASSERT_EQ(matches, 1);
        if (step_bytes > 0 && steps > 1) {
          ASSERT_LE(send.bytes, step_bytes + send.rows * elem_size);
        }
      }
    }
    EXPECT_EQ(received, mine.bytes_received);
    // Every rank agrees on the largest receive slot (the size of the symmetric window).
    ASSERT_EQ(mine.largest_receive_slot_bytes, schedules[0].largest_receive_slot_bytes);
    ASSERT_GE(mine.largest_receive_slot_bytes, mine.receive_slot_bytes);
    for (size_t k = 0; k < hits.size(); ++k)
      ASSERT_EQ(hits[k], 1) << "rank " << q << " output element " << k / layout.rows << ", " << k % layout.rows;
  }
}

TEST(DistSchedule, LargestPairIsTheMostOneRankOwesAnother) {
  using xpose::dist::detail::largest_pair_bytes;
  EXPECT_EQ(largest_pair_bytes({10, 7, {4, 6}, {3, 4}}, 4), 6 * 3 * 4);   // rank 1 owes rank 0
  EXPECT_EQ(largest_pair_bytes({10, 7, {4, 6}, {7, 0}}, 2), 6 * 7 * 2);
  EXPECT_EQ(largest_pair_bytes({64, 64, {64, 0}, {64, 0}}, 8), 0);        // all stays on rank 0
  EXPECT_EQ(largest_pair_bytes({0, 0, {0, 0}, {0, 0}}, 4), 0);
}

TEST(DistSchedule, SendsMeetReceivesAndOutputsAreCoveredOnce) {
  check_schedules({10, 7, {4, 6}, {7, 0}}, 4, 0);
  check_schedules({10, 7, {4, 6}, {3, 4}}, 4, 16);
  check_schedules({1, 1, {1, 0, 0}, {0, 0, 1}}, 16, 1);
  check_schedules({64, 64, {0, 64}, {64, 0}}, 1, 100);
}

TEST(DistSchedule, RandomLayouts) {
  const uint64_t seed = 20261122;
  std::mt19937_64 random(seed);
  for (int trial = 0; trial < 300; ++trial) {
    const int ranks = 1 + static_cast<int>(random() % 8);
    Layout layout;
    layout.rows = static_cast<int64_t>(random() % 40);
    layout.cols = static_cast<int64_t>(random() % 40);
    auto random_split = [&](int64_t total) {
      std::vector<int64_t> split(ranks, 0);
      for (int64_t k = 0; k < total; ++k) ++split[random() % ranks];
      return split;
    };
    layout.in_rows = random_split(layout.rows);
    layout.out_rows = random_split(layout.cols);
    layout.ld_in = layout.cols;
    layout.ld_out = layout.rows;
    const int64_t elem_size = int64_t{1} << (random() % 5);
    const int64_t step_bytes = static_cast<int64_t>(random() % 3 == 0 ? 0 : random() % 200 + 1);
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " trial " << trial << ": " << layout.rows << " x "
                                      << layout.cols << " over " << ranks << " ranks, step_bytes " << step_bytes);
    ASSERT_EQ(xpose::dist::validate_layout(layout, ranks, DType::u8), Status::ok);
    check_schedules(layout, elem_size, step_bytes);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
