// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The container-neutral part of bundle_format.h: the entry walk every
// operation uses.

#include "formats/bundle_format.h"

namespace offbundle {

Status forEachEntry(
    BundleReader &reader,
    const std::function<Result<EntryWalk>(std::string_view id)> &visit) {
  for (;;) {
    Result<std::optional<std::string_view>> next = reader.nextEntry();
    if (!next)
      return next.takeError();
    if (!*next)
      return Status::success();
    Result<EntryWalk> wanted = visit(**next);
    if (!wanted)
      return wanted.takeError();
    if (*wanted == EntryWalk::Stop)
      return Status::success();
  }
}

} // namespace offbundle
