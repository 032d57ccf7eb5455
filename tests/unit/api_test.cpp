// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The public API (include/offbundle/offbundle.h) on the sample of
// tests/data/sample: bundling into binary, compressed and text bundles,
// walking what Input::open finds, reading payloads, unbundling by the
// compatibility rules, listing, and the errors the tool gives.
#include <offbundle/offbundle.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "test_files.h"

namespace offbundle::api {
namespace {

namespace fs = std::filesystem;
using test_files::dataDirectory;
using test_files::readFile;

const std::vector<std::string> kTargets = {
    "host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx906",
    "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx1100"};
const std::vector<std::string> kSampleFiles = {"host.bin", "device-gfx906.bin",
                                               "device-gfx90a_xnack+.bin",
                                               "device-gfx1100.bin"};

BundleOptions bitcodeBundle() {
  BundleOptions options;
  options.type = "bc";
  return options;
}

class PublicApi : public ::testing::Test {
protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("offbundle-api-" + std::to_string(getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(folder_);
    for (const std::string &name : kSampleFiles)
      inputs_.push_back((dataDirectory("sample") / name).string());
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string path(const std::string &name) const {
    return (folder_ / name).string();
  }

  // The sample bundled with these options; the output's path.
  std::string bundleSample(BundleOptions options, const std::string &name) {
    options.targets = kTargets;
    options.inputs = inputs_;
    options.output = path(name);
    Outcome done = bundle(options);
    EXPECT_TRUE(done.ok()) << (done.ok() ? "" : done.error().message);
    return options.output;
  }

  fs::path folder_;
  std::vector<std::string> inputs_;
};

TEST_F(PublicApi, WalksABinaryBundleAndReadsEveryPayload) {
  BundleOptions options;
  options.type = "bc";
  options.alignment = 4096;
  std::string file = bundleSample(options, "sample.bundle");
  Expected<Input> input = Input::open(file, "bc");
  ASSERT_TRUE(input.ok()) << input.error().message;
  ASSERT_EQ(input->bundles().size(), 1u);
  const Bundle &found = input->bundles()[0];
  EXPECT_EQ(found.format, ContainerFormat::BinaryBundle);
  EXPECT_FALSE(found.compression);
  EXPECT_EQ(found.fileOffset, uint64_t{0});
  ASSERT_EQ(found.entries.size(), kTargets.size());
  const std::string bytes = readFile(file);
  for (size_t index = 0; index < kTargets.size(); ++index) {
    const Entry &entry = found.entries[index];
    // The bundler writes the host triple with its empty fifth field.
    EXPECT_EQ(entry.id.substr(0, kTargets[index].size()), kTargets[index]);
    const std::string expected = readFile(inputs_[index]);
    EXPECT_EQ(entry.size, expected.size());
    ASSERT_TRUE(entry.fileOffset);
    EXPECT_EQ(bytes.substr(*entry.fileOffset, entry.size), expected);
    EXPECT_EQ(*entry.fileOffset % 4096, 0u);
    Expected<std::string> payload = input->payload(0, index);
    ASSERT_TRUE(payload.ok()) << payload.error().message;
    EXPECT_EQ(*payload, expected);
  }
  ASSERT_TRUE(found.entries[2].target);
  EXPECT_EQ(found.entries[2].target->offloadKind, "hip");
  EXPECT_EQ(found.entries[2].target->triple, "amdgcn-amd-amdhsa-");
  EXPECT_EQ(found.entries[2].target->targetId, "gfx90a:xnack+");
}

TEST_F(PublicApi, CompressedBundlesReportTheirHeaderAndDecompress) {
  BundleOptions options;
  options.type = "o";
  options.compress = true;
  options.compressedFormatVersion = 2;
  std::string file = bundleSample(options, "sample.ccob");
  Expected<Input> input = Input::open(file);
  ASSERT_TRUE(input.ok()) << input.error().message;
  ASSERT_EQ(input->bundles().size(), 1u);
  const Bundle &found = input->bundles()[0];
  ASSERT_TRUE(found.compression);
  EXPECT_EQ(found.compression->version, 2);
  EXPECT_EQ(found.compression->method, "zstd");
  EXPECT_EQ(found.compression->totalSize, fs::file_size(file));
  uint64_t payloads = 0;
  for (size_t index = 0; index < found.entries.size(); ++index) {
    EXPECT_FALSE(found.entries[index].fileOffset);
    payloads += found.entries[index].size;
    Expected<std::string> payload = input->payload(0, index);
    ASSERT_TRUE(payload.ok()) << payload.error().message;
    EXPECT_EQ(*payload, readFile(inputs_[index]));
  }
  EXPECT_GT(found.compression->uncompressedSize, payloads);

  // One pass over the bundle gives every payload in file order, and stops
  // when asked.
  std::vector<std::string> visited;
  Outcome walked =
      input->forEachPayload(0, [&](size_t entry, std::string_view bytes) {
        EXPECT_EQ(entry, visited.size());
        visited.emplace_back(bytes);
        return true;
      });
  ASSERT_TRUE(walked.ok()) << walked.error().message;
  ASSERT_EQ(visited.size(), found.entries.size());
  for (size_t index = 0; index < visited.size(); ++index)
    EXPECT_EQ(visited[index], readFile(inputs_[index]));
  size_t calls = 0;
  walked = input->forEachPayload(0, [&](size_t, std::string_view) {
    ++calls;
    return false;
  });
  EXPECT_TRUE(walked.ok());
  EXPECT_EQ(calls, 1u);
  EXPECT_FALSE(
      input->forEachPayload(1, [](size_t, std::string_view) { return true; })
          .ok());
}

// Opening reads a compressed bundle only as far as its header: entries are
// listed from it even when the hash, or the data past the header, is
// damaged, which only reading payloads, or checkCompressedBundles, finds.
TEST_F(PublicApi, CompressedBundlesOpenByTheirHeaders) {
  // Payloads far larger than the first piece decompressed for the header,
  // and incompressible, so that a damaged byte near the end lies in them.
  std::vector<std::string> payloads;
  uint64_t state = 12345;
  BundleOptions options;
  options.type = "o";
  options.compress = true;
  options.compressedFormatVersion = 3;
  options.targets = kTargets;
  for (size_t index = 0; index < kTargets.size(); ++index) {
    std::string bytes(1 << 20, '\0');
    for (char &byte : bytes) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      byte = static_cast<char>(state >> 56);
    }
    const std::string input = path("payload" + std::to_string(index));
    std::ofstream(input, std::ios::binary) << bytes;
    options.inputs.push_back(input);
    payloads.push_back(std::move(bytes));
  }
  options.output = path("large.ccob");
  ASSERT_TRUE(bundle(options).ok());
  const std::string sound = readFile(options.output);
  Expected<Input> soundInput = Input::open(options.output);
  ASSERT_TRUE(soundInput.ok()) << soundInput.error().message;
  ASSERT_EQ(soundInput->bundles().size(), 1u);
  const std::vector<Entry> &expected = soundInput->bundles()[0].entries;
  ASSERT_EQ(expected.size(), kTargets.size());

  // Each damage in a copy of its own: the stored hash, and a byte near the
  // end of the compressed data (in the last payload).
  constexpr size_t kHashOffset = 24;
  for (size_t damagedAt : {kHashOffset, sound.size() - 1000}) {
    std::string damaged = sound;
    damaged[damagedAt] = static_cast<char>(damaged[damagedAt] ^ 0x40);
    const std::string file = path("damaged.ccob");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged;
    Expected<Input> input = Input::open(file);
    ASSERT_TRUE(input.ok()) << damagedAt << ": " << input.error().message;
    ASSERT_EQ(input->bundles().size(), 1u);
    const Bundle &found = input->bundles()[0];
    ASSERT_EQ(found.entries.size(), expected.size());
    for (size_t index = 0; index < expected.size(); ++index) {
      EXPECT_EQ(found.entries[index].id, expected[index].id);
      EXPECT_EQ(found.entries[index].offset, expected[index].offset);
      EXPECT_EQ(found.entries[index].size, payloads[index].size());
    }
    Outcome checked = input->checkCompressedBundles();
    ASSERT_FALSE(checked.ok()) << damagedAt;
    EXPECT_EQ(checked.error().code, ErrorCode::DamagedInput)
        << checked.error().message;
    Expected<std::string> payload = input->payload(0, 0);
    ASSERT_FALSE(payload.ok()) << damagedAt;
    EXPECT_EQ(payload.error().code, ErrorCode::DamagedInput)
        << payload.error().message;
    Outcome walked =
        input->forEachPayload(0, [](size_t, std::string_view) { return true; });
    ASSERT_FALSE(walked.ok());
    EXPECT_EQ(walked.error().code, ErrorCode::DamagedInput)
        << walked.error().message;
  }

  // The sound bundle passes, and its payloads decompress whole.
  EXPECT_TRUE(soundInput->checkCompressedBundles().ok());
  for (size_t index = 0; index < kTargets.size(); ++index) {
    Expected<std::string> payload = soundInput->payload(0, index);
    ASSERT_TRUE(payload.ok()) << payload.error().message;
    EXPECT_TRUE(*payload == payloads[index]) << index;
  }
}

TEST_F(PublicApi, TextBundlesAreReadByTheirType) {
  BundleOptions options;
  options.type = "ll";
  std::string file = bundleSample(options, "sample.ll");
  Expected<Input> input = Input::open(file, "ll");
  ASSERT_TRUE(input.ok()) << input.error().message;
  ASSERT_EQ(input->bundles().size(), 1u);
  EXPECT_EQ(input->bundles()[0].format, ContainerFormat::TextBundle);
  ASSERT_EQ(input->bundles()[0].entries.size(), kTargets.size());
  Expected<std::string> payload = input->payload(0, 1);
  ASSERT_TRUE(payload.ok()) << payload.error().message;
  EXPECT_EQ(*payload, readFile(inputs_[1]));
}

TEST_F(PublicApi, ListsAsTheToolAndUnbundlesCompatibleTargets) {
  std::string file = bundleSample(bitcodeBundle(), "s.bc");
  Expected<std::vector<std::string>> ids = listEntryIds(file, "bc");
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  std::vector<std::string> sortedIds = *ids;
  std::sort(sortedIds.begin(), sortedIds.end());
  EXPECT_EQ(sortedIds,
            (std::vector<std::string>{"hip-amdgcn-amd-amdhsa--gfx1100",
                                      "hip-amdgcn-amd-amdhsa--gfx906",
                                      "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                                      "host-x86_64-unknown-linux-gnu-"}));

  // gfx90a with both features on is served by the xnack+ image.
  UnbundleOptions options;
  options.type = "bc";
  options.input = file;
  options.targets = {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+"};
  options.outputs = {path("picked.bin")};
  Outcome done = unbundle(options);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(readFile(path("picked.bin")), readFile(inputs_[2]));

  // xnack- cannot use it.
  options.targets = {"hip-amdgcn-amd-amdhsa--gfx90a:xnack-"};
  options.outputs = {path("none.bin")};
  done = unbundle(options);
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().code, ErrorCode::NoSuchTarget) << done.error().message;
  EXPECT_FALSE(fs::exists(path("none.bin")));
}

// Each failure carries its kind, which a program acts on without reading
// the message.
TEST_F(PublicApi, ErrorsCarryTheirCode) {
  auto codeOf = [](const auto &failed) {
    EXPECT_FALSE(failed.ok());
    return failed.ok() ? ErrorCode::Other : failed.error().code;
  };
  // Unbundles one target of `input` into the file `output` of the folder.
  auto unbundleOne = [&](const std::string &type, const std::string &input,
                         const std::string &target, const std::string &output) {
    UnbundleOptions options;
    options.type = type;
    options.input = input;
    options.targets = {target};
    options.outputs = {path(output)};
    return unbundle(options);
  };
  EXPECT_EQ(codeOf(Input::open(path("missing.o"))), ErrorCode::NotFound);
  // A -type the bundler does not know is refused as it refuses it.
  EXPECT_EQ(codeOf(Input::open(inputs_[0], "zz")), ErrorCode::InvalidArgument);
  // A device is refused at once, not read until memory runs out.
  EXPECT_EQ(codeOf(Input::open("/dev/zero")), ErrorCode::Unsupported);
  RewriteOptions compress;
  compress.kind = RewriteKind::Compress;
  EXPECT_EQ(codeOf(Rewrite::plan("/dev/zero", compress)),
            ErrorCode::Unsupported);
  ExtractOptions fromDevice;
  fromDevice.input = "/dev/zero";
  fromDevice.outputDirectory = path("from-device");
  EXPECT_EQ(codeOf(extract(fromDevice)), ErrorCode::Unsupported);
  EXPECT_FALSE(fs::exists(path("from-device")));
  // A level zstd does not have is refused, not taken as the nearest.
  compress.compressionLevel = 23;
  EXPECT_EQ(codeOf(Rewrite::check(compress)), ErrorCode::InvalidArgument);
  compress.compressionLevel = 22;
  EXPECT_TRUE(Rewrite::check(compress).ok());
  UnpackKpackOptions unpacking;
  unpacking.compress = true;
  unpacking.compressionLevel = 23;
  EXPECT_EQ(codeOf(unpackKpack(inputs_[0], path("unpacked"), unpacking)),
            ErrorCode::InvalidArgument);
  EXPECT_FALSE(fs::exists(path("unpacked")));
  // As the tool's, bundle and unbundle need targets.
  BundleOptions noTargets;
  noTargets.type = "bc";
  noTargets.output = path("none.bundle");
  EXPECT_EQ(codeOf(bundle(noTargets)), ErrorCode::InvalidArgument);
  EXPECT_FALSE(fs::exists(path("none.bundle")));

  BundleOptions twice;
  twice.type = "bc";
  twice.targets = {kTargets[0], kTargets[0]};
  twice.inputs = {inputs_[0], inputs_[0]};
  twice.output = path("twice.bc");
  EXPECT_EQ(codeOf(bundle(twice)), ErrorCode::InvalidArgument);
  EXPECT_FALSE(fs::exists(path("twice.bc")));

  UnbundleOptions uneven;
  uneven.type = "bc";
  uneven.input = inputs_[0];
  uneven.targets = {kTargets[1]};
  EXPECT_EQ(codeOf(unbundle(uneven)), ErrorCode::InvalidArgument);

  std::string file = bundleSample(bitcodeBundle(), "s.bc");
  Expected<Input> input = Input::open(file, "bc");
  ASSERT_TRUE(input.ok());
  EXPECT_EQ(codeOf(input->payload(0, kTargets.size())),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf(input->payload(1, 0)), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf(parseEntryId("not an entry id")),
            ErrorCode::InvalidArgument);

  // A damaged archive.
  const std::string archive = path("damaged.a");
  std::ofstream(archive, std::ios::binary)
      << "!<arch>\nm.bin/          0           0     0     644     12a       "
         "`\nxxxxxxxxxxxx";
  EXPECT_EQ(codeOf(Input::open(archive)), ErrorCode::DamagedInput);
  // A damaged bundle: its header claims an entry past its end.
  std::string truncated = readFile(file);
  truncated.resize(truncated.size() / 2);
  const std::string half = path("half.bundle");
  std::ofstream(half, std::ios::binary) << truncated;
  EXPECT_EQ(codeOf(Input::open(half, "bc")), ErrorCode::DamagedInput);
  EXPECT_EQ(codeOf(unbundleOne("bc", half, kTargets[1], "from-half.bin")),
            ErrorCode::DamagedInput);
  EXPECT_FALSE(fs::exists(path("from-half.bin")));
  // An input the bundler does not read: an AIX big archive, unbundled as
  // an archive.
  const std::string big = path("big.a");
  std::ofstream(big, std::ios::binary) << "<bigaf>\n" << std::string(120, '0');
  EXPECT_EQ(codeOf(unbundleOne("a", big, kTargets[1], "from-big.a")),
            ErrorCode::Unsupported);
  EXPECT_FALSE(fs::exists(path("from-big.a")));

  // A target the bundle lacks.
  EXPECT_EQ(codeOf(unbundleOne("bc", file, "hip-amdgcn-amd-amdhsa--gfx1201",
                               "absent.bin")),
            ErrorCode::NoSuchTarget);
  EXPECT_FALSE(fs::exists(path("absent.bin")));
  // A file without any bundle, extracted from.
  EXPECT_EQ(codeOf(extract({inputs_[0], path("from-plain"), {}})),
            ErrorCode::NoSuchTarget);
}

// What `call` returns, called by a user other than root: in a child
// process that runs as nobody when the tests run as root.
ErrorCode asNonRoot(const std::function<ErrorCode()> &call) {
  if (::geteuid() != 0)
    return call();
  const pid_t child = ::fork();
  if (child == 0) {
    constexpr uid_t kNobody = 65534;
    if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)
      ::_exit(255);
    ::_exit(static_cast<int>(call()));
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child ||
      !WIFEXITED(status) || WEXITSTATUS(status) == 255)
    return ErrorCode::Other;
  return static_cast<ErrorCode>(WEXITSTATUS(status));
}

// The kinds of failures of the file system, each made to happen.
TEST_F(PublicApi, FileSystemFailuresCarryTheirErrno) {
  const std::string file = bundleSample(bitcodeBundle(), "s.bc");
  UnbundleOptions options;
  options.type = "bc";
  options.input = file;
  options.targets = {kTargets[1]};

  // An output in a folder that does not exist.
  options.outputs = {path("no-such-folder/out.bin")};
  Outcome missingFolder = unbundle(options);
  ASSERT_FALSE(missingFolder.ok());
  EXPECT_EQ(missingFolder.error().code, ErrorCode::NotFound)
      << missingFolder.error().message;

  // An input its owner may not read, and an output in a folder its owner
  // may not write. Root may do either, so as root the calls are made by a
  // child that runs as nobody.
  const std::string locked = path("locked.bc");
  fs::copy_file(file, locked);
  ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
  EXPECT_EQ(asNonRoot([&] {
              Expected<Input> unreadable = Input::open(locked, "bc");
              return unreadable.ok() ? ErrorCode::Other
                                     : unreadable.error().code;
            }),
            ErrorCode::Permission);
  const std::string closed = path("closed");
  fs::create_directory(closed);
  ASSERT_EQ(::chmod(closed.c_str(), 0555), 0);
  options.outputs = {closed + "/out.bin"};
  EXPECT_EQ(asNonRoot([&] {
              Outcome unwritable = unbundle(options);
              return unwritable.ok() ? ErrorCode::Other
                                     : unwritable.error().code;
            }),
            ErrorCode::Permission);
  ::chmod(closed.c_str(), 0700);

  // A full disk: /dev/full takes no byte. Written in place (the output
  // named is a character device, which the tool writes through).
  if (fs::exists("/dev/full")) {
    options.outputs = {"/dev/full"};
    Outcome full = unbundle(options);
    ASSERT_FALSE(full.ok());
    EXPECT_EQ(full.error().code, ErrorCode::OutOfSpace) << full.error().message;
  }
}

// The entry IDs of the one bundle in `file`, in file order.
std::vector<std::string> idsIn(const std::string &file) {
  Expected<Input> input = Input::open(file);
  EXPECT_TRUE(input.ok()) << (input.ok() ? "" : input.error().message);
  std::vector<std::string> ids;
  if (input.ok() && input->bundles().size() == 1)
    for (const Entry &entry : input->bundles()[0].entries)
      ids.push_back(entry.id);
  return ids;
}

TEST_F(PublicApi, PruneIsPlannedThenWrittenAsReported) {
  BundleOptions options;
  options.type = "o";
  const std::string file = bundleSample(options, "sample.bundle");
  RewriteOptions prune;
  prune.kind = RewriteKind::Prune;
  prune.keep = {"gfx906,gfx1100"};
  Expected<Rewrite> rewrite = Rewrite::plan(file, prune);
  ASSERT_TRUE(rewrite.ok()) << rewrite.error().message;
  const RewriteReport &report = rewrite->report();
  EXPECT_EQ(report.inputSize, fs::file_size(file));
  EXPECT_EQ(report.entriesKept, 3u); // the host entry stays
  EXPECT_EQ(report.deviceEntriesKept, 2u);
  EXPECT_EQ(report.entriesRemoved, 1u);
  EXPECT_TRUE(report.changed);
  EXPECT_TRUE(report.nothingToDo.empty());
  // Planning writes nothing; the output then has the size reported.
  const std::string output = path("pruned.bundle");
  EXPECT_FALSE(fs::exists(output));
  Outcome written = rewrite->write(output);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(fs::file_size(output), report.outputSize);
  EXPECT_LT(report.outputSize, report.inputSize);
  std::vector<std::string> kept = idsIn(output);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[1], kTargets[1]);
  EXPECT_EQ(kept[2], kTargets[3]);
  // The kept payloads are the ones bundled.
  Expected<Input> input = Input::open(output);
  ASSERT_TRUE(input.ok()) << input.error().message;
  Expected<std::string> payload = input->payload(0, 2);
  ASSERT_TRUE(payload.ok()) << payload.error().message;
  EXPECT_EQ(*payload, readFile(inputs_[3]));
}

TEST_F(PublicApi, CompressAndDecompressRoundTrip) {
  BundleOptions options;
  options.type = "o";
  const std::string file = bundleSample(options, "sample.bundle");
  RewriteOptions compress;
  compress.kind = RewriteKind::Compress;
  Expected<Rewrite> compressing = Rewrite::plan(file, compress);
  ASSERT_TRUE(compressing.ok()) << compressing.error().message;
  EXPECT_TRUE(compressing->report().changed);
  const std::string compressed = path("sample.ccob");
  ASSERT_TRUE(compressing->write(compressed).ok());
  Expected<Input> input = Input::open(compressed);
  ASSERT_TRUE(input.ok()) << input.error().message;
  ASSERT_EQ(input->bundles().size(), 1u);
  EXPECT_TRUE(input->bundles()[0].compression);

  // Compressing it again changes nothing, and says so.
  Expected<Rewrite> again = Rewrite::plan(compressed, compress);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->report().changed);
  EXPECT_EQ(again->report().outputSize, again->report().inputSize);

  RewriteOptions decompress;
  decompress.kind = RewriteKind::Decompress;
  Expected<Rewrite> decompressing = Rewrite::plan(compressed, decompress);
  ASSERT_TRUE(decompressing.ok()) << decompressing.error().message;
  const std::string plain = path("plain.bundle");
  ASSERT_TRUE(decompressing->write(plain).ok());
  EXPECT_EQ(readFile(plain), readFile(file));
}

// In place, the file keeps its permissions and extended attributes, and
// its other hard link names the new file; nothing is left beside it.
TEST_F(PublicApi, WriteInPlaceKeepsTheFileItWas) {
  BundleOptions options;
  options.type = "o";
  const std::string file = bundleSample(options, "sample.bundle");
  const std::string link = path("sample-link.bundle");
  ASSERT_EQ(::link(file.c_str(), link.c_str()), 0);
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  const bool attributes =
      ::setxattr(file.c_str(), "user.origin", "api", 3, 0) == 0;
  struct stat before;
  ASSERT_EQ(::stat(file.c_str(), &before), 0);

  RewriteOptions compress;
  compress.kind = RewriteKind::Compress;
  Expected<Rewrite> compressing = Rewrite::plan(file, compress);
  ASSERT_TRUE(compressing.ok()) << compressing.error().message;
  ASSERT_TRUE(compressing->writeInPlace({link}).ok());

  struct stat after;
  struct stat linked;
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  ASSERT_EQ(::stat(link.c_str(), &linked), 0);
  EXPECT_NE(after.st_ino, before.st_ino); // replaced, not overwritten
  EXPECT_EQ(linked.st_ino, after.st_ino);
  EXPECT_EQ(after.st_nlink, 2u);
  EXPECT_EQ(after.st_mode & 07777, 0640u);
  EXPECT_EQ(static_cast<uint64_t>(after.st_size),
            compressing->report().outputSize);
  if (attributes) {
    char value[8] = {};
    EXPECT_EQ(::getxattr(file.c_str(), "user.origin", value, sizeof value), 3);
    EXPECT_EQ(std::string(value), "api");
  }
  Expected<Input> input = Input::open(link);
  ASSERT_TRUE(input.ok()) << input.error().message;
  EXPECT_TRUE(input->bundles().at(0).compression);
  size_t names = 0;
  for ([[maybe_unused]] const auto &entry : fs::directory_iterator(folder_))
    ++names;
  EXPECT_EQ(names, 2u); // no temporary left
}

TEST_F(PublicApi, RewriteErrorsAreValuesAndWriteNothing) {
  BundleOptions options;
  options.type = "o";
  const std::string file = bundleSample(options, "sample.bundle");
  RewriteOptions prune;
  prune.kind = RewriteKind::Prune;
  Expected<Rewrite> nothingKept = Rewrite::plan(file, prune);
  ASSERT_FALSE(nothingKept.ok());
  EXPECT_EQ(nothingKept.error().code, ErrorCode::InvalidArgument)
      << nothingKept.error().message;
  prune.keep = {"hip-gfx906"};
  Expected<Rewrite> badTarget = Rewrite::plan(file, prune);
  ASSERT_FALSE(badTarget.ok());
  EXPECT_EQ(badTarget.error().code, ErrorCode::InvalidArgument)
      << badTarget.error().message;
  // check() gives the same error without a file.
  Outcome checked = Rewrite::check(prune);
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().message, badTarget.error().message);
  EXPECT_EQ(checked.error().code, ErrorCode::InvalidArgument);
  // Host entries are always kept: naming only them keeps no GPU code.
  for (const std::vector<std::string> &hostOnly :
       {std::vector<std::string>{"host"},
        std::vector<std::string>{"host,host-x86_64-unknown-linux-gnu"}}) {
    prune.keep = hostOnly;
    Expected<Rewrite> onlyHost = Rewrite::plan(file, prune);
    ASSERT_FALSE(onlyHost.ok());
    EXPECT_EQ(onlyHost.error().code, ErrorCode::InvalidArgument)
        << onlyHost.error().message;
    EXPECT_FALSE(Rewrite::check(prune).ok());
  }
  prune.keep = {"host", "gfx906"};
  EXPECT_TRUE(Rewrite::check(prune).ok());
  // A target the file lacks: planned, with no device entry kept, which the
  // caller sees before writing anything.
  prune.keep = {"gfx1201"};
  Expected<Rewrite> lacking = Rewrite::plan(file, prune);
  ASSERT_TRUE(lacking.ok()) << lacking.error().message;
  EXPECT_EQ(lacking->report().deviceEntriesKept, 0u);
  EXPECT_EQ(lacking->report().entriesRemoved, 3u);

