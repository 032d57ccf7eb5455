// The checks of a linked HIP file (see linked_file_check.h): each wrapper's
// magic and pointer, against the bundle starts found in .hip_fatbin, then
// the layout rules of formats/elf/linked_layout.h.
#include "api/linked_file_check.h"

#include <set>

#include "formats/elf/hip_wrappers.h"
#include "formats/elf/linked_layout.h"
#include "support/hex.h"
#include "support/offload_sections.h"

namespace offbundle::api {

offbundle::Status checkLinkedHipFile(const std::string &file,
                                     std::string_view bytes,
                                     const std::vector<Bundle> &bundles) {
  auto found = readHipWrappers(bytes);
  if (!found)
    return fileError(file, found.error().message);
  if (!*found)
    return offbundle::Status::success();
  const HipWrappers &wrappers = **found;
  // Where the bundles found in .hip_fatbin start, as addresses.
  std::set<uint64_t> bundleStarts;
  for (const Bundle &bundle : bundles)
    if (bundle.section == kHipFatbinSection && bundle.member.empty() &&
        bundle.fileOffset && *bundle.fileOffset >= wrappers.fatbinOffset)
      bundleStarts.insert(wrappers.fatbinStart +
                          (*bundle.fileOffset - wrappers.fatbinOffset));
  for (size_t index = 0; index < wrappers.wrappers.size(); ++index) {
    const HipWrapper &wrapper = wrappers.wrappers[index];
    const std::string which =
        quotedFileName(file) + ": HIP fat binary wrapper " +
        std::to_string(index) + " (at " + hexNumber(wrapper.address) + ")";
    if (wrapper.magic != kHipWrapperMagic)
      return makeError(which + " has magic " + hexNumber(wrapper.magic) +
                       ", not HIPF");
    if (wrapper.binary < wrappers.fatbinStart ||
        wrapper.binary >= wrappers.fatbinEnd)
      return makeError(which + " points to " + hexNumber(wrapper.binary) +
                       ", outside .hip_fatbin [" +
                       hexNumber(wrappers.fatbinStart) + ", " +
                       hexNumber(wrappers.fatbinEnd) + ")");
    if (bundleStarts.count(wrapper.binary) == 0)
      return makeError(which + " points to " + hexNumber(wrapper.binary) +
                       ", which is no bundle's start in .hip_fatbin");
  }
  if (Status layout = checkLinkedLayout(bytes); !layout.ok())
    return fileError(file, layout.error().message);
  return offbundle::Status::success();
}

} // namespace offbundle::api
