#include <gtest/gtest.h>

#include <chrono>

#include "common/error.hpp"
#include "config/filter_registry.hpp"

namespace vf {

static std::string usage_error(const std::string& spec, const FrameGeometry& geometry = {}) {
    try {
        build_chain(spec, FilterDefaults::Vfilter, geometry);
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage) << spec;
        return e.what();
    }
    return "";
}

TEST(FilterRegistry, EveryBuiltInBuildsWithDefaults) {
    for (const auto& f : filter_table()) {
        if (f.name == "convolution") continue;  // needs a matrix
        EXPECT_NO_THROW(build_chain(f.name)) << f.name;
    }
}

TEST(FilterRegistry, SobelFiltersLumaAndNeutralisesChromaByDefault) {
    auto p = build_chain("sobel")[0];
    EXPECT_EQ(p.ops[0].kind, OpKind::Gradient);
    EXPECT_EQ(p.ops[1].kind, OpKind::Fill);
    EXPECT_EQ(p.ops[2].kind, OpKind::Fill);
    p = build_chain("sobel=planes=all")[0];
    EXPECT_EQ(p.ops[2].kind, OpKind::Gradient);
    p = build_chain("sobel=planes=1:rest=copy")[0];
    EXPECT_EQ(p.ops[1].kind, OpKind::Copy);
}

TEST(FilterRegistry, GaussianSizeFollowsSigma) {
    EXPECT_EQ(build_chain("gaussian=sigma=3.2")[0].ops[0].conv.kw, 27);
    EXPECT_EQ(build_chain("gaussian=sigma=1")[0].ops[0].conv.kw, 9);
    EXPECT_EQ(build_chain("gaussian=sigma=1:size=5")[0].ops[0].conv.kw, 5);
}

TEST(FilterRegistry, ConvolutionFollowsFFmpegDefaults) {
    auto p = build_chain("convolution=m=1 2 1 2 4 2 1 2 1")[0];
    EXPECT_FLOAT_EQ(p.ops[0].conv.rdiv, 1.0f / 16);  // 1 / sum
    p = build_chain("convolution=m=0 1 0 1 -4 1 0 1 0")[0];
    EXPECT_FLOAT_EQ(p.ops[0].conv.rdiv, 1.0f);       // sum 0 -> 1
    p = build_chain("convolution=0m=0 -1 0 -1 5 -1 0 -1 0")[0];
    EXPECT_EQ(p.ops[0].kind, OpKind::Convolve);
    EXPECT_EQ(p.ops[1].kind, OpKind::Copy);          // unspecified planes pass through
    p = build_chain("convolution=m=1 2 3 2 1:mode=column")[0];
    EXPECT_EQ(p.ops[2].conv.kw, 1);
    EXPECT_EQ(p.ops[2].conv.kh, 5);
}

TEST(FilterRegistry, BadArgumentsSayWhatIsWrongAndWhatIsAllowed) {
    EXPECT_NE(usage_error("blur").find("unknown filter 'blur'"), std::string::npos);
    EXPECT_NE(usage_error("blur").find("sobel"), std::string::npos);
    EXPECT_NE(usage_error("gaussian=sigmaa=2").find("unknown option 'sigmaa'"), std::string::npos);
    EXPECT_NE(usage_error("gaussian=sigma=0").find("out of range"), std::string::npos);
    EXPECT_NE(usage_error("gaussian=sigma=-1").find("out of range"), std::string::npos);
    EXPECT_NE(usage_error("gaussian=sigma=nan").find("not a number"), std::string::npos);  // FFmpeg reads no nan
    EXPECT_NE(usage_error("gaussian=sigma=inf").find("finite"), std::string::npos);
    EXPECT_NE(usage_error("gaussian=sigma=abc").find("not a number"), std::string::npos);
    EXPECT_NE(usage_error("gaussian=sigma=2:size=6").find("odd"), std::string::npos);
    EXPECT_NE(usage_error("gaussian=sigma=40").find("largest"), std::string::npos);
    EXPECT_NE(usage_error("box=radius=2.5").find("whole number"), std::string::npos);
    EXPECT_NE(usage_error("box=radius=64").find("out of range"), std::string::npos);
    EXPECT_NE(usage_error("sobel=border=wrap").find("mirror|replicate|zero"), std::string::npos);
    EXPECT_NE(usage_error("sobel=planes=banana").find("planes"), std::string::npos);
    EXPECT_NE(usage_error("convolution").find("no matrix"), std::string::npos);
    EXPECT_NE(usage_error("convolution=m=1 2 3 4").find("odd square"), std::string::npos);
    EXPECT_NE(usage_error("convolution=m=1 2 nan 4 5 6 7 8 9").find("not a finite"), std::string::npos);
    EXPECT_NE(usage_error("convolution=m=1 2 x 4 5 6 7 8 9").find("not a number"), std::string::npos);
    EXPECT_NE(usage_error("convolution=m=1 2 1 2:mode=row").find("odd"), std::string::npos);
    EXPECT_NE(usage_error("convolution=file=/nonexistent/k.txt").find("/nonexistent/k.txt"), std::string::npos);
    EXPECT_NE(usage_error("identity=x=1").find("takes no options"), std::string::npos);
}