  RewriteOptions decompress;
  decompress.kind = RewriteKind::Decompress;
  Expected<Rewrite> missing = Rewrite::plan(path("missing.bundle"), decompress);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::NotFound)
      << missing.error().message;

  // An input written to between the plan and the write (or during it):
  // what was read may mix old bytes and new, so nothing is written.
  {
    const std::string changing = path("changing.bundle");
    fs::copy_file(file, changing);
    Expected<Rewrite> planned = Rewrite::plan(changing, decompress);
    ASSERT_TRUE(planned.ok()) << planned.error().message;
    std::fstream(changing, std::ios::in | std::ios::out | std::ios::binary)
        .write("X", 1);
    const std::string out = path("from-changing.bundle");
    Outcome stale = planned->write(out);
    ASSERT_FALSE(stale.ok());
    EXPECT_EQ(stale.error().code, ErrorCode::Io) << stale.error().message;
    EXPECT_FALSE(fs::exists(out));
  }

  // A failed write leaves what was there.
  Expected<Rewrite> rewrite = Rewrite::plan(file, decompress);
  ASSERT_TRUE(rewrite.ok()) << rewrite.error().message;
  const std::string blocked = path("no-such-folder/out.bundle");
  Outcome written = rewrite->write(blocked);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().code, ErrorCode::NotFound)
      << written.error().message;
  EXPECT_FALSE(fs::exists(blocked));
}

