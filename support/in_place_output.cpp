// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Replacing a file in place under every name it has (see
// in_place_output.h).
#include "support/in_place_output.h"

#include <cerrno>
#include <fcntl.h>
#include <linux/fs.h>
#include <optional>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "support/fault_points.h"
#include "support/interrupt_cleanup.h"
#include "support/replaced_files.h"

namespace offbundle {
namespace {

constexpr std::string_view kJournalMagic = "offbundle link group 1\n";
// A journal lists a few names; anything larger is no journal of ours.
constexpr off_t kLargestJournal = 1 << 20;

NodeIdentity identityOf(const struct stat &info) {
  return {static_cast<uint64_t>(info.st_dev),
          static_cast<uint64_t>(info.st_ino)};
}

// What `name` in `folder` is now, not following a symbolic link.
std::optional<NodeIdentity> identityAt(int folder, const std::string &name) {
  struct stat info;
  if (::fstatat(folder, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0)
    return std::nullopt;
  return identityOf(info);
}

void syncFolder(int folder) { (void)::fsync(folder); }

int exchange(int folder, const std::string &from, const std::string &to) {
  return ::renameat2(folder, from.c_str(), folder, to.c_str(), RENAME_EXCHANGE);
}

// The chattr flags of an open file or folder; 0 where the file system keeps
// none.
int attributeFlags(int fd) {
  int flags = 0;
  return ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 ? flags : 0;
}

// Why `name` cannot be pointed at a new file, or "".
std::string whyNotRepointable(const AnchoredName &name,
                              const struct stat &original) {
  const int folder = name.folder->fd();
  struct stat now;
  if (::fstatat(folder, name.name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0)
    return errnoMessage(errno);
  if (identityOf(now) != identityOf(original))
    return "it no longer names that file (something else was put there)";
  const int flags = attributeFlags(folder);
  if (flags & FS_IMMUTABLE_FL)
    return "its folder is immutable (chattr +i)";
  if (flags & FS_APPEND_FL)
    return "its folder is append-only (chattr +a), so nothing in it can be "
           "renamed";
  if (::faccessat(folder, ".", W_OK | X_OK, AT_EACCESS) != 0)
    return "its folder cannot be written: " + errnoMessage(errno);
  struct stat folderInfo;
  if (::fstat(folder, &folderInfo) != 0)
    return errnoMessage(errno);
  const uid_t user = ::geteuid();
  if ((folderInfo.st_mode & S_ISVTX) && user != 0 &&
      user != folderInfo.st_uid && user != original.st_uid)
    return "its folder is sticky and neither it nor the file is this user's";
  return "";
}

Error cannotRewrite(const AnchoredName &first, const AnchoredName &blocking,
                    const std::string &why) {
  if (first.folder == blocking.folder && first.name == blocking.name)
    return fileError(first.path(), "cannot be rewritten in place: " + why +
                                       "; left as it is");
  return fileError(
      first.path(),
      "cannot be rewritten in place, as its name '" + blocking.path() +
          "' cannot be pointed at the new file: " + why + "; left as it is");
}

Error changedUnderUs(const std::string &path) {
  return fileError(path, "the file changed while the tool ran (something "
                         "else was put in its place); it was left as it is");
}

// "<length>:<bytes>", for strings in the journal.
std::string counted(const std::string &text) {
  return std::to_string(text.size()) + ":" + text;
}

// Reads the journal's fields back: numbers and counted strings separated
// by single spaces and newlines.
class JournalReader {
public:
  explicit JournalReader(std::string_view text) : text_(text) {}
  bool word(std::string_view expected) {
    if (text_.substr(0, expected.size()) != expected)
      return false;
    text_.remove_prefix(expected.size());
    return separator();
  }
  bool number(uint64_t &value) {
    size_t used = 0;
    value = 0;
    while (used < text_.size() && text_[used] >= '0' && text_[used] <= '9' &&
           used < 20)
      value = value * 10 + static_cast<uint64_t>(text_[used++] - '0');
    if (used == 0)
      return false;
    text_.remove_prefix(used);
    return true;
  }
  bool string(std::string &value) {
    uint64_t length = 0;
    if (!number(length) || text_.empty() || text_.front() != ':')
      return false;
    text_.remove_prefix(1);
    if (length > text_.size())
      return false;
    value.assign(text_.substr(0, static_cast<size_t>(length)));
    text_.remove_prefix(static_cast<size_t>(length));
    return true;
  }
  bool separator() {
    if (text_.empty() || (text_.front() != ' ' && text_.front() != '\n'))
      return false;
    text_.remove_prefix(1);
    return true;
  }
  bool atEnd() const { return text_.empty(); }

private:
  std::string_view text_;
};

struct JournalName {
  std::string folder; // resolved path
  NodeIdentity folderIdentity;
  std::string name;
  std::string temporary;
};

struct Journal {
  NodeIdentity newFile;
  NodeIdentity oldFile;
  std::vector<JournalName> names;
};

bool readIdentity(JournalReader &reader, std::string_view word,
                  NodeIdentity &identity) {
  return reader.word(word) && reader.number(identity.device) &&
         reader.separator() && reader.number(identity.inode) &&
         reader.separator();
}

std::optional<Journal> parseJournal(std::string_view text) {
  if (text.substr(0, kJournalMagic.size()) != kJournalMagic)
    return std::nullopt;
  JournalReader reader(text.substr(kJournalMagic.size()));
  Journal journal;
  if (!readIdentity(reader, "new", journal.newFile) ||
      !readIdentity(reader, "old", journal.oldFile))
    return std::nullopt;
  while (!reader.atEnd()) {
    JournalName entry;
    if (!reader.word("name") || !reader.number(entry.folderIdentity.device) ||
        !reader.separator() || !reader.number(entry.folderIdentity.inode) ||
        !reader.separator() || !reader.string(entry.folder) ||
        !reader.separator() || !reader.string(entry.name) ||
        !reader.separator() || !reader.string(entry.temporary) ||
        !reader.separator())
      return std::nullopt;
    journal.names.push_back(std::move(entry));
  }
  return journal;
}

// The bytes of the journal open at `fd` (status `info`), if it is one this
// user wrote: owned by this user, for nobody else, one name, small.
std::optional<Journal> readOwnJournal(int fd, const struct stat &info) {
  if (!S_ISREG(info.st_mode) || info.st_uid != ::geteuid() ||
      (info.st_mode & 077) != 0 || info.st_nlink != 1 ||
      info.st_size < static_cast<off_t>(kJournalMagic.size()) ||
      info.st_size > kLargestJournal)
    return std::nullopt;
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t count = ::pread(fd, bytes.data() + got, bytes.size() - got,
                                  static_cast<off_t>(got));
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0)
      return std::nullopt;
    got += static_cast<size_t>(count);
  }
  return parseJournal(bytes);
}

// One name of a journal brought to its end: pointed at the new file if it
// still names the old one, its temporary removed.
void finishJournalName(const Journal &journal, const JournalName &entry) {
  auto folder = FolderHandle::openResolved(entry.folder, entry.folderIdentity);
  if (!folder)
    return; // moved or replaced since: not ours to touch any more
  const int fd = (*folder)->fd();
  const auto name = identityAt(fd, entry.name);
  const auto temporary = identityAt(fd, entry.temporary);
  if (temporary == journal.newFile && name == journal.oldFile) {
    if (exchange(fd, entry.temporary, entry.name) != 0)
      return;
    if (identityAt(fd, entry.temporary) != journal.oldFile) {
      (void)exchange(fd, entry.temporary, entry.name);
      return;
    }
  } else if (temporary != journal.newFile && temporary != journal.oldFile) {
    return; // not the temporary the journal names
  }
  (void)::unlinkat(fd, entry.temporary.c_str(), 0);
  syncFolder(fd);
}

} // namespace

InPlaceOutput::InPlaceOutput(std::vector<AnchoredName> names,
                             const InputFile &original)
    : names_(std::move(names)), original_(original),
      temporaries_(names_.size()), registrations_(names_.size()) {}

InPlaceOutput::~InPlaceOutput() {
  if (output_.fd_ >= 0)
    ::close(output_.fd_);
  if (!committed_)
    removeTemporaries();
  if (journalFd_ >= 0)
    ::close(journalFd_);
}

void InPlaceOutput::removeTemporaries() {
  if (!journal_.empty()) {
    ::unlinkat(names_.front().folder->fd(), journal_.c_str(), 0);
    journal_.clear();
    journalRegistration_.release();
  }
  for (size_t index = 0; index < names_.size(); ++index) {
    if (temporaries_[index].empty())
      continue;
    ::unlinkat(names_[index].folder->fd(), temporaries_[index].c_str(), 0);
    temporaries_[index].clear();
    registrations_[index].release();
  }
}

Result<std::unique_ptr<InPlaceOutput>>
InPlaceOutput::create(std::vector<AnchoredName> names,
                      const InputFile &original) {
  std::unique_ptr<InPlaceOutput> made(
      new InPlaceOutput(std::move(names), original));
  const AnchoredName &first = made->names_.front();
  if (original.fd() < 0 || ::fstat(original.fd(), &made->originalInfo_) != 0)
    return fileError(first.path(), "cannot be rewritten in place: not a "
                                   "regular file");
  if (attributeFlags(original.fd()) & (FS_IMMUTABLE_FL | FS_APPEND_FL))
    return cannotRewrite(first, first,
                         "the file is immutable or append-only (chattr +i "
                         "or +a)");
  for (const AnchoredName &name : made->names_)
    if (std::string why = whyNotRepointable(name, made->originalInfo_);
        !why.empty())
      return cannotRewrite(first, name, why);

  // Created and registered with termination signals held, so that a
  // signal finds it registered or finds no file.
  TerminationSignalBlock block;
  const int folder = first.folder->fd();
  int fd = -1;
  std::string temporary;
  for (int attempt = 0; fd < 0; ++attempt) {
    temporary = temporaryNameFor(first.name);
    fd = ::openat(folder, temporary.c_str(),
                  O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 && (errno != EEXIST || attempt == 100))
      return systemError(first.path(), errno);
  }
  // Held while the temporary is ours, so that a later run can tell it
  // from one a killed run left.
  (void)::flock(fd, LOCK_EX | LOCK_NB);
  made->temporaries_[0] = temporary;
  made->registrations_[0] = registerTemporary(temporary, folder);
  made->output_.fd_ = fd;
  made->output_.path_ = first.path();
  made->output_.tempPath_ = first.folder->pathOf(temporary);
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return systemError(first.path(), errno);
  made->newIdentity_ = identityOf(info);
  return made;
}

Status InPlaceOutput::finishTemporary() {
  if (Status status = output_.flush(); !status.ok())
    return status;
  output_.gather_.reset();
  const std::string &path = names_.front().path();
  // Padding may have been skipped over rather than written.
  if (::ftruncate(output_.fd_, static_cast<off_t>(output_.written_)) != 0)
    return systemError(path, errno);
  // What the replaced file keeps goes on last (writing drops file
  // capabilities); then the bytes reach the disk before any rename can.
  if (Status kept =
          takeMetadataOf(original_.fd(), originalInfo_, output_.fd_, path);
      !kept.ok())
    return kept;
  if (::fsync(output_.fd_) != 0)
    return systemError(path, errno);
  return Status::success();
}

Status InPlaceOutput::commit() {
  if (Status finished = finishTemporary(); !finished.ok())
    return finished;
  // Written to meanwhile, the input may have given old bytes to the plan
  // and new ones to the copy: such an output is not put in place.
  if (Status unchanged = original_.checkUnchanged(); !unchanged.ok())
    return unchanged;
  faultPoint("temporary-written");
  return names_.size() == 1 ? replaceOneName() : replaceEveryName();
}

Status InPlaceOutput::replaceOneName() {
  const AnchoredName &only = names_.front();
  const int folder = only.folder->fd();
  const std::string &temporary = temporaries_.front();
  TerminationSignalBlock block;
  if (exchange(folder, temporary, only.name) != 0) {
    if (errno != EINVAL && errno != ENOSYS)
      return systemError(only.path(), errno);
    // A file system that cannot swap: checked, then renamed over.
    if (identityAt(folder, only.name) != identityOf(originalInfo_))
      return changedUnderUs(only.path());
    if (::renameat(folder, temporary.c_str(), folder, only.name.c_str()) != 0)
      return systemError(only.path(), errno);
    temporaries_.front().clear();
  } else if (identityAt(folder, temporary) != identityOf(originalInfo_)) {
    // What came out must be the file read; anything else goes back.
    (void)exchange(folder, temporary, only.name);
    return changedUnderUs(only.path());
  }
  committed_ = true;
  faultPoint("name-replaced");
  // The old bytes, now under the temporary's name.
  if (!temporaries_.front().empty())
    (void)::unlinkat(folder, temporary.c_str(), 0);
  registrations_.front().release();
  syncFolder(folder);
  return Status::success();
}

Status InPlaceOutput::linkTemporaries() {
  const int from = names_.front().folder->fd();
  TerminationSignalBlock block;
  for (size_t index = 1; index < names_.size(); ++index) {
    const AnchoredName &name = names_[index];
    std::string temporary;
    for (int attempt = 0;; ++attempt) {
      temporary = temporaryNameFor(name.name);
      if (::linkat(from, temporaries_.front().c_str(), name.folder->fd(),
                   temporary.c_str(), 0) == 0)
        break;
      if (errno != EEXIST || attempt == 100)
        return cannotRewrite(names_.front(), name, errnoMessage(errno));
    }
    temporaries_[index] = temporary;
    registrations_[index] = registerTemporary(temporary, name.folder->fd());
  }
  return Status::success();
}

Status InPlaceOutput::writeJournal() {
  std::string text(kJournalMagic);
  text += "new " + std::to_string(newIdentity_.device) + " " +
          std::to_string(newIdentity_.inode) + "\n";
  const NodeIdentity old = identityOf(originalInfo_);
  text += "old " + std::to_string(old.device) + " " +
          std::to_string(old.inode) + "\n";
  for (size_t index = 0; index < names_.size(); ++index) {
    const FolderHandle &folder = *names_[index].folder;
    text += "name " + std::to_string(folder.identity().device) + " " +
            std::to_string(folder.identity().inode) + " " +
            counted(folder.resolvedPath()) + " " + counted(names_[index].name) +
            " " + counted(temporaries_[index]) + "\n";
  }
  const AnchoredName &first = names_.front();
  const int folder = first.folder->fd();
  TerminationSignalBlock block;
  for (int attempt = 0; journalFd_ < 0; ++attempt) {
    journal_ = temporaryNameFor(first.name);
    journalFd_ =
        ::openat(folder, journal_.c_str(),
                 O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (journalFd_ < 0 && (errno != EEXIST || attempt == 100)) {
      journal_.clear();
      return systemError(first.path(), errno);
    }
  }
  (void)::flock(journalFd_, LOCK_EX | LOCK_NB);
  journalRegistration_ = registerTemporary(journal_, folder);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t count =
        ::write(journalFd_, text.data() + written, text.size() - written);
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      return systemError(first.folder->pathOf(journal_), errno);
    written += static_cast<size_t>(count);
  }
  if (::fsync(journalFd_) != 0)
    return systemError(first.folder->pathOf(journal_), errno);
  syncFolder(folder);
  return Status::success();
}

Status InPlaceOutput::replaceEveryName() {
  if (Status linked = linkTemporaries(); !linked.ok())
    return linked;
  faultPoint("links-made");
  if (Status journal = writeJournal(); !journal.ok())
    return journal;
  faultPoint("journal-written");
  // No termination signal may stop this half way; SIGKILL can, and then
  // the journal lets a rerun finish it.
  TerminationSignalBlock block;
  const NodeIdentity old = identityOf(originalInfo_);
  for (size_t index = 0; index < names_.size(); ++index) {
    const int folder = names_[index].folder->fd();
    const std::string &temporary = temporaries_[index];
    const bool swapped = exchange(folder, temporary, names_[index].name) == 0;
    const int error = errno;
    if (!swapped || identityAt(folder, temporary) != old) {
      if (swapped)
        (void)exchange(folder, temporary, names_[index].name);
      for (size_t done = index; done-- > 0;)
        (void)exchange(names_[done].folder->fd(), temporaries_[done],
                       names_[done].name);
      return swapped ? changedUnderUs(names_[index].path())
                     : systemError(names_[index].path(), error);
    }
    if (index == 0)
      faultPoint("first-name-replaced");
  }
  committed_ = true;
  faultPoint("names-replaced");
  // What the temporaries' names hold now is the old file.
  for (size_t index = 0; index < names_.size(); ++index) {
    (void)::unlinkat(names_[index].folder->fd(), temporaries_[index].c_str(),
                     0);
    registrations_[index].release();
  }
  faultPoint("old-names-removed");
  (void)::unlinkat(names_.front().folder->fd(), journal_.c_str(), 0);
  journalRegistration_.release();
  for (const AnchoredName &name : names_)
    syncFolder(name.folder->fd());
  return Status::success();
}

Result<LeftOver> finishOrRemoveLeftOver(const AnchoredName &temporary,
                                        LeftOverPass pass) {
  const int folder = temporary.folder->fd();
  const int fd = ::openat(folder, temporary.name.c_str(),
                          O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return errno == ENOENT
               ? Result<LeftOver>(LeftOver::Gone)
               : Result<LeftOver>(systemError(temporary.path(), errno));
  LeftOver outcome = LeftOver::InUse;
  Status status = Status::success();
  struct stat held;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK)
      status = systemError(temporary.path(), errno);
  } else if (::fstat(fd, &held) != 0) {
    status = systemError(temporary.path(), errno);
  } else if (identityAt(folder, temporary.name) == identityOf(held)) {
    // Nobody writes it, and the name still is that file.
    std::optional<Journal> journal = readOwnJournal(fd, held);
    if (journal) {
      for (const JournalName &entry : journal->names)
        finishJournalName(*journal, entry);
      outcome = LeftOver::JournalFinished;
    } else {
      outcome =
          pass == LeftOverPass::Journals ? LeftOver::Kept : LeftOver::Removed;
    }
    if (outcome != LeftOver::Kept &&
        ::unlinkat(folder, temporary.name.c_str(), 0) != 0)
      status = systemError(temporary.path(), errno);
  }
  ::close(fd);
  if (!status.ok())
    return status.takeError();
  return outcome;
}

} // namespace offbundle
