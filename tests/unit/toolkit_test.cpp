// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The offbundle tool's target selection (the three forms of --target and
// the entries each selects), and its rewriting of linked files.
#include <gtest/gtest.h>

#include "formats/binary_bundle.h"
#include "formats/elf/elf_object.h"
#include "formats/elf/hip_wrappers.h"
#include "rewrite/elf/linked_layout.h"
#include "rewrite/elf/linked_section_resize.h"
#include "rewrite/rewrite.h"
#include "rewrite/target_selection.h"
#include "support/byte_order.h"
#include "test_files.h"

namespace offbundle {
namespace {

constexpr const char *kHost = "host-x86_64-unknown-linux-gnu-";
constexpr const char *kAny = "hipv4-amdgcn-amd-amdhsa--gfx90a";
constexpr const char *kXnackOn = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+";
constexpr const char *kXnackOff = "hip-amdgcn-amd-amdhsa--gfx90a:xnack-";
constexpr const char *kBoth = "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-";
constexpr const char *kOther = "hipv4-amdgcn-amd-amdhsa--gfx906";

// Which of the sample entries `text` selects, in the order above.
std::vector<bool> selection(const char *text) {
  auto selector = TargetSelector::parse(text);
  EXPECT_TRUE(selector.ok()) << text;
  std::vector<bool> selected;
  for (const char *entry : {kHost, kAny, kXnackOn, kXnackOff, kBoth, kOther})
    selected.push_back(selector && selector->selects(entry));
  return selected;
}

TEST(TargetSelector, HostSelectsHostEntries) {
  EXPECT_EQ(selection("host"),
            (std::vector<bool>{true, false, false, false, false, false}));
}

// A bare processor takes every feature variant; features narrow it to the
// entries that agree or leave the feature unspecified.
TEST(TargetSelector, ProcessorSelectsAgreeingVariants) {
  EXPECT_EQ(selection("gfx90a"),
            (std::vector<bool>{false, true, true, true, true, false}));
  EXPECT_EQ(selection("gfx90a:xnack+"),
            (std::vector<bool>{false, true, true, false, false, false}));
  EXPECT_EQ(selection("gfx90a:sramecc+:xnack-"),
            (std::vector<bool>{false, true, false, true, true, false}));
  EXPECT_EQ(selection("gfx906"),
            (std::vector<bool>{false, false, false, false, false, true}));
}

// An entry ID selects what clang-offload-bundler -targets would unbundle for
// it: a compatible kind (hip takes hipv4 code objects), and the target ID
// rules (a requested feature must be matched or left open by the entry, and
// the entry may not set one the request leaves open).
TEST(TargetSelector, EntryIdSelectsAsTheBundler) {
  EXPECT_EQ(selection("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"),
            (std::vector<bool>{false, true, true, false, false, false}));
  EXPECT_EQ(selection("hip-amdgcn-amd-amdhsa--gfx90a:xnack-"),
            (std::vector<bool>{false, true, false, true, false, false}));
  EXPECT_EQ(selection("host-x86_64-unknown-linux-gnu"),
            (std::vector<bool>{true, false, false, false, false, false}));
}

TEST(TargetSelector, MalformedTargetsAreErrors) {
  for (const char *text :
       {"", "gfx90a:", "gfx90a::xnack+", "gfx90a:xnack", ":xnack+", "hip-x",
        "banana-amdgcn-amd-amdhsa--gfx90a"}) {
    auto selector = TargetSelector::parse(text);
    ASSERT_FALSE(selector.ok()) << text;
    EXPECT_NE(selector.error().message.find("is no target"), std::string::npos)
        << selector.error().message;
  }
}

TEST(TargetSelector, CommasSeparateTargets) {
  auto selectors = parseTargetSelectors({"host,gfx906", "gfx90a:xnack-"});
  ASSERT_TRUE(selectors.ok()) << selectors.error().message;
  ASSERT_EQ(selectors->size(), 3u);
  EXPECT_TRUE(anySelects(*selectors, kHost));
  EXPECT_TRUE(anySelects(*selectors, kOther));
  EXPECT_TRUE(anySelects(*selectors, kXnackOff));
  EXPECT_FALSE(anySelects(*selectors, kXnackOn));
  EXPECT_FALSE(parseTargetSelectors({"gfx906,"}).ok());
  EXPECT_EQ(targetTexts({"host,gfx906", "gfx90a:xnack-", "gfx906,"}),
            (std::vector<std::string_view>{"host", "gfx906", "gfx90a:xnack-",
                                           "gfx906", ""}));
}

} // namespace
} // namespace offbundle

