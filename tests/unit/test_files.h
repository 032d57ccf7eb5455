// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading the test data committed under tests/data, shared by the unit
// tests that compare against stored reference outputs.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace offbundle::test_files {

// tests/data/<name>, found from this file's own path (CMake compiles the
// tests with absolute paths).
inline std::filesystem::path dataDirectory(const std::string &name) {
  return std::filesystem::path(__FILE__).parent_path().parent_path() / "data" /
         name;
}

inline std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    result.push_back(line);
  return result;
}

} // namespace offbundle::test_files
