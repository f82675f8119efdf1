// Internal to research/: text helpers for evidence and claims.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace umwelt::research {

// The question's content words: lower-case, stop words and short words out,
// de-duplicated, in order.
std::vector<std::string> ContentWords(std::string_view text);
// Sentences of a text (split at . ! ? and line breaks), trimmed, non-empty.
std::vector<std::string> Sentences(std::string_view text);
// Numbers with their units ("38.5%", "451k", "64 H100s", "14 minutes");
// years, dates, #refs and numbers inside urls are not numbers here.
std::vector<std::string> Numbers(std::string_view text);
// Quoted corpus text made inert for Markdown: urls in code spans (no
// autolinks), backticks replaced, markup characters (and < >) escaped with
// backslashes, a leading heading or list marker defused.
std::string Neutralize(std::string_view text);
// Whether `haystack` holds the number `digits` whole ("45" is not in "451k").
bool ContainsNumber(std::string_view haystack, std::string_view digits);
// Whether a sentence speaks of a target, goal or plan rather than a result.
bool SpeaksOfTarget(std::string_view sentence);
// The unit of a number Numbers() found ("38.5%" -> "%", "64 H100s" ->
// "h100s"), lower-case; "" for a bare number.
std::string UnitOf(const std::string& number);

}  // namespace umwelt::research
