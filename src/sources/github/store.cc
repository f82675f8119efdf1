#include "store.h"

#include <map>

namespace umwelt::github {

Status StoreRecords(Corpus& corpus, const Records& records, StoreCounts* counts,
                    const std::function<Status(WriteBatch&)>& extra) {
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
  std::map<std::string, std::string> titles;
  for (const auto& t : records.threads) {
    UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
    titles[t.ref] = t.title;
    counts->threads++;
  }
  for (auto parts : records.records) {
    // Comments carry no title of their own: they take their thread's.
    if (!parts.empty() && parts[0].title.empty()) {
      auto it = titles.find(parts[0].parent);
      std::string title;
      if (it != titles.end()) {
        title = it->second;
      } else {
        UMWELT_ASSIGN_OR_RETURN(auto thread, corpus.GetThread(parts[0].parent));
        if (thread) title = thread->title;
        titles[parts[0].parent] = title;
      }
      for (auto& p : parts) p.title = title;
    }
    UMWELT_ASSIGN_OR_RETURN(bool changed, batch->PutRecord(parts));
    counts->records++;
    if (changed) counts->changed++;
  }
  // Mention links are replaced per chunk, so an edit that drops a mention drops the link.
  std::map<std::string, std::vector<Link>> mentions;
  for (const auto& parts : records.records) {
    if (!parts.empty()) mentions[parts[0].ref];  // an empty entry clears old links
  }
  for (const auto& l : records.links) {
    if (l.kind == "mention") mentions[l.from_ref].push_back(l);
    else UMWELT_RETURN_IF_ERROR(batch->AddLink(l));
  }
  for (const auto& [from, links] : mentions) UMWELT_RETURN_IF_ERROR(batch->PutLinks(from, links));
  for (const auto& [parent, child] : records.sub_issues) {
    UMWELT_RETURN_IF_ERROR(batch->LinkChildThread("github", parent, child));
  }
  if (extra) UMWELT_RETURN_IF_ERROR(extra(*batch));
  return batch->Commit();
}

}  // namespace umwelt::github
