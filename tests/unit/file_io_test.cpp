// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Outputs and the user's files: a commit that fails half-way puts every
// earlier output back, a destination that changed while the tool ran is left
// as it is, permissions follow the replaced file (or the umask), and
// signals remove temporaries (interrupt_cleanup.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "cli/tool_start.h"
#include "support/in_place_output.h"
#include "support/interrupt_cleanup.h"
#include "support/ordered_parallel.h"
#include "support/output_plan.h"
#include "support/output_transaction.h"
#include "support/replaced_files.h"
#include "test_files.h"

namespace offbundle {
namespace {

namespace fs = std::filesystem;
using test_files::readFile;

// Writes `plan` to a new file at `path` and commits it; the status of the
// write (the commit is only tried after a successful one).
Status writePlanTo(const OutputPlan &plan, const InputFile &input,
                   const fs::path &path) {
  OutputTransaction transaction;
  auto output = transaction.create(path);
  if (!output)
    return output.takeError();
  if (Status written = plan.write(**output, input); !written.ok())
    return written;
  return transaction.commit();
}

ByteBuffer bufferOf(std::string_view text) {
  ByteBuffer buffer;
  buffer.resize(text.size());
  std::copy(text.begin(), text.end(), buffer.data());
  return buffer;
}

class ScratchFolder {
public:
  ScratchFolder() {
    std::string pattern =
        (fs::temp_directory_path() / "offbundle-file-io.XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchFolder() { fs::remove_all(path_); }
  const fs::path &path() const { return path_; }
  std::string operator/(const std::string &name) const {
    return (path_ / name).string();
  }

private:
  fs::path path_;
};

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Every entry of a folder (recursively) with its bytes, "<dir>" for folders.
std::map<std::string, std::string> listing(const fs::path &folder) {
  std::map<std::string, std::string> entries;
  for (const auto &entry : fs::recursive_directory_iterator(folder)) {
    std::string name = fs::relative(entry.path(), folder).string();
    entries[name] = entry.is_directory() ? "<dir>" : readFile(entry.path());
  }
  return entries;
}

// Creates outputs for `names` in the folder and writes "new <name>" into
// each.
void writeOutputs(OutputTransaction &transaction, const ScratchFolder &folder,
                  const std::vector<std::string> &names) {
  for (const std::string &name : names) {
    auto output = transaction.create(folder / name);
    ASSERT_TRUE(output.ok()) << output.error().message;
    ASSERT_TRUE((*output)->write("new " + name).ok());
  }
}

// A rename that fails with EIO when it would put the output named
// `failing` in place, and renames normally otherwise.
OutputTransaction::RenameFunction failWhenPlacing(std::string failing,
                                                  int &calls) {
  return [failing, &calls](int folder, const char *from, const char *to,
                           unsigned flags) {
    ++calls;
    if (fs::path(to).filename() == failing) {
      errno = EIO;
      return -1;
    }
    return ::renameat2(folder, from, folder, to, flags);
  };
}

// Growing keeps the bytes written so far (small and huge-page buffers
// alike), shrinking keeps the memory, and a move leaves the bytes where they
// were and the source empty.
TEST(ByteBuffer, ResizeKeepsBytesAndMoveKeepsTheirAddress) {
  ByteBuffer buffer;
  EXPECT_EQ(buffer.size(), 0u);
  buffer.resize(5);
  std::memcpy(buffer.data(), "hello", 5);
  buffer.resize(1 << 20);
  EXPECT_EQ(buffer.view().substr(0, 5), "hello");
  // Large buffers sit on 2 MiB boundaries, for huge pages.
  buffer.resize(size_t{40} << 20);
  EXPECT_EQ(buffer.view().substr(0, 5), "hello");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % (size_t{2} << 20), 0u);
  buffer.data()[(size_t{40} << 20) - 1] = 'x';
  const char *where = buffer.data();
  buffer.resize(3);
  EXPECT_EQ(buffer.data(), where);
  EXPECT_EQ(buffer.view(), "hel");
  ByteBuffer moved = std::move(buffer);
  EXPECT_EQ(moved.data(), where);
  EXPECT_EQ(moved.view(), "hel");
  EXPECT_EQ(buffer.size(), 0u);
  auto input = InputFile::fromMemory("in-memory", std::move(moved));
  EXPECT_EQ(input->contents().data(), where);
  EXPECT_EQ(input->contents(), "hel");
}

TEST(OutputTransaction, RenameFailingHalfWayRestoresEveryEarlierOutput) {
  for (const std::string failing : {"c", "d"}) {
    ScratchFolder folder;
    for (const std::string name : {"a", "b", "c"})
      writeFile(folder / name, "old " + name);
    const auto before = listing(folder.path());
    {
      OutputTransaction transaction;
      // a, b and c replace files; d is new.
      writeOutputs(transaction, folder, {"a", "b", "c", "d"});
      int calls = 0;
      transaction.setRenameFunctionForTesting(failWhenPlacing(failing, calls));
      Status status = transaction.commit();
      ASSERT_FALSE(status.ok()) << "failing at " << failing;
      EXPECT_EQ(status.error().message,
                "'" + (folder / failing) + "': Input/output error");
      // a and b (and c when d fails) were placed and swapped back.
      EXPECT_GT(calls, failing == "c" ? 3 : 4);
    }
    EXPECT_EQ(listing(folder.path()), before) << "failing at " << failing;
  }
}

TEST(OutputTransaction, SuccessfulCommitWritesEveryOutputAndNoTemporary) {
  ScratchFolder folder;
  writeFile(folder / "a", "old a");
  {
    OutputTransaction transaction;
    writeOutputs(transaction, folder, {"a", "b"});
    ASSERT_TRUE(transaction.commit().ok());
  }
  EXPECT_EQ(listing(folder.path()), (std::map<std::string, std::string>{
                                        {"a", "new a"}, {"b", "new b"}}));
}

// One file named by two outputs, new or replaced, by one spelling or two:
// the file takes the later output's bytes, as it would if each output were
// written in turn, and no temporary is left.
TEST(OutputTransaction, FileNamedTwiceTakesTheLaterOutput) {
  for (bool existing : {false, true}) {
    ScratchFolder folder;
    fs::create_directory(folder / "sub");
    if (existing)
      writeFile(folder / "out", "old out");
    {
      OutputTransaction transaction;
      for (std::string name : {"out", "sub/../out", "./out"}) {
        auto output = transaction.create(folder / name);
        ASSERT_TRUE(output.ok()) << output.error().message;
        ASSERT_TRUE((*output)->write("by " + name).ok());
      }
      Status status = transaction.commit();
      ASSERT_TRUE(status.ok()) << status.error().message;
    }
    EXPECT_EQ(listing(folder.path()),
              (std::map<std::string, std::string>{{"out", "by ./out"},
                                                  {"sub", "<dir>"}}))
        << (existing ? "replacing a file" : "a new file");
  }
}

// A symbolic link that leads nowhere yet stays a link: the file it names
// is created, through a chain of links, as opening the link would.
TEST(OutputTransaction, LinkToNowhereGetsItsTargetCreated) {
  ScratchFolder folder;
  fs::create_directory(folder / "sub");
  fs::create_symlink("sub/middle", folder / "link");
  fs::create_symlink(folder / "sub/target", folder / "sub/middle");
  {
    OutputTransaction transaction;
    writeOutputs(transaction, folder, {"link"});
    Status status = transaction.commit();
    ASSERT_TRUE(status.ok()) << status.error().message;
  }
  EXPECT_TRUE(fs::is_symlink(folder / "link"));
  EXPECT_TRUE(fs::is_symlink(folder / "sub/middle"));
  EXPECT_EQ(readFile(folder / "sub/target"), "new link");
}

TEST(OutputTransaction, FolderCreatedAtANewOutputPathIsLeftAlone) {
  ScratchFolder folder;
  writeFile(folder / "a", "old a");
  OutputTransaction transaction;
  writeOutputs(transaction, folder, {"a", "out"});
  // The user makes a folder where the new output is to go.
  fs::create_directory(folder / "out");
  writeFile(folder / "out/keep", "the user's");
  Status status = transaction.commit();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("changed while the tool ran"),
            std::string::npos)
      << status.error().message;
  EXPECT_EQ(readFile(folder / "out/keep"), "the user's");
  EXPECT_EQ(readFile(folder / "a"), "old a");
}

TEST(OutputTransaction, FolderPutInPlaceOfAReplacedOutputIsLeftAlone) {
  ScratchFolder folder;
  writeFile(folder / "a", "old a");
  writeFile(folder / "out", "old out");
  {
    OutputTransaction transaction;
    writeOutputs(transaction, folder, {"a", "out"});
    // At the last moment, just before the swap, the old file is moved away
    // and a folder takes its place.
    transaction.setRenameFunctionForTesting(
        [&folder](int in, const char *from, const char *to, unsigned flags) {
          if (fs::path(to).filename() == "out" &&
              !fs::exists(folder / "moved")) {
            fs::rename(folder / "out", folder / "moved");
            fs::create_directory(folder / "out");
            writeFile(folder / "out/keep", "the user's");
          }
          return ::renameat2(in, from, in, to, flags);
        });
    Status status = transaction.commit();
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("changed while the tool ran"),
              std::string::npos);
  }
  EXPECT_EQ(listing(folder.path()),
            (std::map<std::string, std::string>{{"a", "old a"},
                                                {"moved", "old out"},
                                                {"out", "<dir>"},
                                                {"out/keep", "the user's"}}));
}

TEST(OutputTransaction, FileReplacedWhileTheToolRanIsLeftAlone) {
  ScratchFolder folder;
  writeFile(folder / "out", "old out");
  {
    OutputTransaction transaction;
    writeOutputs(transaction, folder, {"out"});
    // Another program replaces the file (a new inode) meanwhile.
    writeFile(folder / "other", "written meanwhile");
    fs::rename(folder / "other", folder / "out");
    ASSERT_FALSE(transaction.commit().ok());
  }
  EXPECT_EQ(listing(folder.path()),
            (std::map<std::string, std::string>{{"out", "written meanwhile"}}));
}

TEST(OutputTransaction, RemovedDestinationIsCreatedAnew) {
  ScratchFolder folder;
  writeFile(folder / "out", "old out");
  {
    OutputTransaction transaction;
    writeOutputs(transaction, folder, {"out"});
    fs::remove(folder / "out");
    ASSERT_TRUE(transaction.commit().ok());
  }
  EXPECT_EQ(listing(folder.path()),
            (std::map<std::string, std::string>{{"out", "new out"}}));
}

mode_t modeOf(const std::string &path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0);
  return info.st_mode & 07777;
}

