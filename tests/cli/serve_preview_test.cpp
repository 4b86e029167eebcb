// serve's previews and page, in process: the preview query (every malformed form refused with
// its reason), StreamPreview (pictures of the frames that pass before and after the filter, one
// encode shared by every watcher, the last picture kept when frames stop), and the control API's
// routes for the page, the filter table and the previews, with the token rule.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/serve/http/control_api.hpp"
#include "app/serve/preview/preview_query.hpp"
#include "app/serve/preview/stream_preview.hpp"
#include "common/http_server.hpp"
#include "support/jpeg_decode.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

std::string refusal(const std::string& query, bool with_fps = true) {
    try {
        parse_preview_query(query, with_fps);
    } catch (const ServiceError& e) {
        EXPECT_EQ(e.status(), 400) << query;
        return e.what();
    }
    return "(accepted)";
}

TEST(PreviewQuery, ReadsSideWidthAndFps) {
    PreviewQuery q = parse_preview_query("", true);
    EXPECT_EQ(q.side, PreviewSide::Output);
    EXPECT_EQ(q.width, 480);
    EXPECT_EQ(q.fps, 5);
    q = parse_preview_query("side=input&width=320&fps=10", true);
    EXPECT_EQ(q.side, PreviewSide::Input);
    EXPECT_EQ(q.width, 320);
    EXPECT_EQ(q.fps, 10);
    q = parse_preview_query("%73ide=%6Futput&&width=16&", false);
    EXPECT_EQ(q.side, PreviewSide::Output) << "percent-encoded names and values, empty pairs";
    EXPECT_EQ(q.width, 16);
    EXPECT_EQ(parse_preview_query("width=1920", false).width, 1920);
}

TEST(PreviewQuery, RefusesEveryMalformedFormWithItsReason) {
    EXPECT_NE(refusal("side=left").find("side='left': expected input or output"), std::string::npos);
    EXPECT_NE(refusal("side").find("expected input or output"), std::string::npos);
    EXPECT_NE(refusal("width=15").find("width=15: must be in 16..1920"), std::string::npos);
    EXPECT_NE(refusal("width=1921").find("16..1920"), std::string::npos);
    EXPECT_NE(refusal("width=-1").find("expected a whole number"), std::string::npos);
    EXPECT_NE(refusal("width=3e2").find("expected a whole number"), std::string::npos);
    EXPECT_NE(refusal("width=").find("expected a whole number"), std::string::npos);
    EXPECT_NE(refusal("width=99999999999999999999").find("expected a whole number"), std::string::npos);
    EXPECT_NE(refusal("width=%2B320").find("expected a whole number"), std::string::npos) << "'+' sent encoded";
    EXPECT_NE(refusal("fps=0").find("1..10"), std::string::npos);
    EXPECT_NE(refusal("fps=11").find("1..10"), std::string::npos);
    EXPECT_NE(refusal("fps=5", false).find("unknown parameter 'fps': expected side, width"), std::string::npos)
        << "snapshot.jpg has no frame rate";
    EXPECT_NE(refusal("width=100&width=200").find("'width' is given twice"), std::string::npos);
    EXPECT_NE(refusal("colour=red").find("unknown parameter 'colour'"), std::string::npos);
    EXPECT_NE(refusal("%zz=1").find("bad percent-encoding"), std::string::npos);
    EXPECT_NE(refusal("side=in%2").find("bad percent-encoding"), std::string::npos);
    EXPECT_NE(refusal(std::string(300, 'a')).find("too long"), std::string::npos);
    const std::string shown = refusal("side=%01%02%03" + std::string(100, 'x'));
    EXPECT_EQ(shown.find('\x01'), std::string::npos) << "control characters are not echoed: " << shown;
    EXPECT_LT(shown.size(), 120u) << "long values are cut: " << shown;
}

// A 64x48 yuv420p frame of one luma level, neutral chroma.
AvFramePtr flat_frame(int luma, int64_t pts) {
    AvFramePtr f = make_frame();
    f->format = AV_PIX_FMT_YUV420P;
    f->width = 64;
    f->height = 48;
    EXPECT_EQ(av_frame_get_buffer(f.get(), 0), 0);
    std::memset(f->data[0], luma, static_cast<size_t>(f->linesize[0]) * 48);
    std::memset(f->data[1], 128, static_cast<size_t>(f->linesize[1]) * 24);
    std::memset(f->data[2], 128, static_cast<size_t>(f->linesize[2]) * 24);
    f->pts = pts;
    return f;
}

int centre_luma(const std::string& jpeg) {
    AvFramePtr p = test::decode_jpeg(jpeg);
    if (!p) return -1;
    return p->data[0][static_cast<ptrdiff_t>(p->height / 2) * p->linesize[0] + p->width / 2];
}

