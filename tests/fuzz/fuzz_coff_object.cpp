// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// COFF objects and PE images: their sections, the offload data in them
// split into elements, and a PE image's HIP fat binary wrappers. Whatever
// is read must lie inside the input: every view is walked byte by byte,
// which ASan checks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "formats/coff/coff_object.h"
#include "formats/coff/pe_hip_wrappers.h"
#include "formats/embedded_sections.h"
#include "fuzz_support.h"

namespace {

unsigned touch(std::string_view bytes) {
  unsigned sum = 0;
  for (char c : bytes)
    sum += static_cast<unsigned char>(c);
  return sum;
}

void checkSections(std::string_view input,
                   const std::vector<offbundle::CoffSection> &sections) {
  for (const offbundle::CoffSection &section : sections) {
    if (!section.contents.empty() &&
        (section.contents.data() < input.data() ||
         section.contents.data() + section.contents.size() >
             input.data() + input.size()))
      std::abort();
    (void)touch(section.contents);
  }
  for (const offbundle::OffloadDataSection &section :
       offbundle::findOffloadDataSections(sections)) {
    auto elements = offbundle::splitOffloadData(section.bytes);
    if (!elements)
      continue;
    for (const offbundle::OffloadDataElement &element : *elements)
      (void)touch(element.bytes);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view input = offbundle::fuzz::asView(data, size);
  if (auto sections = offbundle::readCoffSections(input))
    checkSections(input, *sections);
  if (auto sections = offbundle::readPeImageSections(input))
    checkSections(input, *sections);
  auto image = offbundle::readPeHipWrappers(input);
  if (image && *image) {
    const offbundle::HipWrappers &hip = (*image)->hip;
    if (hip.fatbinEnd < hip.fatbinStart)
      std::abort();
  }
  return 0;
}
