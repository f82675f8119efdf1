#include "text_pool.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace umwelt::bench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void AddText(const std::string& text, TextPool* pool) {
  // Paragraphs at blank lines, sentences at ". " and line ends.
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find("\n\n", start);
    if (end == std::string::npos) end = text.size();
    std::string para = text.substr(start, end - start);
    if (para.size() > 40) pool->paragraphs.push_back(para);
    size_t s = 0;
    while (s < para.size()) {
      size_t e = para.find_first_of(".\n", s);
      if (e == std::string::npos) e = para.size();
      std::string sent = para.substr(s, e - s + (e < para.size() && para[e] == '.' ? 1 : 0));
      while (!sent.empty() && (sent[0] == ' ' || sent[0] == '\n')) sent.erase(0, 1);
      if (sent.size() > 15) pool->sentences.push_back(sent);
      s = e + 1;
    }
    start = end + 2;
  }
}

// The `.W` (abstract) fields of a SMART-format collection.
void AddSmart(const std::string& text, TextPool* pool) {
  std::istringstream in(text);
  std::string line, cur;
  bool in_w = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() >= 2 && line[0] == '.' && std::isupper(static_cast<unsigned char>(line[1]))) {
      if (in_w && !cur.empty()) AddText(cur, pool);
      cur.clear();
      in_w = line.rfind(".W", 0) == 0;
      continue;
    }
    if (in_w) cur += line + (line.empty() ? "\n\n" : " ");
  }
  if (in_w && !cur.empty()) AddText(cur, pool);
}

}  // namespace

TextPool LoadTextPool(const std::string& data_dir) {
  TextPool pool;
  fs::path d(data_dir);
  for (const char* hist : {"pytorch-torchtitan-history", "marin-community-levanter-history"}) {
    std::ifstream in(d / hist / "commits.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      auto j = json::parse(line, nullptr, false);
      if (!j.is_object()) continue;
      AddText(j.value("subject", "") + "\n\n" + j.value("body", ""), &pool);
    }
  }
  if (fs::exists(d / "cranfield/cran.all.1400")) AddSmart(Slurp(d / "cranfield/cran.all.1400"), &pool);
  if (fs::exists(d / "cisi/CISI.ALL")) AddSmart(Slurp(d / "cisi/CISI.ALL"), &pool);
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(d / "discord", ec)) {
    if (e.path().extension() != ".json") continue;
    auto j = json::parse(Slurp(e.path()), nullptr, false);  // one export is truncated
    if (j.is_discarded()) continue;
    auto take = [&](const json& messages) {
      for (const auto& m : messages) {
        if (m.is_object() && m.contains("content") && m["content"].is_string()) AddText(m["content"], &pool);
      }
    };
    if (j.is_object() && j.contains("messages")) take(j["messages"]);
    if (j.is_array()) {
      for (const auto& t : j) {
        if (t.is_object() && t.contains("messages")) take(t["messages"]);
      }
    }
  }
  for (const auto& e : fs::recursive_directory_iterator(d / "marin-discord-summaries", ec)) {
    if (e.path().extension() == ".md") AddText(Slurp(e.path()), &pool);
  }
  return pool;
}

}  // namespace umwelt::bench
