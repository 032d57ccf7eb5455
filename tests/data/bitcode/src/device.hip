// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// HIP device code, compiled without the HIP headers (-nogpuinc).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))
#define __shared__ __attribute__((shared))
__device__ int device_variable = 1;
__constant__ int constant_variable[16];
__device__ static int static_device_variable = 2;
extern __device__ int extern_device_variable;
__device__ int device_helper(int x) {
  return x + static_device_variable + extern_device_variable;
}
template <typename T> __device__ T templated(T v) { return v * 2; }
__device__ inline int inline_helper(int x) { return x + 1; }
__global__ void kernel_one(int *out) {
  __shared__ int tile[64];
  tile[0] = *out;
  *out = device_helper(tile[0]) + templated(3) + inline_helper(2);
}
template <typename T> __global__ void kernel_template(T *out) {
  *out = templated(*out);
}
template __global__ void kernel_template<float>(float *);
template __global__ void kernel_template<int>(int *);
__device__ __attribute__((weak)) int weak_device_function() { return 7; }
__device__ __attribute__((visibility("hidden"))) int hidden_device_function() {
  return 8;
}
extern "C" __device__ int c_device_function() { return 9; }
