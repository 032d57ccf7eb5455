// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Mach-O archive symbols (see the header for the layout and what is taken).
#include "formats/macho/macho_symbols.h"

#include "formats/macho/macho_file.h"

#include <algorithm>
#include <string>
#include <vector>

namespace offbundle {
namespace {

using namespace macho;

// Reads a Mach-O file's header and load commands with the checks, the
// order and the messages of LLVM's MachOObjectFile constructor, which the
// archive writer runs on every member it indexes.
class MachOSymbolReader : MachOFile {
public:
  MachOSymbolReader(std::string_view bytes, bool is64Bit, bool bigEndian)
      : MachOFile(bytes, is64Bit, bigEndian) {}

  Status open() {
    const uint64_t headerSize = is64Bit_ ? 32 : 28;
    if (bytes_.size() < headerSize)
      return malformed("the mach header extends past the end of the file");
    cpuType_ = read32(4);
    fileType_ = read32(12);
    const uint32_t commandCount = read32(16);
    commandsEnd_ = headerSize + uint64_t{read32(20)};
    if (commandsEnd_ > bytes_.size())
      return malformed("load commands extend past the end of the file");
    elements_.push_back({0, commandsEnd_, "Mach-O headers"});
    if (commandCount == 0)
      return finish();
    if (commandsEnd_ - headerSize < 8)
      return malformed("load command 0 extends past the end all load "
                       "commands in the file");
    uint64_t at = headerSize;
    for (uint32_t index = 0; index < commandCount; ++index) {
      if (Status status = checkCommandHeader(at, index); !status.ok())
        return status;
      const uint32_t command = read32(at);
      const uint32_t size = read32(at + 4);
      const bool coreThread =
          fileType_ == kFileTypeCore && command == kThread && size % 4 == 0;
      if (is64Bit_ && size % 8 != 0 && !coreThread)
        return malformed("load command " + std::to_string(index) +
                         " cmdsize not a multiple of 8");
      if (!is64Bit_ && size % 4 != 0)
        return malformed("load command " + std::to_string(index) +
                         " cmdsize not a multiple of 4");
      // LLVM stops looking at the commands after an LC_IDENT (its loop
      // goes on with that command for every remaining index).
      if (command == kIdent)
        break;
      if (Status status = readCommand(command, at, size, index); !status.ok())
        return status;
      if (index + 1 < commandCount) {
        if (at + size + 8 > commandsEnd_)
          return malformed("load command " + std::to_string(index + 1) +
                           " extends past the end all load commands in the "
                           "file");
        at += size;
      }
    }
    return finish();
  }

  Result<std::vector<std::string>> archiveSymbols() const {
    std::vector<std::string> names;
    const uint64_t recordSize = is64Bit_ ? 16 : 12;
    for (uint64_t index = 0; index < symbolCount_; ++index) {
      const uint64_t record = symbolOffset_ + index * recordSize;
      const uint8_t type = static_cast<uint8_t>(bytes_[record + 4]);
      const uint64_t value =
          is64Bit_ ? read64(record + 8) : uint64_t{read32(record + 8)};
      if ((type & kTypeStab) != 0 || (type & kTypeExternal) == 0)
        continue;
      if ((type & kTypeMask) == kTypeUndefined && value == 0)
        continue;
      Result<std::string> name = symbolName(index, read32(record));
      if (!name)
        return name.takeError();
      names.push_back(std::move(*name));
    }
    return names;
  }

private:
  static std::string number(uint32_t index) { return std::to_string(index); }