// Rewriting linked files: the small HIP files of tests/data/linked.
namespace offbundle {
namespace {

using test_files::dataDirectory;
using test_files::readFile;

std::string linkedSample(const std::string &name) {
  return readFile(dataDirectory("linked") / name);
}

RewriteRequest rewriteRequest(RewriteKind kind, const char *keep = nullptr) {
  RewriteRequest request;
  request.kind = kind;
  if (keep) {
    auto selectors = parseTargetSelectors({keep});
    EXPECT_TRUE(selectors);
    request.keep = std::move(*selectors);
  }
  return request;
}

std::string rewritten(const std::string &input, const RewriteRequest &request) {
  auto result = rewriteFile("input", input, request);
  EXPECT_TRUE(result) << (result ? "" : result.error().message);
  if (!result)
    return std::string();
  auto bytes = result->plan.render(input);
  EXPECT_TRUE(bytes) << (bytes ? "" : bytes.error().message);
  return bytes ? *bytes : std::string();
}

// The one bundle a linked sample's wrapper points at.
std::string_view wrappedBundle(std::string_view file) {
  auto found = readHipWrappers(file);
  EXPECT_TRUE(found && *found && (*found)->wrappers.size() == 1);
  if (!found || !*found || (*found)->wrappers.size() != 1)
    return {};
  const HipWrappers &wrappers = **found;
  const uint64_t binary = wrappers.wrappers.front().binary;
  EXPECT_GE(binary, wrappers.fatbinStart);
  EXPECT_LT(binary, wrappers.fatbinEnd);
  return file.substr(wrappers.fatbinOffset + (binary - wrappers.fatbinStart),
                     wrappers.fatbinEnd - binary);
}

std::vector<std::string> bundleIds(std::string_view bundle) {
  std::vector<std::string> ids;
  auto reader = BinaryBundleReader::openInFileOrder(bundle);
  EXPECT_TRUE(reader);
  if (!reader)
    return ids;
  Status walked = forEachEntry(**reader, [&](std::string_view id) {
    ids.emplace_back(id);
    return Result<EntryWalk>(EntryWalk::Continue);
  });
  EXPECT_TRUE(walked.ok());
  return ids;
}

uint16_t programHeaderCount(std::string_view file) {
  return loadLittle16(file, 56);
}

// Program headers other than PT_NULL.
uint16_t usedProgramHeaders(std::string_view file) {
  uint16_t used = 0;
  const uint64_t table = loadLittle64(file, 32);
  for (uint64_t i = 0; i < programHeaderCount(file); ++i)
    used += loadLittle32(file, table + i * 56) != 0 ? 1 : 0;
  return used;
}

struct Segment {
  uint32_t type = 0;
  uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0;
};

std::vector<Segment> segments(std::string_view file) {
  std::vector<Segment> found;
  const uint64_t table = loadLittle64(file, 32);
  for (uint64_t i = 0; i < programHeaderCount(file); ++i) {
    const uint64_t at = table + i * 56;
    found.push_back({loadLittle32(file, at), loadLittle64(file, at + 8),
                     loadLittle64(file, at + 16), loadLittle64(file, at + 32),
                     loadLittle64(file, at + 40)});
  }
  return found;
}

std::vector<Segment> loads(std::string_view file) {
  std::vector<Segment> found;
  for (const Segment &segment : segments(file))
    if (segment.type == 1)
      found.push_back(segment);
  return found;
}

const ElfSection *sectionNamed(const ElfObject &object, std::string_view name) {
  for (const ElfSection &section : object.sections())
    if (section.name == name)
      return &section;
  return nullptr;
}

// The value of the first dynamic entry with `tag`, 0 when there is none.
uint64_t dynamicValue(const ElfObject &object, uint64_t tag) {
  const ElfSection *dynamic = sectionNamed(object, ".dynamic");
  if (!dynamic)
    return 0;
  const std::string_view entries = object.contents(*dynamic);
  for (uint64_t at = 0; at + 16 <= entries.size(); at += 16)
    if (loadLittle64(entries, at) == tag)
      return loadLittle64(entries, at + 8);
  return 0;
}

TEST(LinkedRewrite, PrunedLibraryShrinksByPagesAndItsWrapperFollows) {
  const std::string input = linkedSample("unit-plain.so");
  const std::string output =
      rewritten(input, rewriteRequest(RewriteKind::Prune, "gfx906"));
  ASSERT_TRUE(parseElfObject(output));
  EXPECT_EQ(bundleIds(wrappedBundle(output)),
            (std::vector<std::string>{"host-x86_64-unknown-linux-gnu-",
                                      "hipv4-amdgcn-amd-amdhsa--gfx906"}));
  // The gfx90a code object went; the file gave back whole pages for it,
  // and the segment holding .hip_fatbin was split (one program header
  // more).
  ASSERT_LT(output.size(), input.size());
  EXPECT_EQ((input.size() - output.size()) % 4096, 0u);
  EXPECT_EQ(usedProgramHeaders(output), usedProgramHeaders(input) + 1);
  Status layout = checkLinkedLayout(output);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
}

// The table grows where linkers put it; .note.gnu.build-id and .dynsym,
// which stood where its new entry goes, move to the start of the split
// segment's second part, byte for byte, and what addressed them follows.
TEST(LinkedRewrite, TableStaysAfterTheElfHeaderAndSectionsInItsWayMove) {
  const std::string input = linkedSample("unit-plain.so");
  const std::string output =
      rewritten(input, rewriteRequest(RewriteKind::Prune, "gfx906"));
  auto before = parseElfObject(input);
  auto after = parseElfObject(output);
  ASSERT_TRUE(before && after);
  EXPECT_EQ(loadLittle64(output, 32), 64u);
  const std::vector<Segment> all = segments(output);
  const auto phdr = std::find_if(all.begin(), all.end(),
                                 [](const Segment &s) { return s.type == 6; });
  ASSERT_NE(phdr, all.end());
  EXPECT_EQ(phdr->offset, 64u);
  EXPECT_EQ(phdr->filesz, 56u * programHeaderCount(output));
  EXPECT_EQ(loads(output).front().offset, 0u);

  const ElfSection *oldSymbols = sectionNamed(*before, ".dynsym");
  const ElfSection *newSymbols = sectionNamed(*after, ".dynsym");
  const ElfSection *newNote = sectionNamed(*after, ".note.gnu.build-id");
  ASSERT_TRUE(oldSymbols && newSymbols && newNote);
  EXPECT_GT(newSymbols->address, oldSymbols->address);
  EXPECT_EQ(after->contents(*newSymbols), before->contents(*oldSymbols));
  EXPECT_EQ(dynamicValue(*after, 6 /* DT_SYMTAB */), newSymbols->address);
  // The note starts the segment after .hip_fatbin's, and PT_NOTE follows.
  const ElfSection *fatbin = sectionNamed(*after, ".hip_fatbin");
  ASSERT_TRUE(fatbin);
  bool noteStartsSegment = false;
  for (const Segment &load : loads(output))
    noteStartsSegment = noteStartsSegment || (load.vaddr == newNote->address &&
                                              load.offset == newNote->offset &&
                                              load.vaddr > fatbin->address);
  EXPECT_TRUE(noteStartsSegment);
  for (const Segment &segment : all) {
    if (segment.type == 4 /* PT_NOTE */) {
      EXPECT_EQ(segment.vaddr, newNote->address);
    }
  }
  // Links by index still name the same sections after the table was
  // ordered by offset again.
  const ElfSection *hash = sectionNamed(*after, ".gnu.hash");
  const ElfSection *relocations = sectionNamed(*after, ".rela.plt");
  ASSERT_TRUE(hash && relocations);
  EXPECT_EQ(after->sections()[hash->link].name, ".dynsym");
  EXPECT_EQ(after->sections()[relocations->link].name, ".dynsym");
  EXPECT_EQ(after->sections()[newSymbols->link].name, ".dynstr");
}

// What the moved sections left at the start of the file is spare PT_NULL
// entries of the table (never free bytes), and the next rewrite that needs
// an entry takes one of them instead of moving more sections.
// Bytes from the end of the program header table to the first section.
uint64_t roomAfterTable(const std::string &file) {
  auto parsed = parseElfObject(file);
  uint64_t firstSection = UINT64_MAX;
  for (const ElfSection &section : parsed->sections())
    if (section.hasContents() && section.size != 0 && section.offset >= 64)
      firstSection = std::min(firstSection, section.offset);
  return firstSection - (64 + 56u * programHeaderCount(file));
}

// A shared object's table gets no spare entries: the sections moved out of
// its way leave zeros, which patchelf needs (it moves whatever its table,
// grown by one entry, reaches) and which serve the next rewrite.
TEST(LinkedRewrite, ASharedObjectKeepsRoomAfterItsTable) {
  const std::string compressed = rewritten(
      linkedSample("unit-plain.so"), rewriteRequest(RewriteKind::Compress));
  auto before = parseElfObject(compressed);
  ASSERT_TRUE(before);
  EXPECT_EQ(programHeaderCount(compressed), usedProgramHeaders(compressed));
  EXPECT_GE(roomAfterTable(compressed), 4 * 56u);

  // Decompressing needs a segment of its own for the grown .hip_fatbin: it
  // takes one entry of that room, and nothing else moves.
  const std::string plain =
      rewritten(compressed, rewriteRequest(RewriteKind::Decompress));
  auto after = parseElfObject(plain);
  ASSERT_TRUE(after);
  EXPECT_EQ(programHeaderCount(plain), usedProgramHeaders(compressed) + 1);
  EXPECT_EQ(usedProgramHeaders(plain), programHeaderCount(plain));
  EXPECT_EQ(roomAfterTable(plain), roomAfterTable(compressed) - 56);
  for (const char *name : {".dynsym", ".dynstr", ".gnu.hash", ".rela.dyn"}) {
    const ElfSection *old = sectionNamed(*before, name);
    const ElfSection *now = sectionNamed(*after, name);
    ASSERT_TRUE(old && now) << name;
    EXPECT_EQ(now->address, old->address) << name;
  }
  Status layout = checkLinkedLayout(plain);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
}

// Files an earlier version left with the program header table away from
// the start of the file get it back there when they are rewritten again.
TEST(LinkedRewrite, TableLeftElsewhereByAnEarlierVersionComesHome) {
  for (const char *name : {"legacy-pruned.so", "legacy-decompressed.so"}) {
    const std::string input = linkedSample(name);
    EXPECT_FALSE(checkLinkedLayout(input).ok()) << name;
    const std::string output =
        rewritten(input, rewriteRequest(RewriteKind::Compress));
    EXPECT_EQ(loadLittle64(output, 32), 64u) << name;
    Status layout = checkLinkedLayout(output);
    EXPECT_TRUE(layout.ok()) << name << ": " << layout.error().message;
    EXPECT_EQ(wrappedBundle(output).substr(0, 4), "CCOB") << name;
  }
  const std::string pruned =
      rewritten(linkedSample("legacy-decompressed.so"),
                rewriteRequest(RewriteKind::Prune, "gfx906"));
  Status layout = checkLinkedLayout(pruned);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
}

TEST(LinkedRewrite, StoredPointerOfANonPieProgramFollowsItsBundle) {
  const std::string input = linkedSample("unit-nopie");
  const std::string compressed =
      rewritten(input, rewriteRequest(RewriteKind::Compress));
  EXPECT_EQ(wrappedBundle(compressed).substr(0, 4), "CCOB");
  EXPECT_LT(compressed.size(), input.size());
  Status layout = checkLinkedLayout(compressed);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
}

// A program without dynamic sections has nothing after .interp and its note
// that could move for a second new program header: decompressing what was
// compressed is refused rather than laid out in a way tools break.
TEST(LinkedRewrite, NoRoomForASecondProgramHeaderIsRefused) {
  const std::string compressed = rewritten(
      linkedSample("unit-nopie"), rewriteRequest(RewriteKind::Compress));
  auto result =
      rewriteFile("input", compressed, rewriteRequest(RewriteKind::Decompress));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message,
            "'input': the program header table has no room for the segment "
            "a bigger .hip_fatbin needs");
}

// Decompressing a compressed library grows .hip_fatbin: it moves to a new
// segment past every address the library had, the wrapper follows it, and
// what followed it in its old segment keeps its addresses in a segment of
// its own.
TEST(LinkedRewrite, GrownSectionMovesPastEveryAddress) {
  const std::string input = linkedSample("unit-compressed.so");
  const std::string plain =
      rewritten(input, rewriteRequest(RewriteKind::Decompress));
  auto before = readHipWrappers(input);
  auto after = readHipWrappers(plain);
  ASSERT_TRUE(before && *before && after && *after);
  uint64_t highest = 0;
  for (const Segment &load : loads(input))
    highest = std::max(highest, load.vaddr + load.memsz);
  EXPECT_GE((*after)->fatbinStart, highest);
  Status layout = checkLinkedLayout(plain);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
  // And back: compressing it again gives the first file's bundle.
  const std::string again =
      rewritten(plain, rewriteRequest(RewriteKind::Compress));
  EXPECT_EQ(wrappedBundle(again), wrappedBundle(input));
  layout = checkLinkedLayout(again);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
}

// A section that ends its segment, with free addresses after it, grows
// where it is: no new segment, the file after it moved up by whole pages.
TEST(LinkedSectionResize, SectionEndingItsSegmentGrowsWhereItIs) {
  const std::string pruned =
      rewritten(linkedSample("unit-plain.so"),
                rewriteRequest(RewriteKind::Prune, "gfx906"));
  auto found = readHipWrappers(pruned);
  ASSERT_TRUE(found && *found);
  const uint64_t size = (*found)->fatbinEnd - (*found)->fatbinStart;
  LinkedSectionResize resize;
  resize.sectionName = ".hip_fatbin";
  resize.moves.push_back({(*found)->fatbinStart, 0});
  OutputPlan contents;
  contents.addInput((*found)->fatbinOffset, size);
  contents.addZeros(100);
  auto plan = planLinkedSectionResize(pruned, resize, std::move(contents));
  ASSERT_TRUE(plan) << plan.error().message;
  auto grown = plan->render(pruned);
  ASSERT_TRUE(grown);
  EXPECT_EQ(programHeaderCount(*grown), programHeaderCount(pruned));
  EXPECT_EQ(grown->size(), pruned.size() + 4096);
  auto after = readHipWrappers(*grown);
  ASSERT_TRUE(after && *after);
  EXPECT_EQ((*after)->fatbinStart, (*found)->fatbinStart);
  EXPECT_EQ((*after)->fatbinEnd, (*found)->fatbinEnd + 100);
  Status layout = checkLinkedLayout(*grown);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
}

TEST(LinkedRewrite, CompressedLibraryDecompressesToTheSameEntries) {
  const std::string input = linkedSample("unit-compressed.so");
  const std::string plain =
      rewritten(input, rewriteRequest(RewriteKind::Decompress));
  EXPECT_EQ(bundleIds(wrappedBundle(plain)),
            (std::vector<std::string>{"host-x86_64-unknown-linux-gnu-",
                                      "hipv4-amdgcn-amd-amdhsa--gfx906",
                                      "hipv4-amdgcn-amd-amdhsa--gfx90a"}));
}

// The error of resizing .hip_fatbin of `input` to 64 zero bytes, its first
// address moved to their start.
std::string resizeError(const std::string &input) {
  auto found = readHipWrappers(input);
  EXPECT_TRUE(found && *found);
  if (!found || !*found)
    return {};
  LinkedSectionResize resize;
  resize.sectionName = ".hip_fatbin";
  resize.moves.push_back({(*found)->fatbinStart, 0});
  OutputPlan contents;
  contents.addZeros(64);
  auto plan = planLinkedSectionResize(input, resize, std::move(contents));
  EXPECT_FALSE(plan);
  return plan ? std::string() : plan.error().message;
}

TEST(LinkedSectionResize, RelocationAtNoMovedAddressIsRefused) {
  const std::string input = linkedSample("unit-plain.so");
  auto found = readHipWrappers(input);
  ASSERT_TRUE(found && *found);
  LinkedSectionResize resize;
  resize.sectionName = ".hip_fatbin";
  // The wrapper's relocation points at the section's start; say only
  // what was 16 bytes further moves.
  resize.moves.push_back({(*found)->fatbinStart + 16, 0});
  OutputPlan contents;
  contents.addZeros(64);
  auto plan = planLinkedSectionResize(input, resize, std::move(contents));
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("at no bundle's start"),
            std::string::npos)
      << plan.error().message;
}

