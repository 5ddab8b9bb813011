// The result cache (see cache.hpp for the key, the entry and why reuse is exact).
#include "cache.hpp"

#include <array>
#include <chrono>

#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Signals.h>
#include <nlohmann/json.hpp>

#include "tether/io/write_file.hpp"

namespace tether::check {
namespace {

// 2: model_types in the header; 3: one entry per distinct compile command
// of a file (its directory and adjusted arguments in the key).
constexpr int kCacheSchema = 4;  // 4: ForwardCandidate.caller_has_own_context
// A temporary entry is DIR/xx/KEY.entry.tmp.XXXXXX (Store, io::AtomicFile).
constexpr const char kTmpInfix[] = ".entry.tmp.";

std::string Hex(const std::array<uint8_t, 16>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) out += digits[b >> 4], out += digits[b & 15];
  return out;
}

// Every field of the model, in order (structured bindings: a new field does
// not compile until it is part of the key).
std::string ModelKey(const ApiModel& m) {
  const auto& [names, context_types, root_factories, default_root, derivations, sanctioned,
               cancel_types, task_groups, detached_spawns, sibling_suffixes, task_spawns,
               blocking_calls, cleanup_calls, root_sources, root_spawns, link_types] = m;
  nlohmann::json groups = nlohmann::json::array();
  for (const TaskGroupModel& g : task_groups) {
    const auto& [type, spawn, join, neutral, on_construct] = g;
    groups.push_back({type, spawn, join, neutral, on_construct});
  }
  (void)names;  // the files' names do not change what is found
  return nlohmann::json({context_types, root_factories, default_root, derivations, sanctioned,
                         cancel_types, groups, detached_spawns, sibling_suffixes, task_spawns,
                         blocking_calls, cleanup_calls, root_sources, root_spawns, link_types})
      .dump();
}

// The running executable's content: a rebuilt tether is a different tool.
std::string ToolIdentity() {
  static const std::string identity = [] {
    auto buf = llvm::MemoryBuffer::getFile("/proc/self/exe", /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    return buf ? ResultCache::HashText((*buf)->getBuffer()) : std::string("unknown-tool");
  }();
  return identity;
}

}  // namespace

std::string ResultCache::HashText(std::string_view text) {
  llvm::BLAKE3 h;
  h.update(llvm::StringRef(text.data(), text.size()));
  return Hex(h.final<16>());
}

ResultCache::ResultCache(std::string dir, const ApiModel& model, const std::string& checks)
    : dir_(std::move(dir)) {
  run_key_ = "tether-cache " + std::to_string(kCacheSchema) + " facts " +
             std::to_string(kFactsSchema) + "\ntool " + ToolIdentity() + "\nmodel " +
             ModelKey(model) + "\nchecks " + checks + "\n";
}

bool ResultCache::Prepare(std::string* error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir_)) {
    *error = dir_ + ": cannot create the cache directory: " + ec.message();
    return false;
  }
  RemoveStaleTemporaries();
  return true;
}

std::string ResultCache::UnitKey(const std::string& file,
                                 const std::vector<std::string>& parts) const {
  std::string text = run_key_ + "file " + file + "\n";
  for (const std::string& p : parts) text += p + '\0';
  return HashText(text);
}

std::string ResultCache::EntryPath(const std::string& key) const {
  return dir_ + "/" + key.substr(0, 2) + "/" + key + ".entry";
}

std::string ResultCache::FileHash(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = file_hashes_.find(path); it != file_hashes_.end()) return it->second;
  }
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  std::string hash = buf ? HashText((*buf)->getBuffer()) : "";
  std::lock_guard<std::mutex> lock(mu_);
  file_hashes_[path] = hash;
  return hash;
}

