// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The sizes report as one self-contained page (see html_report.h).
#include "toolkit/html_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <sys/stat.h>

#include "support/number_text.h"
#include "support/output_transaction.h"

namespace offbundle {
namespace {

std::string escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string number(uint64_t value) { return withThousandsSeparators(value); }

// A numeric cell, shown grouped and sorted by its value.
std::string numberCell(uint64_t value) {
  return "<td class=\"n\" data-value=\"" + std::to_string(value) + "\">" +
         number(value) + "</td>";
}

constexpr std::string_view kStyle = R"(<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #ddd; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
#files th { cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \25B2"; }
th[aria-sort=descending]::after { content: " \25BC"; }
svg text { font: 12px monospace; }
.bar { fill: #3b7dd8; } .host { fill: #999; }
</style>)";

constexpr std::string_view kScript = R"(<script>
(function () {
  var table = document.getElementById("files");
  var body = table.tBodies[0];
  var headers = table.tHead.rows[0].cells;
  var current = -1, descending = false;
  function sortBy(index, down) {
    var numeric = headers[index].getAttribute("data-type") === "number";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[index].getAttribute("data-value");
      var y = b.cells[index].getAttribute("data-value");
      var order = numeric ? Number(x) - Number(y) : (x < y ? -1 : x > y ? 1 : 0);
      return down ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    for (var i = 0; i < headers.length; ++i)
      headers[i].removeAttribute("aria-sort");
    headers[index].setAttribute("aria-sort", down ? "descending" : "ascending");
    current = index;
    descending = down;
  }
  Array.prototype.forEach.call(headers, function (header, index) {
    header.addEventListener("click", function () {
      sortBy(index, current === index ? !descending
                 : header.getAttribute("data-type") === "number");
    });
  });
  var wanted = /^#sort=(-?)(.+)$/.exec(location.hash);
  if (wanted)
    Array.prototype.forEach.call(headers, function (header, index) {
      if (header.getAttribute("data-key") === decodeURIComponent(wanted[2]))
        sortBy(index, wanted[1] === "-");
    });
})();
</script>)";

std::string totalsSection(const std::vector<FileSizes> &files,
                          const SizeSummary &total, const api::FileWalk &walk) {
  const uint64_t gpu = gpuBytes(total);
  std::string html =
      "<h1>GPU code in " + counted(files.size(), "file", "files") + "</h1>\n";
  html += "<p id=\"totals\">" + counted(files.size(), "file", "files") + ", " +
          number(total.fileSize) + " bytes; GPU code: <b id=\"gpu-bytes\">" +
          number(gpu) + "</b> bytes (" + percent(gpu, total.fileSize) +
          ") in " +
          counted(total.compressed.bundles + total.plain.bundles, "bundle",
                  "bundles") +
          " (" + number(total.compressed.bundles) + " compressed)</p>\n";
  const std::string skipped = skippedText(walk.skipped);
  if (!skipped.empty())
    html += "<p>" + escaped(skipped.substr(0, skipped.size() - 1)) + "</p>\n";
  return html;
}

// The targets as horizontal bars, the longest the largest.
std::string chartSection(const SizeSummary &total) {
  constexpr uint64_t kLabelWidth = 330, kBarWidth = 420, kRowHeight = 22;
  uint64_t largest = 1;
  for (const TargetSize &target : total.targets)
    largest = std::max(largest, target.fileBytes);
  const uint64_t height = kRowHeight * total.targets.size() + 4;
  std::string html =
      "<h2>Targets by the room they take</h2>\n<svg id=\"chart\" "
      "width=\"" +
      std::to_string(kLabelWidth + kBarWidth + 160) + "\" height=\"" +
      std::to_string(height) + "\">\n";
  uint64_t y = 2;
  for (const TargetSize &target : total.targets) {
    const uint64_t width = std::max<uint64_t>(
        1, static_cast<uint64_t>(static_cast<double>(target.fileBytes) /
                                 static_cast<double>(largest) * kBarWidth));
    html +=
        "<text x=\"0\" y=\"" + std::to_string(y + 15) + "\">" +
        escaped(target.target) + "</text><rect class=\"" +
        (target.host ? "host" : "bar") + "\" x=\"" +
        std::to_string(kLabelWidth) + "\" y=\"" + std::to_string(y) +
        "\" width=\"" + std::to_string(width) + "\" height=\"" +
        std::to_string(kRowHeight - 4) + "\"><title>" + escaped(target.target) +
        ": " + number(target.fileBytes) + " bytes</title></rect><text x=\"" +
        std::to_string(kLabelWidth + width + 6) + "\" y=\"" +
        std::to_string(y + 15) + "\">" + number(target.fileBytes) + "</text>\n";
    y += kRowHeight;
  }
  return html + "</svg>\n";
}

// Per GPU target: what pruning every file holding it down to it would
// remove, the other GPU targets' room in those files.
std::string savingsSection(const std::vector<FileSizes> &files,
                           const SizeSummary &total) {
  std::string html = "<h2>What keeping one GPU target would save</h2>\n"
                     "<table id=\"savings\"><thead><tr><th>target kept</th>"
                     "<th>files holding it</th><th>bytes saved</th>"
                     "<th>share of all bytes</th></tr></thead><tbody>\n";
  for (const TargetSize &kept : total.targets) {
    if (kept.host)
      continue;
    uint64_t saved = 0, holding = 0;
    for (const FileSizes &file : files) {
      uint64_t keptBytes = 0, deviceBytes = 0;
      bool holds = false;
      for (const TargetSize &target : file.summary.targets) {
        if (target.host)
          continue;
        deviceBytes += target.fileBytes;
        if (target.target == kept.target) {
          holds = true;
          keptBytes = target.fileBytes;
        }
      }
      if (holds) {
        ++holding;
        saved += deviceBytes - keptBytes;
      }
    }
    html += "<tr><td>" + escaped(kept.target) + "</td>" + numberCell(holding) +
            numberCell(saved) + "<td class=\"n\" data-value=\"" +
            std::to_string(saved) + "\">" + percent(saved, total.fileSize) +
            "</td></tr>\n";
  }
  return html + "</tbody></table>\n";
}

std::string filesSection(const std::vector<FileSizes> &files,
                         const SizeSummary &total) {
  std::string html =
      "<h2>Files</h2>\n<table id=\"files\"><thead><tr>"
      "<th data-key=\"file\" data-type=\"text\">file</th>"
      "<th data-key=\"bytes\" data-type=\"number\">bytes</th>"
      "<th data-key=\"gpu\" data-type=\"number\" aria-sort=\"descending\">"
      "GPU bytes</th>"
      "<th data-key=\"share\" data-type=\"number\">GPU share</th>";
  for (const TargetSize &target : total.targets)
    html += "<th data-key=\"" + escaped(target.target) +
            "\" data-type=\"number\">" + escaped(target.target) + "</th>";
  html += "</tr></thead><tbody>\n";
  for (const FileSizes *file : rankedByGpuBytes(files)) {
    const uint64_t gpu = gpuBytes(file->summary);
    const uint64_t perMillion = file->summary.fileSize == 0
                                    ? 0
                                    : gpu * 1000000 / file->summary.fileSize;
    html += "<tr><td data-value=\"" + escaped(file->file) + "\">" +
            escaped(file->file) + "</td>" + numberCell(file->summary.fileSize) +
            numberCell(gpu) + "<td class=\"n\" data-value=\"" +
            std::to_string(perMillion) + "\">" +
            percent(gpu, file->summary.fileSize) + "</td>";
    std::map<std::string, uint64_t> room;
    for (const TargetSize &target : file->summary.targets)
      room[target.target] = target.fileBytes;
    for (const TargetSize &target : total.targets)
      html += numberCell(room.count(target.target) ? room[target.target] : 0);
    html += "</tr>\n";
  }
  return html + "</tbody></table>\n";
}

} // namespace

