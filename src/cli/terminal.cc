// Corpus text is data: nothing the CLI prints lets it drive a terminal.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "cli.h"
#include "umwelt/text.h"

namespace umwelt::cli {

namespace {

// Bytes of a UTF-8 sequence cut at the end of a buffer, held for the next
// write so a character split between two writes is not mangled.
std::string carry;

bool WriteAll(const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(STDOUT_FILENO, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

size_t CompletePrefix(const std::string& s) {
  // Back up over at most three continuation bytes to the sequence's lead.
  size_t i = s.size();
  for (int back = 0; back < 4 && i > 0; ++back) {
    auto c = static_cast<unsigned char>(s[i - 1]);
    if ((c & 0xC0) != 0x80) {
      size_t need = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
      return static_cast<size_t>(back) + 1 >= need ? s.size() : i - 1;
    }
    --i;
  }
  return s.size();
}

ssize_t Write(void*, const char* buf, size_t size) {
  std::string all = carry + std::string(buf, size);
  size_t cut = CompletePrefix(all);
  carry = all.substr(cut);
  all.resize(cut);
  return WriteAll(TerminalSafe(all)) ? static_cast<ssize_t>(size) : -1;
}

int Close(void*) { return carry.empty() || WriteAll(TerminalSafe(carry)) ? 0 : -1; }

}  // namespace

void GuardStdout() {
  static cookie_io_functions_t io = {nullptr, Write, nullptr, Close};
  FILE* guarded = fopencookie(nullptr, "w", io);
  if (!guarded) return;
  std::fflush(stdout);
  setvbuf(guarded, nullptr, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, 1 << 16);
  stdout = guarded;  // glibc's stdout is an ordinary variable
}

}  // namespace umwelt::cli
