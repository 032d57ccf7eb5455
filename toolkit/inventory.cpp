// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The records behind offbundle list and sizes, built from the public API's view
// of an input (see inventory.h for what a target is and how compressed
// bundles' file bytes are shared out).

#include "toolkit/inventory.h"

#include <algorithm>
#include <map>

#include "support/string_split.h"
#include "targets/amdgpu_spellings.h"
#include "targets/offload_target.h"

namespace offbundle {

namespace {

// The part of an entry ID after its kind and four triple fields: the
// target ID, or a processor the bundler does not know, which it then reads
// as no target ID at all. Empty when there is none.
std::string processorPartOf(std::string_view id) {
  const std::optional<std::string> normalized = normalizeStoredBundleId(id);
  if (!normalized)
    return "";
  const std::vector<std::string_view> parts = splitOnDash(*normalized, 6);
  return parts.size() < 6 ? "" : std::string(parts[5]);
}

} // namespace

std::string targetOf(const api::Entry &entry) {
  if (!entry.target)
    return entry.id;
  // A spelling of LLVM after version 22 counts as LLVM 22's: its ID without
  // the offload kind.
  if (const std::string spelled = llvm22EntryId(entry.id); spelled != entry.id)
    return spelled.substr(spelled.find('-') + 1);
  if (!entry.target->targetId.empty())
    return entry.target->triple + "-" + entry.target->targetId;
  // An unknown processor still tells its entries from the others.
  const std::string processor = processorPartOf(entry.id);
  if (!processor.empty())
    return entry.target->triple + "-" + processor;
  return entry.target->triple;
}

std::vector<InventoryEntry> listEntries(const api::Input &input) {
  std::vector<InventoryEntry> listed;
  const std::vector<api::Bundle> &bundles = input.bundles();
  for (size_t index = 0; index < bundles.size(); ++index) {
    const api::Bundle &bundle = bundles[index];
    for (size_t entryIndex = 0; entryIndex < bundle.entries.size();
         ++entryIndex) {
      const api::Entry &entry = bundle.entries[entryIndex];
      InventoryEntry item;
      item.id = entry.id;
      item.target = targetOf(entry);
      item.size = entry.size;
      item.uri = input.entryUri(index, entryIndex);
      item.bundle = index;
      item.member = bundle.member;
      item.section = bundle.section;
      item.compressed = bundle.compression.has_value();
      listed.push_back(std::move(item));
    }
  }
  return listed;
}

namespace {

// The room an entry takes in the file: its payload in a plain bundle, its
// share of a compressed bundle's size otherwise, and none in a bundle that
// is not in the file (no bundle in a file is 0 bytes long).
uint64_t fileBytesOf(const api::Bundle &bundle, const api::Entry &entry) {
  if (entry.storedSize)
    return *entry.storedSize;
  if (bundle.fileSize == 0)
    return 0;
  if (!bundle.compression)
    return entry.size;
  const uint64_t whole = bundle.compression->uncompressedSize;
  if (whole == 0)
    return 0;
  // 128-bit product: a bundle's sizes may each approach 2^64 in a header.
  const unsigned __int128 share =
      static_cast<unsigned __int128>(bundle.fileSize) * entry.size / whole;
  return static_cast<uint64_t>(share);
}

} // namespace

SizeSummary summarizeSizes(const api::Input &input, uint64_t fileSize) {
  SizeSummary summary;
  summary.fileSize = fileSize;
  std::map<std::string, TargetSize> perTarget;
  for (const api::Bundle &bundle : input.bundles()) {
    BundleTotals &totals = bundle.format == api::ContainerFormat::Kpack
                               ? summary.kpack
                           : bundle.compression ? summary.compressed
                                                : summary.plain;
    ++totals.bundles;
    totals.fileBytes += bundle.fileSize;
    for (const api::Entry &entry : bundle.entries) {
      const std::string target = targetOf(entry);
      TargetSize &size = perTarget[target];
      size.target = target;
      size.host = entry.target && entry.target->offloadKind == "host";
      ++size.entries;
      size.bytes += entry.size;
      size.fileBytes += fileBytesOf(bundle, entry);
      totals.bytes += entry.size;
    }
  }
  for (auto &[name, size] : perTarget)
    summary.targets.push_back(std::move(size));
  std::stable_sort(summary.targets.begin(), summary.targets.end(),
                   [](const TargetSize &a, const TargetSize &b) {
                     return a.fileBytes > b.fileBytes;
                   });
  return summary;
}

bool holdsNoBundle(const std::string &path) {
  api::Expected<api::Input> input = api::Input::open(path);
  return input && input->bundles().empty();
}

} // namespace offbundle
