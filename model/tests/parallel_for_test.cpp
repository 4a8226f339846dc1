// parallelFor covers every index exactly once, whatever the grain, and may be
// called from several threads at once.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "qgpu/model/parallel_for.h"

namespace qgpu::model {
namespace {

void expectEachIndexOnce(std::size_t n, std::size_t grain) {
    std::vector<std::atomic<int>> hits(n);
    parallelFor(n, grain, [&](std::size_t b, std::size_t e) {
        ASSERT_LE(e - b, std::max<std::size_t>(grain, 1));
        for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " n " << n << " grain " << grain;
}

TEST(ParallelFor, CoversEveryIndexOnce) {
    EXPECT_GE(parallelThreads(), 1);
    for (std::size_t n : {0, 1, 7, 64, 1000, 4097})
        for (std::size_t grain : {0, 1, 3, 64, 5000}) expectEachIndexOnce(n, grain);
}

TEST(ParallelFor, ManySmallJobsBackToBack) {
    for (int rep = 0; rep < 2000; ++rep) expectEachIndexOnce(16, 1);
}

TEST(ParallelFor, ConcurrentCallers) {
    std::vector<std::thread> callers;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&] {
            for (int rep = 0; rep < 200; ++rep) {
                std::vector<std::atomic<int>> hits(100);
                parallelFor(100, 7, [&](std::size_t b, std::size_t e) {
                    for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
                });
                for (auto& h : hits)
                    if (h.load() != 1) failures.fetch_add(1);
            }
        });
    for (auto& c : callers) c.join();
    EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace qgpu::model
