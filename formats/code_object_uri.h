// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ROCm code object URIs, the names the ROCm runtime and debugger give code
// objects (AMDGPUUsage, "Loaded Code Object Path Uniform Resource
// Identifier"; ROCr's hsa_ven_amd_loader.h):
//
//   code_object_uri ::= file_uri | memory_uri
//   file_uri        ::= "file://" file_path [ range_specifier ]
//   memory_uri      ::= "memory://" process_id range_specifier
//   range_specifier ::= ( "#" | "?" ) "offset=" number "&" "size=" number
//   number          ::= C integer literal: 0x/0X hexadecimal, 0 octal, decimal
//
// The path is percent-encoded: every byte outside [a-zA-Z0-9/_.~-] is
// written '%' and two uppercase hexadecimal digits, the rule ROCr's loader
// applies when it names a code object (EncodePathname in
// runtime/hsa-runtime/core/runtime/amd_hsa_loader.cpp). The runtime always
// writes an absolute path ("file:///dir/app#..."); tools such as roc-obj-ls
// write the path as typed ("file://dir/app#..."), which depends on the
// current folder. Both are read; the bundler writes the absolute form. An
// omitted offset means 0 and an omitted size means "to the end of the file".
// The bundler accepts file URIs wherever it reads a file, so that a code
// object or a bundle inside an executable can be named the way ROCm names
// it; memory URIs name another process's memory and are refused with an
// explanation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "support/error.h"
#include "support/input_file.h"

namespace offbundle {

struct CodeObjectUri {
  std::string path; // percent-decoded
  uint64_t offset = 0;
  std::optional<uint64_t> size; // absent: to the end of the file
};

// Whether the text has the form of a code object URI ("file://" or
// "memory://", scheme in any case).
bool looksLikeCodeObjectUri(std::string_view text);

// Parses a file URI. Memory URIs and malformed URIs are errors.
Result<CodeObjectUri> parseCodeObjectUri(std::string_view text);

// A file path percent-encoded for a URI: bytes outside [a-zA-Z0-9/_.~-]
// become %XX with uppercase digits.
std::string percentEncodeUriPath(std::string_view path);

// The inverse of percentEncodeUriPath. Lowercase digits and bytes left
// unencoded are accepted too, since URIs typed by hand or written by other
// tools have them; so decoding undoes any encoding, and encoding then
// decoding gives the path back. A '%' without two hexadecimal digits, an
// empty path and an encoded NUL byte (no file has one in its name) are
// errors, reported as the reason alone.
Result<std::string> percentDecodeUriPath(std::string_view encoded);

// The path URIs give the file at `path`: absolute, so that the URI names the
// same file from any folder, with symbolic links resolved.
// Resolving them is what ROCm does: its runtime takes file paths from the
// kernel (/proc/self/exe, /proc/self/fd/<n>, /proc/self/maps), which reports
// them resolved, so a URI printed here matches the one a debugger or the
// runtime prints for the same code object. Fails when the file or the
// current folder can no longer be reached.
Result<std::string> uriFilePath(const std::string &path);

// The URI naming bytes [offset, offset + size) of the file at
// `absolutePath`, a path from uriFilePath. Everything that prints a URI
// makes it here.
std::string formatCodeObjectUri(std::string_view absolutePath, uint64_t offset,
                                uint64_t size);

// Opens an input named on the command line. A name that exists as a file is
// that file, whatever it looks like (LLVM's tool would open it); otherwise a
// code object URI is the range of the file it names, checked against the
// file's size, and reported under the URI in messages.
Result<std::unique_ptr<InputFile>> openInput(const std::string &name);

// The file an input name refers to: the URI's path for a URI that does not
// exist as a file, else the name itself.
std::string inputFilePath(const std::string &name);

} // namespace offbundle
