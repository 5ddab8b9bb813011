// tether::Error — the one error type of libtether.
//
// Every fallible operation in libtether (and in the code built on it: the
// tracer, the worker) returns a tether::Error. It is a small value: a code and
// an optional message, cheap to copy (the message is shared, never copied).
// A default-constructed Error is "no error", like Go's nil error.
//
//   tether::Error err = group.Wait();
//   if (!err.ok()) std::cerr << err.ToString() << "\n";
//
// Context errors are the two sentinel codes kCanceled and kDeadlineExceeded,
// exactly like Go's context.Canceled and context.DeadlineExceeded; compare
// with err.code() (or err.Is(...)), never with the message.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace tether {

enum class ErrorCode : unsigned char {
  kOk = 0,
  kCanceled,          // the context was cancelled (Go: context.Canceled)
  kDeadlineExceeded,  // the context's deadline passed (Go: context.DeadlineExceeded)
  kClosed,            // the channel is closed
  kFailed,            // an application-defined failure (a task, a step, ...)
  kInvalidArgument,   // bad input from the caller (usage, validation)
  kIo,                // an operating-system call failed (errno in the message)
};

std::string_view ErrorCodeName(ErrorCode code);

class Error {
 public:
  Error() = default;  // ok
  Error(ErrorCode code, std::string message);
  explicit Error(ErrorCode code) : code_(code) {}

  static Error Canceled() { return Error(ErrorCode::kCanceled); }
  static Error DeadlineExceeded() { return Error(ErrorCode::kDeadlineExceeded); }
  static Error Closed() { return Error(ErrorCode::kClosed); }
  static Error Failed(std::string message) { return Error(ErrorCode::kFailed, std::move(message)); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  bool Is(ErrorCode code) const { return code_ == code; }
  // True for kCanceled and kDeadlineExceeded: the error came from a context.
  bool IsContextError() const {
    return code_ == ErrorCode::kCanceled || code_ == ErrorCode::kDeadlineExceeded;
  }
  // The message given at construction; empty for the sentinels.
  const std::string& message() const;
  // "context canceled", "context deadline exceeded", or "<code>: <message>".
  std::string ToString() const;

  friend bool operator==(const Error& a, const Error& b) {
    return a.code_ == b.code_ && a.message() == b.message();
  }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::shared_ptr<const std::string> message_;  // null when no message
};

}  // namespace tether
