// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Finding the offload binaries in an input file, as LLVM 22's
// extractOffloadBinaries() finds them, by what the bytes are:
//
//   offload binary   the binaries laid end to end in the file
//   ELF file         every section of type SHT_LLVM_OFFLOADING (clang's
//                    `.llvm.offloading`), relocatable, executable or shared
//                    library alike, in section order; a linker's merge of
//                    several objects' sections is several binaries
//   ar archive       every member, read the same way, in member order (thin
//                    archives' members from their files)
//   LLVM bitcode     the globals that the module's `llvm.embedded.objects`
//                    metadata places in `.llvm.offloading` (host bitcode from
//                    -emit-llvm or -flto)
//
// Inside an archive, members of any other kind hold no binaries, as in LLVM.
// A top-level input of any other kind is an error here (LLVM finds nothing
// and succeeds).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "formats/offload_binary.h"
#include "support/error.h"

namespace offbundle {

struct FoundOffloadBinary {
  OffloadBinaryView binary;
  // The name LLVM gives the buffer the binary came from: the input path
  // ("<stdin>" for "-"), or an archive member's name. LLVM's --archive
  // names archive members after it.
  std::string source;
};

// `bytes` is the whole input, named `path` as the user gave it (thin
// archives' members are found relative to its folder). The views point
// into `bytes` or into memory `storage` keeps (thin archive members,
// bitcode constants); both must outlive the result.
Result<std::vector<FoundOffloadBinary>>
findOffloadBinaries(std::string_view bytes, const std::string &path,
                    std::vector<std::shared_ptr<const std::string>> &storage);

} // namespace offbundle