bool ResultCache::Lookup(const std::string& key, CachedUnit* out, std::string* note) {
  std::string path = EntryPath(key);
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf) return false;  // never cached
  llvm::StringRef text = (*buf)->getBuffer();
  auto [header_text, body] = text.split('\n');
  CachedUnit unit;
  try {
    nlohmann::json header = nlohmann::json::parse(header_text.begin(), header_text.end());
    if (header.at("cache").get<int>() != kCacheSchema || header.at("key").get<std::string>() != key)
      throw std::runtime_error("the entry is not for this key");
    header.at("suppressed").get_to(unit.suppressed);
    header.at("model_types").get_to(unit.model_types);
    for (const auto& d : header.at("deps"))
      unit.deps.emplace_back(d.at(0).get<std::string>(), d.at(1).get<std::string>());
    if (unit.deps.empty()) throw std::runtime_error("no dependencies");
  } catch (const std::exception& e) {
    *note = "ignoring corrupt cache entry " + path + " (" + e.what() + "); parsing again";
    return false;
  }
  for (const auto& [dep, hash] : unit.deps)
    if (FileHash(dep) != hash) return false;  // changed: parse again (not worth a note)
  std::string error;
  if (!FactsFromJson(std::string_view(body.data(), body.size()), &unit.facts, &unit.findings,
                     &error)) {
    *note = "ignoring corrupt cache entry " + path + " (" + error + "); parsing again";
    return false;
  }
  *out = std::move(unit);
  return true;
}

bool ResultCache::Store(const std::string& key, const std::vector<Finding>& findings,
                        const Facts& facts, unsigned suppressed, bool model_types,
                        const std::vector<std::pair<std::string, std::string>>& deps,
                        std::string* error) {
  const std::string path = EntryPath(key);
  // The text first, before any file exists: a finding's line or a path that
  // is not UTF-8 (a Latin-1 comment) cannot be JSON; that TU is then not
  // cached, with a note, and nothing is left behind.
  std::string text;
  try {
    nlohmann::json dep_list = nlohmann::json::array();
    for (const auto& [dep, hash] : deps) dep_list.push_back({dep, hash});
    nlohmann::json header = {{"cache", kCacheSchema},
                             {"key", key},
                             {"suppressed", suppressed},
                             {"model_types", model_types},
                             {"deps", dep_list}};
    text = header.dump() + "\n" + FactsToJson(facts, findings);
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  const std::string parent = std::string(llvm::sys::path::parent_path(path));
  if (std::error_code ec = llvm::sys::fs::create_directories(parent)) {
    *error = parent + ": " + ec.message();
    return false;
  }
  // io::AtomicFile: a temporary file of this writer's own (created
  // exclusively: two runs sharing DIR never write the same one), renamed over
  // the entry: a reader sees the old entry or the new one, never a part. It
  // is removed on every error, and by LLVM's signal handlers if the run dies
  // while it exists.
  io::AtomicFile entry;
  if (std::optional<io::WriteError> e = io::AtomicFile::Create(path, &entry)) {
    *error = e->file + ": " + e->message;
    return false;
  }
  const std::string tmp = entry.temp_path();
  llvm::sys::RemoveFileOnSignal(tmp);
  std::optional<io::WriteError> e = entry.Write(text);
  if (!e) e = entry.Commit();
  llvm::sys::DontRemoveFileOnSignal(tmp);
  if (e) {
    *error = e->file + ": " + e->message;
    return false;
  }
  return true;
}

void ResultCache::RemoveStaleTemporaries() {
  // Left by a run that was killed (SIGKILL: no handler runs) or by an older
  // tether: an hour is far longer than any write takes, so a temporary of a
  // run still writing is never removed. Only DIR/xx/ is looked at, where
  // entries are.
  namespace fs = llvm::sys::fs;
  const auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (fs::directory_iterator sub(dir_, ec), end; sub != end && !ec; sub.increment(ec)) {
    if (llvm::sys::path::filename(sub->path()).size() != 2 || !fs::is_directory(sub->path()))
      continue;
    std::error_code sub_ec;
    for (fs::directory_iterator it(sub->path(), sub_ec); it != end && !sub_ec;
         it.increment(sub_ec)) {
      if (!llvm::sys::path::filename(it->path()).contains(kTmpInfix)) continue;
      fs::file_status st;
      if (fs::status(it->path(), st, /*Follow=*/false) || st.type() != fs::file_type::regular_file)
        continue;
      if (now - st.getLastModificationTime() > std::chrono::hours(1)) fs::remove(it->path());
    }
  }
}

}  // namespace tether::check