  Status readCommand(uint32_t command, uint64_t at, uint32_t size,
                     uint32_t index) {
    const std::string n = number(index);
    for (const NamedCommand &named : kNamedCommands)
      if (named.command == command) {
        if (Status status = namedCommand(at, size, n, named); !status.ok())
          return status;
        return command == kIdDylib ? dylibIdentity() : Status::success();
      }
    for (const LinkeditCommand &linkedit : kLinkeditCommands)
      if (linkedit.command == command)
        return linkeditData(at, size, n, linkedit.name, linkedit.element);
    for (const auto &[versionCommand, name] : kVersionMinCommands)
      if (versionCommand == command)
        return versionMin(size, n, name);
    switch (command) {
    case kSymtab:
      return readSymtab(at, size, n);
    case kDysymtab:
      return readDysymtab(at, size, n);
    case kDyldInfo:
      return readDyldInfo(at, size, n, "LC_DYLD_INFO");
    case kDyldInfoOnly:
      return readDyldInfo(at, size, n, "LC_DYLD_INFO_ONLY");
    case kUuid:
      if (size != 24)
        return malformed("LC_UUID command " + n + " has incorrect cmdsize");
      return once("LC_UUID");
    case kSegment64:
      return readSegment(at, size, n, true);
    case kSegment:
      return readSegment(at, size, n, false);
    case kNote:
      return readNote(at, size, n);
    case kBuildVersion: {
      if (Status status = structureFits(at, 24); !status.ok())
        return status;
      if (size != 24 + uint64_t{read32(at + 20)} * 8)
        return malformed("load command " + n +
                         " LC_BUILD_VERSION_COMMAND has incorrect cmdsize");
      return Status::success();
    }
    case kSourceVersion:
      if (size != 16)
        return malformed("LC_SOURCE_VERSION command " + n +
                         " has incorrect cmdsize");
      return once("LC_SOURCE_VERSION");
    case kMain:
      if (size != 24)
        return malformed("LC_MAIN command " + n + " has incorrect cmdsize");
      return once("LC_MAIN");
    case kEncryptionInfo:
      return readEncryption(at, size, n, "LC_ENCRYPTION_INFO", 20);
    case kEncryptionInfo64:
      return readEncryption(at, size, n, "LC_ENCRYPTION_INFO_64", 24);
    case kLinkerOption:
      return readLinkerOption(at, size, n);
    case kRoutines:
      if (size != 40)
        return malformed("LC_ROUTINES command " + n + " has incorrect cmdsize");
      return routinesOnce("LC_ROUTINES and or LC_ROUTINES_64");
    case kRoutines64:
      if (size != 72)
        return malformed("LC_ROUTINES_64 command " + n +
                         " has incorrect cmdsize");
      return routinesOnce("LC_ROUTINES_64 and or LC_ROUTINES");
    case kUnixThread:
      if (Status status = readThread(at, size, index, "LC_UNIXTHREAD");
          !status.ok())
        return status;
      return once("LC_UNIXTHREAD");
    case kThread:
      return readThread(at, size, index, "LC_THREAD");
    case kTwoLevelHints:
      return readTwoLevelHints(at, size, n);
    case kSymseg:
    case kLoadFvmlib:
    case kIdFvmlib:
    case kFvmFile:
    case kPrepage:
    case kPreboundDylib:
    case kPrebindChecksum:
      return malformed("load command " + n +
                       " for cmd value of: " + std::to_string(command) +
                       " is obsolete and not "
                       "supported");
    default:
      // LLVM passes over commands it does not know.
      return Status::success();
    }
  }

  // After LC_ID_DYLIB's name: one only, and only in a dylib.
  Status dylibIdentity() {
    if (Status status = once("LC_ID_DYLIB"); !status.ok())
      return status;
    if (fileType_ != kFileTypeDylib && fileType_ != kFileTypeDylibStub)
      return malformed("LC_ID_DYLIB load command in non-dynamic library "
                       "file type");
    hasDylibId_ = true;
    return Status::success();
  }

  // A command naming something (a library, the dynamic linker, a path) by
  // the offset of a NUL-terminated string inside the command.
  Status namedCommand(uint64_t at, uint32_t size, const std::string &n,
                      const NamedCommand &named) {
    const std::string prefix = "load command " + n + " " + named.name + " ";
    if (size < named.structSize)
      return malformed(prefix + "cmdsize too small");
    const uint32_t offset = read32(at + 8);
    if (offset < named.structSize)
      return malformed(prefix + named.field +
                       ".offset field too small, not past the end of the " +
                       named.structName + (named.structWord ? " struct" : ""));
    if (offset >= size)
      return malformed(prefix + named.field +
                       ".offset field extends past the end of the load "
                       "command");
    if (bytes_.substr(at + offset, size - offset).find('\0') ==
        std::string_view::npos)
      return malformed(prefix + named.what +
                       " name extends past the end of the load command");
    return Status::success();
  }

  Status versionMin(uint32_t size, const std::string &n,
                    const std::string &name) {
    if (size != 16)
      return malformed("load command " + n + " " + name +
                       " has incorrect cmdsize");
    return once("LC_VERSION_MIN_MACOSX, LC_VERSION_MIN_IPHONEOS, "
                "LC_VERSION_MIN_TVOS or LC_VERSION_MIN_WATCHOS");
  }

