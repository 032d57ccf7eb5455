// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ELF reading and llvm-objcopy-compatible rewriting (formats/elf/elf_object.h).
//
// The expected outputs under tests/data/elf were made by LLVM 22's
// llvm-objcopy (see make_objects.sh there); the tests need no LLVM tools.
// Set OFFBUNDLE_ELF_CORPUS to a directory made by
// `make_objects.sh --wide DIR` to check a much larger corpus the same way.
#include "formats/elf/elf_object.h"
#include "formats/objcopy/objcopy.h"

#include "in_memory.h"
#include "test_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace offbundle {
namespace {

namespace fs = std::filesystem;
using in_memory::addOffloadBundleSections;
using in_memory::removeOffloadBundleSections;

fs::path dataDirectory() { return test_files::dataDirectory("elf"); }

using test_files::readFile;
std::optional<std::string> readIfPresent(const fs::path &path) {
  if (!fs::exists(path))
    return std::nullopt;
  return readFile(path);
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

// Where two byte strings first differ, for readable failures.
std::string firstDifference(const std::string &ours,
                            const std::string &expected) {
  if (ours == expected)
    return "identical";
  size_t at = 0;
  while (at < ours.size() && at < expected.size() && ours[at] == expected[at])
    ++at;
  std::ostringstream text;
  text << "sizes " << ours.size() << " and " << expected.size()
       << ", first difference at offset 0x" << std::hex << at;
  return text.str();
}

// The three entries make_objects.sh bundles, with their payloads.
struct Payloads {
  std::string host = std::string(1, '\0');
  std::string gfx906 = readFile(dataDirectory() / "payload-gfx906.bin");
  std::string gfx90a = readFile(dataDirectory() / "payload-gfx90a.bin");

  std::vector<OffloadBundleSection> entries() const {
    return {{"host-x86_64-unknown-linux-gnu", host},
            {"hip-amdgcn-amd-amdhsa--gfx906", gfx906},
            {"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", gfx90a}};
  }
};

// Names of the input objects in a corpus directory (NAME.o but not the
// outputs NAME.fat.o, NAME.host.o, NAME.rewrite.o).
std::vector<std::string> corpusNames(const fs::path &directory) {
  std::vector<std::string> names;
  if (!fs::is_directory(directory))
    return names;
  for (const auto &entry : fs::directory_iterator(directory)) {
    std::string file = entry.path().filename().string();
    if (file.size() < 2 || file.substr(file.size() - 2) != ".o")
      continue;
    std::string name = file.substr(0, file.size() - 2);
    auto endsWith = [&](std::string_view suffix) {
      return name.size() >= suffix.size() &&
             name.substr(name.size() - suffix.size()) == suffix;
    };
    if (endsWith(".fat") || endsWith(".host") || endsWith(".rewrite"))
      continue;
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Checks one operation's result against NAME<suffix> (expected bytes) or
// NAME<errorSuffix> (llvm-objcopy's message).
void expectSameAsReference(const Result<std::string> &ours,
                           const fs::path &directory, const std::string &name,
                           const std::string &suffix,
                           const std::string &errorSuffix) {
  if (auto message = readIfPresent(directory / (name + errorSuffix))) {
    ASSERT_FALSE(ours.ok()) << name << errorSuffix << ": expected an error";
    EXPECT_EQ(ours.error().message, trimmed(*message));
    return;
  }
  ASSERT_TRUE(ours.ok()) << name << suffix << ": " << ours.error().message;
  std::string expected = readFile(directory / (name + suffix));
  EXPECT_TRUE(*ours == expected)
      << name << suffix << ": " << firstDifference(*ours, expected);
}

void checkCorpusObject(const fs::path &directory, const std::string &name,
                       const Payloads &payloads) {
  const std::string input = readFile(directory / (name + ".o"));
  Result<std::string> fat = addOffloadBundleSections(input, payloads.entries());
  expectSameAsReference(fat, directory, name, ".fat.o", ".add-error.txt");
  if (fat.ok())
    expectSameAsReference(removeOffloadBundleSections(*fat), directory, name,
                          ".host.o", ".host-error.txt");
  expectSameAsReference(removeOffloadBundleSections(input), directory, name,
                        ".rewrite.o", ".remove-error.txt");
}

class CommittedCorpus : public testing::TestWithParam<std::string> {};

TEST_P(CommittedCorpus, MatchesLlvmObjcopy) {
  checkCorpusObject(dataDirectory(), GetParam(), Payloads());
}

INSTANTIATE_TEST_SUITE_P(Elf, CommittedCorpus,
                         testing::ValuesIn(corpusNames(dataDirectory())),
                         [](const testing::TestParamInfo<std::string> &info) {
                           std::string name = info.param;
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

TEST(ElfCorpus, CommittedCorpusIsThere) {
  EXPECT_GE(corpusNames(dataDirectory()).size(), 15u);
}

TEST(ElfCorpus, WideCorpusFromEnvironment) {
  const char *directory = std::getenv("OFFBUNDLE_ELF_CORPUS");
  if (!directory || !*directory)
    GTEST_SKIP() << "OFFBUNDLE_ELF_CORPUS is not set";
  std::vector<std::string> names = corpusNames(directory);
  ASSERT_FALSE(names.empty()) << "no objects in " << directory;
  Payloads payloads;
  for (const std::string &name : names) {
    SCOPED_TRACE(name);
    checkCorpusObject(directory, name, payloads);
  }
}

// ---------------------------------------------------------------------------
// Reading.

std::string committedObject(const std::string &name) {
  return readFile(dataDirectory() / (name + ".o"));
}

const ElfSection *findSection(const ElfObject &object, std::string_view name) {
  for (const ElfSection &section : object.sections())
    if (section.name == name)
      return &section;
  return nullptr;
}

TEST(ElfRead, RecognisesElf) {
  EXPECT_TRUE(isElf(committedObject("clang-x86_64-O0")));
  EXPECT_FALSE(isElf(""));
  EXPECT_FALSE(isElf("\x7f"
                     "ELF"));
  EXPECT_FALSE(isElf("BC\xc0\xde not an object at all"));
  std::string badClass = committedObject("clang-x86_64-O0");
  badClass[4] = 3;
  EXPECT_FALSE(isElf(badClass));
}

TEST(ElfRead, ReadsSectionTable) {
  const std::string bytes = committedObject("clang-x86_64-O0");
  Result<ElfObject> object = parseElfObject(bytes);
  ASSERT_TRUE(object.ok()) << object.error().message;
  EXPECT_TRUE(object->header().is64Bit);
  EXPECT_TRUE(object->header().isLittleEndian);
  EXPECT_EQ(object->header().fileType, 1);
  EXPECT_EQ(object->header().machine, 62);
  ASSERT_FALSE(object->sections().empty());
  EXPECT_EQ(object->sections()[0].type, kElfSectionTypeNull);
  EXPECT_EQ(object->sections().size(), object->header().sectionCount);

  const ElfSection *text = findSection(*object, ".text");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(object->contents(*text).size(), text->size);
  EXPECT_EQ(object->contents(*text).data(), bytes.data() + text->offset);

  const ElfSection *bss = findSection(*object, ".bss");
  ASSERT_NE(bss, nullptr);
  EXPECT_FALSE(bss->hasContents());
  EXPECT_TRUE(object->contents(*bss).empty());
}

TEST(ElfRead, ReadsBigEndianAndElf32) {
  // ElfObject views its bytes: keep them alive.
  const std::string ppcBytes = committedObject("clang-ppc64-big-endian");
  Result<ElfObject> ppc = parseElfObject(ppcBytes);
  ASSERT_TRUE(ppc.ok()) << ppc.error().message;
  EXPECT_FALSE(ppc->header().isLittleEndian);
  EXPECT_EQ(ppc->header().machine, 21);
  EXPECT_NE(findSection(*ppc, ".text"), nullptr);

  const std::string i386Bytes = committedObject("clang-i386-O2");
  Result<ElfObject> i386 = parseElfObject(i386Bytes);
  ASSERT_TRUE(i386.ok()) << i386.error().message;
  EXPECT_FALSE(i386->header().is64Bit);
  EXPECT_NE(findSection(*i386, ".rel.text"), nullptr);
}

TEST(ElfRead, ListsBundleSectionsOfFatObject) {
  const std::string fat = readFile(dataDirectory() / "clang-x86_64-O0.fat.o");
  Result<ElfObject> object = parseElfObject(fat);
  ASSERT_TRUE(object.ok()) << object.error().message;
  Payloads payloads;
  std::vector<std::pair<std::string, std::string>> found;
  for (const ElfSection &section : object->sections())
    if (section.name.substr(0, kOffloadBundleSectionPrefix.size()) ==
        kOffloadBundleSectionPrefix) {
      EXPECT_EQ(section.flags, kElfSectionFlagExclude);
      found.emplace_back(
          section.name.substr(kOffloadBundleSectionPrefix.size()),
          object->contents(section));
    }
  std::vector<std::pair<std::string, std::string>> expected;
  for (const auto &[id, payload] : payloads.entries())
    expected.emplace_back(id, payload);
  EXPECT_EQ(found, expected);
}

// ---------------------------------------------------------------------------
// Plans.

TEST(ElfPlan, StreamsWhatItRenders) {
  const std::string input = committedObject("gcc-x86_64-O2-g");
  Payloads payloads;
  const auto entries = payloads.entries();
  Result<ElfWritePlan> plan = planOffloadBundleSections(input, entries);
  ASSERT_TRUE(plan.ok()) << plan.error().message;

  uint64_t end = 0;
  int payloadChunks = 0;
  for (const ElfOutputChunk &chunk : plan->chunks()) {
    EXPECT_GE(chunk.offset, end);
    EXPECT_FALSE(chunk.bytes.empty());
    end = chunk.offset + chunk.bytes.size();
    if (chunk.payloadIndex >= 0) {
      ++payloadChunks;
      EXPECT_EQ(chunk.bytes.data(), entries[chunk.payloadIndex].second.data());
    }
  }
  EXPECT_EQ(payloadChunks, 3);
  EXPECT_LE(end, plan->size());

  std::string streamed;
  Status status = plan->stream(
      [&](std::string_view bytes) {
        streamed.append(bytes);
        return Status::success();
      },
      [&](uint64_t count) {
        streamed.append(count, '\0');
        return Status::success();
      });
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(streamed, plan->render());
  EXPECT_EQ(streamed, readFile(dataDirectory() / "gcc-x86_64-O2-g.fat.o"));

  // A failing sink stops the stream with its error.
  Status failed = plan->stream(
      [](std::string_view) { return Status(makeError("disk full")); },
      [](uint64_t) { return Status::success(); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "disk full");
}

TEST(ElfPlan, AddsNothingWhenGivenNothing) {
  // Still a full rewrite, like llvm-objcopy with no options.
  const std::string input = committedObject("clang-x86_64-O0");
  Result<std::string> rewritten = addOffloadBundleSections(input, {});
  ASSERT_TRUE(rewritten.ok()) << rewritten.error().message;
  Result<std::string> removed = removeOffloadBundleSections(input);
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_EQ(*rewritten, *removed);
}

TEST(ElfPlan, RefusesAnEntryTwice) {
  // As llvm-objcopy does when given --set-section-flags twice for a name.
  const std::string input = committedObject("clang-x86_64-O0");
  Result<std::string> result =
      addOffloadBundleSections(input, {{"hip-amdgcn-amd-amdhsa--gfx906", "a"},
                                       {"hip-amdgcn-amd-amdhsa--gfx906", "b"}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message,
            "--set-section-flags set multiple times for section "
            "'__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906'");
}

TEST(ElfPlan, EmptyPayloadsAddEmptySections) {
  const std::string input = committedObject("clang-x86_64-O0");
  Result<std::string> fat =
      addOffloadBundleSections(input, {{"host-x86_64-unknown-linux-gnu", ""}});
  ASSERT_TRUE(fat.ok()) << fat.error().message;
  Result<ElfObject> object = parseElfObject(*fat);
  ASSERT_TRUE(object.ok()) << object.error().message;
  const ElfSection &added = object->sections().back();
  EXPECT_EQ(added.name,
            "__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu");
  EXPECT_EQ(added.size, 0u);
  EXPECT_EQ(added.flags, kElfSectionFlagExclude);
}

// ---------------------------------------------------------------------------
// Corrupt input: always an error, never a crash or a read out of bounds.

TEST(ElfCorrupt, EveryTruncationIsRefused) {
  for (const char *name : {"clang-x86_64-O0", "gxx-i386-comdat-pic",
                           "clang-ppc64-big-endian", "fat-with-groups"}) {
    const std::string bytes = committedObject(name);
    for (size_t length = 0; length < bytes.size(); ++length) {
      // A copy of exactly `length` bytes, so that sanitizers catch any read
      // past the end.
      std::unique_ptr<char[]> prefix(new char[length + 1]);
      std::memcpy(prefix.get(), bytes.data(), length);
      std::string_view view(prefix.get(), length);
      Result<ElfObject> parsed = parseElfObject(view);
      ASSERT_FALSE(parsed.ok()) << name << " cut to " << length;
      EXPECT_FALSE(parsed.error().message.empty());
      EXPECT_EQ(parsed.error().message.find('\n'), std::string::npos);
      EXPECT_FALSE(removeOffloadBundleSections(view).ok());
    }
  }
}

// Whatever a mutated object makes of the rewriters, the result is an error
// or an object that reads back.
TEST(ElfCorrupt, MutatedBytesNeverCrash) {
  Payloads payloads;
  for (const char *name : {"clang-x86_64-O0", "gxx-i386-comdat-pic",
                           "fat-with-groups", "clang-x86_64-crel"}) {
    const std::string original = committedObject(name);
    for (size_t at = 0; at < original.size(); ++at) {
      for (unsigned char value : {0x00, 0xff, 0x80, 0x01}) {
        if (static_cast<unsigned char>(original[at]) == value)
          continue;
        std::string bytes = original;
        bytes[at] = static_cast<char>(value);
        (void)parseElfObject(bytes);
        for (const Result<std::string> &output :
             {addOffloadBundleSections(bytes, payloads.entries()),
              removeOffloadBundleSections(bytes)}) {
          if (!output.ok()) {
            EXPECT_EQ(output.error().message.find('\n'), std::string::npos);
            continue;
          }
          Result<ElfObject> reread = parseElfObject(*output);
          EXPECT_TRUE(reread.ok())
              << name << " with byte " << at << " set to " << int(value) << ": "
              << reread.error().message;
        }
      }
    }
  }
}

// Little-endian ELF64 field surgery for the cases below.
class Elf64Patcher {
public:
  explicit Elf64Patcher(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string &bytes() { return bytes_; }

  void set(uint64_t offset, uint64_t value, size_t width) {
    for (size_t i = 0; i < width; ++i)
      bytes_[offset + i] = static_cast<char>((value >> (8 * i)) & 0xff);
  }
  uint64_t get(uint64_t offset, size_t width) const {
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i)
      value |= uint64_t(static_cast<unsigned char>(bytes_[offset + i]))
               << (8 * i);
    return value;
  }
  uint64_t sectionHeader(size_t index) const { return get(40, 8) + 64 * index; }
  size_t indexOf(std::string_view name) const {
    Result<ElfObject> object = parseElfObject(bytes_);
    EXPECT_TRUE(object.ok());
    for (size_t i = 0; i < object->sections().size(); ++i)
      if (object->sections()[i].name == name)
        return i;
    ADD_FAILURE() << "no section " << name;
    return 0;
  }
  // Section header fields: offset within the entry, width.
  void setSectionField(std::string_view name, size_t field, size_t width,
                       uint64_t value) {
    set(sectionHeader(indexOf(name)) + field, value, width);
  }

private:
  std::string bytes_;
};

constexpr size_t kShName = 0, kShOffset = 24, kShSize = 32, kShLink = 40,
                 kShInfo = 44;

std::string errorOf(std::string_view bytes) {
  Result<std::string> removed = removeOffloadBundleSections(bytes);
  EXPECT_FALSE(removed.ok());
  return removed.ok() ? std::string() : removed.error().message;
}

TEST(ElfCorrupt, HeaderProblems) {
  const std::string good = committedObject("clang-x86_64-O0");
  EXPECT_EQ(errorOf("GARBAGE, NOT ELF"), "not an ELF file");

  Elf64Patcher badClass(good);
  badClass.bytes()[4] = 9;
  EXPECT_EQ(errorOf(badClass.bytes()),
            "invalid ELF object: unknown ELF class 9");

  Elf64Patcher badEncoding(good);
  badEncoding.bytes()[5] = 0;
  EXPECT_NE(errorOf(badEncoding.bytes()).find("unknown data encoding"),
            std::string::npos);

  Elf64Patcher entrySize(good);
  entrySize.set(58, 63, 2); // e_shentsize
  EXPECT_NE(errorOf(entrySize.bytes()).find("section header entry size"),
            std::string::npos);

  Elf64Patcher tableOutside(good);
  tableOutside.set(40, good.size() - 8, 8); // e_shoff
  EXPECT_NE(errorOf(tableOutside.bytes()).find("extends past the end"),
            std::string::npos);

  Elf64Patcher hugeCount(good);
  hugeCount.set(60, 0, 2); // e_shnum 0: the count is in the null entry
  hugeCount.set(hugeCount.sectionHeader(0) + kShSize, uint64_t(1) << 60, 8);
  EXPECT_NE(errorOf(hugeCount.bytes()).find("entries extends past the end"),
            std::string::npos);

  Elf64Patcher badNameTable(good);
  badNameTable.set(62, 200, 2); // e_shstrndx
  EXPECT_NE(errorOf(badNameTable.bytes()).find("section name table index 200"),
            std::string::npos);

  Elf64Patcher nameTableNotStrings(good);
  nameTableNotStrings.set(62, nameTableNotStrings.indexOf(".text"), 2);
  EXPECT_NE(errorOf(nameTableNotStrings.bytes()).find("is not a string table"),
            std::string::npos);

  Elf64Patcher programHeaders(good);
  programHeaders.set(56, 1, 2);  // e_phnum
  programHeaders.set(54, 56, 2); // e_phentsize
  programHeaders.set(32, 64, 8); // e_phoff, over the sections
  EXPECT_NE(errorOf(programHeaders.bytes()).find("overlaps"),
            std::string::npos);
}

TEST(ElfCorrupt, SectionProblems) {
  const std::string good = committedObject("clang-x86_64-O0");

  Elf64Patcher nameOutside(good);
  nameOutside.setSectionField(".text", kShName, 4, 0x7fffffff);
  EXPECT_NE(errorOf(nameOutside.bytes())
                .find("past the end of the section "
                      "name table"),
            std::string::npos);

  Elf64Patcher wrapping(good);
  wrapping.setSectionField(".text", kShOffset, 8, ~uint64_t(0) - 7);
  EXPECT_NE(errorOf(wrapping.bytes()).find("extends past the end of the file"),
            std::string::npos);

  Elf64Patcher tooLong(good);
  tooLong.setSectionField(".text", kShSize, 8, good.size());
  EXPECT_NE(errorOf(tooLong.bytes()).find("extends past the end of the file"),
            std::string::npos);

  Elf64Patcher overlapping(good);
  const uint64_t textOffset = overlapping.get(
      overlapping.sectionHeader(overlapping.indexOf(".text")) + kShOffset, 8);
  overlapping.setSectionField(".data", kShOffset, 8, textOffset);
  EXPECT_NE(errorOf(overlapping.bytes()).find("overlaps"), std::string::npos);

  Elf64Patcher overHeader(good);
  overHeader.setSectionField(".text", kShOffset, 8, 8);
  EXPECT_NE(errorOf(overHeader.bytes()).find("overlaps the ELF header"),
            std::string::npos);

  Elf64Patcher badLink(good);
  badLink.setSectionField(".rela.text", kShLink, 4, 999);
  EXPECT_NE(errorOf(badLink.bytes()).find("not linked to a symbol table"),
            std::string::npos);

  Elf64Patcher badTarget(good);
  badTarget.setSectionField(".rela.text", kShInfo, 4, 999);
  EXPECT_NE(errorOf(badTarget.bytes()).find("applies to invalid section"),
            std::string::npos);

  Elf64Patcher symbolTableLink(good);
  symbolTableLink.setSectionField(".symtab", kShLink, 4,
                                  symbolTableLink.indexOf(".text"));
  EXPECT_NE(errorOf(symbolTableLink.bytes()).find("not linked to a string"),
            std::string::npos);
}

TEST(ElfCorrupt, SymbolAndRelocationProblems) {
  const std::string good = committedObject("clang-x86_64-O0");
  Result<ElfObject> object = parseElfObject(good);
  ASSERT_TRUE(object.ok());
  const ElfSection *symtab = findSection(*object, ".symtab");
  const ElfSection *rela = findSection(*object, ".rela.text");
  ASSERT_NE(symtab, nullptr);
  ASSERT_NE(rela, nullptr);

  Elf64Patcher symbolName(good);
  symbolName.set(symtab->offset + 24, 0xfffffff0, 4); // symbol 1's st_name
  EXPECT_NE(errorOf(symbolName.bytes())
                .find("past the end of the string "
                      "table"),
            std::string::npos);

  Elf64Patcher symbolSection(good);
  symbolSection.set(symtab->offset + 24 + 6, 0x7777, 2); // st_shndx
  EXPECT_NE(errorOf(symbolSection.bytes()).find("invalid section index"),
            std::string::npos);

  Elf64Patcher reservedIndex(good);
  reservedIndex.set(symtab->offset + 24 + 6, 0xff10, 2);
  EXPECT_NE(errorOf(reservedIndex.bytes()).find("reserved section index"),
            std::string::npos);

  Elf64Patcher partialSymbol(good);
  partialSymbol.setSectionField(".symtab", kShSize, 8, symtab->size - 1);
  EXPECT_NE(errorOf(partialSymbol.bytes()).find("whole number of entries"),
            std::string::npos);

  Elf64Patcher relocationSymbol(good);
  relocationSymbol.set(rela->offset + 8 + 4, 0x00ffffff, 4); // r_info's symbol
  EXPECT_NE(errorOf(relocationSymbol.bytes()).find("refers to symbol"),
            std::string::npos);
}

TEST(ElfCorrupt, GroupAndCrelProblems) {
  const std::string comdat = committedObject("clangxx-x86_64-comdat");
  Result<ElfObject> object = parseElfObject(comdat);
  ASSERT_TRUE(object.ok());
  const ElfSection *group = findSection(*object, ".group");
  ASSERT_NE(group, nullptr);

  Elf64Patcher member(comdat);
  member.set(group->offset + 4, 5000, 4);
  EXPECT_NE(errorOf(member.bytes()).find("invalid member 5000"),
            std::string::npos);

  Elf64Patcher signature(comdat);
  signature.set(signature.sectionHeader(signature.indexOf(".group")) + kShInfo,
                100000, 4);
  EXPECT_NE(errorOf(signature.bytes()).find("names invalid symbol"),
            std::string::npos);

  Elf64Patcher oddSize(comdat);
  oddSize.set(oddSize.sectionHeader(oddSize.indexOf(".group")) + kShSize, 6, 8);
  EXPECT_NE(errorOf(oddSize.bytes()).find("malformed contents"),
            std::string::npos);

  const std::string crel = committedObject("clang-x86_64-crel");
  Result<ElfObject> crelObject = parseElfObject(crel);
  ASSERT_TRUE(crelObject.ok());
  const ElfSection *relocations = nullptr;
  for (const ElfSection &section : crelObject->sections())
    if (section.type == 0x40000014 && section.size > 4)
      relocations = &section;
  ASSERT_NE(relocations, nullptr);
  Elf64Patcher truncatedCrel(crel);
  truncatedCrel.set(
      truncatedCrel.sectionHeader(relocations - crelObject->sections().data()) +
          kShSize,
      2, 8);
  EXPECT_NE(errorOf(truncatedCrel.bytes()).find("CREL"), std::string::npos);
}

} // namespace
} // namespace offbundle
