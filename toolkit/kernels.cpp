// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle kernels (see kernels.h): each selected entry's code object read
// through api::readKernels, grouped by target, sorted, and reported.

#include "toolkit/kernels.h"

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <functional>
#include <memory>
#include <unordered_map>

#include "support/json_writer.h"
#include "toolkit/inventory.h"
#include "toolkit/reports.h"

namespace offbundle {
namespace {

// A field of a kernel as --sort and the JSON name it, its value, and
// whether larger values sort first.
struct KernelField {
  std::string_view name;
  std::function<uint64_t(const api::Kernel &)> value;
  bool largestFirst = true;
};

const std::vector<KernelField> &kernelFields() {
  static const std::vector<KernelField> fields = {
      {"vgpr_count", [](const api::Kernel &k) { return k.vgprCount; }},
      {"agpr_count", [](const api::Kernel &k) { return k.agprCount; }},
      {"sgpr_count", [](const api::Kernel &k) { return k.sgprCount; }},
      {"vgpr_spill_count",
       [](const api::Kernel &k) { return k.vgprSpillCount; }},
      {"sgpr_spill_count",
       [](const api::Kernel &k) { return k.sgprSpillCount; }},
      {"group_segment_fixed_size",
       [](const api::Kernel &k) { return k.groupSegmentFixedSize; }},
      {"private_segment_fixed_size",
       [](const api::Kernel &k) { return k.privateSegmentFixedSize; }},
      {"wavefront_size", [](const api::Kernel &k) { return k.wavefrontSize; }},
      {"max_flat_workgroup_size",
       [](const api::Kernel &k) { return k.maxFlatWorkgroupSize; }},
      {"kernarg_segment_size",
       [](const api::Kernel &k) { return k.kernargSegmentSize; }},
      // The kernel that limits a GPU comes first.
      {"occupancy",
       [](const api::Kernel &k) { return uint64_t{k.occupancy.value_or(0)}; },
       false},
      {"code_bytes",
       [](const api::Kernel &k) { return k.codeBytes.value_or(0); }},
  };
  return fields;
}

std::string demangled(const std::string &name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

void sortRows(std::vector<KernelRow> &rows, std::string_view field) {
  if (field.empty())
    return;
  if (field == "name") {
    std::stable_sort(
        rows.begin(), rows.end(),
        [](const KernelRow &a, const KernelRow &b) { return a.name < b.name; });
    return;
  }
  for (const KernelField &candidate : kernelFields())
    if (candidate.name == field)
      std::stable_sort(rows.begin(), rows.end(),
                       [&](const KernelRow &a, const KernelRow &b) {
                         const uint64_t x = candidate.value(a.kernel);
                         const uint64_t y = candidate.value(b.kernel);
                         return candidate.largestFirst ? x > y : x < y;
                       });
}

std::string optionalText(const std::optional<uint64_t> &value) {
  return value ? std::to_string(*value) : "-";
}

} // namespace

const std::vector<std::string_view> &kernelSortFields() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all = {"name"};
    for (const KernelField &field : kernelFields())
      all.push_back(field.name);
    return all;
  }();
  return names;
}

