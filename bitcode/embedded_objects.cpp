// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The offload binaries clang embeds in bitcode (see embedded_objects.h). Only
// the module's global value records and its type, constant and metadata
// blocks are read: enough to follow `llvm.embedded.objects` to each global's
// constant initializer, as LLVM's extractFromBitcode does.

#include "bitcode/embedded_objects.h"

#include <cstdint>
#include <optional>

#include "bitcode/bitstream_reader.h"
#include "bitcode/llvm_bitcodes.h"
#include "support/offload_sections.h"

namespace offbundle {
namespace {

using bitcode::BitstreamCursor;
using bitcode::BitstreamEntry;
using bitcode::Record;

// Record codes of the constants and metadata blocks (LLVMBitCodes.h).
constexpr unsigned kConstantSetType = 1;
constexpr unsigned kConstantString = 8;
constexpr unsigned kConstantCString = 9;
constexpr unsigned kConstantData = 22;

constexpr unsigned kMetadataStringOld = 1;
constexpr unsigned kMetadataValue = 2;
constexpr unsigned kMetadataNode = 3;
constexpr unsigned kMetadataName = 4;
constexpr unsigned kMetadataDistinctNode = 5;
constexpr unsigned kMetadataNamedNode = 10;
constexpr unsigned kMetadataStrings = 35;

// The section whose objects LLVM 22 extracts.
constexpr std::string_view kEmbeddedObjectsName = "llvm.embedded.objects";

// Whether a metadata record defines one metadata ID, as LLVM's metadata
// loader numbers them: every record it knows except names, kinds, named
// nodes, attachments and the index; METADATA_STRINGS defines one per
// string (handled by the caller); codes it does not know are ignored.
bool definesOneMetadata(unsigned code) {
  switch (code) {
  case kMetadataStringOld:
  case kMetadataValue:
  case kMetadataNode:
  case kMetadataDistinctNode:
  case 7:  // LOCATION
  case 8:  // OLD_NODE
  case 9:  // OLD_FN_NODE
  case 37: // GLOBAL_VAR_EXPR
  case 40: // LABEL
  case 41: // STRING_TYPE
  case 44: // COMMON_BLOCK
  case 45: // GENERIC_SUBRANGE
  case 46: // ARG_LIST
  case 47: // ASSIGN_ID
  case 48: // SUBRANGE_TYPE
  case 49: // FIXED_POINT_TYPE
    return true;
  default:
    // GENERIC_DEBUG (12) to MACRO_FILE (34): the debug info nodes.
    return code >= 12 && code <= 34;
  }
}

// What the bytes of a constant data array depend on: its element type.
struct TypeInfo {
  enum class Kind { Integer, Floating, Array, Other } kind = Kind::Other;
  uint64_t bits = 0;    // width of an integer or floating-point type
  uint64_t element = 0; // element type ID of an array or vector
};

// A metadata definition that matters here.
struct MetadataEntry {
  enum class Kind { String, Value, Node, Other } kind = Kind::Other;
  std::string text;               // String
  uint64_t value = 0;             // Value: the value ID
  std::vector<uint64_t> operands; // Node: metadata IDs + 1 (0 for null)
};

// A value of the module: a global value or a module-level constant.
struct ValueEntry {
  enum class Kind { GlobalVariable, OtherGlobal, Constant };
  explicit ValueEntry(Kind kind) : kind(kind) {}
  Kind kind;
  // GlobalVariable: initializer value ID + 1 (0: a declaration), and the
  // name's place in the string table.
  uint64_t initializer = 0;
  uint64_t nameOffset = 0;
  uint64_t nameSize = 0;
  // Constant: its record (code and operands) and the type it has.
  unsigned code = 0;
  std::vector<uint64_t> operands;
  uint64_t type = 0;
};

Error malformed(const std::string &what) {
  return makeError("malformed LLVM bitcode: " + what, ErrorCode::DamagedInput);
}

class ModuleReader {
public:
  explicit ModuleReader(std::string_view bitcode) : cursor_(bitcode) {}

