// The bad-input corpus (tests/data/bad): every file gives its documented exit code and one error
// line, never a crash, a hang (each run is killed after 60 s) or an output that looks finished
// when it is not; memory stays bounded (each run is limited to 4 GiB of address space, except
// under the sanitizers, which reserve far more).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/clip_writer.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"

#ifndef VF_SOURCE_DIR
#error "VF_SOURCE_DIR must point at the source tree"
#endif

namespace vf {
namespace {

using namespace test;

struct BadCase {
    std::string file, use, message, fate;
    int code = 0;
};

std::vector<BadCase> load_cases() {
    std::vector<BadCase> cases;
    std::ifstream f(std::string(VF_SOURCE_DIR) + "/tests/data/bad/expected.tsv");
    for (std::string line; std::getline(f, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream s(line);
        BadCase c;
        std::string code;
        std::getline(s, c.file, '\t');
        std::getline(s, c.use, '\t');
        std::getline(s, code, '\t');
        std::getline(s, c.message, '\t');
        std::getline(s, c.fate, '\t');
        c.code = std::stoi(code);
        cases.push_back(c);
    }
    return cases;
}

class BadInputs : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        corpus_ = new std::string(temp_dir());
        const CommandResult r =
            run_command({"bash", std::string(VF_SOURCE_DIR) + "/tests/data/bad/make_bad_inputs.sh", *corpus_}, 600);
        generated_ = r.exit_code == 0;
        if (!generated_) why_ = new std::string(r.output);
    }
    static std::string* corpus_;
    static std::string* why_;
    static bool generated_;
};
std::string* BadInputs::corpus_ = nullptr;
std::string* BadInputs::why_ = nullptr;
bool BadInputs::generated_ = false;

TEST_F(BadInputs, EachGivesItsDocumentedOutcome) {
    if (!generated_) GTEST_SKIP() << "could not generate the corpus (needs the ffmpeg command): " << *why_;
    const std::vector<BadCase> cases = load_cases();
    ASSERT_GE(cases.size(), 19u);
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/clip.mkv";
    clip.frames = 3;
    write_clip(clip);
    for (const BadCase& c : cases) {
        SCOPED_TRACE(c.file);
        const std::string in = *corpus_ + "/" + c.file;
        ASSERT_TRUE(file_exists(in));
        const std::string out = dir + "/" + c.file + ".out.mkv";
        std::string cmd = std::string("exec '") + VFILTER_BIN + "' --device cpu -q --codec ffv1 -o '" + out + "' ";
        cmd += c.use == "kernel" ? "-i '" + clip.path + "' -f 'convolution=file=" + in + "'" : "-i '" + in + "'";
        if (!kSanitizerBuild) cmd = "ulimit -v 4194304; " + cmd;
        const CommandResult r = run_command({"bash", "-c", cmd}, 60);
        EXPECT_EQ(r.exit_code, c.code) << r.output;
        if (c.message != "-") {
            EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
        }
        int error_lines = 0;
        std::istringstream lines(r.output);
        for (std::string l; std::getline(lines, l);) error_lines += l.rfind("vfilter: error:", 0) == 0;
        EXPECT_EQ(error_lines, c.code == 0 ? 0 : 1) << r.output;
        EXPECT_FALSE(file_exists(out + ".partial"));
        if (c.fate == "none") {
            EXPECT_FALSE(file_exists(out)) << "a failed run left an output";
        }
        if (c.fate == "kept" || c.fate == "ok") {
            EXPECT_TRUE(file_exists(out));
            const CommandResult probe = run_vfilter({"-q", "--device", "cpu", "-i", out, "-o", "null"}, 60);
            EXPECT_EQ(probe.exit_code, 0) << "the kept output does not decode cleanly: " << probe.output;
        }
    }
}

}  // namespace
}  // namespace vf
