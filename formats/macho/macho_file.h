// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The Mach-O file as LLVM's MachOObjectFile constructor checks it while
// macho_symbols.cpp walks its load commands: the load command values and
// tables of what LLVM checks per command, the symbol table commands, the
// byte order and word size, and the overlap check over every region placed
// so far, with LLVM's messages.
// Internal to formats/macho/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/byte_order.h"
#include "support/error.h"

namespace offbundle::macho {

constexpr uint32_t kFileTypeCore = 4;
constexpr uint32_t kFileTypeDylib = 6;
constexpr uint32_t kFileTypeDylibStub = 9;
constexpr uint32_t kFileTypeDsym = 10;
constexpr uint32_t kRequiredByDyld = 0x80000000;

// Load commands, by value.
enum Command : uint32_t {
  kSegment = 0x1,
  kSymtab = 0x2,
  kSymseg = 0x3,
  kThread = 0x4,
  kUnixThread = 0x5,
  kLoadFvmlib = 0x6,
  kIdFvmlib = 0x7,
  kIdent = 0x8,
  kFvmFile = 0x9,
  kPrepage = 0xa,
  kDysymtab = 0xb,
  kLoadDylib = 0xc,
  kIdDylib = 0xd,
  kLoadDylinker = 0xe,
  kIdDylinker = 0xf,
  kPreboundDylib = 0x10,
  kRoutines = 0x11,
  kSubFramework = 0x12,
  kSubUmbrella = 0x13,
  kSubClient = 0x14,
  kSubLibrary = 0x15,
  kTwoLevelHints = 0x16,
  kPrebindChecksum = 0x17,
  kLoadWeakDylib = 0x18 | kRequiredByDyld,
  kSegment64 = 0x19,
  kRoutines64 = 0x1a,
  kUuid = 0x1b,
  kRpath = 0x1c | kRequiredByDyld,
  kCodeSignature = 0x1d,
  kSegmentSplitInfo = 0x1e,
  kReexportDylib = 0x1f | kRequiredByDyld,
  kLazyLoadDylib = 0x20,
  kEncryptionInfo = 0x21,
  kDyldInfo = 0x22,
  kDyldInfoOnly = 0x22 | kRequiredByDyld,
  kLoadUpwardDylib = 0x23 | kRequiredByDyld,
  kVersionMinMacOS = 0x24,
  kVersionMinIOS = 0x25,
  kFunctionStarts = 0x26,
  kDyldEnvironment = 0x27,
  kMain = 0x28 | kRequiredByDyld,
  kDataInCode = 0x29,
  kSourceVersion = 0x2a,
  kDylibCodeSignDrs = 0x2b,
  kEncryptionInfo64 = 0x2c,
  kLinkerOption = 0x2d,
  kOptimizationHints = 0x2e,
  kVersionMinTvOS = 0x2f,
  kVersionMinWatchOS = 0x30,
  kNote = 0x31,
  kBuildVersion = 0x32,
  kDyldExportsTrie = 0x33 | kRequiredByDyld,
  kDyldChainedFixups = 0x34 | kRequiredByDyld,
};

constexpr uint32_t kSectionZeroFill = 0x1;
constexpr uint32_t kSectionThreadLocalZeroFill = 0x12;
constexpr uint8_t kTypeStab = 0xe0;
constexpr uint8_t kTypeMask = 0x0e;
constexpr uint8_t kTypeUndefined = 0x0;
constexpr uint8_t kTypeExternal = 0x01;
constexpr uint64_t kRelocationSize = 8;

// CPU types whose thread states LLVM checks.
constexpr uint32_t kCpuI386 = 7;
constexpr uint32_t kCpuX86_64 = 0x01000007;
constexpr uint32_t kCpuArm = 12;
constexpr uint32_t kCpuArm64 = 0x0100000c;
constexpr uint32_t kCpuArm64_32 = 0x0200000c;
constexpr uint32_t kCpuPowerPC = 18;

// A thread state flavor LLVM knows: its number, its count of 32-bit words,
// its size in the command, and its name in messages.
struct ThreadFlavor {
  uint32_t flavor;
  uint32_t count;
  uint64_t size;
  const char *name;
};

constexpr ThreadFlavor kI386Flavors[] = {{1, 16, 64, "x86_THREAD_STATE32"}};
constexpr ThreadFlavor kX86_64Flavors[] = {{7, 44, 176, "x86_THREAD_STATE"},
                                           {8, 133, 532, "x86_FLOAT_STATE"},
                                           {9, 6, 24, "x86_EXCEPTION_STATE"},
                                           {4, 42, 168, "x86_THREAD_STATE64"},
                                           {6, 4, 16, "x86_EXCEPTION_STATE64"}};
constexpr ThreadFlavor kArmFlavors[] = {{1, 17, 68, "ARM_THREAD_STATE"}};
constexpr ThreadFlavor kArm64Flavors[] = {{6, 68, 272, "ARM_THREAD_STATE64"}};
constexpr ThreadFlavor kPowerPCFlavors[] = {{1, 40, 160, "PPC_THREAD_STATE"}};

// Commands that name a string inside themselves: the struct before the
// string and the words LLVM's messages use for it.
struct NamedCommand {
  uint32_t command;
  const char *name;
  uint32_t structSize;
  const char *field;      // "<field>.offset field ..."
  const char *structName; // "... not past the end of the <structName>"
  const char *what;       // "<what> name extends past ..."
  bool structWord;        // the message says "struct" after structName
};

constexpr NamedCommand kNamedCommands[] = {
    {kIdDylib, "LC_ID_DYLIB", 24, "name", "dylib_command", "library", true},
    {kLoadDylib, "LC_LOAD_DYLIB", 24, "name", "dylib_command", "library", true},
    {kLoadWeakDylib, "LC_LOAD_WEAK_DYLIB", 24, "name", "dylib_command",
     "library", true},
    {kLazyLoadDylib, "LC_LAZY_LOAD_DYLIB", 24, "name", "dylib_command",
     "library", true},
    {kReexportDylib, "LC_REEXPORT_DYLIB", 24, "name", "dylib_command",
     "library", true},
    {kLoadUpwardDylib, "LC_LOAD_UPWARD_DYLIB", 24, "name", "dylib_command",
     "library", true},
    {kIdDylinker, "LC_ID_DYLINKER", 12, "name", "dylinker_command", "dyld",
     true},
    {kLoadDylinker, "LC_LOAD_DYLINKER", 12, "name", "dylinker_command", "dyld",
     true},
    {kDyldEnvironment, "LC_DYLD_ENVIRONMENT", 12, "name", "dylinker_command",
     "dyld", true},
    {kRpath, "LC_RPATH", 12, "path", "rpath_command", "library", true},
    {kSubFramework, "LC_SUB_FRAMEWORK", 12, "umbrella", "sub_framework_command",
     "umbrella", false},
    {kSubUmbrella, "LC_SUB_UMBRELLA", 12, "sub_umbrella",
     "sub_umbrella_command", "sub_umbrella", false},
    {kSubLibrary, "LC_SUB_LIBRARY", 12, "sub_library", "sub_library_command",
     "sub_library", false},
    {kSubClient, "LC_SUB_CLIENT", 12, "client", "sub_client_command", "client",
     false},
};

// Commands that point at a table of linkedit data, and what LLVM calls
// that data in its overlap messages.
struct LinkeditCommand {
  uint32_t command;
  const char *name;
  const char *element;
};

constexpr LinkeditCommand kLinkeditCommands[] = {
    {kDataInCode, "LC_DATA_IN_CODE", "data in code info"},
    {kOptimizationHints, "LC_LINKER_OPTIMIZATION_HINT",
     "linker optimization hints"},
    {kFunctionStarts, "LC_FUNCTION_STARTS", "function starts data"},
    {kSegmentSplitInfo, "LC_SEGMENT_SPLIT_INFO", "split info data"},
    {kDylibCodeSignDrs, "LC_DYLIB_CODE_SIGN_DRS", "code signing RDs data"},
    {kCodeSignature, "LC_CODE_SIGNATURE", "code signature data"},
    {kDyldChainedFixups, "LC_DYLD_CHAINED_FIXUPS", "chained fixups"},
    {kDyldExportsTrie, "LC_DYLD_EXPORTS_TRIE", "exports trie"},
};

constexpr std::pair<uint32_t, const char *> kVersionMinCommands[] = {
    {kVersionMinMacOS, "LC_VERSION_MIN_MACOSX"},
    {kVersionMinIOS, "LC_VERSION_MIN_IPHONEOS"},
    {kVersionMinTvOS, "LC_VERSION_MIN_TVOS"},
    {kVersionMinWatchOS, "LC_VERSION_MIN_WATCHOS"},
};

// How many regions (the headers, sections, relocations, tables) the
// overlap check takes; a section's index in a symbol is one byte, so no
// real file comes near.
constexpr size_t kMostPlacedRegions = 16384;

// A structure of the file placed so far, for the overlap checks.
struct Element {
  uint64_t offset = 0;
  uint64_t size = 0;
  const char *name = "";
};

inline Error malformed(const std::string &reason) {
  return makeError("truncated or malformed object (" + reason + ")",
                   ErrorCode::DamagedInput);
}

// The file read so far: its header's facts, what was placed, which commands
// were seen. MachOSymbolReader (macho_symbols.cpp) reads the commands.
class MachOFile {
protected:
  MachOFile(std::string_view bytes, bool is64Bit, bool bigEndian)
      : bytes_(bytes), is64Bit_(is64Bit), bigEndian_(bigEndian) {}

