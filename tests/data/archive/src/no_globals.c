// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An object file without a single global symbol: LLVM's writer still gives
// an archive of it a symbol table (with no symbols).
__attribute__((used)) static int only_local = 1;
extern int undefined_data;
__attribute__((used)) static int *use_undefined(void) { return &undefined_data; }
