// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bundle discovery (see bundle_discovery.h): one walk from the file to its ELF,
// COFF and PE sections and archive members, noting where each bundle's bytes
// lie in the input. Compressed bundles and compressed offload binaries are
// decompressed on the way, so their entries have no file offsets; when the
// caller only describes the input, compressed binary bundles only as far as
// their headers, the rest left for when their payloads are read.

#include "bundler/bundle_discovery.h"

#include <array>
#include <chrono>

#include "archive/ar_reading.h"
#include "bundler/kpack_discovery.h"
#include "bundler/operation_support.h"
#include "formats/binary_bundle.h"
#include "formats/bundle_decoding.h"
#include "formats/code_object_uri.h"
#include "formats/coff/coff_object.h"
#include "formats/coff/pe_hip_wrappers.h"
#include "formats/compressed_offload_binary.h"
#include "formats/elf/elf_object.h"
#include "formats/elf/hip_wrappers.h"
#include "formats/embedded_offload.h"
#include "formats/embedded_sections.h"
#include "formats/fat_object.h"
#include "formats/file_magic.h"
#include "formats/host_kinds.h"
#include "formats/kpack/kpack_archive.h"
#include "formats/kpack/kpack_marker.h"
#include "formats/text_bundle.h"

namespace offbundle {
namespace {

bool hasBundleSections(const ElfObject &elf) {
  for (const ElfSection &section : elf.sections())
    if (section.name.substr(0, kBundleMagic.size()) == kBundleMagic)
      return true;
  return false;
}

// Where a piece of the input is: the file it can be sliced from, its offset
// there, and its offset in the input file when it lies in it.
struct Place {
  const InputFile *source = nullptr;
  uint64_t sourceOffset = 0;
  std::optional<uint64_t> fileOffset;

  Place at(uint64_t offset) const {
    Place moved = *this;
    moved.sourceOffset += offset;
    if (moved.fileOffset)
      *moved.fileOffset += offset;
    return moved;
  }
};

class Discoverer {
public:
  Discoverer(const InputFile &input, const DiscoveryOptions &options,
             DiscoveryMode mode)
      : input_(input), options_(options), mode_(mode) {}

  Status run() {
    Place whole{&input_, 0, input_.fileOffset()};
    return discoverFile(whole, input_.contents(), "", /*allowArchive=*/true);
  }

  Discovery take() { return std::move(found_); }

private:
  std::string displayName(const std::string &member) const {
    return member.empty() ? input_.path() : input_.path() + "(" + member + ")";
  }

  Error failure(const std::string &member, const std::string &section,
                const std::string &what) const {
    std::string where = section.empty() ? "" : "section " + section + ": ";
    return fileError(displayName(member), where + what);
  }

  std::unique_ptr<InputFile> sliceOf(const Place &place, uint64_t size,
                                     const std::string &member) const {
    auto slice = InputFile::slice(*place.source, place.sourceOffset, size);
    slice->narrow(0, size, displayName(member));
    return slice;
  }

  void add(DiscoveredBundle bundle) {
    found_.bundles.push_back(std::move(bundle));
  }

  // A (member) file that is one bundle of `format` as a whole.
  void addWhole(const Place &place, std::string_view bytes,
                const std::string &member, ContainerFormat format) {
    DiscoveredBundle bundle;
    bundle.member = member;
    bundle.format = format;
    if (format == ContainerFormat::TextBundle)
      bundle.comment = options_.textComment;
    bundle.fileOffset = place.fileOffset;
    bundle.fileSize = bytes.size();
    bundle.data = sliceOf(place, bytes.size(), member);
    add(std::move(bundle));
  }

  // The format of bytes that are a bundle by themselves.
  ContainerFormat sniff(std::string_view bytes) const {
    if (hasBinaryBundleMagic(bytes))
      return ContainerFormat::BinaryBundle;
    if (isElf(bytes))
      return ContainerFormat::FatObject;
    if (!options_.textComment.empty())
      return ContainerFormat::TextBundle;
    return ContainerFormat::BinaryBundle;
  }

