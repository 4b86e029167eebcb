// GET /streams/NAME/recordings: the recordings of a stream that this shard finds on its disk (the
// files of its --segment series, or its one output file, and its clips around events as
// "clips/NAME/FILE", with "clip": true), newest first, each with its name, size,
// time and this shard; ?scope=fleet asks every other shard too (signed calls, each within the
// fleet's timeout) and lists what each holds, so that a camera recorded by several shards over
// time (failover, docs/kubernetes.md) has one list. On a volume the shards share, a file is listed
// once with every shard that sees it. Only file names are given, never a folder, and only the
// files of the stream's own output pattern: nothing else of the disk is shown.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/serve/serve_config.hpp"
#include "common/http_server.hpp"

namespace vf {

class Fleet;

// Where a stream records, as the list last loaded says.
struct RecordingsSource {
    std::string output;  // its output path (a file; nothing is listed for URLs and null)
    bool segmented = false;
    std::string clips;        // the folder of its clips around events (encode/clip_file.hpp); empty: none
    bool clips_only = false;  // clips.only: the output itself is not recorded
};
using RecordingsLookup = std::function<std::optional<RecordingsSource>(const std::string& name)>;

// Where `stream` records, from its entry (the file's or an API client's).
RecordingsSource recordings_source(const StreamConfig& stream);

// At most this many files a shard lists (the newest).
constexpr size_t kRecordingsListed = 2000;

// This shard's files of `source`, newest first: [{"file", "bytes", "modified" (Unix seconds)}].
nlohmann::json local_recordings(const RecordingsSource& source);

// The answer to GET /streams/NAME/recordings[?scope=shard|fleet]. `fleet` may be null.
HttpResponse answer_recordings(const HttpRequest& request, const std::string& name, const RecordingsLookup& lookup, Fleet* fleet,
                               int shard);

}  // namespace vf
