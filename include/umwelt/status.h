// umwelt/status.h — the result type every fallible call at a module boundary
// returns. No exceptions cross module boundaries: a failure is a Status whose
// message names the file, record or URL at fault.
//
// A Result<T> holds either a value or a non-ok Status. It is [[nodiscard]], so
// an ignored error cannot pass silently. Accessing value() on an error aborts.
#pragma once

#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace umwelt {

// What a caller must tell apart. How each reaches a person or a program
// (the CLI's exit code, an HTTP status, a JSON-RPC error) is one table:
// CodeInfoOf.
enum class Code {
  kOk = 0,
  kInvalidArgument,    // the caller's input is wrong (usage, a bad flag value)
  kNotFound,           // the named thing does not exist
  kCorrupt,            // stored or received data is malformed
  kIo,                 // the file system or database failed
  kUnavailable,        // a remote service failed or refused (HTTP, network); busy, try again
  kUnsupported,        // a newer format or a feature this build lacks
  kResourceExhausted,  // a limit is reached: too many at once, too large
  kPermissionDenied,   // the caller may not do this
  kFailedPrecondition, // not in the state this needs (shutting down, not configured)
  kCitationFailed,     // a report failed its citation check and was not published
};

struct CodeInfo {
  const char* name;  // "invalid_argument": in JSON errors and logs
  int exit_code;     // the CLI's: 0 ok, 1 failure, 2 usage, 3 citation check failed
  int http_status;
  int jsonrpc;       // a failed JSON-RPC request's error code
};
// The one map from a code to what each front door reports.
constexpr CodeInfo CodeInfoOf(Code code) {
  switch (code) {
    case Code::kOk: return {"ok", 0, 200, 0};
    case Code::kInvalidArgument: return {"invalid_argument", 2, 400, -32602};
    case Code::kNotFound: return {"not_found", 1, 404, -32002};
    case Code::kCorrupt: return {"corrupt", 1, 500, -32603};
    case Code::kIo: return {"io", 1, 500, -32603};
    case Code::kUnavailable: return {"unavailable", 1, 503, -32603};
    case Code::kUnsupported: return {"unsupported", 1, 501, -32603};
    case Code::kResourceExhausted: return {"resource_exhausted", 1, 429, -32603};
    case Code::kPermissionDenied: return {"permission_denied", 1, 403, -32603};
    case Code::kFailedPrecondition: return {"failed_precondition", 1, 409, -32603};
    case Code::kCitationFailed: return {"citation_failed", 3, 422, -32603};
  }
  return {"unknown", 1, 500, -32603};
}

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(Code code, std::string message) {
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }
  static Status Invalid(std::string m) { return Error(Code::kInvalidArgument, std::move(m)); }
  static Status NotFound(std::string m) { return Error(Code::kNotFound, std::move(m)); }
  static Status Corrupt(std::string m) { return Error(Code::kCorrupt, std::move(m)); }
  static Status Io(std::string m) { return Error(Code::kIo, std::move(m)); }
  static Status Unavailable(std::string m) { return Error(Code::kUnavailable, std::move(m)); }
  static Status Unsupported(std::string m) { return Error(Code::kUnsupported, std::move(m)); }
  static Status Exhausted(std::string m) { return Error(Code::kResourceExhausted, std::move(m)); }
  static Status Denied(std::string m) { return Error(Code::kPermissionDenied, std::move(m)); }
  static Status Precondition(std::string m) { return Error(Code::kFailedPrecondition, std::move(m)); }
  static Status CitationFailed(std::string m) { return Error(Code::kCitationFailed, std::move(m)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Error(code_, context + ": " + message_);
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(v_).ok()) std::abort();  // an ok Status carries no value
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

  // REQUIRES: ok()
  T& value() & { return Get(); }
  const T& value() const& { return const_cast<Result*>(this)->Get(); }
  T&& value() && { return std::move(Get()); }
  T* operator->() { return &Get(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return Get(); }
  const T& operator*() const { return value(); }

 private:
  T& Get() {
    if (!ok()) std::abort();
    return std::get<T>(v_);
  }
  std::variant<T, Status> v_;
};

}  // namespace umwelt

// Propagates a non-ok Status out of the enclosing function.
#define UMWELT_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::umwelt::Status _st = (expr);            \
    if (!_st.ok()) return _st;                \
  } while (0)

#define UMWELT_CONCAT_INNER(a, b) a##b
#define UMWELT_CONCAT(a, b) UMWELT_CONCAT_INNER(a, b)
// Declares `lhs` from a Result, or returns its Status.
#define UMWELT_ASSIGN_OR_RETURN(lhs, expr) \
  UMWELT_ASSIGN_OR_RETURN_IMPL(UMWELT_CONCAT(_res_, __LINE__), lhs, expr)
// NOLINTBEGIN(bugprone-macro-parentheses): lhs is a declaration, tmp a name
#define UMWELT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
