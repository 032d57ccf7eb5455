// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-offload-binary's operations (see operations.h): packaging images into
// offload binaries, and extracting, archiving or listing the images an input
// holds.

#include "packager/operations.h"

#include <memory>
#include <string_view>

#include "archive/ar_reading.h"
#include "archive/ar_writing.h"
#include "bitcode/bitcode_symbols.h"
#include "formats/file_magic.h"
#include "formats/offload_binary.h"
#include "packager/image_arguments.h"
#include "packager/offload_inputs.h"
#include "support/output_transaction.h"

namespace offbundle {
namespace {

// Path pieces as llvm::sys::path computes them (POSIX style): a path that
// ends with '/' names ".", and "." and ".." have no extension.
std::string_view fileNameOf(std::string_view path) {
  if (path.empty())
    return path;
  if (path.back() == '/')
    return path.find_first_not_of('/') == std::string_view::npos
               ? std::string_view("/")
               : std::string_view(".");
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view stemOf(std::string_view path) {
  std::string_view name = fileNameOf(path);
  if (name == "." || name == "..")
    return name;
  return name.substr(0, name.rfind('.'));
}

std::string_view extensionOf(std::string_view path) {
  std::string_view name = fileNameOf(path);
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || name == "." || name == "..")
    return {};
  return name.substr(dot);
}

// LLVM reports file system errors from reading an image or creating an
// output with the system's message alone; ours come as "'<path>': <reason>".
Error reasonOnly(Error error, std::string_view path) {
  std::string prefix;
  prefix.reserve(path.size() + 4);
  prefix.append(1, '\'').append(path).append("': ");
  if (error.message.rfind(prefix, 0) == 0)
    error.message.erase(0, prefix.size());
  return error;
}

// The input, and the binaries found in it.
struct OpenedInput {
  std::unique_ptr<InputFile> file;
  std::vector<std::shared_ptr<const std::string>> storage;
  std::vector<FoundOffloadBinary> binaries;
};

Result<std::unique_ptr<OpenedInput>> openInput(const std::string &path) {
  auto opened = std::make_unique<OpenedInput>();
  auto file = InputFile::open(path);
  if (!file)
    return file.takeError();
  opened->file = std::move(*file);
  auto binaries =
      findOffloadBinaries(opened->file->contents(), path, opened->storage);
  if (!binaries)
    return binaries.takeError();
  opened->binaries = std::move(*binaries);
  return opened;
}

// Writes bytes to an output, copying them from the input file in the
// kernel when they lie in it.
Status writeBytes(OutputFile &output, std::string_view bytes,
                  const InputFile &input) {
  std::string_view all = input.contents();
  if (input.fd() >= 0 && !bytes.empty() && bytes.data() >= all.data() &&
      bytes.data() + bytes.size() <= all.data() + all.size())
    return output.copyFrom(
        input, static_cast<uint64_t>(bytes.data() - all.data()), bytes.size());
  return output.write(bytes);
}

Status writeFile(OutputTransaction &transaction, const std::string &path,
                 std::string_view bytes, const InputFile &input) {
  auto output = transaction.create(path);
  if (!output)
    return reasonOnly(output.takeError(), path);
  return writeBytes(**output, bytes, input);
}

Status writeArchive(OutputTransaction &transaction, const std::string &path,
                    const std::vector<NewArchiveMember> &members,
                    const InputFile &input, const PackagerConfig &config,
                    PackagerReport &report) {
  const ArchiveWriteOptions options =
      llvmArchiveWriteOptions(config.archiveSym64Threshold);
  // LLVM creates the file before it looks at the members. Its archive
  // writer has no standard output: "-" is a file of that name; and it
  // replaces any symbolic link at the path.
  transaction.renameOverPaths(OutputTransaction::LinksReplaced::All);
  auto output = transaction.createFile(path);
  if (!output)
    return reasonOnly(output.takeError(), path);
  auto plan = planGnuArchive(members, options);
  if (!plan)
    return plan.takeError();
  // Bitcode LLVM's reader cannot open stays in the archive, unindexed.
  for (const std::string &warning : plan->warnings())
    report.plainDiagnostics.push_back("warning: " + warning);
  return plan->stream([&](std::string_view piece) {
    return writeBytes(**output, piece, input);
  });
}

// Whether a binary matches every key=value of a filter, as LLVM decides:
// "file" always matches, "kind" compares the offload kind, "member" (newer
// LLVM) the name of the buffer the binary came from (an archive member's
// name, else the input's), any other key compares the binary's string (""
// when it has none).
bool matches(const FoundOffloadBinary &found, const ImageArguments &filter) {
  const OffloadBinaryView &binary = found.binary;
  for (const auto &[key, value] : filter.entries()) {
    if (key == "file")
      continue;
    if (key == "member") {
      if (found.source != value)
        return false;
      continue;
    }
    if (key == "kind") {
      if (binary.offloadKind != offloadKindFromName(value))
        return false;
      continue;
    }
    if (binary.string(key) != value)
      return false;
  }
  return true;
}

// An image reached by walking the binaries, with the binary it came from.
struct WalkedImage {
  const OffloadBinaryView *binary;
  uint64_t index;
};

// Every image, in order, with nested offload binaries (an image that is
// itself offload binaries) replaced by their images. Nested binaries are
// kept alive in `nested`.
Status walkImages(const std::vector<const OffloadBinaryView *> &binaries,
                  const std::string &source,
                  std::vector<std::unique_ptr<OffloadBinaryView>> &nested,
                  std::vector<WalkedImage> &images) {
  for (const OffloadBinaryView *binary : binaries) {
    if (!hasOffloadBinaryMagic(binary->image)) {
      images.push_back({binary, images.size()});
      continue;
    }
    auto inner = splitOffloadBinaries(
        binary->image, quotedFileName(source) +
                           ": image of the offload binary at offset " +
                           std::to_string(binary->offset));
    if (!inner)
      return inner.takeError();
    std::vector<const OffloadBinaryView *> innerBinaries;
    for (OffloadBinaryView &view : *inner) {
      nested.push_back(std::make_unique<OffloadBinaryView>(std::move(view)));
      innerBinaries.push_back(nested.back().get());
    }
    if (Status status = walkImages(innerBinaries, source, nested, images);
        !status.ok())
      return status;
  }
  return Status::success();
}

// The binaries of an input, optionally only those some filter matches.
std::vector<const OffloadBinaryView *>
selectBinaries(const OpenedInput &input,
               const std::vector<ImageArguments> &filters) {
  std::vector<const OffloadBinaryView *> selected;
  for (const FoundOffloadBinary &found : input.binaries) {
    bool wanted = filters.empty();
    for (const ImageArguments &filter : filters)
      wanted = wanted || matches(found, filter);
    if (wanted)
      selected.push_back(&found.binary);
  }
  return selected;
}

// "<stem>-<triple>[-<arch>].<index>.<kind>", the name newer LLVM gives the
// images it extracts without filters.
std::string extractedName(const std::string &inputPath,
                          const OffloadBinaryView &binary, uint64_t index) {
  std::string name(stemOf(inputPath));
  name.append("-").append(binary.triple());
  if (!binary.arch().empty())
    name.append("-").append(binary.arch());
  return name.append(".")
      .append(std::to_string(index))
      .append(".")
      .append(imageKindName(binary.imageKind));
}

std::string escapedField(std::string_view text) {
  if (text.empty())
    return "-";
  std::string escaped;
  for (unsigned char c : text) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c < 0x20 || c == 0x7f) {
      appendHexEscape(escaped, c);
    } else {
      escaped += static_cast<char>(c);
    }
  }
  return escaped;
}

