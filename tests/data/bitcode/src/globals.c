// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every kind of C global the archive index treats differently.
int global_var = 1;
static int static_var = 2;
__attribute__((weak)) int weak_var = 3;
__attribute__((visibility("hidden"))) int hidden_var = 4;
int common_var; // common with -fcommon
__thread int tls_var = 5;
extern int undefined_var;
__attribute__((weak)) extern int weak_undefined_var;
int defined_func(void) {
  return static_var + undefined_var + weak_undefined_var;
}
static int static_func(void) { return 7; }
__attribute__((weak)) int weak_func(void) { return static_func(); }
#ifndef __APPLE__
int alias_func(void) __attribute__((alias("defined_func")));
#endif
inline int inline_func(void) { return 9; }
int use_inline(void) { return inline_func(); }
__attribute__((used)) static int used_static = 3;
#ifdef __ELF__
__attribute__((section(".data.custom"))) int sectioned_var = 5;
#endif
static const char *private_string(void) { return "private literal"; }
const char *public_string(void) { return private_string(); }
