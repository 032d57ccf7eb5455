// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ar archives: reading every kind the reader accepts, then writing the
// members back as the device archive writer would (symbol tables included).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "archive/ar_reading.h"
#include "archive/ar_writing.h"
#include "bitcode/bitcode_symbols.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Thin archives name files on disk. Members resolve against the scratch
  // folder, which is empty; names reaching devices or /proc would read
  // endless streams, which the reader bounds only at half the machine's
  // memory, far above the fuzzer's limit.
  static const offbundle::fuzz::Scratch scratch;
  std::string_view bytes = offbundle::fuzz::asView(data, size);
  if (!offbundle::isArchive(bytes))
    return 0;
  if (bytes.starts_with(offbundle::kThinArchiveMagic) &&
      (bytes.find("dev") != std::string_view::npos ||
       bytes.find("proc") != std::string_view::npos))
    return 0;

  auto members = offbundle::readArchive(bytes, "fuzz.a");
  if (!members.ok())
    return 0;
  std::vector<offbundle::NewArchiveMember> rewritten;
  for (const offbundle::ArchiveMember &member : *members) {
    if (!member.externalContents && (member.bytes.data() < bytes.data() ||
                                     member.bytes.data() + member.bytes.size() >
                                         bytes.data() + bytes.size()))
      std::abort();
    rewritten.push_back({member.name, member.bytes});
  }
  offbundle::ArchiveWriteOptions options;
  options.bitcodeSymbols = [](std::string_view bitcode) {
    return offbundle::bitcodeArchiveSymbols(bitcode);
  };
  // A small threshold also exercises the 64-bit symbol table.
  options.sym64Threshold = data[size - 1] & 1 ? 64 : uint64_t{1} << 32;
  if (auto plan = offbundle::planGnuArchive(rewritten, options); plan.ok()) {
    uint64_t total = 0;
    (void)plan->stream([&](std::string_view piece) {
      total += piece.size();
      return offbundle::Status::success();
    });
    if (total != plan->size())
      std::abort();
  }
  return 0;
}