std::string imageKindForListing(uint16_t kind) {
  if (kind == image_kind::kNone)
    return "none";
  if (kind == image_kind::kSpirv)
    return "spirv";
  std::string_view name = imageKindName(kind);
  return name.empty() ? std::to_string(kind) : std::string(name);
}

std::string offloadKindForListing(uint16_t kind) {
  std::string_view name = offloadKindName(kind);
  if (kind != offload_kind::kNone && name == "none")
    return std::to_string(kind);
  return std::string(name);
}

std::vector<ImageArguments> parseFilters(const PackagerConfig &config) {
  std::vector<ImageArguments> filters;
  for (const std::string &image : config.images)
    filters.push_back(ImageArguments::parse(image));
  return filters;
}

} // namespace

Status packageImages(const PackagerConfig &config, PackagerReport &) {
  std::vector<std::unique_ptr<InputFile>> files;
  std::vector<OffloadImageToWrite> toWrite;
  std::vector<OffloadBinaryPieces> binaries;
  for (const std::string &image : config.images) {
    const ImageArguments arguments = ImageArguments::parse(image);
    const auto fileList = arguments.find("file");
    if (!fileList)
      return makeError("'file' is a required image arguments");
    // Several file= keys in one --image make one binary per file, each
    // with the same strings.
    for (std::string_view path : splitAll(*fileList, ',')) {
      auto file = InputFile::open(std::string(path));
      if (!file)
        return reasonOnly(file.takeError(), path);
      OffloadImageToWrite &image = toWrite.emplace_back();
      image.image = (*file)->contents();
      // Clang gives LTO bitcode the ".o" suffix, so the contents decide
      // first.
      if (isBitcode(identifyFile(image.image)))
        image.imageKind = image_kind::kBitcode;
      else if (std::string_view extension = extensionOf(path);
               !extension.empty())
        image.imageKind = imageKindFromExtension(extension.substr(1));
      for (const auto &[key, value] : arguments.entries()) {
        if (key == "kind")
          image.offloadKind = offloadKindFromName(value);
        else if (key != "file")
          image.strings.emplace_back(key, value);
      }
      binaries.push_back(planOffloadBinary(image));
      files.push_back(std::move(*file));
    }
  }

  OutputTransaction transaction;
  transaction.renameOverPaths(); // as LLVM's FileOutputBuffer
  auto output = transaction.create(config.outputFile);
  if (!output)
    return reasonOnly(output.takeError(), config.outputFile);
  if (config.compress) {
    const int level = config.compressionLevel.value_or(
        config.compressionFormat == OffloadCompressionFormat::Zstd
            ? kDefaultOffloadZstdLevel
            : kDefaultOffloadZlibLevel);
    if (Status status =
            checkOffloadCompressionLevel(config.compressionFormat, level);
        !status.ok())
      return status;
    auto compressed = deflateOffloadBinary(
        writeMultiEntryOffloadBinary(toWrite, kCompressedOffloadBinaryVersion),
        config.compressionFormat, level);
    if (!compressed)
      return compressed.takeError();
    if (Status status = (*output)->write(*compressed); !status.ok())
      return status;
    return transaction.commit();
  }
  for (size_t i = 0; i < binaries.size(); ++i) {
    const OffloadBinaryPieces &pieces = binaries[i];
    if (Status status = (*output)->write(pieces.head); !status.ok())
      return status;
    if (Status status = writeBytes(**output, pieces.image, *files[i]);
        !status.ok())
      return status;
    if (Status status = (*output)->write(std::string(pieces.trailingZeros, 0));
        !status.ok())
      return status;
  }
  return transaction.commit();
}

