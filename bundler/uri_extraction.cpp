// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-extract-bundle-entry's work (see uri_extraction.h): reading a URI by
// LLVM 23's rules, checking the range against the file, and copying it out.

#include "bundler/uri_extraction.h"

#include <cerrno>
#include <optional>
#include <sys/stat.h>

#include "formats/code_object_uri.h"
#include "formats/file_magic.h"
#include "support/number_text.h"
#include "support/output_transaction.h"

namespace offbundle {
namespace {

constexpr std::string_view kFileScheme = "file://";

// Decimal digits, or 0x and hexadecimal digits; nothing else, no sign.
std::optional<uint64_t> parseUriNumber(std::string_view text) {
  unsigned radix = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    radix = 16;
    text.remove_prefix(2);
  }
  return parseDigits(text, radix);
}

Error unreadableNumber(std::string_view field, std::string_view text) {
  return Error{"Reading '" + std::string(field) + "' in URI: '" +
               std::string(text) +
               "' is not a decimal or 0x hexadecimal number"};
}

bool pathExists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

} // namespace

Result<ExtractionUri> parseExtractionUri(std::string_view text) {
  if (!text.starts_with(kFileScheme))
    return Error{"Reading type of URI"};
  std::string_view rest = text.substr(kFileScheme.size());
  const size_t rangeAt = rest.find_first_of("#?");
  ExtractionUri uri;
  uri.writtenPath = std::string(rest.substr(0, rangeAt));
  if (rangeAt == std::string_view::npos ||
      !rest.substr(rangeAt + 1).starts_with("offset="))
    return Error{"Reading 'offset' in URI"};
  rest.remove_prefix(rangeAt + 1 + std::string_view("offset=").size());

  const size_t ampersand = rest.find('&');
  std::string_view offsetText = rest.substr(0, ampersand);
  rest = ampersand == std::string_view::npos ? std::string_view()
                                             : rest.substr(ampersand);
  if (!rest.starts_with("&size="))
    return Error{"Reading 'size' in URI"};
  std::string_view sizeText = rest.substr(std::string_view("&size=").size());

  std::optional<uint64_t> offset = parseUriNumber(offsetText);
  if (!offset)
    return unreadableNumber("offset", offsetText);
  std::optional<uint64_t> size = parseUriNumber(sizeText);
  if (!size)
    return unreadableNumber("size", sizeText);
  uri.offset = *offset;
  uri.size = *size;

  // The path as written names the file, as in LLVM; when nothing is there,
  // it is read as percent-encoded, the way ROCm and offbundle write it.
  uri.path = uri.writtenPath;
  if (!pathExists(uri.path) && uri.writtenPath.find('%') != std::string::npos) {
    if (auto decoded = percentDecodeUriPath(uri.writtenPath))
      uri.path = std::move(*decoded);
  }
  return uri;
}

std::string defaultExtractionOutput(const ExtractionUri &uri) {
  return uri.path + "-offset" + std::to_string(uri.offset) + "-size" +
         std::to_string(uri.size) + ".co";
}

Status extractUriRange(const ExtractionUri &uri,
                       const std::string &outputPath) {
  // LLVM reports a file it cannot open by the reason alone.
  struct stat info;
  if (::stat(uri.path.c_str(), &info) != 0)
    return Error{errnoMessage(errno)};
  if (S_ISDIR(info.st_mode))
    return Error{errnoMessage(EISDIR)};
  auto input = InputFile::open(uri.path);
  if (!input)
    return input.takeError();
  if (!isLlvmObjectFile(identifyFile((*input)->contents())))
    return Error{"The file was not recognized as a valid object file"};

  const uint64_t fileSize = (*input)->size();
  const std::string name = quotedFileName(uri.writtenPath) + ": ";
  if (uri.size > fileSize)
    return Error{name + "size in URI (" + std::to_string(uri.size) +
                 ") is larger than source (" + std::to_string(fileSize) + ")"};
  if (uri.offset > fileSize)
    return Error{name + "offset in URI (" + std::to_string(uri.offset) +
                 ") is beyond the end of the source (" +
                 std::to_string(fileSize) + ")"};
  if (uri.size > fileSize - uri.offset)
    return Error{name + "offset + size (" +
                 std::to_string(uri.offset + uri.size) +
                 ") in URI is beyond the end of the source (" +
                 std::to_string(fileSize) + ")"};

  OutputTransaction transaction;
  auto output = transaction.createFile(outputPath);
  if (!output)
    return output.takeError();
  if (Status status = (*output)->copyFrom(**input, uri.offset, uri.size);
      !status.ok())
    return status;
  return transaction.commit();
}

} // namespace offbundle