// Rewrite::plan refuses, with verify's message, every file Input::open or
// Input::verify refuses, whatever the rewrite: a bundle with bytes after
// it, a compressed bundle whose hash is not its data's.
TEST_F(PublicApi, RewritesRefuseWhatVerifyRefuses) {
  BundleOptions options;
  options.type = "o";
  const std::string plain = readFile(bundleSample(options, "plain.bundle"));
  options.compress = true;
  std::string compressed = readFile(bundleSample(options, "sample.ccob"));
  // Version 3: the hash is the last 8 bytes of the 32-byte header.
  compressed[24] = static_cast<char>(compressed[24] ^ 0xff);
  const std::string stray = path("stray.bundle");
  std::ofstream(stray, std::ios::binary) << plain << "stray bytes";
  const std::string mismatch = path("mismatch.ccob");
  std::ofstream(mismatch, std::ios::binary) << compressed;

  Expected<Input> unread = Input::open(stray);
  ASSERT_FALSE(unread.ok());
  EXPECT_EQ(unread.error().code, ErrorCode::DamagedInput)
      << unread.error().message;
  Expected<Input> opened = Input::open(mismatch);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  Outcome refused = opened->verify();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::DamagedInput)
      << refused.error().message;
  for (RewriteKind kind :
       {RewriteKind::Prune, RewriteKind::Compress, RewriteKind::Decompress}) {
    RewriteOptions rewrite;
    rewrite.kind = kind;
    rewrite.keep = {"gfx906"};
    Expected<Rewrite> fromStray = Rewrite::plan(stray, rewrite);
    ASSERT_FALSE(fromStray.ok());
    EXPECT_EQ(fromStray.error().message, unread.error().message);
    EXPECT_EQ(fromStray.error().code, ErrorCode::DamagedInput);
    Expected<Rewrite> fromMismatch = Rewrite::plan(mismatch, rewrite);
    ASSERT_FALSE(fromMismatch.ok());
    EXPECT_EQ(fromMismatch.error().message, refused.error().message);
    EXPECT_EQ(fromMismatch.error().code, ErrorCode::DamagedInput);
  }
  // Without the hash check, asked for, the rest is checked and the
  // bundle's data taken as it is.
  RewriteOptions unchecked;
  unchecked.kind = RewriteKind::Decompress;
  unchecked.verifyHash = false;
  EXPECT_TRUE(Rewrite::plan(mismatch, unchecked).ok());
  EXPECT_FALSE(Rewrite::plan(stray, unchecked).ok());
}

