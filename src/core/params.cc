#include "umwelt/params.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "umwelt/suggest.h"
#include "umwelt/text.h"

namespace umwelt {

namespace {

using json = nlohmann::json;

constexpr size_t kDefaultMaxBytes = 4000;

// A string's most bytes; a list's `max` counts its items, each of at most 4,000 bytes.
size_t MaxBytes(const ParamSpec& s) {
  bool own = s.type == ParamType::kString || s.type == ParamType::kDate;
  return own && s.max > 0 ? static_cast<size_t>(s.max) : kDefaultMaxBytes;
}

std::string Number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return WithThousands(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string Quoted(std::string_view v) { return "`" + std::string(TruncateUtf8(v, 64)) + "`"; }

std::string OneOf(const std::vector<std::string>& choices) {
  std::string out;
  for (const auto& c : choices) out += (out.empty() ? "" : ", ") + c;
  return out;
}

Status RangeError(const ParamSpec& s) {
  const char* what = s.type == ParamType::kInt ? "a whole number" : "a number";
  return Status::Invalid(s.name + " must be " + what + " from " + s.Range());
}

Status TooMany(const ParamSpec& s) { return Status::Invalid(s.name + " takes at most " + Number(s.max) + " values"); }

// One string's checks: valid UTF-8, its length, its choices.
Status CheckString(const ParamSpec& s, const std::string& v) {
  if (!IsValidUtf8(v)) return Status::Invalid(s.name + " is not valid UTF-8");
  if (v.size() > MaxBytes(s)) {
    return Status::Invalid(s.name + " is longer than " + WithThousands(static_cast<int64_t>(MaxBytes(s))) + " bytes (" +
                           WithThousands(static_cast<int64_t>(v.size())) + ")");
  }
  if (!s.choices.empty() && std::find(s.choices.begin(), s.choices.end(), v) == s.choices.end()) {
    if (s.type == ParamType::kNames) {
      return Status::Invalid("unknown " + s.name + " " + Quoted(v) + ": one of " + OneOf(s.choices) + DidYouMean(v, s.choices));
    }
    return Status::Invalid(s.name + " must be one of " + OneOf(s.choices) + ", not " + Quoted(v) + DidYouMean(v, s.choices));
  }
  return Status::Ok();
}

Result<ParamValue> FromText(const ParamSpec& s, const std::string& t) {
  ParamValue v;
  switch (s.type) {
    case ParamType::kString:
      UMWELT_RETURN_IF_ERROR(CheckString(s, t));
      v.text = t;
      return v;
    case ParamType::kDate:
      UMWELT_RETURN_IF_ERROR(CheckString(s, t));
      if (!ParseIsoTime(t)) {
        return Status::Invalid(s.name + " must be an ISO-8601 date (2024-05-01 or 2024-05-01T10:00:00Z), not " + Quoted(t));
      }
      v.text = t;
      return v;
    case ParamType::kInt: {
      char* end = nullptr;
      errno = 0;
      long long n = std::strtoll(t.c_str(), &end, 10);
      if (t.empty() || *end || errno || n < s.min || n > s.max) return RangeError(s);
      v.integer = n;
      return v;
    }
    case ParamType::kNumber: {
      char* end = nullptr;
      double n = std::strtod(t.c_str(), &end);
      if (t.empty() || *end || !(n >= s.min && n <= s.max)) return RangeError(s);
      v.number = n;
      return v;
    }
    case ParamType::kBool: {
      std::string lower = ToLower(t);  // Python's requests sends True and False
      if (lower == "1" || lower == "true" || lower == "yes" || lower == "on") {
        v.flag = true;
      } else if (lower != "0" && lower != "false" && lower != "no" && lower != "off") {
        return Status::Invalid(s.name + " must be true or false, not " + Quoted(t));
      }
      return v;
    }
    case ParamType::kList:
    case ParamType::kNames:
      break;
  }
  return Status::Invalid(s.name + ": not a single value");
}

// A list's items, checked; names are split at commas.
Status AddItems(const ParamSpec& s, const std::string& t, ParamValue* v) {
  if (s.type == ParamType::kNames) {
    for (auto& part : SplitList(t)) {
      std::string name = CollapseWhitespace(part);
      if (name.empty()) continue;
      UMWELT_RETURN_IF_ERROR(CheckString(s, name));
      v->list.push_back(std::move(name));
    }
  } else {
    UMWELT_RETURN_IF_ERROR(CheckString(s, t));
    v->list.push_back(t);
  }
  if (s.max > 0 && v->list.size() > static_cast<size_t>(s.max)) return TooMany(s);
  return Status::Ok();
}

bool IsList(const ParamSpec& s) { return s.type == ParamType::kList || s.type == ParamType::kNames; }

Status Required(const ParamSpec& s) {
  return Status::Invalid(s.name + " is required");
}

}  // namespace

std::string WithThousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string ParamSpec::CliName() const {
  if (flag == "@") return name;
  if (!flag.empty()) return flag;
  std::string out = "--" + name;
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::string ParamSpec::Range() const { return Number(min) + " to " + Number(max); }

std::string UnknownArgument(std::string_view name) { return "unknown argument " + Quoted(name); }

Result<ParamValue> ReadParam(const ParamSpec& s, const std::vector<std::string>& texts, bool* given) {
  // An empty value is no value: an HTML form sends every field, filled or not.
  std::vector<const std::string*> values;
  for (const auto& t : texts) {
    if (!t.empty()) values.push_back(&t);
  }
  *given = !values.empty();
  if (values.empty()) {
    if (s.required) return Required(s);
    if (s.fallback.empty()) return ParamValue();
    bool ignored = false;
    return ReadParam(s, std::vector<std::string>{s.fallback}, &ignored);
  }
  if (!IsList(s)) return FromText(s, *values.back());  // given twice: the last
  ParamValue v;
  for (const auto* t : values) UMWELT_RETURN_IF_ERROR(AddItems(s, *t, &v));
  if (s.required && v.list.empty()) return Required(s);
  return v;
}

Result<ParamValue> ReadParam(const ParamSpec& s, const json* value, bool* given) {
  *given = value && !value->is_null();
  if (!*given) return ReadParam(s, std::vector<std::string>{}, given);
  const json& j = *value;
  switch (s.type) {
    case ParamType::kString:
    case ParamType::kDate:
      if (!j.is_string()) return Status::Invalid(s.name + " must be a string");
      if (j.get_ref<const std::string&>().empty()) return ReadParam(s, std::vector<std::string>{}, given);
      return FromText(s, j.get<std::string>());
    case ParamType::kInt: {
      if (!j.is_number_integer()) return RangeError(s);
      if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return RangeError(s);
      int64_t n = j.get<int64_t>();
      if (n < s.min || n > s.max) return RangeError(s);
      ParamValue v;
      v.integer = n;
      return v;
    }
    case ParamType::kNumber: {
      if (!j.is_number()) return RangeError(s);
      double n = j.get<double>();
      if (!(n >= s.min && n <= s.max)) return RangeError(s);
      ParamValue v;
      v.number = n;
      return v;
    }
    case ParamType::kBool: {
      if (!j.is_boolean()) return Status::Invalid(s.name + " must be true or false");
      ParamValue v;
      v.flag = j.get<bool>();
      return v;
    }
    case ParamType::kList:
    case ParamType::kNames: {
      ParamValue v;
      const char* shape = s.type == ParamType::kNames ? " must be a string or a list of strings" : " must be a list of strings";
      if (j.is_string()) {
        UMWELT_RETURN_IF_ERROR(AddItems(s, j.get<std::string>(), &v));
      } else if (j.is_array()) {
        if (s.max > 0 && j.size() > static_cast<size_t>(s.max)) return TooMany(s);
        for (const auto& item : j) {
          if (!item.is_string()) return Status::Invalid(s.name + shape);
          UMWELT_RETURN_IF_ERROR(AddItems(s, item.get<std::string>(), &v));
        }
      } else {
        return Status::Invalid(s.name + shape);
      }
      if (s.required && v.list.empty()) return Required(s);
      return v;
    }
  }
  return Status::Invalid(s.name + ": an unknown type");
}

json ParamSchema(const ParamSpec& s) {
  json out;
  json strings = {{"type", "array"}, {"items", {{"type", "string"}}}};
  switch (s.type) {
    case ParamType::kString:
      out = {{"type", "string"}, {"maxLength", MaxBytes(s)}};
      if (!s.choices.empty()) out["enum"] = s.choices;
      break;
    case ParamType::kDate: out = {{"type", "string"}}; break;
    case ParamType::kInt:
      out = {{"type", "integer"}, {"minimum", static_cast<int64_t>(s.min)}, {"maximum", static_cast<int64_t>(s.max)}};
      break;
    case ParamType::kNumber: out = {{"type", "number"}, {"minimum", s.min}, {"maximum", s.max}}; break;
    case ParamType::kBool: out = {{"type", "boolean"}}; break;
    case ParamType::kList:
      out = strings;
      if (s.required) out["minItems"] = 1;
      if (s.max > 0) out["maxItems"] = static_cast<int64_t>(s.max);
      break;
    case ParamType::kNames:
      if (!s.choices.empty()) strings["items"]["enum"] = s.choices;
      out = {{"anyOf", json::array({{{"type", "string"}}, strings})}};
      break;
  }
  out["description"] = s.help;
  if (!s.fallback.empty()) {
    bool ignored = false;
    auto v = ReadParam(s, std::vector<std::string>{s.fallback}, &ignored);
    if (v.ok()) {
      switch (s.type) {
        case ParamType::kInt: out["default"] = v->integer; break;
        case ParamType::kNumber: out["default"] = v->number; break;
        case ParamType::kBool: out["default"] = v->flag; break;
        case ParamType::kList:
        case ParamType::kNames: out["default"] = v->list; break;
        default: out["default"] = v->text; break;
      }
    }
  }
  return out;
}

}  // namespace umwelt
