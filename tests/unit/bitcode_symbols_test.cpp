// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Archive symbols of bitcode files (bitcode/bitcode_symbols.h).
//
// The files under tests/data/bitcode were made by LLVM 22's clang, and each
// NAME.bc.symbols holds what llvm-ar wrote into an archive symbol table for
// NAME.bc (see make_data.sh there); the tests need no LLVM tools. Small
// bitstreams written here cover the cases clang does not produce.
#include "bitcode/bitcode_symbols.h"

#include "bitcode/bitstream_reader.h"
#include "bitcode/data_layout.h"

#include "test_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace offbundle {
namespace {

namespace fs = std::filesystem;
namespace flags = ir_symbol_flags;

fs::path dataDirectory() { return test_files::dataDirectory("bitcode"); }

using test_files::lines;
using test_files::readFile;

// The bitcode files in a directory that have an expected symbol list,
// except concatenated.bc, which has no symbol table to read.
std::vector<std::string> bitcodeFiles(const fs::path &directory) {
  std::vector<std::string> names;
  if (!fs::is_directory(directory))
    return names;
  for (const auto &entry : fs::directory_iterator(directory)) {
    std::string file = entry.path().filename().string();
    if (entry.path().extension() == ".bc" && file != "concatenated.bc" &&
        fs::exists(entry.path().string() + ".symbols"))
      names.push_back(file);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> committedFiles() {
  return bitcodeFiles(dataDirectory());
}

// The names, "unreadable: <LLVM's warning>" for bitcode LLVM's reader
// refuses, or "error: <message>".
std::vector<std::string> namesOrError(std::string_view bitcode) {
  Result<BitcodeArchiveSymbols> symbols = bitcodeArchiveSymbols(bitcode);
  if (!symbols)
    return {"error: " + symbols.error().message};
  if (symbols->unreadableReason)
    return {"unreadable: " + *symbols->unreadableReason};
  return symbols->names;
}

void expectSymbolsOfFile(const fs::path &path) {
  EXPECT_EQ(namesOrError(readFile(path)),
            lines(readFile(path.string() + ".symbols")))
      << path;
}

class CommittedBitcode : public testing::TestWithParam<std::string> {};

TEST_P(CommittedBitcode, SymbolsMatchLlvmAr) {
  expectSymbolsOfFile(dataDirectory() / GetParam());
}

// A corpus made by `make_data.sh --wide DIR`, when OFFBUNDLE_BITCODE_CORPUS
// names DIR.
TEST(WideCorpus, SymbolsMatchLlvmAr) {
  const char *directory = std::getenv("OFFBUNDLE_BITCODE_CORPUS");
  if (!directory)
    GTEST_SKIP() << "OFFBUNDLE_BITCODE_CORPUS is not set";
  const std::vector<std::string> files = bitcodeFiles(directory);
  EXPECT_FALSE(files.empty()) << "no bitcode files in " << directory;
  for (const std::string &file : files)
    expectSymbolsOfFile(fs::path(directory) / file);
}

INSTANTIATE_TEST_SUITE_P(Bitcode, CommittedBitcode,
                         testing::ValuesIn(committedFiles()),
                         [](const testing::TestParamInfo<std::string> &info) {
                           std::string name = info.param;
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

const IrSymbol *findSymbol(const IrSymbolTable &table, std::string_view name) {
  for (const IrSymbol &symbol : table.symbols)
    if (symbol.name == name)
      return &symbol;
  return nullptr;
}

TEST(IrSymbolTable, HeaderOfClang22Output) {
  const std::string bitcode = readFile(dataDirectory() / "globals.x86_64.bc");
  Result<IrSymbolTable> table = readIrSymbolTable(bitcode);
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->producer, "22.1.8");
  EXPECT_EQ(table->targetTriple, "x86_64-pc-linux-gnu");
  EXPECT_EQ(table->sourceFileName, "globals.c");
  EXPECT_EQ(table->moduleCount, 1u);
}

TEST(IrSymbolTable, FlagsDecideWhatIsIndexed) {
  const std::string bitcode = readFile(dataDirectory() / "globals.x86_64.bc");
  Result<IrSymbolTable> table = readIrSymbolTable(bitcode);
  ASSERT_TRUE(table.ok()) << table.error().message;
  struct Expectation {
    std::string_view name;
    uint32_t flagsSet;
    bool indexed;
  };
  const Expectation expectations[] = {
      {"global_var", flags::kGlobal, true},
      {"weak_var", flags::kGlobal | flags::kWeak, true},
      {"hidden_var", flags::kGlobal | 1 /* hidden */, true},
      {"common_var", flags::kGlobal | flags::kCommon | flags::kHasUncommon,
       true},
      {"tls_var", flags::kGlobal | flags::kThreadLocal, true},
      {"defined_func", flags::kGlobal | flags::kExecutable, true},
      {"alias_func", flags::kGlobal | flags::kIndirect, true},
      {"static_var", 0, false},
      {"used_static", flags::kUsed, false},
      {"undefined_var", flags::kGlobal | flags::kUndefined, false},
      {"weak_undefined_var", flags::kGlobal | flags::kUndefined | flags::kWeak,
       false},
      {"llvm.compiler.used", flags::kGlobal | flags::kFormatSpecific, false},
  };
  for (const Expectation &expected : expectations) {
    const IrSymbol *symbol = findSymbol(*table, expected.name);
    ASSERT_NE(symbol, nullptr) << expected.name;
    EXPECT_EQ(symbol->flags & expected.flagsSet, expected.flagsSet)
        << expected.name << " has flags 0x" << std::hex << symbol->flags;
    EXPECT_EQ(symbol->isArchiveSymbol(), expected.indexed) << expected.name;
  }
}

TEST(IrSymbolTable, SplitLtoUnitHasTwoModules) {
  const std::string bitcode = readFile(dataDirectory() / "cxx.split-lto.bc");
  Result<IrSymbolTable> table = readIrSymbolTable(bitcode);
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->moduleCount, 2u);
}

TEST(IrSymbolTable, ForeignProducerIsStillRead) {
  // LLVM 22 would rebuild these tables from the IR; the committed expected
  // lists show that it arrives at the stored ones.
  const std::string otherBitcode =
      readFile(dataDirectory() / "globals.other-producer.bc");
  Result<IrSymbolTable> other = readIrSymbolTable(otherBitcode);
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_EQ(other->producer, "OtherLLVM 1.0");
  const fs::path clang14 = dataDirectory() / "globals.clang14.bc";
  if (fs::exists(clang14)) {
    const std::string oldBitcode = readFile(clang14);
    Result<IrSymbolTable> old = readIrSymbolTable(oldBitcode);
    ASSERT_TRUE(old.ok()) << old.error().message;
    EXPECT_EQ(old->producer, "14.0.6");
  }
}

TEST(IrSymbolTable, ConcatenationLeavesNothingToRead) {
  // llvm-cat -b writes no symbol table. LLVM lists the modules' symbols
  // from the IR (the .symbols file records its answer); one module holds
  // inline assembly, whose symbols only an assembler could list.
  const fs::path path = dataDirectory() / "concatenated.bc";
  Result<BitcodeArchiveSymbols> symbols = bitcodeArchiveSymbols(readFile(path));
  ASSERT_FALSE(symbols.ok());
  EXPECT_NE(symbols.error().message.find("module-level inline assembly"),
            std::string::npos)
      << symbols.error().message;
  EXPECT_NE(symbols.error().message.find("without a symbol table"),
            std::string::npos)
      << symbols.error().message;
  EXPECT_FALSE(lines(readFile(path.string() + ".symbols")).empty());
}

// A bitcode wrapper header around a bitcode stream, as Darwin tools write it.
std::string wrapped(std::string_view stream, uint32_t declaredSize,
                    size_t trailingBytes) {
  auto word = [](uint32_t value) {
    std::string bytes(4, '\0');
    for (int index = 0; index != 4; ++index)
      bytes[index] = char((value >> (8 * index)) & 0xff);
    return bytes;
  };
  const uint32_t headerSize = 20;
  return word(0x0B17C0DE) + word(0) + word(headerSize) + word(declaredSize) +
         word(7) + std::string(stream) + std::string(trailingBytes, '\0');
}

TEST(BitcodeWrapper, IsSkipped) {
  const fs::path path = dataDirectory() / "globals.x86_64.bc";
  const std::string bitcode = readFile(path);
  const std::vector<std::string> expected =
      lines(readFile(path.string() + ".symbols"));
  EXPECT_EQ(namesOrError(wrapped(bitcode, uint32_t(bitcode.size()),
                                 /*trailingBytes=*/12)),
            expected);
}

TEST(BitcodeWrapper, SizeBeyondTheFileIsRefused) {
  const std::string bitcode = readFile(dataDirectory() / "globals.x86_64.bc");
  EXPECT_EQ(
      namesOrError(wrapped(bitcode, uint32_t(bitcode.size() + 4),
                           /*trailingBytes=*/0)),
      std::vector<std::string>{"unreadable: Invalid bitcode wrapper header"});
}

TEST(BitcodeInput, SizeMustBeAMultipleOfFour) {
  const std::string bitcode = readFile(dataDirectory() / "globals.x86_64.bc");
  EXPECT_EQ(namesOrError(bitcode + "\n"),
            std::vector<std::string>{"unreadable: Invalid bitcode signature"});
}

TEST(BitcodeInput, WrongMagicIsRefused) {
  EXPECT_EQ(namesOrError(std::string("BC\xC0\xDF", 4)),
            std::vector<std::string>{
                "unreadable: file doesn't start with bitcode header"});
}

TEST(BitcodeInput, TruncatedModuleReportsLlvmsMessage) {
  // clang-offload-bundler warns with this text for such a member.
  const std::string bitcode =
      readFile(dataDirectory() / "device-hip.gfx906.bc");
  Result<BitcodeArchiveSymbols> symbols =
      bitcodeArchiveSymbols(bitcode.substr(0, 2000));
  ASSERT_TRUE(symbols.ok()) << symbols.error().message;
  ASSERT_TRUE(symbols->unreadableReason.has_value());
  EXPECT_EQ(symbols->unreadableReason->rfind("can't skip to bit ", 0), 0u)
      << *symbols->unreadableReason;
}

// ---------------------------------------------------------------------------
// Hand-written bitstreams.

// Writes a bitstream the way LLVM's BitstreamWriter does: fields packed
// least significant bit first, blocks framed by a code width and a length
// word patched in when the block ends.
class BitWriter {
public:
  void emit(uint64_t value, unsigned width) {
    for (unsigned bit = 0; bit != width; ++bit) {
      if (bitCount_ % 8 == 0)
        bytes_.push_back('\0');
      if ((value >> bit) & 1)
        bytes_.back() = char(uint8_t(bytes_.back()) | (1u << (bitCount_ % 8)));
      ++bitCount_;
    }
  }
  void emitVbr(uint64_t value, unsigned width) {
    const uint64_t payloadLimit = uint64_t(1) << (width - 1);
    while (value >= payloadLimit) {
      emit((value & (payloadLimit - 1)) | payloadLimit, width);
      value >>= width - 1;
    }
    emit(value, width);
  }
  void alignTo32Bits() {
    while (bitCount_ % 32 != 0)
      emit(0, 1);
  }
  void magic() {
    emit('B', 8);
    emit('C', 8);
    emit(0x0, 4);
    emit(0xC, 4);
    emit(0xE, 4);
    emit(0xD, 4);
  }
  void enterBlock(unsigned blockId, unsigned codeWidth) {
    emit(bitcode::kEnterSubblockAbbrevId, codeWidth_);
    emitVbr(blockId, 8);
    emitVbr(codeWidth, 4);
    alignTo32Bits();
    open_.push_back({bytes_.size(), codeWidth_});
    emit(0, 32); // length in words, patched by endBlock
    codeWidth_ = codeWidth;
  }
  void endBlock() {
    emit(bitcode::kEndBlockAbbrevId, codeWidth_);
    alignTo32Bits();
    const OpenBlock block = open_.back();
    open_.pop_back();
    const uint32_t words = uint32_t((bytes_.size() - block.lengthAt - 4) / 4);
    for (int index = 0; index != 4; ++index)
      bytes_[block.lengthAt + index] = char((words >> (8 * index)) & 0xff);
    codeWidth_ = block.codeWidth;
  }
  // Operand encodings as DEFINE_ABBREV writes them: 1 literal, or 0 and an
  // encoding (1 fixed, 2 VBR, 3 array, 4 char6, 5 blob) with its width.
  struct Operand {
    bool literal;
    uint64_t value;
    unsigned width = 0;
  };
  static Operand literal(uint64_t value) { return {true, value}; }
  static Operand fixed(unsigned width) { return {false, 1, width}; }
  static Operand vbr(unsigned width) { return {false, 2, width}; }
  static Operand array() { return {false, 3}; }
  static Operand char6() { return {false, 4}; }
  static Operand blob() { return {false, 5}; }
  void defineAbbrev(const std::vector<Operand> &operands) {
    emit(bitcode::kDefineAbbrevAbbrevId, codeWidth_);
    emitVbr(operands.size(), 5);
    for (const Operand &operand : operands) {
      emit(operand.literal ? 1 : 0, 1);
      if (operand.literal) {
        emitVbr(operand.value, 8);
        continue;
      }
      emit(operand.value, 3);
      if (operand.value == 1 || operand.value == 2)
        emitVbr(operand.width, 5);
    }
  }
  void abbrevId(unsigned id) { emit(id, codeWidth_); }
  void blobBytes(std::string_view blob) {
    emitVbr(blob.size(), 6);
    alignTo32Bits();
    for (char byte : blob)
      emit(uint8_t(byte), 8);
    alignTo32Bits();
  }
  void unabbreviatedRecord(unsigned code, const std::vector<uint64_t> &values) {
    emit(bitcode::kUnabbreviatedRecordAbbrevId, codeWidth_);
    emitVbr(code, 6);
    emitVbr(values.size(), 6);
    for (uint64_t value : values)
      emitVbr(value, 6);
  }
  const std::string &bytes() const { return bytes_; }

private:
  struct OpenBlock {
    size_t lengthAt;
    unsigned codeWidth;
  };
  std::string bytes_;
  uint64_t bitCount_ = 0;
  unsigned codeWidth_ = 2;
  std::vector<OpenBlock> open_;
};

constexpr unsigned kModuleBlock = 8;
constexpr unsigned kIdentificationBlock = 13;
constexpr unsigned kStrtabBlock = 23;
constexpr unsigned kSymtabBlock = 25;

struct TableSpec {
  uint32_t version = kIrSymtabVersion;
  std::string producer = "22.1.8";
  uint32_t moduleCount = 1;
  std::vector<std::pair<std::string, uint32_t>> symbols;
  // Added to every symbol name's offset, to point names out of range.
  uint32_t nameOffsetBias = 0;
};

// An irsymtab and its string table, laid out as LLVM's irsymtab::build does.
std::pair<std::string, std::string> irSymtab(const TableSpec &spec) {
  // Equal strings are stored once, as LLVM's string table builder does.
  std::string strtab;
  std::map<std::string, uint32_t> stored;
  auto addString = [&](const std::string &text) {
    auto [entry, added] = stored.emplace(text, uint32_t(strtab.size()));
    if (added)
      strtab += text;
    return std::pair<uint32_t, uint32_t>{entry->second, uint32_t(text.size())};
  };
  std::string symtab;
  auto word = [&](uint32_t value) {
    for (int index = 0; index != 4; ++index)
      symtab.push_back(char((value >> (8 * index)) & 0xff));
  };
  const uint32_t headerSize = 76, moduleSize = 12, symbolSize = 24;
  const uint32_t modulesAt = headerSize;
  const uint32_t symbolsAt = modulesAt + spec.moduleCount * moduleSize;
  const uint32_t symbolCount = uint32_t(spec.symbols.size());
  const uint32_t end = symbolsAt + symbolCount * symbolSize;
  auto producer = addString(spec.producer);
  auto triple = addString("amdgcn-amd-amdhsa");
  auto source = addString("test.c");
  word(spec.version);
  word(producer.first), word(producer.second);
  word(modulesAt), word(spec.moduleCount);
  word(symbolsAt), word(0);                // comdats
  word(symbolsAt), word(symbolCount);      // symbols
  word(end), word(0);                      // uncommons
  word(triple.first), word(triple.second); // target triple
  word(source.first), word(source.second); // source file name
  word(0), word(0);                        // COFF linker options
  word(end), word(0);                      // dependent libraries
  for (uint32_t module = 0; module != spec.moduleCount; ++module) {
    // All symbols in the first module.
    word(module == 0 ? 0 : symbolCount), word(symbolCount), word(0);
  }
  for (const auto &[name, symbolFlags] : spec.symbols) {
    auto nameRef = addString(name);
    word(nameRef.first + spec.nameOffsetBias), word(nameRef.second);
    word(nameRef.first), word(nameRef.second); // IR name
    word(0xffffffff);                          // not in a comdat
    word(symbolFlags);
  }
  return {symtab, strtab};
}

// A blob block: an abbreviation [code, blob] and one record using it.
void blobBlock(BitWriter &writer, unsigned blockId, std::string_view blob) {
  writer.enterBlock(blockId, 3);
  writer.defineAbbrev({BitWriter::literal(1), BitWriter::blob()});
  writer.abbrevId(bitcode::kFirstApplicationAbbrevId);
  writer.blobBytes(blob);
  writer.endBlock();
}

// Modules whose symbols only the stored table can give: they hold
// module-level inline assembly (MODULE_CODE_ASM), which the list rebuilt
// from the module's records cannot cover.
void moduleBlocks(BitWriter &writer, unsigned count) {
  for (unsigned module = 0; module != count; ++module) {
    writer.enterBlock(kIdentificationBlock, 5);
    writer.unabbreviatedRecord(1, {'L', 'L', 'V', 'M'});
    writer.endBlock();
    writer.enterBlock(kModuleBlock, 3);
    writer.unabbreviatedRecord(1, {2});             // version
    writer.unabbreviatedRecord(4, {'n', 'o', 'p'}); // inline assembly
    writer.endBlock();
  }
}

// Bitcode in LLVM's layout: modules, then the symbol table, then the string
// table.
std::string bitcodeWith(const TableSpec &spec, unsigned modulesInFile = 1) {
  auto [symtab, strtab] = irSymtab(spec);
  BitWriter writer;
  writer.magic();
  moduleBlocks(writer, modulesInFile);
  blobBlock(writer, kSymtabBlock, symtab);
  blobBlock(writer, kStrtabBlock, strtab);
  return writer.bytes();
}

TEST(SyntheticBitcode, IndexesDefinedGlobalsOnly) {
  TableSpec spec;
  spec.symbols = {
      {"plain", flags::kGlobal},
      {"local", 0},
      {"undefined", flags::kGlobal | flags::kUndefined},
      {"weak", flags::kGlobal | flags::kWeak},
      {"private.str", flags::kFormatSpecific},
      {"llvm.used", flags::kGlobal | flags::kFormatSpecific},
      {"hidden_function", flags::kGlobal | flags::kExecutable | 1},
      {"common", flags::kGlobal | flags::kCommon},
      {"plain", flags::kGlobal}, // repeated names stay repeated
  };
  EXPECT_EQ(namesOrError(bitcodeWith(spec)),
            (std::vector<std::string>{"plain", "weak", "hidden_function",
                                      "common", "plain"}));
}

TEST(SyntheticBitcode, MagicAloneHasNoModulesAndNoSymbols) {
  BitWriter writer;
  writer.magic();
  EXPECT_TRUE(namesOrError(writer.bytes()).empty());
}

TEST(SyntheticBitcode, OtherFormatVersionNeedsRebuild) {
  TableSpec spec;
  spec.version = 4;
  spec.symbols = {{"plain", flags::kGlobal}};
  const std::vector<std::string> result = namesOrError(bitcodeWith(spec));
  ASSERT_EQ(result.size(), 1u);
  EXPECT_NE(result[0].find("format version 4"), std::string::npos) << result[0];
}

TEST(SyntheticBitcode, ModuleCountMustMatchTheFile) {
  TableSpec spec;
  spec.symbols = {{"plain", flags::kGlobal}};
  const std::vector<std::string> result =
      namesOrError(bitcodeWith(spec, /*modulesInFile=*/2));
  ASSERT_EQ(result.size(), 1u);
  EXPECT_NE(result[0].find("lists 1 modules for a file holding 2"),
            std::string::npos)
      << result[0];
  spec.moduleCount = 2;
  EXPECT_EQ(namesOrError(bitcodeWith(spec, 2)),
            std::vector<std::string>{"plain"});
}

TEST(SyntheticBitcode, NameOutsideTheStringTableIsRefused) {
  TableSpec spec;
  spec.symbols = {{"plain", flags::kGlobal}};
  spec.nameOffsetBias = 1;
  const std::vector<std::string> result = namesOrError(bitcodeWith(spec));
  ASSERT_EQ(result.size(), 1u);
  EXPECT_NE(result[0].find("out of range"), std::string::npos) << result[0];
}

TEST(SyntheticBitcode, StringTableMustFollowTheSymbolTable) {
  TableSpec spec;
  spec.symbols = {{"plain", flags::kGlobal}};
  auto [symtab, strtab] = irSymtab(spec);
  BitWriter writer;
  writer.magic();
  moduleBlocks(writer, 1);
  blobBlock(writer, kStrtabBlock, strtab);
  blobBlock(writer, kSymtabBlock, symtab);
  const std::vector<std::string> result = namesOrError(writer.bytes());
  ASSERT_EQ(result.size(), 1u);
  EXPECT_NE(result[0].find("without a symbol table"), std::string::npos)
      << result[0];
}

TEST(SyntheticBitcode, FirstSymbolTableAndLastBlobRecordWin) {
  TableSpec first, second;
  first.symbols = {{"from_first", flags::kGlobal}};
  second.symbols = {{"from_second", flags::kGlobal}};
  auto [symtab, strtab] = irSymtab(first);
  auto [otherSymtab, otherStrtab] = irSymtab(second);

  BitWriter writer;
  writer.magic();
  // Top-level abbreviations and records are allowed and skipped.
  writer.defineAbbrev({BitWriter::literal(7), BitWriter::fixed(3)});
  writer.unabbreviatedRecord(9, {1, 2, 3});
  moduleBlocks(writer, 1);
  // Within a table's block: other records, nested blocks, abbreviations with
  // arrays and scalars, and two blob records of which the last counts.
  writer.enterBlock(kSymtabBlock, 4);
  writer.defineAbbrev({BitWriter::literal(1), BitWriter::blob()});
  writer.defineAbbrev({BitWriter::vbr(6), BitWriter::fixed(5),
                       BitWriter::array(), BitWriter::char6()});
  writer.abbrevId(bitcode::kFirstApplicationAbbrevId);
  writer.blobBytes(otherSymtab);
  writer.abbrevId(bitcode::kFirstApplicationAbbrevId + 1);
  writer.emitVbr(2, 6); // record code
  writer.emit(17, 5);
  writer.emitVbr(3, 6); // three char6 elements
  writer.emit(0, 6), writer.emit(1, 6), writer.emit(63, 6);
  writer.enterBlock(99, 2);
  writer.unabbreviatedRecord(1, {42});
  writer.endBlock();
  writer.unabbreviatedRecord(5, {1});
  writer.abbrevId(bitcode::kFirstApplicationAbbrevId);
  writer.blobBytes(symtab);
  writer.endBlock();
  blobBlock(writer, kStrtabBlock, strtab);
  // A second table pair, as binary concatenation leaves: ignored.
  blobBlock(writer, kSymtabBlock, otherSymtab);
  blobBlock(writer, kStrtabBlock, otherStrtab);
  EXPECT_EQ(namesOrError(writer.bytes()),
            std::vector<std::string>{"from_first"});
}

TEST(SyntheticBitcode, UnabbreviatedBlobRecordHasNoBlob) {
  TableSpec spec;
  spec.symbols = {{"plain", flags::kGlobal}};
  auto [symtab, strtab] = irSymtab(spec);
  BitWriter writer;
  writer.magic();
  moduleBlocks(writer, 1);
  writer.enterBlock(kSymtabBlock, 3);
  writer.defineAbbrev({BitWriter::literal(1), BitWriter::blob()});
  writer.abbrevId(bitcode::kFirstApplicationAbbrevId);
  writer.blobBytes(symtab);
  writer.unabbreviatedRecord(1, {1, 2}); // same code, no blob: empties it
  writer.endBlock();
  blobBlock(writer, kStrtabBlock, strtab);
  const std::vector<std::string> result = namesOrError(writer.bytes());
  ASSERT_EQ(result.size(), 1u);
  EXPECT_NE(result[0].find("without a symbol table"), std::string::npos)
      << result[0];
}

TEST(SyntheticBitcode, IdentificationMustPrecedeAModule) {
  BitWriter writer;
  writer.magic();
  writer.enterBlock(kIdentificationBlock, 5);
  writer.endBlock();
  blobBlock(writer, kStrtabBlock, "strings");
  EXPECT_EQ(namesOrError(writer.bytes()),
            std::vector<std::string>{"unreadable: Malformed block"});
}

TEST(SyntheticBitcode, EndBlockAtTopLevelIsMalformed) {
  BitWriter writer;
  writer.magic();
  moduleBlocks(writer, 1);
  writer.emit(bitcode::kEndBlockAbbrevId, 2);
  writer.alignTo32Bits();
  writer.emit(0, 64); // enough bytes that the reader looks at the entry
  EXPECT_EQ(namesOrError(writer.bytes()),
            std::vector<std::string>{"unreadable: Malformed block"});
}

TEST(SyntheticBitcode, ShortTrailingPaddingIsIgnored) {
  TableSpec spec;
  spec.symbols = {{"plain", flags::kGlobal}};
  std::string bitcode = bitcodeWith(spec);
  // LLVM stops looking for blocks when no more than eight bytes are left
  // (tools such as Apple's ar pad bitcode); past that they must be blocks.
  EXPECT_EQ(namesOrError(bitcode + std::string(8, '\xff')),
            std::vector<std::string>{"plain"});
  EXPECT_EQ(namesOrError(bitcode + std::string(12, '\0')),
            std::vector<std::string>{"unreadable: Malformed block"});
}

TEST(SyntheticBitcode, BadAbbreviationsAreRefused) {
  struct Case {
    std::vector<BitWriter::Operand> operands;
    std::string message;
  };
  const Case cases[] = {
      {{}, "Abbrev record with no operands"},
      {{BitWriter::literal(1), BitWriter::fixed(33)},
       "Fixed or VBR abbrev record with size > MaxChunkData"},
      {{BitWriter::literal(1), BitWriter::Operand{false, 6}},
       "Invalid encoding"},
  };
  for (const Case &test : cases) {
    BitWriter writer;
    writer.magic();
    moduleBlocks(writer, 1);
    writer.enterBlock(kSymtabBlock, 3);
    writer.defineAbbrev(test.operands);
    writer.endBlock();
    EXPECT_EQ(namesOrError(writer.bytes()),
              std::vector<std::string>{"unreadable: " + test.message});
  }
}

TEST(SyntheticBitcode, BadRecordsAreRefused) {
  struct Case {
    std::vector<BitWriter::Operand> operands;
    std::string message;
  };
  const Case cases[] = {
      {{BitWriter::blob()}, "Abbreviation starts with an Array or a Blob"},
      {{BitWriter::literal(1), BitWriter::array()},
       "Array op not second to last"},
      {{BitWriter::literal(1), BitWriter::array(), BitWriter::literal(3)},
       "Array element type has to be an encoding of a type"},
      {{BitWriter::literal(1), BitWriter::array(), BitWriter::blob()},
       "Array element type can't be an Array or a Blob"},
  };
  for (const Case &test : cases) {
    BitWriter writer;
    writer.magic();
    moduleBlocks(writer, 1);
    writer.enterBlock(kSymtabBlock, 3);
    writer.defineAbbrev(test.operands);
    writer.abbrevId(bitcode::kFirstApplicationAbbrevId);
    writer.emitVbr(1, 6); // an array length, if the abbreviation reads one
    writer.endBlock();
    EXPECT_EQ(namesOrError(writer.bytes()),
              std::vector<std::string>{"unreadable: " + test.message});
  }

  BitWriter undefinedAbbrev;
  undefinedAbbrev.magic();
  moduleBlocks(undefinedAbbrev, 1);
  undefinedAbbrev.enterBlock(kSymtabBlock, 3);
  undefinedAbbrev.abbrevId(bitcode::kFirstApplicationAbbrevId);
  undefinedAbbrev.endBlock();
  EXPECT_EQ(namesOrError(undefinedAbbrev.bytes()),
            std::vector<std::string>{"unreadable: Invalid abbrev number"});
}

TEST(SyntheticBitcode, BlobPastTheEndIsRefused) {
  BitWriter writer;
  writer.magic();
  moduleBlocks(writer, 1);
  writer.enterBlock(kSymtabBlock, 3);
  writer.defineAbbrev({BitWriter::literal(1), BitWriter::blob()});
  writer.abbrevId(bitcode::kFirstApplicationAbbrevId);
  writer.emitVbr(1000, 6);
  writer.alignTo32Bits();
  writer.emit(0, 32);
  writer.endBlock();
  EXPECT_EQ(namesOrError(writer.bytes()),
            std::vector<std::string>{"unreadable: Blob ends too soon"});
}

TEST(SyntheticBitcode, HugeAbbreviationsAreRefused) {
  // LLVM would hold any number of abbreviation operands; past about a
  // million (half a megabyte of definitions) the input is refused.
  BitWriter writer;
  writer.magic();
  writer.defineAbbrev(
      std::vector<BitWriter::Operand>((1 << 20) + 1, BitWriter::char6()));
  writer.alignTo32Bits();
  writer.emit(0, 64);
  EXPECT_EQ(
      namesOrError(writer.bytes()),
      std::vector<std::string>{"unreadable: too many abbreviation operands"});
}

TEST(SyntheticBitcode, NamesLargerThanTheFileAreRefused) {
  // Every entry naming the same long string would multiply the input.
  TableSpec spec;
  spec.symbols.assign(3000, {std::string(4000, 'x'), flags::kGlobal});
  const std::vector<std::string> result = namesOrError(bitcodeWith(spec));
  ASSERT_EQ(result.size(), 1u);
  EXPECT_NE(result[0].find("symbol names larger than the file can hold"),
            std::string::npos)
      << result[0];
}

// ---------------------------------------------------------------------------
// Lists rebuilt from module records, as LLVM's archive writer makes them.

// One global value record of a version 2 module: its name goes into the
// string table, the operands after the name are given as they are encoded.
struct GlobalRecord {
  unsigned code;
  std::string name;
  std::vector<uint64_t> operands;
};

constexpr unsigned kGlobalVarCode = 7, kFunctionCode = 8, kAliasCode = 14,
                   kIfuncCode = 18;

// [type, constness, initializer + 1, linkage, alignment, section + 1]
GlobalRecord variable(std::string name, uint64_t linkage = 0,
                      bool defined = true, uint64_t section = 0) {
  return {kGlobalVarCode,
          std::move(name),
          {0, 0, defined ? 1u : 0u, linkage, 0, section}};
}
// [type, calling convention, is declaration, linkage, attributes, alignment,
//  section, visibility]
GlobalRecord function(std::string name, uint64_t linkage = 0,
                      bool defined = true, uint64_t callingConv = 0) {
  return {kFunctionCode,
          std::move(name),
          {0, callingConv, defined ? 0u : 1u, linkage, 0, 0, 0, 0}};
}
// [value type, address space, aliasee or resolver, linkage]
GlobalRecord indirect(unsigned code, std::string name, uint64_t linkage = 0) {
  return {code, std::move(name), {0, 0, 0, linkage}};
}

struct ModuleSpec {
  uint64_t version = 2;
  std::string dataLayout;
  std::vector<std::string> sections;
  std::vector<GlobalRecord> globals;
  // Added to every name's offset in the string table.
  uint64_t nameOffsetBias = 0;
};

std::vector<uint64_t> characters(std::string_view text) {
  return std::vector<uint64_t>(text.begin(), text.end());
}

// A module block of these records followed by its string table, and no
// stored symbol table: what llvm-as writes.
std::string moduleBitcode(const ModuleSpec &spec) {
  BitWriter writer;
  writer.magic();
  writer.enterBlock(kModuleBlock, 3);
  writer.unabbreviatedRecord(1, {spec.version});
  if (!spec.dataLayout.empty())
    writer.unabbreviatedRecord(3, characters(spec.dataLayout));
  for (const std::string &section : spec.sections)
    writer.unabbreviatedRecord(5, characters(section));
  std::string strtab;
  for (const GlobalRecord &global : spec.globals) {
    std::vector<uint64_t> operands = {strtab.size() + spec.nameOffsetBias,
                                      global.name.size()};
    strtab += global.name;
    operands.insert(operands.end(), global.operands.begin(),
                    global.operands.end());
    writer.unabbreviatedRecord(global.code, operands);
  }
  // A nested block (a function body, say) is skipped over.
  writer.enterBlock(12, 4);
  writer.unabbreviatedRecord(1, {1});
  writer.endBlock();
  writer.endBlock();
  blobBlock(writer, kStrtabBlock, strtab);
  return writer.bytes();
}

std::vector<GlobalRecord> everyKindOfGlobal() {
  return {
      variable("defined_var"),
      function("declared_function", 0, /*defined=*/false),
      function("defined_function"),
      variable("declared_var", 0, /*defined=*/false),
      variable(""),                  // unnamed: "__unnamed_1"
      variable("internal_var", 3),   // local
      variable(""),                  // unnamed: "__unnamed_2"
      variable("private_var", 9),    // local and format-specific
      variable("available_var", 12), // a declaration for the linker
      variable("llvm.used", 2),      // LLVM's own
      variable("metadata_var", 0, true, 1),
      variable("sectioned_var", 0, true, 2),
      variable("\1raw_var"),
      variable("weak_var", 16),
      variable("common_var", 8),
      indirect(kIfuncCode, "an_ifunc"),
      indirect(kAliasCode, "an_alias"),
      indirect(kAliasCode, "internal_alias", 3),
      function("internal_function", 3),
      function("inline_function", 19),
  };
}

TEST(RebuiltSymbols, FollowModuleSymbolTableOrderAndFlags) {
  ModuleSpec spec;
  spec.sections = {"llvm.metadata", ".data.custom"};
  spec.globals = everyKindOfGlobal();
  // Functions, then variables, then aliases, then ifuncs.
  EXPECT_EQ(namesOrError(moduleBitcode(spec)),
            (std::vector<std::string>{
                "defined_function", "inline_function", "defined_var",
                "__unnamed_1", "__unnamed_2", "sectioned_var", "raw_var",
                "weak_var", "common_var", "an_alias", "an_ifunc"}));
}

TEST(RebuiltSymbols, MachOManglingAddsAnUnderscore) {
  ModuleSpec spec;
  spec.dataLayout = "e-m:o-i64:64-f80:128-n8:16:32:64-S128";
  spec.globals = {function("f"), variable(""), variable("\1as_written")};
  EXPECT_EQ(namesOrError(moduleBitcode(spec)),
            (std::vector<std::string>{"_f", "___unnamed_1", "as_written"}));
  spec.dataLayout = "e-m:e-i64:64";
  EXPECT_EQ(namesOrError(moduleBitcode(spec)),
            (std::vector<std::string>{"f", "__unnamed_1", "as_written"}));
}

TEST(RebuiltSymbols, NameOutsideTheStringTableIsUnnamed) {
  // LLVM's reader gives such a record no name.
  ModuleSpec spec;
  spec.globals = {variable("a_name")};
  spec.nameOffsetBias = 1;
  EXPECT_EQ(namesOrError(moduleBitcode(spec)),
            std::vector<std::string>{"__unnamed_1"});
}

TEST(RebuiltSymbols, WhatCannotBeRebuiltIsAnError) {
  struct Case {
    ModuleSpec spec;
    std::string message;
  };
  std::vector<Case> cases(5);
  cases[0].spec.version = 1;
  cases[0].message = "from before LLVM 5";
  cases[1].spec.dataLayout = "e-m:w-p270:32:32";
  cases[1].message = "Windows name decorations";
  cases[2].spec.globals = {function("vector_call", 0, true, 80)};
  cases[2].message = "vectorcall";
  cases[3].spec.globals = {{kFunctionCode, "short", {0, 0, 0}}};
  cases[3].message = "function record too short";
  cases[4].spec.globals = {variable("in_section", 0, true, 3)};
  cases[4].message = "section ID out of range";
  for (const Case &test : cases) {
    const std::vector<std::string> result =
        namesOrError(moduleBitcode(test.spec));
    ASSERT_EQ(result.size(), 1u) << test.message;
    EXPECT_EQ(result[0].rfind("error: ", 0), 0u) << result[0];
    EXPECT_NE(result[0].find(test.message), std::string::npos) << result[0];
  }
}

TEST(RebuiltSymbols, NamesLargerThanTheFileAreRefused) {
  // Every record naming the same long string would multiply the input.
  BitWriter writer;
  writer.magic();
  writer.enterBlock(kModuleBlock, 3);
  writer.unabbreviatedRecord(1, {2});
  for (int copy = 0; copy != 3000; ++copy)
    writer.unabbreviatedRecord(kGlobalVarCode, {0, 4000, 0, 0, 1, 0, 0, 0});
  writer.endBlock();
  blobBlock(writer, kStrtabBlock, std::string(4000, 'x'));
  const std::vector<std::string> result = namesOrError(writer.bytes());
  ASSERT_EQ(result.size(), 1u);
  EXPECT_NE(result[0].find("symbol names larger than the file can hold"),
            std::string::npos)
      << result[0];
}

// ---------------------------------------------------------------------------
// Corrupt input: every answer must be a list or an error.

std::vector<std::string> robustnessInputs() {
  return {readFile(dataDirectory() / "globals.x86_64.bc"),
          readFile(dataDirectory() / "device-hip.gfx906.bc"),
          readFile(dataDirectory() / "cxx.darwin-wrapper.bc")};
}

// Calls both entry points; the names returned can never add up to more
// than the input holds several times over.
void expectListOrError(std::string_view input) {
  Result<IrSymbolTable> table = readIrSymbolTable(input);
  if (table.ok()) {
    EXPECT_LE(table->symbols.size(), input.size());
  }
  Result<BitcodeArchiveSymbols> symbols = bitcodeArchiveSymbols(input);
  if (symbols.ok()) {
    size_t total = 0;
    for (const std::string &name : symbols->names)
      total += name.size();
    EXPECT_LE(total, 8 * input.size());
  } else {
    EXPECT_FALSE(symbols.error().message.empty());
  }
}

TEST(CorruptBitcode, EveryTruncation) {
  for (const std::string &bitcode : robustnessInputs()) {
    for (size_t length = 0; length <= bitcode.size(); ++length) {
      const std::string prefix = bitcode.substr(0, length);
      expectListOrError(prefix);
      // Padded back to a multiple of four, the stream is read up to the cut.
      std::string padded = prefix;
      padded.resize((length + 3) / 4 * 4, '\0');
      expectListOrError(padded);
    }
  }
}

TEST(CorruptBitcode, EveryWrappedTruncation) {
  // A wrapper may declare any stream length, so the stream can end anywhere
  // within its last word, where the reader's alignment is the most delicate.
  const std::string bitcode = readFile(dataDirectory() / "globals.x86_64.bc");
  for (size_t length = 0; length <= bitcode.size(); ++length) {
    const std::string input =
        wrapped(std::string_view(bitcode).substr(0, length), uint32_t(length),
                (4 - length % 4) % 4);
    expectListOrError(input);
  }
}

TEST(CorruptBitcode, RandomByteChanges) {
  std::mt19937 random(20240611);
  for (const std::string &bitcode : robustnessInputs()) {
    for (int round = 0; round != 3000; ++round) {
      std::string mutated = bitcode;
      const int changes = 1 + int(random() % 4);
      // Half the rounds hit the symbol and string tables at the end, which
      // the reader parses in depth; the rest hit anywhere.
      const size_t from = round % 2 ? 0 : mutated.size() * 3 / 4;
      for (int change = 0; change != changes; ++change)
        mutated[from + random() % (mutated.size() - from)] =
            char(random() % 256);
      expectListOrError(mutated);
    }
  }
}

// The parser's verdicts on data layouts (differential_data_layouts holds
// thousands against LLVM 22's llvm-as; these run under the sanitizers too).
TEST(DataLayout, RefusedLayoutsGiveLlvmsMessage) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"e-", "empty specification is not allowed"},
      {"x", "unknown specifier 'x'"},
      {"A0x1", "address space must be a 24-bit integer"},
      {"i8:16", "i8 must be 8-bit aligned"},
      {"S33", "stack natural alignment must be a power of two times the "
              "byte width"},
      {"ni:0", "address space 0 cannot be non-integral"},
      {"m:q", "unknown mangling mode"},
      {"p:32:32:64:32:40", "malformed specification, must be of the form "
                           "\"p[<n>]:<size>:<abi>[:<pref>[:<idx>]]\""},
      {"pe:64:64", "address space 0 cannot be unstable or have external "
                   "state"},
      {"pz1:64:64", "'z' is not a valid pointer specification flag"},
      {"p1(a):64:64-p2(a):64:64", "address space name `a` already used"},
      {"p1():64:64", "Expected `( address space name )`"},
      {"p:64:64:64:128", "index size cannot be larger than the pointer "
                         "size"},
  };
  for (const auto &[layout, message] : refused)
    EXPECT_EQ(dataLayoutError(layout), message) << layout;
  for (std::string_view layout :
       {"", "e-m:e-p:64:64-i64:64-n32:64-S128", "pu3(x):32:32-ni:3",
        "p1(a):64:64-p1(b):64:64", "s:anything-a:0:64-Fn32"})
    EXPECT_EQ(dataLayoutError(layout), std::nullopt) << layout;
}

TEST(CorruptBitcode, RandomBitstreams) {
  // Arbitrary bits after a valid magic exercise the framing code paths.
  std::mt19937 random(7);
  for (int round = 0; round != 20000; ++round) {
    std::string input("BC\xC0\xDE", 4);
    const size_t words = 1 + random() % 24;
    for (size_t index = 0; index != words * 4; ++index)
      input.push_back(char(random() % 256));
    expectListOrError(input);
  }
}

} // namespace
} // namespace offbundle