TEST_F(PublicApi, LinkedFilesAreCheckedAsTheRuntimeFollowsThem) {
  const std::string library = (dataDirectory("linked") / "unit-plain.so");
  Expected<Input> sound = Input::open(library);
  ASSERT_TRUE(sound.ok()) << sound.error().message;
  Outcome checked = sound->checkLinkedFile();
  EXPECT_TRUE(checked.ok()) << checked.error().message;

  // The one HIP fat binary wrapper's magic ("HIPF", little-endian) broken.
  std::string bytes = readFile(library);
  const size_t magic = bytes.find("FPIH");
  ASSERT_NE(magic, std::string::npos);
  ASSERT_EQ(bytes.find("FPIH", magic + 1), std::string::npos);
  bytes[magic] = 'X';
  const std::string damaged = path("damaged.so");
  std::ofstream(damaged, std::ios::binary) << bytes;
  Expected<Input> input = Input::open(damaged);
  ASSERT_TRUE(input.ok()) << input.error().message;
  Outcome refused = input->checkLinkedFile();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::DamagedInput)
      << refused.error().message;

  // Files without wrappers pass.
  BundleOptions options;
  options.type = "o";
  Expected<Input> bundle = Input::open(bundleSample(options, "s.bundle"));
  ASSERT_TRUE(bundle.ok()) << bundle.error().message;
  EXPECT_TRUE(bundle->checkLinkedFile().ok());
}