TEST(OutputTransaction, ModesFollowTheReplacedFileOrTheUmask) {
  ScratchFolder folder;
  writeFile(folder / "private", "old");
  fs::permissions(folder / "private",
                  fs::perms::owner_read | fs::perms::owner_write);
  writeFile(folder / "script", "old");
  fs::permissions(folder / "script", static_cast<fs::perms>(0751));
  const mode_t savedMask = ::umask(027);
  {
    OutputTransaction transaction;
    writeOutputs(transaction, folder, {"private", "script", "new"});
    ASSERT_TRUE(transaction.commit().ok());
  }
  ::umask(savedMask);
  EXPECT_EQ(modeOf(folder / "private"), 0600u);
  EXPECT_EQ(modeOf(folder / "script"), 0751u);
  EXPECT_EQ(modeOf(folder / "new"), 0640u);
}

// A rewritten program written over another file keeps its own mode (the
// input's), not the replaced file's.
TEST(OutputTransaction, ReplacedFilesCanTakeTheNewMode) {
  ScratchFolder folder;
  writeFile(folder / "old-text", "old");
  fs::permissions(folder / "old-text", static_cast<fs::perms>(0644));
  const mode_t savedMask = ::umask(022);
  {
    OutputTransaction transaction;
    transaction.giveReplacedFilesTheNewMode();
    auto program = transaction.create(folder / "old-text", 0777);
    ASSERT_TRUE(program);
    ASSERT_TRUE((*program)->write("bytes").ok());
    ASSERT_TRUE(transaction.commit().ok());
  }
  ::umask(savedMask);
  EXPECT_EQ(modeOf(folder / "old-text"), 0755u);
}

