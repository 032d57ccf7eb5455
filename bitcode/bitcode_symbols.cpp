// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The archive symbols of a bitcode file, and its stored irsymtab (see the
// header). The top level is walked as LLVM's getBitcodeFileContents walks it;
// the modules' records (module_symbols.h) give the list, and
// bitcodeArchiveSymbols falls back on the stored table only where they cannot.

#include "bitcode/bitcode_symbols.h"

#include "bitcode/bitstream_reader.h"
#include "bitcode/llvm_bitcodes.h"
#include "bitcode/module_symbols.h"
#include "support/byte_order.h"

#include <optional>

namespace offbundle {

namespace {

using bitcode::BitstreamCursor;
using bitcode::BitstreamEntry;

using bitcode::kIdentificationBlockId;
using bitcode::kModuleBlockId;
using bitcode::kStrtabBlockId;
using bitcode::kSymtabBlockId;

// irsymtab layout (IRSymtab.h, storage namespace): little-endian 32-bit
// words; strings are {offset, size} into the string table, ranges are
// {offset, count} into the symbol table.
constexpr size_t kHeaderVersion = 0;
constexpr size_t kHeaderProducer = 4;
constexpr size_t kHeaderModules = 12;
constexpr size_t kHeaderSymbols = 28;
constexpr size_t kHeaderTargetTriple = 44;
constexpr size_t kHeaderSourceFileName = 52;
constexpr size_t kHeaderSize = 76;
constexpr size_t kSymbolName = 0;
constexpr size_t kSymbolFlags = 20;
constexpr size_t kSymbolSize = 24;

// A table whose symbol names would add up to more than this many times the
// input is refused. Names are views into the string table, and in files LLVM
// writes no two symbols of a module share a name, while every symbol costs 24
// bytes of table; a hostile table, though, could name the whole string table
// from every entry and make the copies quadratic in the input.
constexpr uint64_t kMaxNameBytesPerInputByte = 8;

// What the top level of a bitcode file holds, as LLVM's
// getBitcodeFileContents finds it.
struct TopLevelContents {
  size_t moduleCount = 0;
  // The first symbol table's blob, and the blob of the first string table
  // after it (the one the symbol table's strings refer to).
  std::string_view symtab;
  std::string_view strtabForSymtab;
};

// Finds the bitcode stream: the whole input, or the part a wrapper header
// points at.
Result<std::string_view> bitcodeStream(std::string_view input) {
  // LLVM refuses any input whose length is not a multiple of four, wrapper
  // included, before looking further.
  if (input.size() % 4 != 0)
    return makeError("Invalid bitcode signature");
  const std::optional<std::string_view> stream = bitcode::unwrapBitcode(input);
  if (!stream)
    return makeError("Invalid bitcode wrapper header");
  return *stream;
}

Status checkMagic(BitstreamCursor &cursor) {
  if (cursor.sizeInBytes() < 4)
    return makeError("file too small to contain bitcode header");
  // 'B', 'C', then the nibbles 0x0, 0xC, 0xE, 0xD.
  struct Field {
    unsigned width;
    uint64_t value;
  };
  for (Field field : {Field{8, 'B'}, Field{8, 'C'}, Field{4, 0x0},
                      Field{4, 0xC}, Field{4, 0xE}, Field{4, 0xD}}) {
    Result<uint64_t> value = cursor.readFixed(field.width);
    if (!value)
      return value.takeError();
    if (*value != field.value)
      return makeError("file doesn't start with bitcode header");
  }
  return Status::success();
}

// Enters the block advance() just announced and returns the blob of its
// last record with the given code (empty when that record has no blob, or
// when there is none). Nested blocks are skipped, other records read and
// dropped.
Result<std::string_view> readBlockBlob(BitstreamCursor &cursor,
                                       unsigned recordCode) {
  if (Status status = cursor.enterSubBlock(); !status.ok())
    return status.takeError();
  std::string_view blob;
  // Every iteration consumes input (an END_BLOCK leaves), so the loop ends.
  while (true) {
    Result<BitstreamEntry> entry = cursor.advance();
    if (!entry)
      return entry.takeError();
    switch (entry->kind) {
    case BitstreamEntry::Kind::EndBlock:
      return blob;
    case BitstreamEntry::Kind::SubBlock:
      if (Status status = cursor.skipBlock(); !status.ok())
        return status.takeError();
      break;
    case BitstreamEntry::Kind::Record: {
      Result<bitcode::BlobRecord> record = cursor.readBlobRecord(entry->id);
      if (!record)
        return record.takeError();
      if (record->code == recordCode)
        blob = record->blob.value_or(std::string_view());
      break;
    }
    }
  }
}

// Walks the top level the way LLVM's getBitcodeFileContents does: modules
// (each optionally preceded by an identification block) are counted and
// skipped by their length word, symbol and string tables read, anything
// else skipped. A collector, when given, also reads each module's records.
Result<TopLevelContents>
readTopLevel(std::string_view input,
             ModuleSymbolCollector *collector = nullptr) {
  Result<std::string_view> stream = bitcodeStream(input);
  if (!stream)
    return stream.takeError();
  BitstreamCursor cursor(*stream);
  if (Status status = checkMagic(cursor); !status.ok())
    return status.takeError();

  TopLevelContents contents;
  // Every iteration consumes input, so the loop ends.
  while (true) {
    // Tools such as Apple's ar may leave padding after the bitcode; LLVM
    // stops looking for blocks once no more than eight bytes are left.
    if (cursor.bytePosition() + 8 >= cursor.sizeInBytes())
      return contents;

    Result<BitstreamEntry> entry = cursor.advance();
    if (!entry)
      return entry.takeError();
    if (entry->kind == BitstreamEntry::Kind::EndBlock)
      return makeError("Malformed block");
    if (entry->kind == BitstreamEntry::Kind::Record) {
      Result<unsigned> skipped = cursor.skipRecord(entry->id);
      if (!skipped)
        return skipped.takeError();
      continue;
    }

    if (entry->id == kIdentificationBlockId) {
      // An identification block must be followed by its module.
      if (Status status = cursor.skipBlock(); !status.ok())
        return status.takeError();
      entry = cursor.advance();
      if (!entry)
        return entry.takeError();
      if (entry->kind != BitstreamEntry::Kind::SubBlock ||
          entry->id != kModuleBlockId)
        return makeError("Malformed block");
    }

    switch (entry->id) {
    case kModuleBlockId:
      if (collector)
        collector->readModule(cursor);
      if (Status status = cursor.skipBlock(); !status.ok())
        return status.takeError();
      ++contents.moduleCount;
      break;
    case kStrtabBlockId: {
      Result<std::string_view> strtab =
          readBlockBlob(cursor, bitcode::kBlobRecordCode);
      if (!strtab)
        return strtab.takeError();
      if (collector)
        collector->addStringTable(*strtab);
      // A file made by concatenation can hold several tables; a symbol
      // table's strings are in the first string table after it.
      if (!contents.symtab.empty() && contents.strtabForSymtab.empty())
        contents.strtabForSymtab = *strtab;
      break;
    }
    case kSymtabBlockId: {
      Result<std::string_view> symtab =
          readBlockBlob(cursor, bitcode::kBlobRecordCode);
      if (!symtab)
        return symtab.takeError();
      // Later symbol tables (from concatenated files) are ignored; the
      // module count then disagrees with the first one's.
      if (contents.symtab.empty())
        contents.symtab = *symtab;
      break;
    }
    default:
      if (Status status = cursor.skipBlock(); !status.ok())
        return status.takeError();
      break;
    }
  }
}

Error rebuildNeeded(const std::string &reason) {
  return makeError("cannot read the symbols of bitcode " + reason +
                   ": LLVM would rebuild its symbol table from the IR");
}

// The string an irsymtab {offset, size} pair at `field` names, if it lies
// inside the string table.
std::optional<std::string_view>
tableString(std::string_view symtab, size_t field, std::string_view strtab) {
  uint64_t offset = loadLittle32(symtab, field);
  uint64_t size = loadLittle32(symtab, field + 4);
  if (offset > strtab.size() || size > strtab.size() - offset)
    return std::nullopt;
  return strtab.substr(size_t(offset), size_t(size));
}

} // namespace

namespace {

// The table described by the file's top-level contents.
Result<IrSymbolTable> irSymbolTableOf(const TopLevelContents &contents) {
  // LLVM's archive writer lists the symbols of the modules it finds; with
  // none (as in a file holding just the magic) there are none to list, and
  // no symbol table is consulted.
  if (contents.moduleCount == 0)
    return IrSymbolTable{};

  const std::string_view symtab = contents.symtab;
  const std::string_view strtab = contents.strtabForSymtab;
  if (strtab.empty() || symtab.size() < kHeaderSize)
    return rebuildNeeded("without a symbol table");
  const uint32_t version = loadLittle32(symtab, kHeaderVersion);
  if (version != kIrSymtabVersion)
    return rebuildNeeded("whose symbol table has format version " +
                         std::to_string(version) + " (not " +
                         std::to_string(kIrSymtabVersion) + ")");

  IrSymbolTable table;
  std::optional<std::string_view> producer =
      tableString(symtab, kHeaderProducer, strtab);
  std::optional<std::string_view> triple =
      tableString(symtab, kHeaderTargetTriple, strtab);
  std::optional<std::string_view> sourceFile =
      tableString(symtab, kHeaderSourceFileName, strtab);
  if (!producer || !triple || !sourceFile)
    return makeError("invalid bitcode symbol table: header string out of "
                     "range of the string table");
  table.producer = *producer;
  table.targetTriple = *triple;
  table.sourceFileName = *sourceFile;

  // A module count that disagrees with the file's modules means the table
  // does not describe this file (typically binary concatenation).
  table.moduleCount = loadLittle32(symtab, kHeaderModules + 4);
  if (table.moduleCount != contents.moduleCount)
    return rebuildNeeded(
        "whose symbol table lists " + std::to_string(table.moduleCount) +
        " modules for a file holding " + std::to_string(contents.moduleCount));

  const uint64_t symbolsOffset = loadLittle32(symtab, kHeaderSymbols);
  const uint64_t symbolCount = loadLittle32(symtab, kHeaderSymbols + 4);
  if (symbolsOffset > symtab.size() ||
      symbolCount > (symtab.size() - symbolsOffset) / kSymbolSize)
    return makeError("invalid bitcode symbol table: symbols out of range");
  // Bounded by the symbol table's size, which is part of the input.
  table.symbols.reserve(size_t(symbolCount));
  for (uint64_t index = 0; index != symbolCount; ++index) {
    const size_t entry = size_t(symbolsOffset + index * kSymbolSize);
    std::optional<std::string_view> name =
        tableString(symtab, entry + kSymbolName, strtab);
    if (!name)
      return makeError("invalid bitcode symbol table: name of symbol " +
                       std::to_string(index) +
                       " out of range of the string table");
    table.symbols.push_back(
        {*name, loadLittle32(symtab, entry + kSymbolFlags)});
  }
  return table;
}

} // namespace

Result<IrSymbolTable> readIrSymbolTable(std::string_view bitcode) {
  Result<TopLevelContents> contents = readTopLevel(bitcode);
  if (!contents)
    return contents.takeError();
  return irSymbolTableOf(*contents);
}

Result<BitcodeArchiveSymbols> bitcodeArchiveSymbols(std::string_view bitcode) {
  BitcodeArchiveSymbols symbols;
  ModuleSymbolCollector collector;
  Result<TopLevelContents> contents = readTopLevel(bitcode, &collector);
  if (!contents) {
    symbols.unreadableReason = contents.error().message;
    return symbols;
  }
  if (std::optional<std::string> problem = collector.dataLayoutError()) {
    symbols.unreadableReason = std::move(problem);
    return symbols;
  }
  const uint64_t maxNameBytes =
      kMaxNameBytesPerInputByte * uint64_t(bitcode.size());
  // The modules' records give the list LLVM's archive writer makes.
  Result<std::vector<std::string>> rebuilt = collector.names(maxNameBytes);
  if (rebuilt) {
    symbols.names = std::move(*rebuilt);
    return symbols;
  }
  // Where they cannot (module-level inline assembly, say), the stored table
  // holds what the compiler's LLVM listed, assembly symbols included.
  Result<IrSymbolTable> table = irSymbolTableOf(*contents);
  if (!table)
    return makeError(rebuilt.error().message + " (and no stored symbol " +
                     "table to use instead: " + table.error().message + ")");
  uint64_t nameBytes = 0;
  for (const IrSymbol &symbol : table->symbols) {
    if (!symbol.isArchiveSymbol())
      continue;
    nameBytes += symbol.name.size() + 1;
    if (nameBytes > maxNameBytes)
      return makeError("invalid bitcode symbol table: symbol names larger "
                       "than the file can hold");
    symbols.names.emplace_back(symbol.name);
  }
  return symbols;
}

} // namespace offbundle
