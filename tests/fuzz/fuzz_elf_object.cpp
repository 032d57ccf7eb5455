// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ELF objects: parsing, the host extraction llvm-objcopy would do, adding
// bundle sections, the archive writer's symbol listing, and the HIP fat
// binary wrappers of linked files.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "archive/archive_symbols.h"
#include "formats/elf/elf_object.h"
#include "formats/elf/hip_wrappers.h"
#include "formats/objcopy/objcopy.h"
#include "fuzz_support.h"

namespace {

// A plan describes the output as chunks in increasing, non-overlapping
// order inside its size; anything else would write garbage or read out of
// bounds when streamed.
void checkPlan(const offbundle::ElfWritePlan &plan) {
  uint64_t end = 0;
  for (const offbundle::ElfOutputChunk &chunk : plan.chunks()) {
    if (chunk.bytes.empty() || chunk.offset < end ||
        chunk.bytes.size() > plan.size() - chunk.offset)
      std::abort();
    end = chunk.offset + chunk.bytes.size();
  }
  // Streaming touches every byte of every chunk, which ASan checks.
  uint64_t streamed = 0;
  unsigned checksum = 0;
  auto status = plan.stream(
      [&](std::string_view bytes) {
        for (char c : bytes)
          checksum += static_cast<unsigned char>(c);
        streamed += bytes.size();
        return offbundle::Status::success();
      },
      [&](uint64_t zeros) {
        streamed += zeros;
        return offbundle::Status::success();
      });
  if (!status.ok() || streamed != plan.size())
    std::abort();
  // Keeps the reads above from being optimised away.
  volatile unsigned sink = checksum;
  (void)sink;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes = offbundle::fuzz::asView(data, size);
  if (!offbundle::isElf(bytes))
    return 0;

  // The HIP fat binary wrappers of linked files, as offbundle verify reads
  // them: .hip_fatbin's address range must not wrap around.
  if (auto wrappers = offbundle::readHipWrappers(bytes);
      wrappers.ok() && *wrappers &&
      (*wrappers)->fatbinEnd < (*wrappers)->fatbinStart)
    std::abort();

  if (auto object = offbundle::parseElfObject(bytes); object.ok()) {
    for (const offbundle::ElfSection &section : object->sections()) {
      std::string_view contents = object->contents(section);
      if (!contents.empty() &&
          (contents.data() < bytes.data() ||
           contents.data() + contents.size() > bytes.data() + bytes.size()))
        std::abort();
    }
  }

  if (auto plan = offbundle::planHostObjectExtraction(bytes); plan.ok())
    checkPlan(*plan);

  const std::vector<offbundle::OffloadBundleSection> sections = {
      {"host-x86_64-unknown-linux-gnu-", std::string_view("\0", 1)},
      {"hip-amdgcn-amd-amdhsa--gfx906", "device code"},
  };
  if (auto plan = offbundle::planOffloadBundleSections(bytes, sections);
      plan.ok())
    checkPlan(*plan);

  (void)offbundle::archiveSymbolsOf(bytes);
  return 0;
}