Status extractMatchingImages(const PackagerConfig &config,
                             PackagerReport &report) {
  auto input = openInput(config.inputFile);
  if (!input)
    return input.takeError();
  const InputFile &file = *(*input)->file;
  OutputTransaction transaction;
  transaction.renameOverPaths(); // as LLVM's FileOutputBuffer
  for (const std::string &image : config.images) {
    const ImageArguments filter = ImageArguments::parse(image);
    std::vector<const FoundOffloadBinary *> extracted;
    for (const FoundOffloadBinary &found : (*input)->binaries)
      if (matches(found, filter))
        extracted.push_back(&found);
    if (extracted.empty())
      continue;

    const auto target = filter.find("file");
    if (config.createArchive) {
      if (!target)
        return makeError("Image must have a 'file' argument.");
      std::vector<NewArchiveMember> members;
      for (const FoundOffloadBinary *found : extracted)
        members.push_back({found->source, found->binary.image});
      if (Status status = writeArchive(transaction, std::string(*target),
                                       members, file, config, report);
          !status.ok())
        return status;
    } else if (target) {
      // Several matches for one file: each overwrites the one before.
      if (extracted.size() > 1)
        report.warnings.push_back("Multiple inputs match to a single file, '" +
                                  std::string(*target) + "'");
      if (Status status = writeFile(transaction, std::string(*target),
                                    extracted.back()->binary.image, file);
          !status.ok())
        return status;
    } else {
      // LLVM 22 names these "<stem>-<triple>-<arch>.<index>.<kind>", the
      // dash there even without an arch, counting from 0 for each --image.
      uint64_t index = 0;
      for (const FoundOffloadBinary *found : extracted) {
        const OffloadBinaryView &binary = found->binary;
        std::string name(stemOf(config.inputFile));
        name.append("-").append(binary.triple());
        name.append("-").append(binary.arch());
        name.append(".").append(std::to_string(index++));
        name.append(".").append(imageKindName(binary.imageKind));
        if (Status status = writeFile(transaction, name, binary.image, file);
            !status.ok())
          return status;
      }
    }
  }
  return transaction.commit();
}

