// A capability's parameter table (umwelt/params.h) as a CLI11 command's
// operands and flags. The values are kept as given, by parameter name, and
// read through the table when the verb runs, so a bad one gets the message
// the HTTP API and MCP give (exit 2).
//
//   auto texts = std::make_shared<ParamTexts>();
//   AddParamFlags(cmd, SearchParams(), texts);
//   ... SearchParams().FromTexts(TextsOf(texts)) ...
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "umwelt/params.h"

namespace umwelt::cli {

using ParamTexts = std::map<std::string, std::vector<std::string>>;

// How the help shows a parameter's value ("INT", "a|b", "DATE") and its
// range (" (1 to 1,000)").
inline std::string CliTypeName(const ParamSpec& s) {
  std::string choices;
  for (const auto& c : s.choices) choices += (choices.empty() ? "" : "|") + c;
  switch (s.type) {
    case ParamType::kInt: return "INT";
    case ParamType::kNumber: return "NUMBER";
    case ParamType::kDate: return "DATE";
    case ParamType::kNames: return choices.empty() ? "NAME,..." : choices + ",...";
    default: return choices.empty() ? "TEXT" : choices;
  }
}
inline std::string CliHelp(const ParamSpec& s) {
  if (s.type != ParamType::kInt && s.type != ParamType::kNumber) return s.help;
  return s.help + " (" + s.Range() + ")";
}

// Adds every parameter of `table`; operands in the table's order.
template <typename Req>
void AddParamFlags(CLI::App* cmd, const ParamTable<Req>& table, const std::shared_ptr<ParamTexts>& texts) {
  for (const auto& p : table.params) {
    const ParamSpec& s = p.spec;
    std::vector<std::string>& into = (*texts)[s.name];
    bool list = s.type == ParamType::kList || s.type == ParamType::kNames;
    CLI::Option* o = nullptr;
    if (s.type == ParamType::kBool && !s.cli_value) {
      o = cmd->add_flag_function(
          s.CliName(), [&into](int64_t) { into = {"true"}; }, s.help);
    } else if (s.type == ParamType::kBool) {
      o = cmd->add_option(s.CliName(), into, s.help)->expected(1)->type_name("0|1");
      o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    } else {
      // One value an occurrence (an operand after a flag stays an operand);
      // a list's flag may be repeated.
      o = cmd->add_option(s.CliName(), into, CliHelp(s))->type_name(CliTypeName(s));
      if (s.flag != "@" || !list) o->expected(1);
      if (!list) o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
    if (!s.fallback.empty()) o->default_str(s.fallback);
    if (s.required) o->required();
  }
}

// The values given for a parameter (none: absent), for ParamTable::FromTexts.
inline auto TextsOf(const std::shared_ptr<ParamTexts>& texts) {
  return [texts](const ParamSpec& s) {
    auto it = texts->find(s.name);
    return it == texts->end() ? std::vector<std::string>{} : it->second;
  };
}

}  // namespace umwelt::cli