Status writeSizesHtml(const std::string &path,
                      const std::vector<FileSizes> &files,
                      const api::FileWalk &walk) {
  // A page written over a file the run read (named by a slip of the
  // command line) would lose that file.
  if (struct stat info; ::stat(path.c_str(), &info) == 0) {
    std::set<std::string_view> described;
    for (const FileSizes &file : files)
      described.insert(file.file);
    for (const api::WalkedFile &file : walk.files)
      if ((!file.inFolder || described.count(file.path) != 0) &&
          file.device == static_cast<uint64_t>(info.st_dev) &&
          file.inode == static_cast<uint64_t>(info.st_ino))
        return fileError(path, "is a file this run reads; the page is not "
                               "written over it");
  }
  OutputTransaction transaction;
  auto output = transaction.create(path);
  if (!output)
    return output.takeError();
  if (Status written = (*output)->write(sizesHtml(files, walk)); !written.ok())
    return written;
  return transaction.commit();
}

std::string sizesHtml(const std::vector<FileSizes> &files,
                      const api::FileWalk &walk) {
  const SizeSummary total = combineSizes(files);
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
         "charset=\"utf-8\">\n<title>offbundle sizes</title>\n" +
         std::string(kStyle) + "\n</head>\n<body>\n" +
         totalsSection(files, total, walk) + chartSection(total) +
         savingsSection(files, total) + filesSection(files, total) +
         std::string(kScript) + "\n</body>\n</html>\n";
}

} // namespace offbundle