TEST_F(PublicApi, ExtractsTheEntriesOfTheTargetsNamed) {
  BundleOptions options;
  options.type = "o";
  options.compress = true;
  const std::string file = bundleSample(options, "sample.ccob");
  const std::string folder = path("entries/of/sample");
  Expected<std::vector<std::string>> written =
      extract({file, folder, {"gfx90a", "gfx1100"}});
  ASSERT_TRUE(written.ok()) << written.error().message;
  ASSERT_EQ(written->size(), 2u);
  EXPECT_EQ((*written)[0], folder + "/hip-amdgcn-amd-amdhsa--gfx90a_xnack+");
  EXPECT_EQ((*written)[1], folder + "/hip-amdgcn-amd-amdhsa--gfx1100");
  EXPECT_EQ(readFile((*written)[0]), readFile(inputs_[2]));
  EXPECT_EQ(readFile((*written)[1]), readFile(inputs_[3]));

  // Every entry when no target is named.
  Expected<std::vector<std::string>> all = extract({file, path("all"), {}});
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->size(), kTargets.size());

  // A target the file lacks: nothing written, not even the folder.
  Expected<std::vector<std::string>> none =
      extract({file, path("none"), {"gfx1201"}});
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(fs::exists(path("none")));

  Expected<std::vector<std::string>> bad =
      extract({file, path("bad"), {"hip-gfx906"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::InvalidArgument)
      << bad.error().message;
  EXPECT_FALSE(fs::exists(path("bad")));
}

// Of compressed bundles end to end, extract decompresses (and checks the
// hash of) those it takes an entry from, and no other.
TEST_F(PublicApi, ExtractDecompressesTheBundlesItTakesFrom) {
  auto compressedBundle = [&](std::vector<size_t> samples,
                              const std::string &name) {
    BundleOptions options;
    options.type = "o";
    options.compress = true;
    options.output = path(name);
    for (size_t sample : samples) {
      options.targets.push_back(kTargets[sample]);
      options.inputs.push_back(inputs_[sample]);
    }
    EXPECT_TRUE(bundle(options).ok());
    return readFile(options.output);
  };
  const std::string first = compressedBundle({0, 1}, "first.ccob");
  std::string second = compressedBundle({0, 2}, "second.ccob");
  constexpr size_t kHashOffset = 24;
  second[kHashOffset] = static_cast<char>(second[kHashOffset] ^ 0x01);
  const std::string file = path("two.ccob");
  std::ofstream(file, std::ios::binary) << first << second;

  Expected<std::vector<std::string>> fromFirst =
      extract({file, path("gfx906"), {"gfx906"}});
  ASSERT_TRUE(fromFirst.ok()) << fromFirst.error().message;
  ASSERT_EQ(fromFirst->size(), 1u);
  EXPECT_EQ(readFile(fromFirst->front()), readFile(inputs_[1]));

  // The second bundle's damaged hash fails what takes from it, and what
  // takes nothing at all (the headers could be wrong), and leaves nothing,
  // not even the folder.
  for (const std::vector<std::string> &targets :
       {std::vector<std::string>{"gfx90a"}, std::vector<std::string>{},
        std::vector<std::string>{"gfx1100"}}) {
    Expected<std::vector<std::string>> fromSecond =
        extract({file, path("second"), targets});
    ASSERT_FALSE(fromSecond.ok());
    EXPECT_EQ(fromSecond.error().code, ErrorCode::DamagedInput)
        << fromSecond.error().message;
    EXPECT_FALSE(fs::exists(path("second")));
  }
}

TEST_F(PublicApi, EntriesInTheFileHaveCodeObjectUris) {
  BundleOptions options;
  options.type = "o";
  const std::string plain = bundleSample(options, "sample.bundle");
  Expected<Input> input = Input::open(plain);
  ASSERT_TRUE(input.ok()) << input.error().message;
  const Entry &entry = input->bundles()[0].entries[1];
  ASSERT_TRUE(entry.fileOffset);
  EXPECT_EQ(input->entryUri(0, 1),
            "file://" + fs::canonical(plain).string() +
                "#offset=" + std::to_string(*entry.fileOffset) +
                "&size=" + std::to_string(entry.size));
  EXPECT_EQ(input->entryUri(0, 99), std::nullopt);
  EXPECT_EQ(input->entryUri(7, 0), std::nullopt);

  // Compressed entries have no bytes of their own in the file to name.
  options.compress = true;
  Expected<Input> compressed =
      Input::open(bundleSample(options, "sample.ccob"));
  ASSERT_TRUE(compressed.ok()) << compressed.error().message;
  EXPECT_EQ(compressed->entryUri(0, 1), std::nullopt);
}

TEST_F(PublicApi, EntryIdsAndCompatibility) {
  Expected<Target> old = parseEntryId("host-x86_64-unknown-linux");
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->offloadKind, "host");
  EXPECT_EQ(old->triple, "x86_64-unknown-linux-unknown");
  EXPECT_FALSE(parseEntryId("not an id").ok());

  Expected<Target> image =
      parseEntryId("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
  Expected<Target> wanted =
      parseEntryId("hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+");
  Expected<Target> other = parseEntryId("hip-amdgcn-amd-amdhsa--gfx906");
  ASSERT_TRUE(image.ok() && wanted.ok() && other.ok());
  EXPECT_TRUE(isCompatible(*image, *wanted));
  EXPECT_FALSE(isCompatible(*image, *other));
  Expected<Target> openmp =
      parseEntryId("openmp-amdgcn-amd-amdhsa--gfx90a:xnack+");
  ASSERT_TRUE(openmp.ok());
  EXPECT_FALSE(isCompatible(*image, *openmp));
  EXPECT_TRUE(isCompatible(*image, *openmp, /*hipOpenmpCompatible=*/true));
}

// The first bytes tell the files that may hold GPU code from those that
// cannot; the samples are the files offbundle reads, the rest must not
// pass.
TEST_F(PublicApi, FirstBytesRuleOutFilesWithoutGpuCode) {
  for (const auto &[folder, name] :
       {std::pair("linked", "unit-plain.so"),
        std::pair("linked", "unit-new-driver.o"),
        std::pair("compression", "small.bundle"),
        std::pair("compression", "small.v3.level3.ccob"),
        std::pair("archive", "read-gnu.a")}) {
    const std::string bytes = readFile(dataDirectory(folder) / name);
    EXPECT_TRUE(mayHoldOffloadCode(bytes.substr(0, kOffloadProbeBytes)))
        << name;
  }
  // A PE image: "MZ", and "PE\0\0" where the DOS header points.
  std::string pe(0x100, '\0');
  pe.replace(0, 2, "MZ");
  pe[0x3c] = static_cast<char>(0x80);
  pe.replace(0x80, 4, std::string("PE\0\0", 4));
  EXPECT_TRUE(mayHoldOffloadCode(pe));
  EXPECT_TRUE(mayHoldOffloadCode(std::string("\x10\xff\x10\xad", 4)));
  EXPECT_TRUE(mayHoldOffloadCode("BC\xc0\xde"));

  for (std::string_view other :
       {std::string_view(""),
        std::string_view("\x7f"
                         "EL"),
        std::string_view("plain text\n"), std::string_view("MZ without PE"),
        std::string_view("\xca\xfe\xba\xbe\0\0\0\x02"),
        std::string_view("\0asm\x01\0\0\0"),
        std::string_view("#!/bin/sh\necho\n")})
    EXPECT_FALSE(mayHoldOffloadCode(other)) << other;
}

// A folder walked as offbundle walks it: in name order, symlinks inside not
// followed, files without GPU code counted, temporaries set apart; a
// symlink named in the list is followed; a file or folder reached twice is
// taken once.
TEST_F(PublicApi, WalksFoldersAsTheToolDoes) {
  const fs::path root = folder_ / "tree";
  fs::create_directories(root / "lib" / "deeper");
  const fs::path library = dataDirectory("linked") / "unit-plain.so";
  fs::copy_file(library, root / "lib" / "b.so");
  fs::copy_file(library, root / "lib" / "deeper" / "a.so");
  fs::copy_file(library, root / "lib" / ".b.so.offbundle-AbC123");
  { std::ofstream(root / "notes.txt") << "no GPU code here\n"; }
  fs::create_symlink("b.so", root / "lib" / "c.so");
  fs::copy_file(library, folder_ / "elsewhere.so");
  fs::create_symlink(folder_ / "elsewhere.so", folder_ / "named.so");

  FileWalk walk = walkFiles({root.string(), path("named.so")});
  std::vector<std::string> paths;
  for (const WalkedFile &file : walk.files) {
    EXPECT_TRUE(file.failure.empty()) << file.path << ": " << file.failure;
    paths.push_back(file.path);
  }
  EXPECT_EQ(paths, (std::vector<std::string>{
                       (root / "lib" / "b.so").string(),
                       (root / "lib" / "deeper" / "a.so").string(),
                       path("named.so")}));
  EXPECT_TRUE(walk.walkedFolder);
  EXPECT_TRUE(walk.files[0].inFolder);
  EXPECT_FALSE(walk.files[2].inFolder);
  EXPECT_EQ(walk.files[0].size, fs::file_size(library));
  EXPECT_EQ(walk.skipped.noGpuCode, 1u);
  EXPECT_EQ(walk.skipped.symlinks, 1u);
  ASSERT_EQ(walk.temporaries.size(), 1u);
  EXPECT_EQ(walk.temporaries[0].path,
            (root / "lib" / ".b.so.offbundle-AbC123").string());
  EXPECT_EQ(walk.temporaries[0].name, ".b.so.offbundle-AbC123");
  EXPECT_EQ(walk.temporaries[0].folder, fs::canonical(root / "lib").string());

  EXPECT_EQ(walk.files[2].folder, fs::canonical(folder_).string());
  EXPECT_EQ(walk.files[2].name, "elsewhere.so");

  // Named twice, named inside a folder named, a folder inside another
  // named, a link to a file already taken: each file once, where first
  // reached.
  FileWalk twice = walkFiles({(root / "lib" / "b.so").string(), root.string(),
                              (root / "lib").string(), root.string(),
                              (root / "lib" / "deeper" / "a.so").string(),
                              (root / "lib" / "c.so").string()});
  paths.clear();
  for (const WalkedFile &file : twice.files)
    paths.push_back(file.path);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       (root / "lib" / "b.so").string(),
                       (root / "lib" / "deeper" / "a.so").string()}));
  EXPECT_EQ(twice.skipped.noGpuCode, 1u);
  EXPECT_EQ(twice.skipped.symlinks, 1u);

  FileWalk missing = walkFiles({path("missing")});
  ASSERT_EQ(missing.files.size(), 1u); // opening it says what is wrong
  EXPECT_FALSE(missing.walkedFolder);
}

} // namespace
} // namespace offbundle::api
