// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// C++ entities: COMDAT inline functions and templates, vtables and type
// info, static members, constructors (llvm.global_ctors), an ifunc.
namespace ns {
struct Base {
  virtual ~Base();
  virtual int f();
};
struct Derived : Base {
  int f() override;
};
Base::~Base() {}
int Base::f() { return 1; }
int Derived::f() { return 2; }
template <typename T> T twice(T v) { return v + v; }
template int twice<int>(int);
inline int inlined(int x) { return x * 3; }
struct S {
  static int member;
  static inline int inline_member = 4;
};
int S::member = 5;
} // namespace ns
static int file_static(int x) { return x; }
namespace {
int anon_var = 1;
int anon_func() { return anon_var; }
} // namespace
struct Global {
  Global();
  ~Global();
};
Global::Global() {}
Global::~Global() {}
Global global_object;
const char *message() { return "a string literal"; }
int user(int x) {
  return ns::inlined(x) + ns::twice(x) + file_static(x) + anon_func() +
         ns::S::inline_member + (int)ns::twice(1.0);
}
extern "C" int c_linkage_function(void) { return 42; }
extern "C" int resolver_target(void) { return 1; }
extern "C" int (*ifunc_resolver(void))(void) { return resolver_target; }
#if defined(__ELF__) && defined(__x86_64__)
extern "C" int ifunc_symbol(void) __attribute__((ifunc("ifunc_resolver")));
#endif
#ifdef __ELF__
__attribute__((visibility("protected"))) int protected_var = 3;
#endif
__attribute__((used)) int used_global = 2;
thread_local int tls_object = 9;
int *address_of_tls() { return &tls_object; }