Status extractAllImages(const PackagerConfig &config, PackagerReport &report) {
  auto input = openInput(config.inputFile);
  if (!input)
    return input.takeError();
  std::vector<std::unique_ptr<OffloadBinaryView>> nested;
  std::vector<WalkedImage> images;
  if (Status status = walkImages(selectBinaries(**input, {}), config.inputFile,
                                 nested, images);
      !status.ok())
    return status;
  OutputTransaction transaction;
  transaction.renameOverPaths(); // as LLVM's FileOutputBuffer
  std::string printed;
  for (const WalkedImage &image : images) {
    const std::string name =
        extractedName(config.inputFile, *image.binary, image.index);
    if (Status status =
            writeFile(transaction, name, image.binary->image, *(*input)->file);
        !status.ok())
      return status;
    printed += "Extracted: " + name + "\n";
  }
  if (Status status = transaction.commit(); !status.ok())
    return status;
  report.standardOutput += printed;
  return Status::success();
}

Status archiveAllImages(const PackagerConfig &config, PackagerReport &report) {
  const std::vector<ImageArguments> filters = parseFilters(config);
  for (const ImageArguments &filter : filters)
    if (filter.contains("file"))
      return makeError("--image filters cannot name a 'file' when the "
                       "archive is given with -o");
  auto input = openInput(config.inputFile);
  if (!input)
    return input.takeError();
  std::vector<std::unique_ptr<OffloadBinaryView>> nested;
  std::vector<WalkedImage> images;
  if (Status status = walkImages(selectBinaries(**input, filters),
                                 config.inputFile, nested, images);
      !status.ok())
    return status;
  std::vector<std::string> names;
  names.reserve(images.size());
  std::vector<NewArchiveMember> members;
  for (const WalkedImage &image : images) {
    names.push_back(
        extractedName(config.inputFile, *image.binary, image.index));
    members.push_back({names.back(), image.binary->image});
  }
  OutputTransaction transaction;
  transaction.renameOverPaths(); // as LLVM's FileOutputBuffer
  if (Status status = writeArchive(transaction, config.outputFile, members,
                                   *(*input)->file, config, report);
      !status.ok())
    return status;
  return transaction.commit();
}

Status listImages(const PackagerConfig &config, PackagerReport &report) {
  auto input = openInput(config.inputFile);
  if (!input)
    return input.takeError();
  std::vector<std::unique_ptr<OffloadBinaryView>> nested;
  std::vector<WalkedImage> images;
  if (Status status = walkImages(selectBinaries(**input, parseFilters(config)),
                                 config.inputFile, nested, images);
      !status.ok())
    return status;
  for (const WalkedImage &image : images) {
    const OffloadBinaryView &binary = *image.binary;
    std::vector<std::string> fields = {
        std::to_string(image.index),
        escapedField(binary.triple()),
        escapedField(binary.arch()),
        offloadKindForListing(binary.offloadKind),
        imageKindForListing(binary.imageKind),
        std::to_string(binary.image.size())};
    for (const auto &[key, value] : binary.strings) {
      if (key == "triple" || key == "arch")
        continue;
      std::string field = escapedField(key);
      field.append("=");
      if (!value.empty())
        field.append(escapedField(value));
      fields.push_back(std::move(field));
    }
    std::string line;
    for (const std::string &field : fields)
      line.append(line.empty() ? "" : "\t").append(field);
    report.standardOutput.append(line).append("\n");
  }
  return Status::success();
}

} // namespace offbundle
