// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ordinary C: locals and globals, weak and static functions, thread-local
// data, common-looking zero-initialised data, merged strings.
static int counter = 3;
int shared_value;
int initialised = 5;
const char *greeting = "hello, offload";
static const char table[] = "tail merged strings";
__attribute__((weak)) int weak_function(int x) { return x - 1; }
static int helper(int x) { return x * counter + table[x & 7]; }
int exported(int x) {
  counter++;
  return helper(x) + shared_value + initialised + weak_function(x);
}
_Thread_local int per_thread = 7;
int use_tls(void) { return per_thread++; }
