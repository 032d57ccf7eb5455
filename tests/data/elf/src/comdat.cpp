// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// C++ that puts code and data in COMDAT groups: templates, inline functions
// with static locals (and their guard variables), vtables.
template <typename T> struct Box {
  T v;
  explicit Box(T x) : v(x) {}
  virtual ~Box() {}
  virtual T get() const { return v; }
};
template <typename T> T twice(T x) {
  static T calls;
  ++calls;
  return x + x + calls;
}
inline int inlined(int x) {
  static int n = x;
  return n + x;
}
namespace {
int hidden(int x) { return x ^ 0x55; }
} // namespace
int entry(int x) {
  Box<int> b{x};
  Box<long> c{x};
  return twice(x) + (int)twice<long>(x) + inlined(x) + b.get() + (int)c.get() +
         hidden(x);
}
