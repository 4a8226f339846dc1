// A small persistent thread pool splitting loops over the cores.
#include "qgpu/model/parallel_for.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace qgpu::model {
namespace {

struct Job {
    const std::function<void(std::size_t, std::size_t)>* body;
    std::size_t n, grain, chunks;
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};

    // Claims and runs chunks until none are left.
    void work() {
        for (;;) {
            const std::size_t c = next.fetch_add(1, std::memory_order_relaxed);
            if (c >= chunks) return;
            const std::size_t begin = c * grain;
            (*body)(begin, std::min(n, begin + grain));
            if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) done.notify_all();
        }
    }
};

class Pool {
public:
    explicit Pool(int threads) {
        for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { loop(); });
    }
    ~Pool() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : workers_) t.join();
    }
    int threads() const { return static_cast<int>(workers_.size()) + 1; }

    void run(const std::shared_ptr<Job>& job) {
        {
            std::lock_guard lock(mutex_);
            current_ = job;
            ++generation_;
        }
        generationSeen_.store(generation_, std::memory_order_release);
        wake_.notify_all();
        job->work();
        // Only chunks a worker already claimed can still be running.
        for (std::size_t d = job->done.load(std::memory_order_acquire); d != job->chunks;
             d = job->done.load(std::memory_order_acquire))
            job->done.wait(d, std::memory_order_acquire);
    }

private:
    void loop() {
        std::uint64_t seen = 0;
        for (;;) {
            // Spin briefly for the next job (decoding issues them back to back), then sleep.
            const auto spinUntil = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
            while (generationSeen_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < spinUntil)
                std::this_thread::yield();
            std::shared_ptr<Job> job;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
                job = current_;
            }
            job->work();
        }
    }

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::shared_ptr<Job> current_;
    std::uint64_t generation_ = 0;
    std::atomic<std::uint64_t> generationSeen_{0};
    bool stop_ = false;
};

int configuredThreads() {
    if (const char* env = std::getenv("QGPU_THREADS")) {
        const int n = std::atoi(env);
        if (n >= 1) return n;
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

Pool& pool() {
    static Pool p(configuredThreads());
    return p;
}

}  // namespace

int parallelThreads() { return pool().threads(); }

void parallelFor(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& body) {
    if (n == 0) return;
    grain = std::max<std::size_t>(1, grain);
    const std::size_t chunks = (n + grain - 1) / grain;
    if (chunks == 1 || pool().threads() == 1) {
        body(0, n);
        return;
    }
    auto job = std::make_shared<Job>();
    job->body = &body;
    job->n = n;
    job->grain = grain;
    job->chunks = chunks;
    pool().run(job);
}

}  // namespace qgpu::model
