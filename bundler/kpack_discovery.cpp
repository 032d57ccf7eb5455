// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kpack'd binaries and kpack archives as bundles (see kpack_discovery.h):
// finding the archives along the search paths, checking them as the
// runtime relies on them, and laying each wrapper's code objects out as a
// binary bundle.

#include "bundler/kpack_discovery.h"

#include <algorithm>
#include <dirent.h>
#include <filesystem>
#include <memory>
#include <sys/stat.h>

#include "formats/binary_bundle.h"
#include "formats/kpack/kpack_archive.h"
#include "formats/kpack/kpack_marker.h"
#include "support/input_file.h"

namespace offbundle {
namespace {

// What clang calls HIP code objects in the bundles it writes.
constexpr std::string_view kEntryIdPrefix = "hipv4-amdgcn-amd-amdhsa--";
// clang's -bundle-align for HIP.
constexpr uint64_t kBundleAlignment = 4096;

struct OpenedArchive {
  std::string path;
  std::unique_ptr<InputFile> file;
  KpackArchive archive;

  bool lists(std::string_view architecture) const {
    const std::vector<std::string> &listed = archive.architectures();
    return std::find(listed.begin(), listed.end(), architecture) !=
           listed.end();
  }
};

struct CodeObject {
  std::string id;
  std::string bytes;
  uint64_t storedSize = 0;
};

bool isRegularFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string folderOf(const std::string &path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A search path as the runtime resolves it: relative to the binary's
// folder unless absolute, then made canonical as far as it exists
// (std::filesystem::weakly_canonical, as ROCm's loader does).
std::string resolveSearchPath(const std::string &folder,
                              const std::string &path) {
  const std::string joined = path.starts_with("/") ? path : folder + "/" + path;
  std::error_code failed;
  std::filesystem::path canonical =
      std::filesystem::weakly_canonical(joined, failed);
  return failed ? joined : canonical.string();
}

// The files a search path names: itself, or the matches of its pattern.
Result<std::vector<std::string>> filesOfSearchPath(const std::string &folder,
                                                   const std::string &path) {
  const std::string resolved = resolveSearchPath(folder, path);
  const size_t placeholder = resolved.find(kKpackArchitecturePlaceholder);
  if (placeholder == std::string::npos) {
    if (isRegularFile(resolved))
      return std::vector<std::string>{resolved};
    return std::vector<std::string>();
  }
  const size_t slash = resolved.rfind('/');
  if (placeholder < slash)
    return makeError("kpack search path '" + path + "' has " +
                     std::string(kKpackArchitecturePlaceholder) +
                     " in a folder name, which offbundle cannot expand");
  const std::string directory = resolved.substr(0, slash);
  const std::string prefix =
      resolved.substr(slash + 1, placeholder - slash - 1);
  const std::string suffix =
      resolved.substr(placeholder + kKpackArchitecturePlaceholder.size());
  std::vector<std::string> names;
  if (DIR *listing = ::opendir(directory.c_str())) {
    while (const dirent *entry = ::readdir(listing)) {
      const std::string_view name = entry->d_name;
      if (name.size() > prefix.size() + suffix.size() &&
          name.starts_with(prefix) && name.ends_with(suffix))
        names.emplace_back(name);
    }
    ::closedir(listing);
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> files;
  for (const std::string &name : names)
    if (isRegularFile(directory + "/" + name))
      files.push_back(directory + "/" + name);
  return files;
}

// Opens an archive and checks that its table matches what it lists.
Result<OpenedArchive> openArchive(const std::string &path) {
  OpenedArchive opened;
  opened.path = path;
  auto file = InputFile::open(path);
  if (!file)
    return file.takeError();
  opened.file = std::move(*file);
  auto archive = KpackArchive::read(opened.file->contents());
  if (!archive)
    return fileError(path, archive.error());
  opened.archive = std::move(*archive);
  for (const KpackBinary &binary : opened.archive.binaries())
    for (const KpackCodeObject &codeObject : binary.codeObjects)
      if (!opened.lists(codeObject.architecture))
        return fileError(path, "table of contents entry '" + binary.key +
                                   "' is for " + codeObject.architecture +
                                   ", which the archive's gfx_arches does "
                                   "not list");
  return opened;
}

// A code object's bytes, checked as the runtime will load them. The Error
// does not name the archive.
Result<CodeObject> loadCodeObject(const KpackArchive &archive,
                                  const KpackBinary &binary,
                                  const KpackCodeObject &codeObject) {
  auto bytes = archive.codeObject(codeObject);
  if (!bytes)
    return makeError("'" + binary.key + "': " + bytes.error().message);
  if (Status elf = checkAmdgpuCodeObject(*bytes, codeObject.architecture);
      !elf.ok())
    return makeError("'" + binary.key + "' for " + codeObject.architecture +
                     " is not an AMDGPU code object for " +
                     codeObject.architecture + ": " + elf.error().message);
  return CodeObject{std::string(kEntryIdPrefix) + codeObject.architecture,
                    std::move(*bytes), archive.storedSize(codeObject.ordinal)};
}

// A binary bundle of the code objects, as clang lays HIP bundles out, and
// what each takes in the file read (`inFile`: an archive read alone).
Result<AssembledKpackBundle>
bundleOf(std::string name, const std::vector<CodeObject> &codeObjects,
         bool inFile) {
  std::vector<BinaryBundleEntryShape> shapes;
  for (const CodeObject &codeObject : codeObjects)
    shapes.push_back({codeObject.id, codeObject.bytes.size()});
  auto layout = layOutBinaryBundle(shapes, kBundleAlignment);
  if (!layout)
    return layout.takeError();
  AssembledKpackBundle assembled;
  assembled.name = std::move(name);
  assembled.bundle = layout->header;
  for (size_t i = 0; i < codeObjects.size(); ++i) {
    assembled.bundle.resize(layout->offsets[i], '\0');
    assembled.bundle += codeObjects[i].bytes;
    assembled.storedSizes.push_back(inFile ? codeObjects[i].storedSize : 0);
  }
  return assembled;
}

} // namespace

Result<std::vector<AssembledKpackBundle>>
assembleKpackReferences(const std::string &binaryPath,
                        std::string_view markerBytes,
                        const std::vector<uint64_t> &wrapperIndices) {
  auto marker = readKpackMarker(markerBytes);
  if (!marker)
    return fileError(binaryPath, marker.error());
  const std::string folder = folderOf(binaryPath);
  std::vector<OpenedArchive> archives;
  for (const std::string &path : marker->searchPaths) {
    auto files = filesOfSearchPath(folder, path);
    if (!files)
      return fileError(binaryPath, files.error());
    for (const std::string &file : *files) {
      auto opened = openArchive(file);
      if (!opened)
        return opened.takeError();
      archives.push_back(std::move(*opened));
    }
  }
  if (archives.empty()) {
    std::string searched;
    for (const std::string &path : marker->searchPaths)
      searched +=
          (searched.empty() ? "" : ", ") + resolveSearchPath(folder, path);
    return fileError(binaryPath, "no kpack archive found for kernel_name '" +
                                     marker->kernelName + "' (searched " +
                                     searched + ")");
  }

  std::vector<AssembledKpackBundle> bundles;
  for (uint64_t index : wrapperIndices) {
    const std::string key = kpackBinaryKey(*marker, index);
    std::vector<CodeObject> codeObjects;
    std::vector<std::string> taken;
    for (const OpenedArchive &opened : archives) {
      const KpackBinary *binary = opened.archive.find(key);
      if (!binary)
        continue;
      for (const KpackCodeObject &codeObject : binary->codeObjects) {
        if (std::find(taken.begin(), taken.end(), codeObject.architecture) !=
            taken.end())
          continue;
        auto loaded = loadCodeObject(opened.archive, *binary, codeObject);
        if (!loaded)
          return fileError(opened.path, loaded.error());
        taken.push_back(codeObject.architecture);
        codeObjects.push_back(std::move(*loaded));
      }
    }
    if (codeObjects.empty())
      return fileError(binaryPath, "no kpack archive holds '" + key + "' (" +
                                       std::to_string(archives.size()) +
                                       " archives found, the first " +
                                       archives.front().path + ")");
    auto bundle = bundleOf(key, codeObjects, /*inFile=*/false);
    if (!bundle)
      return fileError(binaryPath, bundle.error());
    bundles.push_back(std::move(*bundle));
  }
  return bundles;
}

Result<std::vector<AssembledKpackBundle>>
assembleKpackArchive(std::string_view archiveBytes) {
  auto archive = KpackArchive::read(archiveBytes);
  if (!archive)
    return archive.takeError();
  OpenedArchive opened;
  opened.archive = std::move(*archive);
  std::vector<AssembledKpackBundle> bundles;
  for (const KpackBinary &binary : opened.archive.binaries()) {
    std::vector<CodeObject> codeObjects;
    for (const KpackCodeObject &codeObject : binary.codeObjects) {
      if (!opened.lists(codeObject.architecture))
        return makeError("table of contents entry '" + binary.key +
                         "' is for " + codeObject.architecture +
                         ", which the archive's gfx_arches does not list");
      auto loaded = loadCodeObject(opened.archive, binary, codeObject);
      if (!loaded)
        return loaded.takeError();
      codeObjects.push_back(std::move(*loaded));
    }
    auto bundle = bundleOf(binary.key, codeObjects, /*inFile=*/true);
    if (!bundle)
      return bundle.takeError();
    bundles.push_back(std::move(*bundle));
  }
  return bundles;
}

} // namespace offbundle