TEST(OutputTransaction, NewOutputTakesTheModeAskedLessTheUmask) {
  ScratchFolder folder;
  const mode_t savedMask = ::umask(022);
  {
    OutputTransaction transaction;
    auto program = transaction.create(folder / "program", 0777);
    ASSERT_TRUE(program);
    ASSERT_TRUE((*program)->write("bytes").ok());
    ASSERT_TRUE(transaction.commit().ok());
  }
  ::umask(savedMask);
  EXPECT_EQ(modeOf(folder / "program"), 0755u);
}

TEST(OutputPlan, PiecesMergeAndRenderWithTheInput) {
  const std::string input = "0123456789";
  OutputPlan plan;
  plan.addInput(2, 3);
  plan.addInput(5, 2); // continues the range before: one piece
  plan.addZeros(1);
  plan.addZeros(2);
  plan.addBytes("new");
  plan.addInput(0, 0); // nothing
  EXPECT_EQ(plan.pieces().size(), 3u);
  EXPECT_EQ(plan.size(), 11u);
  EXPECT_EQ(*plan.render(input),
            std::string("23456") + std::string(3, '\0') + "new");
}

TEST(OutputPlan, AppendedBytesOutliveThePlanTheyCameFrom) {
  const std::string input = "abcdef";
  OutputPlan whole;
  whole.addInput(0, 2);
  {
    OutputPlan part;
    part.addBytes("short"); // small enough to live inside the string
    part.addInput(2, 1);
    whole.append(std::move(part));
  }
  whole.addInput(3, 3);
  EXPECT_EQ(*whole.render(input), "abshortcdef");
  // The input range after the appended one joined it.
  EXPECT_EQ(whole.pieces().size(), 3u);
}