  uint64_t readBytes(uint64_t offset, unsigned width) const {
    return loadInByteOrder(bytes_, offset, width, bigEndian_);
  }
  uint32_t read32(uint64_t offset) const {
    return static_cast<uint32_t>(readBytes(offset, 4));
  }
  uint64_t read64(uint64_t offset) const { return readBytes(offset, 8); }
  uint64_t readWord(uint64_t offset) const {
    return is64Bit_ ? read64(offset) : read32(offset);
  }
  uint64_t fileSize() const { return bytes_.size(); }

  // A load command's own header: in the file, and at least 8 bytes long.
  Status checkCommandHeader(uint64_t at, uint32_t index) const {
    if (at + 8 > fileSize())
      return malformed("Structure read out-of-range");
    const uint32_t size = read32(at + 4);
    if (at + size > fileSize())
      return malformed("load command " + std::to_string(index) +
                       " extends past end of file");
    if (size < 8)
      return malformed("load command " + std::to_string(index) +
                       " with size less than 8 bytes");
    return Status::success();
  }

  // A structure `size` bytes long at `at` must lie in the file.
  Status structureFits(uint64_t at, uint64_t size) const {
    if (at > fileSize() || size > fileSize() - at)
      return malformed("Structure read out-of-range");
    return Status::success();
  }

