// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One HIP translation unit with no runtime to call: its constructor
// registers the fat binary, which is all the rewriting follows.
struct dim3 {
  unsigned x, y, z;
};
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **,
                               unsigned long, void *);
__attribute__((global)) void kernel(int *p) { p[0] = 1; }
