// umwelt/params.h — a capability's parameters, each declared once.
//
// One table per capability (search, search-multi, context, show, ask) names
// each parameter with its type, range, default and help. The CLI's flags
// (cli/params_cli.h), MCP's input schemas, the HTTP query parsing and every
// check are derived from it, so the three front doors take the same
// parameters and refuse a bad one with the same message:
//
//   const ParamTable<SearchRequest>& t = SearchParams();
//   UMWELT_ASSIGN_OR_RETURN(SearchRequest r, t.FromTexts(query_lookup));  // HTTP
//   UMWELT_ASSIGN_OR_RETURN(SearchRequest r, t.FromJson(arguments));       // MCP
//   json schema = t.JsonSchema();                                         // MCP tools/list
//
// Adding a parameter is one line in its capability's table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/status.h"

namespace umwelt {

enum class ParamType {
  kString,  // one string of at most `max` bytes (0: 4,000), one of `choices` when given
  kInt,     // a whole number from `min` to `max`
  kNumber,  // a number from `min` to `max`
  kBool,    // true or false (as text, in any case: 1/true/yes/on, 0/false/no/off)
  kDate,    // an ISO-8601 date or time
  kList,    // strings, each whole (repeated, or a JSON array); at most `max` of them
  kNames,   // names, comma-separated or repeated, each one of `choices` when given
};

struct ParamSpec {
  std::string name;         // as MCP and HTTP spell it (snake_case); in every message
  ParamType type = ParamType::kString;
  std::string help;         // one line: the CLI's help and the schema's description
  double min = 0, max = 0;  // see ParamType
  std::string fallback;     // the default, as text ("" = none: the request's own)
  bool required = false;
  // How the CLI takes it: "" = --name-with-dashes, "-k" = that flag,
  // "@" = positional (the verb's operand).
  std::string flag;
  std::string http;         // the HTTP query's name when not `name` ("q")
  std::vector<std::string> choices;
  bool cli_value = false;   // a kBool the CLI takes as `--flag 0|1` rather than `--flag`

  // The CLI's spelling: "-k", "--per-thread-chars", or the name (positional).
  std::string CliName() const;
  // A number's range as the messages and the CLI's help write it: "1 to 1,000".
  std::string Range() const;
  std::string HttpName() const { return http.empty() ? name : http; }
};

// A parameter's value once read and checked; the member of its type is set.
struct ParamValue {
  std::string text;                // kString, kDate
  int64_t integer = 0;             // kInt
  double number = 0;               // kNumber
  bool flag = false;               // kBool
  std::vector<std::string> list;   // kList, kNames
};

// Reads one parameter from its texts (an HTTP query's or the CLI's values,
// none when absent; several only for lists) or from its JSON value (MCP's
// argument, null when absent); checks it against the spec. The message names
// the parameter and is the same whichever way it came. *given: whether it
// was given at all (else the fallback is read, or nothing).
Result<ParamValue> ReadParam(const ParamSpec& spec, const std::vector<std::string>& texts, bool* given);
Result<ParamValue> ReadParam(const ParamSpec& spec, const nlohmann::json* value, bool* given);
// The JSON schema of one parameter (type, range, description, default).
nlohmann::json ParamSchema(const ParamSpec& spec);
// "unknown argument `name`" (the name cut to 64 bytes of valid UTF-8).
std::string UnknownArgument(std::string_view name);

// A capability's parameters: each spec with where its value goes, and the
// checks that span several parameters.
template <typename Req>
struct ParamTable {
  struct Param {
    ParamSpec spec;
    std::function<void(Req&, const ParamValue&)> set;
  };
  std::vector<Param> params;
  std::function<Status(const Req&)> check;  // after every parameter is set; may be empty

  // `texts(name)`: the values given under the HTTP or CLI name (none: absent).
  Result<Req> FromTexts(const std::function<std::vector<std::string>(const ParamSpec&)>& texts, Req r = Req()) const {
    for (const auto& p : params) {
      bool given = false;
      UMWELT_ASSIGN_OR_RETURN(ParamValue v, ReadParam(p.spec, texts(p.spec), &given));
      if (given || !p.spec.fallback.empty()) p.set(r, v);
    }
    return Checked(std::move(r));
  }
  // `arguments`: a JSON object; a member this table does not name is an error
  // (a typo is not ignored), except those in `also` (a front door's own).
  Result<Req> FromJson(const nlohmann::json& arguments, const std::vector<std::string>& also = {}, Req r = Req()) const {
    if (!arguments.is_object() && !arguments.is_null()) return Status::Invalid("arguments must be an object");
    if (arguments.is_object()) {
      for (const auto& item : arguments.items()) {
        if (!Names(item.key()) && std::find(also.begin(), also.end(), item.key()) == also.end()) {
          return Status::Invalid(UnknownArgument(item.key()));
        }
      }
    }
    for (const auto& p : params) {
      const nlohmann::json* v = nullptr;
      if (arguments.is_object()) {
        auto it = arguments.find(p.spec.name);
        if (it != arguments.end()) v = &*it;
      }
      bool given = false;
      UMWELT_ASSIGN_OR_RETURN(ParamValue value, ReadParam(p.spec, v, &given));
      if (given || !p.spec.fallback.empty()) p.set(r, value);
    }
    return Checked(std::move(r));
  }
  // {"type": "object", "properties": {...}, "required": [...]}.
  nlohmann::json JsonSchema() const {
    nlohmann::json props = nlohmann::json::object(), required = nlohmann::json::array();
    for (const auto& p : params) {
      props[p.spec.name] = ParamSchema(p.spec);
      if (p.spec.required) required.push_back(p.spec.name);
    }
    nlohmann::json out = {{"type", "object"}, {"properties", props}};
    if (!required.empty()) out["required"] = required;
    return out;
  }
  bool Names(std::string_view name) const { return Find(name) != nullptr; }
  const ParamSpec* Find(std::string_view name) const {
    for (const auto& p : params) {
      if (p.spec.name == name) return &p.spec;
    }
    return nullptr;
  }

 private:
  Result<Req> Checked(Req r) const {
    if (check) UMWELT_RETURN_IF_ERROR(check(r));
    return r;
  }
};

// "4,000": whole numbers as the messages write them.
std::string WithThousands(int64_t n);

}  // namespace umwelt
