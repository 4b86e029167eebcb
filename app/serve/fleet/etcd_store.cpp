#include "etcd_store.hpp"

#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace vf {
namespace {

using Json = nlohmann::json;

// etcd's JSON carries keys and values as base64 (they are bytes).
std::string base64(const std::string& bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<size_t>(n));
    return out;
}

std::string unbase64(const std::string& text) {
    if (text.empty()) return {};
    if (text.size() % 4 != 0) throw StoreError("the store sent a key or value that is not base64", true);
    std::string out(text.size() / 4 * 3 + 1, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (n < 0) throw StoreError("the store sent a key or value that is not base64", true);
    size_t size = static_cast<size_t>(n);
    for (size_t i = text.size(); i-- > 0 && text[i] == '=';) --size;  // EVP_DecodeBlock counts the padding
    out.resize(size);
    return out;
}

// The smallest key after every key that starts with `prefix` (etcd's range_end for a prefix).
std::string prefix_end(std::string prefix) {
    while (!prefix.empty()) {
        unsigned char last = static_cast<unsigned char>(prefix.back());
        if (last < 0xff) {
            prefix.back() = static_cast<char>(last + 1);
            return prefix;
        }
        prefix.pop_back();
    }
    return std::string(1, '\0');  // every key
}

// etcd's gateway writes 64-bit numbers as strings; a missing field is 0.
int64_t number_of(const Json& object, const char* field) {
    const auto it = object.find(field);
    if (it == object.end() || it->is_null()) return 0;
    if (it->is_number_integer()) return it->get<int64_t>();
    if (it->is_string()) {
        try {
            return std::stoll(it->get<std::string>());
        } catch (const std::exception&) {
        }
    }
    throw StoreError(std::string("the store's answer has a field ") + field + " that is not a number", true);
}

// A true boolean field; anything else (absent, another type) is false.
bool flag_of(const Json& object, const char* field) {
    const auto it = object.find(field);
    return it != object.end() && it->is_boolean() && it->get<bool>();
}

Json parse_answer(const std::string& body) {
    Json answer = Json::parse(body, nullptr, false);
    if (answer.is_discarded() || !answer.is_object()) throw StoreError("the store's answer is not a JSON object", true);
    return answer;
}

}  // namespace

std::vector<HttpAddress> EtcdStore::parse_endpoints(const std::string& text, const std::string& option) {
    std::vector<HttpAddress> members;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = text.find(',', start);
        const std::string one = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        HttpAddress address;
        std::string why;
        if (one.empty() || !parse_http_address(one, &address, &why))
            throw Error(ErrorCategory::Usage, option + " '" + one + "': " + (one.empty() ? "an empty address" : why) +
                                                  "; give etcd's client URLs, e.g. http://10.0.0.5:2379,http://10.0.0.6:2379");
        if (address.https)
            throw Error(ErrorCategory::Usage, option + " '" + one + "': https is not supported for the store; reach etcd over http on a private network");
        members.push_back(address);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return members;
}

EtcdStore::EtcdStore(std::vector<HttpAddress> members, int call_timeout_ms) : members_(std::move(members)), call_timeout_ms_(call_timeout_ms) {
    if (members_.empty()) throw Error(ErrorCategory::Usage, "the store needs at least one address");
}

std::string EtcdStore::call(const std::string& path, const std::string& json_body) {
    size_t first;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        first = preferred_;
    }
    std::string last_error;
    for (size_t tried = 0; tried < members_.size(); ++tried) {
        const size_t k = (first + tried) % members_.size();
        HttpCall c;
        c.to = members_[k];
        c.method = "POST";
        c.target = path;
        c.body = json_body;
        c.content_type = "application/json";
        c.connect_timeout_ms = c.read_timeout_ms = c.total_timeout_ms = call_timeout_ms_;
        c.max_body_bytes = 8 << 20;
        const HttpReply r = http_call(c);
        if (r.status == 0 || r.status >= 500) {  // not this member: the next one
            last_error = members_[k].url() + ": " + (r.status == 0 ? r.error : "status " + std::to_string(r.status));
            if (r.status >= 500 && !r.body.empty()) {
                const Json e = Json::parse(r.body, nullptr, false);
                if (e.is_object() && e.contains("message") && e["message"].is_string()) last_error += " (" + e["message"].get<std::string>() + ")";
            }
            continue;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            preferred_ = k;
        }
        if (r.status != 200) {
            const Json e = Json::parse(r.body, nullptr, false);
            const std::string message = e.is_object() && e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>()
                                                                                                          : "status " + std::to_string(r.status);
            throw StoreError("the store refused " + path + ": " + message, true);
        }
        return r.body;
    }
    throw StoreError("no member of the store answered (" + last_error + ")", false);
}

