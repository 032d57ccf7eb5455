// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The public Error (include/offbundle/offbundle.h) made of the library's
// own: the same message, and the same kind of failure.
#pragma once

#include "offbundle/offbundle.h"
#include "support/error.h"

namespace offbundle::api {

inline ErrorCode publicErrorCode(offbundle::ErrorCode code) {
  switch (code) {
  case offbundle::ErrorCode::Other:
    return ErrorCode::Other;
  case offbundle::ErrorCode::InvalidArgument:
    return ErrorCode::InvalidArgument;
  case offbundle::ErrorCode::NotFound:
    return ErrorCode::NotFound;
  case offbundle::ErrorCode::Permission:
    return ErrorCode::Permission;
  case offbundle::ErrorCode::OutOfSpace:
    return ErrorCode::OutOfSpace;
  case offbundle::ErrorCode::Io:
    return ErrorCode::Io;
  case offbundle::ErrorCode::DamagedInput:
    return ErrorCode::DamagedInput;
  case offbundle::ErrorCode::Unsupported:
    return ErrorCode::Unsupported;
  case offbundle::ErrorCode::NoSuchTarget:
    return ErrorCode::NoSuchTarget;
  }
  return ErrorCode::Other;
}

// `error` for a program. An operation whose callee leaves some failures
// unclassified names their kind as `unclassified`: whatever the readers of
// an input refuse, once the file is open, is damaged input.
inline Error
publicError(const offbundle::Error &error,
            offbundle::ErrorCode unclassified = offbundle::ErrorCode::Other) {
  return Error{error.message,
               publicErrorCode(withCode(error, unclassified).code)};
}

} // namespace offbundle::api
