// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle list and sizes as text or JSON (see reports.h for the layouts),
// the JSON written with support/json_writer.h's JsonWriter.

#include "toolkit/reports.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "support/json_writer.h"

namespace offbundle {
namespace {

std::string entriesText(const std::vector<InventoryEntry> &entries) {
  std::string text;
  for (const InventoryEntry &entry : entries)
    text += entry.uri.value_or("-") + "\t" + entry.id + "\t" +
            std::to_string(entry.size) + "\n";
  return text;
}

void entriesJson(JsonWriter &json, const std::vector<InventoryEntry> &entries) {
  json.key("entries");
  json.beginArray();
  for (const InventoryEntry &entry : entries) {
    json.beginObject();
    json.field("bundle", uint64_t{entry.bundle});
    json.field("member", entry.member);
    json.field("section", entry.section);
    json.key("compressed");
    json.boolean(entry.compressed);
    json.field("id", entry.id);
    json.field("target", entry.target);
    json.field("size", entry.size);
    json.key("uri");
    entry.uri ? json.string(*entry.uri) : json.null();
    json.endObject();
  }
  json.endArray();
}

std::string summaryText(const std::string &path, const SizeSummary &summary) {
  std::string text = path + ": " + std::to_string(summary.fileSize) +
                     " bytes; " +
                     counted(summary.compressed.bundles +
                                 summary.plain.bundles + summary.kpack.bundles,
                             "bundle", "bundles") +
                     "\n";
  size_t nameWidth = std::string_view("target").size();
  for (const TargetSize &target : summary.targets)
    nameWidth = std::max(nameWidth, target.target.size());
  text += padRight("target", nameWidth) + "  " + padLeft("entries", 7) + "  " +
          padLeft("bytes", 12) + "  " + padLeft("file bytes", 12) + "  " +
          padLeft("share", 6) + "\n";
  for (const TargetSize &target : summary.targets)
    text += padRight(target.target, nameWidth) + "  " +
            padLeft(std::to_string(target.entries), 7) + "  " +
            padLeft(std::to_string(target.bytes), 12) + "  " +
            padLeft(std::to_string(target.fileBytes), 12) + "  " +
            padLeft(percent(target.fileBytes, summary.fileSize), 6) + "\n";
  text += "compressed bundles: " + std::to_string(summary.compressed.bundles) +
          ", " + std::to_string(summary.compressed.fileBytes) +
          " bytes in the file, " + std::to_string(summary.compressed.bytes) +
          " bytes of payloads uncompressed\n";
  text += "plain bundles: " + std::to_string(summary.plain.bundles) + ", " +
          std::to_string(summary.plain.fileBytes) + " bytes in the file, " +
          std::to_string(summary.plain.bytes) + " bytes of payloads\n";
  if (summary.kpack.bundles != 0)
    text += "kpack bundles: " + std::to_string(summary.kpack.bundles) + ", " +
            std::to_string(summary.kpack.fileBytes) + " bytes in the file, " +
            std::to_string(summary.kpack.bytes) + " bytes of code objects" +
            (summary.kpack.fileBytes == 0 ? " in the archives it names" : "") +
            "\n";
  return text;
}

void totalsJson(JsonWriter &json, std::string_view name,
                const BundleTotals &totals) {
  json.key(name);
  json.beginObject();
  json.field("bundles", totals.bundles);
  json.field("file_bytes", totals.fileBytes);
  json.field("bytes", totals.bytes);
  json.endObject();
}

void summaryJson(JsonWriter &json, const SizeSummary &summary) {
  json.field("file_size", summary.fileSize);
  json.key("targets");
  json.beginArray();
  for (const TargetSize &target : summary.targets) {
    json.beginObject();
    json.field("target", target.target);
    json.field("entries", target.entries);
    json.field("bytes", target.bytes);
    json.field("file_bytes", target.fileBytes);
    json.key("share");
    json.fraction(target.fileBytes, summary.fileSize);
    json.endObject();
  }
  json.endArray();
  totalsJson(json, "compressed", summary.compressed);
  totalsJson(json, "plain", summary.plain);
  if (summary.kpack.bundles != 0)
    totalsJson(json, "kpack", summary.kpack);
}

// "files": one object per file, its name then what `describe` writes.
template <typename Part, typename Describe>
void filesJson(JsonWriter &json, const std::vector<Part> &files,
               Describe describe) {
  json.key("files");
  json.beginArray();
  for (const auto &[file, contents] : files) {
    json.beginObject();
    json.field("file", file);
    describe(json, contents);
    json.endObject();
  }
  json.endArray();
}

// A report followed, after a blank line, by what a folder walk skipped.
std::string withSkipped(std::string text, const api::FileWalk &walk) {
  const std::string skipped = skippedText(walk.skipped);
  if (skipped.empty())
    return text;
  return text + (text.empty() ? "" : "\n") + skipped;
}

} // namespace

std::string padLeft(const std::string &text, size_t width) {
  return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
}

std::string padRight(const std::string &text, size_t width) {
  return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
}

void skippedJson(JsonWriter &json, const api::FileWalk &walk) {
  if (!walk.walkedFolder)
    return;
  json.key("skipped");
  json.beginObject();
  json.field("no_gpu_code", walk.skipped.noGpuCode);
  json.field("symlinks", walk.skipped.symlinks);
  json.field("special_files", walk.skipped.special);
  json.endObject();
}

std::string percent(uint64_t part, uint64_t whole) {
  if (whole == 0)
    return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f%%",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return text;
}

uint64_t gpuBytes(const SizeSummary &summary) {
  return summary.compressed.fileBytes + summary.plain.fileBytes +
         summary.kpack.fileBytes;
}

std::vector<const FileSizes *>
rankedByGpuBytes(const std::vector<FileSizes> &files) {
  std::vector<const FileSizes *> ranked;
  for (const FileSizes &file : files)
    ranked.push_back(&file);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const FileSizes *a, const FileSizes *b) {
                     return gpuBytes(a->summary) > gpuBytes(b->summary);
                   });
  return ranked;
}

