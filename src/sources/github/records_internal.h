// Internal to sources/github: the record parser over a parsed JSON value.
#pragma once

#include <nlohmann/json.hpp>

#include "umwelt/github.h"

namespace umwelt::github {

// ParsePage over a value already parsed (a webhook payload's `issue`).
Status ParseValue(const nlohmann::json& doc, std::string_view api_path, const std::string& origin, Records* out);

}  // namespace umwelt::github
