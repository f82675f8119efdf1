// umwelt/json_read.h — reading JSON from outside (APIs, exports, files a user
// wrote) without exceptions: a field of the wrong type reads as absent.
//
// nlohmann's `j.value(key, fallback)` throws when the field exists with
// another type; one odd value in a page of records must not end the process.
// Use these wherever the JSON came from outside the process.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace umwelt {

// Outside JSON nested deeper than this is refused: the library's dump and our
// walks recurse, and a file of 100,000 '[' must not end the stack.
constexpr int kMaxJsonDepth = 128;

// Whether `text` nests arrays and objects more than `max_depth` deep.
inline bool JsonTooDeep(std::string_view text, int max_depth = kMaxJsonDepth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// `text` parsed without exceptions: a discarded value when it is not JSON or
// nests deeper than kMaxJsonDepth.
inline nlohmann::json ParseJson(std::string_view text) {
  if (JsonTooDeep(text)) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, false);
}

// `key` of object `j`, or nullptr when `j` is not an object or lacks it.
inline const nlohmann::json* FieldOf(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

// A string field; an integer (an id written as a number) reads as its digits.
inline std::string StrField(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  const nlohmann::json* v = FieldOf(j, key);
  if (!v) return fallback;
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_unsigned()) return std::to_string(v->get<uint64_t>());
  if (v->is_number_integer()) return std::to_string(v->get<int64_t>());
  return fallback;
}

// A whole number within int64 (a float with no fraction counts).
inline int64_t IntField(const nlohmann::json& j, const char* key, int64_t fallback = 0) {
  const nlohmann::json* v = FieldOf(j, key);
  if (!v) return fallback;
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    return u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? fallback : static_cast<int64_t>(u);
  }
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (d == static_cast<double>(static_cast<int64_t>(d)) && d > -9.2e18 && d < 9.2e18) return static_cast<int64_t>(d);
  }
  return fallback;
}

inline bool BoolField(const nlohmann::json& j, const char* key, bool fallback = false) {
  const nlohmann::json* v = FieldOf(j, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

// A field of the given JSON type (array, object), else `fallback`.
inline nlohmann::json ArrayField(const nlohmann::json& j, const char* key) {
  const nlohmann::json* v = FieldOf(j, key);
  return v && v->is_array() ? *v : nlohmann::json::array();
}

}  // namespace umwelt
