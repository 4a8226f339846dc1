// Splits a loop over the machine's cores with a small persistent thread pool.
// Unlike an OpenMP parallel-for, the caller never waits for a worker that has
// not started: it claims chunks itself and returns once every claimed chunk is
// done. On a shared machine a descheduled worker then costs nothing, where an
// OpenMP barrier would stall each of the ~200 products of a decoding step.
#pragma once

#include <cstddef>
#include <functional>

namespace qgpu::model {

// Calls body(begin, end) for consecutive ranges of at most `grain` indices
// covering [0, n), on the calling thread and the pool's workers. Returns when all are done.
void parallelFor(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& body);

// Threads parallelFor uses, including the caller (QGPU_THREADS, else the core count).
int parallelThreads();

}  // namespace qgpu::model