  // LLVM's overlap check, which keeps the elements in a list where each new
  // one goes before the first element it ends before, looking from the
  // start, or at the end; the first element it overlaps is the one named.
  Status place(uint64_t offset, uint64_t size, const char *name) {
    if (size == 0)
      return Status::success();
    // Each placement walks the list, so the check costs the square of the
    // regions' count: a member of millions of sections would take hours
    // (LLVM's as well). Real files have at most a few hundred.
    if (elements_.size() >= kMostPlacedRegions)
      return makeError("archive symbol tables for Mach-O members with more "
                       "than " +
                       std::to_string(kMostPlacedRegions) +
                       " sections and tables are not supported");
    for (auto it = elements_.begin(); it != elements_.end(); ++it) {
      const Element &placed = *it;
      const uint64_t end = offset + size;
      const uint64_t placedEnd = placed.offset + placed.size;
      if ((offset >= placed.offset && offset < placedEnd) ||
          (end > placed.offset && end < placedEnd) ||
          (offset <= placed.offset && end >= placedEnd))
        return malformed(std::string(name) + " at offset " +
                         std::to_string(offset) + " with a size of " +
                         std::to_string(size) + ", overlaps " + placed.name +
                         " at offset " + std::to_string(placed.offset) +
                         " with a size of " + std::to_string(placed.size));
      auto next = std::next(it);
      if (next != elements_.end() && end <= next->offset) {
        elements_.insert(next, {offset, size, name});
        return Status::success();
      }
    }
    elements_.push_back({offset, size, name});
    return Status::success();
  }

  // A table `offset` .. `offset + size` named in messages by the fields
  // that give it: each must stay in the file, then it must not overlap.
  Status table(uint64_t offset, uint64_t size, const std::string &offsetField,
               const std::string &sizeFields, const std::string &command,
               const char *element) {
    if (offset > fileSize())
      return malformed(offsetField + " field of " + command +
                       " extends past the end of the file");
    if (offset + size > fileSize())
      return malformed(offsetField + " field plus " + sizeFields + " of " +
                       command + " extends past the end of the file");
    return place(offset, size, element);
  }

  // Commands allowed once, by the name LLVM's "more than one" names.
  Status once(const std::string &what) {
    if (std::find(seen_.begin(), seen_.end(), what) != seen_.end())
      return malformed("more than one " + what + " command");
    seen_.push_back(what);
    return Status::success();
  }

  // The commands whose tables the symbols are read with, and the dyld
  // info, whose tables are placed like theirs.
  Status readSymtab(uint64_t at, uint32_t size, const std::string &n) {
    if (size < 24)
      return malformed("load command " + n + " LC_SYMTAB cmdsize too small");
    if (Status status = once("LC_SYMTAB"); !status.ok())
      return status;
    if (size != 24)
      return malformed("LC_SYMTAB command " + n + " has incorrect cmdsize");
    const uint64_t symbols = read32(at + 8);
    const uint64_t count = read32(at + 12);
    const uint64_t strings = read32(at + 16);
    const uint64_t stringsSize = read32(at + 20);
    const std::string command = "LC_SYMTAB command " + n;
    const char *record = is64Bit_ ? "struct nlist_64" : "struct nlist";
    if (Status status =
            table(symbols, count * (is64Bit_ ? 16 : 12), "symoff",
                  std::string("nsyms field times sizeof(") + record + ")",
                  command, "symbol table");
        !status.ok())
      return status;
    if (Status status = table(strings, stringsSize, "stroff", "strsize field",
                              command, "string table");
        !status.ok())
      return status;
    symbolOffset_ = symbols;
    symbolCount_ = count;
    stringTable_ = strings;
    return Status::success();
  }

