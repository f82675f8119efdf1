// Corpora tests build: the example project, and a file in the reference
// system's schema.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/discord.h"
#include "umwelt/github.h"

namespace umwelt::testing {

// Imports examples/github (and with `discord`, the example Discord export)
// into `corpus`. Fails the test on an error.
inline void ImportExampleProject(Corpus& corpus, bool discord) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(UMWELT_SOURCE_DIR "/examples/github")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  github::ImportReport r;
  ASSERT_TRUE(github::ImportFiles(corpus, files, &r).ok());
  if (!discord) return;
  discord::ImportOptions io;
  io.repo = "acme/tinylm";
  discord::ImportReport dr;
  ASSERT_TRUE(discord::ImportFiles(corpus, {UMWELT_SOURCE_DIR "/examples/discord/training.json"}, io, &dr).ok());
}

// A read-only file in the reference system's schema (meta, chunks,
// chunks_fts only): `meta` and `chunks` are SQL VALUES lists, chunks in the
// column order source, kind, ref, parent, title, author, date, url, text,
// part, n_parts, syms.
inline void WriteReferenceCorpus(const std::string& path, const std::string& meta, const std::string& chunks) {
  sqlite3* db;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string schema =
      "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE chunks(id INTEGER PRIMARY KEY, source TEXT, kind TEXT, ref TEXT, parent TEXT, title TEXT,"
      " author TEXT, date TEXT, url TEXT, text TEXT, part INTEGER, n_parts INTEGER, syms TEXT,"
      " embed_space TEXT, embedding BLOB);"
      "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, title, syms, content='chunks', content_rowid='id');"
      "INSERT INTO meta VALUES " + meta + ";"
      "INSERT INTO chunks(source,kind,ref,parent,title,author,date,url,text,part,n_parts,syms) VALUES " + chunks + ";"
      "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');";
  ASSERT_EQ(sqlite3_exec(db, schema.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ::chmod(path.c_str(), 0444);
}

}  // namespace umwelt::testing
