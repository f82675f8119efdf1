// Parameter tables (umwelt/params.h): a value read from text (HTTP, CLI) and
// from JSON (MCP) gets the same checks and the same words.
#include "umwelt/params.h"

#include <gtest/gtest.h>

namespace umwelt {
namespace {

using json = nlohmann::json;

struct Request {
  std::string query;
  int k = 0;
  double weight = 0;
  bool flag = false;
  std::string since;
  std::vector<std::string> texts, sources;
};

const ParamTable<Request>& Table() {
  static const ParamTable<Request> t = [] {
    using T = ParamType;
    using V = const ParamValue&;
    ParamTable<Request> t;
    t.params = {
        {{.name = "query", .type = T::kString, .help = "What", .max = 10, .required = true, .flag = "@", .http = "q"},
         [](Request& r, V v) { r.query = v.text; }},
        {{.name = "k", .type = T::kInt, .help = "Hits", .min = 1, .max = 1000, .fallback = "50", .flag = "-k"},
         [](Request& r, V v) { r.k = static_cast<int>(v.integer); }},
        {{.name = "weight", .type = T::kNumber, .help = "W", .min = 0, .max = 2.5}, [](Request& r, V v) { r.weight = v.number; }},
        {{.name = "flag_on", .type = T::kBool, .help = "F"}, [](Request& r, V v) { r.flag = v.flag; }},
        {{.name = "since", .type = T::kDate, .help = "D"}, [](Request& r, V v) { r.since = v.text; }},
        {{.name = "text", .type = T::kList, .help = "L", .max = 2}, [](Request& r, V v) { r.texts = v.list; }},
        {{.name = "source", .type = T::kNames, .help = "N", .choices = {"github", "git"}},
         [](Request& r, V v) { r.sources = v.list; }},
    };
    t.check = [](const Request& r) {
      return r.flag && r.k > 100 ? Status::Invalid("flag_on takes k up to 100") : Status::Ok();
    };
    return t;
  }();
  return t;
}

// The table read from texts: `given` by HTTP name.
Result<Request> FromTexts(const std::map<std::string, std::vector<std::string>>& given) {
  return Table().FromTexts([&](const ParamSpec& s) {
    auto it = given.find(s.HttpName());
    return it == given.end() ? std::vector<std::string>{} : it->second;
  });
}

TEST(Params, TextAndJsonReadTheSameValues) {
  auto t = FromTexts({{"q", {"loss"}}, {"weight", {"1.5"}}, {"flag_on", {"True"}}, {"since", {"2024-05-01"}},
                      {"text", {"a, b", "c"}}, {"source", {"github, git", ""}}});
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto j = Table().FromJson({{"query", "loss"}, {"weight", 1.5}, {"flag_on", true}, {"since", "2024-05-01"},
                             {"text", {"a, b", "c"}}, {"source", "github,git"}});
  ASSERT_TRUE(j.ok()) << j.status().message();
  for (const Request* r : {&*t, &*j}) {
    EXPECT_EQ(r->query, "loss");
    EXPECT_EQ(r->k, 50);  // the declared default
    EXPECT_EQ(r->weight, 1.5);
    EXPECT_TRUE(r->flag);
    EXPECT_EQ(r->since, "2024-05-01");
    EXPECT_EQ(r->texts, (std::vector<std::string>{"a, b", "c"}));  // a list's items are whole
    EXPECT_EQ(r->sources, (std::vector<std::string>{"github", "git"}));  // names split at commas
  }
}

TEST(Params, ABadValueGetsOneMessageWhicheverWayItCame) {
  struct Case {
    std::map<std::string, std::vector<std::string>> text;
    json args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"q", {"x"}}, {"k", {"0"}}}, {{"query", "x"}, {"k", 0}}, "k must be a whole number from 1 to 1,000"},
      {{{"q", {"x"}}, {"k", {"1e3"}}}, {{"query", "x"}, {"k", 1000.5}}, "k must be a whole number from 1 to 1,000"},
      {{{"q", {"x"}}, {"weight", {"3"}}}, {{"query", "x"}, {"weight", 3}}, "weight must be a number from 0 to 2.5"},
      {{{"q", {"x"}}, {"since", {"soon"}}}, {{"query", "x"}, {"since", "soon"}},
       "since must be an ISO-8601 date (2024-05-01 or 2024-05-01T10:00:00Z), not `soon`"},
      {{{"q", {"x"}}, {"source", {"gitlab"}}}, {{"query", "x"}, {"source", {"gitlab"}}},
       "unknown source `gitlab`: one of github, git"},
      {{{"q", {"x"}}, {"text", {"a", "b", "c"}}}, {{"query", "x"}, {"text", {"a", "b", "c"}}}, "text takes at most 2 values"},
      {{{"q", {"01234567890"}}}, {{"query", "01234567890"}}, "query is longer than 10 bytes (11)"},
      {{{"q", {"\xff"}}}, {{"query", "\xff"}}, "query is not valid UTF-8"},
      {{}, json::object(), "query is required"},
      {{{"q", {""}}}, {{"query", ""}}, "query is required"},
      {{{"q", {"x"}}, {"flag_on", {"1"}}, {"k", {"500"}}}, {{"query", "x"}, {"flag_on", true}, {"k", 500}},
       "flag_on takes k up to 100"},
  };
  for (const auto& c : cases) {
    auto t = FromTexts(c.text);
    ASSERT_FALSE(t.ok()) << c.message;
    EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(t.status().message(), c.message);
    auto j = Table().FromJson(c.args);
    ASSERT_FALSE(j.ok()) << c.message;
    EXPECT_EQ(j.status().message(), c.message);
  }
  // What only JSON can get wrong: a type, a name the table does not know.
  EXPECT_EQ(Table().FromJson({{"query", 7}}).status().message(), "query must be a string");
  EXPECT_EQ(Table().FromJson({{"query", "x"}, {"flag_on", "yes"}}).status().message(), "flag_on must be true or false");
  EXPECT_EQ(Table().FromJson({{"query", "x"}, {"colour", 1}}).status().message(), "unknown argument `colour`");
  EXPECT_TRUE(Table().FromJson({{"query", "x"}, {"colour", 1}}, {"colour"}).ok());
  EXPECT_EQ(Table().FromJson(json::array()).status().message(), "arguments must be an object");
  EXPECT_EQ(FromTexts({{"q", {"x"}}, {"flag_on", {"maybe"}}}).status().message(), "flag_on must be true or false, not `maybe`");
}