TEST(OutputPlan, ProducedPiecesAreMadeWhenWrittenAndMustKeepTheirLength) {
  int calls = 0;
  OutputPlan plan;
  plan.addBytes("<");
  plan.addProduced(3, [&](ByteBuffer) -> Result<ByteBuffer> {
    ++calls;
    return bufferOf("abc");
  });
  plan.addBytes(">");
  EXPECT_EQ(calls, 0); // nothing is made before the plan is written
  EXPECT_EQ(plan.size(), 5u);
  auto whole = plan.render("");
  ASSERT_TRUE(whole);
  EXPECT_EQ(*whole, "<abc>");
  EXPECT_EQ(calls, 1);

  OutputPlan failing;
  failing.addProduced(1, [](ByteBuffer) -> Result<ByteBuffer> {
    return makeError("'x': damaged");
  });
  auto failed = failing.render("");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "'x': damaged");

  // A damaged header may announce a terabyte its producer cannot make:
  // rendering fails with the producer's error, without reserving it.
  OutputPlan huge;
  huge.addBytes("head");
  huge.addProduced(uint64_t{1} << 40, [](ByteBuffer) -> Result<ByteBuffer> {
    return makeError("'x': Decompression failed");
  });
  auto hugeFailed = huge.render("");
  ASSERT_FALSE(hugeFailed);
  EXPECT_EQ(hugeFailed.error().message, "'x': Decompression failed");

  OutputPlan wrongLength;
  wrongLength.addProduced(
      4, [](ByteBuffer) -> Result<ByteBuffer> { return bufferOf("abc"); });
  EXPECT_FALSE(wrongLength.render(""));
}

// Produced pieces are made on several threads, ahead of the writer: the
// output still has them in plan order, and an error in one fails the write
// even when later ones were made.
TEST(OutputPlan, PiecesMadeAheadAreWrittenInOrder) {
  ScratchFolder folder;
  writeFile(folder / "input", "input");
  auto input = InputFile::open(folder / "input");
  ASSERT_TRUE(input);
  OutputPlan plan;
  std::string wanted;
  for (int i = 0; i < 40; ++i) {
    const std::string piece(static_cast<size_t>(1000 + 37 * (i % 7)),
                            static_cast<char>('a' + i % 26));
    wanted += piece + "|";
    plan.addProduced(piece.size(), [piece, i](ByteBuffer spare) {
      // Uneven work, so that pieces finish out of order; a spare buffer
      // holds bytes of an earlier piece, which must not show.
      std::this_thread::sleep_for(std::chrono::microseconds(200 * (i % 5)));
      spare.resize(piece.size());
      std::copy(piece.begin(), piece.end(), spare.data());
      return Result<ByteBuffer>(std::move(spare));
    });
    plan.addBytes("|");
  }
  ASSERT_TRUE(writePlanTo(plan, **input, folder / "output").ok());
  EXPECT_EQ(readFile(folder / "output"), wanted);
  // Into memory (as for standard output) the writer takes the pieces in
  // order instead of the workers writing them in place.
  {
    OutputTransaction transaction;
    OutputFile *memory = transaction.createInMemory();
    ASSERT_TRUE(plan.write(*memory, **input).ok());
    EXPECT_EQ(memory->memoryContents(), wanted);
  }

  OutputPlan failing;
  for (int i = 0; i < 10; ++i)
    failing.addProduced(1, [i](ByteBuffer) -> Result<ByteBuffer> {
      if (i == 3)
        return makeError("'x': piece 3 is damaged");
      return bufferOf("z");
    });
  OutputTransaction transaction;
  auto output = transaction.create(folder / "failed");
  ASSERT_TRUE(output);
  Status written = failing.write(**output, **input);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, "'x': piece 3 is damaged");
}

