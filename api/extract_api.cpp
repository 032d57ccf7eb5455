// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The public API's extract() (include/offbundle/offbundle.h) over the
// bundler's extraction (bundler/extract_all.cpp), the targets named chosen
// as offbundle's --target chooses them (rewrite/target_selection.h).
#include "offbundle/offbundle.h"

#include "api/public_error.h"
#include "bundler/config.h"
#include "bundler/operations.h"
#include "rewrite/target_selection.h"
#include "support/input_file.h"

namespace offbundle::api {

Expected<std::vector<std::string>> extract(const ExtractOptions &options) {
  auto selectors = parseTargetSelectors(options.targets);
  if (!selectors)
    return publicError(selectors.error(),
                       offbundle::ErrorCode::InvalidArgument);
  // The bundler reads a device as LLVM's does; offbundle refuses one.
  if (Status device = refuseDevice(options.input); !device.ok())
    return publicError(device.error());
  BundlerConfig config;
  config.files.filesType = "o";
  config.files.inputFileNames = {options.input};
  config.output.outputDirectory = options.outputDirectory;
  EntrySelector selected;
  if (!selectors->empty())
    selected = [&](std::string_view entryId) {
      return anySelects(*selectors, entryId);
    };
  OperationReport report;
  auto written = extractEntries(config, selected, report);
  if (!written)
    return publicError(written.error(), offbundle::ErrorCode::DamagedInput);
  return std::move(*written);
}

} // namespace offbundle::api