// A pipeline that offers input frames of luma 200 and output frames of luma 40 (limited range).
class FakePipeline {
public:
    explicit FakePipeline(StreamPreview& preview) : thread_([this, &preview] {
        for (int64_t pts = 0; !stop_; ++pts) {
            AvFramePtr in = flat_frame(200, pts), out = flat_frame(40, pts);
            preview.tap(PreviewSide::Input).offer(in.get());
            preview.tap(PreviewSide::Output).offer(out.get());
            std::this_thread::sleep_for(5ms);
        }
    }) {}
    ~FakePipeline() { stop(); }
    void stop() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
    }

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

TEST(StreamPreview, PicturesShowEachSideOfTheFilter) {
    StreamPreview preview;
    FakePipeline pipeline(preview);
    const auto in = preview.picture(PreviewSide::Input, 32);
    const auto out = preview.picture(PreviewSide::Output, 64);
    ASSERT_TRUE(in && out);
    EXPECT_TRUE(in->fresh && out->fresh);
    EXPECT_NEAR(centre_luma(in->jpeg), (200 - 16) * 255 / 219, 3) << "input, full range";
    EXPECT_NEAR(centre_luma(out->jpeg), (40 - 16) * 255 / 219, 3) << "output, full range";
    EXPECT_EQ(test::decode_jpeg(in->jpeg)->width, 32);
    EXPECT_NE(in->sequence, out->sequence);
}

TEST(StreamPreview, WatchersShareOnePictureAtATime) {
    StreamPreview preview;
    FakePipeline pipeline(preview);
    ASSERT_TRUE(preview.picture(PreviewSide::Output, 64));
    const int64_t made = preview.pictures_made();
    std::vector<std::thread> watchers;
    std::atomic<int> answered{0};
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < 8; ++i)
        watchers.emplace_back([&] {
            if (preview.picture(PreviewSide::Output, 64)) ++answered;
        });
    for (auto& t : watchers) t.join();
    EXPECT_EQ(answered.load(), 8);
    // One picture per interval that the watchers' asking spanned (the first and last may each be
    // new): two when they ask together; a loaded machine that starts them apart allows more.
    const auto spanned = std::chrono::steady_clock::now() - started;
    EXPECT_LE(preview.pictures_made() - made, spanned / StreamPreview::kMinInterval + 2)
        << "eight watchers at once made " << preview.pictures_made() - made << " pictures";
    // However fast a watcher asks, a side and width gets at most one new picture per interval.
    const auto t = std::chrono::steady_clock::now();
    const int64_t before = preview.pictures_made();
    while (std::chrono::steady_clock::now() - t < 500ms) preview.picture(PreviewSide::Output, 64);
    EXPECT_LE(preview.pictures_made() - before, 500ms / StreamPreview::kMinInterval + 1);
}

// Viewers of many streams cannot start more encoders than the process allows: the finding was four
// /live connections starting sixteen x264 encoders. A place comes back when its encoder stops.
TEST(StreamPreview, LiveEncodersOfEveryStreamShareTheProcesssBudget) {
    EncoderBudget budget(2);
    StreamPreview a(&budget), b(&budget);
    FakePipeline pa(a), pb(b);
    auto first = a.live().watch(PreviewSide::Output, 64);
    auto second = b.live().watch(PreviewSide::Input, 64);
    EXPECT_EQ(budget.in_use(), 2);
    try {
        a.live().watch(PreviewSide::Input, 32);
        ADD_FAILURE() << "a third encoder started";
    } catch (const ServiceError& e) {
        EXPECT_EQ(e.status(), 503);
        EXPECT_NE(std::string(e.what()).find("max-preview-encoders"), std::string::npos) << e.what();
    }
    auto shared = a.live().watch(PreviewSide::Output, 64);
    EXPECT_EQ(budget.in_use(), 2) << "a second viewer of a running encoder takes no place";
    EXPECT_FALSE(first->next(3000ms).empty()) << "the first viewer is served";
    first.reset();
    shared.reset();
    for (int i = 0; i < 40 && budget.in_use() > 1; ++i) std::this_thread::sleep_for(50ms);
    EXPECT_EQ(budget.in_use(), 1) << "the encoder nobody watches gave its place back";
    EXPECT_NO_THROW(a.live().watch(PreviewSide::Input, 32));
}

