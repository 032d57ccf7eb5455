// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The bundler's operations over a BundlerConfig. They return errors as
// values; the command-line layer prints them.
#pragma once

#include <functional>

#include <string>

#include "bundler/config.h"
#include "bundler/operation_report.h"
#include "support/error.h"

namespace offbundle {

// Bundles config.inputFileNames (one per target) into the single output.
Status bundleFiles(const BundlerConfig &config, OperationReport &report);

// Unbundles the single input into one output per target.
Status unbundleFiles(const BundlerConfig &config, OperationReport &report);

// Splits the single input archive (-type=a) into one device archive per
// target.
Status unbundleArchive(const BundlerConfig &config, OperationReport &report);

// -bundle or -unbundle, as checkBundlingRequest (bundler/target_checks.h)
// made `config`: bundleFiles, or unbundleArchive for -type=a and
// unbundleFiles for the other types.
Status runBundling(const BundlerConfig &config, bool unbundle,
                   OperationReport &report);

// Prints one line per entry ID of the single input.
Status listBundleIds(const BundlerConfig &config, OperationReport &report);

// -list -format=json: prints a JSON description of every bundle of the
// single input, wherever it sits (bundler/json_listing.cpp).
Status listBundlesAsJson(const BundlerConfig &config, OperationReport &report);

// Which entries extractEntries writes: given the stored entry ID, true to
// write it.
using EntrySelector = std::function<bool(std::string_view entryId)>;

// Writes the entries of every bundle of the single input that `selected`
// takes (all of them when it is empty) into config.outputDirectory. Returns
// the paths written, in file order; with a selector that takes none, none,
// and nothing is written or created (without one, an input holding no
// entries is an error).
Result<std::vector<std::string>> extractEntries(const BundlerConfig &config,
                                                const EntrySelector &selected,
                                                OperationReport &report);

// -unbundle -output-dir: extractEntries of every entry, printing the path
// of each file written (bundler/extract_all.cpp).
Status unbundleAllToDirectory(const BundlerConfig &config,
                              OperationReport &report);

} // namespace offbundle
