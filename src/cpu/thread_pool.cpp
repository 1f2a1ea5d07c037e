// SPDX-License-Identifier: Apache-2.0
#include "cpu/thread_pool.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/kernel_registry.hpp"

namespace xpose::detail {
namespace {

struct Job {
  void (*call)(const void*, int, int);
  const void* context;
  int n;
  int pending;  // shares handed to the queue and not finished yet; guarded by the pool's mutex
};

struct Task {
  Job* job;
  int share;
};

class Pool {
 public:
  static Pool& instance() {
    static Pool pool;
    return pool;
  }

  void run(Job& job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int t = 1; t < job.n; ++t) tasks_.push_back({&job, t});
      job.pending = job.n - 1;
    }
    work_ready_.notify_all();
    job.call(job.context, 0, job.n);
    // Shares no pool thread has taken yet run here: the call never waits on a busy pool, and a
    // share that calls run() itself cannot deadlock.
    for (;;) {
      Task task{nullptr, 0};
      {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto mine = std::find_if(tasks_.rbegin(), tasks_.rend(),
                                       [&](const Task& t) { return t.job == &job; });
        if (mine == tasks_.rend()) break;
        task = *mine;
        *mine = tasks_.back();
        tasks_.pop_back();
      }
      finish(task);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    job_done_.wait(lock, [&] { return job.pending == 0; });
  }

 private:
  Pool() {
    tasks_.reserve(256);
    const int workers = hardware_threads() - 1;
    for (int w = 0; w < workers; ++w) {
      try {
        workers_.emplace_back([this] { work(); });
      } catch (const std::system_error&) {
        break;  // fewer pool threads: the calling threads do the rest
      }
    }
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& worker : workers_) worker.join();
  }

  void work() {
    for (;;) {
      Task task{nullptr, 0};
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping
        task = tasks_.back();
        tasks_.pop_back();
      }
      finish(task);
    }
  }

  void finish(const Task& task) {
    Job& job = *task.job;
    job.call(job.context, task.share, job.n);
    std::lock_guard<std::mutex> lock(mutex_);
    // The job's owner may return as soon as pending reaches 0: nothing touches `job` after this.
    if (--job.pending == 0) job_done_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable work_ready_, job_done_;
  std::vector<Task> tasks_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
};

}  // namespace

int hardware_threads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int threads_for(int threads, int64_t bytes) {
  const int64_t wanted = threads > 0 ? threads : hardware_threads();
  return static_cast<int>(std::max<int64_t>(1, std::min(wanted, bytes / kCpuMinBytesPerThread)));
}

void run_shares(int n, void (*call)(const void*, int, int), const void* context) {
  Job job{call, context, n, 0};
  Pool::instance().run(job);
}

}  // namespace xpose::detail