TEST(StreamPreview, TheLastPictureStaysWhenFramesStop) {
    StreamPreview preview;
    {
        FakePipeline pipeline(preview);
        ASSERT_TRUE(preview.picture(PreviewSide::Output, 64));
    }
    EXPECT_FALSE(preview.picture(PreviewSide::Output, 48)) << "no picture at a width never made";
    std::this_thread::sleep_for(StreamPreview::kMinInterval);
    const auto t = std::chrono::steady_clock::now();
    const auto kept = preview.picture(PreviewSide::Output, 64);
    ASSERT_TRUE(kept);
    EXPECT_FALSE(kept->fresh);
    EXPECT_GE(std::chrono::steady_clock::now() - t, StreamPreview::kFrameWait - 50ms) << "waited for a frame first";
    preview.close();
    const auto t2 = std::chrono::steady_clock::now();
    EXPECT_TRUE(preview.picture(PreviewSide::Output, 64));
    EXPECT_LT(std::chrono::steady_clock::now() - t2, 500ms) << "an ended stream answers at once";
}

HttpRequest get(const std::string& path, const std::string& query = "", const std::string& authorization = "") {
    HttpRequest r;
    r.method = "GET";
    r.path = path;
    r.query = query;
    r.authorization = authorization;
    return r;
}

TEST(ControlApi, ServesThePageAndTheFilterTableWithoutAToken) {
    StreamService service(1);
    ControlApi api(service, {"t0k3n", 8});
    HttpResponse r = api.answer(get("/"));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
    EXPECT_NE(r.body.find("<script src=\"/app.js\""), std::string::npos);
    EXPECT_EQ(r.body.find("<script>"), std::string::npos) << "no inline script: the policy would refuse it";
    for (const auto& [path, type] : std::vector<std::pair<std::string, std::string>>{
             {"/index.html", "text/html; charset=utf-8"}, {"/app.js", "text/javascript; charset=utf-8"},
             {"/api.js", "text/javascript; charset=utf-8"}, {"/grid.js", "text/javascript; charset=utf-8"},
             {"/pictures.js", "text/javascript; charset=utf-8"}, {"/editor.js", "text/javascript; charset=utf-8"},
             {"/add_remove.js", "text/javascript; charset=utf-8"}, {"/live.js", "text/javascript; charset=utf-8"},
             {"/style.css", "text/css; charset=utf-8"}, {"/icon.svg", "image/svg+xml"}}) {
        r = api.answer(get(path));
        EXPECT_EQ(r.status, 200) << path;
        EXPECT_EQ(r.content_type, type) << path;
        EXPECT_GT(r.body.size(), 100u) << path;
    }
    HttpRequest post = get("/");
    post.method = "POST";
    EXPECT_EQ(api.answer(post).status, 415) << "a write without a JSON body is refused before routing";
    post.content_type = "application/json";
    EXPECT_EQ(api.answer(post).status, 405);
    EXPECT_EQ(api.answer(get("/app.js.map")).status, 404);
    r = api.answer(get("/filters"));
    ASSERT_EQ(r.status, 200);
    const nlohmann::json table = nlohmann::json::parse(r.body);
    bool gaussian = false;
    for (const auto& f : table)
        if (f["name"] == "gaussian")
            for (const auto& o : f["options"])
                if (o["name"] == "sigma") gaussian = o["type"] == "number" && o["min"] == 0.05 && !o["help"].get<std::string>().empty();
    EXPECT_TRUE(gaussian) << "gaussian's sigma with its range and help: " << r.body.substr(0, 400);
}

TEST(ControlApi, PreviewsFollowTheTokenRuleAndRefuseWhatTheyCannotAnswer) {
    StreamService service(1);
    ControlApi locked(service, {"t0k3n", 8});
    EXPECT_EQ(locked.answer(get("/streams/cam1/snapshot.jpg")).status, 401);
    EXPECT_EQ(locked.answer(get("/streams/cam1/preview.mjpg", "", "Bearer wrong")).status, 401);
    EXPECT_EQ(locked.answer(get("/streams/cam1/snapshot.jpg", "", "Bearer t0k3n")).status, 404) << "no such stream";
    ControlApi open(service, {"", 8});
    HttpResponse r = open.answer(get("/streams/cam1/snapshot.jpg", "width=2"));
    EXPECT_EQ(r.status, 400);
    EXPECT_NE(r.body.find("width=2: must be in 16..1920"), std::string::npos) << r.body;
    r = open.answer(get("/streams/a%20b/snapshot.jpg"));
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.body.find("%20"), std::string::npos) << "a name that cannot be a stream's is not echoed";
    HttpRequest del = get("/streams/cam1/snapshot.jpg");
    del.method = "DELETE";
    EXPECT_EQ(open.answer(del).status, 405);
    EXPECT_EQ(open.answer(get("/streams/cam1/thumbnail.png")).status, 404);
}

}  // namespace
}  // namespace vf
