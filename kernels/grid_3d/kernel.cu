// grid_3d: 3D launch geometry: grid 2x3x2 of 4x2x2 blocks; every thread
// stores its %tid/%ctaid components packed in one word, the %ntid and
// %nctaid components, and its linear id computed in x-fastest order.
extern "C" __global__ void grid_3d(unsigned* ids, unsigned* dims) {
  unsigned bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  unsigned block = (bz * gridDim.y + by) * gridDim.x + bx;
  unsigned local = (tz * blockDim.y + ty) * blockDim.x + tx;
  unsigned lin = block * (blockDim.x * blockDim.y * blockDim.z) + local;
  ids[lin * 2] = tx | ty << 4 | tz << 8 | bx << 12 | by << 16 | bz << 20;
  ids[lin * 2 + 1] = lin;
  if (lin == 0) {
    dims[0] = blockDim.x; dims[1] = blockDim.y; dims[2] = blockDim.z;
    dims[3] = gridDim.x; dims[4] = gridDim.y; dims[5] = gridDim.z;
  }
}
