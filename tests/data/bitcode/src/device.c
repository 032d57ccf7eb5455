// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AMDGPU device code written in C.
int device_global = 1;
static int device_static = 2;
__attribute__((weak)) int device_weak = 3;
__attribute__((visibility("hidden"))) int device_hidden = 4;
extern int device_extern;
int device_function(int x) { return x + device_static + device_extern; }
__attribute__((amdgpu_kernel)) void device_kernel(int *out) {
  *out = device_function(1);
}
__attribute__((address_space(3))) int lds_variable;
__attribute__((address_space(4))) const int constant_table[4] = {1, 2, 3, 4};
