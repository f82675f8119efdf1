#include "umwelt/dynlib.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>

namespace umwelt {
namespace {

// libm is on every machine: a real library, opened and bound by name.
#define TEST_LIBM_API(X) X(, cos) X(, sqrt)
UMWELT_DYNLIB_TABLE(LibmApi, TEST_LIBM_API)

TEST(DynLib, BindsATableOfFunctions) {
  auto api = LoadTable<LibmApi>("libm.so.6", "a test");
  ASSERT_TRUE(api.ok()) << api.status().message();
  EXPECT_DOUBLE_EQ((*api)->sqrt(9.0), 3.0);
  EXPECT_DOUBLE_EQ((*api)->cos(0.0), 1.0);
  // Opened once: a second open gives the same library.
  auto a = DynLib::Open("libm.so.6", "a test");
  auto b = DynLib::Open("libm.so.6", "another test");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(DynLib, MissingLibraryOrSymbolNamesWhatNeedsIt) {
  auto missing = DynLib::Open("libumwelt-no-such.so.9", "reading frobs");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("reading frobs needs libumwelt-no-such.so.9"), std::string::npos)
      << missing.status().message();
  auto libm = DynLib::Open("libm.so.6", "a test");
  ASSERT_TRUE(libm.ok());
  auto sym = (*libm)->Symbol("umwelt_no_such_function");
  ASSERT_FALSE(sym.ok());
  EXPECT_NE(sym.status().message().find("umwelt_no_such_function"), std::string::npos);
}

TEST(DynLib, ModulesAreFoundInTheBuildTreeAndTheNamedFolder) {
  // The build's own modules (the tests run from the build tree).
  auto pdf = DynLib::OpenModule("umwelt-pdf", "reading PDFs");
  ASSERT_TRUE(pdf.ok()) << pdf.status().message();
  EXPECT_TRUE((*pdf)->Symbol("umwelt_pdf_text").ok());
  auto fasttext = DynLib::OpenModule("umwelt-fasttext", "training");
  ASSERT_TRUE(fasttext.ok()) << fasttext.status().message();
  EXPECT_TRUE((*fasttext)->Symbol("umwelt_fasttext_train").ok());
  // A module that is nowhere: the error names it and where it looked.
  std::string empty = testing::TempDir() + "/umwelt-no-modules";
  std::filesystem::create_directories(empty);
  ::setenv("UMWELT_MODULE_DIR", empty.c_str(), 1);
  auto none = DynLib::OpenModule("umwelt-no-such-module", "frobbing");
  ::unsetenv("UMWELT_MODULE_DIR");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("umwelt-no-such-module.so"), std::string::npos);
  EXPECT_NE(none.status().message().find(empty), std::string::npos) << none.status().message();
  EXPECT_NE(none.status().message().find("UMWELT_MODULE_DIR"), std::string::npos);
}

}  // namespace
}  // namespace umwelt
