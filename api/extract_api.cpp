// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The public API's extract() (include/offbundle/offbundle.h) over the
// bundler's extraction (bundler/extract_all.cpp), the targets named chosen
// as offbundle's --target chooses them (rewrite/target_selection.h).
#include "offbundle/offbundle.h"

#include "bundler/config.h"
#include "bundler/operations.h"
#include "rewrite/target_selection.h"
#include "support/file_io.h"

namespace offbundle::api {

Expected<std::vector<std::string>> extract(const ExtractOptions &options) {
  auto selectors = parseTargetSelectors(options.targets);
  if (!selectors)
    return Error{selectors.error().message};
  // The bundler reads a device as LLVM's does; offbundle refuses one.
  if (Status device = refuseDevice(options.input); !device.ok())
    return Error{device.error().message};
  BundlerConfig config;
  config.filesType = "o";
  config.inputFileNames = {options.input};
  config.outputDirectory = options.outputDirectory;
  EntrySelector selected;
  if (!selectors->empty())
    selected = [&](std::string_view entryId) {
      return anySelects(*selectors, entryId);
    };
  OperationReport report;
  auto written = extractEntries(config, selected, report);
  if (!written)
    return Error{written.error().message};
  return std::move(*written);
}

} // namespace offbundle::api