  Status readDysymtab(uint64_t at, uint32_t size, const std::string &n) {
    if (size < 80)
      return malformed("load command " + n + " LC_DYSYMTAB cmdsize too small");
    if (Status status = once("LC_DYSYMTAB"); !status.ok())
      return status;
    if (size != 80)
      return malformed("LC_DYSYMTAB command " + n + " has incorrect cmdsize");
    const std::string command = "LC_DYSYMTAB command " + n;
    struct DysymtabTable {
      uint64_t offsetField, countField, entrySize;
      const char *offsetName, *sizeName, *element;
    };
    const uint64_t module = is64Bit_ ? 56 : 52;
    const std::string moduleName =
        is64Bit_ ? "struct dylib_module_64" : "struct dylib_module";
    const DysymtabTable tables[] = {
        {32, 36, 8, "tocoff",
         "ntoc field times sizeof(struct "
         "dylib_table_of_contents)",
         "table of contents"},
        {40, 44, module, "modtaboff", nullptr, "module table"},
        {48, 52, 4, "extrefsymoff",
         "nextrefsyms field times sizeof(struct "
         "dylib_reference)",
         "reference table"},
        {56, 60, 4, "indirectsymoff",
         "nindirectsyms field times "
         "sizeof(uint32_t)",
         "indirect table"},
        {64, 68, 8, "extreloff",
         "nextrel field times sizeof(struct "
         "relocation_info)",
         "external relocation table"},
        {72, 76, 8, "locreloff",
         "nlocrel field times sizeof(struct "
         "relocation_info)",
         "local relocation table"}};
    for (const DysymtabTable &entry : tables) {
      const std::string sizeName =
          entry.sizeName ? entry.sizeName
                         : "nmodtab field times sizeof(" + moduleName + ")";
      if (Status status =
              table(read32(at + entry.offsetField),
                    uint64_t{read32(at + entry.countField)} * entry.entrySize,
                    entry.offsetName, sizeName, command, entry.element);
          !status.ok())
        return status;
    }
    for (unsigned field = 0; field < 3; ++field)
      symbolRanges_[field] = {read32(at + 8 + 8 * field),
                              read32(at + 12 + 8 * field)};
    hasDysymtab_ = true;
    return Status::success();
  }

  Status linkeditData(uint64_t at, uint32_t size, const std::string &n,
                      const std::string &name, const char *element) {
    if (size < 16)
      return malformed("load command " + n + " " + name + " cmdsize too small");
    if (Status status = once(name); !status.ok())
      return status;
    if (size != 16)
      return malformed(name + " command " + n + " has incorrect cmdsize");
    return table(read32(at + 8), read32(at + 12), "dataoff", "datasize field",
                 name + " command " + n, element);
  }

  Status readDyldInfo(uint64_t at, uint32_t size, const std::string &n,
                      const std::string &name) {
    if (size < 48)
      return malformed("load command " + n + " " + name + " cmdsize too small");
    if (Status status = once("LC_DYLD_INFO and or LC_DYLD_INFO_ONLY");
        !status.ok())
      return status;
    if (size != 48)
      return malformed(name + " command " + n + " has incorrect cmdsize");
    static constexpr const char *kParts[][3] = {
        {"rebase_off", "rebase_size field", "dyld rebase info"},
        {"bind_off", "bind_size field", "dyld bind info"},
        {"weak_bind_off", "weak_bind_size field", "dyld weak bind info"},
        {"lazy_bind_off", "lazy_bind_size field", "dyld lazy bind info"},
        {"export_off", "export_size field", "dyld export info"}};
    for (unsigned part = 0; part < 5; ++part)
      if (Status status =
              table(read32(at + 8 + 8 * part), read32(at + 12 + 8 * part),
                    kParts[part][0], kParts[part][1], name + " command " + n,
                    kParts[part][2]);
          !status.ok())
        return status;
    return Status::success();
  }

  std::string_view bytes_;
  bool is64Bit_;
  bool bigEndian_;
  uint32_t cpuType_ = 0;
  uint32_t fileType_ = 0;
  uint64_t commandsEnd_ = 0;
  uint64_t symbolOffset_ = 0;
  uint64_t symbolCount_ = 0;
  uint64_t stringTable_ = 0;
  std::list<Element> elements_;
  std::vector<std::string> seen_;
  std::pair<uint32_t, uint32_t> symbolRanges_[3] = {};
  bool hasDysymtab_ = false;
  bool hasDylibId_ = false;
  bool hasRoutines_ = false;
};

} // namespace offbundle::macho
