// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The bundle containers offbundle reads and writes, and the one registry of
// them. Each container has one row (container_format.cpp): its name in
// listings, the magic its files start with (formats/file_magic.h), how its
// reader is opened and, where it has one, how it is written. Every choice of
// container ends here: from a -type value (containerForType), from a file's
// first bytes (containerWithMagic), from what discovery found; and every
// reader is opened through openContainer.
//
//   container       magic          reader                 writer
//   BinaryBundle    BinaryBundle   BinaryBundleReader     writeBinaryBundle
//   TextBundle      (markers)      TextBundleReader       writeTextBundle
//   FatObject       Elf            FatObjectReader        writeFatObject
//   OffloadBinary   OffloadBinary  OffloadBinaryReader    (the packager's)
//
// Compressed bundles are not a container of their own: they hold a binary
// or text bundle, which discovery reads once decompressed.
//
// Adding a container: its magic in file_magic, its reader (and writer) in a
// file of its own, and one row in the registry.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/bundle_format.h"
#include "formats/file_magic.h"
#include "support/error.h"
#include "support/output_file.h"

namespace offbundle {

class OutputFile;
struct ExternalCommandSettings;

enum class ContainerFormat {
  BinaryBundle,
  TextBundle,
  FatObject,
  OffloadBinary
};

// What opening a reader may need beyond the bytes; each container reads the
// fields it has a use for.
struct ReaderOptions {
  // Text bundles: the line comment their markers start with.
  std::string_view comment = "//";
  // Binary bundles: visit the header's records in file order, repeats
  // included (listings that describe the file), rather than in the order
  // LLVM's tool visits them.
  bool fileOrder = false;
  // Fat objects under --###: the commands LLVM would run are logged to
  // `commandLog` instead, naming `commandInput` as their input.
  const ExternalCommandSettings *printCommands = nullptr;
  std::string_view commandInput;
  std::string *commandLog = nullptr;
};

// What writing may need beyond the entries.
struct WriterOptions {
  std::string_view comment = "//"; // text bundles
  uint64_t alignment = 1;          // binary bundles: of each payload
  size_t hostIndex = 0;            // fat objects: the host entry
};

struct ContainerInfo {
  ContainerFormat format;
  // Its name in listings: "binary", "text", "fat-object", "offload-binary".
  std::string_view name;
  // The first bytes of its files; Unknown for text bundles, which are told
  // by their markers.
  FileMagic magic;
  // Opens its reader over `contents`; errors are the reader's own words.
  Result<std::unique_ptr<BundleReader>> (*open)(std::string_view contents,
                                                const ReaderOptions &options);
  // Writes it; null where another layer writes it (offload binaries, which
  // the packager makes from images and their string tables).
  Status (*write)(OutputFile &output, const std::vector<EntryToWrite> &entries,
                  const WriterOptions &options);
};

const ContainerInfo &containerInfo(ContainerFormat format);

inline std::string_view containerName(ContainerFormat format) {
  return containerInfo(format).name;
}

// The container whose files start with `magic`, if one does.
std::optional<ContainerFormat> containerWithMagic(FileMagic magic);

// The reader of `format` over `contents`, its errors naming `path`.
Result<std::unique_ptr<BundleReader>>
openContainer(ContainerFormat format, std::string_view contents,
              const std::string &path, const ReaderOptions &options = {});

// The container a -type value asks for. For "o" and "a" it is FatObject,
// which holds only for bytes that look like an object file: resolve() gives
// a binary bundle for any other.
struct ContainerChoice {
  ContainerFormat format;
  // Line comment of the text formats ("//", "#", ";").
  std::string_view comment;

  ContainerFormat resolve(std::string_view bytes) const;
};

// The container for a -type value, or the reference's error for an unknown
// one.
Result<ContainerChoice> containerForType(std::string_view filesType);

// Whether the bytes start like an object file LLVM would open (ELF, Mach-O,
// Wasm): such hosts make -type=o a fat object.
bool looksLikeObjectFile(std::string_view bytes);

} // namespace offbundle
