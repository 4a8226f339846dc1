// const_mem: __constant__ tables with static initialisers (.const space):
// an int table read at a data-dependent index and float polynomial
// coefficients read in a Horner loop (explicit fmaf).
__constant__ int ctab[8] = {3, -1, 4, 1, -5, 9, 2, -6};
__constant__ float cpoly[5] = {0.5f, -1.25f, 0.75f, 2.0f, -0.375f};

extern "C" __global__ void const_mem(const int* in, const float* x, int* iout, float* fout) {
  unsigned t = threadIdx.x;
  int v = in[t];
  iout[t] = v * ctab[v & 7] + ctab[(t + 3) & 7];
  float xv = x[t];
  float p = cpoly[0];
  for (int k = 1; k < 5; ++k) p = fmaf(p, xv, cpoly[k]);
  fout[t] = p;
}
