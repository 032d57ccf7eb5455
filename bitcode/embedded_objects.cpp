#include "bitcode/embedded_objects.h"

namespace offbundle {

Result<std::vector<EmbeddedObject>>
findEmbeddedOffloadingObjects(std::string_view) {
  return makeError("reading LLVM bitcode is not supported yet");
}

} // namespace offbundle
