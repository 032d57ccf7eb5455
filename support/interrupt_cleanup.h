// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the process must undo when a signal ends it.
//
// Outputs are written to temporaries beside their destinations
// (output_transaction.h). A run ended by SIGINT, SIGTERM or SIGHUP would leave
// those temporaries behind, and the folders made for them; the handlers
// installed here remove them, then let the signal end the process as it would
// have. Inputs are memory-mapped; a file truncated by someone else while it is
// mapped raises SIGBUS on the first touch past its new end, which the handler
// here turns into one "error:" line and exit status 1, with the temporaries
// removed, instead of a crash.
//
// A signal handler receives no context, so the temporaries, folders and
// mappings it must know about live in process-wide registries (the one piece
// of
// global state in the project, kept in interrupt_cleanup.cpp). They are
// lock-free lists of nodes that the handlers only read. Changes happen with
// the termination signals blocked in the changing thread, and the threads
// that copy payloads in parallel block them for good (see
// TerminationSignalBlock), so a termination handler runs on a thread that
// is not in the middle of a change. SIGBUS is synchronous and cannot be
// blocked: it reads the lists as they are, which is safe because a node
// leaves a list before it is freed and nodes are only freed by the thread
// that owns them, never while a copy thread runs.
//
// The registries work whether or not the handlers are installed: a program
// using the library installs them (installInterruptCleanup) only if it
// wants this behaviour.
#pragma once

#include <csignal>
#include <cstdint>
#include <fcntl.h>
#include <string>

namespace offbundle {

// Installs the handlers for SIGINT, SIGTERM, SIGHUP (unless the process was
// started with the signal ignored, as nohup does for SIGHUP) and SIGBUS.
// `programName` starts the error line of a SIGBUS on a mapped input; it
// must live as long as the process (argv[0] does).
void installInterruptCleanup(const char *programName);

// An entry in one of the registries, removed from it when released or
// destroyed.
class SignalRegistration {
public:
  SignalRegistration() = default;
  ~SignalRegistration() { release(); }
  SignalRegistration(SignalRegistration &&other) noexcept;
  SignalRegistration &operator=(SignalRegistration &&other) noexcept;
  SignalRegistration(const SignalRegistration &) = delete;
  SignalRegistration &operator=(const SignalRegistration &) = delete;

  void release();

private:
  friend SignalRegistration registerTemporary(const std::string &path,
                                              int folder);
  friend SignalRegistration registerCreatedFolder(const std::string &path);
  friend SignalRegistration registerMapping(const void *base, uint64_t size,
                                            const std::string &path);
  SignalRegistration(void *node, void (*remove)(void *))
      : node_(node), remove_(remove) {}
  void *node_ = nullptr;
  void (*remove_)(void *) = nullptr; // unlinks and frees the node
};

// A temporary file the handlers remove if a termination signal arrives
// while it is registered. Release it once the file is no longer a temporary
// of ours (renamed into place, or removed): a signal must leave it alone.
// A relative `path` is taken from `folder`, a descriptor of the folder that
// must stay open while the temporary is registered (AT_FDCWD: the current
// folder).
SignalRegistration registerTemporary(const std::string &path,
                                     int folder = AT_FDCWD);

// A folder made for outputs, which the handlers remove, once the
// temporaries are gone, if nothing else is in it. Register parents before
// the folders made in them (they are removed newest first); release it
// once the run keeps the folder.
SignalRegistration registerCreatedFolder(const std::string &path);

// A read-only mapping of an input file, so that a SIGBUS inside it can name
// the file.
SignalRegistration registerMapping(const void *base, uint64_t size,
                                   const std::string &path);

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread for its lifetime,
// restoring the previous mask afterwards: around a step that must not be
// cut in half (renaming a set of outputs into place), and for the whole
// life of helper threads.
class TerminationSignalBlock {
public:
  TerminationSignalBlock();
  ~TerminationSignalBlock();
  TerminationSignalBlock(const TerminationSignalBlock &) = delete;
  TerminationSignalBlock &operator=(const TerminationSignalBlock &) = delete;

private:
  sigset_t savedMask_;
};

} // namespace offbundle
