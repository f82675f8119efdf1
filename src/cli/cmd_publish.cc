// `publish`: a Markdown report to a self-contained HTML page, citations checked.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/publish.h"

namespace umwelt::cli {
namespace {

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Uploads `path` as a secret gist with `gh` and returns the share link.
Result<std::string> Gist(const std::string& path, const std::string& title) {
  if (std::system("command -v gh >/dev/null 2>&1") != 0) {
    return Status::Unavailable("--gist needs the GitHub CLI `gh` (apt-get install gh)");
  }
  std::string cmd = "gh gist create --desc " + Quote(title) + " " + Quote(path) + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return Status::Unavailable("cannot run gh");
  std::string out;
  char buf[1024];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  int rc = ::pclose(p);
  size_t url = out.find("https://");
  if (rc != 0 || url == std::string::npos) return Status::Unavailable("gh gist create failed: " + out);
  std::string link = out.substr(url, out.find_first_of(" \n", url) - url);
  return link;
}

}  // namespace

Status CmdPublish(const std::string& corpus_path, const PublishArgs& a) {
  std::ifstream in(a.input, std::ios::binary);
  if (!in) return Status::NotFound(a.input + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string markdown = ss.str();

  std::unique_ptr<Corpus> corpus;
  if (!a.no_corpus) {
    struct stat st;
    if (::stat(corpus_path.c_str(), &st) != 0) {
      return Status::NotFound("no corpus at " + corpus_path +
                              " to check citations against (give --corpus, or --no-corpus)");
    }
    UMWELT_ASSIGN_OR_RETURN(corpus, OpenCorpus(corpus_path, Corpus::Mode::kReadOnly));
  }
  PublishOptions o;
  o.title = a.title;
  o.author = a.author;
  o.system = a.system;
  o.question = a.question;
  o.date = a.date;
  o.math = !a.no_math;
  o.allow_remote = a.allow_remote;
  std::vector<CheckProblem> problems;
  PublishResult result;
  if (a.check_only) {
    problems = CheckCitations(markdown, corpus.get());
  } else {
    UMWELT_ASSIGN_OR_RETURN(result, Publish(markdown, o, corpus.get()));
    problems = result.problems;
  }
  int errors = 0, warnings = 0;
  for (const auto& p : problems) {
    bool error = p.severity == CheckProblem::Severity::kError;
    (error ? errors : warnings)++;
    std::fprintf(stderr, "%s:%d: %s: %s%s%s\n", a.input.c_str(), p.line, error ? "error" : "warning",
                 p.url.empty() ? "" : p.url.c_str(), p.url.empty() ? "" : ": ", p.message.c_str());
  }
  bool fail = errors > 0 || (a.strict && warnings > 0);
  if (a.check_only) {
    std::printf("%s: %d error(s), %d warning(s)\n", a.input.c_str(), errors, warnings);
    return fail ? Status::CitationFailed(a.input + ": citation check failed") : Status::Ok();
  }
  if (fail) {
    return Status::CitationFailed(a.input + ": not published: " + std::to_string(errors) + " citation error(s)" +
                           (a.strict ? ", " + std::to_string(warnings) + " warning(s) (--strict)" : ""));
  }
  std::string out = a.out;
  if (out.empty()) {
    size_t dot = a.input.rfind('.');
    out = (dot == std::string::npos || a.input.find('/', dot) != std::string::npos ? a.input : a.input.substr(0, dot)) + ".html";
  }
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  if (!file) return Status::Io(out + ": cannot write");
  file << result.html;
  file.close();
  if (!file) return Status::Io(out + ": write failed");
  std::printf("published %s: %d links, %d with hover cards, %d warning(s)\n", out.c_str(), result.links,
              result.cards, warnings);
  if (a.gist) {
    UMWELT_ASSIGN_OR_RETURN(std::string link, Gist(out, a.title.empty() ? out : a.title));
    std::printf("shared (secret gist): %s\n", link.c_str());
  }
  return Status::Ok();
}

void AddPublishVerb(const VerbContext& v) {
  struct Args {
    PublishArgs pub;
  };
  auto args = std::make_shared<Args>();
  PublishArgs& pub = args->pub;
  auto* publish = v.app.add_subcommand("publish", "Render a cited Markdown report as a self-contained HTML page");
  publish->add_option("report", pub.input, "The Markdown report")->required()->check(CLI::ExistingFile);
  publish->add_option("--out,-o", pub.out, "The page to write (default: REPORT.html)");
  publish->add_option("--title", pub.title, "Title (else front matter, else the leading # heading)");
  publish->add_option("--author", pub.author, "Who posed the question");
  publish->add_option("--system", pub.system, "Who answered (default umwelt)");
  publish->add_option("--question", pub.question, "The question, shown in the prompt box");
  publish->add_option("--date", pub.date, "Publish date, YYYY-MM-DD (default today)");
  publish->add_flag("--check", pub.check_only, "Only check citations; write nothing");
  publish->add_flag("--allow-remote", pub.allow_remote, "Let the page load images from other hosts (its CSP forbids it otherwise)");
  publish->add_flag("--strict", pub.strict, "Warnings fail too");
  publish->add_flag("--no-corpus", pub.no_corpus, "No corpus: no hover cards, corpus links are errors");
  publish->add_flag("--no-math", pub.no_math, "Leave $math$ as code");
  publish->add_flag("--gist", pub.gist, "Upload the page as a secret gist with `gh`");
  publish->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdPublish(v.corpus, args->pub);
    };
  });
}

}  // namespace umwelt::cli
