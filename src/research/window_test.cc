// The period a question names (QuestionWindow).
#include <gtest/gtest.h>

#include "umwelt/claims.h"

namespace umwelt::research {
namespace {

std::string Bounds(std::string_view question) {
  DateWindow w = QuestionWindow(question);
  return w.since + ".." + w.until + " " + w.said;
}

TEST(QuestionWindow, ReadsTheYearOrMonthAndItsPreposition) {
  EXPECT_EQ(Bounds("When were the overflows fixed in 2016?"), "2016-01-01..2016-12-31 in 2016");
  EXPECT_EQ(Bounds("What changed during March 2021 in the parser?"), "2021-03-01..2021-03-31 during march 2021");
  EXPECT_EQ(Bounds("What broke in Feb 2024?"), "2024-02-01..2024-02-29 in feb 2024");
  EXPECT_EQ(Bounds("What has changed since 2019?"), "2019-01-01.. since 2019");
  EXPECT_EQ(Bounds("What landed after December 2019?"), "2020-01-01.. after december 2019");
  EXPECT_EQ(Bounds("What landed after 2019?"), "2020-01-01.. after 2019");
  EXPECT_EQ(Bounds("How was it built before 2010?"), "..2009-12-31 before 2010");
  EXPECT_EQ(Bounds("How was it built before January 2010?"), "..2009-12-31 before january 2010");
  EXPECT_EQ(Bounds("How was it built before March 2010?"), "..2010-02-28 before march 2010");
  EXPECT_EQ(Bounds("What was done until 2012?"), "..2012-12-31 until 2012");
  EXPECT_EQ(Bounds("How did it evolve between 2015 and 2017?"), "2015-01-01..2017-12-31 between 2015 and 2017");
  EXPECT_EQ(Bounds("How did it evolve from 2015 to 2017?"), "2015-01-01..2017-12-31 from 2015 to 2017");
  // Two periods: the span of both.
  EXPECT_EQ(Bounds("Why was it reverted in 2016 and re-added in March 2018?"),
            "2016-01-01..2018-03-31 in 2016 and in march 2018");
  EXPECT_EQ(Bounds("What changed in 2019 and since 2021?"), "2019-01-01.. in 2019 and since 2021");
}

TEST(QuestionWindow, ANumberThatIsNoYearIsNoPeriod) {
  EXPECT_EQ(Bounds("How does it run in 2048 tokens?"), ".. ");
  EXPECT_EQ(Bounds("Why is the context 2048 long?"), ".. ");
  EXPECT_EQ(Bounds("What changed in 2016-03?"), ".. ");
  EXPECT_EQ(Bounds("Does it scale in 2048x2048 images?"), ".. ");
  EXPECT_EQ(Bounds("What is new in 1.2016?"), ".. ");
  EXPECT_EQ(Bounds("What landed in 1969?"), ".. ");
  EXPECT_EQ(Bounds("Which issue is #2016 in the tracker?"), ".. ");
  EXPECT_EQ(Bounds("How did it evolve between 2017 and 2015?"), ".. ");
  EXPECT_EQ(Bounds(""), ".. ");
  EXPECT_EQ(Bounds("in"), ".. ");
  EXPECT_EQ(Bounds("Was it faster before 2010 or after 2015?"), ".. ");
}

TEST(QuestionWindow, SaysWhatWasSearched) {
  EXPECT_EQ(Searched(QuestionWindow("What broke in 2016?")),
            "searched only the records dated from 2016-01-01 to 2016-12-31, the period the question names (\"in 2016\")");
  EXPECT_EQ(Searched(QuestionWindow("What broke since 2019?")),
            "searched only the records dated from 2019-01-01 on, the period the question names (\"since 2019\")");
  EXPECT_EQ(Searched(QuestionWindow("What broke before 2010?")),
            "searched only the records dated up to 2009-12-31, the period the question names (\"before 2010\")");
}

}  // namespace
}  // namespace umwelt::research
