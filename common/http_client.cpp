#include "common/http_client.hpp"

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

namespace vf {
namespace {

// What a failed call says, in words a log reader knows.
std::string error_words(httplib::Error e) {
    switch (e) {
    case httplib::Error::Connection: return "connection refused or unreachable";
    case httplib::Error::ConnectionTimeout: return "connecting timed out";
    case httplib::Error::Read: return "the answer stopped or timed out";
    case httplib::Error::Write: return "the request could not be sent";
    case httplib::Error::Canceled: return "cancelled";
    default: return httplib::to_string(e);
    }
}

std::unique_ptr<httplib::Client> client_for(const HttpCall& call) {
    auto client = std::make_unique<httplib::Client>(call.to.host, call.to.port);
    client->set_connection_timeout(call.connect_timeout_ms / 1000, (call.connect_timeout_ms % 1000) * 1000);
    client->set_read_timeout(call.read_timeout_ms / 1000, (call.read_timeout_ms % 1000) * 1000);
    client->set_write_timeout(5, 0);
    client->set_follow_location(false);
    client->set_keep_alive(false);
    client->set_tcp_nodelay(true);  // a request's headers and body are two writes (see http_server.cpp)
    return client;
}

httplib::Request request_for(const HttpCall& call) {
    httplib::Request req;
    req.method = call.method;
    req.path = call.target;
    for (const auto& [name, value] : call.headers) req.set_header(name, value);
    if (!call.body.empty() || call.method == "POST" || call.method == "PUT") {
        req.body = call.body;
        req.set_header("Content-Type", call.content_type.empty() ? "application/octet-stream" : call.content_type);
    }
    return req;
}

void take_head(const httplib::Response& res, HttpReply* reply) {
    reply->status = res.status;
    reply->content_type = res.get_header_value("Content-Type");
    for (const char* name : {"Retry-After", "WWW-Authenticate"})
        if (res.has_header(name)) reply->headers.push_back({name, res.get_header_value(name)});
}

}  // namespace

std::string HttpAddress::url() const {
    const bool v6 = host.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

bool parse_http_address(const std::string& url, HttpAddress* address, std::string* why) {
    const std::string scheme = "http://";
    if (url.rfind("https://", 0) == 0) {
        *why = "'" + url + "': https is not spoken between vfilter serve processes; use http:// on the cluster's network";
        return false;
    }
    if (url.rfind(scheme, 0) != 0) {
        *why = "'" + url + "': expected http://HOST:PORT";
        return false;
    }
    std::string rest = url.substr(scheme.size());
    if (!rest.empty() && rest.back() == '/') rest.pop_back();
    if (rest.find('/') != std::string::npos || rest.find('@') != std::string::npos || rest.find('?') != std::string::npos) {
        *why = "'" + url + "': expected http://HOST:PORT, without a path or credentials";
        return false;
    }
    HttpAddress a;
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
                *why = "'" + url + "': expected http://[ADDRESS]:PORT";
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

HttpReply http_call(const HttpCall& call) {
    HttpReply reply;
    auto client = client_for(call);
    httplib::Request req = request_for(call);
    const httplib::Result result = client->send(req);
    if (!result) {
        reply.error = error_words(result.error());
        return reply;
    }
    take_head(*result, &reply);
    reply.body = result->body;
    return reply;
}

struct HttpStreamedCall::State {
    std::unique_ptr<httplib::Client> client;
    std::thread thread;
    std::mutex mutex;
    std::condition_variable changed;
    bool head_known = false, ended = false, leaving = false;
    HttpReply head;
    std::deque<std::string> pieces;
    static constexpr size_t kMaxPieces = 256;  // a reader this far behind holds the connection back
};

HttpStreamedCall::HttpStreamedCall(std::shared_ptr<State> state) : state_(std::move(state)) {}

HttpStreamedCall::~HttpStreamedCall() {
    {
        std::lock_guard<std::mutex> lock(state_->mutex);
        state_->leaving = true;
    }
    state_->changed.notify_all();
    state_->client->stop();  // wakes a read that waits for the server
    if (state_->thread.joinable()) state_->thread.join();
}

std::pair<std::unique_ptr<HttpStreamedCall>, HttpReply> HttpStreamedCall::open(const HttpCall& call) {
    auto state = std::make_shared<State>();
    state->client = client_for(call);
    httplib::Request req = request_for(call);
    State* s = state.get();
    req.response_handler = [s](const httplib::Response& res) {
        std::lock_guard<std::mutex> lock(s->mutex);
        take_head(res, &s->head);
        s->head_known = true;
        s->changed.notify_all();
        return !s->leaving;
    };
    req.content_receiver = [s](const char* data, size_t length, uint64_t, uint64_t) {
        std::unique_lock<std::mutex> lock(s->mutex);
        s->changed.wait(lock, [&] { return s->pieces.size() < State::kMaxPieces || s->leaving; });
        if (s->leaving) return false;
        s->pieces.emplace_back(data, length);
        s->changed.notify_all();
        return true;
    };
    state->thread = std::thread([s, req = std::move(req)]() mutable {
        const httplib::Result result = s->client->send(req);
        std::lock_guard<std::mutex> lock(s->mutex);
        if (!s->head_known) {
            if (result) {
                take_head(*result, &s->head);
                s->pieces.push_back(result->body);
            } else {
                s->head.error = error_words(result.error());
            }
            s->head_known = true;
        }
        s->ended = true;
        s->changed.notify_all();
    });
    HttpReply head;
    {
        std::unique_lock<std::mutex> lock(state->mutex);
        state->changed.wait(lock, [&] { return state->head_known; });
        head = state->head;
    }
    std::unique_ptr<HttpStreamedCall> stream(new HttpStreamedCall(state));
    if (head.status == 0) stream.reset();
    return {std::move(stream), head};
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
