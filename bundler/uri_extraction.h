// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What llvm-extract-bundle-entry does (LLVM 23, llvm-objcopy's
// extractOffloadBundleByURI): copy the byte range a code object URI names
// out of an object file into a file of its own.
//
// LLVM 23 reads the URI more narrowly than ROCm's grammar
// (code_object_uri.h), and this reader keeps its rules and messages:
//
//   uri    ::= "file://" path ( "#" | "?" ) "offset=" number "&size=" number
//   path   ::= everything up to the first '#' or '?', as written
//   number ::= decimal digits (a leading 0 is still decimal), or 0x/0X and
//              hexadecimal digits
//
// The scheme is lowercase; offset comes before size, both are required.
// Where LLVM 23 is silent or unsafe this reader differs, as
// docs/llvm-extract-bundle-entry.md lists: '?' is accepted as ROCm's
// grammar allows, hexadecimal numbers are read, a number that cannot be read
// is an error (LLVM writes an empty file from offset 0), and a path that
// names no file is percent-decoded, so that the URIs offbundle and ROCm
// print (absolute and percent-encoded) are read as well as the ones
// llvm-readobj --offloading prints (the path as typed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/error.h"

namespace offbundle {

struct ExtractionUri {
  std::string writtenPath; // as the URI writes it
  std::string path;        // the file to read: writtenPath, or it decoded
  uint64_t offset = 0;
  uint64_t size = 0;
};

// Reads a URI. Errors are LLVM 23's messages ("Reading type of URI",
// "Reading 'offset' in URI", "Reading 'size' in URI"), with the reason
// after them where LLVM has none.
Result<ExtractionUri> parseExtractionUri(std::string_view text);

// LLVM 23's output name: "<path>-offset<N>-size<M>.co", beside the input.
std::string defaultExtractionOutput(const ExtractionUri &uri);

// Writes the URI's bytes to `outputPath`, which appears only once complete.
// The input must be an object file, as LLVM's ObjectFile reads them (ELF,
// COFF, PE, Mach-O, Wasm, XCOFF, GOFF); the range must lie within it.
Status extractUriRange(const ExtractionUri &uri, const std::string &outputPath);

} // namespace offbundle