TEST(FilterRegistry, ListNamesEveryFilterAndOption) {
    const std::string list = describe_filters();
    for (const auto& f : filter_table()) {
        EXPECT_NE(list.find("  " + f.name + "  "), std::string::npos) << f.name;
        for (const auto& o : f.options) EXPECT_NE(list.find(o.name), std::string::npos) << o.name;
    }
    EXPECT_NE(list.find("(default 1)"), std::string::npos);
}

}  // namespace vf

namespace vf {
TEST(FilterRegistry, InlineMatricesUpTo127x127) {
    std::string m;
    for (int i = 0; i < 65 * 65; ++i) m += (i ? " " : "") + std::to_string(i % 7 - 3);
    EXPECT_EQ(build_chain("convolution=m=" + m)[0].ops[0].conv.kw, 65);
    std::string big;
    for (int i = 0; i < 129 * 129; ++i) big += (i ? " " : "") + std::string("1");
    EXPECT_NE(usage_error("convolution=m=" + big).find("largest kernel"), std::string::npos);
    std::string row;
    for (int i = 0; i < 129; ++i) row += (i ? " " : "") + std::string("1");
    EXPECT_NE(usage_error("convolution=m=" + row + ":mode=row").find("at most 127"), std::string::npos);
}
// FFmpeg's filter strings: values by position in FFmpeg's order, numbers as FFmpeg's expressions.
TEST(FilterRegistry, ValuesByPositionFollowFFmpegsOrder) {
    // FFmpeg's blur example: four matrices (the fourth, alpha, has no plane here), then four rdiv.
    const FilterPlan blur = build_chain("convolution=1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:1 1 1 1 1 1 1 1 1:"
                                        "1 1 1 1 1 1 1 1 1:1/9:1/9:1/9:1/9")[0];
    for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(blur.ops[c].kind, OpKind::Convolve) << c;
        EXPECT_FLOAT_EQ(blur.ops[c].conv.rdiv, 1.0f / 9) << c;
    }
    // ...then the bias values: 0bias..3bias come after 0rdiv..3rdiv.
    const FilterPlan edge = build_chain("convolution=0 0 0 -1 1 0 0 0 0:0 0 0 -1 1 0 0 0 0:0 0 0 -1 1 0 0 0 0:"
                                        "0 0 0 -1 1 0 0 0 0:5:1:1:1:0:128:128:128")[0];
    EXPECT_FLOAT_EQ(edge.ops[0].conv.rdiv, 5);
    EXPECT_FLOAT_EQ(edge.ops[0].conv.bias, 0);
    EXPECT_FLOAT_EQ(edge.ops[1].conv.bias, 128);
    const FilterPlan sobel = build_chain("sobel=1:0.5:3")[0];  // planes, scale, delta
    EXPECT_EQ(sobel.ops[0].kind, OpKind::Gradient);
    EXPECT_EQ(sobel.ops[1].kind, OpKind::Copy);  // FFmpeg's meaning of planes: the rest is copied
    EXPECT_FLOAT_EQ(sobel.ops[0].grad.scale, 0.5f);
    EXPECT_FLOAT_EQ(sobel.ops[0].grad.delta, 3);
    EXPECT_NE(usage_error("sobel=1:2:3:4").find("sobel takes 3 (planes, scale, delta)"), std::string::npos);
    EXPECT_NE(usage_error("identity=1").find("takes none by position"), std::string::npos);
}

