// ApiChanges (app/serve/api_changes.hpp): the control API's changes over the config file, kept over
// reloads and in --api-state over restarts; the file wins for an entry edited after the change.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/serve/api_changes.hpp"
#include "common/error.hpp"
#include "support/child_process.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

ServeConfig file_of(const std::string& yaml) { return parse_serve_config(yaml, "streams.yaml"); }

const char* const kFile =
    "defaults: {output: 'null', filter: sobel}\n"
    "streams:\n"
    "  - {name: a, input: 'pattern://?size=64x48'}\n"
    "  - {name: b, input: 'pattern://?size=64x48'}\n";

std::map<std::string, std::string> filters_of(const ServeConfig& c) {
    std::map<std::string, std::string> f;
    for (const StreamConfig& s : c.streams) f[s.name] = s.options.filter.chain.text();
    return f;
}

TEST(ApiChanges, AddedRemovedAndRefilteredStreamsLieOverTheFile) {
    ApiChanges changes;
    ServeConfig file = file_of(kFile);
    EXPECT_EQ(filters_of(changes.over(file)), (std::map<std::string, std::string>{{"a", "sobel"}, {"b", "sobel"}}));
    const nlohmann::json entry = {{"name", "c"}, {"input", "pattern://?size=64x48"}, {"output", "null"}, {"filter", "identity"}};
    changes.added(stream_from_json(entry.dump(), file.defaults), entry);
    changes.removed("a");
    changes.filter_set("b", "gaussian=sigma=2");
    changes.filter_set("c", "gaussian=sigma=1");
    const ServeConfig runs = changes.over(file);
    EXPECT_EQ(filters_of(runs), (std::map<std::string, std::string>{{"b", "gaussian=sigma=2"}, {"c", "gaussian=sigma=1"}}));
    // Applied again and again: the same.
    EXPECT_EQ(filters_of(changes.over(file)), filters_of(runs));
}

TEST(ApiChanges, AnEntryEditedInTheFileAfterTheChangeIsTheFilesAgain) {
    ApiChanges changes;
    changes.over(file_of(kFile));
    changes.removed("a");
    changes.filter_set("b", "gaussian=sigma=2");
    std::string edited = kFile;
    edited.replace(edited.find("{name: a, "), 10, "{name: a, filter: emboss, ");
    edited.replace(edited.find("{name: b, "), 10, "{name: b, filter: identity, ");
    EXPECT_EQ(filters_of(changes.over(file_of(edited))), (std::map<std::string, std::string>{{"a", "emboss"}, {"b", "identity"}}));
    // ...and stays the file's when it goes back to what it was.
    EXPECT_EQ(filters_of(changes.over(file_of(kFile))), (std::map<std::string, std::string>{{"a", "sobel"}, {"b", "sobel"}}));
    // A name the file takes up replaces the API's stream of that name.
    const nlohmann::json entry = {{"name", "c"}, {"input", "pattern://?size=64x48"}, {"output", "null"}, {"filter", "identity"}};
    changes.added(stream_from_json(entry.dump(), {}), entry);
    const std::string with_c = std::string(kFile) + "  - {name: c, input: 'pattern://?size=64x48'}\n";
    EXPECT_EQ(filters_of(changes.over(file_of(with_c)))["c"], "sobel");
    EXPECT_EQ(changes.state()["added"].size(), 0u);
}

TEST(ApiChanges, KeptInTheStateFileOverARestart) {
    const std::string dir = temp_dir(), path = dir + "/api-state.json";
    const nlohmann::json entry = {{"name", "c"}, {"input", "pattern://?size=64x48"}, {"output", "null"}};
    {
        ApiChanges changes(path);
        changes.over(file_of(kFile));
        changes.added(stream_from_json(entry.dump(), {}), entry);
        changes.removed("a");
        changes.filter_set("b", "gaussian=sigma=2");
    }
    EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::others_read, std::filesystem::perms::none);
    ApiChanges again(path);
    EXPECT_EQ(filters_of(again.over(file_of(kFile))), (std::map<std::string, std::string>{{"b", "gaussian=sigma=2"}, {"c", "sobel"}}));
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(ApiChanges, ABrokenStateFileIsMovedAsideNotLostAndNotInTheWay) {
    const std::string dir = temp_dir(), path = dir + "/api-state.json";
    std::ofstream(path) << "{\"version\": 1, \"added\": {";  // cut short
    ApiChanges changes(path);
    EXPECT_EQ(filters_of(changes.over(file_of(kFile))).size(), 2u);
    int aside = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().rfind("api-state.json.broken-", 0) == 0) {
            ++aside;
            EXPECT_EQ(read_file(e.path().string()), "{\"version\": 1, \"added\": {");
        }
    EXPECT_EQ(aside, 1);
}

TEST(ApiChanges, StreamsOfAnotherShardAreHandedOver) {
    ApiChanges changes;
    changes.over(file_of(kFile));
    std::vector<std::string> names;
    for (int i = 0; i < 12; ++i) {
        const nlohmann::json entry = {{"name", "x" + std::to_string(i)}, {"input", "pattern://?size=64x48"}, {"output", "null"}};
        changes.added(stream_from_json(entry.dump(), {}), entry);
    }
    const auto elsewhere = changes.added_elsewhere(0, 3);
    EXPECT_GT(elsewhere.size(), 0u);
    for (const auto& e : elsewhere) EXPECT_NE(shard_of(e["name"], 3), 0);
    for (const auto& e : elsewhere) changes.forget(e["name"]);
    EXPECT_TRUE(changes.added_elsewhere(0, 3).empty());
    EXPECT_EQ(changes.state()["added"].size(), 12u - elsewhere.size());
}

}  // namespace
}  // namespace vf
