// What the control API changed in the camera list (docs/serve.md, "Changes made through the API"),
// kept apart from the file so that both hold: the file (a Kubernetes ConfigMap) stays the source of
// truth for what it names, and a camera added, removed or re-filtered through the API stays so
// when the file is applied again (SIGHUP, --watch-config) and, with --api-state FILE, when serve
// restarts. A change to a stream of the file holds while that stream's entry in the file is the
// one it was made over: once the entry is edited, the file wins again. A name the file takes up
// later is the file's.
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/serve/serve_config.hpp"

namespace vf {

class ApiChanges {
public:
    // path "": kept in memory only. A file that cannot be read as one is moved aside (logged) and
    // serve starts without its changes. `access`: what clients may reach; the changes kept are a
    // client's and are checked against it again whenever they are applied.
    explicit ApiChanges(std::string path = "", ClientAccess access = {});

    // The camera list as it runs: `file` with the API's changes over it.
    ServeConfig over(const ServeConfig& file);

    // Recorded after the service did it.
    void added(const StreamConfig& stream, const nlohmann::json& entry);  // POST (the entry as sent)
    void removed(const std::string& name);                                // DELETE
    void filter_set(const std::string& name, const std::string& chain);   // PUT .../filter

    // Streams added through the API that belong to another shard of `count` now (after a
    // rescale): their entries, to be handed to their shard.
    std::vector<nlohmann::json> added_elsewhere(int index, int count) const;
    void forget(const std::string& name);  // handed over

    nlohmann::json state() const;  // what the file holds
    // One more with each change recorded here (not with adopt()).
    uint64_t version() const;
    // Takes `state` (what state() gives, from the fleet's store: another shard's changes) in place
    // of its own, saving it, while version() is still `if_version`; false when it is the same, a
    // change was made here since, or it is not a state of API changes (logged).
    bool adopt(const nlohmann::json& state, uint64_t if_version);

private:
    void save_locked() const;
    static bool is_state(const nlohmann::json& j);

    std::string path_;
    ClientAccess access_;
    mutable std::mutex mutex_;
    nlohmann::json added_ = nlohmann::json::object();    // name -> entry as sent, its filter as last set
    nlohmann::json removed_ = nlohmann::json::object();  // name -> the file entry's fingerprint when removed
    nlohmann::json filters_ = nlohmann::json::object();  // name -> {"filter", "entry": fingerprint}
    std::map<std::string, std::string> file_entries_;    // the last file applied: name -> fingerprint
    uint64_t version_ = 0;
};

}  // namespace vf
