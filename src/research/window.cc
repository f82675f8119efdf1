// The period a question names ("fixed in 2016", "since March 2021",
// "between 2015 and 2017"): its answer is in that period's records.

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "umwelt/claims.h"

namespace umwelt::research {

namespace {

struct Word {
  std::string text;  // lowercased letters and digits
  char after;        // the first character after it that is not a space; 0 at the end
};

std::vector<Word> Words(std::string_view q) {
  std::vector<Word> out;
  size_t i = 0;
  while (i < q.size()) {
    while (i < q.size() && !std::isalnum(static_cast<unsigned char>(q[i]))) ++i;
    size_t s = i;
    while (i < q.size() && std::isalnum(static_cast<unsigned char>(q[i]))) ++i;
    if (s == i) break;
    std::string w(q.substr(s, i - s));
    std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return std::tolower(c); });
    size_t j = i;
    while (j < q.size() && q[j] == ' ') ++j;
    out.push_back({std::move(w), j < q.size() ? q[j] : '\0'});
  }
  return out;
}

// 1970-2099 written as a year, or 0.
int YearOf(const Word& w) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (w.text.size() != 4 || !std::all_of(w.text.begin(), w.text.end(), digit)) return 0;
  int y = std::stoi(w.text);
  // "in 2016-03", "in 2048.5", "2016/03" are no years.
  if (w.after == '-' || w.after == '.' || w.after == '/') return 0;
  return y >= 1970 && y <= 2099 ? y : 0;
}

// 1-12 for a month's name or its three letters, or 0.
int MonthOf(const std::string& w) {
  static const char* kMonths[] = {"january", "february", "march",     "april",   "may",      "june",
                                  "july",    "august",   "september", "october", "november", "december"};
  for (int m = 0; m < 12; ++m) {
    std::string name = kMonths[m];
    if (w == name || (w.size() == 3 && name.rfind(w, 0) == 0 && w != "may" && w != "mar")) return m + 1;
  }
  return 0;
}

std::string Day(int y, int m, int d) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
  return buf;
}

int LastDay(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

DateWindow QuestionWindow(std::string_view question) {
  std::vector<Word> w = Words(question);
  // A year ends its phrase: "in 2016 tokens" counts, not a period.
  static const char* kAfterYear[] = {"and", "or",   "in",    "on",    "for",   "to",
                                     "with", "by", "when", "while", "after", "before"};
  auto ends_phrase = [&](size_t i) {
    if (i + 1 >= w.size() || !std::isalnum(static_cast<unsigned char>(w[i].after))) return true;
    return std::any_of(std::begin(kAfterYear), std::end(kAfterYear), [&](const char* a) { return w[i + 1].text == a; });
  };
  // Every period it names, as one: "reverted in 2016 and re-added in 2018"
  // spans both.
  DateWindow out;
  bool any = false;
  auto add = [&](DateWindow d) {
    if (any) {
      d.since = out.since.empty() || d.since.empty() ? "" : std::min(out.since, d.since);
      d.until = out.until.empty() || d.until.empty() ? "" : std::max(out.until, d.until);
      d.said = out.said + " and " + d.said;
    }
    out = std::move(d);
    any = true;
  };
  for (size_t i = 0; i < w.size(); ++i) {
    int y = YearOf(w[i]);
    if (y == 0 || !ends_phrase(i)) continue;
    int m = i > 0 ? MonthOf(w[i - 1].text) : 0;
    size_t p = i - (m ? 1 : 0);  // the word before the period: its preposition
    const std::string prep = p > 0 ? w[p - 1].text : "";
    std::string first = m ? Day(y, m, 1) : Day(y, 1, 1), last = m ? Day(y, m, LastDay(y, m)) : Day(y, 12, 31);
    std::string said = (m ? w[i - 1].text + " " : "") + w[i].text;
    // "between 2015 and 2017", "from 2015 to 2017": the second year ends it.
    size_t to = 0;
    for (size_t j = i + 1; (prep == "between" || prep == "since" || prep == "from") && j + 1 < w.size() && j <= i + 3;
         ++j) {
      bool joins = w[j].text == "and" || ((w[j].text == "to" || w[j].text == "until") && prep != "between");
      if (joins && YearOf(w[j + 1]) >= y && ends_phrase(j + 1)) {
        to = j + 1;
        break;
      }
    }
    if (to) {
      add({first, Day(YearOf(w[to]), 12, 31), prep + " " + said + " " + w[to - 1].text + " " + w[to].text});
      i = to;
    } else if (prep == "in" || prep == "during" || prep == "throughout" || prep == "of") {
      add({first, last, prep + " " + said});
    } else if (prep == "since" || prep == "from") {
      add({first, "", prep + " " + said});
    } else if (prep == "after") {
      add({m ? Day(m == 12 ? y + 1 : y, m % 12 + 1, 1) : Day(y + 1, 1, 1), "", "after " + said});
    } else if (prep == "before") {
      int by = m > 1 ? y : y - 1, bm = m > 1 ? m - 1 : 12;  // the month, or the year, before it
      add({"", Day(by, bm, LastDay(by, bm)), "before " + said});
    } else if (prep == "until" || prep == "till" || prep == "through") {
      add({"", last, prep + " " + said});
    }
  }
  // Periods on both sides ("before 2010 or after 2015") bound nothing.
  if (out.since.empty() && out.until.empty()) return {};
  return out;
}

std::string Searched(const DateWindow& w) {
  std::string to = w.until.empty() ? " on" : " to " + w.until;
  std::string from = w.since.empty() ? "up to " + w.until : "from " + w.since + to;
  return "searched only the records dated " + from + ", the period the question names (\"" + w.said + "\")";
}

}  // namespace umwelt::research