  Result<std::vector<EmbeddedObject>> read() {
    if (Status status = readTopLevel(); !status.ok())
      return status.takeError();
    return collect();
  }

private:
  Status readTopLevel() {
    if (Result<uint64_t> magic = cursor_.readFixed(32); !magic)
      return magic.takeError();
    bool sawModule = false;
    while (!cursor_.atEndOfStream()) {
      // Files are padded to a multiple of four bytes; zeros at the end are
      // not a block.
      if (cursor_.sizeInBytes() - cursor_.bytePosition() < 4)
        break;
      auto entry = cursor_.advance();
      if (!entry)
        return entry.takeError();
      if (entry->kind != BitstreamEntry::Kind::SubBlock) {
        if (entry->kind == BitstreamEntry::Kind::Record) {
          if (auto skipped = cursor_.skipRecord(entry->id); !skipped)
            return skipped.takeError();
          continue;
        }
        return malformed("unexpected end of block at the top level");
      }
      if (entry->id == bitcode::kBlockInfoBlockId) {
        if (Status status = cursor_.readBlockInfoBlock(); !status.ok())
          return status;
      } else if (entry->id == bitcode::kModuleBlockId) {
        // LLVM loads a file of several modules with getLazyIRModule only
        // when it holds exactly one.
        if (sawModule)
          return malformed("expected a single module");
        sawModule = true;
        if (Status status = readModule(); !status.ok())
          return status;
      } else if (entry->id == bitcode::kStrtabBlockId) {
        if (Status status = readStrtab(); !status.ok())
          return status;
      } else if (Status status = cursor_.skipBlock(); !status.ok()) {
        return status;
      }
    }
    if (!sawModule)
      return malformed("no module");
    // From version 2 on, names live in the string table, which LLVM
    // requires even when no name is asked for.
    if (version_ >= 2 && !sawStrtab_)
      return malformed("no string table");
    return Status::success();
  }

  // Reads the records of the block just entered, handing each to `onRecord`
  // and each sub-block's ID to `onBlock` (which enters or skips it).
  template <typename OnRecord, typename OnBlock>
  Status walkBlock(OnRecord onRecord, OnBlock onBlock) {
    while (true) {
      auto entry = cursor_.advance();
      if (!entry)
        return entry.takeError();
      switch (entry->kind) {
      case BitstreamEntry::Kind::EndBlock:
        return Status::success();
      case BitstreamEntry::Kind::SubBlock:
        if (Status status = onBlock(entry->id); !status.ok())
          return status;
        continue;
      case BitstreamEntry::Kind::Record: {
        auto record = cursor_.readRecord(entry->id);
        if (!record)
          return record.takeError();
        if (Status status = onRecord(*record); !status.ok())
          return status;
        continue;
      }
      }
    }
  }

  Status skipAnyBlock(unsigned id) {
    if (id == bitcode::kBlockInfoBlockId)
      return cursor_.readBlockInfoBlock();
    return cursor_.skipBlock();
  }

  Status readModule() {
    if (Status status = cursor_.enterSubBlock(); !status.ok())
      return status;
    return walkBlock(
        [&](const Record &record) { return moduleRecord(record); },
        [&](unsigned id) -> Status {
          if (id != bitcode::kTypeBlockId && id != bitcode::kConstantsBlockId &&
              id != bitcode::kMetadataBlockId)
            // Function bodies and the rest hold nothing of interest.
            return skipAnyBlock(id);
          if (Status status = cursor_.enterSubBlock(); !status.ok())
            return status;
          if (id == bitcode::kTypeBlockId)
            return readTypes();
          if (id == bitcode::kConstantsBlockId)
            return readConstants();
          return readMetadata();
        });
  }

  Status moduleRecord(const Record &record) {
    switch (record.code) {
    case bitcode::module_code::kVersion:
      if (!record.operands.empty())
        version_ = record.operands[0];
      return Status::success();
    case bitcode::module_code::kGlobalVar: {
      // From version 2 on, records start with the name's place in the
      // string table: [offset, size, type, constness, initializer + 1, ...].
      const size_t base = version_ >= 2 ? 2 : 0;
      if (record.operands.size() < base + 3)
        return malformed("global variable record too short");
      ValueEntry global(ValueEntry::Kind::GlobalVariable);
      global.initializer = record.operands[base + 2];
      if (base == 2) {
        global.nameOffset = record.operands[0];
        global.nameSize = record.operands[1];
      }
      values_.push_back(std::move(global));
      return Status::success();
    }
    case bitcode::module_code::kFunction:
    case bitcode::module_code::kAliasOld:
    case bitcode::module_code::kAlias:
    case bitcode::module_code::kIfunc:
      values_.emplace_back(ValueEntry::Kind::OtherGlobal);
      return Status::success();
    default:
      return Status::success();
    }
  }

  Status readTypes() {
    return walkBlock(
        [&](const Record &record) -> Status {
          TypeInfo type;
          switch (record.code) {
          case 1:  // NUMENTRY
          case 19: // STRUCT_NAME: names the next struct, defines no type
            return Status::success();
          case 7: // INTEGER: [width]
            type.kind = TypeInfo::Kind::Integer;
            type.bits = record.operands.empty() ? 0 : record.operands[0];
            break;
          case 10: // HALF
          case 23: // BFLOAT
            type.kind = TypeInfo::Kind::Floating;
            type.bits = 16;
            break;
          case 3: // FLOAT
            type.kind = TypeInfo::Kind::Floating;
            type.bits = 32;
            break;
          case 4: // DOUBLE
            type.kind = TypeInfo::Kind::Floating;
            type.bits = 64;
            break;
          case 11: // ARRAY: [count, element type]
          case 12: // VECTOR: [count, element type, (scalable)]
            if (record.operands.size() < 2)
              return malformed("array type record too short");
            type.kind = TypeInfo::Kind::Array;
            type.element = record.operands[1];
            break;
          default:
            break;
          }
          types_.push_back(type);
          return Status::success();
        },
        [&](unsigned id) { return skipAnyBlock(id); });
  }