// Pieces the workers write at their places are started largest first, so
// that no core is left alone with a big one at the end; the bytes and the
// error reported (the first failing piece in plan order) do not change.
TEST(OutputPlan, PiecesWrittenInPlaceStartLargestFirst) {
  ScratchFolder folder;
  writeFile(folder / "input", "input");
  auto input = InputFile::open(folder / "input");
  ASSERT_TRUE(input);
  constexpr size_t kPieces = 40;
  std::mutex mutex;
  std::vector<size_t> started;
  OutputPlan plan;
  std::string wanted;
  for (size_t i = 0; i < kPieces; ++i) {
    // Smallest first in the plan.
    const std::string piece(100 + 50 * i, static_cast<char>('a' + i % 26));
    wanted += piece;
    plan.addProduced(piece.size(), [piece, i, &mutex, &started](ByteBuffer) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        started.push_back(i);
      }
      return Result<ByteBuffer>(bufferOf(piece));
    });
  }
  ASSERT_TRUE(writePlanTo(plan, **input, folder / "output").ok());
  EXPECT_EQ(readFile(folder / "output"), wanted);
  ASSERT_EQ(started.size(), kPieces);
  // A worker notes its piece before it takes the next one, so at most one
  // piece per worker is taken and not yet noted: the smallest piece, taken
  // last, is among the last `workers` noted.
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t smallest = static_cast<size_t>(
      std::find(started.begin(), started.end(), size_t{0}) - started.begin());
  if (cores < 2)
    EXPECT_EQ(smallest, 0u); // no workers: made in plan order by the writer
  else
    EXPECT_GE(smallest, kPieces - std::min(cores, kPieces));

  OutputPlan failing;
  for (size_t i = 0; i < 10; ++i)
    failing.addProduced(1 + 100 * i, [i](ByteBuffer) -> Result<ByteBuffer> {
      if (i == 3 || i == 8)
        return makeError("'x': piece " + std::to_string(i) + " is damaged");
      return bufferOf(std::string(1 + 100 * i, 'z'));
    });
  Status written = writePlanTo(failing, **input, folder / "failed");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, "'x': piece 3 is damaged");
}

// Results come in index order whatever the number of threads and however
// long each item takes, each item done once.
TEST(OrderedParallel, EmitsEveryResultInOrder) {
  for (unsigned jobs : {1u, 2u, 5u, 64u}) {
    std::vector<size_t> emitted;
    std::atomic<size_t> calls{0};
    runInOrder<size_t>(
        40, jobs,
        [&](size_t index) {
          ++calls;
          std::this_thread::sleep_for(
              std::chrono::microseconds(100 * ((index * 7) % 5)));
          return index * index;
        },
        [&](size_t index, size_t square) {
          EXPECT_EQ(square, index * index);
          emitted.push_back(index);
        });
    EXPECT_EQ(calls.load(), 40u) << jobs;
    ASSERT_EQ(emitted.size(), 40u) << jobs;
    for (size_t i = 0; i < emitted.size(); ++i)
      EXPECT_EQ(emitted[i], i) << jobs;
  }
  size_t none = 0;
  runInOrder<int>(
      0, 4, [](size_t) { return 0; }, [&](size_t, int) { ++none; });
  EXPECT_EQ(none, 0u);
}

TEST(ReplacedFiles, TemporariesAreRecognisedByName) {
  const std::string made = temporaryPathFor("dir/lib.so");
  EXPECT_EQ(made.rfind("dir/.lib.so.offbundle-", 0), 0u) << made;
  EXPECT_TRUE(isTemporaryName(baseNameOf(made)));
  EXPECT_TRUE(isTemporaryName(".a.offbundle-AbC123"));
  for (const char *other :
       {"lib.so", ".lib.so", ".lib.so.offbundle-", ".lib.so.offbundle-ABC12",
        ".lib.so.offbundle-ABC12!", ".offbundle-ABC123", "a.offbundle-ABC123",
        ".lib.so.other-ABC123"})
    EXPECT_FALSE(isTemporaryName(other)) << other;
}

// A temporary some process holds (its writer's flock) stays; one nobody
// holds is removed.
TEST(ReplacedFiles, OnlyTemporariesNobodyHoldsAreRemoved) {
  ScratchFolder folder;
  const std::string temporary = temporaryPathFor(folder / "lib.so");
  writeFile(temporary, "partial");
  auto handle = FolderHandle::openNamed(folder.path().string());
  ASSERT_TRUE(handle);
  const AnchoredName anchored{*handle, baseNameOf(temporary), ""};
  const int held = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  for (LeftOverPass pass : {LeftOverPass::Journals, LeftOverPass::Everything}) {
    auto outcome = finishOrRemoveLeftOver(anchored, pass);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(*outcome, LeftOver::InUse);
    EXPECT_TRUE(fs::exists(temporary));
  }
  ::close(held);
  auto outcome = finishOrRemoveLeftOver(anchored, LeftOverPass::Journals);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(*outcome, LeftOver::Kept); // no journal: left for the next pass
  EXPECT_TRUE(fs::exists(temporary));
  outcome = finishOrRemoveLeftOver(anchored, LeftOverPass::Everything);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(*outcome, LeftOver::Removed);
  EXPECT_FALSE(fs::exists(temporary));
  outcome = finishOrRemoveLeftOver(anchored, LeftOverPass::Everything);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(*outcome, LeftOver::Gone);
}

