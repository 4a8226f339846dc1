// qgpu_device.h: helpers shared by corpus kernels, for nvcc and clang alike.
// Warp-level operations in the corpus only ever involve the 4 lanes of one
// aligned group, so that a kernel gives the same results whether the
// interpreter runs warps of 4 or of 32 lanes. These helpers name the group.
#pragma once

// %laneid: 0..3 at warp width 4, 0..31 at width 32.
static __device__ __forceinline__ unsigned qgpu_laneid() {
  unsigned r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
// First lane of this thread's 4-lane group within its warp.
static __device__ __forceinline__ unsigned qgpu_group_base() { return qgpu_laneid() & 28u; }
// Member mask of this thread's 4-lane group (0xf at warp width 4).
static __device__ __forceinline__ unsigned qgpu_group_mask() { return 0xfu << qgpu_group_base(); }
// A group's ballot, shifted down so that bit i is lane i of the group.
static __device__ __forceinline__ unsigned qgpu_group_ballot(int pred) {
  return (__ballot_sync(qgpu_group_mask(), pred) >> qgpu_group_base()) & 0xfu;
}
