// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The editors of host files, one row per kind (host_editors.h).
#include "rewrite/host_editors.h"

#include <array>

namespace offbundle::rewriting {
namespace {

// A file that is one bundle (or claims nothing else).
Result<OutputPlan> editBundle(const std::string &file, std::string_view bytes,
                              BundleRewriter &rewriter) {
  return rewriter.rewrite(bytes, file);
}

// An ELF file, parsed once: every step reads this object. Program headers
// make it a linked file; without them it is a relocatable object.
Result<OutputPlan> editElf(const std::string &file, std::string_view bytes,
                           BundleRewriter &rewriter) {
  // An unknown class or byte order is no ELF file this reads.
  if (!isElf(bytes))
    return editBundle(file, bytes, rewriter);
  auto parsed = parseElfObject(bytes);
  if (!parsed)
    return fileError(file, parsed.error());
  if (parsed->header().programHeaderCount != 0)
    return rewriteLinked(file, *parsed, rewriter);
  return rewriteRelocatable(file, *parsed, rewriter);
}

Result<OutputPlan> editArchive(const std::string &file, std::string_view bytes,
                               BundleRewriter &rewriter) {
  return rewriteArchive(file, bytes, rewriter, rewriter.request());
}

constexpr std::array<HostEditorRow, kHostKindCount> kHostEditors = {{
    {HostKind::None, editBundle},
    {HostKind::Kpack, editBundle},
    {HostKind::Bundle, editBundle},
    {HostKind::OffloadBinary, editBundle},
    {HostKind::Elf, editElf},
    {HostKind::CoffObject, rewriteCoffObject},
    {HostKind::PeImage, rewritePeImage},
    {HostKind::Archive, editArchive},
    {HostKind::Bitcode, editBundle},
}};
static_assert(isIndexedByHostKind(kHostEditors));

} // namespace

const HostEditorRow &hostEditor(HostKind kind) {
  return kHostEditors[static_cast<size_t>(kind)];
}

} // namespace offbundle::rewriting