TEST(LinkedSectionResize, SegmentOverlappingTheSectionIsRefused) {
  std::string input = linkedSample("unit-plain.so");
  auto found = readHipWrappers(input);
  ASSERT_TRUE(found && *found);
  // Program header 0 (PT_PHDR) made to cover .hip_fatbin's first byte.
  const uint64_t table = 64;
  storeLittleEndian(input, table + 32, (*found)->fatbinOffset + 1, 8);
  EXPECT_EQ(resizeError(input),
            "program header 0 overlaps .hip_fatbin in a way that cannot be "
            "rewritten");
}

// A section claiming addresses inside .hip_fatbin (here .bss, as a fuzzer
// made it) would lose its memory when the section shrinks: refused.
TEST(LinkedSectionResize, SectionAtTheSectionsAddressesIsRefused) {
  std::string input = linkedSample("unit-plain.so");
  auto object = parseElfObject(input);
  auto found = readHipWrappers(input);
  ASSERT_TRUE(object && found && *found);
  size_t bss = 0;
  for (size_t i = 1; i < object->sections().size(); ++i)
    if (object->sections()[i].name == ".bss")
      bss = i;
  ASSERT_NE(bss, 0u);
  const uint64_t header = object->header().sectionHeaderOffset + bss * 64;
  storeLittleEndian(input, header + 16, (*found)->fatbinStart + 0x100, 8);
  EXPECT_EQ(resizeError(input),
            "section " + std::to_string(bss) +
                " (.bss) overlaps the addresses of .hip_fatbin");
}

TEST(LinkedSectionResize, RelocatableObjectIsNotALinkedFile) {
  const std::string object =
      readFile(dataDirectory("elf") / "clang-x86_64-O0.o");
  LinkedSectionResize resize;
  resize.sectionName = ".text";
  auto plan = planLinkedSectionResize(object, resize, OutputPlan());
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().message,
            "only 64-bit little-endian executables and shared libraries are "
            "rewritten this way");
}

} // namespace
} // namespace offbundle
