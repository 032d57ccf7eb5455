// The container-neutral parts of bundle_format.h: the entry walk every
// operation uses, the -type table (container and line comment per type) and
// the object file magic check.

#include "formats/bundle_format.h"
#include "formats/file_magic.h"

#include <array>
#include <cstring>

namespace offbundle {

Status forEachEntry(
    BundleReader &reader,
    const std::function<Result<EntryWalk>(std::string_view id)> &visit) {
  for (;;) {
    Result<std::optional<std::string_view>> next = reader.nextEntry();
    if (!next)
      return next.takeError();
    if (!*next)
      return Status::success();
    Result<EntryWalk> wanted = visit(**next);
    if (!wanted)
      return wanted.takeError();
    if (*wanted == EntryWalk::Stop)
      return Status::success();
  }
}

Result<ContainerChoice> containerForType(std::string_view filesType) {
  struct TypeEntry {
    std::string_view type;
    ContainerChoice choice;
  };
  static constexpr std::array<TypeEntry, 12> kTypes = {{
      {"i", {ContainerKind::Text, "//"}},
      {"ii", {ContainerKind::Text, "//"}},
      {"cui", {ContainerKind::Text, "//"}},
      {"hipi", {ContainerKind::Text, "//"}},
      {"d", {ContainerKind::Text, "#"}},
      {"ll", {ContainerKind::Text, ";"}},
      {"bc", {ContainerKind::Binary, ""}},
      {"s", {ContainerKind::Text, "#"}},
      {"o", {ContainerKind::ObjectOrBinary, ""}},
      {"a", {ContainerKind::ObjectOrBinary, ""}},
      {"gch", {ContainerKind::Binary, ""}},
      {"ast", {ContainerKind::Binary, ""}},
  }};
  for (const TypeEntry &entry : kTypes)
    if (entry.type == filesType)
      return entry.choice;
  return makeError("'" + std::string(filesType) +
                   "': invalid file type specified");
}

bool looksLikeObjectFile(std::string_view bytes) {
  const FileMagic magic = identifyFile(bytes);
  return magic == FileMagic::Elf || magic == FileMagic::MachO ||
         magic == FileMagic::Wasm;
}

} // namespace offbundle
