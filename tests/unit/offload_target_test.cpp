// Bundle entry IDs: parsing, the spelling written into bundles, and the
// compatibility rules used when unbundling. Expected spellings are the ones
// LLVM 22's bundler writes (see tests/differential/corpus.txt for the same
// cases run against it).
#include "bundler/offload_target.h"

#include <gtest/gtest.h>

#include <ostream>

namespace offbundle {
namespace {

TEST(BundleIdShape, NeedsFiveOrSixDashSeparatedParts) {
  EXPECT_TRUE(isWellFormedBundleId("host-x86_64-unknown-linux-gnu"));
  EXPECT_TRUE(isWellFormedBundleId("hip-amdgcn-amd-amdhsa--gfx906"));
  EXPECT_TRUE(isWellFormedBundleId("hip-amdgcn-amd-amdhsa-gfx906"));
  // The sixth part keeps any further dashes.
  EXPECT_TRUE(isWellFormedBundleId("hip-amdgcn-amd-amdhsa--gfx11-generic"));
  EXPECT_FALSE(isWellFormedBundleId("hip-amdgcn-amd-amdhsa"));
  EXPECT_FALSE(isWellFormedBundleId(""));
  EXPECT_FALSE(isWellFormedBundleId("host-x86_64"));
}

struct Spelling {
  const char *given;
  const char *written;
};

void PrintTo(const Spelling &spelling, std::ostream *out) {
  *out << spelling.given;
}

class WrittenSpelling : public ::testing::TestWithParam<Spelling> {};

TEST_P(WrittenSpelling, MatchesWhatLlvmWrites) {
  EXPECT_EQ(OffloadTarget::parse(GetParam().given).str(), GetParam().written);
}

INSTANTIATE_TEST_SUITE_P(
    Quirks, WrittenSpelling,
    ::testing::Values(
        // A host entry gets an empty target ID, hence the trailing dash.
        Spelling{"host-x86_64-unknown-linux-gnu",
                 "host-x86_64-unknown-linux-gnu-"},
        // AMDHSA triples are written with an empty environment.
        Spelling{"hip-amdgcn-amd-amdhsa-unknown-gfx906",
                 "hip-amdgcn-amd-amdhsa--gfx906"},
        Spelling{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                 "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"},
        // Three-field triples read the processor as the environment.
        Spelling{"hip-amdgcn-amd-amdhsa-gfx906", "hip-amdgcn-amd-amdhsa--"},
        // Processors LLVM 22.1 does not know are dropped.
        Spelling{"hip-amdgcn-amd-amdhsa--gfx940", "hip-amdgcn-amd-amdhsa--"},
        Spelling{"hip-amdgcn-amd-amdhsa--gfx11-generic",
                 "hip-amdgcn-amd-amdhsa--gfx11-generic"},
        // Other triples are written in four-part form.
        Spelling{"openmp-nvptx64-nvidia-cuda--sm_90a",
                 "openmp-nvptx64-nvidia-cuda-unknown-sm_90a"}));

TEST(OffloadKinds, ValidKindsAreHostOpenmpHipHipv4) {
  EXPECT_TRUE(OffloadTarget::parse("host-x86_64-unknown-linux-gnu")
                  .isOffloadKindValid());
  EXPECT_TRUE(OffloadTarget::parse("hipv4-amdgcn-amd-amdhsa--gfx906")
                  .isOffloadKindValid());
  EXPECT_FALSE(OffloadTarget::parse("cuda-nvptx64-nvidia-cuda--sm_70")
                   .isOffloadKindValid());
  EXPECT_FALSE(OffloadTarget::parse("Host-x86_64-unknown-linux-gnu")
                   .isOffloadKindValid());
}

TEST(OffloadKinds, UnknownArchMakesTripleInvalid) {
  EXPECT_FALSE(
      OffloadTarget::parse("hip-blah-amd-amdhsa--gfx906").isTripleValid());
  EXPECT_TRUE(
      OffloadTarget::parse("hip-amdgcn-amd-amdhsa--gfx906").isTripleValid());
}

struct Compatibility {
  const char *codeObject;
  const char *target;
  bool hipOpenmpCompatible;
  bool compatible;
};

void PrintTo(const Compatibility &c, std::ostream *out) {
  *out << c.codeObject << " for " << c.target;
}

class CodeObjectCompatibility : public ::testing::TestWithParam<Compatibility> {
};

TEST_P(CodeObjectCompatibility, FollowsTheManualsRules) {
  const Compatibility &c = GetParam();
  EXPECT_EQ(isCodeObjectCompatible(OffloadTarget::parse(c.codeObject),
                                   OffloadTarget::parse(c.target),
                                   c.hipOpenmpCompatible),
            c.compatible)
      << c.codeObject << " for " << c.target;
}

INSTANTIATE_TEST_SUITE_P(
    Rules, CodeObjectCompatibility,
    ::testing::Values(
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx906",
                      "hip-amdgcn-amd-amdhsa--gfx906", false, true},
        // hip and hipv4 are the same runtime.
        Compatibility{"hipv4-amdgcn-amd-amdhsa--gfx906",
                      "hip-amdgcn-amd-amdhsa--gfx906", false, true},
        // openmp only with --hip-openmp-compatible.
        Compatibility{"openmp-amdgcn-amd-amdhsa--gfx906",
                      "hip-amdgcn-amd-amdhsa--gfx906", false, false},
        Compatibility{"openmp-amdgcn-amd-amdhsa--gfx906",
                      "hip-amdgcn-amd-amdhsa--gfx906", true, true},
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx906",
                      "openmp-amdgcn-amd-amdhsa--gfx906", true, true},
        // Any in the code object serves On and Off targets.
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx90a",
                      "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", false, true},
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                      "hip-amdgcn-amd-amdhsa--gfx90a", false, false},
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                      "hip-amdgcn-amd-amdhsa--gfx90a:xnack-", false, false},
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                      "hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+", false,
                      true},
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
                      "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", false, false},
        // Different processors never match.
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx906",
                      "hip-amdgcn-amd-amdhsa--gfx908", false, false},
        // Triples compare by parsed fields: "unknown" env equals empty.
        Compatibility{"hip-amdgcn-amd-amdhsa--gfx906",
                      "hip-amdgcn-amd-amdhsa-unknown-gfx906", false, true},
        Compatibility{"host-x86_64-unknown-linux-gnu-",
                      "host-x86_64-pc-linux-gnu", false, false},
        Compatibility{"host-x86_64-unknown-linux-gnu-",
                      "host-x86_64-unknown-linux-gnu", false, true}));

} // namespace
} // namespace offbundle
