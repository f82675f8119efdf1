#include "sessions.h"

#include <algorithm>

#include "server_impl.h"

namespace umwelt::server_internal {

SignIns::SignIns(size_t max_total, size_t max_per_login, int64_t lifetime)
    : max_total_(max_total), max_per_login_(max_per_login), lifetime_(lifetime) {}

std::string SignIns::Add(const std::string& login, const std::string& token, int64_t now) {
  std::string id = Random128();
  MutexLock lock(mu_);
  std::erase_if(entries_, [now](const auto& e) { return e.second.expires <= now; });
  DropOldest(login, max_per_login_ - 1);
  DropOldest("", max_total_ - 1);
  entries_[id] = {login, token, now + lifetime_, next_seq_++};
  return id;
}

std::string SignIns::TokenOf(const std::string& id, int64_t now) {
  MutexLock lock(mu_);
  auto it = entries_.find(id);
  return it != entries_.end() && it->second.expires > now ? it->second.token : "";
}

void SignIns::Remove(const std::string& id) {
  MutexLock lock(mu_);
  entries_.erase(id);
}

size_t SignIns::size() {
  MutexLock lock(mu_);
  return entries_.size();
}

void SignIns::DropOldest(const std::string& login, size_t keep) {
  auto mine = [&](const auto& e) { return login.empty() || e.second.login == login; };
  size_t n = static_cast<size_t>(std::count_if(entries_.begin(), entries_.end(), mine));
  for (; n > keep; --n) {
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (mine(*it) && (oldest == entries_.end() || it->second.seq < oldest->second.seq)) oldest = it;
    }
    entries_.erase(oldest);
  }
}

McpSessions::McpSessions(size_t max, size_t share) : max_(max), share_(share) {}

std::string McpSessions::Add(std::shared_ptr<mcp::Session> session, const std::string& owner) {
  std::string id = Random128();
  MutexLock lock(mu_);
  size_t own = 0;
  for (const auto& e : order_) own += entries_[e].owner == owner ? 1 : 0;
  for (auto it = order_.begin(); own >= share_ && it != order_.end();) {
    if (entries_[*it].owner != owner) {
      ++it;
      continue;
    }
    entries_.erase(*it);
    it = order_.erase(it);
    --own;
  }
  entries_[id] = {std::move(session), owner};
  order_.push_back(id);
  while (order_.size() > max_) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
  return id;
}

std::shared_ptr<mcp::Session> McpSessions::Find(const std::string& id, const std::string& owner) {
  MutexLock lock(mu_);
  auto it = entries_.find(id);
  return it == entries_.end() || it->second.owner != owner ? nullptr : it->second.session;
}

bool McpSessions::Remove(const std::string& id, const std::string& owner) {
  MutexLock lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.owner != owner) return false;
  entries_.erase(it);
  std::erase(order_, id);
  return true;
}

size_t McpSessions::size() {
  MutexLock lock(mu_);
  return entries_.size();
}

}  // namespace umwelt::server_internal