int64_t EtcdStore::grant_lease(int ttl_s) {
    const Json answer = parse_answer(call("/v3/lease/grant", Json{{"TTL", ttl_s}}.dump()));
    const int64_t id = number_of(answer, "ID");
    if (id == 0) throw StoreError("the store granted no lease", true);
    return id;
}

int64_t EtcdStore::keep_alive(int64_t lease) {
    // The gateway answers a keep-alive stream with one result a request.
    const Json answer = parse_answer(call("/v3/lease/keepalive", Json{{"ID", std::to_string(lease)}}.dump()));
    const auto result = answer.find("result");
    if (result == answer.end() || !result->is_object()) throw StoreError("the store's keep-alive answer has no result", true);
    return number_of(*result, "TTL");  // absent when the lease is gone
}

void EtcdStore::revoke_lease(int64_t lease) {
    try {
        call("/v3/lease/revoke", Json{{"ID", std::to_string(lease)}}.dump());
    } catch (const StoreError& e) {
        if (!e.reached() || std::string(e.what()).find("lease not found") == std::string::npos) throw;
    }
}

void EtcdStore::put(const std::string& key, const std::string& value, int64_t lease) {
    Json body{{"key", base64(key)}, {"value", base64(value)}};
    if (lease != 0) body["lease"] = std::to_string(lease);
    call("/v3/kv/put", body.dump());
}

std::vector<StoreEntry> EtcdStore::read_prefix(const std::string& prefix, int64_t limit) {
    const Json answer =
        parse_answer(call("/v3/kv/range", Json{{"key", base64(prefix)}, {"range_end", base64(prefix_end(prefix))}, {"limit", limit}}.dump()));
    std::vector<StoreEntry> entries;
    const auto kvs = answer.find("kvs");
    if (kvs == answer.end() || kvs->is_null()) return entries;
    if (!kvs->is_array()) throw StoreError("the store's answer has kvs that are not a list", true);
    for (const Json& kv : *kvs) {
        if (!kv.is_object() || !kv.contains("key") || !kv["key"].is_string()) throw StoreError("the store sent an entry without a key", true);
        StoreEntry e;
        e.key = unbase64(kv["key"].get<std::string>());
        if (kv.contains("value") && kv["value"].is_string()) e.value = unbase64(kv["value"].get<std::string>());
        e.lease = number_of(kv, "lease");
        entries.push_back(std::move(e));
    }
    return entries;
}

bool EtcdStore::create(const std::string& key, const std::string& value, int64_t lease) {
    Json put{{"key", base64(key)}, {"value", base64(value)}};
    if (lease != 0) put["lease"] = std::to_string(lease);
    const Json compare{{"key", base64(key)}, {"result", "EQUAL"}, {"target", "CREATE"}, {"create_revision", "0"}};
    const Json answer = parse_answer(call("/v3/kv/txn", Json{{"compare", Json::array({compare})}, {"success", Json::array({{{"request_put", put}}})}}.dump()));
    return flag_of(answer, "succeeded");
}

bool EtcdStore::remove_if(const std::string& key, const std::string& value) {
    const Json compare{{"key", base64(key)}, {"result", "EQUAL"}, {"target", "VALUE"}, {"value", base64(value)}};
    const Json remove{{"request_delete_range", {{"key", base64(key)}}}};
    const Json answer = parse_answer(call("/v3/kv/txn", Json{{"compare", Json::array({compare})}, {"success", Json::array({remove})}}.dump()));
    return flag_of(answer, "succeeded");
}

bool EtcdStore::replace_if(const std::string& key, const std::string& expected, const std::string& value, int64_t lease) {
    Json put{{"key", base64(key)}, {"value", base64(value)}};
    if (lease != 0) put["lease"] = std::to_string(lease);
    const Json compare{{"key", base64(key)}, {"result", "EQUAL"}, {"target", "VALUE"}, {"value", base64(expected)}};
    const Json answer = parse_answer(call("/v3/kv/txn", Json{{"compare", Json::array({compare})}, {"success", Json::array({{{"request_put", put}}})}}.dump()));
    return flag_of(answer, "succeeded");
}

void EtcdStore::remove(const std::string& key) { call("/v3/kv/deleterange", Json{{"key", base64(key)}}.dump()); }

}  // namespace vf
