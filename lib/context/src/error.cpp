// tether::Error: a code and an optional shared message.
#include "tether/error.hpp"

namespace tether {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kCanceled:
      return "canceled";
    case ErrorCode::kDeadlineExceeded:
      return "deadline exceeded";
    case ErrorCode::kClosed:
      return "closed";
    case ErrorCode::kFailed:
      return "failed";
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kIo:
      return "io";
  }
  return "unknown";
}

Error::Error(ErrorCode code, std::string message) : code_(code) {
  if (!message.empty()) message_ = std::make_shared<const std::string>(std::move(message));
}

const std::string& Error::message() const {
  static const std::string kEmpty;
  return message_ ? *message_ : kEmpty;
}

std::string Error::ToString() const {
  // The sentinels print exactly as Go's do, whatever message they carry, so
  // logs match between the two worlds.
  if (code_ == ErrorCode::kCanceled && !message_) return "context canceled";
  if (code_ == ErrorCode::kDeadlineExceeded && !message_) return "context deadline exceeded";
  std::string out(ErrorCodeName(code_));
  if (message_) {
    out += ": ";
    out += *message_;
  }
  return out;
}

}  // namespace tether
