// Internal to sources/github: writes parsed Records through one WriteBatch.
#pragma once

#include <functional>

#include "umwelt/github.h"

namespace umwelt::github {

struct StoreCounts {
  int64_t records = 0;
  int64_t changed = 0;
  int64_t threads = 0;
};

// Writes `records` in one transaction; `extra` runs inside it before commit
// (a sync uses it to move its cursor atomically with the data).
Status StoreRecords(Corpus& corpus, const Records& records, StoreCounts* counts,
                    const std::function<Status(WriteBatch&)>& extra = nullptr);

}  // namespace umwelt::github
