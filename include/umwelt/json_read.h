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

#include <nlohmann/json.hpp>

namespace umwelt {

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
