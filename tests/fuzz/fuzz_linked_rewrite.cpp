// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle prune, compress and decompress of executables and shared
// libraries, on any bytes: the seeds are small HIP programs and libraries
// linked by lld, whose .hip_fatbin, wrappers, relocations, symbols and
// program headers the fuzzer mutates. A rewrite that succeeds must give a
// linked file that still parses, whose HIP wrappers are as many as before
// and each point at the start of a bundle inside the new .hip_fatbin; and
// when the input kept the layout rules that strip, objcopy, eu-strip,
// patchelf and the loader rely on (rewrite/elf/linked_layout.h: the program
// header table at the start of a PT_LOAD with PT_PHDR on it, every
// allocated section inside one segment, offsets congruent to addresses,
// the section header table in file order), so must the output.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/elf/elf_object.h"
#include "formats/elf/hip_wrappers.h"
#include "fuzz_support.h"
#include "rewrite/elf/linked_layout.h"
#include "rewrite/rewrite.h"

namespace {

offbundle::RewriteRequest request(offbundle::RewriteKind kind) {
  offbundle::RewriteRequest made;
  made.kind = kind;
  made.compressionLevel = 1; // fast; the layout does not depend on it
  if (kind == offbundle::RewriteKind::Prune) {
    auto keep = offbundle::parseTargetSelectors({"gfx906"});
    if (!keep)
      std::abort();
    made.keep = std::move(*keep);
  }
  return made;
}

bool startsBundle(std::string_view bytes) {
  return bytes.substr(0, 4) == "CCOB" ||
         bytes.substr(0, 24) == "__CLANG_OFFLOAD_BUNDLE__";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view contents = offbundle::fuzz::asView(data, size);
  auto before = offbundle::readHipWrappers(contents);
  if (!before || !*before)
    return 0;
  const bool laidOut = offbundle::checkLinkedLayout(contents).ok();
  for (offbundle::RewriteKind kind :
       {offbundle::RewriteKind::Prune, offbundle::RewriteKind::Compress,
        offbundle::RewriteKind::Decompress}) {
    auto result = offbundle::rewriteFile("input", contents, request(kind));
    // Past 64 MiB (a bundle claiming a huge uncompressed size), reading
    // the output back would only measure memory.
    if (!result || !result->changed || result->plan.size() > (64u << 20))
      continue;
    // A bundle that fails to decompress fails the write.
    auto rendered = result->plan.render(contents);
    if (!rendered)
      continue;
    const std::string &written = *rendered;
    if (!offbundle::parseElfObject(written))
      std::abort();
    if (laidOut && !offbundle::checkLinkedLayout(written).ok())
      std::abort();
    auto after = offbundle::readHipWrappers(written);
    if (!after || !*after ||
        (*after)->wrappers.size() != (*before)->wrappers.size())
      std::abort();
    const offbundle::HipWrappers &found = **after;
    for (const offbundle::HipWrapper &wrapper : found.wrappers) {
      if (wrapper.binary < found.fatbinStart ||
          wrapper.binary >= found.fatbinEnd)
        std::abort();
      const uint64_t at =
          found.fatbinOffset + (wrapper.binary - found.fatbinStart);
      if (!startsBundle(std::string_view(written).substr(at)))
        std::abort();
    }
  }
  return 0;
}