// The names in a folder, sorted.
std::vector<std::string> namesIn(const fs::path &folder) {
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(folder))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A file with names in two folders, replaced in place: both names are the
// new file, nothing else is left in either folder.
TEST(InPlaceOutput, EveryNameNamesTheNewFile) {
  ScratchFolder folder;
  fs::create_directory(folder / "a");
  fs::create_directory(folder / "b");
  writeFile(folder / "a/lib", "old bytes");
  fs::create_hard_link(folder / "a/lib", folder / "b/lib");
  auto first = FolderHandle::openNamed(folder / "a");
  auto second = FolderHandle::openNamed(folder / "b");
  ASSERT_TRUE(first && second);
  auto input = InputFile::openIn(**first, "lib", folder / "a/lib");
  ASSERT_TRUE(input);
  auto output = InPlaceOutput::create(
      {{*first, "lib", ""}, {*second, "lib", ""}}, **input);
  ASSERT_TRUE(output) << output.error().message;
  ASSERT_TRUE((*output)->output().write("new bytes, more of them").ok());
  Status committed = (*output)->commit();
  ASSERT_TRUE(committed.ok()) << committed.error().message;
  EXPECT_EQ(readFile(folder / "a/lib"), "new bytes, more of them");
  EXPECT_TRUE(fs::equivalent(folder / "a/lib", folder / "b/lib"));
  EXPECT_EQ(fs::hard_link_count(folder / "a/lib"), 2u);
  EXPECT_EQ(namesIn(folder / "a"), std::vector<std::string>{"lib"});
  EXPECT_EQ(namesIn(folder / "b"), std::vector<std::string>{"lib"});
}

// A name that no longer names the file refuses the rewrite before anything
// is written, naming that name.
TEST(InPlaceOutput, ANameThatCannotBeRepointedRefusesTheFile) {
  ScratchFolder folder;
  fs::create_directory(folder / "a");
  fs::create_directory(folder / "b");
  writeFile(folder / "a/lib", "old bytes");
  writeFile(folder / "b/lib", "someone else's");
  auto first = FolderHandle::openNamed(folder / "a");
  auto second = FolderHandle::openNamed(folder / "b");
  ASSERT_TRUE(first && second);
  auto input = InputFile::openIn(**first, "lib", folder / "a/lib");
  ASSERT_TRUE(input);
  auto output = InPlaceOutput::create(
      {{*first, "lib", ""}, {*second, "lib", "b/lib"}}, **input);
  ASSERT_FALSE(output);
  EXPECT_NE(output.error().message.find("its name 'b/lib' cannot be pointed "
                                        "at the new file: it no longer names "
                                        "that file"),
            std::string::npos)
      << output.error().message;
  EXPECT_EQ(namesIn(folder / "a"), std::vector<std::string>{"lib"});
  EXPECT_EQ(readFile(folder / "b/lib"), "someone else's");
}

// Writes what a run killed after its journal leaves: the old file under
// a/lib and b/lib, the new one under a temporary beside each, and the
// journal, with `mode`. Returns the journal's name.
std::string leaveHalfDoneReplacement(const ScratchFolder &folder, mode_t mode) {
  fs::create_directory(folder / "a");
  fs::create_directory(folder / "b");
  writeFile(folder / "a/lib", "old");
  fs::create_hard_link(folder / "a/lib", folder / "b/lib");
  writeFile(folder / "a/.lib.offbundle-NewAaa", "new");
  fs::create_hard_link(folder / "a/.lib.offbundle-NewAaa",
                       folder / "b/.lib.offbundle-NewBbb");
  struct stat old;
  struct stat made;
  EXPECT_EQ(::stat((folder / "a/lib").c_str(), &old), 0);
  EXPECT_EQ(::stat((folder / "a/.lib.offbundle-NewAaa").c_str(), &made), 0);
  auto counted = [](const std::string &text) {
    return std::to_string(text.size()) + ":" + text;
  };
  std::string journal = "offbundle link group 1\n";
  journal += "new " + std::to_string(made.st_dev) + " " +
             std::to_string(made.st_ino) + "\n";
  journal += "old " + std::to_string(old.st_dev) + " " +
             std::to_string(old.st_ino) + "\n";
  for (const auto &[sub, temporary] :
       {std::pair<std::string, std::string>{"a", ".lib.offbundle-NewAaa"},
        {"b", ".lib.offbundle-NewBbb"}}) {
    const fs::path resolved = fs::canonical(folder / sub);
    struct stat info;
    EXPECT_EQ(::stat(resolved.c_str(), &info), 0);
    journal += "name " + std::to_string(info.st_dev) + " " +
               std::to_string(info.st_ino) + " " + counted(resolved.string()) +
               " " + counted("lib") + " " + counted(temporary) + "\n";
  }
  writeFile(folder / "a/.lib.offbundle-Jrnl00", journal);
  ::chmod((folder / "a/.lib.offbundle-Jrnl00").c_str(), mode);
  return ".lib.offbundle-Jrnl00";
}

