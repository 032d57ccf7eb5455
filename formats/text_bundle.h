// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text bundles (-type=i, ii, cui, hipi, d, ll, s).
//
// Each entry is framed by two comment lines of the file's own language:
//
//   \n<comment> __CLANG_OFFLOAD_BUNDLE____START__ <entry id>\n
//   <payload>
//   \n<comment> __CLANG_OFFLOAD_BUNDLE____END__ <entry id>\n
//
// Both markers begin with a newline, so a payload comes back exactly as it
// went in. Readers find markers by searching forward from where the previous
// step stopped, as LLVM's bundler does; an entry with no end marker is an
// error here (LLVM's bundler writes unrelated memory into the output).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/bundle_format.h"
#include "support/output_file.h"

namespace offbundle {

class TextBundleReader final : public BundleReader {
public:
  TextBundleReader(std::string_view contents, std::string_view comment);

  Result<std::optional<std::string_view>> nextEntry() override;
  Result<EntryPayload> readEntry() override;
  Status skipEntry() override;

private:
  Status moveToEndMarker();
  void movePastEndLine();

  std::string_view contents_;
  std::string startMarker_;
  std::string endMarker_;
  std::string_view currentId_;
  // Where the next search starts; npos once the walk has run off the end.
  size_t cursor_ = 0;
};

Status writeTextBundle(OutputFile &output, std::string_view comment,
                       const std::vector<EntryToWrite> &entries);

} // namespace offbundle
