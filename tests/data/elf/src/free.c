// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Freestanding C (no headers), for cross targets without a sysroot.
struct pair {
  int a;
  long b;
};
static struct pair pairs[4] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
long total;
__attribute__((noinline)) static long sum(int n) {
  long s = 0;
  for (int i = 0; i < n; ++i)
    s += pairs[i].a * pairs[i].b;
  return s;
}
long run(int n) {
  total += sum(n & 3);
  return total;
}
int zero_init[64];
const int ro[3] = {1, 2, 3};