// The journal a killed run left is finished: both names hold the new
// file, no temporary is left.
TEST(InPlaceOutput, AJournalTheRunLeftIsFinished) {
  ScratchFolder folder;
  const std::string journal = leaveHalfDoneReplacement(folder, 0600);
  auto handle = FolderHandle::openNamed(folder / "a");
  ASSERT_TRUE(handle);
  auto outcome =
      finishOrRemoveLeftOver({*handle, journal, ""}, LeftOverPass::Journals);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(*outcome, LeftOver::JournalFinished);
  EXPECT_EQ(readFile(folder / "a/lib"), "new");
  EXPECT_TRUE(fs::equivalent(folder / "a/lib", folder / "b/lib"));
  EXPECT_EQ(namesIn(folder / "a"), std::vector<std::string>{"lib"});
  EXPECT_EQ(namesIn(folder / "b"), std::vector<std::string>{"lib"});
}

// A journal others could have written (readable or writable by them) is
// no journal: nothing it lists is touched, and it is removed as any
// leftover temporary.
TEST(InPlaceOutput, AJournalOthersCouldWriteIsNotTrusted) {
  ScratchFolder folder;
  const std::string journal = leaveHalfDoneReplacement(folder, 0644);
  auto handle = FolderHandle::openNamed(folder / "a");
  ASSERT_TRUE(handle);
  auto outcome =
      finishOrRemoveLeftOver({*handle, journal, ""}, LeftOverPass::Journals);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(*outcome, LeftOver::Kept);
  outcome =
      finishOrRemoveLeftOver({*handle, journal, ""}, LeftOverPass::Everything);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(*outcome, LeftOver::Removed);
  EXPECT_EQ(readFile(folder / "a/lib"), "old");
  EXPECT_EQ(readFile(folder / "b/.lib.offbundle-NewBbb"), "new");
}

TEST(OutputPlan, FailingProducerLeavesTheOutputAsItWas) {
  ScratchFolder folder;
  writeFile(folder / "input", "input");
  writeFile(folder / "output", "old output");
  auto input = InputFile::open(folder / "input");
  ASSERT_TRUE(input);
  OutputPlan plan;
  plan.addInput(0, 5);
  plan.addProduced(2, [](ByteBuffer) -> Result<ByteBuffer> {
    return makeError("'x': damaged");
  });
  {
    OutputTransaction transaction;
    auto output = transaction.create(folder / "output");
    ASSERT_TRUE(output);
    EXPECT_FALSE(plan.write(**output, **input).ok());
  }
  const auto files = listing(folder.path());
  EXPECT_EQ(files.size(), 2u); // no temporary left behind
  EXPECT_EQ(files.at("output"), "old output");
}

TEST(OutputPlan, WrittenToAFileCopiesTheInputRanges) {
  ScratchFolder folder;
  writeFile(folder / "input", "payload-of-the-input");
  auto input = InputFile::open(folder / "input");
  ASSERT_TRUE(input);
  OutputPlan plan;
  plan.addBytes("head:");
  plan.addInput(11, 3);
  plan.addZeros(2);
  OutputTransaction transaction;
  auto output = transaction.create(folder / "output");
  ASSERT_TRUE(output);
  ASSERT_TRUE(plan.write(**output, **input).ok());
  ASSERT_TRUE(transaction.commit().ok());
  EXPECT_EQ(listing(folder.path())["output"],
            std::string("head:the") + std::string(2, '\0'));
}

TEST(OutputTransaction, FailingChmodOfAReplacedOutputIsAnError) {
  ScratchFolder folder;
  writeFile(folder / "out", "old out");
  const auto before = listing(folder.path());
  {
    OutputTransaction transaction;
    transaction.setChmodFunctionForTesting([](int, unsigned) {
      errno = EPERM;
      return -1;
    });
    auto output = transaction.create(folder / "out");
    ASSERT_FALSE(output.ok());
    EXPECT_EQ(output.error().message,
              "'" + (folder / "out") +
                  "': cannot give the output the permissions of the file it "
                  "replaces: Operation not permitted");
  }
  // The temporary is gone and the old file is untouched.
  EXPECT_EQ(listing(folder.path()), before);
}

// The umask as the kernel reports it, read without changing it.
std::string umaskLine() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Umask:", 0) == 0)
      return line;
  return "";
}

