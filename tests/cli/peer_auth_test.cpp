// Calls between serve processes signed with the admin token instead of carrying it
// (app/serve/fleet/peer_auth.hpp), as ApiGuard takes them (app/serve/http/api_guard.hpp): a call
// signed as it is sent is the admin, through a real server on loopback; any part of it changed, a
// time outside the window, a nonce used before, a signature made with the viewer token, and
// malformed headers are nothing.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <vector>

#include "app/serve/fleet/peer_auth.hpp"
#include "app/serve/http/api_guard.hpp"
#include "common/http_client.hpp"
#include "common/http_server.hpp"

namespace vf {
namespace {
namespace peer_auth_test {  // a name of its own: the tests are built as unity files

const std::string kAdmin = "admin-token-0123456789", kViewer = "viewer-token-0123456789";
const std::string kHost = "127.0.0.1:8080";

int64_t now_s() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A fresh nonce for each call of a test: 32 hex digits.
std::string nonce(int n) {
    char text[33];
    std::snprintf(text, sizeof text, "%016x%016x", 0xfeed, n);
    return text;
}

HttpRequest received(const std::string& method, const std::string& target, const std::string& host, const std::string& authorization) {
    HttpRequest r;
    r.method = method;
    r.target = target;
    r.path = target.substr(0, target.find('?'));
    if (target.find('?') != std::string::npos) r.query = target.substr(target.find('?') + 1);
    r.host = host;
    r.authorization = authorization;
    return r;
}

// A request signed with `token` for GET /fleet/shard at kHost, at `ts`.
HttpRequest signed_request(int n, int64_t ts, const std::string& token = kAdmin) {
    return received("GET", "/fleet/shard", kHost, peer_authorization("GET", "/fleet/shard", kHost, ts, nonce(n), token));
}

ApiGuard guard() { return ApiGuard(ApiGuardOptions{kAdmin, kViewer, "127.0.0.1", {}}); }

TEST(PeerAuth, ACallSignedAsItIsSentIsTheAdminAndCarriesNoToken) {
    ApiGuard g = guard();
    std::mutex mutex;
    HttpRequest got;
    HttpServer server(HttpServerOptions{}, [&](const HttpRequest& r) {
        std::lock_guard<std::mutex> lock(mutex);
        got = r;
        return HttpResponse{200, "text/plain", "ok"};
    });
    HttpCall call;
    call.to = {"127.0.0.1", server.port()};
    call.method = "PUT";
    call.target = "/streams/cam%201/filter?x=1";
    call.body = "\"sobel\"";
    sign_peer_call(call, kAdmin);
    ASSERT_EQ(http_call(call).status, 200);
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(got.authorization.rfind("VfilterPeer ts=", 0), 0u) << got.authorization;
    EXPECT_EQ(got.authorization.find(kAdmin), std::string::npos);
    EXPECT_EQ(got.target, "/streams/cam%201/filter?x=1");
    EXPECT_EQ(g.role(got, PeerNonce::Check), ApiRole::Admin) << "the head's screen";
    EXPECT_EQ(g.role(got, PeerNonce::Spend), ApiRole::Admin) << "the answer's screen of the same request";
    EXPECT_EQ(g.role(got, PeerNonce::Spend), ApiRole::None) << "the same call again: a replay";
    EXPECT_EQ(g.role(got, PeerNonce::Check), ApiRole::None) << "a replay is refused at the head already";
}

TEST(PeerAuth, NoTokenSignsNothing) {
    HttpCall call;
    sign_peer_call(call, "");
    EXPECT_TRUE(call.headers.empty());
}

TEST(PeerAuth, AnyChangedPartOfTheCallIsRefused) {
    ApiGuard g = guard();
    const int64_t ts = now_s();
    const std::string good = peer_authorization("GET", "/fleet/shard", kHost, ts, nonce(1), kAdmin);
    EXPECT_EQ(g.role(received("POST", "/fleet/shard", kHost, good), PeerNonce::Spend), ApiRole::None) << "method";
    EXPECT_EQ(g.role(received("GET", "/fleet/shard?x", kHost, good), PeerNonce::Spend), ApiRole::None) << "target";
    EXPECT_EQ(g.role(received("GET", "/streams", kHost, good), PeerNonce::Spend), ApiRole::None) << "target";
    EXPECT_EQ(g.role(received("GET", "/fleet/shard", "127.0.0.2:8080", good), PeerNonce::Spend), ApiRole::None) << "host";
    EXPECT_EQ(g.role(received("GET", "/fleet/shard", "127.0.0.1:8081", good), PeerNonce::Spend), ApiRole::None) << "host";
    const auto with = [&](const std::string& from, const std::string& to) {
        std::string a = good;
        a.replace(a.find(from), from.size(), to);
        return received("GET", "/fleet/shard", kHost, a);
    };
    EXPECT_EQ(g.role(with("ts=" + std::to_string(ts), "ts=" + std::to_string(ts - 1)), PeerNonce::Spend), ApiRole::None) << "ts";
    EXPECT_EQ(g.role(with("nonce=" + nonce(1), "nonce=" + nonce(2)), PeerNonce::Spend), ApiRole::None) << "nonce";
    const std::string sig = good.substr(good.find("sig=") + 4);
    EXPECT_EQ(g.role(with(sig, std::string(64, '0')), PeerNonce::Spend), ApiRole::None) << "sig";
    EXPECT_EQ(g.role(with(sig, sig.substr(1) + (sig[0] == 'a' ? "b" : "a")), PeerNonce::Spend), ApiRole::None) << "sig";
    // Unchanged, it passes: the refusals above were for the change.
    EXPECT_EQ(g.role(received("GET", "/fleet/shard", kHost, good), PeerNonce::Spend), ApiRole::Admin);
}

TEST(PeerAuth, OnlyTimesWithinThirtySecondsPass) {
    ApiGuard g = guard();
    const int64_t now = now_s();
    EXPECT_EQ(g.role(signed_request(1, now - 31), PeerNonce::Spend), ApiRole::None) << "31 s old";
    EXPECT_EQ(g.role(signed_request(2, now + 31), PeerNonce::Spend), ApiRole::None) << "31 s ahead";
    EXPECT_EQ(g.role(signed_request(3, now - 3600), PeerNonce::Spend), ApiRole::None);
    EXPECT_EQ(g.role(signed_request(4, 0), PeerNonce::Spend), ApiRole::None);
    EXPECT_EQ(g.role(signed_request(5, now - 28), PeerNonce::Spend), ApiRole::Admin) << "28 s old";
    EXPECT_EQ(g.role(signed_request(6, now + 28), PeerNonce::Spend), ApiRole::Admin) << "28 s ahead";
}

TEST(PeerAuth, ANonceIsTakenOnceWhateverTheRequest) {
    ApiGuard g = guard();
    const int64_t now = now_s();
    EXPECT_EQ(g.role(signed_request(1, now), PeerNonce::Spend), ApiRole::Admin);
    // Another request, signed correctly, with the nonce of the first.
    const HttpRequest other = received("GET", "/streams", kHost, peer_authorization("GET", "/streams", kHost, now, nonce(1), kAdmin));
    EXPECT_EQ(g.role(other, PeerNonce::Check), ApiRole::None);
    EXPECT_EQ(g.role(other, PeerNonce::Spend), ApiRole::None);
    EXPECT_EQ(g.role(signed_request(1, now - 1), PeerNonce::Spend), ApiRole::None) << "another ts";
    // The screen refuses a replay with 401, on the head and on the whole request.
    EXPECT_EQ(g.screen(signed_request(1, now), PeerNonce::Check)->status, 401);
    EXPECT_EQ(g.screen(signed_request(1, now), PeerNonce::Spend)->status, 401);
    EXPECT_FALSE(g.screen(signed_request(2, now), PeerNonce::Check)) << "a new nonce passes the head's screen";
    EXPECT_FALSE(g.screen(signed_request(2, now), PeerNonce::Spend)) << "and then the answer's";
    // Another guard (another process) has its own record.
    EXPECT_EQ(guard().role(signed_request(1, now), PeerNonce::Spend), ApiRole::Admin);
}

TEST(PeerAuth, TheNonceRecordIsBoundedOldestFirst) {
    PeerNonces nonces(4);
    for (int n = 0; n < 5; ++n) EXPECT_TRUE(nonces.spend(nonce(n)));
    EXPECT_FALSE(nonces.seen(nonce(0))) << "the oldest gave way";
    for (int n = 1; n < 5; ++n) EXPECT_TRUE(nonces.seen(nonce(n)));
    EXPECT_FALSE(nonces.spend(nonce(4)));
}

TEST(PeerAuth, ASignatureMadeWithTheViewerTokenIsNothing) {
    ApiGuard g = guard();
    const int64_t now = now_s();
    EXPECT_EQ(g.role(signed_request(1, now, kViewer), PeerNonce::Spend), ApiRole::None);
    EXPECT_EQ(g.role(signed_request(2, now, "another-token-0123456789"), PeerNonce::Spend), ApiRole::None);
    // Operators and the page: bearer tokens as before.
    EXPECT_EQ(g.role(received("GET", "/streams", kHost, "Bearer " + kAdmin), PeerNonce::Spend), ApiRole::Admin);
    EXPECT_EQ(g.role(received("GET", "/streams", kHost, "Bearer " + kViewer), PeerNonce::Spend), ApiRole::Viewer);
    EXPECT_EQ(g.role(received("GET", "/streams", kHost, "Bearer " + kViewer), PeerNonce::Spend), ApiRole::Viewer) << "no nonce there";
    // A guard without a viewer token: a signature with an empty key is nothing too.
    ApiGuard admin_only(ApiGuardOptions{kAdmin, "", "127.0.0.1", {}});
    EXPECT_EQ(admin_only.role(signed_request(3, now, ""), PeerNonce::Spend), ApiRole::None);
}

TEST(PeerAuth, MalformedHeadersAreNothing) {
    ApiGuard g = guard();
    const std::string ts = std::to_string(now_s()), n = nonce(1);
    const std::string good = peer_authorization("GET", "/fleet/shard", kHost, now_s(), n, kAdmin);
    const std::string sig = good.substr(good.find("sig=") + 4);
    const std::string upper = [&] {
        std::string s = sig;
        for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return s;
    }();
    const std::vector<std::string> bad = {
        "",
        "VfilterPeer",
        "VfilterPeer ",
        "VfilterPeer ts=" + ts,
        "VfilterPeer ts=" + ts + ",nonce=" + n,
        "VfilterPeer nonce=" + n + ",sig=" + sig,
        "VfilterPeer nonce=" + n + ",ts=" + ts + ",sig=" + sig,                      // another order
        "VfilterPeer ts=" + ts + ",nonce=" + n + ",sig=" + sig + ",sig=" + sig,      // a field twice
        "VfilterPeer ts=" + ts + ",ts=" + ts + ",nonce=" + n + ",sig=" + sig,
        "VfilterPeer ts=" + ts + ",nonce=" + n + ",sig=" + sig + ",",
        "VfilterPeer ts=" + ts + ", nonce=" + n + ",sig=" + sig,                     // a blank
        "VfilterPeer  ts=" + ts + ",nonce=" + n + ",sig=" + sig,
        "vfilterpeer ts=" + ts + ",nonce=" + n + ",sig=" + sig,
        "VfilterPeer TS=" + ts + ",nonce=" + n + ",sig=" + sig,
        "VfilterPeer ts=" + ts + ",nonce=" + n + ",sig=" + upper,                    // hex, but not lowercase
        "VfilterPeer ts=" + ts + ",nonce=" + n + ",sig=" + sig.substr(2),            // short
        "VfilterPeer ts=" + ts + ",nonce=" + n + ",sig=" + sig + "00",               // long
        "VfilterPeer ts=" + ts + ",nonce=" + n + ",sig=" + std::string(64, 'g'),     // not hex
        "VfilterPeer ts=" + ts + ",nonce=" + n.substr(0, 31) + "x,sig=" + sig,
        "VfilterPeer ts=" + ts + ",nonce=" + n + "00,sig=" + sig,
        "VfilterPeer ts=0" + ts + ",nonce=" + n + ",sig=" + sig,                     // a leading zero
        "VfilterPeer ts=-" + ts + ",nonce=" + n + ",sig=" + sig,
        "VfilterPeer ts=+" + ts + ",nonce=" + n + ",sig=" + sig,
        "VfilterPeer ts=" + ts + "x,nonce=" + n + ",sig=" + sig,
        "VfilterPeer ts=99999999999999999999999,nonce=" + n + ",sig=" + sig,       // beyond int64
        "VfilterPeer ts=,nonce=" + n + ",sig=" + sig,
        "VfilterPeer ts=" + ts + ",nonce=" + n + ",sig=" + sig + std::string(10 * 1024, 'a'),
        "VfilterPeer " + std::string(10 * 1024, ','),
        "Bearer " + good,
        good + "\n",
        std::string("VfilterPeer ts=") + ts + std::string(1, '\0') + ",nonce=" + n + ",sig=" + sig,
    };
    for (const std::string& a : bad) {
        EXPECT_FALSE(parse_peer_authorization(a)) << a.substr(0, 200);
        EXPECT_EQ(g.role(received("GET", "/fleet/shard", kHost, a), PeerNonce::Spend), ApiRole::None) << a.substr(0, 200);
        EXPECT_EQ(g.screen(received("GET", "/fleet/shard", kHost, a), PeerNonce::Spend)->status, 401) << a.substr(0, 200);
    }
    // The same header well formed passes: what was refused above was the form.
    EXPECT_TRUE(parse_peer_authorization(good));
    EXPECT_EQ(g.role(received("GET", "/fleet/shard", kHost, good), PeerNonce::Spend), ApiRole::Admin);
}

}  // namespace peer_auth_test
}  // namespace
}  // namespace vf