Result<std::vector<TargetKernels>> kernelsOf(const api::Input &input,
                                             const KernelsRequest &request) {
  std::vector<TargetKernels> targets;
  bool readAny = false;
  const std::vector<api::Bundle> &bundles = input.bundles();
  auto wanted = [&](const api::Entry &entry) {
    return entry.target && entry.target->triple.rfind("amdgcn", 0) == 0 &&
           (request.selectors.empty() ||
            anySelects(request.selectors, entry.id));
  };
  for (size_t b = 0; b < bundles.size(); ++b) {
    const std::vector<api::Entry> &entries = bundles[b].entries;
    if (std::none_of(entries.begin(), entries.end(), wanted))
      continue;
    readAny = true;
    // The bundle is read once; each code object's headers, notes and
    // symbols are read in place.
    std::optional<Error> failed;
    api::Outcome walked =
        input.forEachPayload(b, [&](size_t e, std::string_view payload) {
          const api::Entry &entry = entries.at(e);
          // Device bitcode (-fgpu-rdc objects) holds no kernels yet.
          if (!wanted(entry) || payload.rfind("\x7f"
                                              "ELF",
                                              0) != 0)
            return true;
          auto read = api::readKernels(payload);
          if (!read) {
            failed = fileError(input.path(), "entry '" + entry.id +
                                                 "': " + read.error().message);
            return false;
          }
          const std::string target = targetOf(entry);
          auto found = std::find_if(targets.begin(), targets.end(),
                                    [&](const TargetKernels &known) {
                                      return known.target == target;
                                    });
          if (found == targets.end()) {
            targets.push_back({target, {}});
            found = targets.end() - 1;
          }
          for (api::Kernel &kernel : read->kernels) {
            std::string name =
                request.demangle ? demangled(kernel.name) : kernel.name;
            found->kernels.push_back({std::move(kernel), std::move(name)});
          }
          return true;
        });
    if (failed)
      return std::move(*failed);
    if (!walked)
      return makeError(walked.error().message);
  }
  // Finding nothing to read rests on compressed bundles' headers, read
  // before their hashes could be checked: a damaged one could hide the
  // code objects asked for, so each is checked before the answer.
  if (!readAny)
    if (api::Outcome whole = input.checkCompressedBundles(); !whole)
      return makeError(whole.error().message);
  for (TargetKernels &target : targets)
    sortRows(target.kernels, request.sortField);
  return targets;
}

KernelTotals kernelTotals(const std::vector<FileKernels> &files, size_t top) {
  KernelTotals totals;
  std::unordered_map<std::string_view, size_t> byName;
  for (const FileKernels &file : files) {
    bool holdsKernels = false;
    for (const TargetKernels &target : file.targets) {
      for (const KernelRow &row : target.kernels) {
        holdsKernels = true;
        const uint64_t bytes = row.kernel.codeBytes.value_or(0);
        auto [at, added] =
            byName.try_emplace(row.kernel.name, totals.kernels.size());
        if (added)
          totals.kernels.push_back({row.name, 0, 0, {}, 0});
        KernelTotal &total = totals.kernels[at->second];
        total.codeBytes += bytes;
        total.instances += 1;
        total.largestCodeBytes = std::max(total.largestCodeBytes, bytes);
        if (std::find(total.targets.begin(), total.targets.end(),
                      target.target) == total.targets.end())
          total.targets.push_back(target.target);
        totals.instances += 1;
        totals.codeBytes += bytes;
      }
    }
    totals.files += holdsKernels ? 1 : 0;
  }
  std::stable_sort(totals.kernels.begin(), totals.kernels.end(),
                   [](const KernelTotal &a, const KernelTotal &b) {
                     if (a.codeBytes != b.codeBytes)
                       return a.codeBytes > b.codeBytes;
                     return a.name < b.name;
                   });
  totals.names = totals.kernels.size();
  if (top != 0 && totals.kernels.size() > top)
    totals.kernels.resize(top);
  return totals;
}

std::string kernelTotalsText(const KernelTotals &totals,
                             const api::FileWalk &walk) {
  if (totals.instances == 0) {
    const std::string skipped = skippedText(walk.skipped);
    return "no kernels\n" + (skipped.empty() ? "" : "\n" + skipped);
  }
  std::string text = counted(totals.instances, "kernel", "kernels") + " in " +
                     counted(totals.files, "file", "files") + ", " +
                     std::to_string(totals.codeBytes) +
                     " code bytes; summed by name over targets, largest first";
  if (totals.kernels.size() < totals.names)
    text += " (the " + std::to_string(totals.kernels.size()) + " largest of " +
            std::to_string(totals.names) + " names)";
  text += ":\n";
  text += "  code_bytes   share  instances  targets     largest  name\n";
  for (const KernelTotal &kernel : totals.kernels)
    text += "  " + padLeft(std::to_string(kernel.codeBytes), 10) + "  " +
            padLeft(percent(kernel.codeBytes, totals.codeBytes), 6) + "  " +
            padLeft(std::to_string(kernel.instances), 9) + "  " +
            padLeft(std::to_string(kernel.targets.size()), 7) + "  " +
            padLeft(std::to_string(kernel.largestCodeBytes), 10) + "  " +
            kernel.name + "\n";
  const std::string skipped = skippedText(walk.skipped);
  return skipped.empty() ? text : text + "\n" + skipped;
}

