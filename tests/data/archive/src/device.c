// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device code for amdgcn: a code object with global symbols, like those
// clang-offload-bundler puts into device archives.
int device_counter = 0;
__attribute__((weak)) int device_weak(int x) { return x * 2; }
int device_helper(int x) { return x + device_counter; }
static int device_private(int y) { return y; }
int use_private(int z) { return device_private(z); }
