// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// -unbundle -output-dir=<folder> (and offbundle extract, which selects
// entries by target): every entry of every bundle of the input
// (a bundle, compressed bundles, a fat object, an executable or shared
// library's .hip_fatbin and .llvm.offloading sections, an archive of any of
// these) written into one folder, with no need to know the targets first.
//
// Names: the entry ID with every byte outside [A-Za-z0-9._+-] (':' above
// all) written '_', prefixed by "<member>-" for entries of archive members;
// when a name would occur more than once, every occurrence gets ".<n>", n
// counting from 0 in file order. The folder is created (with its parents)
// when missing, and removed again when the run fails, so that a failed run
// leaves nothing behind; the files appear together or not at all.
#include <cerrno>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "bundler/bundle_discovery.h"
#include "bundler/operations.h"
#include "formats/code_object_uri.h"
#include "formats/fat_object.h"
#include "support/interrupt_cleanup.h"
#include "support/output_transaction.h"

namespace offbundle {
namespace {

std::string safeFileName(std::string_view text) {
  std::string name;
  for (unsigned char c : text) {
    bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
                c == '+';
    name += kept ? static_cast<char>(c) : '_';
  }
  if (name.empty())
    return "_";
  // No hidden files, and never "." or "..".
  if (name.front() == '.')
    name.front() = '_';
  return name;
}

std::string_view baseNameOf(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string joinPath(const std::string &folder, const std::string &name) {
  if (!folder.empty() && folder.back() == '/')
    return folder + name;
  return folder + "/" + name;
}

// Creates a folder and its missing parents, and removes the ones it created
// unless told the run succeeded.
class CreatedFolders {
public:
  ~CreatedFolders() {
    if (keep_)
      return;
    for (auto it = created_.rbegin(); it != created_.rend(); ++it)
      ::rmdir(it->c_str());
  }
  Status create(const std::string &folder) {
    std::string prefix;
    size_t at = 0;
    while (at <= folder.size()) {
      size_t slash = folder.find('/', at);
      if (slash == std::string::npos)
        slash = folder.size();
      prefix = folder.substr(0, slash);
      at = slash + 1;
      if (prefix.empty() || prefix == "." || prefix == "..")
        continue;
      struct stat info;
      if (::stat(prefix.c_str(), &info) == 0) {
        if (!S_ISDIR(info.st_mode))
          return systemError(prefix, ENOTDIR);
        continue;
      }
      if (errno != ENOENT)
        return systemError(prefix, errno);
      // Made and registered with termination signals held, so that a
      // signal finds the folder registered or finds no folder.
      TerminationSignalBlock block;
      if (::mkdir(prefix.c_str(), 0777) != 0) {
        // Made meanwhile by another run (extract works on several files
        // at once): a folder is as good as one made here, but not ours to
        // remove.
        if (errno == EEXIST && ::stat(prefix.c_str(), &info) == 0 &&
            S_ISDIR(info.st_mode))
          continue;
        return systemError(prefix, errno);
      }
      created_.push_back(prefix);
      registrations_.push_back(registerCreatedFolder(prefix));
    }
    return Status::success();
  }
  void keep() {
    keep_ = true;
    registrations_.clear();
  }

private:
  std::vector<std::string> created_;
  // So that a termination signal removes them too, while they are empty.
  std::vector<SignalRegistration> registrations_;
  bool keep_ = false;
};

struct Extracted {
  const DiscoveredBundle *bundle;
  std::string name;
  EntryPayload payload;
};

// Names that repeat are numbered in file order; a numbered name that
// happens to equal another entry's name gets underscores until unique.
void giveUniqueNames(std::vector<Extracted> &entries) {
  std::map<std::string, size_t> occurrences;
  for (const Extracted &entry : entries)
    ++occurrences[entry.name];
  std::map<std::string, size_t> numbered;
  std::set<std::string> used;
  for (Extracted &entry : entries) {
    if (occurrences[entry.name] > 1)
      entry.name += "." + std::to_string(numbered[entry.name]++);
    while (!used.insert(entry.name).second)
      entry.name += "_";
  }
}

// Writes the entries into `folder`, made when missing, all or nothing; a
// bundle whose decompression was deferred is decompressed for its entries,
// which come together, in file order, and let go of after them.
Result<std::vector<std::string>>
writeEntries(const std::vector<Extracted> &entries, const std::string &folder) {
  // Declared before the transaction, so that on failure the temporaries go
  // first and the folders they were in can then be removed.
  CreatedFolders folders;
  if (Status status = folders.create(folder); !status.ok())
    return status.takeError();
  OutputTransaction transaction;
  std::vector<std::string> written;
  const DiscoveredBundle *decompressedBundle = nullptr;
  std::unique_ptr<InputFile> decompressed;
  // One output at a time, each closed once written: an archive may hold
  // thousands of entries, more than a process may keep files open.
  for (const Extracted &entry : entries) {
    if (entry.bundle->deferred && entry.bundle != decompressedBundle) {
      decompressed.reset();
      auto whole = decompressDeferred(*entry.bundle);
      if (!whole)
        return whole.takeError();
      decompressed = std::move((*whole)->data);
      decompressedBundle = entry.bundle;
    }
    const InputFile &source =
        entry.bundle->deferred ? *decompressed : *entry.bundle->data;
    std::string path = joinPath(folder, entry.name);
    auto output = transaction.create(path);
    if (!output)
      return output.takeError();
    Status status =
        entry.payload.rewrittenObject
            ? writeElfPlan(**output, *entry.payload.rewrittenObject, {})
            : (*output)->copyFrom(source, entry.payload.offset,
                                  entry.payload.size);
    if (!status.ok())
      return status.takeError();
    if (Status finished = transaction.finish(**output); !finished.ok())
      return finished.takeError();
    written.push_back(std::move(path));
  }
  if (Status status = transaction.commit(); !status.ok())
    return status.takeError();
  folders.keep();
  return written;
}

} // namespace

Status unbundleAllToDirectory(const BundlerConfig &config,
                              OperationReport &report) {
  auto written = extractEntries(config, {}, report);
  if (!written)
    return written.takeError();
  for (const std::string &path : *written)
    report.standardOutput += path + "\n";
  return Status::success();
}

Result<std::vector<std::string>> extractEntries(const BundlerConfig &config,
                                                const EntrySelector &selected,
                                                OperationReport &report) {
  const std::string &folder = *config.output.outputDirectory;
  const std::string &inputName = config.files.inputFileNames.front();
  auto input = openInput(inputName);
  if (!input)
    return input.takeError();
  // Compressed bundles are read as far as their headers here, and each is
  // decompressed whole only when an entry of it is written, and let go of
  // before the next: one bundle at a time is held, and bundles no entry is
  // taken from are never decompressed. -verbose reports every bundle's
  // decompression in file order, as discovery makes them.
  DiscoveryOptions options = discoveryOptions(config, report.diagnostics);
  options.compressedHeadersOnly = !options.verboseReport;
  auto discovery = discoverBundles(**input, options, DiscoveryMode::Strict);
  if (!discovery)
    return discovery.takeError();

  std::vector<Extracted> entries;
  InventoryVisitor visitor;
  visitor.entry = [&](const DiscoveredBundle &bundle, std::string_view id,
                      BundleReader &bundleEntries) -> Result<EntryWalk> {
    if (selected && !selected(id))
      return EntryWalk::Continue;
    std::string name = safeFileName(id);
    if (!bundle.member.empty())
      name = safeFileName(baseNameOf(bundle.member)) + "-" + name;
    auto payload = bundleEntries.readEntry();
    if (!payload)
      return payload.takeError();
    entries.push_back({&bundle, std::move(name), std::move(*payload)});
    return EntryWalk::Continue;
  };
  if (Status walked =
          walkInventory(*discovery, config.output, report.diagnostics, visitor);
      !walked.ok())
    return walked.takeError();
  if (entries.empty() && selected) {
    // Taking nothing rests on headers read before any hash could be
    // checked: a damaged compressed bundle could hide the targets asked
    // for. Each is checked before the answer is given.
    if (Status checked = checkDeferredBundles(*discovery); !checked.ok())
      return checked.takeError();
    return std::vector<std::string>();
  }
  if (entries.empty())
    return fileError(inputName,
                     "no bundle entries to extract: it holds no offload "
                     "bundle, .hip_fatbin or .llvm.offloading data",
                     ErrorCode::NoSuchTarget);

  giveUniqueNames(entries);
  return writeEntries(entries, folder);
}

} // namespace offbundle
