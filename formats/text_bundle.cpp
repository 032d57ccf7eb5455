// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text bundles (see text_bundle.h for the markers): a reader that searches
// forward from a cursor for each marker, as LLVM's bundler does, and the
// writer.

#include "formats/text_bundle.h"
#include "support/output_file.h"

namespace offbundle {
namespace {

std::string markerPrefix(std::string_view comment, std::string_view which) {
  std::string marker = "\n";
  marker += comment;
  marker += " ";
  marker += kBundleMagic;
  marker += which;
  marker += " ";
  return marker;
}

} // namespace

TextBundleReader::TextBundleReader(std::string_view contents,
                                   std::string_view comment)
    : contents_(contents), startMarker_(markerPrefix(comment, "__START__")),
      endMarker_(markerPrefix(comment, "__END__")) {}

Result<std::optional<std::string_view>> TextBundleReader::nextEntry() {
  if (cursor_ == std::string_view::npos)
    return std::optional<std::string_view>();
  size_t start = contents_.find(startMarker_, cursor_);
  if (start == std::string_view::npos) {
    cursor_ = std::string_view::npos;
    return std::optional<std::string_view>();
  }
  size_t idBegin = start + startMarker_.size();
  size_t idEnd = contents_.find('\n', idBegin);
  if (idEnd == std::string_view::npos) {
    // A start marker on the last line, with nothing after it, ends the walk.
    cursor_ = std::string_view::npos;
    return std::optional<std::string_view>();
  }
  cursor_ = idEnd + 1;
  currentId_ = contents_.substr(idBegin, idEnd - idBegin);
  return std::optional<std::string_view>(currentId_);
}

Status TextBundleReader::moveToEndMarker() {
  size_t end = contents_.find(endMarker_, cursor_);
  if (end == std::string_view::npos)
    return makeError("malformed text bundle: entry '" +
                     std::string(currentId_) + "' has no end marker");
  cursor_ = end;
  return Status::success();
}

void TextBundleReader::movePastEndLine() {
  // cursor_ is at the newline that opens the end marker; skip its line.
  size_t lineEnd = contents_.find('\n', cursor_ + 1);
  cursor_ =
      lineEnd == std::string_view::npos ? std::string_view::npos : lineEnd + 1;
}

Result<EntryPayload> TextBundleReader::readEntry() {
  size_t payloadBegin = cursor_;
  if (Status status = moveToEndMarker(); !status.ok())
    return status.takeError();
  EntryPayload payload;
  payload.offset = payloadBegin;
  payload.size = cursor_ - payloadBegin;
  movePastEndLine();
  return payload;
}

Status TextBundleReader::skipEntry() {
  if (Status status = moveToEndMarker(); !status.ok())
    return status;
  movePastEndLine();
  return Status::success();
}

Status writeTextBundle(OutputFile &output, std::string_view comment,
                       const std::vector<EntryToWrite> &entries) {
  const std::string start = markerPrefix(comment, "__START__");
  const std::string end = markerPrefix(comment, "__END__");
  for (const EntryToWrite &entry : entries) {
    std::string line = start;
    line += entry.id;
    line += '\n';
    if (Status status = output.write(line); !status.ok())
      return status;
    if (Status status =
            output.copyFrom(*entry.payload, 0, entry.payload->size());
        !status.ok())
      return status;
    line = end;
    line += entry.id;
    line += '\n';
    if (Status status = output.write(line); !status.ok())
      return status;
  }
  return Status::success();
}

} // namespace offbundle