  Status addElements(const Place &place, std::string_view bytes,
                     const std::string &member, const std::string &section) {
    auto elements = splitOffloadData(bytes);
    if (!elements)
      return failure(member, section, elements.error().message);
    for (const OffloadDataElement &element : *elements) {
      Place here = place.at(element.offset);
      DiscoveredBundle bundle;
      bundle.member = member;
      bundle.section = section;
      bundle.fileOffset = here.fileOffset;
      bundle.fileSize = element.bytes.size();
      switch (element.kind) {
      case FileMagic::BinaryBundle:
        bundle.format = ContainerFormat::BinaryBundle;
        bundle.data = sliceOf(here, element.bytes.size(), member);
        break;
      case FileMagic::OffloadBinary: {
        bundle.format = ContainerFormat::OffloadBinary;
        if (!isCompressedOffloadBinary(element.bytes)) {
          bundle.data = sliceOf(here, element.bytes.size(), member);
          break;
        }
        // Its images exist only once inflated: they have no file offsets.
        auto inflated = inflateOffloadBinary(element.bytes);
        if (!inflated)
          return failure(member, section,
                         "at offset " + std::to_string(element.offset) + ": " +
                             inflated.error().message);
        bundle.fileOffset.reset();
        bundle.data =
            InputFile::fromMemory(displayName(member), std::move(*inflated));
        break;
      }
      case FileMagic::CompressedBundle: {
        std::string errorPrefix =
            failure(member, section,
                    "at offset " + std::to_string(element.offset) +
                        ": Failed to decompress input: ")
                .message;
        if (options_.compressedHeadersOnly)
          if (std::optional<CompressedBundleHead> head =
                  decompressHeaderOnly(element.bytes)) {
            bundle.format = ContainerFormat::BinaryBundle;
            bundle.compression = head->header;
            bundle.data = InputFile::fromMemory(displayName(member),
                                                std::move(head->bytes));
            bundle.deferred.reset(new DeferredDecompression{
                sliceOf(here, element.bytes.size(), member),
                head->header.uncompressedSize, options_.decompression,
                std::move(errorPrefix)});
            break;
          }
        auto decompressed = decompressAsRequested(
            element.bytes, displayName(member), options_.decompression,
            errorPrefix, options_.verboseReport);
        if (!decompressed)
          return decompressed.takeError();
        bundle.compression = decompressed->header;
        bundle.format = sniff(decompressed->bytes.view());
        if (bundle.format == ContainerFormat::TextBundle)
          bundle.comment = options_.textComment;
        bundle.data = InputFile::fromMemory(displayName(member),
                                            std::move(decompressed->bytes));
        break;
      }
      default: // splitOffloadData gives no other kind
        break;
      }
      add(std::move(bundle));
    }
    return Status::success();
  }

  Status discoverElf(const Place &place, std::string_view bytes,
                     const std::string &member) {
    auto elf = parseElfObject(bytes);
    if (!elf) {
      if (mode_ == DiscoveryMode::Lenient)
        return Status::success();
      return failure(member, "", elf.error().message);
    }
    if (hasBundleSections(*elf))
      addWhole(place, bytes, member, ContainerFormat::FatObject);
    if (Status status =
            addSections(place, findOffloadDataSections(*elf), member);
        !status.ok())
      return status;
    for (const ElfSection &section : elf->sections())
      if (section.name == kKpackMarkerSection)
        return discoverKpackReferences(*elf, section, member);
    return Status::success();
  }

  // The code a kpack'd binary loads from its archives (the new modes only:
  // LLVM's tool reads nothing outside its input).
  Status discoverKpackReferences(const ElfObject &elf, const ElfSection &marker,
                                 const std::string &member) {
    if (mode_ == DiscoveryMode::Lenient)
      return Status::success();
    auto wrappers = readHipWrappers(elf);
    if (!wrappers)
      return failure(member, "", wrappers.error().message);
    const std::vector<uint64_t> indices =
        *wrappers ? kpackWrapperIndices((*wrappers)->wrappers)
                  : std::vector<uint64_t>();
    return addKpackReferences(elf.contents(marker), indices, member);
  }