std::string kernelTotalsJson(const KernelTotals &totals,
                             const api::FileWalk &walk) {
  JsonWriter json;
  json.beginObject();
  json.field("files", uint64_t{totals.files});
  json.field("kernels", uint64_t{totals.instances});
  json.field("code_bytes", totals.codeBytes);
  json.field("names", uint64_t{totals.names});
  json.key("largest");
  json.beginArray();
  for (const KernelTotal &kernel : totals.kernels) {
    json.beginObject();
    json.field("name", kernel.name);
    json.field("code_bytes", kernel.codeBytes);
    json.field("instances", uint64_t{kernel.instances});
    json.key("targets");
    json.beginArray();
    for (const std::string &target : kernel.targets)
      json.string(target);
    json.endArray();
    json.field("largest_code_bytes", kernel.largestCodeBytes);
    json.endObject();
  }
  json.endArray();
  skippedJson(json, walk);
  json.endObject();
  return json.finish();
}

std::string kernelsText(const std::vector<FileKernels> &files,
                        const api::FileWalk &walk) {
  std::string text;
  for (const FileKernels &file : files) {
    for (const TargetKernels &target : file.targets) {
      text += file.file + ": " + target.target + ": " +
              counted(target.kernels.size(), "kernel", "kernels") + "\n";
      text += "  occupancy  vgpr  agpr  sgpr  vgpr_spill  sgpr_spill      "
              "lds  scratch  dyn_stack  wave  max_wg  kernarg  code_bytes  "
              "name\n";
      for (const KernelRow &row : target.kernels) {
        const api::Kernel &k = row.kernel;
        text += "  " +
                padLeft(k.occupancy ? std::to_string(*k.occupancy) : "-", 9) +
                "  " + padLeft(std::to_string(k.vgprCount), 4) + "  " +
                padLeft(std::to_string(k.agprCount), 4) + "  " +
                padLeft(std::to_string(k.sgprCount), 4) + "  " +
                padLeft(std::to_string(k.vgprSpillCount), 10) + "  " +
                padLeft(std::to_string(k.sgprSpillCount), 10) + "  " +
                padLeft(std::to_string(k.groupSegmentFixedSize), 7) + "  " +
                padLeft(std::to_string(k.privateSegmentFixedSize), 7) + "  " +
                padLeft(k.usesDynamicStack ? "yes" : "no", 9) + "  " +
                padLeft(std::to_string(k.wavefrontSize), 4) + "  " +
                padLeft(std::to_string(k.maxFlatWorkgroupSize), 6) + "  " +
                padLeft(std::to_string(k.kernargSegmentSize), 7) + "  " +
                padLeft(optionalText(k.codeBytes), 10) + "  " + row.name + "\n";
      }
    }
  }
  const std::string skipped = skippedText(walk.skipped);
  return skipped.empty() ? text : text + (text.empty() ? "" : "\n") + skipped;
}

std::string kernelsJson(const std::vector<FileKernels> &files,
                        const api::FileWalk &walk) {
  JsonWriter json;
  json.beginObject();
  json.key("files");
  json.beginArray();
  for (const FileKernels &file : files) {
    json.beginObject();
    json.field("file", file.file);
    json.key("targets");
    json.beginArray();
    for (const TargetKernels &target : file.targets) {
      json.beginObject();
      json.field("target", target.target);
      json.key("kernels");
      json.beginArray();
      for (const KernelRow &row : target.kernels) {
        const api::Kernel &k = row.kernel;
        json.beginObject();
        json.field("name", row.name);
        for (const KernelField &field : kernelFields()) {
          if (field.name == "occupancy") {
            json.field("occupancy", k.occupancy
                                        ? std::optional<uint64_t>(*k.occupancy)
                                        : std::nullopt);
          } else if (field.name == "code_bytes") {
            json.field("code_bytes", k.codeBytes);
          } else {
            json.field(field.name, field.value(k));
          }
        }
        json.key("uses_dynamic_stack");
        json.boolean(k.usesDynamicStack);
        json.endObject();
      }
      json.endArray();
      json.endObject();
    }
    json.endArray();
    json.endObject();
  }
  json.endArray();
  skippedJson(json, walk);
  json.endObject();
  return json.finish();
}

} // namespace offbundle
