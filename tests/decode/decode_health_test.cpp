#include "decode/decode_health.hpp"

#include <gtest/gtest.h>

namespace vf {
namespace {

TEST(DecodeDamage, ErrorsOutsideACutDamageTheInput) {
    SourceStatus status;
    DecodeDamage d(status);
    d.frame_decoded(false);
    EXPECT_FALSE(d.health().damaged());
    d.frame_decoded(true);
    d.packet_rejected();
    EXPECT_EQ(d.health().corrupt_frames, 1);
    EXPECT_EQ(d.health().bad_packets, 1);
    EXPECT_TRUE(d.health().damaged());
    EXPECT_EQ(status.damaged_at_cuts, 0);
    EXPECT_EQ(d.health().summary(), "1 video packets could not be decoded, 1 frames were decoded with errors");
}

TEST(DecodeDamage, ErrorsAtACutAreChargedToItUntilACleanFrame) {
    SourceStatus status;
    DecodeDamage d(status);
    d.connection_lost();
    d.frame_decoded(true);  // the half frame the camera sent as it went
    d.reconnected();
    d.packet_rejected();    // the new connection starts mid-GOP
    d.frame_decoded(true);
    d.frame_decoded(false);  // clean: the cut is over
    EXPECT_EQ(status.damaged_at_cuts, 3);
    EXPECT_FALSE(d.health().damaged());
    d.frame_decoded(true);
    EXPECT_EQ(d.health().corrupt_frames, 1);
}

// NVDEC gives a live input's frames out at once: the camera's last half frame comes out flagged
// before the read that finds the connection gone. It is the cut's; damage followed by a clean
// frame stays damage.
TEST(DecodeDamage, DamageSinceTheLastCleanFrameBeforeALossIsTheCuts) {
    SourceStatus status;
    DecodeDamage d(status);
    d.frame_decoded(true);   // damaged, then clean: damage
    d.frame_decoded(false);
    d.frame_decoded(true);   // the half frame ...
    d.packet_rejected();
    EXPECT_EQ(d.health().corrupt_frames, 2);
    EXPECT_EQ(d.health().bad_packets, 1);
    d.connection_lost();     // ... then the connection goes
    EXPECT_EQ(d.health().corrupt_frames, 1);
    EXPECT_EQ(d.health().bad_packets, 0);
    EXPECT_EQ(status.damaged_at_cuts, 2);
    d.reconnected();
    d.frame_decoded(false);
    d.connection_lost();     // nothing broke since the last clean frame: nothing moves
    EXPECT_EQ(d.health().corrupt_frames, 1);
    EXPECT_EQ(status.damaged_at_cuts, 2);
}

TEST(DecodeDamage, AStreamBrokenForLongBeforeALossKeepsItsDamage) {
    SourceStatus status;
    DecodeDamage d(status);
    for (int64_t i = 0; i < kCutGraceFrames + 1; ++i) d.frame_decoded(true);
    d.connection_lost();
    EXPECT_EQ(d.health().corrupt_frames, kCutGraceFrames + 1);
    EXPECT_EQ(status.damaged_at_cuts, 0);
}

TEST(DecodeDamage, AStreamStillBrokenAfterTheGraceIsDamage) {
    SourceStatus status;
    DecodeDamage d(status);
    d.connection_lost();
    d.reconnected();
    for (int64_t i = 0; i < kCutGraceFrames + 5; ++i) d.frame_decoded(true);
    EXPECT_EQ(status.damaged_at_cuts, kCutGraceFrames);
    EXPECT_EQ(d.health().corrupt_frames, 5);
}

TEST(DecodeHealth, SummaryNamesEveryKindOfDamage) {
    DecodeHealth h;
    EXPECT_EQ(h.summary(), "");
    h.read_errors = 1;
    h.truncated = "the input ends at 4.0 s of its stated 10.0 s (truncated?)";
    h.lost = "gone";
    EXPECT_EQ(h.summary(), "reading stopped early on an error, the input ends at 4.0 s of its stated 10.0 s (truncated?), gone");
}

}  // namespace
}  // namespace vf
