// The bundler's operations over a BundlerConfig. They return errors as
// values; the command-line layer prints them.
#pragma once

#include <string>

#include "bundler/config.h"
#include "support/error.h"

namespace offbundle {

// What an operation prints, kept apart from its outputs. On error it holds
// what was printed before the error, as LLVM prints as it goes.
struct OperationReport {
  std::string standardOutput;
  // -verbose reports and other notes for standard error.
  std::string diagnostics;
};

// Bundles config.inputFileNames (one per target) into the single output.
Status bundleFiles(const BundlerConfig &config, OperationReport &report);

// Unbundles the single input into one output per target.
Status unbundleFiles(const BundlerConfig &config, OperationReport &report);

// Splits the single input archive (-type=a) into one device archive per
// target.
Status unbundleArchive(const BundlerConfig &config, OperationReport &report);

// Prints one line per entry ID of the single input.
Status listBundleIds(const BundlerConfig &config, OperationReport &report);

// -list -format=json: prints a JSON description of every bundle of the
// single input, wherever it sits (bundler/json_listing.cpp).
Status listBundlesAsJson(const BundlerConfig &config, OperationReport &report);

// -unbundle -output-dir: writes every entry of every bundle of the single
// input into config.outputDirectory and prints the path of each file
// written (bundler/extract_all.cpp).
Status unbundleAllToDirectory(const BundlerConfig &config,
                              OperationReport &report);

} // namespace offbundle
