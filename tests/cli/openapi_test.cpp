// The API's description (app/serve/web/openapi.json, served at /openapi.json) against the code: every
// operation it lists is routed, nothing else is, and a stream entry's fields are exactly those the
// option table lets a client set. tests/api/fuzz_api.py draws its requests from the same document.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "app/run/stream_options.hpp"
#include "app/serve/http/control_api.hpp"
#include "app/serve/http/web_assets.hpp"

namespace vf {
namespace {

nlohmann::json description() {
    const WebAsset* doc = find_web_asset("/openapi.json");
    EXPECT_NE(doc, nullptr);
    return doc ? nlohmann::json::parse(doc->body) : nlohmann::json();
}

HttpRequest request(const std::string& method, const std::string& path) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.host = "127.0.0.1";
    r.content_type = "application/json";
    if (method == "POST") r.body = "{}";
    if (method == "PUT") r.body = R"({"filter": "sobel"})";
    if (path == "/live") r.query = "streams=cam";
    return r;
}

// Whether the API has a route for the request (a 404 for a missing stream is a route's answer).
bool routed(const HttpResponse& r) {
    if (r.status == 405) return false;
    return r.status != 404 || (r.body.find("no such resource") == std::string::npos && r.body.find("vfilter serve answers") == std::string::npos);
}

TEST(OpenApi, EveryOperationListedIsRoutedAndNoOther) {
    const nlohmann::json doc = description();
    ASSERT_EQ(doc["openapi"], "3.0.3");
    StreamService service(1);
    ControlApi api(service, {});
    EXPECT_EQ(api.answer(request("GET", "/openapi.json")).status, 200);
    for (const auto& [path, item] : doc["paths"].items()) {
        std::string concrete = path;
        if (const size_t at = concrete.find("{name}"); at != std::string::npos) concrete.replace(at, 6, "cam");
        for (const char* method : {"GET", "POST", "PUT", "DELETE"}) {
            std::string lower = method;
            for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            const HttpResponse r = api.answer(request(method, concrete));
            if (item.contains(lower))
                EXPECT_TRUE(routed(r)) << method << " " << path << " is described but answered " << r.status << " " << r.body;
            else
                EXPECT_FALSE(routed(r) && r.status < 400) << method << " " << path << " is not described but answered " << r.status;
        }
    }
    EXPECT_FALSE(routed(api.answer(request("GET", "/nothing"))));
}

TEST(OpenApi, AStreamEntryHoldsExactlyTheFieldsAClientMaySet) {
    const nlohmann::json entry = description()["components"]["schemas"]["StreamEntry"]["properties"];
    std::set<std::string> described;
    for (const auto& [name, schema] : entry.items())
        if (name != "name") described.insert(name);
    std::set<std::string> settable;
    for (const auto& [field, who] : stream_fields())
        if (who == FieldSetter::Admin) settable.insert(field);
    EXPECT_EQ(described, settable)
        << "app/serve/web/openapi.json's StreamEntry and the option table (app/run/stream_options.cpp) differ";
}

}  // namespace
}  // namespace vf