  Status readConstants() {
    // LLVM's initial type for constants is i32, never an array.
    uint64_t currentType = UINT64_MAX;
    return walkBlock(
        [&](const Record &record) -> Status {
          if (record.code == kConstantSetType) {
            if (record.operands.empty())
              return malformed("constant type record without a type");
            currentType = record.operands[0];
            return Status::success();
          }
          // Every other record defines one value, even one LLVM does not
          // know (it becomes undef).
          ValueEntry constant(ValueEntry::Kind::Constant);
          constant.code = record.code;
          if (record.code == kConstantString ||
              record.code == kConstantCString || record.code == kConstantData)
            constant.operands = record.operands;
          constant.type = currentType;
          values_.push_back(std::move(constant));
          return Status::success();
        },
        [&](unsigned id) { return skipAnyBlock(id); });
  }

  Status readMetadata() {
    std::optional<std::string> pendingName;
    return walkBlock(
        [&](const Record &record) -> Status {
          if (pendingName && record.code != kMetadataNamedNode)
            return malformed("metadata name not followed by a named node");
          switch (record.code) {
          case kMetadataStrings:
            return readMetadataStrings(record);
          case kMetadataName:
            pendingName = textOf(record.operands);
            return Status::success();
          case kMetadataNamedNode:
            if (!pendingName)
              return malformed("named metadata node without a name");
            if (*pendingName == kEmbeddedObjectsName)
              embeddedObjectNodes_.insert(embeddedObjectNodes_.end(),
                                          record.operands.begin(),
                                          record.operands.end());
            pendingName.reset();
            return Status::success();
          default:
            break;
          }
          if (!definesOneMetadata(record.code))
            return Status::success();
          MetadataEntry entry;
          if (record.code == kMetadataStringOld) {
            entry.kind = MetadataEntry::Kind::String;
            entry.text = textOf(record.operands);
          } else if (record.code == kMetadataValue) {
            if (record.operands.size() != 2)
              return malformed("metadata value record of the wrong size");
            entry.kind = MetadataEntry::Kind::Value;
            entry.value = record.operands[1];
          } else if (record.code == kMetadataNode ||
                     record.code == kMetadataDistinctNode) {
            entry.kind = MetadataEntry::Kind::Node;
            entry.operands = record.operands;
          }
          metadata_.push_back(std::move(entry));
          return Status::success();
        },
        [&](unsigned id) { return skipAnyBlock(id); });
  }

  // METADATA_STRINGS: [count, offset to the characters] and a blob whose
  // first part lists the lengths (VBR6, as a bitstream of its own).
  Status readMetadataStrings(const Record &record) {
    if (record.operands.size() != 2 || !record.blob)
      return malformed("metadata strings record");
    const uint64_t count = record.operands[0];
    const uint64_t offset = record.operands[1];
    const std::string_view blob = *record.blob;
    if (offset > blob.size() || count > blob.size() * 8)
      return malformed("metadata strings record");
    BitstreamCursor lengths(blob.substr(0, offset));
    std::string_view characters = blob.substr(offset);
    for (uint64_t index = 0; index < count; ++index) {
      auto length = lengths.readVbr32(6);
      if (!length)
        return malformed("metadata string lengths");
      if (*length > characters.size())
        return malformed("metadata string past the end of its record");
      MetadataEntry entry;
      entry.kind = MetadataEntry::Kind::String;
      entry.text = std::string(characters.substr(0, *length));
      characters.remove_prefix(*length);
      metadata_.push_back(std::move(entry));
    }
    return Status::success();
  }

  Status readStrtab() {
    if (Status status = cursor_.enterSubBlock(); !status.ok())
      return status;
    return walkBlock(
        [&](const Record &record) -> Status {
          if (record.code == bitcode::kBlobRecordCode && record.blob) {
            strtab_ = *record.blob;
            sawStrtab_ = true;
          }
          return Status::success();
        },
        [&](unsigned id) { return skipAnyBlock(id); });
  }

  static std::string textOf(const std::vector<uint64_t> &operands) {
    std::string text;
    for (uint64_t value : operands)
      text.push_back(static_cast<char>(value));
    return text;
  }

