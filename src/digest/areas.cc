// What a change works on, named as a person would name it: from the tags of
// its title and the folders of its files, with the tags that name no area
// (change types, workflow markers, the project's own name) left out.
#include <algorithm>
#include <map>
#include <set>

#include "digest_internal.h"
#include "umwelt/pattern.h"
#include "umwelt/text.h"

namespace umwelt::digest_internal {

namespace {

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (size_t i = 0; i <= s.size();) {
    size_t e = s.find(sep, i);
    if (e == std::string_view::npos) e = s.size();
    if (e > i) out.emplace_back(s.substr(i, e - i));
    i = e + 1;
  }
  return out;
}

// Folders that hold many projects side by side: the area is the one inside.
bool Container(const std::string& folder) {
  static const std::set<std::string> kContainers = {"experiments", "contrib", "projects", "plugins", "integrations",
                                                     "extensions", "examples", "recipes", "apps", "services"};
  return kContainers.count(folder) > 0;
}

// Folders and files that configure the tools around the code, by what they
// hold: agent instructions, CI, the development environment.
std::string ToolingArea(const std::string& name) {
  static const std::map<std::string, std::string> kTooling = {
      {".claude", "agents"},        {".cursor", "agents"},       {".codex", "agents"},     {".gemini", "agents"},
      {".agents", "agents"},        {".cursorrules", "agents"},  {"claude.md", "agents"},  {"agents.md", "agents"},
      {"gemini.md", "agents"},      {".github", "ci"},           {".circleci", "ci"},      {".buildkite", "ci"},      {".ci", "ci"},
      {".gitlab-ci.yml", "ci"},     {".travis.yml", "ci"},       {".devcontainer", "dev-environment"},
      {".vscode", "dev-environment"}, {".idea", "dev-environment"}, {".pre-commit-config.yaml", "dev-environment"}};
  auto it = kTooling.find(name);
  if (it != kTooling.end()) return it->second;
  return !name.empty() && name[0] == '.' ? "tooling" : "";
}

}  // namespace

std::string AreaKey(std::string_view name) {
  std::string out;
  for (char c : ToLower(std::string(name))) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.') out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::string AreaOfPath(std::string_view path, const std::string& package) {
  std::vector<std::string> parts = Split(path, '/');
  if (parts.empty()) return "";
  size_t at = 0;
  if (parts.size() > 1 && (parts[0] == "src" || parts[0] == "lib" || parts[0] == "python" || parts[0] == "pkg" ||
                           parts[0] == "packages")) {
    ++at;
  }
  // The package folder: the repository's name, or a short form of it
  // (lm_eval in lm-evaluation-harness).
  std::string folder = AreaKey(parts[at]), name = AreaKey(package);
  bool package_folder = folder == name || (folder.size() >= 4 && name.rfind(folder, 0) == 0);
  bool in_package = false;
  if (parts.size() > at + 1 && package_folder) {
    ++at;
    in_package = true;
  }
  std::string first = ToLower(parts[at]);
  bool file = at + 1 == parts.size();
  if (std::string tool = ToolingArea(first); !tool.empty()) return tool;
  if (file && !in_package) {  // the repository's own files: docs and packaging, or nothing
    static const Pattern docs(R"(^(readme|changelog|changes|history|news|contributing)\b|\.(md|rst)$)");
    static const Pattern packaging(
        R"(^(pyproject\.toml|setup\.(py|cfg)|manifest\.in|requirements.*\.txt|environment\.ya?ml|package\.json|cargo\.toml|go\.mod|cmakelists\.txt|makefile|dockerfile)$|\.lock$)");
    if (docs.Search(first)) return "docs";
    if (packaging.Search(first)) return "packaging";
    // A top-level source file is an area of its own: main.py is "main".
    static const Pattern code(R"(^[a-z_][a-z0-9_\-]*\.(py|rs|go|ts|js|cc|cpp|c|h|java|rb|jl|scala|kt|swift)$)");
    if (code.Search(first) && first.rfind("setup.", 0) != 0 && first.rfind("conftest.", 0) != 0) {
      return AreaKey(first.substr(0, first.find('.')));
    }
    return "";
  }
  if (first == "tests" || first == "test" || first.rfind("test_", 0) == 0) return "tests";
  if (first == "docs" || first == "doc") return "docs";
  if (first == "config" || first == "configs") return "config";
  // experiments/graph_trainer/… is graph_trainer's.
  if (Container(first) && at + 2 < parts.size()) return AreaKey(parts[at + 1]);
  if (file) first = first.substr(0, first.find('.'));
  return first == "__init__" ? "" : AreaKey(first);
}

