// The compiled chain (config/chain_spec.hpp): parsed once, every option held as its own type,
// planned for any number of frame geometries without reading the text again.
#include <gtest/gtest.h>

#include <variant>

#include "common/error.hpp"
#include "config/chain_spec.hpp"
#include "config/filter_registry.hpp"

namespace vf {
namespace {

const CompiledOption& option(const ChainSpec& spec, size_t filter, const std::string& name) {
    for (const CompiledOption& o : spec.filters().at(filter).options)
        if (o.name == name) return o;
    throw std::runtime_error("no option " + name);
}

}  // namespace

TEST(ChainSpec, HoldsEachOptionAsItsOwnType) {
    const auto spec = compile_chain("sobel=planes=all:scale=0.1,gaussian=sigma=2*0.75:size=7,boxblur=lr=w/9,"
                                    "convolution=0m=1|2|1:0rdiv=1/4,avgblur=sizeX=2:round=down");
    ASSERT_EQ(spec->filters().size(), 5u);
    EXPECT_EQ(spec->text().substr(0, 5), "sobel");
    // Numbers as the numbers they were written as (an expression evaluated once), no text between.
    EXPECT_EQ(std::get<double>(option(*spec, 0, "scale").value), 0.1);
    EXPECT_EQ(std::get<double>(option(*spec, 0, "planes").value), 7.0);
    EXPECT_EQ(std::get<double>(option(*spec, 1, "sigma").value), 1.5);
    EXPECT_EQ(std::get<double>(option(*spec, 1, "size").value), 7.0);
    // An alias under the table's name; a radius of the frame's size kept as an expression.
    EXPECT_EQ(std::get<NumberExpr>(option(*spec, 2, "luma_radius").value).text(), "w/9");
    const KernelMatrix& m = std::get<KernelMatrix>(option(*spec, 3, "0m").value);
    EXPECT_EQ(m.values, (std::vector<double>{1, 2, 1}));
    EXPECT_EQ(std::get<double>(option(*spec, 3, "0rdiv").value), 0.25);
    EXPECT_EQ(std::get<std::string>(option(*spec, 4, "round").value), "down");
    // A number whose shortest text is long reaches the plan as it was read.
    EXPECT_EQ(plan_chain(*compile_chain("sobel=scale=0.1"))[0].ops[0].grad.scale, static_cast<float>(0.1));
}

TEST(ChainSpec, PlansForEveryGeometryWithoutParsingAgain) {
    const auto spec = compile_chain("boxblur=luma_radius=min(w\\,h)/10:luma_power=1,sobel");
    const uint64_t parsed = filter_parse_count();
    const FilterPlan small = plan_chain(*spec, FilterDefaults::Vfilter, FrameGeometry{64, 48, 1, 1})[0];
    const FilterPlan large = plan_chain(*spec, FilterDefaults::Vfilter, FrameGeometry{640, 480, 1, 1})[0];
    const std::vector<FilterPlan> unknown = plan_chain(*spec);  // before the input is open: checked only
    EXPECT_EQ(filter_parse_count(), parsed) << "planning read the text again";
    EXPECT_EQ(small.ops[0].conv.kw, 2 * 4 + 1);
    EXPECT_EQ(large.ops[0].conv.kw, 2 * 48 + 1);
    EXPECT_EQ(unknown.size(), 2u);
    // The same compiled chain under FFmpeg's defaults: sobel then filters every plane.
    EXPECT_EQ(plan_chain(*spec, FilterDefaults::Ffmpeg)[1].ops[2].kind, OpKind::Gradient);
    EXPECT_EQ(plan_chain(*spec, FilterDefaults::Vfilter)[1].ops[2].kind, OpKind::Fill);
    EXPECT_EQ(filter_parse_count(), parsed);
}

TEST(ChainSpec, ParsesOnceACompileAndNeverForTheDefault) {
    const uint64_t before = filter_parse_count();
    const FilterChain identity;  // what options hold when no filter is given
    EXPECT_EQ(identity.text(), "identity");
    EXPECT_TRUE(plan_chain(identity.spec())[0].is_identity());
    EXPECT_EQ(filter_parse_count(), before);
    const FilterChain chain = compile_chain("gaussian=sigma=2,sobel");
    EXPECT_EQ(filter_parse_count(), before + 1);
    const FilterChain copy = chain;  // carried, not compiled again
    EXPECT_EQ(copy.shared(), chain.shared());
    EXPECT_EQ(filter_parse_count(), before + 1);
}

// Refusals come from the compile, in one line naming the filter and the option, as before.
TEST(ChainSpec, RefusesAtCompileNamingFilterAndOption) {
    const auto refusal = [](const std::string& text) -> std::string {
        try {
            compile_chain(text);
        } catch (const Error& e) {
            EXPECT_EQ(e.category(), ErrorCategory::Usage) << text;
            return e.what();
        }
        return "";
    };
    EXPECT_NE(refusal("blur").find("unknown filter 'blur'"), std::string::npos);
    EXPECT_NE(refusal("sobel=scale=abc").find("filter 'sobel': option scale='abc'"), std::string::npos);
    EXPECT_NE(refusal("sobel=scale=70000").find("scale=70000 is out of range [0, 65535]"), std::string::npos);
    EXPECT_NE(refusal("gaussian=size=2.5").find("size=2.5 must be a whole number"), std::string::npos);
    EXPECT_NE(refusal("sobel=border=wrap").find("border='wrap' is not one of mirror|replicate|zero"), std::string::npos);
    EXPECT_NE(refusal("sobel=planes=nine").find("option planes='nine'"), std::string::npos);
    EXPECT_NE(refusal("boxblur=luma_radius=wide").find("filter 'boxblur': luma_radius='wide'"), std::string::npos);
    EXPECT_NE(refusal("convolution=m=1 x 1").find("convolution m"), std::string::npos);
    EXPECT_NE(refusal("sobel=colour=1").find("unknown option 'colour'"), std::string::npos);
    for (const std::string bad : {"blur", "sobel=scale=abc", "boxblur=luma_radius=wide"})
        EXPECT_EQ(refusal(bad).find('\n'), std::string::npos) << bad;
}

// FFmpeg's labels around one chain are kept apart from it; a graph of several inputs, outputs or
// chains is refused saying what vfilter runs.
TEST(ChainSpec, LabelsAroundOneChain) {
    const auto spec = compile_chain("[0:v] gblur=sigma=2 , sobel [v]");
    EXPECT_EQ(spec->input_label(), "0:v");
    EXPECT_EQ(spec->output_label(), "v");
    ASSERT_EQ(spec->filters().size(), 2u);
    EXPECT_EQ(spec->filters()[1].def->name, "sobel");
    EXPECT_EQ(compile_chain("sobel")->output_label(), "");
    EXPECT_EQ(compile_chain("null")->filters().at(0).def->name, "identity");  // FFmpeg's pass-through
    for (const auto& [graph, named] : std::vector<std::pair<std::string, std::string>>{
             {"[a][b]overlay", "2 inputs ([a][b])"},
             {"split[a][b]", "2 outputs ([a][b])"},
             {"sobel[x];[x]gblur", "';' joins several chains"},
             {"sobel[x],gblur", "a label inside the chain"},
             {"[in]", "no filter between its labels"},
             {"overlay", "filter 'overlay' is not one of vfilter's; vfilter filters one input"},
             {"fps=10", "-r"}}) {
        try {
            compile_chain(graph);
            ADD_FAILURE() << "accepted: " << graph;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << graph << ": " << e.what();
        }
    }
}

// enable= is compiled once into the plan's condition, FFmpeg's |value| >= 0.5 over t, n, pos, w, h.
TEST(ChainSpec, EnableBecomesThePlansCondition) {
    const std::vector<FilterPlan> plans = build_chain("sobel=enable='between(t,1,2)*lt(n,40)',gblur");
    ASSERT_EQ(plans.size(), 2u);
    ASSERT_TRUE(plans[0].enable);
    EXPECT_FALSE(plans[1].enable);
    FrameMoment m;
    m.t = 1.5, m.n = 39;
    EXPECT_TRUE(plans[0].applies_to(m));
    m.n = 40;
    EXPECT_FALSE(plans[0].applies_to(m));
    m.n = 0, m.t = NAN;  // a frame without a time: FFmpeg's NAN disables
    EXPECT_FALSE(plans[0].applies_to(m));
    EXPECT_TRUE(plans[1].applies_to(m));
    m.pos = 4000, m.w = 640;
    EXPECT_TRUE(build_chain("sobel=enable='gte(pos,4000)*eq(w,640)'")[0].applies_to(m));
    for (const std::string& bad : std::vector<std::string>{"sobel=enable=", "sobel=enable='st(0,1)'", "sobel=enable='x+1'",
                                                           "sobel=enable='" + std::string(300, '1') + "'"}) {
        try {
            compile_chain(bad);
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("enable="), std::string::npos) << e.what();
        }
    }
}

}  // namespace vf
