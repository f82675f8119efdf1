// Recorded HTTP exchanges with the GitHub API, in the two formats the test
// data uses: PyGithub replay files and octokit (nock) fixtures.
#include <nlohmann/json.hpp>

#include "umwelt/json_read.h"
#include "umwelt/github.h"
#include "umwelt/text.h"

namespace umwelt::github {
namespace {

// The string literals of a Python repr, in order: "[('a', 'b'), ('c', \"d'\")]"
// -> a, b, c, d'. Returns false on an unterminated literal.
bool PythonStrings(std::string_view s, std::vector<std::string>* out) {
  for (size_t i = 0; i < s.size(); ++i) {
    char q = s[i];
    if (q != '\'' && q != '"') continue;
    std::string v;
    size_t j = i + 1;
    for (; j < s.size() && s[j] != q; ++j) {
      if (s[j] == '\\' && j + 1 < s.size()) {
        char e = s[++j];
        v += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      } else {
        v += s[j];
      }
    }
    if (j >= s.size()) return false;
    out->push_back(std::move(v));
    i = j;
  }
  return true;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t p = 0;
  while (p <= text.size()) {
    size_t nl = text.find('\n', p);
    if (nl == std::string_view::npos) {
      if (p < text.size()) lines.push_back(text.substr(p));
      break;
    }
    std::string_view line = text.substr(p, nl - p);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    p = nl + 1;
  }
  return lines;
}

}  // namespace

Result<std::vector<Exchange>> ParsePyGithubReplay(std::string_view text, const std::string& origin) {
  std::vector<Exchange> out;
  auto lines = Lines(text);
  size_t i = 0;
  while (i < lines.size()) {
    if (lines[i].empty()) {
      ++i;
      continue;
    }
    if (lines[i] != "https" && lines[i] != "http") {
      return Status::Corrupt(origin + ": line " + std::to_string(i + 1) +
                             ": expected `https` or `http` to open an exchange");
    }
    if (i + 8 >= lines.size()) {
      return Status::Corrupt(origin + ": line " + std::to_string(i + 1) + ": truncated exchange");
    }
    Exchange ex;
    ex.method = std::string(lines[i + 1]);
    ex.path = std::string(lines[i + 4]);
    std::string_view status = lines[i + 7];
    if (status.empty() || status.find_first_not_of("0123456789") != std::string_view::npos) {
      return Status::Corrupt(origin + ": line " + std::to_string(i + 8) + ": bad status `" +
                             std::string(status) + "`");
    }
    ex.status = std::atol(std::string(status).c_str());
    std::vector<std::string> strings;
    if (!PythonStrings(lines[i + 8], &strings)) {
      return Status::Corrupt(origin + ": line " + std::to_string(i + 9) + ": unterminated header list");
    }
    for (size_t k = 0; k + 1 < strings.size(); k += 2) {
      ex.headers.emplace_back(ToLower(strings[k]), strings[k + 1]);
    }
    ex.body = i + 9 < lines.size() ? std::string(lines[i + 9]) : "";
    out.push_back(std::move(ex));
    i += 10;
  }
  return out;
}

Result<std::vector<Exchange>> ParseOctokitFixture(std::string_view text, const std::string& origin) {
  auto doc = ParseJson(text);
  if (doc.is_discarded() || !doc.is_array()) {
    return Status::Corrupt(origin + ": not an octokit fixture (a JSON array of recordings)");
  }
  std::vector<Exchange> out;
  for (size_t i = 0; i < doc.size(); ++i) {
    const auto& r = doc[i];
    if (!r.is_object() || !r.contains("path") || !r["path"].is_string() || !r.contains("status") ||
        !r["status"].is_number_integer()) {
      return Status::Corrupt(origin + ": recording " + std::to_string(i) +
                             " lacks a string `path` or an integer `status`");
    }
    Exchange ex;
    ex.method = StrField(r, "method", "get");
    for (auto& c : ex.method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ex.path = r["path"].get<std::string>();
    ex.status = r["status"].get<long>();
    if (r.contains("rawHeaders") && r["rawHeaders"].is_array()) {
      const auto& h = r["rawHeaders"];
      for (size_t k = 0; k + 1 < h.size(); k += 2) {
        if (h[k].is_string() && h[k + 1].is_string()) ex.headers.emplace_back(ToLower(h[k].get<std::string>()), h[k + 1]);
      }
    }
    if (r.contains("response")) {
      const auto& body = r["response"];
      ex.body = body.is_string() ? body.get<std::string>() : body.dump();
    }
    out.push_back(std::move(ex));
  }
  return out;
}

}  // namespace umwelt::github
