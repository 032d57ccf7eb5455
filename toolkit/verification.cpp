// offbundle verify's checks of a linked HIP file (see verification.h): each
// wrapper's magic and pointer, against the bundle starts the public API found
// in .hip_fatbin, then the layout rules of formats/elf/linked_layout.h.

#include "toolkit/verification.h"

#include <set>

#include "formats/elf/hip_wrappers.h"
#include "formats/elf/linked_layout.h"
#include "support/file_io.h"
#include "support/hex.h"
#include "support/offload_sections.h"
#include "toolkit/reports.h"

namespace offbundle {
Status checkLinkedHipFile(const std::string &file, std::string_view bytes,
                          const api::Input &input) {
  auto found = readHipWrappers(bytes);
  if (!found)
    return fileError(file, found.error().message);
  if (!*found)
    return Status::success();
  const HipWrappers &wrappers = **found;
  // Where the bundles found in .hip_fatbin start, as addresses.
  std::set<uint64_t> bundleStarts;
  for (const api::Bundle &bundle : input.bundles())
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
  return Status::success();
}

Result<std::string> verifyFile(const std::string &file) {
  api::Expected<api::Input> input = api::Input::open(file);
  if (!input)
    return makeError(input.error().message);
  auto bytes = InputFile::open(file);
  if (!bytes)
    return bytes.takeError();
  if (Status wrappersGood =
          checkLinkedHipFile(file, (*bytes)->contents(), *input);
      !wrappersGood.ok())
    return wrappersGood.takeError();
  uint64_t entries = 0;
  uint64_t compressed = 0;
  for (const api::Bundle &bundle : input->bundles()) {
    entries += bundle.entries.size();
    compressed += bundle.compression ? 1 : 0;
  }
  return file + ": ok, " +
         counted(input->bundles().size(), "bundle", "bundles") + " (" +
         std::to_string(compressed) + " compressed, " +
         (compressed == 0 ? "no hashes to check" : "hashes match") + "), " +
         counted(entries, "entry", "entries") + "\n";
}

} // namespace offbundle