TEST(FilterRegistry, NumbersAreFFmpegExpressions) {
    EXPECT_FLOAT_EQ(build_chain("convolution=0m=1 2 1 2 4 2 1 2 1:0rdiv=1/16")[0].ops[0].conv.rdiv, 1.0f / 16);
    EXPECT_FLOAT_EQ(build_chain("sobel=scale=2*0.25+1")[0].ops[0].grad.scale, 1.5f);
    EXPECT_FLOAT_EQ(build_chain("sobel=delta=PI")[0].ops[0].grad.delta, 3.14159265f);
    EXPECT_FLOAT_EQ(build_chain("sobel=delta=1k")[0].ops[0].grad.delta, 1000);  // SI suffix
    EXPECT_EQ(build_chain("gaussian=sigma=1:size=10/2")[0].ops[0].conv.kw, 5);
    EXPECT_NE(usage_error("sobel=scale=1/x").find("not a number"), std::string::npos);
    EXPECT_NE(usage_error("gaussian=size=9/2").find("whole number"), std::string::npos);
    EXPECT_NE(usage_error("sobel=scale=1/0").find("not finite"), std::string::npos);
}

// An expression costs the same every time: loops, stored values, random numbers and printing are
// refused before FFmpeg evaluates anything, and so is a string longer than any option needs.
TEST(FilterRegistry, ExpressionsThatLoopOrKeepStateAreRefusedAtOnce) {
    const auto began = std::chrono::steady_clock::now();
    for (const char* spec : {"gaussian=sigma=while(1\\,1)", "gaussian=sigma=root(sin(ld(0))\\,1e9)", "gaussian=sigma=taylor(1\\,1)",
                             "gaussian=sigma=st(0\\,2)", "gaussian=sigma=1+random(0)", "sobel=scale=print(1)", "sobel=scale=time(0)",
                             "sobel=scale= WHILE(1\\,1)"}) {
        const std::string why = usage_error(spec);
        EXPECT_TRUE(why.find("which vfilter does not evaluate") != std::string::npos ||
                    why.find("not a number or an expression") != std::string::npos)
            << spec << ": " << why;
    }
    EXPECT_NE(usage_error("sobel=scale=" + std::string(300, '1')).find("longer than 256"), std::string::npos);
    EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(2)) << "nothing was evaluated at length";
    EXPECT_FLOAT_EQ(build_chain("sobel=scale=max(1\\,sqrt(4))+if(gt(2\\,1)\\,1\\,0)")[0].ops[0].grad.scale, 3.0f);
    EXPECT_FLOAT_EQ(build_chain("sobel=scale=1e1")[0].ops[0].grad.scale, 10.0f) << "an exponent is no name";
}

TEST(FilterRegistry, FFmpegsDefaultsUnderCompat) {
    const FilterPlan ours = build_chain("sobel")[0], theirs = build_chain("sobel", FilterDefaults::Ffmpeg)[0];
    EXPECT_EQ(ours.ops[1].kind, OpKind::Fill);
    EXPECT_EQ(theirs.ops[1].kind, OpKind::Gradient);  // FFmpeg filters every plane
    EXPECT_EQ(theirs.ops[2].kind, OpKind::Gradient);
    // A string that names planes means FFmpeg's planes either way: the others are copied.
    EXPECT_EQ(build_chain("sobel=planes=1", FilterDefaults::Ffmpeg)[0].ops[1].kind, OpKind::Copy);
    EXPECT_EQ(build_chain("sobel=planes=1")[0].ops[1].kind, OpKind::Copy);
    EXPECT_EQ(build_chain("sobel=planes=1:rest=neutral")[0].ops[1].kind, OpKind::Fill);
}

