#include "common/http_client.hpp"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "common/http_call_stop.hpp"
#include "common/http_client_connection.hpp"
#include "common/tls_context.hpp"

namespace vf {
namespace {

using http::ClientConnection;
using Got = ClientConnection::Got;

void take_head(const ClientConnection& c, HttpReply* reply) {
    const auto& head = c.head();
    reply->status = static_cast<int>(head.result_int());
    reply->content_type = std::string(head[boost::beast::http::field::content_type]);
    for (const char* name : {"Retry-After", "WWW-Authenticate"}) {
        const auto found = head.find(name);
        if (found != head.end()) reply->headers.push_back({name, std::string(found->value())});
    }
}

}  // namespace

std::string HttpAddress::authority() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string HttpAddress::url() const { return (https ? "https://" : "http://") + authority(); }

HttpsTrust::HttpsTrust(const std::string& ca_file, const std::string& option)
    : context_(std::make_unique<Context>(Context{http::client_tls_context(ca_file, option)})) {}

HttpsTrust::~HttpsTrust() = default;

bool parse_http_address(const std::string& url, HttpAddress* address, std::string* why) {
    HttpAddress a;
    a.https = url.rfind("https://", 0) == 0;
    const std::string scheme = a.https ? "https://" : "http://";
    if (url.rfind(scheme, 0) != 0) {
        *why = "'" + url + "': expected http://HOST:PORT or https://HOST:PORT";
        return false;
    }
    a.port = a.https ? 443 : 80;
    std::string rest = url.substr(scheme.size());
    if (!rest.empty() && rest.back() == '/') rest.pop_back();
    if (rest.find('/') != std::string::npos || rest.find('@') != std::string::npos || rest.find('?') != std::string::npos) {
        *why = "'" + url + "': expected " + scheme + "HOST:PORT, without a path or credentials";
        return false;
    }
    std::string port;
    if (!rest.empty() && rest.front() == '[') {  // [IPv6]:port
        const size_t close = rest.find(']');
        if (close == std::string::npos) {
            *why = "'" + url + "': an IPv6 address needs its closing ]";
            return false;
        }
        a.host = rest.substr(1, close - 1);
        if (close + 1 < rest.size()) {
            if (rest[close + 1] != ':') {
                *why = "'" + url + "': expected " + scheme + "[ADDRESS]:PORT";
                return false;
            }
            port = rest.substr(close + 2);
        }
    } else {
        const size_t colon = rest.find(':');
        a.host = rest.substr(0, colon);
        if (colon != std::string::npos) port = rest.substr(colon + 1);
    }
    if (a.host.empty()) {
        *why = "'" + url + "': no host";
        return false;
    }
    if (!port.empty()) {
        char* end = nullptr;
        const long p = std::strtol(port.c_str(), &end, 10);
        if (*end || p < 1 || p > 65535) {
            *why = "'" + url + "': the port must be 1 to 65535";
            return false;
        }
        a.port = static_cast<int>(p);
    }
    *address = a;
    return true;
}

HttpReply http_call(const HttpCall& call, HttpCallStop* stop) {
    HttpReply reply;
    ClientConnection c(call, true);
    const HttpCallStop::Watch watch(stop, c);
    std::string error, piece;
    if (!c.send_request(&error)) {
        reply.error = error;
        return reply;
    }
    for (;;) {
        switch (c.next(c.deadline(), &piece, &error)) {
        case Got::Head: take_head(c, &reply); break;
        case Got::Piece: reply.body += piece; break;
        case Got::Done: return reply;
        case Got::Failed: return HttpReply{0, error, "", "", {}};
        }
    }
}

struct HttpStreamedCall::State {
    explicit State(const HttpCall& call) : connection(call, false) {}
    ClientConnection connection;
    std::thread thread;
    std::mutex mutex;
    std::condition_variable changed;
    bool ended = false, leaving = false;
    std::deque<std::string> pieces;
    static constexpr size_t kMaxPieces = 256;  // a reader this far behind holds the connection back

    void read_body();
};

void HttpStreamedCall::State::read_body() {
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex);
            changed.wait(lock, [&] { return pieces.size() < kMaxPieces || leaving; });
            if (leaving) break;
        }
        std::string piece, error;
        const Got got = connection.next(http::Clock::time_point::max(), &piece, &error);
        if (got == Got::Done || got == Got::Failed) break;
        if (got != Got::Piece) continue;
        std::lock_guard<std::mutex> lock(mutex);
        pieces.push_back(std::move(piece));
        changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex);
    ended = true;
    changed.notify_all();
}

HttpStreamedCall::HttpStreamedCall(std::shared_ptr<State> state) : state_(std::move(state)) {}

HttpStreamedCall::~HttpStreamedCall() {
    {
        std::lock_guard<std::mutex> lock(state_->mutex);
        state_->leaving = true;
    }
    state_->changed.notify_all();
    state_->connection.interrupt();  // ends a read that waits for the server
    if (state_->thread.joinable()) state_->thread.join();
}

std::pair<std::unique_ptr<HttpStreamedCall>, HttpReply> HttpStreamedCall::open(const HttpCall& call, HttpCallStop* stop) {
    auto state = std::make_shared<State>(call);
    ClientConnection& c = state->connection;
    const HttpCallStop::Watch watch(stop, c);
    HttpReply head;
    std::string error, piece;
    if (!c.send_request(&error)) return {nullptr, HttpReply{0, error, "", "", {}}};
    // The head within the call's total deadline; the body's pieces as they come (read_body).
    for (bool have_head = false; !have_head;) {
        switch (c.next(c.deadline(), &piece, &error)) {
        case Got::Head:
            take_head(c, &head);
            have_head = true;
            break;
        case Got::Piece: break;  // not before the head
        case Got::Done:
        case Got::Failed: return {nullptr, HttpReply{0, error.empty() ? "the answer ended early" : error, "", "", {}}};
        }
    }
    State* s = state.get();
    state->thread = std::thread([s] { s->read_body(); });
    return {std::unique_ptr<HttpStreamedCall>(new HttpStreamedCall(state)), head};
}

HttpStreamedCall::Next HttpStreamedCall::next(std::string* piece, int timeout_ms) {
    State& s = *state_;
    std::unique_lock<std::mutex> lock(s.mutex);
    if (!s.changed.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return !s.pieces.empty() || s.ended; }))
        return Next::Nothing;
    if (s.pieces.empty()) return Next::Ended;
    *piece = std::move(s.pieces.front());
    s.pieces.pop_front();
    s.changed.notify_all();
    return Next::Piece;
}

}  // namespace vf
