// The offbundle tool's target selection (the three forms of --target and
// the entries each selects), and its rewriting of linked files.
#include <gtest/gtest.h>

#include "formats/binary_bundle.h"
#include "formats/elf_object.h"
#include "formats/hip_wrappers.h"
#include "formats/linked_section_resize.h"
#include "support/byte_order.h"
#include "test_files.h"
#include "toolkit/rewrite.h"
#include "toolkit/target_selection.h"

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
  return static_cast<uint16_t>(static_cast<uint8_t>(file[56]) |
                               static_cast<uint8_t>(file[57]) << 8);
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
  EXPECT_EQ(programHeaderCount(output), programHeaderCount(input) + 1);
}

TEST(LinkedRewrite, StoredPointerOfANonPieProgramFollowsItsBundle) {
  const std::string input = linkedSample("unit-nopie");
  const std::string compressed =
      rewritten(input, rewriteRequest(RewriteKind::Compress));
  EXPECT_EQ(wrappedBundle(compressed).substr(0, 4), "CCOB");
  EXPECT_LT(compressed.size(), input.size());
  // Decompressing grows .hip_fatbin: it moves to a new segment past every
  // address the program had, and the wrapper follows it there.
  const std::string plain =
      rewritten(compressed, rewriteRequest(RewriteKind::Decompress));
  auto before = readHipWrappers(compressed);
  auto after = readHipWrappers(plain);
  ASSERT_TRUE(before && *before && after && *after);
  EXPECT_GT((*after)->fatbinStart, (*before)->fatbinEnd);
  EXPECT_EQ(bundleIds(wrappedBundle(plain)), bundleIds(wrappedBundle(input)));
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
  LinkedSectionResize resize;
  resize.sectionName = ".hip_fatbin";
  resize.moves.push_back({(*found)->fatbinStart, 0});
  OutputPlan contents;
  contents.addZeros(64);
  auto plan = planLinkedSectionResize(input, resize, std::move(contents));
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().message,
            "program header 0 overlaps .hip_fatbin in a way that cannot be "
            "rewritten");
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
