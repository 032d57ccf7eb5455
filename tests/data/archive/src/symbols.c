// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Symbols of every kind LLVM's archive writer has a rule for. Global,
// weak, hidden, protected, common, thread-local, absolute and ifunc
// symbols are listed; locals, undefined ones (weak or not) and the file
// and section symbols are not.
int global_data = 1;
int common_data;
static int local_data = 2;
__attribute__((weak)) int weak_function(void) { return local_data; }
__attribute__((visibility("hidden"))) int hidden_function(void) { return 3; }
__attribute__((visibility("protected"))) int protected_function(void) {
  return 4;
}
__thread int thread_data = 5;
extern int undefined_data;
extern __attribute__((weak)) int undefined_weak_function(void);
int uses_undefined(void) {
  return undefined_data + (undefined_weak_function ? undefined_weak_function() : 0);
}
static int chosen(void) { return 1; }
static void *resolve(void) { return (void *)chosen; }
int indirect_function(void) __attribute__((ifunc("resolve")));
__asm__(".globl absolute_symbol\nabsolute_symbol = 0x1234\n");