  // The bundles of the archives a marker names, one per HIPK wrapper.
  Status addKpackReferences(std::string_view marker,
                            const std::vector<uint64_t> &indices,
                            const std::string &member) {
    // A marker no HIPK wrapper uses is left over (by unpack-kpack, say):
    // the file's own bundles are what it loads.
    if (indices.empty())
      return Status::success();
    auto bundles = assembleKpackReferences(input_.path(), marker, indices);
    if (!bundles)
      return bundles.takeError();
    addAssembled(std::move(*bundles), member);
    return Status::success();
  }

  // A kpack archive read alone: one bundle per binary in its table.
  Status discoverKpackArchive(std::string_view bytes,
                              const std::string &member) {
    auto bundles = assembleKpackArchive(bytes);
    if (!bundles)
      return failure(member, "", bundles.error().message);
    addAssembled(std::move(*bundles), member);
    return Status::success();
  }

  // Bundles made in memory from kpack code objects: named by their table
  // key, and nowhere in the input file.
  void addAssembled(std::vector<AssembledKpackBundle> bundles,
                    const std::string &member) {
    for (AssembledKpackBundle &assembled : bundles) {
      DiscoveredBundle bundle;
      bundle.member = member;
      bundle.section = assembled.name;
      bundle.format = ContainerFormat::BinaryBundle;
      bundle.kpack = true;
      bundle.kpackStoredSizes = std::move(assembled.storedSizes);
      for (uint64_t stored : bundle.kpackStoredSizes)
        bundle.fileSize += stored;
      bundle.data = InputFile::fromMemory(displayName(member),
                                          std::move(assembled.bundle));
      add(std::move(bundle));
    }
  }

  // The elements of each section holding offload data.
  Status addSections(const Place &place,
                     const std::vector<OffloadDataSection> &sections,
                     const std::string &member) {
    for (const OffloadDataSection &section : sections)
      if (Status status =
              addElements(place.at(section.fileOffset), section.bytes, member,
                          std::string(section.name));
          !status.ok())
        return status;
    return Status::success();
  }

  // A COFF object's or PE image's .hip_fatbin and .llvm.offloading sections
  // (.hip_fat and .llvm.of in images).
  Status discoverCoff(const Place &place, std::string_view bytes,
                      const std::string &member, bool image) {
    auto sections =
        image ? readPeImageSections(bytes) : readCoffSections(bytes);
    if (!sections) {
      if (mode_ == DiscoveryMode::Lenient)
        return Status::success();
      return failure(member, "", sections.error().message);
    }
    if (Status status =
            addSections(place, findOffloadDataSections(*sections), member);
        !status.ok())
      return status;
    if (image)
      for (const CoffSection &section : *sections)
        if (section.name == kKpackMarkerImageSection)
          return discoverKpackImage(bytes, section.contents, member);
    return Status::success();
  }

  // A kpack'd DLL or EXE: its .kpackrf marker and .hipFatB wrappers.
  Status discoverKpackImage(std::string_view bytes, std::string_view marker,
                            const std::string &member) {
    if (mode_ == DiscoveryMode::Lenient)
      return Status::success();
    auto image = readPeHipWrappers(bytes);
    if (!image)
      return failure(member, "", image.error().message);
    const std::vector<uint64_t> indices =
        *image ? kpackWrapperIndices((*image)->hip.wrappers)
               : std::vector<uint64_t>();
    return addKpackReferences(marker, indices, member);
  }

  Status discoverArchive(const Place &place, std::string_view bytes) {
    auto members = readArchive(bytes, inputFilePath(input_.path()));
    if (!members) {
      if (mode_ == DiscoveryMode::Lenient)
        return Status::success();
      return failure("", "", members.error().message);
    }
    for (const ArchiveMember &member : *members) {
      if (member.externalContents) {
        // A thin archive's member lives in a file of its own.
        found_.holders.push_back(InputFile::fromMemory(
            displayName(member.name), std::string(member.bytes)));
        const InputFile &holder = *found_.holders.back();
        Place own{&holder, 0, std::nullopt};
        const size_t first = found_.bundles.size();
        if (Status status = discoverFile(own, holder.contents(), member.name,
                                         /*allowArchive=*/false);
            !status.ok())
          return status;
        for (size_t index = first; index < found_.bundles.size(); ++index)
          found_.bundles[index].inThinMember = true;
        continue;
      }
      uint64_t offset =
          static_cast<uint64_t>(member.bytes.data() - bytes.data());
      if (Status status = discoverFile(place.at(offset), member.bytes,
                                       member.name, /*allowArchive=*/false);
          !status.ok())
        return status;
    }
    return Status::success();
  }

