// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The DOS stub's pointer to the PE signature (pe_header.h).
#include "formats/coff/pe_header.h"

#include "support/byte_order.h"

namespace offbundle {

std::optional<uint64_t> peFileHeaderOffset(std::string_view bytes) {
  constexpr uint64_t kSignatureField = 0x3c;
  constexpr std::string_view kSignature("PE\0\0", 4);
  if (bytes.size() < kDosHeaderSize)
    return std::nullopt;
  const uint64_t signature = loadLittleEndian(bytes, kSignatureField, 4);
  if (signature > bytes.size() ||
      bytes.substr(signature, kSignature.size()) != kSignature)
    return std::nullopt;
  return signature + kSignature.size();
}

} // namespace offbundle