  Status readNote(uint64_t at, uint32_t size, const std::string &n) {
    if (size != 40)
      return malformed("load command " + n + " LC_NOTE has incorrect cmdsize");
    const uint64_t offset = read64(at + 24);
    const uint64_t noteSize = read64(at + 32);
    if (offset > fileSize())
      return malformed("offset field of LC_NOTE command " + n +
                       " extends past the end of the file");
    if (offset + noteSize > fileSize())
      return malformed("size field plus offset field of LC_NOTE command " + n +
                       " extends past the end of the file");
    return place(offset, noteSize, "LC_NOTE data");
  }

  Status readEncryption(uint64_t at, uint32_t size, const std::string &n,
                        const std::string &name, uint32_t expected) {
    if (size != expected)
      return malformed(name + " command " + n + " has incorrect cmdsize");
    if (Status status = once("LC_ENCRYPTION_INFO and or LC_ENCRYPTION_INFO_64");
        !status.ok())
      return status;
    const uint64_t offset = read32(at + 8);
    const uint64_t cryptSize = read32(at + 12);
    if (offset > fileSize())
      return malformed("cryptoff field of " + name + " command " + n +
                       " extends past the end of the file");
    if (offset + cryptSize > fileSize())
      return malformed("cryptoff field plus cryptsize field of " + name +
                       " command " + n + " extends past the end of the file");
    return Status::success();
  }

  // LLVM counts the strings after the command's 12 bytes: runs of NULs are
  // skipped, and every other run must end with a NUL inside the command.
  Status readLinkerOption(uint64_t at, uint32_t size, const std::string &n) {
    if (size < 12)
      return malformed("load command " + n +
                       " LC_LINKER_OPTION cmdsize too small");
    std::string_view rest = bytes_.substr(at + 12, size - 12);
    uint32_t strings = 0;
    while (!rest.empty()) {
      const size_t text = rest.find_first_not_of('\0');
      if (text == std::string_view::npos)
        break;
      rest.remove_prefix(text);
      ++strings;
      const size_t end = rest.find('\0');
      if (end == std::string_view::npos)
        return malformed("load command " + n + " LC_LINKER_OPTION string #" +
                         std::to_string(strings) + " is not NULL terminated");
      rest.remove_prefix(end + 1);
    }
    const uint32_t count = read32(at + 8);
    if (count != strings)
      return malformed("load command " + n + " LC_LINKER_OPTION string count " +
                       std::to_string(count) +
                       " does not match number of strings");
    return Status::success();
  }

  Status routinesOnce(const std::string &what) {
    // LC_ROUTINES and LC_ROUTINES_64 share one slot; the message names the
    // one that came second first.
    if (hasRoutines_)
      return malformed("more than one " + what + " command");
    hasRoutines_ = true;
    return Status::success();
  }

  Status readThread(uint64_t at, uint32_t size, uint32_t index,
                    const std::string &name) {
    const std::string n = number(index);
    if (size < 8)
      return malformed("load command " + n + name + " cmdsize too small");
    const ThreadFlavor *flavors = nullptr;
    size_t flavorCount = 0;
    switch (cpuType_) {
    case kCpuI386:
      flavors = kI386Flavors;
      flavorCount = std::size(kI386Flavors);
      break;
    case kCpuX86_64:
      flavors = kX86_64Flavors;
      flavorCount = std::size(kX86_64Flavors);
      break;
    case kCpuArm:
      flavors = kArmFlavors;
      flavorCount = std::size(kArmFlavors);
      break;
    case kCpuArm64:
    case kCpuArm64_32:
      flavors = kArm64Flavors;
      flavorCount = std::size(kArm64Flavors);
      break;
    case kCpuPowerPC:
      flavors = kPowerPCFlavors;
      flavorCount = std::size(kPowerPCFlavors);
      break;
    default:
      break;
    }
    uint64_t state = at + 8;
    const uint64_t end = at + size;
    for (uint32_t number = 0; state < end; ++number) {
      if (state + 4 > end)
        return malformed("load command " + n + "flavor in " + name +
                         " extends past end of command");
      const uint32_t flavor = read32(state);
      state += 4;
      if (state + 4 > end)
        return malformed("load command " + n + " count in " + name +
                         " extends past end of command");
      const uint32_t count = read32(state);
      state += 4;
      if (!flavors)
        return malformed("unknown cputype (" + std::to_string(cpuType_) +
                         ") load command " + n + " for " + name +
                         " command can't be checked");
      const ThreadFlavor *known = nullptr;
      for (size_t i = 0; i < flavorCount; ++i)
        if (flavors[i].flavor == flavor)
          known = &flavors[i];
      if (!known)
        return malformed("load command " + n + " unknown flavor (" +
                         std::to_string(flavor) + ") for flavor number " +
                         std::to_string(number) + " in " + name + " command");
      if (count != known->count)
        return malformed("load command " + n + " count not " + known->name +
                         "_COUNT for flavor number " + std::to_string(number) +
                         " which is a " + known->name + " flavor in " + name +
                         " command");
      if (state + known->size > end)
        return malformed("load command " + n + " " + known->name +
                         " extends past end of command in " + name +
                         " command");
      state += known->size;
    }
    return Status::success();
  }

