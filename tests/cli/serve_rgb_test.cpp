// serve runs RGB streams as the command line does (the same Job): filtered per colour plane,
// alpha passed through, the input's pixel format written.
#include "cli/serve_fixture.hpp"
#include "support/rgb_check.hpp"

namespace vf {
namespace {

using namespace serve_fixture;

TEST_F(Serve, RgbStreamsAreFilteredAsRgb) {
    const std::string rgba = write_rgb_clip(temp_dir(), AV_PIX_FMT_RGBA), gbrp10 = write_rgb_clip(temp_dir(), AV_PIX_FMT_GBRP10LE);
    write("streams.yaml", "streams:\n  - {name: a, input: " + rgba + ", output: " + dir + "/a.nut, codec: rawvideo, filter: sobel}\n"
                          "  - {name: b, input: " + gbrp10 + ", output: " + dir + "/b.nut, codec: rawvideo, filter: 'gaussian=sigma=1.3'}\n");
    auto p = serve({});
    EXPECT_EQ(p->wait(60), 0) << p->log();
    EXPECT_EQ(check_rgb_output(rgba, dir + "/a.nut", "sobel", FilterDefaults::Vfilter, "serve: sobel on rgba"), 3);
    EXPECT_EQ(check_rgb_output(gbrp10, dir + "/b.nut", "gaussian=sigma=1.3", FilterDefaults::Vfilter, "serve: gaussian on gbrp10le"), 3);
}

}  // namespace
}  // namespace vf
