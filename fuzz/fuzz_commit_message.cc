// libFuzzer target: commit messages and remotes, which anyone who can get
// a commit into a mirrored repository writes — the landing parsers (GitHub,
// Gitea, Bitbucket, GitLab, squash), the forge of a remote, and the text
// helpers every reader of a commit runs.
#include <cstdint>
#include <string>

#include "umwelt/claims.h"
#include "umwelt/git.h"
#include "umwelt/redact.h"
#include "umwelt/text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  umwelt::git::Landing l = umwelt::git::ParseLanding(text);
  if (l.number < 0) __builtin_trap();
  (void)umwelt::git::ParseRemote(text, "");
  (void)umwelt::git::ParseRemote("https://github.com/" + text, "");
  (void)umwelt::RedactSecrets(text);
  (void)umwelt::research::MarkdownLinks(text);
  (void)umwelt::research::Numbers(text);
  (void)umwelt::research::Sentences(text);
  if (umwelt::TerminalSafe(text).find('\x1b') != std::string::npos) __builtin_trap();
  return 0;
}
