// The bundler's operations over a BundlerConfig. They return errors as
// values; the command-line layer prints them.
#pragma once

#include <string>

#include "bundler/config.h"
#include "bundler/error.h"

namespace offbundle {

// Bundles config.inputFileNames (one per target) into the single output.
Status bundleFiles(const BundlerConfig &config);

// Unbundles the single input into one output per target.
Status unbundleFiles(const BundlerConfig &config);

// Appends one line per entry ID of the single input to `listing`. On error,
// `listing` holds what was listed before it, as LLVM prints as it goes.
Status listBundleIds(const BundlerConfig &config, std::string &listing);

} // namespace offbundle