  const MetadataEntry *metadataAt(uint64_t idPlusOne) const {
    if (idPlusOne == 0 || idPlusOne > metadata_.size())
      return nullptr;
    return &metadata_[idPlusOne - 1];
  }

  std::string globalName(const ValueEntry &global) const {
    if (global.nameOffset > strtab_.size() ||
        global.nameSize > strtab_.size() - global.nameOffset)
      return "<unnamed>";
    return std::string(strtab_.substr(global.nameOffset, global.nameSize));
  }

  // The bytes ConstantDataSequential::getAsString returns for a constant:
  // the elements in little-endian order, each as wide as its type.
  Result<std::optional<std::string>>
  constantBytes(const ValueEntry &constant) const {
    if (constant.code == kConstantString || constant.code == kConstantCString) {
      if (constant.operands.empty())
        return malformed("empty string constant");
      std::string bytes = textOf(constant.operands);
      if (constant.code == kConstantCString)
        bytes.push_back('\0');
      return std::optional<std::string>(std::move(bytes));
    }
    if (constant.code != kConstantData)
      return std::optional<std::string>(); // not constant data: skipped
    if (constant.operands.empty())
      return malformed("empty data constant");
    if (constant.type >= types_.size() ||
        types_[constant.type].kind != TypeInfo::Kind::Array ||
        types_[constant.type].element >= types_.size())
      return malformed("data constant of a type that is not an array");
    const TypeInfo &element = types_[types_[constant.type].element];
    const uint64_t bits = element.bits;
    if ((element.kind != TypeInfo::Kind::Integer &&
         element.kind != TypeInfo::Kind::Floating) ||
        (bits != 8 && bits != 16 && bits != 32 && bits != 64))
      return malformed("data constant of an unsupported element type");
    std::string bytes;
    bytes.reserve(constant.operands.size() * (bits / 8));
    for (uint64_t value : constant.operands)
      for (uint64_t byte = 0; byte < bits / 8; ++byte)
        bytes.push_back(static_cast<char>(value >> (8 * byte) & 0xff));
    return std::optional<std::string>(std::move(bytes));
  }

  // Follows the named metadata as LLVM's extractFromBitcode does: each
  // operand a node of at least two operands, the first a global variable,
  // the second the section's name; anything else is passed over.
  Result<std::vector<EmbeddedObject>> collect() const {
    std::vector<EmbeddedObject> objects;
    for (uint64_t nodeId : embeddedObjectNodes_) {
      const MetadataEntry *node = metadataAt(nodeId + 1);
      if (node == nullptr || node->kind != MetadataEntry::Kind::Node ||
          node->operands.size() < 2)
        continue;
      const MetadataEntry *section = metadataAt(node->operands[1]);
      if (section == nullptr || section->kind != MetadataEntry::Kind::String ||
          section->text != kLlvmOffloadingSection)
        continue;
      const MetadataEntry *value = metadataAt(node->operands[0]);
      if (value == nullptr || value->kind != MetadataEntry::Kind::Value ||
          value->value >= values_.size())
        continue;
      const ValueEntry &global = values_[value->value];
      if (global.kind != ValueEntry::Kind::GlobalVariable)
        continue;
      if (global.initializer == 0 || global.initializer > values_.size() ||
          values_[global.initializer - 1].kind != ValueEntry::Kind::Constant)
        return malformed("embedded object '" + globalName(global) +
                         "' has no constant initializer");
      auto bytes = constantBytes(values_[global.initializer - 1]);
      if (!bytes)
        return bytes.takeError();
      if (!*bytes)
        continue;
      objects.push_back(
          {globalName(global),
           std::make_shared<const std::string>(std::move(**bytes))});
    }
    return objects;
  }

  BitstreamCursor cursor_;
  uint64_t version_ = 0;
  std::vector<TypeInfo> types_;
  std::vector<ValueEntry> values_;
  std::vector<MetadataEntry> metadata_;
  std::vector<uint64_t> embeddedObjectNodes_;
  std::string_view strtab_;
  bool sawStrtab_ = false;
};

} // namespace

Result<std::vector<EmbeddedObject>>
findEmbeddedOffloadingObjects(std::string_view bitcode) {
  // LLVM's reader takes whole 32-bit words only, wrapper included.
  if (bitcode.size() % 4 != 0)
    return malformed("invalid bitcode signature (the size is not a multiple "
                     "of 4)");
  // A wrapper header says where the bitcode itself is.
  const std::optional<std::string_view> stream =
      bitcode::unwrapBitcode(bitcode);
  if (!stream)
    return malformed("invalid bitcode wrapper header");
  bitcode = *stream;
  if (bitcode.substr(0, 4) != "BC\xC0\xDE")
    return malformed("invalid bitcode signature");
  return ModuleReader(bitcode).read();
}

} // namespace offbundle