TEST(Params, TheSchemaSaysWhatTheTableChecks) {
  json s = Table().JsonSchema();
  EXPECT_EQ(s["required"], json::array({"query"}));
  EXPECT_EQ(s["properties"]["k"]["type"], "integer");
  EXPECT_EQ(s["properties"]["k"]["minimum"], 1);
  EXPECT_EQ(s["properties"]["k"]["maximum"], 1000);
  EXPECT_EQ(s["properties"]["k"]["default"], 50);
  EXPECT_EQ(s["properties"]["query"]["maxLength"], 10);
  EXPECT_EQ(s["properties"]["text"]["maxItems"], 2);
  EXPECT_EQ(s["properties"]["source"]["anyOf"][1]["items"]["enum"], json::array({"github", "git"}));
  EXPECT_EQ(s["properties"]["flag_on"]["type"], "boolean");
  EXPECT_EQ(Table().Find("flag_on")->CliName(), "--flag-on");
  EXPECT_EQ(Table().Find("k")->CliName(), "-k");
  EXPECT_EQ(Table().Find("query")->CliName(), "query");
}

TEST(Params, ThousandsAreGrouped) {
  EXPECT_EQ(WithThousands(0), "0");
  EXPECT_EQ(WithThousands(999), "999");
  EXPECT_EQ(WithThousands(1000), "1,000");
  EXPECT_EQ(WithThousands(20000000), "20,000,000");
  EXPECT_EQ(WithThousands(-1234), "-1,234");
}

}  // namespace
}  // namespace umwelt