std::vector<std::string> PathComponents(std::string_view path) {
  std::vector<std::string> out;
  for (const auto& p : Split(path, '/')) {
    std::string key = AreaKey(p.substr(0, p.find('.') == 0 ? std::string::npos : p.find('.')));
    if (!key.empty()) out.push_back(key);
  }
  return out;
}

bool NoiseTag(const std::string& key, const std::string& project) {
  static const std::set<std::string> kNoise = {
      "ez",        "easy",       "wip",      "reland",    "resubmit", "nit",      "nits",       "minor",
      "draft",     "rfc",        "dnm",      "do_not_merge", "skip_ci", "ci_skip", "bc_breaking", "breaking",
      "trivial",   "small",      "quick",    "quickfix",  "hotfix",   "fix",      "fixes",      "bugfix",
      "bug",       "feature",    "feat",     "chore",     "refactor", "cleanup",  "revert",     "reverted",
      "followup",  "follow_up",  "experimental", "prototype", "poc",  "cherry_pick", "cherrypick", "backport",
      "ghstack",   "stack",      "stacked",  "misc",      "update",   "updates",  "improvement", "enhancement",
      "perf",      "style",      "lint",     "typo",      "tmp",      "temp",     "test_only",  "ready",
      "review",    "new",        "urgent",   "important", "todo",     "help",     "question",   "proposal"};
  if (key.empty() || kNoise.count(key)) return true;
  static const Pattern numbered(R"(^(\d+(_\d+)*|\d+_(of_)?n|part_?\d+|v\d+(_\d+)*|\d+_\d+)$)");
  if (numbered.Matches(key)) return true;  // [1/n], [2/3], [part 1], [v2]
  if (!project.empty()) {
    std::string name = AreaKey(project.substr(project.rfind('/') == std::string::npos ? 0 : project.rfind('/') + 1));
    std::string owner = project.find('/') == std::string::npos ? "" : AreaKey(project.substr(0, project.find('/')));
    if (key == name || key == owner) return true;
  }
  return false;
}

std::vector<TitleTag> TitleTags(std::string_view title, const std::string& project) {
  std::vector<TitleTag> out;
  static const Pattern bracket(R"(^\s*\[([^\[\]]{1,40})\]\s*)");
  static const Pattern conventional(R"(^\s*([a-z][\w\-]{0,20})(\(([\w\-/ ,.]{1,30})\))?!?:\s)");
  static const std::set<std::string> kTypes = {"fix", "feat", "feature", "chore", "refactor", "perf", "style", "build",
                                               "revert", "wip", "bug", "bugfix", "hotfix", "minor", "misc", "deps"};
  std::string_view rest = title;
  umwelt::Groups m;
  auto add = [&](std::string_view text) {
    // "[Qwen3][GPT-OSS]" are two tags; "[MoE, EP]" too.
    for (const auto& part : Split(text, ',')) {
      std::string shown = CollapseWhitespace(part);
      std::string key = AreaKey(shown);
      if (NoiseTag(key, project)) continue;
      if (key == "test" || key == "testing") key = "tests";
      if (key == "doc" || key == "documentation") key = "docs";
      out.push_back({key, shown});
    }
  };
  for (int n = 0; n < 6 && bracket.Search(rest, &m); ++n) {
    add(m[1]);
    rest.remove_prefix(m[0].data() + m[0].size() - rest.data());
  }
  if (out.empty() && conventional.Search(rest, &m)) {
    if (m[3].data() != nullptr) {
      add(m[3]);
    } else {
      std::string type = ToLower(std::string(m[1]));
      if (type == "test" || type == "tests") out.push_back({"tests", "tests"});
      else if (type == "doc" || type == "docs") out.push_back({"docs", "docs"});
      else if (type == "ci") out.push_back({"ci", "CI"});
      else if (!kTypes.count(type) && !NoiseTag(AreaKey(type), project)) out.push_back({AreaKey(type), type});
    }
  }
  return out;
}