TEST(FilterRegistry, FFmpegsOtherConvolutionFilters) {
    const PlaneOp roberts = build_chain("roberts")[0].ops[0];
    EXPECT_EQ(roberts.kind, OpKind::Gradient);
    EXPECT_EQ(roberts.grad.gx, (std::array<int, 9>{1, -1, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(roberts.grad.gy, (std::array<int, 9>{0, 0, 0, -1, 1, 0, 0, 0, 0}));
    const FilterPlan avg = build_chain("avgblur=2:1:3")[0];  // sizeX, planes, sizeY
    EXPECT_EQ(avg.ops[0].conv.kw, 5);
    EXPECT_EQ(avg.ops[0].conv.kh, 7);
    EXPECT_EQ(avg.ops[1].kind, OpKind::Copy);
    EXPECT_EQ(build_chain("avgblur=sizeX=3")[0].ops[2].conv.kh, 7);  // sizeY 0: sizeX; every plane
    // vfilter's avgblur rounds its means and mirrors at the edges; FFmpeg's (--compat ffmpeg)
    // truncates them and repeats the edge sample.
    const PlaneOp ours = build_chain("avgblur=sizeX=3")[0].ops[0];
    EXPECT_EQ(ours.conv.divisor, 0);
    EXPECT_EQ(ours.border, Border::Mirror);
    const PlaneOp ffmpegs = build_chain("avgblur=sizeX=3", FilterDefaults::Ffmpeg)[0].ops[0];
    EXPECT_EQ(ffmpegs.conv.divisor, 49);
    EXPECT_EQ(ffmpegs.border, Border::Replicate);
    EXPECT_FALSE(same_chain(build_chain("avgblur=sizeX=3"), build_chain("avgblur=sizeX=3:round=down")));
    EXPECT_NE(chain_fingerprint(build_chain("avgblur=sizeX=3")), chain_fingerprint(build_chain("avgblur=sizeX=3:round=down")));
    // FFmpeg cuts the radii to half the chroma plane (rounded up) once the frames are known:
    // 75x41 4:2:0 has 38x21 chroma, so at most 19 across and 10 down.
    const FrameGeometry small{75, 41, 1, 1};
    const PlaneOp cut = build_chain("avgblur=sizeX=30", FilterDefaults::Ffmpeg, small)[0].ops[0];
    EXPECT_EQ(cut.conv.kw, 2 * 19 + 1);
    EXPECT_EQ(cut.conv.kh, 2 * 10 + 1);
    EXPECT_EQ(cut.conv.divisor, 39 * 21);
    EXPECT_EQ(build_chain("avgblur=sizeX=500:sizeY=1", FilterDefaults::Ffmpeg, FrameGeometry{101, 9, 0, 0})[0].ops[0].conv.kw, 101);
    EXPECT_NE(usage_error("avgblur=sizeX=100", FrameGeometry{1920, 1080, 1, 1}).find("radii up to 63"), std::string::npos);
    EXPECT_NE(usage_error("avgblur=sizeX=2", FrameGeometry{2, 2, 1, 1}).find("too small"), std::string::npos);
    EXPECT_NE(usage_error("avgblur=sizeX=1025").find("1024"), std::string::npos);
    const PlaneOp g = build_chain("gblur=sigma=1:sigmaV=2")[0].ops[0];
    EXPECT_EQ(g.conv.kw, 9);
    EXPECT_EQ(g.conv.kh, 17);
    EXPECT_TRUE(g.conv.separable());
    EXPECT_EQ(build_chain("gblur=0:1:1")[0].ops[0].conv.kw, 1);  // sigma 0 across: no blur across
    EXPECT_NE(usage_error("gblur=sigma=40").find("the largest is 127"), std::string::npos);
    // unsharp: in + amount (in - binomial blur); the taps sum to 1, the centre holds 1 + amount - amount/16/16*36.
    const FilterPlan u = build_chain("unsharp=5:3:1.5")[0];  // luma 5 wide, 3 tall; chroma amount 0: copied
    EXPECT_EQ(u.ops[0].conv.kw, 5);
    EXPECT_EQ(u.ops[0].conv.kh, 3);
    double sum = 0;
    for (double t : u.ops[0].conv.k) sum += t;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_NEAR(u.ops[0].conv.k[1 * 5 + 2], 1 + 1.5 - 1.5 * 6 * 2 / 64.0, 1e-12);
    EXPECT_EQ(u.ops[1].kind, OpKind::Copy);
    EXPECT_EQ(build_chain("unsharp=3:3:1:3:3:0.5")[0].ops[2].kind, OpKind::Convolve);
    EXPECT_NE(usage_error("unsharp=4").find("must be odd"), std::string::npos);
}

// kirsch: FFmpeg's 8 turned kernels (in reading order, as FFmpeg turns them), the largest kept.
TEST(FilterRegistry, KirschIsFFmpegsCompassGradient) {
    const PlaneOp k = build_chain("kirsch=1:0.5:3")[0].ops[0];  // planes, scale, delta
    EXPECT_EQ(k.kind, OpKind::Gradient);
    EXPECT_TRUE(k.grad.compass);
    EXPECT_EQ(k.grad.scale, 0.5f);
    EXPECT_EQ(k.grad.delta, 3.0f);
    // FFmpeg's sum1 and sum7 (vf_convolution.c): the 5s slide along the neighbours in reading order.
    EXPECT_EQ(compass_turn(k.grad.gx, 1), (std::array<int, 9>{-3, 5, 5, 5, 0, -3, -3, -3, -3}));
    EXPECT_EQ(compass_turn(k.grad.gx, 7), (std::array<int, 9>{5, 5, -3, -3, 0, -3, -3, -3, 5}));
    EXPECT_EQ(build_chain("kirsch", FilterDefaults::Ffmpeg)[0].ops[2].kind, OpKind::Gradient);
    EXPECT_EQ(build_chain("kirsch")[0].ops[2].kind, OpKind::Fill);
}

// boxblur: radii are expressions of the frame's size, read once the input is known; power passes
// of a box are one exact convolution whose taps are the box's powers.
TEST(FilterRegistry, BoxblurRadiiFollowTheFrame) {
    const FrameGeometry frame{333, 197, 1, 1};  // chroma 166 x 98 as FFmpeg counts it
    const FilterPlan doc = build_chain("boxblur=luma_radius=min(h\\,w)/10:luma_power=1:chroma_radius=min(cw\\,ch)/10:chroma_power=1",
                                       FilterDefaults::Ffmpeg, frame)[0];
    EXPECT_EQ(doc.ops[0].box.radius, 19);
    EXPECT_EQ(doc.ops[1].box.radius, 9);
    const FilterPlan def = build_chain("boxblur", FilterDefaults::Vfilter, frame)[0];  // radius 2, power 2
    ASSERT_EQ(def.ops[0].conv.kw, 9);
    const std::vector<double> taps = {1, 2, 3, 4, 5, 4, 3, 2, 1};  // (1 + x + ... + x^4)^2
    for (int i = 0; i < 9; ++i) EXPECT_EQ(def.ops[0].conv.k[4 * 9 + i], 5 * taps[i]) << i;
    EXPECT_FLOAT_EQ(def.ops[0].conv.rdiv, 1.0f / 625);
    EXPECT_TRUE(def.ops[0].conv.separable());
    const FilterPlan aliases = build_chain("boxblur=2:1:cr=0:ar=0", FilterDefaults::Vfilter, frame)[0];  // FFmpeg's short names
    EXPECT_EQ(aliases.ops[0].conv.kw, 5);
    EXPECT_EQ(aliases.ops[1].kind, OpKind::Copy);
    EXPECT_EQ(build_chain("boxblur=3:1:cp=0", FilterDefaults::Vfilter, frame)[0].ops[2].kind, OpKind::Copy);
    // Before the input is known the expressions are checked only.
    EXPECT_NO_THROW(build_chain("boxblur=w/2"));
    EXPECT_NE(usage_error("boxblur=luma_radius=wide").find("luma_radius='wide'"), std::string::npos);
    try {
        build_chain("boxblur=w/2", FilterDefaults::Vfilter, frame);
        ADD_FAILURE() << "a radius beyond the frame was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("must be 0 to 98"), std::string::npos) << e.what();
    }
    try {
        build_chain("boxblur=20:4", FilterDefaults::Vfilter, frame);
        ADD_FAILURE() << "a 161-tap blur was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("161-tap"), std::string::npos) << e.what();
    }
    // Many passes: the taps are divided out in double precision and still sum to 1.
    const ConvolveOp wide = build_chain("boxblur=1:20", FilterDefaults::Vfilter, frame)[0].ops[0].conv;
    EXPECT_FALSE(wide.integer);
    double sum = 0;
    for (double t : wide.k) sum += t;
    EXPECT_NEAR(sum, 1.0, 1e-9);
}

// Under --compat ffmpeg boxblur and unsharp compute FFmpeg 5.1's own arithmetic (its passes rounded
// one by one, its edge; its fixed point); vfilter's default stays the exact blur, and FFmpeg's is
// an option of its own. What FFmpeg refuses, and an edge that only its arithmetic has, are refused.
TEST(FilterRegistry, CompatFfmpegGivesFfmpegsArithmetic) {
    const FrameGeometry frame{97, 61, 1, 1};
    const FilterPlan fate = build_chain("boxblur=2:1", FilterDefaults::Ffmpeg, frame)[0];
    EXPECT_EQ(fate.ops[0].kind, OpKind::BoxPasses);
    EXPECT_EQ(fate.ops[0].border, Border::Reflect);
    EXPECT_EQ(fate.ops[0].box.radius, 2);
    EXPECT_EQ(fate.ops[0].box.power, 1);
    EXPECT_EQ(fate.ops[2].kind, OpKind::BoxPasses);
    EXPECT_EQ(build_chain("boxblur=2:1", FilterDefaults::Vfilter, frame)[0].ops[0].kind, OpKind::Convolve);
    EXPECT_EQ(build_chain("boxblur=2:1:arithmetic=exact:border=mirror", FilterDefaults::Ffmpeg, frame)[0].ops[0].kind, OpKind::Convolve);
    EXPECT_EQ(build_chain("boxblur=2:1:arithmetic=ffmpeg", FilterDefaults::Vfilter, frame)[0].ops[0].border, Border::Mirror);
    EXPECT_EQ(build_chain("boxblur=2:0", FilterDefaults::Ffmpeg, frame)[0].ops[0].kind, OpKind::Copy);
    EXPECT_NE(usage_error("boxblur=2:1:border=reflect", frame).find("border=reflect is FFmpeg's edge and needs arithmetic=ffmpeg"),
              std::string::npos);
    // Many passes and wide boxes, which one convolution could not hold, are FFmpeg's passes.
    EXPECT_EQ(build_chain("boxblur=20:6:cr=2", FilterDefaults::Ffmpeg, frame)[0].ops[0].box.power, 6);

    const FilterPlan unsharp = build_chain("unsharp=11:11:-1.5:11:11:-1.5", FilterDefaults::Ffmpeg)[0];
    EXPECT_EQ(unsharp.ops[0].kind, OpKind::UnsharpFixed);
    EXPECT_EQ(unsharp.ops[0].unsharp.steps_x, 5);
    EXPECT_EQ(unsharp.ops[0].unsharp.amount, -98304);
    EXPECT_EQ(unsharp.ops[0].border, Border::Replicate);
    EXPECT_EQ(unsharp.ops[1].unsharp.amount, -98304);
    // FFmpeg's float amount times 65536, truncated: 0.3f is 19660.8.
    EXPECT_EQ(build_chain("unsharp=3:3:0.3", FilterDefaults::Ffmpeg)[0].ops[0].unsharp.amount, 19660);
    EXPECT_EQ(build_chain("unsharp", FilterDefaults::Ffmpeg)[0].ops[1].kind, OpKind::Copy);  // chroma amount 0
    EXPECT_EQ(build_chain("unsharp=11:11:-1.5")[0].ops[0].kind, OpKind::Convolve);
    EXPECT_EQ(build_chain("unsharp=5:5:1:arithmetic=ffmpeg")[0].ops[0].kind, OpKind::UnsharpFixed);
    EXPECT_NE(usage_error("unsharp=23:5:1:arithmetic=ffmpeg").find("too big for arithmetic=ffmpeg"), std::string::npos);
    EXPECT_NO_THROW(build_chain("unsharp=23:5:1"));
}

}  // namespace vf
