#include "app/serve/api_changes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/redact.hpp"

namespace vf {
namespace {

// Which version of a file entry a change was made over: FNV-1a of its fields (the entry's text
// is not kept: it may hold a camera's password).
std::string fingerprint(const StreamConfig& s) {
    uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](const std::string& text) {
        for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    };
    for (const auto& [key, value] : s.fields) mix(key), mix(value.text);  // as written: a number's digits too
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

bool write_whole_file(const std::string& path, const std::string& text, std::string* why) {
    const std::string temp = path + ".tmp";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        *why = std::string("cannot create ") + temp + ": " + std::strerror(errno);
        return false;
    }
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) {
            *why = std::string("writing ") + temp + ": " + std::strerror(errno);
            ::close(fd);
            ::unlink(temp.c_str());
            return false;
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
        *why = std::string("saving ") + path + ": " + std::strerror(errno);
        ::unlink(temp.c_str());
        return false;
    }
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);  // the rename itself survives a power cut
        ::close(dfd);
    }
    return true;
}

}  // namespace

ApiChanges::ApiChanges(std::string path, ClientAccess access) : path_(std::move(path)), access_(std::move(access)) {
    if (path_.empty()) return;
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
        if (std::filesystem::exists(path_)) fail(ErrorCategory::Usage, "api-state " + path_ + ": cannot be read");
        spdlog::info("api-state {}: no changes made through the API yet", path_);
        return;
    }
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
    if (!is_state(j)) {
        // Never lost, never in the way: the cameras of the file start, the broken copy is kept.
        char stamp[32];
        const std::time_t now = std::time(nullptr);
        std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
        const std::string aside = path_ + ".broken-" + stamp;
        std::filesystem::rename(path_, aside);
        spdlog::error("api-state {}: not a file of API changes; moved aside to {}, serving the config file's streams without them",
                      path_, aside);
        return;
    }
    added_ = j["added"];
    removed_ = j["removed"];
    filters_ = j["filters"];
    spdlog::info("api-state {}: {} stream(s) added, {} removed and {} re-filtered through the API", path_, added_.size(),
                 removed_.size(), filters_.size());
}

// Every entry of the shape over() reads: an added entry an object, a removal a fingerprint, a
// filter {"filter", "entry"} of strings (another shard's state, read from the store, is checked
// as the file is; each added entry is checked again as a client's when applied).
bool ApiChanges::is_state(const nlohmann::json& j) {
    const auto object_at = [&j](const char* key) { return j.contains(key) && j[key].is_object(); };
    if (!j.is_object() || !j.contains("version") || j["version"] != 1 || !object_at("added") || !object_at("removed") || !object_at("filters"))
        return false;
    for (const auto& [name, entry] : j["added"].items())
        if (!entry.is_object()) return false;
    for (const auto& [name, fp] : j["removed"].items())
        if (!fp.is_string()) return false;
    for (const auto& [name, f] : j["filters"].items())
        if (!f.is_object() || !f.contains("filter") || !f["filter"].is_string() || !f.contains("entry") || !f["entry"].is_string()) return false;
    return true;
}

uint64_t ApiChanges::version() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return version_;
}

bool ApiChanges::adopt(const nlohmann::json& state, uint64_t if_version) {
    if (!is_state(state)) {
        spdlog::error("the fleet's store holds API changes that are not such: ignored");
        return false;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (version_ != if_version) return false;  // a change made here meanwhile: it goes to the store first
    if (added_ == state["added"] && removed_ == state["removed"] && filters_ == state["filters"]) return false;
    added_ = state["added"];
    removed_ = state["removed"];
    filters_ = state["filters"];
    save_locked();
    return true;
}

nlohmann::json ApiChanges::state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {{"version", 1}, {"added", added_}, {"removed", removed_}, {"filters", filters_}};
}

void ApiChanges::save_locked() const {
    if (path_.empty()) return;
    const nlohmann::json j = {{"version", 1}, {"added", added_}, {"removed", removed_}, {"filters", filters_}};
    std::string why;
    if (!write_whole_file(path_, j.dump(2) + "\n", &why))
        spdlog::error("api-state: {}: the API's last change holds until serve restarts", why);
}

ServeConfig ApiChanges::over(const ServeConfig& file) {
    std::lock_guard<std::mutex> lock(mutex_);
    bool changed = false;
    ServeConfig out;
    out.defaults = file.defaults;
    file_entries_.clear();
    for (const StreamConfig& s : file.streams) {
        const std::string fp = fingerprint(s);
        file_entries_[s.name] = fp;
        if (added_.contains(s.name)) {
            spdlog::warn("stream '{}': the config file names it now, so its entry there replaces the one added through the API", s.name);
            added_.erase(s.name);
            changed = true;
        }
        if (removed_.contains(s.name)) {
            if (removed_[s.name] == fp) continue;  // removed through the API, and the file's entry is as it was
            spdlog::info("stream '{}': its entry in the config file changed since it was removed through the API: it runs again", s.name);
            removed_.erase(s.name);
            changed = true;
        }
        if (filters_.contains(s.name)) {
            if (filters_[s.name]["entry"] == fp) {
                StreamFields fields = s.fields;
                fields["filter"] = filters_[s.name]["filter"].get<std::string>();
                try {
                    out.streams.push_back(make_stream_config(s.name, std::move(fields), {}, access_.kernel_files()));
                    continue;
                } catch (const Error& e) {
                    spdlog::error("stream '{}': the filter set through the API no longer applies ({}); the file's is used",
                                  s.name, redact_credentials(e.what()));
                }
            } else {
                spdlog::info("stream '{}': its entry in the config file changed since its filter was set through the API: the file's filter is used",
                             s.name);
            }
            filters_.erase(s.name);
            changed = true;
        }
        out.streams.push_back(s);
    }
    for (const auto& [name, entry] : added_.items()) {
        try {
            out.streams.push_back(stream_from_json(entry.dump(), file.defaults, access_));
        } catch (const Error& e) {
            spdlog::error("stream '{}', added through the API: {}; not started (its entry is kept in the api-state file)", name,
                          redact_credentials(e.what()));
        }
    }
    if (changed) ++version_, save_locked();
    return out;
}

void ApiChanges::added(const StreamConfig& stream, const nlohmann::json& entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::json e = entry;
    e["name"] = stream.name;
    added_[stream.name] = std::move(e);
    removed_.erase(stream.name);
    filters_.erase(stream.name);
    ++version_;
    save_locked();
}

void ApiChanges::removed(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    added_.erase(name);
    filters_.erase(name);
    const auto in_file = file_entries_.find(name);
    if (in_file != file_entries_.end()) removed_[name] = in_file->second;
    ++version_;
    save_locked();
}

void ApiChanges::filter_set(const std::string& name, const std::string& chain) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (added_.contains(name)) {
        added_[name]["filter"] = chain;
    } else {
        const auto in_file = file_entries_.find(name);
        if (in_file == file_entries_.end()) return;
        filters_[name] = {{"filter", chain}, {"entry", in_file->second}};
    }
    ++version_;
    save_locked();
}

std::vector<nlohmann::json> ApiChanges::added_elsewhere(int index, int count) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<nlohmann::json> elsewhere;
    if (count <= 1) return elsewhere;
    for (const auto& [name, entry] : added_.items())
        if (shard_of(name, count) != index) elsewhere.push_back(entry);
    return elsewhere;
}

void ApiChanges::forget(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (added_.erase(name)) ++version_, save_locked();
}

}  // namespace vf