TEST(OutputTransaction, NeverChangesTheUmask) {
  // Learning the umask by setting it (and setting it back) would let
  // another thread create files with the wrong mode in between; the
  // process's umask must stay what it is while transactions come and go.
  ScratchFolder folder;
  const mode_t savedMask = ::umask(077);
  const std::string expected = umaskLine();
  ASSERT_EQ(expected, "Umask:\t0077");
  std::atomic<bool> done{false};
  std::atomic<int> changes{0};
  std::thread watcher([&] {
    while (!done.load())
      if (umaskLine() != expected)
        ++changes;
  });
  for (int i = 0; i < 2000; ++i) {
    OutputTransaction transaction;
    auto output = transaction.create(folder / "new");
    ASSERT_TRUE(output.ok());
  }
  done.store(true);
  watcher.join();
  ::umask(savedMask);
  EXPECT_EQ(changes.load(), 0);
}

// Runs `body` in a child process with the cleanup handlers installed and
// its standard error sent to `errorFile`; returns the wait status.
template <typename Body>
int runInChild(const std::string &errorFile, Body body) {
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child == 0) {
    FILE *error = std::freopen(errorFile.c_str(), "w", stderr);
    if (error == nullptr)
      ::_exit(99);
    installInterruptCleanup("tool");
    body();
    ::_exit(98); // the body was expected to end the process
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

TEST(InterruptCleanup, TerminationSignalsRemoveTemporariesAndKillTheProcess) {
  for (int signalNumber : {SIGINT, SIGTERM, SIGHUP}) {
    ScratchFolder folder;
    ScratchFolder logs;
    writeFile(folder / "a", "old a");
    const auto before = listing(folder.path());
    int status = runInChild(logs / "stderr", [&] {
      OutputTransaction transaction;
      writeOutputs(transaction, folder, {"a", "b"});
      // Both temporaries exist now.
      if (listing(folder.path()).size() != 3)
        ::_exit(97);
      ::raise(signalNumber);
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
    EXPECT_EQ(WTERMSIG(status), signalNumber);
    EXPECT_EQ(listing(folder.path()), before) << "signal " << signalNumber;
  }
}

TEST(InterruptCleanup, SignalDuringCommitWaitsUntilEveryOutputIsPlaced) {
  ScratchFolder folder;
  ScratchFolder logs;
  writeFile(folder / "a", "old a");
  int status = runInChild(logs / "stderr", [&] {
    OutputTransaction transaction;
    writeOutputs(transaction, folder, {"a", "b"});
    transaction.setRenameFunctionForTesting(
        [](int folder, const char *from, const char *to, unsigned flags) {
          ::raise(SIGTERM); // arrives in the middle of the commit
          return ::renameat2(folder, from, folder, to, flags);
        });
    (void)transaction.commit();
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(listing(folder.path()), (std::map<std::string, std::string>{
                                        {"a", "new a"}, {"b", "new b"}}));
}

TEST(InterruptCleanup, InputTruncatedWhileMappedIsAnErrorNotACrash) {
  ScratchFolder folder;
  ScratchFolder logs;
  const std::string input = folder / "input";
  writeFile(input, std::string(1 << 20, 'x'));
  int status = runInChild(logs / "stderr", [&] {
    OutputTransaction transaction;
    writeOutputs(transaction, folder, {"out"});
    auto opened = InputFile::open(input);
    if (!opened)
      ::_exit(97);
    // Someone truncates the file while it is mapped; touching a page past
    // its new end raises SIGBUS.
    if (::truncate(input.c_str(), 0) != 0)
      ::_exit(96);
    volatile char touched = (*opened)->contents()[600000];
    (void)touched;
  });
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(readFile(logs / "stderr"),
            "tool: error: '" + input +
                "': the file was truncated while it was being read\n");
  // The temporary of "out" is gone; only the (now empty) input remains.
  EXPECT_EQ(listing(folder.path()),
            (std::map<std::string, std::string>{{"input", ""}}));
}

// A tool that leaves an output's temporary behind it and fails with an
// exception, as an allocation failure deep inside would.
ToolOutcome throwingTool(const std::vector<std::string> &arguments) {
  OutputTransaction transaction;
  auto output = transaction.create(arguments.at(1) + "/out");
  if (!output || !(*output)->write("partial").ok())
    return {};
  throw std::bad_alloc();
}

TEST(ToolMain, EscapingExceptionIsOneErrorLineAndRemovesTemporaries) {
  ScratchFolder folder;
  ScratchFolder logs;
  int status = runInChild(logs / "stderr", [&] {
    std::string argv0 = "tool";
    std::string scratch = folder.path().string();
    char *argv[] = {argv0.data(), scratch.data(), nullptr};
    int exitCode = runToolMain(2, argv, throwingTool);
    std::fflush(nullptr);
    ::_exit(exitCode);
  });
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(readFile(logs / "stderr"), "tool: error: not enough memory\n");
  EXPECT_TRUE(listing(folder.path()).empty());
}

} // namespace
} // namespace offbundle