  // The bundles in `bytes`, found the way their host kind's row says
  // (kHostFinders below). Archives inside archives are not opened.
  Status discoverFile(const Place &place, std::string_view bytes,
                      const std::string &member, bool allowArchive);

public:
  // Each kind's way, in the shape the table of finders takes.
  Status findInElf(const Place &place, std::string_view bytes,
                   const std::string &member) {
    return discoverElf(place, bytes, member);
  }
  Status findInKpack(const Place &, std::string_view bytes,
                     const std::string &member) {
    return discoverKpackArchive(bytes, member);
  }
  Status findElements(const Place &place, std::string_view bytes,
                      const std::string &member) {
    return addElements(place, bytes, member, "");
  }
  Status findInCoffObject(const Place &place, std::string_view bytes,
                          const std::string &member) {
    return discoverCoff(place, bytes, member, /*image=*/false);
  }
  Status findInPeImage(const Place &place, std::string_view bytes,
                       const std::string &member) {
    return discoverCoff(place, bytes, member, /*image=*/true);
  }
  Status findInArchive(const Place &place, std::string_view bytes,
                       const std::string &) {
    return discoverArchive(place, bytes);
  }
  // No host: a text bundle, when the type names one.
  Status findTextBundle(const Place &place, std::string_view bytes,
                        const std::string &member) {
    if (!options_.textComment.empty()) {
      TextBundleReader reader(bytes, options_.textComment);
      auto first = reader.nextEntry();
      if (first && *first)
        addWhole(place, bytes, member, ContainerFormat::TextBundle);
    }
    return Status::success();
  }

private:
  const InputFile &input_;
  const DiscoveryOptions &options_;
  DiscoveryMode mode_;
  Discovery found_;
};

// How the bundles of each host kind (formats/host_kinds.h) are found: a row
// per kind, in the order of HostKind.
struct HostFinderRow {
  HostKind kind;
  Status (Discoverer::*find)(const Place &, std::string_view,
                             const std::string &);
};
constexpr std::array<HostFinderRow, kHostKindCount> kHostFinders = {{
    {HostKind::None, &Discoverer::findTextBundle},
    {HostKind::Kpack, &Discoverer::findInKpack},
    {HostKind::Bundle, &Discoverer::findElements},
    {HostKind::OffloadBinary, &Discoverer::findElements},
    {HostKind::Elf, &Discoverer::findInElf},
    {HostKind::CoffObject, &Discoverer::findInCoffObject},
    {HostKind::PeImage, &Discoverer::findInPeImage},
    {HostKind::Archive, &Discoverer::findInArchive},
    {HostKind::Bitcode, &Discoverer::findTextBundle},
}};
static_assert(isIndexedByHostKind(kHostFinders));

Status Discoverer::discoverFile(const Place &place, std::string_view bytes,
                                const std::string &member, bool allowArchive) {
  HostKind kind = classifyHost(bytes);
  // An ELF magic with an unknown class or byte order, and an archive inside
  // an archive, are looked at as no host at all.
  if ((kind == HostKind::Elf && !isElf(bytes)) ||
      (kind == HostKind::Archive && !allowArchive))
    kind = HostKind::None;
  return (this->*kHostFinders[static_cast<size_t>(kind)].find)(place, bytes,
                                                               member);
}

} // namespace

bool holdsEmbeddedBundles(std::string_view bytes) {
  const HostKind kind = classifyHost(bytes);
  return kind == HostKind::Elf ? isElf(bytes) : hostKindRow(kind).embedsBundles;
}

std::string_view textBundleComment(std::string_view filesType) {
  auto choice = containerForType(filesType);
  if (choice && choice->format == ContainerFormat::TextBundle)
    return choice->comment;
  return {};
}

DiscoveryOptions discoveryOptions(const BundlerConfig &config,
                                  std::string &diagnostics) {
  return discoveryOptions(config.compression,
                          textBundleComment(config.files.filesType),
                          diagnostics);
}

DiscoveryOptions discoveryOptions(const CompressionConfig &compression,
                                  std::string_view textComment,
                                  std::string &diagnostics) {
  DiscoveryOptions options;
  options.textComment = textComment;
  options.decompression = compression.decompressionRequest();
  options.verboseReport = compression.verbose ? &diagnostics : nullptr;
  return options;
}

Result<Discovery> discoverBundles(const InputFile &input,
                                  const DiscoveryOptions &options,
                                  DiscoveryMode mode) {
  Discoverer discoverer(input, options, mode);
  if (Status status = discoverer.run(); !status.ok())
    return status.takeError();
  return discoverer.take();
}

Result<std::optional<DiscoveredBundle>>
decompressDeferred(const DiscoveredBundle &bundle) {
  if (!bundle.deferred)
    return std::optional<DiscoveredBundle>();
  const DeferredDecompression &deferred = *bundle.deferred;
  const std::string &path = bundle.data->path();
  auto decompressed =
      decompressAsRequested(deferred.compressed->contents(), path,
                            deferred.request, deferred.errorPrefix, nullptr);
  if (!decompressed)
    return decompressed.takeError();
  std::optional<DiscoveredBundle> whole(std::in_place);
  whole->member = bundle.member;
  whole->section = bundle.section;
  whole->format = bundle.format;
  whole->fileOffset = bundle.fileOffset;
  whole->fileSize = bundle.fileSize;
  whole->inThinMember = bundle.inThinMember;
  whole->compression = bundle.compression;
  whole->data = InputFile::fromMemory(path, std::move(decompressed->bytes));
  return whole;
}

Status checkDeferredBundles(const Discovery &discovery) {
  for (const DiscoveredBundle &bundle : discovery.bundles)
    if (auto whole = decompressDeferred(bundle); !whole)
      return whole.takeError();
  return Status::success();
}

Result<std::unique_ptr<BundleReader>>
openDiscoveredBundle(const DiscoveredBundle &bundle, const OutputConfig &output,
                     bool fileOrder, std::string &commandLog) {
  const std::string &path = bundle.data->path();
  // The header alone: the payloads' places are known, not their bytes.
  if (bundle.deferred) {
    auto reader =
        fileOrder ? BinaryBundleReader::openHeaderInFileOrder(
                        bundle.data->contents(), bundle.deferred->wholeSize)
                  : BinaryBundleReader::openHeader(bundle.data->contents(),
                                                   bundle.deferred->wholeSize);
    if (!reader)
      return fileError(path, reader.error());
    return std::unique_ptr<BundleReader>(std::move(*reader));
  }
  ReaderOptions options;
  options.comment = bundle.comment;
  options.fileOrder = fileOrder;
  options.printCommands = output.printedCommands();
  options.commandInput = path;
  options.commandLog = &commandLog;
  return openContainer(bundle.format, bundle.data->contents(), path, options);
}

Status walkInventory(const Discovery &discovery, const OutputConfig &output,
                     std::string &commandLog, const InventoryVisitor &visitor) {
  for (const DiscoveredBundle &bundle : discovery.bundles) {
    if (visitor.beginBundle)
      if (Status status = visitor.beginBundle(bundle); !status.ok())
        return status;
    auto reader =
        openDiscoveredBundle(bundle, output, /*fileOrder=*/true, commandLog);
    if (!reader)
      return reader.takeError();
    BundleReader &entries = **reader;
    Status walked =
        forEachEntry(entries, [&](std::string_view id) -> Result<EntryWalk> {
          return visitor.entry(bundle, id, entries);
        });
    // The readers describe what is wrong with the bytes; which file holds
    // them is said here, as opening the bundle says it.
    if (!walked.ok())
      return fileError(bundle.data->path(), walked.error());
    if (visitor.endBundle)
      if (Status status = visitor.endBundle(bundle); !status.ok())
        return status;
  }
  return Status::success();
}

} // namespace offbundle
