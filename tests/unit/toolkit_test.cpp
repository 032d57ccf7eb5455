// The offbundle tool's target selection: the three forms of --target and
// the entries each selects.
#include <gtest/gtest.h>

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
