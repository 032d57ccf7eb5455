// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle's public C++ API: reading, bundling and unbundling clang offload
// bundles from another program, with the rules and messages of the tools.
//
// What it covers:
//   - Input::open reads any input the tools read: a binary or text bundle, a
//     compressed bundle (CCOB), a fat object, an ELF executable or shared
//     library (.hip_fatbin and .llvm.offloading sections), an ar archive of
//     any of these, an offload binary (0x10FF10AD);
//   - Input::bundles walks every bundle it holds and every entry of each:
//     the ID as stored, the parsed target, sizes and offsets, the
//     compression header;
//   - Input::payload reads an entry's bytes, decompressed, and
//     Input::forEachPayload each entry's of a bundle in one pass;
//   - Input::checkCompressedBundles decompresses every compressed bundle
//     against its hash, and Input::checkLinkedFile checks what the HIP
//     runtime follows in an executable or shared library, DLL or EXE
//     (Input::verify, what offbundle verify runs, does both);
//   - bundle() writes a set of entries into any container type, and
//     unbundle() takes out what each target can use, by the compatibility
//     rules of clang-offload-bundler, both on files, exactly as the tool;
//   - listEntryIds() gives what `clang-offload-bundler -list` prints;
//   - extract() writes the entries of the targets named into a folder;
//   - Rewrite plans and writes what `offbundle prune`, `compress` and
//     `decompress` make of a file: its report says what the output will
//     be before anything is written; a file Input::verify refuses is
//     refused, with its Error.
//
// Rules: every failure is a value (Error, one line as the tool would print
// after "error: ", and an ErrorCode saying what kind of failure it is, for a
// program to act on without reading the line); nothing exits the process,
// prints, or keeps global state; objects may be used from several threads as
// long as each Input is used by one thread at a time.
//
// Inputs are mapped into memory, not copied: a file that another process
// truncates while an Input or a Rewrite holds it raises SIGBUS when the
// lost bytes are read, as with any mapped file. The library installs no
// signal handler (that is the program's to decide); the offbundle tools
// catch it and report the file as truncated while it was being read.
//
// Link with the CMake target offbundle::offbundle (find_package(offbundle))
// or `pkg-config --cflags --libs offbundle`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace offbundle::api {

// What kind of failure an Error is. The message says which file and what
// exactly; the code is what a program branches on. New kinds may be added
// in later versions, so a switch over them wants a default.
enum class ErrorCode {
  // None of the kinds below (an internal limit reached, say).
  Other,
  // The options or arguments are refused before any file is read, as the
  // tools refuse their command lines: an unknown type, malformed, duplicate
  // or conflicting targets, as many targets as inputs or outputs wanted, a
  // compression level zstd does not have, an index past the last bundle or
  // entry.
  InvalidArgument,
  // A file or folder named does not exist (ENOENT, ENOTDIR).
  NotFound,
  // The system refused access to a file or folder (EACCES, EPERM, EROFS).
  Permission,
  // An output could not be written for want of room: the disk or the
  // quota is full, or the file would be too large (ENOSPC, EDQUOT, EFBIG).
  OutOfSpace,
  // Reading or writing a file failed otherwise (any other errno), or a
  // file changed while it was read.
  Io,
  // An input's bytes are not what their format says: truncated or
  // malformed bundles, archives, objects or metadata, and compressed
  // bundles whose data does not decompress to their header's size or
  // hash.
  DamagedInput,
  // A sound input, or a part of one, that offbundle does not handle: a
  // device or special file, a fat object that is not ELF, an AIX big
  // archive, an ELF layout or a kpack version it does not rewrite or read.
  Unsupported,
  // The input holds no entry for a target asked for (unbundle(), without
  // allowMissingBundles), or, for extract(), no entry at all.
  NoSuchTarget,
};

// Why an operation failed: one line, without the "error: " prefix, and
// its kind.
struct Error {
  std::string message;
  ErrorCode code = ErrorCode::Other;
};

// The zstd level bundles are compressed at unless the options say
// otherwise: LLVM 22's clang-offload-bundler's default.
inline constexpr int kDefaultCompressionLevel = 3;

