// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reads data layout strings, one a line, and prints for each "OK" or why
// LLVM 22 refuses it (bitcode/data_layout.h): the side of
// data_layouts.py that is ours.
#include <iostream>
#include <string>

#include "bitcode/data_layout.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const std::optional<std::string> problem = offbundle::dataLayoutError(line);
    std::cout << (problem ? *problem : std::string("OK")) << '\n';
  }
  return 0;
}