  Status readTwoLevelHints(uint64_t at, uint32_t size, const std::string &n) {
    if (size != 16)
      return malformed("load command " + n +
                       " LC_TWOLEVEL_HINTS has incorrect cmdsize");
    if (Status status = once("LC_TWOLEVEL_HINTS"); !status.ok())
      return status;
    const uint64_t offset = read32(at + 8);
    const uint64_t hints = read32(at + 12);
    if (offset > fileSize())
      return malformed("offset field of LC_TWOLEVEL_HINTS command " + n +
                       " extends past the end of the file");
    if (offset + hints * 4 > fileSize())
      return malformed("offset field plus nhints times sizeof(struct "
                       "twolevel_hint) field of LC_TWOLEVEL_HINTS command " +
                       n + " extends past the end of the file");
    return place(offset, hints * 4, "two level hints");
  }

  Status readSegment(uint64_t at, uint32_t size, const std::string &n,
                     bool is64) {
    const char *name = is64 ? "LC_SEGMENT_64" : "LC_SEGMENT";
    const uint64_t segmentSize = is64 ? 72 : 56;
    const uint64_t sectionSize = is64 ? 80 : 68;
    const uint64_t word = is64 ? 8 : 4;
    if (size < segmentSize)
      return malformed("load command " + n + " " + name + " cmdsize too small");
    auto field = [&](uint64_t offset) {
      return is64 ? read64(offset) : uint64_t{read32(offset)};
    };
    const uint64_t address = field(at + 24);
    const uint64_t memorySize = field(at + 24 + word);
    const uint64_t fileOffset = field(at + 24 + 2 * word);
    const uint64_t fileBytes = field(at + 24 + 3 * word);
    const uint32_t sections = read32(at + segmentSize - 8);
    if (sections > UINT32_MAX / sectionSize ||
        sections * sectionSize > size - segmentSize)
      return malformed("load command " + n + " inconsistent cmdsize in " +
                       name + " for the number of sections");
    const bool loose =
        fileType_ == kFileTypeDylibStub || fileType_ == kFileTypeDsym;
    for (uint32_t index = 0; index < sections; ++index) {
      const uint64_t section = at + segmentSize + index * sectionSize;
      const std::string which =
          std::to_string(index) + " in " + name + " command " + n;
      const uint64_t sectionAddress = field(section + 32);
      const uint64_t sectionBytes = field(section + 32 + word);
      const uint64_t fields = section + 32 + 2 * word;
      const uint64_t offset = read32(fields);
      const uint64_t relocations = read32(fields + 8);
      const uint64_t relocationCount = read32(fields + 12);
      // LLVM compares the whole flags word, attributes included.
      const uint32_t flags = read32(fields + 16);
      const bool inFile = !loose && flags != kSectionZeroFill &&
                          flags != kSectionThreadLocalZeroFill;
      if (inFile && offset > fileSize())
        return malformed("offset field of section " + which +
                         " extends past the end of the file");
      if (inFile && fileOffset == 0 && offset < commandsEnd_ &&
          sectionBytes != 0)
        return malformed("offset field of section " + which +
                         " not past the headers of the file");
      if (inFile && offset + sectionBytes > fileSize())
        return malformed("offset field plus size field of section " + which +
                         " extends past the end of the file");
      if (inFile && sectionBytes > fileBytes)
        return malformed("size field of section " + which +
                         " greater than the segment");
      if (!loose && sectionBytes != 0 && sectionAddress < address)
        return malformed("addr field of section " + which +
                         " less than the segment's vmaddr");
      if (memorySize != 0 && sectionBytes != 0 &&
          wideSum(sectionAddress, sectionBytes) > wideSum(address, memorySize))
        return malformed("addr field plus size of section " + which +
                         " greater than than the segment's vmaddr plus "
                         "vmsize");
      if (inFile)
        if (Status status = place(offset, sectionBytes, "section contents");
            !status.ok())
          return status;
      if (relocations > fileSize())
        return malformed("reloff field of section " + which +
                         " extends past the end of the file");
      if (relocations + relocationCount * kRelocationSize > fileSize())
        return malformed("reloff field plus nreloc field times sizeof(struct "
                         "relocation_info) of section " +
                         which + " extends past the end of the file");
      if (Status status = place(relocations, relocationCount * kRelocationSize,
                                "section relocation entries");
          !status.ok())
        return status;
    }
    if (fileOffset > fileSize())
      return malformed("load command " + n + " fileoff field in " + name +
                       " extends past the end of the file");
    if (wideSum(fileOffset, fileBytes) > fileSize())
      return malformed("load command " + n +
                       " fileoff field plus filesize field in " + name +
                       " extends past the end of the file");
    if (memorySize != 0 && fileBytes > memorySize)
      return malformed("load command " + n + " filesize field in " + name +
                       " greater than vmsize field");
    return Status::success();
  }

