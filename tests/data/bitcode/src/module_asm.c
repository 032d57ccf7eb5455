// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Module-level inline assembly defines symbols the IR does not know about.
__asm__(".globl asm_defined_global\n"
        "asm_defined_global:\n"
        "  ret\n"
        ".weak asm_weak\n"
        "asm_weak:\n"
        "  ret\n"
        "asm_local:\n"
        "  ret\n"
        ".globl asm_undefined_reference\n");
int ordinary_function(void) { return 0; }
int ordinary_variable = 1;
