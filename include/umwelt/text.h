// umwelt/text.h — text helpers shared by every module: UTF-8 validation,
// ISO-8601 dates, identifier splitting and cross-reference extraction.
// All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/clock.h"

namespace umwelt {

// True when `s` is well-formed UTF-8.
bool IsValidUtf8(std::string_view s);
// Replaces each ill-formed UTF-8 sequence with U+FFFD.
std::string SanitizeUtf8(std::string_view s);
// Text for a terminal: C0 controls but newline and tab, DEL and C1 controls
// (U+0080–U+009F) become visible escapes ("\x1b", "\u009b"), NUL included,
// bidirectional controls too ("\u202e": U+202A–202E, U+2066–2069, U+200E,
// U+200F), and ill-formed UTF-8 becomes U+FFFD, so no escape sequence or
// reordering from corpus text reaches a terminal.
std::string TerminalSafe(std::string_view s);
// Text XML 1.0 may hold: ill-formed UTF-8 and the characters XML forbids
// (C0 controls but tab, newline and return; U+FFFE, U+FFFF) become U+FFFD.
// Escaping <, > and & is still the caller's.
std::string XmlChars(std::string_view s);
// Cuts `s` to at most `max_bytes` without splitting a UTF-8 sequence.
std::string_view TruncateUtf8(std::string_view s, size_t max_bytes);
// Cuts `s` to at most `max_bytes` at a word boundary, never inside a word,
// with an ellipsis that says it goes on (punctuation left dangling before
// it dropped). One word longer than that is kept whole.
std::string TruncateAtWord(std::string_view s, size_t max_bytes);

// Parses an ISO-8601 date or date-time ("2024-05-01", "2024-05-01T10:00:00Z",
// "...+02:00", fractional seconds) into seconds since the epoch, UTC.
std::optional<int64_t> ParseIsoTime(std::string_view s);
// Formats seconds since the epoch as "YYYY-MM-DDTHH:MM:SSZ".
std::string FormatIsoTime(int64_t epoch_seconds);
// Normalises any ISO-8601 date-time to "YYYY-MM-DDTHH:MM:SSZ"; "" if invalid.
std::string NormalizeIsoTime(std::string_view s);

// The lowercase words of an identifier split at camelCase, snake_case,
// kebab-case and letter/digit boundaries: "parseHTTPResponse2" -> parse, http,
// response, 2. A plain word yields itself alone.
std::vector<std::string> SplitIdentifier(std::string_view token);
// The `syms` column for `text`: the split words of every identifier-like token
// (one that splits into two or more words), space-separated, de-duplicated.
std::string IdentifierSymbols(std::string_view text);

// A reference from text to a thread: `#123`, `owner/repo#123`, or a full
// GitHub issue / pull URL. `repo` is empty when the text did not name one.
struct ThreadMention {
  std::string repo;  // "owner/name" or ""
  int64_t number = 0;
};
std::vector<ThreadMention> FindThreadMentions(std::string_view text);
// "https://HOST/owner/repo/(issues|pull)/N[...]" -> "owner/repo#N"; "" when
// the url names no issue or pull request. Any host (GitHub Enterprise too).
std::string ThreadRefFromUrl(std::string_view url);

// The end (one past the closing bracket) of the JSON object or array that
// opens at text[start], skipping brackets inside strings; npos when it never
// closes. Brackets are counted, not matched by kind: callers parse the slice.
size_t JsonValueEnd(std::string_view text, size_t start);

// Collapses runs of whitespace to one space and trims both ends.
std::string CollapseWhitespace(std::string_view s);
std::string ToLower(std::string_view s);
// The non-empty pieces of `s` between `sep`s ("a,,b" -> {"a", "b"}).
std::vector<std::string> SplitList(std::string_view s, char sep = ',');

}  // namespace umwelt
