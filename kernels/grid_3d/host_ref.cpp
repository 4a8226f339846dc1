#include "qgpu/host_ref.h"

QGPU_HOST_REF(grid_3d) {
  auto ids = args.buffer<uint32_t>("ids");
  auto dims = args.buffer<uint32_t>("dims");
  qgpu::HostDim3 g = args.grid(), b = args.block();
  uint32_t lin = 0;
  for (uint32_t bz = 0; bz < g.z; ++bz)
    for (uint32_t by = 0; by < g.y; ++by)
      for (uint32_t bx = 0; bx < g.x; ++bx)
        for (uint32_t tz = 0; tz < b.z; ++tz)
          for (uint32_t ty = 0; ty < b.y; ++ty)
            for (uint32_t tx = 0; tx < b.x; ++tx, ++lin) {
              ids[lin * 2] = tx | ty << 4 | tz << 8 | bx << 12 | by << 16 | bz << 20;
              ids[lin * 2 + 1] = lin;
            }
  dims[0] = b.x; dims[1] = b.y; dims[2] = b.z;
  dims[3] = g.x; dims[4] = g.y; dims[5] = g.z;
}
