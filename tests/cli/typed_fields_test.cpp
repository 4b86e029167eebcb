// Stream fields typed at the edge (app/run/stream_options.hpp): a YAML scalar is read as the type
// its field declares, a JSON value and a Python argument must be it; a value of the wrong type is
// refused naming the field and the type wanted, and no number goes through text on the way.
#include <gtest/gtest.h>

#include <string>

#include "app/serve/serve_config.hpp"
#include "common/error.hpp"

namespace vf {
namespace {

std::string refusal_of_json(const std::string& fields) {
    try {
        stream_from_json(R"({"name": "cam", "input": "pattern://?size=32x24", "output": "null", )" + fields + "}", {});
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage) << fields;
        return e.what();
    }
    return "";
}

std::string refusal_of_yaml(const std::string& fields) {
    try {
        parse_serve_config("streams:\n  - name: cam\n    input: pattern://?size=32x24\n    output: 'null'\n" + fields, "s.yaml");
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage) << fields;
        return e.what();
    }
    return "";
}

}  // namespace

TEST(TypedFields, JsonValuesKeepTheirTypes) {
    const StreamConfig s = stream_from_json(R"({"name": "cam", "input": "pattern://?size=32x24", "output": "null",
                                               "crf": 23.5, "frames": 4, "realtime": true, "timeout": 0.25})",
                                            {});
    EXPECT_EQ(s.fields.at("crf").kind, FieldValue::Kind::Number);
    EXPECT_EQ(s.fields.at("crf").number, 23.5);
    EXPECT_EQ(s.fields.at("realtime").kind, FieldValue::Kind::Boolean);
    EXPECT_EQ(*s.options.output.crf, 23.5);
    EXPECT_EQ(s.options.pipeline.max_frames, 4);
    EXPECT_TRUE(s.options.input.realtime);
    EXPECT_EQ(*s.options.input.timeout_s, 0.25);
}

TEST(TypedFields, JsonValuesOfTheWrongTypeAreRefusedNamingFieldAndType) {
    const std::string text = refusal_of_json(R"("crf": "abc")");
    EXPECT_NE(text.find("field 'crf'"), std::string::npos) << text;
    EXPECT_NE(text.find("expected a number in 0..63"), std::string::npos) << text;
    const std::string boolean = refusal_of_json(R"("crf": true)");
    EXPECT_NE(boolean.find("field 'crf'"), std::string::npos) << boolean;
    EXPECT_NE(boolean.find("expected a number in 0..63, not true/false"), std::string::npos) << boolean;
    const std::string fraction = refusal_of_json(R"("frames": 2.5)");
    EXPECT_NE(fraction.find("field 'frames'"), std::string::npos) << fraction;
    EXPECT_NE(fraction.find("expected a whole number"), std::string::npos) << fraction;
    const std::string number_for_switch = refusal_of_json(R"("realtime": 1)");
    EXPECT_NE(number_for_switch.find("field 'realtime'"), std::string::npos) << number_for_switch;
    EXPECT_NE(number_for_switch.find("expected true or false"), std::string::npos) << number_for_switch;
    const std::string number_for_text = refusal_of_json(R"("codec": 5)");
    EXPECT_NE(number_for_text.find("field 'codec'"), std::string::npos) << number_for_text;
    EXPECT_NE(number_for_text.find("expected text, not a number"), std::string::npos) << number_for_text;
    for (const std::string& t : {text, boolean, fraction, number_for_switch, number_for_text})
        EXPECT_EQ(t.find('\n'), std::string::npos) << t;
}

TEST(TypedFields, YamlScalarsAreReadAsTheirFieldsType) {
    const ServeConfig c = parse_serve_config("streams:\n  - name: cam\n    input: pattern://?size=32x24\n    output: 'null'\n"
                                             "    crf: 21\n    realtime: yes\n    frames: 7\n    preset: '5'\n",
                                             "s.yaml");
    const StreamConfig& s = c.streams.at(0);
    EXPECT_EQ(s.fields.at("crf").kind, FieldValue::Kind::Number);
    EXPECT_EQ(s.fields.at("crf").text, "21") << "as written: what entries are compared by";
    EXPECT_EQ(s.fields.at("realtime").kind, FieldValue::Kind::Boolean);
    EXPECT_EQ(s.fields.at("preset").kind, FieldValue::Kind::Text);
    EXPECT_EQ(*s.options.output.crf, 21);
    EXPECT_TRUE(s.options.input.realtime);
    EXPECT_EQ(s.options.pipeline.max_frames, 7);
    EXPECT_EQ(*s.options.output.preset, "5");
    // A quoted number is text, read as the command line reads it.
    EXPECT_EQ(*parse_serve_config("streams:\n  - name: cam\n    input: pattern://?size=32x24\n    output: 'null'\n    crf: '19'\n",
                                  "s.yaml")
                   .streams.at(0)
                   .options.output.crf,
              19);
    const std::string bad = refusal_of_yaml("    crf: abc\n");
    EXPECT_NE(bad.find("s.yaml:"), std::string::npos) << bad;
    EXPECT_NE(bad.find("field 'crf'"), std::string::npos) << bad;
    EXPECT_NE(bad.find("expected a number in 0..63"), std::string::npos) << bad;
    const std::string fraction = refusal_of_yaml("    queue: 2.5\n");
    EXPECT_NE(fraction.find("field 'queue'"), std::string::npos) << fraction;
    EXPECT_NE(fraction.find("expected a whole number"), std::string::npos) << fraction;
}

}  // namespace vf
