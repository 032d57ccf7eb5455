// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The entry points of llvm-objcopy's object rewriting (objcopy.h): each
// command's edit, handed to the plan builder of objcopy_model.h.
#include "formats/objcopy/objcopy.h"

#include "formats/objcopy/objcopy_model.h"

#include <cstring>
#include <unordered_set>

namespace offbundle {

std::string ElfWritePlan::render() const {
  std::string out(size_, '\0');
  for (const ElfOutputChunk &chunk : chunks_)
    std::memcpy(out.data() + chunk.offset, chunk.bytes.data(),
                chunk.bytes.size());
  return out;
}

Status
ElfWritePlan::stream(const std::function<Status(std::string_view)> &writeBytes,
                     const std::function<Status(uint64_t)> &writeZeros) const {
  uint64_t position = 0;
  for (const ElfOutputChunk &chunk : chunks_) {
    if (chunk.offset > position)
      if (Status status = writeZeros(chunk.offset - position); !status.ok())
        return status;
    if (Status status = writeBytes(chunk.bytes); !status.ok())
      return status;
    position = chunk.offset + chunk.bytes.size();
  }
  if (size_ > position)
    return writeZeros(size_ - position);
  return Status::success();
}

Result<ElfWritePlan>
planOffloadBundleSections(std::string_view object,
                          const std::vector<OffloadBundleSection> &sections) {
  Result<ElfObject> parsed = parseElfObject(object);
  if (!parsed.ok())
    return parsed.takeError();
  // llvm-objcopy refuses two --set-section-flags for one section name.
  std::unordered_set<std::string_view> ids;
  for (const OffloadBundleSection &section : sections)
    if (!ids.insert(section.first).second)
      return makeError("--set-section-flags set multiple times for section '" +
                       std::string(kOffloadBundleSectionPrefix) +
                       section.first + "'");
  elf_rewrite::Edit edit;
  edit.added = &sections;
  return elf_rewrite::ElfPlanBuilder(*parsed).run(edit);
}

Result<ElfWritePlan> planSectionUpdate(const ElfObject &object,
                                       std::string_view sectionName,
                                       std::string_view contents) {
  const std::pair<std::string_view, std::string_view> updated{sectionName,
                                                              contents};
  elf_rewrite::Edit edit;
  edit.updated = &updated;
  return elf_rewrite::ElfPlanBuilder(object).run(edit);
}

Result<ElfWritePlan> planHostObjectExtraction(std::string_view object) {
  Result<ElfObject> parsed = parseElfObject(object);
  if (!parsed.ok())
    return parsed.takeError();
  elf_rewrite::Edit edit;
  edit.removeBundleSections = true;
  return elf_rewrite::ElfPlanBuilder(*parsed).run(edit);
}

} // namespace offbundle