// A value or the Error that prevented it. (The library's own Result type
// is not part of the installed headers, which stand alone.)
template <typename T> class Expected {
public:
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // Require ok().
  T &value() { return std::get<0>(state_); }
  const T &value() const { return std::get<0>(state_); }
  T &operator*() { return value(); }
  const T &operator*() const { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  // Requires !ok().
  const Error &error() const { return std::get<1>(state_); }

private:
  std::variant<T, Error> state_;
};

// The result of an operation that produces files rather than a value.
using Outcome = Expected<std::monostate>;

// A bundle entry's target: "<kind>-<triple>[-<target id>]".
struct Target {
  std::string offloadKind; // host, hip, hipv4, openmp, ...
  std::string triple;      // as the bundler spells it, e.g. amdgcn-amd-amdhsa-
  std::string targetId;    // e.g. gfx90a:xnack+; empty when there is none
};

// Parses an entry ID as read from a bundle; IDs with the three-field triples
// of earlier releases ("host-x86_64-unknown-linux") are normalised to four
// fields, as the tool matches them. An Error for an ID that is not one.
Expected<Target> parseEntryId(std::string_view id);

// Whether an entry of target `entry` may serve the requested target, by
// clang-offload-bundler's rules (kinds, triples, target ID features).
bool isCompatible(const Target &entry, const Target &requested,
                  bool hipOpenmpCompatible = false);

// The header of a compressed bundle (CCOB).
struct Compression {
  uint16_t version = 0;
  std::string method; // "zlib" or "zstd"
  // Header plus compressed data, as the header records it (version 2 and
  // later).
  std::optional<uint64_t> totalSize;
  uint64_t uncompressedSize = 0;
  uint64_t hash = 0; // the MD5-derived hash the header stores
};

enum class ContainerFormat {
  BinaryBundle,
  TextBundle,
  FatObject,
  OffloadBinary,
  // Code objects of ROCm's kpack archives: read from an archive (section
  // is the table key, "<kernel_name>#<index>"), or those a kpack'd binary
  // loads from the archives it names (one bundle per HIP fat binary
  // wrapper), which are not in the file (fileSize 0).
  Kpack
};

struct Entry {
  std::string id;               // as stored
  std::optional<Target> target; // parsed; nullopt when the ID is not one
  // Where the payload lies in the (decompressed) bundle, and its size.
  uint64_t offset = 0;
  uint64_t size = 0;
  // Where it lies in the input file; nullopt inside compressed bundles
  // and thin archive members.
  std::optional<uint64_t> fileOffset;
  // For Kpack bundles, the bytes it takes in the input file: its stored
  // (perhaps compressed) size in an archive, 0 in a kpack'd binary.
  std::optional<uint64_t> storedSize;
};

struct Bundle {
  std::string member;  // the archive member holding it; "" outside archives
  std::string section; // the ELF section holding it; "" for the file itself
  ContainerFormat format = ContainerFormat::BinaryBundle;
  // Where its bytes (compressed, if it is) lie in the input file. A bundle
  // whose bytes are not in the file (in a thin archive's member, which is a
  // file of its own, or loaded by a kpack'd binary) takes no room there:
  // fileSize 0, and no fileOffset.
  std::optional<uint64_t> fileOffset;
  uint64_t fileSize = 0;
  std::optional<Compression> compression;
  // In file order, repeated IDs included.
  std::vector<Entry> entries;
};

// An opened input and every bundle it holds.
class Input {
public:
  // `type` is the bundler's -type of the input ("o" for objects and
  // binaries, "bc", "i", ...); it decides how text bundles are read, and
  // another value is refused as the bundler refuses it.
  // Compressed binary bundles (what clang writes) are decompressed only as
  // far as their headers, which hold every entry's ID, place and size:
  // opening costs little memory and time however large they are, and the
  // header's sizes and entries are taken as they decode: the hash, which
  // covers the whole bundle, cannot be checked yet. Their payloads are
  // decompressed, one bundle at a time, and their hashes checked, when
  // payload(), forEachPayload() or checkCompressedBundles() reads them. Other
  // compressed bundles (of text bundles or fat objects) are decompressed, and
  // their hashes checked, here.
  static Expected<Input> open(const std::string &path,
                              const std::string &type = "o");

  Input(Input &&) noexcept;
  Input &operator=(Input &&) noexcept;
  ~Input();

  const std::string &path() const;
  const std::vector<Bundle> &bundles() const;
  // The bytes of entry `entry` of bundle `bundle` (indices into bundles()
  // and its entries): for fat objects, the device object as the tool
  // writes it. A compressed bundle is decompressed at each call.
  Expected<std::string> payload(size_t bundle, size_t entry) const;
  // Calls visit(entry, bytes) for every entry of bundle `bundle` in file
  // order, reading (and decompressing) the bundle once: for reading every
  // entry, cheaper than payload() per entry. `bytes` is valid during the
  // call only; plain payloads are views of the file, not copies, so a
  // visitor reading headers touches only those. Returning false stops the
  // walk.
  Outcome
  forEachPayload(size_t bundle,
                 const std::function<bool(size_t entry, std::string_view bytes)>
                     &visit) const;
  // Decompresses every compressed bundle that open() read only the header
  // of, one at a time, checking that it decompresses to the size and hash
  // its header gives. The first fault found is the Error.
  Outcome checkCompressedBundles() const;
  // The code object URI of an entry's bytes in the file
  // ("file:///abs/path#offset=N&size=M"), as ROCm's runtime and debugger
  // name code objects; nullopt when the bytes exist only decompressed or in
  // another file (compressed bundles, thin archive members), or when the
  // file can no longer be reached to name it.
  std::optional<std::string> entryUri(size_t bundle, size_t entry) const;
  // For an executable or shared library with HIP code, what the HIP
  // runtime and the tools run on linked files rely on: every HIP fat binary
  // wrapper (.hipFatBinSegment) has the magic "HIPF" and points at the
  // start of a bundle in .hip_fatbin, and the program headers lie where
  // loaders and strip expect them; in a DLL or EXE, every wrapper
  // (.hipFatB) points at the start of a bundle in .hip_fat and a base
  // relocation fixes its pointer up. The first fault found is the Error.
  // Other files pass.
  Outcome checkLinkedFile() const;
  // What `offbundle verify` checks of the file once open() has read it:
  // checkLinkedFile(), then checkCompressedBundles(); the first fault found
  // is the Error. Rewrite::plan() and unpackKpack() check their input the
  // same way first, and refuse a file this refuses with the same Error.
  Outcome verify() const;

private:
  struct State;
  explicit Input(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// How many leading bytes of a file mayHoldOffloadCode() needs (fewer only
// when the file is shorter): enough to reach a PE file's header.
inline constexpr size_t kOffloadProbeBytes = 4096;

// Whether a file starting with `leadingBytes` can hold GPU code that
// offbundle reads: an offload bundle (plain or compressed), an offload
// binary, an ELF, COFF or PE file, an archive, or bitcode. False rules the
// file out without reading more of it; true means only that Input::open()
// is worth trying.
bool mayHoldOffloadCode(std::string_view leadingBytes);

// The files a list of paths names, as offbundle's commands take them. A
// file stands for itself, and a symlink named in the list is followed. A
// folder is walked recursively, each folder's entries in name order, and
// the symlinks inside it are never followed: a link to a library elsewhere
// does not bring that library in. Of the files found in folders, those
// whose first bytes rule out GPU code (mayHoldOffloadCode) are skipped and
// counted, as are symlinks and special files (FIFOs, sockets, devices),
// which are never opened; offbundle's own temporaries
// (".NAME.offbundle-XXXXXX") are set apart. Nothing is opened for writing.
// A folder or file that cannot be read is one failure in its place, and
// the walk goes on. A file or folder reached twice (named twice, or named
// and also inside a folder named) is taken once, where it was first
// reached.
//
// Below each folder named, every folder and file is opened relative to its
// parent's descriptor without following a symbolic link, so that a folder
// swapped for a link while the walk runs cannot lead it elsewhere. Each file
// found records where it was found (its folder's resolved path and identity,
// and its name there), which Rewrite::plan uses to reach that very file
// again.
struct WalkedFile {
  std::string path;
  bool inFolder = false; // found by walking a folder in the list
  // Why it could not be read, for a file found in a folder; "" when it
  // could, and for a file named in the list, which Input::open reports on.
  std::string failure;
  // The file's identity, its number of names (hard links) and its size;
  // 0 when it could not be read.
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t links = 0;
  uint64_t size = 0;
  // Whether it is a regular file (not a FIFO, socket or device named in the
  // list).
  bool regular = false;
  // Where it was found, for a regular file that could be read: its folder's
  // absolute path with no symbolic link in it, that folder's device and
  // inode, and the file's name in it.
  std::string folder;
  uint64_t folderDevice = 0;
  uint64_t folderInode = 0;
  std::string name;
};

struct SkippedFiles {
  uint64_t noGpuCode = 0; // files in folders that hold no GPU code
  uint64_t symlinks = 0;  // symlinks in folders, not followed
  uint64_t special = 0;   // FIFOs, sockets and devices in folders
};

struct FileWalk {
  // In the order of the list; within a folder, in name order.
  std::vector<WalkedFile> files;
  SkippedFiles skipped;
  bool walkedFolder = false; // some path in the list was a folder
  // offbundle's temporaries found in folders, neither listed in `files`
  // nor counted.
  std::vector<WalkedFile> temporaries;
};

FileWalk walkFiles(const std::vector<std::string> &paths);

// What `clang-offload-bundler -type=<type> -list -input=<path>` prints, one
// ID per line, in the same order.
Expected<std::vector<std::string>> listEntryIds(const std::string &path,
                                                const std::string &type);

// clang-offload-bundler -type=<type> -targets=... -input=... -output=...
struct BundleOptions {
  std::string type;
  std::vector<std::string> targets; // one per input, as on the command line
  std::vector<std::string> inputs;
  std::string output;
  uint64_t alignment = 1;
  bool compress = false;
  int compressionLevel = kDefaultCompressionLevel;
  uint16_t compressedFormatVersion = 3; // 2 or 3
};
Outcome bundle(const BundleOptions &options);

// clang-offload-bundler -unbundle -type=<type> -targets=... -input=...
// -output=... (type "a" splits an archive into device archives).
struct UnbundleOptions {
  std::string type;
  std::vector<std::string> targets; // one per output
  std::string input;
  std::vector<std::string> outputs;
  bool allowMissingBundles = false;
  bool hipOpenmpCompatible = false;
  bool checkInputArchive = false; // type "a" only
  bool verifyHash = true;
};
Outcome unbundle(const UnbundleOptions &options);

// offbundle extract (and clang-offload-bundler -unbundle -output-dir): the
// entries of every bundle of `input`, all of them or those of the targets
// named, written into `outputDirectory` (created when missing), one file
// per entry named after its ID, decompressed; the files appear together or
// not at all.
struct ExtractOptions {
  std::string input;
  std::string outputDirectory;
  // The targets whose entries are written, as RewriteOptions::keep takes
  // them; none: every entry.
  std::vector<std::string> targets;
};
// The paths written, in file order. When targets are named and none of
// them selects an entry, none, and nothing is written.
Expected<std::vector<std::string>> extract(const ExtractOptions &options);

// offbundle prune, compress and decompress, on every file the tool
// rewrites: a standalone bundle (plain or compressed), a relocatable object
// holding one, an archive of those, an executable or a shared library
// (docs/offbundle.md says what each becomes).
enum class RewriteKind { Prune, Compress, Decompress };

struct RewriteOptions {
  RewriteKind kind = RewriteKind::Compress;
  // Prune: the targets whose entries stay (host entries always stay), as
  // `offbundle prune --keep` takes them: "gfx90a", "gfx90a:xnack+", an
  // entry ID such as "hipv4-amdgcn-amd-amdhsa--gfx90a", or "host"; a value
  // may list several, separated by commas.
  std::vector<std::string> keep;
  // The zstd level of bundles compressed (compress, and prune's
  // recompression of compressed bundles): -131072 to 22, or check() and
  // plan() refuse it.
  int compressionLevel = kDefaultCompressionLevel;
  // Whether compressed bundles are checked against the hash in their header
  // (plan() checks every one of them, as Input::verify does, before the
  // rewrite decompresses any); false leaves the hashes unchecked.
  bool verifyHash = true;
  // Where rewritten archives switch to the 64-bit symbol table, as LLVM's
  // archive writer does (its SYM64_THRESHOLD).
  uint64_t archiveSym64Threshold = uint64_t{1} << 32;
  // How many bundles are compressed or decompressed at once; 0: one per
  // core.
  unsigned threads = 0;
};

// What the output will hold, known once the rewrite is planned.
struct RewriteReport {
  uint64_t inputSize = 0;
  uint64_t outputSize = 0;
  // Prune: the entries kept (host entries included), the device entries
  // among them, and the entries removed.
  uint64_t entriesKept = 0;
  uint64_t deviceEntriesKept = 0;
  uint64_t entriesRemoved = 0;
  // Whether any bundle changes.
  bool changed = false;
  // The bundles and offload binaries the input holds (0: no GPU code).
  uint64_t bundles = 0;
  // Why nothing could change, when the file holds nothing the rewrite works
  // on (offload binaries, for compress and decompress); "" otherwise.
  std::string nothingToDo;
};

// A rewrite planned: the input read as far as the new layout needs (a
// library's bundles are decompressed or compressed only when written), and
// the report of what the output will be. Planning writes nothing. The input
// is first read and checked as Input::open and Input::verify read and check
// it (its compressed bundles' hashes left out when
// RewriteOptions::verifyHash is false): a file `offbundle verify` refuses is
// refused with verify's Error, so that no rewrite turns a damaged file into
// one that looks sound.
class Rewrite {
public:
  // The error plan() would give for any file when the options themselves
  // are wrong (prune's targets); for checking them once before many files.
  static Outcome check(const RewriteOptions &options);
  static Expected<Rewrite> plan(const std::string &input,
                                const RewriteOptions &options);
  // The file a walk found, reached again where the walk found it, by
  // descriptor and without following a symbolic link: it must still be the
  // same regular file, in the same folder, or it is refused. For rewriting
  // it in place.
  static Expected<Rewrite> plan(const WalkedFile &input,
                                const RewriteOptions &options);

  Rewrite(Rewrite &&) noexcept;
  Rewrite &operator=(Rewrite &&) noexcept;
  ~Rewrite();

  const RewriteReport &report() const;
  // Writes the output to `path`, which appears only once complete (an
  // existing file is replaced then, and left as it was on any failure). A
  // new file gets the input's permissions, less the umask.
  Outcome write(const std::string &path) const;
  // Replaces the input itself with the output, atomically: the file keeps
  // its permissions, owner, group and extended attributes (ACLs and file
  // capabilities among them), or nothing is written; the new bytes are on
  // the disk before it returns. `otherNames` are the input's other hard
  // links: all its names are pointed at the new file as one unit, so that
  // they still are one file (a run killed half way is finished by the next
  // run over the same files). Every name is checked first: if one cannot be
  // pointed at a new file (its folder not writable, immutable or
  // append-only), nothing is written. Every step goes through descriptors
  // of the folders, opened without following a symbolic link (see
  // walkFiles).
  Outcome writeInPlace(const std::vector<std::string> &otherNames = {}) const;
  Outcome writeInPlace(const std::vector<WalkedFile> &otherNames) const;

private:
  struct State;
  explicit Rewrite(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// A GPU kernel of an AMDGPU code object (a bundle entry's payload), as its
// metadata note describes it (code object versions 3 to 6), with its
// occupancy in waves per SIMD as clang 22's kernel-resource-usage remark
// gives it, and the size of its code.
struct Kernel {
  std::string name;       // mangled, as stored
  uint64_t vgprCount = 0; // AGPRs included, as the metadata counts them
  uint64_t agprCount = 0;
  uint64_t sgprCount = 0;
  uint64_t vgprSpillCount = 0;
  uint64_t sgprSpillCount = 0;
  uint64_t groupSegmentFixedSize = 0;   // LDS bytes
  uint64_t privateSegmentFixedSize = 0; // scratch bytes per lane
  bool usesDynamicStack = false;
  uint64_t wavefrontSize = 64;
  uint64_t maxFlatWorkgroupSize = 0;
  uint64_t kernargSegmentSize = 0;
  std::optional<uint32_t> occupancy; // nothing for an unknown processor
  std::optional<uint64_t> codeBytes; // nothing without its symbol
};
// The processor the code object is built for and its kernels, in metadata
// order; an Error for what is not an AMDGPU code object or whose metadata
// is malformed.
struct CodeObjectKernels {
  std::string processor;
  std::vector<Kernel> kernels;
};
Expected<CodeObjectKernels> readKernels(std::string_view codeObject);

// An ordinary HIP fat binary rebuilt from a kpack'd ELF program or library
// (HIP wrappers with the magic HIPK and a .rocm_kpack_ref marker) and the
// kpack archives its marker names: HIPF wrappers, each pointing at a bundle
// of its code objects in .hip_fatbin, plain or compressed, for runtimes and
// tools without kpack support. The output appears only once complete, with
// the input's permissions less the umask. A kpack'd file Input::verify
// refuses is refused with its Error, and nothing is written.
struct UnpackKpackOptions {
  bool compress = false;
  int compressionLevel = kDefaultCompressionLevel;
};
struct UnpackKpackReport {
  size_t bundles = 0;     // one per HIP wrapper
  size_t codeObjects = 0; // in all of them
};
Expected<UnpackKpackReport> unpackKpack(const std::string &input,
                                        const std::string &output,
                                        const UnpackKpackOptions &options = {});

} // namespace offbundle::api
