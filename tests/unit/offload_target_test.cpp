// Bundle entry IDs: parsing, the spelling written into bundles, and the
// compatibility rules used when unbundling. Expected spellings are the ones
// LLVM 22's bundler writes (see tests/differential/corpus.txt for the same
// cases run against it).
#include "targets/offload_target.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>

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

struct StoredId {
  const char *stored;
  const char *normalized; // nullptr: refused
};

void PrintTo(const StoredId &id, std::ostream *out) { *out << id.stored; }

class StoredIdNormalization : public ::testing::TestWithParam<StoredId> {};

TEST_P(StoredIdNormalization, ReadsTheIdsEarlierReleasesWrote) {
  std::optional<std::string> normalized =
      normalizeStoredBundleId(GetParam().stored);
  if (GetParam().normalized == nullptr)
    EXPECT_FALSE(normalized.has_value()) << *normalized;
  else
    EXPECT_EQ(normalized.value_or("<refused>"), GetParam().normalized);
}

INSTANTIATE_TEST_SUITE_P(
    Releases, StoredIdNormalization,
    ::testing::Values(
        // IDs LLVM 22 reads are kept as they are, unnormalised.
        StoredId{"host-x86_64-unknown-linux-gnu",
                 "host-x86_64-unknown-linux-gnu"},
        StoredId{"hip-amdgcn-amd-amdhsa-unknown-gfx906",
                 "hip-amdgcn-amd-amdhsa-unknown-gfx906"},
        StoredId{"hip-amdgcn-amd-amdhsa-gfx906",
                 "hip-amdgcn-amd-amdhsa-gfx906"},
        // ROCm 5's host entry: a three-field triple, padded to four.
        StoredId{"host-x86_64-unknown-linux",
                 "host-x86_64-unknown-linux-unknown"},
        // Normalising also puts recognised components in their places.
        StoredId{"host-x86_64-linux-gnu", "host-x86_64-unknown-linux-gnu"},
        // AMDHSA triples take the empty environment the bundler writes.
        StoredId{"hipv4-amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa-"},
        // Fewer fields than three are still refused, as by LLVM 22.
        StoredId{"host-x86_64-unknown", nullptr}, StoredId{"host", nullptr},
        StoredId{"", nullptr},
        // A triple LLVM cannot normalise at all.
        StoredId{"host-dxil-pc-shadermodel6.10", nullptr}));

TEST(StoredIdParsing, ThreeFieldHostIdParsesAsItsFourFieldForm) {
  std::optional<OffloadTarget> stored =
      OffloadTarget::parseStored("host-x86_64-unknown-linux");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->offloadKind, "host");
  EXPECT_EQ(stored->triple.str(), "x86_64-unknown-linux-unknown");
  EXPECT_EQ(stored->targetId, "");
  EXPECT_TRUE(stored->hasHostKind());
  EXPECT_TRUE(stored->isTripleValid());
  EXPECT_EQ(stored->str(), "host-x86_64-unknown-linux-unknown-");
  EXPECT_FALSE(OffloadTarget::parseStored("host-x86_64").has_value());
}

struct StoredCompatibility {
  const char *stored;
  const char *target;
  bool compatible;
};

void PrintTo(const StoredCompatibility &c, std::ostream *out) {
  *out << c.stored << " for " << c.target;
}

class StoredIdCompatibility
    : public ::testing::TestWithParam<StoredCompatibility> {};

TEST_P(StoredIdCompatibility, MatchesByTheNormalisedForm) {
  const StoredCompatibility &c = GetParam();
  std::optional<OffloadTarget> stored = OffloadTarget::parseStored(c.stored);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(isCodeObjectCompatible(*stored, OffloadTarget::parse(c.target),
                                   /*hipOpenmpCompatible=*/false),
            c.compatible);
}

INSTANTIATE_TEST_SUITE_P(
    Rocm5, StoredIdCompatibility,
    ::testing::Values(
        // The empty and the "unknown" environment are one environment.
        StoredCompatibility{"host-x86_64-unknown-linux",
                            "host-x86_64-unknown-linux-unknown", true},
        StoredCompatibility{"host-x86_64-unknown-linux",
                            "host-x86_64-unknown-linux-", true},
        // A named environment is another triple.
        StoredCompatibility{"host-x86_64-unknown-linux",
                            "host-x86_64-unknown-linux-gnu", false},
        StoredCompatibility{"host-x86_64-unknown-linux",
                            "hipv4-x86_64-unknown-linux-", false},
        StoredCompatibility{"hipv4-amdgcn-amd-amdhsa",
                            "hipv4-amdgcn-amd-amdhsa--", true},
        // No target ID fits only a target without one.
        StoredCompatibility{"hipv4-amdgcn-amd-amdhsa",
                            "hip-amdgcn-amd-amdhsa--gfx90a", false}));

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
