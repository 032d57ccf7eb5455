// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bundle entry IDs: parsing, the spelling written into bundles, the
// compatibility rules used when unbundling, and the AMDGPU spellings of LLVM
// after version 22 read in LLVM 22's. Expected spellings are the ones
// LLVM 22's bundler writes (see tests/differential/corpus.txt for the same
// cases run against it).
#include "targets/amdgpu_spellings.h"
#include "targets/offload_arch.h"
#include "targets/offload_target.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <set>
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

namespace offbundle {
namespace {

// Processors LLVM main names by a sub-architecture that LLVM 22's processor
// table (targets/offload_arch.cpp, as llc-22 -mcpu=help lists it) does not
// hold yet.
const std::set<std::string> kProcessorsAfterLlvm22 = {
    "gfx1154", "gfx1170", "gfx1171", "gfx1172", "gfx1310"};

TEST(AmdgpuSpellings, EverySubArchOfAProcessorNamesAKnownProcessor) {
  // Every major, minor and stepping LLVM main's table can hold, written as
  // "amdgpu<major>.<minor><stepping>": the ones that name a processor name
  // the processor "gfx<major><minor><stepping>", which LLVM 22 knows unless
  // it came later.
  const std::string steppings = "0123456789abcdef";
  size_t named = 0;
  for (int major = 6; major <= 13; ++major)
    for (char minor : steppings)
      for (char stepping : steppings) {
        const std::string digits = {minor, stepping};
        const std::string arch =
            "amdgpu" + std::to_string(major) + "." + digits;
        std::optional<std::string> processor = processorOfAmdgpuArch(arch);
        if (!processor)
          continue;
        ++named;
        EXPECT_EQ(*processor, "gfx" + std::to_string(major) + digits);
        EXPECT_TRUE(isKnownOffloadArch(*processor) ||
                    kProcessorsAfterLlvm22.count(*processor))
            << arch << " names " << *processor;
      }
  // LLVM main's parseSubArch: 52 sub-architectures name a processor.
  EXPECT_EQ(named, 52u);
  EXPECT_EQ(processorOfAmdgpuArch("amdgpu9.0a"), "gfx90a");
  EXPECT_EQ(processorOfAmdgpuArch("amdgpu9.50"), "gfx950");
  EXPECT_EQ(processorOfAmdgpuArch("amdgpu10.30"), "gfx1030");
}

TEST(AmdgpuSpellings, FamiliesAndOtherNamesNameNoProcessor) {
  for (const char *arch :
       {"amdgpu", "amdgpu9", "amdgpu9.4", "amdgpu9.5", "amdgpu10", "amdgpu10.1",
        "amdgpu10.3", "amdgpu11", "amdgpu11.7", "amdgpu12", "amdgpu12.5",
        "amdgpu13", "amdgpu9.0b", "amdgpu9.00x", "amdgcn", "gfx90a", "r600",
        ""})
    EXPECT_FALSE(processorOfAmdgpuArch(arch)) << arch;
  EXPECT_TRUE(isAmdgpuArchName("amdgcn"));
  EXPECT_TRUE(isAmdgpuArchName("amdgpu"));
  EXPECT_TRUE(isAmdgpuArchName("amdgpu12.5"));
  EXPECT_FALSE(isAmdgpuArchName("r600"));
  EXPECT_FALSE(isAmdgpuArchName("nvptx64"));
}

TEST(AmdgpuSpellings, EntryIdsReadInLlvm22Spelling) {
  struct Case {
    const char *id;
    const char *llvm22;
  };
  for (const Case &c : std::initializer_list<Case>{
           {"hip-amdgcn-amd-amdhsa-unknown-gfx90a",
            "hip-amdgcn-amd-amdhsa--gfx90a"},
           {"hip-amdgpu9.0a-amd-amdhsa-unknown-gfx90a:xnack+",
            "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"},
           {"hip-amdgpu9.06-amd-amdhsa-unknown",
            "hip-amdgcn-amd-amdhsa--gfx906"},
           {"hip-amdgpu9.06-amd-amdhsa", "hip-amdgcn-amd-amdhsa--gfx906"},
           {"openmp-amdgpu-amd-amdhsa--gfx1100",
            "openmp-amdgcn-amd-amdhsa--gfx1100"},
           {"hip-amdgpu10.3-amd-amdhsa-", "hip-amdgcn-amd-amdhsa-"},
           // The target ID wins over the sub-architecture's processor.
           {"hip-amdgpu9.00-amd-amdhsa--gfx906",
            "hip-amdgcn-amd-amdhsa--gfx906"},
           {"hip-amdgpu9.00-amd-amdhsa-unknown-gfx10-3-generic",
            "hip-amdgcn-amd-amdhsa--gfx10-3-generic"},
           // Already LLVM 22's, or not AMDGPU: as given.
           {"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
           {"hip-amdgcn-amd-amdhsa-gnu-gfx906",
            "hip-amdgcn-amd-amdhsa-gnu-gfx906"},
           {"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu"},
           {"openmp-nvptx64-nvidia-cuda-unknown-sm_80",
            "openmp-nvptx64-nvidia-cuda-unknown-sm_80"},
           {"hip-amdgpu9.0a", "hip-amdgpu9.0a"},
           {"", ""}})
    EXPECT_EQ(llvm22EntryId(c.id), c.llvm22) << c.id;
}

} // namespace
} // namespace offbundle
