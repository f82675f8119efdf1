// `umwelt import discord`: DiscordChatExporter exports, streamed, and raw API
// thread dumps.
#include <fstream>
#include <iterator>

#include "messages.h"
#include "store.h"
#include "umwelt/file.h"
#include "umwelt/json_read.h"

namespace umwelt::discord {
namespace {

using json = nlohmann::json;

// Builds JSON values from SAX events, one top-level piece at a time: the
// small members of an export (guild, channel, thread) whole, and each element
// of its "messages" array (or of a root array) as it completes, so memory
// holds one message, never the export.
class StreamingHandler final : public nlohmann::json_sax<json> {
 public:
  // Called with (where, value): where is "guild", "channel", "thread",
  // "message" (an element of messages) or "element" (of a root array). A
  // non-ok status stops the parse.
  using Sink = std::function<Status(const std::string& where, json&& value)>;
  explicit StreamingHandler(Sink sink) : sink_(std::move(sink)) {}

  bool null() override { return Value(json()); }
  bool boolean(bool v) override { return Value(json(v)); }
  bool number_integer(number_integer_t v) override { return Value(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Value(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Value(json(v)); }
  bool string(string_t& v) override { return Value(json(std::move(v))); }
  bool binary(binary_t& v) override { return Value(json::binary(std::move(v))); }

  bool start_object(std::size_t) override { return Open(json::object()); }
  bool start_array(std::size_t) override { return Open(json::array()); }
  bool key(string_t& k) override {
    if (!stack_.empty()) {
      key_ = std::move(k);
    } else if (depth_ == 1) {
      top_key_ = std::move(k);
    }
    return true;
  }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error_position_ = position;
    error_ = e.what();
    return false;
  }

  const Status& sink_status() const { return sink_status_; }
  size_t error_position() const { return error_position_; }
  bool too_deep() const { return too_deep_; }
  const std::string& error() const { return error_; }
  bool root_is_array() const { return root_is_array_; }

 private:
  // Whether a value starting now, at depth_, is captured, and as what.
  std::string Capture() const {
    if (depth_ == 1 && root_is_array_) return "element";
    if (depth_ == 1 && (top_key_ == "guild" || top_key_ == "channel" || top_key_ == "thread")) return top_key_;
    if (depth_ == 2 && top_key_ == "messages") return "message";
    return "";
  }
  bool Value(json&& v) {
    if (stack_.empty()) {
      std::string where = Capture();
      if (!where.empty()) return Emit(where, std::move(v));
      return true;  // a scalar we do not need (exportedAt, messageCount, ...)
    }
    Insert(std::move(v));
    return true;
  }
  json* Insert(json&& v) {
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    json& slot = top[key_];
    slot = std::move(v);
    return &slot;
  }
  bool Open(json&& v) {
    if (depth_ >= kMaxJsonDepth) {  // the values we build are walked recursively later
      too_deep_ = true;
      return false;
    }
    if (depth_ == 0) root_is_array_ = v.is_array();
    if (stack_.empty()) {
      std::string where = depth_ == 0 ? "" : Capture();
      if (!where.empty()) {
        where_ = where;
        root_ = std::move(v);
        stack_.push_back(&root_);
      }
    } else {
      stack_.push_back(Insert(std::move(v)));
    }
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    if (stack_.empty()) return true;
    stack_.pop_back();
    if (stack_.empty()) return Emit(where_, std::move(root_));
    return true;
  }
  bool Emit(const std::string& where, json&& v) {
    sink_status_ = sink_(where, std::move(v));
    return sink_status_.ok();
  }

  Sink sink_;
  int depth_ = 0;
  bool root_is_array_ = false;
  std::string top_key_, key_, where_;
  json root_;
  std::vector<json*> stack_;
  Status sink_status_;
  size_t error_position_ = 0;
  bool too_deep_ = false;
  std::string error_;
};

// DiscordChatExporter's channel object ("type": "GuildPublicThread", its
// parent channel in categoryId for threads).
Channel ExportChannel(const json& guild, const json& c) {
  Channel ch;
  ch.guild_id = StrField(guild, "id");  // a number in some exports: read as its digits
  ch.id = StrField(c, "id");
  ch.name = StrField(c, "name");
  if (StrField(c, "type").find("Thread") != std::string::npos) {
    ch.kind = "thread";
    ch.parent_id = StrField(c, "categoryId");
  }
  ch.topic = StrField(c, "topic");
  return ch;
}

Status ImportOne(Corpus& corpus, const std::string& path, const ImportOptions& o, ImportReport* report) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Io(path + ": cannot open");
  std::vector<char> buffer(1 << 20);
  in.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  MessageWriter writer(corpus, o.repo, o.batch);
  writer.set_origin(path);
  json guild, export_channel;
  Channel channel;
  bool have_channel = false;
  int64_t complete = 0;
  const int64_t read_before = report->messages + report->skipped;
  auto sink = [&](const std::string& where, json&& v) -> Status {
    if (where == "guild") {
      guild = std::move(v);
    } else if (where == "channel") {
      if (!v.is_object()) return Status::Corrupt(path + ": \"channel\" is not an object");
      export_channel = std::move(v);
    } else if (where == "thread") {  // {"thread": {...}, "messages": [...]} from the API
      if (!v.is_object()) return Status::Corrupt(path + ": \"thread\" is not an object");
      channel = ApiChannel(v);
      have_channel = !channel.guild_id.empty() && !channel.id.empty();
      if (!have_channel) return Status::Corrupt(path + ": the thread has no id or guild_id");
    } else if (where == "message") {
      if (!have_channel && export_channel.is_object()) {  // the guild may come before or after the channel
        channel = ExportChannel(guild, export_channel);
        if (channel.guild_id.empty() || channel.id.empty()) {
          return Status::Corrupt(path + ": the export's guild or channel has no id");
        }
        have_channel = true;
      }
      if (!have_channel) {
        return Status::Corrupt(path + ": messages come before the channel they belong to (not an export umwelt knows)");
      }
      if (++complete % 1000 == 0 && o.progress) o.progress(read_before + complete);
      return writer.Add(channel, v);
    } else if (where == "element") {  // a root array of API thread dumps
      if (!v.is_object() || !v.contains("thread") || !v.contains("messages") || !v["messages"].is_array()) {
        return Status::Corrupt(path + ": an element of the root array is not a {thread, messages} dump");
      }
      Channel t = ApiChannel(v["thread"]);
      if (t.guild_id.empty() || t.id.empty()) return Status::Corrupt(path + ": a thread has no id or guild_id");
      for (const auto& m : v["messages"]) {
        if (++complete % 1000 == 0 && o.progress) o.progress(read_before + complete);
        UMWELT_RETURN_IF_ERROR(writer.Add(t, m));
      }
    }
    return Status::Ok();
  };
  StreamingHandler handler(sink);
  bool ok = json::sax_parse(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), &handler);
  Status flushed = writer.Flush();
  report->messages += writer.stored();
  report->changed += writer.changed();
  report->skipped += writer.skipped();
  report->channels += writer.channels();
  if (!handler.sink_status().ok()) return handler.sink_status();
  UMWELT_RETURN_IF_ERROR(flushed);
  if (handler.too_deep()) {
    return Status::Corrupt(path + ": JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep; the " +
                           std::to_string(complete) + " complete messages before it were imported");
  }
  if (!ok) {
    return Status::Corrupt(path + ": malformed or truncated JSON at byte " + std::to_string(handler.error_position()) +
                           "; the " + std::to_string(complete) + " complete messages before it were imported");
  }
  if (!have_channel && !handler.root_is_array() && !export_channel.is_object()) {
    return Status::Corrupt(path + ": not a DiscordChatExporter export or Discord API thread dump (no channel)");
  }
  return Status::Ok();
}

}  // namespace

Status ImportFiles(Corpus& corpus, const std::vector<std::string>& paths, const ImportOptions& options,
                   ImportReport* report) {
  return ImportEachFile(paths, [&](const std::string& p) {
    Status s = ImportOne(corpus, p, options, report);
    if (s.ok()) report->files++;
    return s;
  });
}

}  // namespace umwelt::discord
