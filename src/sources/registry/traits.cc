// Every source's traits (see umwelt/source_traits.h); each is declared in its
// source's directory, umwelt's own writing here.
#include "umwelt/source_traits.h"

#include <algorithm>

#include "traits_internal.h"

namespace umwelt {
namespace {

// Weekly summaries fed back into the corpus (digest/store.cc writes them).
SourceTraits Narrative() {
  return {.name = kNarrativeSource,
          .label = "weekly summaries",
          .ref_prefix = "narrative:",
          .kinds = {{"digest", Role::kNote}, {"summary", Role::kNote}}};
}

const KindTraits* KindOf(std::string_view source, std::string_view kind) {
  const SourceTraits* s = TraitsOf(source);
  if (!s) return nullptr;
  for (const auto& k : s->kinds) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

}  // namespace

const std::vector<SourceTraits>& AllSourceTraits() {
  // The order of the weekly activity strip's categories (published with
  // each week's page: a new source's go last).
  static const std::vector<SourceTraits> all = {traits_internal::Github(), traits_internal::Git(),
                                                traits_internal::Discord(), traits_internal::Code(),
                                                traits_internal::Wandb(),  traits_internal::Web(),
                                                Narrative()};
  return all;
}

const SourceTraits* TraitsOf(std::string_view source) {
  for (const auto& s : AllSourceTraits()) {
    if (s.name == source) return &s;
  }
  return nullptr;
}

const SourceTraits* TraitsOfRef(std::string_view ref) {
  for (const auto& s : AllSourceTraits()) {
    if (!s.ref_prefix.empty() && ref.substr(0, s.ref_prefix.size()) == s.ref_prefix) return &s;
  }
  return nullptr;
}

Role RoleOf(std::string_view source, std::string_view kind) {
  const KindTraits* k = KindOf(source, kind);
  return k ? k->role : Role::kOther;
}

bool HasRole(std::string_view source, Role role) {
  const SourceTraits* s = TraitsOf(source);
  return s && std::any_of(s->kinds.begin(), s->kinds.end(), [&](const KindTraits& k) { return k.role == role; });
}

std::vector<std::string> KindsWithRole(Role role) {
  std::vector<std::string> out;
  for (const auto& s : AllSourceTraits()) {
    for (const auto& k : s.kinds) {
      if (k.role == role && std::find(out.begin(), out.end(), k.kind) == out.end()) out.emplace_back(k.kind);
    }
  }
  return out;
}

std::vector<std::string> SourcesInSpace(std::string_view space) {
  std::vector<std::string> out;
  for (const auto& s : AllSourceTraits()) {
    if (s.space == space) out.emplace_back(s.name);
  }
  return out;
}

std::string_view SpaceOf(std::string_view source) {
  const SourceTraits* s = TraitsOf(source);
  return s ? s->space : std::string_view("prose");
}

std::vector<std::string> CodeKinds(bool branch) {
  std::vector<std::string> out;
  for (const auto& s : AllSourceTraits()) {
    for (const auto& k : s.kinds) {
      if (k.role == Role::kCode && k.branch == branch && s.space == "code" &&
          std::find(out.begin(), out.end(), k.kind) == out.end()) {
        out.emplace_back(k.kind);
      }
    }
  }
  return out;
}

const std::vector<std::string>& ActivityCategories() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out;
    for (const auto& s : AllSourceTraits()) {
      for (const auto& k : s.kinds) {
        if (!k.activity.empty() && std::find(out.begin(), out.end(), k.activity) == out.end()) {
          out.emplace_back(k.activity);
        }
      }
    }
    return out;
  }();
  return all;
}

const SourceTraits* FirstWithRole(Role role) {
  for (const auto& s : AllSourceTraits()) {
    for (const auto& k : s.kinds) {
      if (k.role == role) return &s;
    }
  }
  return nullptr;
}

std::string ActivityCount(int k, int64_t n) {
  const auto& all = ActivityCategories();
  if (k < 0 || k >= static_cast<int>(all.size())) return std::to_string(n);
  for (const auto& s : AllSourceTraits()) {
    for (const auto& kind : s.kinds) {
      if (kind.activity == all[k]) return std::to_string(n) + " " + std::string(n == 1 ? kind.noun : kind.nouns);
    }
  }
  return std::to_string(n);
}

int ActivityOf(std::string_view source, std::string_view kind) {
  const KindTraits* k = KindOf(source, kind);
  if (!k || k->activity.empty()) return -1;
  const auto& all = ActivityCategories();
  return static_cast<int>(std::find(all.begin(), all.end(), k->activity) - all.begin());
}

std::string RepoOf(std::string_view source, std::string_view ref) {
  const SourceTraits* s = TraitsOf(source);
  return s && s->repo_of ? s->repo_of(ref) : "";
}

std::vector<std::string> ChangedFiles(std::string_view source, std::string_view text) {
  const SourceTraits* s = TraitsOf(source);
  return s && s->changed_files ? s->changed_files(text) : std::vector<std::string>{};
}

int Reactions(std::string_view source, std::string_view text) {
  const SourceTraits* s = TraitsOf(source);
  return s && s->reactions ? s->reactions(text) : 0;
}

bool LandedThrough(std::string_view source, std::string_view kind, std::string_view parent) {
  const SourceTraits* s = TraitsOf(source);
  return s && s->landed_through && s->landed_through(kind, parent);
}

bool Proposal(std::string_view source, std::string_view kind) {
  const KindTraits* k = KindOf(source, kind);
  return k && k->proposal;
}

std::string PageRef(std::string_view url) {
  const SourceTraits* pages = FirstWithRole(Role::kPage);
  return std::string(pages ? pages->ref_prefix : "") + std::string(url.substr(0, url.find('#')));
}

std::string PageUrlOf(std::string_view ref) {
  const SourceTraits* s = TraitsOfRef(ref);
  if (!s || FirstWithRole(Role::kPage) != s) return "";
  return std::string(ref.substr(s->ref_prefix.size()));
}

std::string NarrativeRef(std::string_view period_id) {
  return std::string(TraitsOf(kNarrativeSource)->ref_prefix) + std::string(period_id);
}

std::string Reported(std::string_view source, std::string_view text) {
  const SourceTraits* s = TraitsOf(source);
  return s && s->reported ? s->reported(text) : "";
}

bool Ended(std::string_view source, std::string_view state) {
  const SourceTraits* s = TraitsOf(source);
  return s && std::find(s->ended_states.begin(), s->ended_states.end(), state) != s->ended_states.end();
}

}  // namespace umwelt