std::string skippedText(const api::SkippedFiles &skipped) {
  std::vector<std::string> parts;
  if (skipped.noGpuCode != 0)
    parts.push_back(counted(skipped.noGpuCode, "file", "files") +
                    " holding no GPU code");
  if (skipped.symlinks != 0)
    parts.push_back(counted(skipped.symlinks, "symlink", "symlinks") +
                    " (not followed)");
  if (skipped.special != 0)
    parts.push_back(counted(skipped.special, "special file", "special files"));
  if (parts.empty())
    return "";
  std::string text = "skipped";
  for (size_t i = 0; i < parts.size(); ++i)
    text += (i == 0 ? " " : ", ") + parts[i];
  return text + "\n";
}

std::string counted(uint64_t count, const std::string &singular,
                    const std::string &plural) {
  return std::to_string(count) + " " + (count == 1 ? singular : plural);
}

std::string rewriteSummary(const std::string &output, api::RewriteKind kind,
                           const api::RewriteReport &report) {
  std::string summary = output + ": " + std::to_string(report.inputSize) +
                        " -> " + std::to_string(report.outputSize) + " bytes";
  if (kind == api::RewriteKind::Prune)
    summary += ", " + counted(report.entriesKept, "entry", "entries") +
               " kept, " + std::to_string(report.entriesRemoved) + " removed";
  else if (!report.changed && !report.nothingToDo.empty())
    summary += ", unchanged: " + report.nothingToDo;
  else if (!report.changed)
    summary +=
        std::string(", already ") +
        (kind == api::RewriteKind::Compress ? "compressed" : "uncompressed");
  return summary + "\n";
}

std::string listText(const std::vector<FileEntries> &files,
                     const api::FileWalk &walk) {
  std::string text;
  for (const auto &[file, entries] : files) {
    if (files.size() > 1 || walk.walkedFolder)
      text += (text.empty() ? "" : "\n") + file + ":\n";
    text += entriesText(entries);
  }
  return withSkipped(std::move(text), walk);
}

std::string listJson(const std::vector<FileEntries> &files,
                     const api::FileWalk &walk) {
  JsonWriter json;
  json.beginObject();
  filesJson(json, files, entriesJson);
  skippedJson(json, walk);
  json.endObject();
  return json.finish();
}

// For folders: the totals per target over every file, then the files by
// their GPU bytes, largest first.
std::string folderSizesText(const std::vector<FileSizes> &files) {
  std::string text =
      summaryText("total of " + counted(files.size(), "file", "files"),
                  combineSizes(files));
  const std::vector<const FileSizes *> ranked = rankedByGpuBytes(files);
  text += "\nfiles by GPU bytes:\n" + padLeft("GPU bytes", 12) + "  " +
          padLeft("file bytes", 12) + "  " + padLeft("share", 6) + "  file\n";
  for (const FileSizes *file : ranked)
    text +=
        padLeft(std::to_string(gpuBytes(file->summary)), 12) + "  " +
        padLeft(std::to_string(file->summary.fileSize), 12) + "  " +
        padLeft(percent(gpuBytes(file->summary), file->summary.fileSize), 6) +
        "  " + file->file + "\n";
  return text;
}

std::string sizesText(const std::vector<FileSizes> &files,
                      const api::FileWalk &walk) {
  if (walk.walkedFolder)
    return withSkipped(files.empty() ? "" : folderSizesText(files), walk);
  std::string text;
  for (const auto &[file, summary] : files)
    text += (text.empty() ? "" : "\n") + summaryText(file, summary);
  return withSkipped(std::move(text), walk);
}

std::string sizesJson(const std::vector<FileSizes> &files,
                      const api::FileWalk &walk) {
  JsonWriter json;
  json.beginObject();
  filesJson(json, files, summaryJson);
  summaryJson(json, combineSizes(files));
  skippedJson(json, walk);
  json.endObject();
  return json.finish();
}

SizeSummary combineSizes(const std::vector<FileSizes> &files) {
  SizeSummary total;
  for (const auto &[file, summary] : files) {
    total.fileSize += summary.fileSize;
    for (auto [part, from] : {std::pair{&total.compressed, &summary.compressed},
                              std::pair{&total.plain, &summary.plain},
                              std::pair{&total.kpack, &summary.kpack}}) {
      part->bundles += from->bundles;
      part->fileBytes += from->fileBytes;
      part->bytes += from->bytes;
    }
    for (const TargetSize &target : summary.targets) {
      auto found = std::find_if(total.targets.begin(), total.targets.end(),
                                [&](const TargetSize &known) {
                                  return known.target == target.target;
                                });
      if (found == total.targets.end()) {
        total.targets.push_back(target);
        continue;
      }
      found->entries += target.entries;
      found->bytes += target.bytes;
      found->fileBytes += target.fileBytes;
    }
  }
  std::stable_sort(total.targets.begin(), total.targets.end(),
                   [](const TargetSize &a, const TargetSize &b) {
                     return a.fileBytes > b.fileBytes;
                   });
  return total;
}

std::string unpackedKpackText(const std::string &input,
                              const std::string &output, size_t bundles,
                              size_t codeObjects, bool compressed) {
  return input + ": " + counted(bundles, "bundle", "bundles") + " (" +
         counted(codeObjects, "code object", "code objects") + ")" +
         (compressed ? ", compressed," : "") + " unpacked into " + output +
         "\n";
}

} // namespace offbundle