std::string AreaName(const std::string& key, const std::vector<std::string>& spellings) {
  if (key == "agents") {
    std::string where;
    for (const auto& s : spellings) {
      if (!s.empty() && s[0] == '.') where = s;
    }
    return "Agent instructions" + (where.empty() ? "" : " (" + where + ")");
  }
  if (key == "ci") return "CI";
  if (key == "dev_environment") return "Development environment";
  if (key == "tooling") {
    std::string where = spellings.empty() ? "" : spellings.front();
    return "Repository tooling" + (where.empty() ? "" : " (" + where + ")");
  }
  // The spelling the project uses when it writes the name with capitals
  // ("MoE", "HybridEP", "RL"): the most frequent one.
  std::map<std::string, int> counts;
  for (const auto& s : spellings) {
    bool capitals = std::any_of(s.begin(), s.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
    if (capitals && AreaKey(s) == key) ++counts[s];
  }
  auto best = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (best != counts.end()) {
    std::string shown = best->first;
    std::replace(shown.begin(), shown.end(), '_', ' ');
    if (std::islower(static_cast<unsigned char>(shown[0]))) shown[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(shown[0])));
    return shown;
  }
  // Else words, an acronym-looking one upper-cased: two letters, no vowel
  // ("fsdp", "rl", "tp"), or a common one ("api", "gpu").
  static const std::set<std::string> kAcronyms = {"api", "cli", "gpu", "cpu", "tpu", "sdk", "llm", "nlp", "sql",
                                                  "http", "json", "yaml", "cuda", "rocm", "jax", "amp", "ddp", "vae"};
  std::string out;
  for (const auto& word : Split(key, '_')) {
    std::string w = word;
    bool vowel = w.find_first_of("aeiouy") != std::string::npos;
    bool letters = std::all_of(w.begin(), w.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    if (letters && (w.size() <= 2 || !vowel || kAcronyms.count(w))) {
      for (auto& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    out += (out.empty() ? "" : " ") + w;
  }
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

std::string ShortTitle(std::string_view title, size_t max_bytes, bool drop_tags) {
  std::string t = CollapseWhitespace(title);
  // Leading tags ("[ez] [rl] ", "fix(ckpt): ") and a trailing "(#123)".
  static const Pattern tags(R"(^(\s*\[[^\[\]]{1,40}\]\s*)+)");
  static const Pattern pr(R"(\s*\(#\d+\)\s*$)");
  std::string stripped = pr.ReplaceAll(drop_tags ? tags.ReplaceAll(t, "") : t, "");
  if (!CollapseWhitespace(stripped).empty()) t = CollapseWhitespace(stripped);
  return TruncateAtWord(t, max_bytes);
}

bool GeneratedPath(std::string_view path) {
  static const Pattern generated(
      R"((^|/)(vendor|vendored|third_party|third-party|node_modules|generated|__generated__|__snapshots__|dist)/|\.lock$|(^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|go\.sum|poetry\.lock|uv\.lock|cargo\.lock|pipfile\.lock)$|\.min\.(js|css)$|_pb2(_grpc)?\.pyi?$|\.pb\.(go|cc|h)$|\.snap$|\.ipynb$)",
      Pattern::kIgnoreCase);
  return generated.Search(path);
}

}  // namespace umwelt::digest_internal
