// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kpack markers (see kpack_marker.h), read through msgpack-c.
#include "formats/kpack/kpack_marker.h"

#include "formats/kpack/message_pack.h"

namespace offbundle {

Result<KpackMarker> readKpackMarker(std::string_view bytes) {
  auto document = MessagePackDocument::parse(bytes);
  if (!document)
    return makeError("malformed kpack marker: " + document.error().message);
  const MessagePackValue map = document->root();
  if (!map.isMap())
    return makeError("malformed kpack marker: it is a " +
                     std::string(map.kindName()) + ", not a map");
  KpackMarker marker;
  std::optional<MessagePackValue> name = map.find("kernel_name");
  if (!name || !name->asString())
    return makeError("malformed kpack marker: no kernel_name string");
  marker.kernelName = std::string(*name->asString());
  std::optional<MessagePackValue> paths = map.find("kpack_search_paths");
  if (!paths || !paths->isArray())
    return makeError("malformed kpack marker: no kpack_search_paths array");
  // As ROCm's loader: elements that are not strings are passed over.
  for (uint32_t i = 0; i < paths->size(); ++i)
    if (std::optional<std::string_view> path = paths->element(i).asString())
      marker.searchPaths.emplace_back(*path);
  if (marker.searchPaths.empty())
    return makeError("malformed kpack marker: kpack_search_paths names no "
                     "archive");
  return marker;
}

} // namespace offbundle
