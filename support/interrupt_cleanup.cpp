// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The signal handlers and the registries they read (see
// interrupt_cleanup.h for why and how). The handlers only follow list links,
// remove temporaries and write to standard error; changes take a mutex with
// the termination signals blocked.

#include "support/interrupt_cleanup.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <unistd.h>

#include "support/error.h"

namespace offbundle {
namespace {

struct TemporaryNode {
  std::atomic<TemporaryNode *> next{nullptr};
  // The folder `path` is relative to: AT_FDCWD, or a descriptor its owner
  // keeps open while it is registered (support/folder_handle.h).
  int folder = AT_FDCWD;
  std::unique_ptr<char[]> path;
};

struct MappingNode {
  std::atomic<MappingNode *> next{nullptr};
  uintptr_t begin = 0;
  uintptr_t end = 0;
  // The file's name as messages quote it, control characters escaped.
  std::unique_ptr<char[]> quotedPath;
};

// The registries the handlers read (see the header for why they are
// process-wide). Changes are serialised by the mutex and made with the
// termination signals blocked; the handlers only follow the links.
struct Registries {
  std::atomic<TemporaryNode *> temporaries{nullptr};
  // Folders made for outputs, the newest first: removed after the
  // temporaries, when the run left nothing in them.
  std::atomic<TemporaryNode *> folders{nullptr};
  std::atomic<MappingNode *> mappings{nullptr};
  std::mutex changes;
  std::atomic<const char *> programName{"offbundle"};
};

Registries &registries() {
  static Registries instance;
  return instance;
}

std::unique_ptr<char[]> copyString(const std::string &text) {
  auto copy = std::make_unique<char[]>(text.size() + 1);
  std::memcpy(copy.get(), text.c_str(), text.size() + 1);
  return copy;
}

template <typename Node> void push(std::atomic<Node *> &head, Node *node) {
  TerminationSignalBlock block;
  std::lock_guard<std::mutex> lock(registries().changes);
  node->next.store(head.load());
  head.store(node);
}

template <typename Node>
void unlinkNode(std::atomic<Node *> &head, Node *node) {
  TerminationSignalBlock block;
  std::lock_guard<std::mutex> lock(registries().changes);
  std::atomic<Node *> *link = &head;
  while (Node *current = link->load()) {
    if (current == node) {
      link->store(node->next.load());
      break;
    }
    link = &current->next;
  }
}

void removeTemporaries() {
  for (TemporaryNode *node = registries().temporaries.load(); node != nullptr;
       node = node->next.load())
    ::unlinkat(node->folder, node->path.get(), 0);
  // A folder holding anything else stays (rmdir removes only empty ones).
  for (TemporaryNode *node = registries().folders.load(); node != nullptr;
       node = node->next.load())
    ::rmdir(node->path.get());
}

void writeText(const char *text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    ssize_t written = ::write(STDERR_FILENO, text, left);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return;
    text += written;
    left -= static_cast<size_t>(written);
  }
}

void onTerminationSignal(int signalNumber) {
  const int savedErrno = errno;
  removeTemporaries();
  // Die of the signal as if no handler had been installed: the signal is
  // blocked while its handler runs, so it is delivered on return.
  ::signal(signalNumber, SIG_DFL);
  ::raise(signalNumber);
  errno = savedErrno;
}

void onBusError(int, siginfo_t *info, void *) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  const MappingNode *culprit = nullptr;
  for (MappingNode *node = registries().mappings.load(); node != nullptr;
       node = node->next.load())
    if (address >= node->begin && address < node->end)
      culprit = node;
  removeTemporaries();
  if (culprit != nullptr) {
    writeText(registries().programName.load());
    writeText(": error: '");
    writeText(culprit->quotedPath.get());
    writeText("': the file was truncated while it was being read\n");
    ::_exit(1);
  }
  // Not one of our inputs: a real fault. Returning repeats the access,
  // which now ends the process as SIGBUS always would.
  ::signal(SIGBUS, SIG_DFL);
}

void installTerminationHandler(int signalNumber) {
  struct sigaction previous {};
  if (::sigaction(signalNumber, nullptr, &previous) == 0 &&
      previous.sa_handler == SIG_IGN)
    return;
  struct sigaction action {};
  action.sa_handler = onTerminationSignal;
  sigemptyset(&action.sa_mask);
  // The handler removes files another handler might be removing too.
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaddset(&action.sa_mask, SIGHUP);
  ::sigaction(signalNumber, &action, nullptr);
}

// A path added to one of the registries' lists of paths, and taken out
// again (the remover a SignalRegistration calls).
template <std::atomic<TemporaryNode *> Registries::*list>
TemporaryNode *pushPath(const std::string &path, int folder = AT_FDCWD) {
  auto node = std::make_unique<TemporaryNode>();
  node->folder = folder;
  node->path = copyString(path);
  push(registries().*list, node.get());
  return node.release();
}
template <std::atomic<TemporaryNode *> Registries::*list>
void unregisterPath(void *node) {
  auto *registered = static_cast<TemporaryNode *>(node);
  unlinkNode(registries().*list, registered);
  delete registered;
}

} // namespace

void installInterruptCleanup(const char *programName) {
  registries().programName.store(programName);
  installTerminationHandler(SIGINT);
  installTerminationHandler(SIGTERM);
  installTerminationHandler(SIGHUP);
  struct sigaction action {};
  action.sa_sigaction = onBusError;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaddset(&action.sa_mask, SIGHUP);
  ::sigaction(SIGBUS, &action, nullptr);
}

SignalRegistration registerTemporary(const std::string &path, int folder) {
  return SignalRegistration(pushPath<&Registries::temporaries>(path, folder),
                            unregisterPath<&Registries::temporaries>);
}

SignalRegistration registerCreatedFolder(const std::string &path) {
  return SignalRegistration(pushPath<&Registries::folders>(path),
                            unregisterPath<&Registries::folders>);
}

SignalRegistration registerMapping(const void *base, uint64_t size,
                                   const std::string &path) {
  auto node = std::make_unique<MappingNode>();
  node->begin = reinterpret_cast<uintptr_t>(base);
  node->end = node->begin + static_cast<uintptr_t>(size);
  node->quotedPath = copyString(escapeControlCharacters(path));
  push(registries().mappings, node.get());
  return SignalRegistration(node.release(), [](void *node) {
    auto *mapping = static_cast<MappingNode *>(node);
    unlinkNode(registries().mappings, mapping);
    delete mapping;
  });
}

SignalRegistration::SignalRegistration(SignalRegistration &&other) noexcept
    : node_(other.node_), remove_(other.remove_) {
  other.node_ = nullptr;
}

SignalRegistration &
SignalRegistration::operator=(SignalRegistration &&other) noexcept {
  if (this != &other) {
    release();
    node_ = other.node_;
    remove_ = other.remove_;
    other.node_ = nullptr;
  }
  return *this;
}

void SignalRegistration::release() {
  if (node_ != nullptr)
    remove_(node_);
  node_ = nullptr;
}

TerminationSignalBlock::TerminationSignalBlock() {
  sigset_t terminating;
  sigemptyset(&terminating);
  sigaddset(&terminating, SIGINT);
  sigaddset(&terminating, SIGTERM);
  sigaddset(&terminating, SIGHUP);
  ::pthread_sigmask(SIG_BLOCK, &terminating, &savedMask_);
}

TerminationSignalBlock::~TerminationSignalBlock() {
  ::pthread_sigmask(SIG_SETMASK, &savedMask_, nullptr);
}

} // namespace offbundle