  // A sum of two fields that LLVM computes in 64 bits: for 64-bit fields
  // it may wrap, as LLVM's does.
  static uint64_t wideSum(uint64_t a, uint64_t b) { return a + b; }

  // The checks after the last command: LC_DYSYMTAB's ranges inside the
  // symbol table, and a dylib's LC_ID_DYLIB.
  Status finish() {
    if (hasDysymtab_ && !hasSymtab())
      return malformed("contains LC_DYSYMTAB load command without a "
                       "LC_SYMTAB load command");
    if (hasDysymtab_) {
      static constexpr const char *kNames[][2] = {{"ilocalsym", "nlocalsym"},
                                                  {"iextdefsym", "nextdefsym"},
                                                  {"iundefsym", "nundefsym"}};
      for (unsigned range = 0; range < 3; ++range) {
        const auto [first, count] = symbolRanges_[range];
        if (count == 0)
          continue;
        const std::string index = kNames[range][0];
        if (first > symbolCount_)
          return malformed(index + " in LC_DYSYMTAB load command extends past "
                                   "the end of the symbol table");
        if (uint64_t{first} + count > symbolCount_)
          return malformed(index + " plus " + kNames[range][1] +
                           " in LC_DYSYMTAB load " + (range == 2 ? " " : "") +
                           "command extends past the end of the symbol "
                           "table");
      }
    }
    if ((fileType_ == kFileTypeDylib || fileType_ == kFileTypeDylibStub) &&
        !hasDylibId_)
      return malformed("no LC_ID_DYLIB load command in dynamic library "
                       "filetype");
    return Status::success();
  }

  bool hasSymtab() const {
    return std::find(seen_.begin(), seen_.end(), "LC_SYMTAB") != seen_.end();
  }

  // MachOObjectFile::getSymbolName(): the name starts in the file, at its
  // offset from the string table.
  Result<std::string> symbolName(uint64_t index, uint32_t nameOffset) const {
    if (nameOffset == 0)
      return std::string();
    const uint64_t start = stringTable_ + nameOffset;
    if (start >= bytes_.size())
      return makeError("truncated or malformed object (bad string index: " +
                       std::to_string(nameOffset) + " for symbol at index " +
                       std::to_string(index) + ")");
    const std::string_view rest = bytes_.substr(start);
    const size_t end = rest.find('\0');
    // LLVM would read on past the member.
    if (end == std::string_view::npos)
      return makeError("the name of Mach-O symbol " + std::to_string(index) +
                       " runs past the end of the file");
    return std::string(rest.substr(0, end));
  }
};

} // namespace

Result<std::vector<std::string>> machOArchiveSymbols(std::string_view bytes) {
  if (bytes.size() < 4)
    return makeError("archive symbol tables for this Mach-O member are not "
                     "supported: its header is cut short");
  const uint8_t first = static_cast<uint8_t>(bytes[0]);
  const uint8_t last = static_cast<uint8_t>(bytes[3]);
  // "\xfe\xed\xfa\xce/\xcf" is big-endian; "\xce/\xcf\xfa\xed\xfe" little.
  const bool bigEndian = first == 0xfe;
  const bool is64Bit = (bigEndian ? last : first) == 0xcf;
  MachOSymbolReader reader(bytes, is64Bit, bigEndian);
  if (Status status = reader.open(); !status.ok())
    return status.takeError();
  return reader.archiveSymbols();
}

} // namespace offbundle
