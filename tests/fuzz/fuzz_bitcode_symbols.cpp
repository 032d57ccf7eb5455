// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bitcode: the bitstream reader walking to the symbol table, the irsymtab
// itself, and the archive symbol list made from it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "bitcode/bitcode_symbols.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes = offbundle::fuzz::asView(data, size);
  if (auto table = offbundle::readIrSymbolTable(bytes); table.ok()) {
    // Every name views the input.
    for (const offbundle::IrSymbol &symbol : table->symbols) {
      if (!symbol.name.empty() && (symbol.name.data() < bytes.data() ||
                                   symbol.name.data() + symbol.name.size() >
                                       bytes.data() + bytes.size()))
        std::abort();
    }
  }
  (void)offbundle::bitcodeArchiveSymbols(bytes);
  return 0;
}
