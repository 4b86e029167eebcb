// The process's options (app/run/process_options.hpp) are out of a stream's reach: a serve config
// entry, an API request's JSON and Python's arguments (all read by the stream option table) that
// name one are refused, the refusal naming the field and where it is set, and no stream is made.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/run/process_options.hpp"
#include "app/run/stream_options.hpp"
#include "app/serve/serve_config.hpp"
#include "common/error.hpp"

namespace vf {
namespace {

// Each process option as a stream entry would give it, with a value its command-line option takes,
// and a piece of where the refusal must say it is set.
struct ProcessField {
    std::string name, json_value, where;
};
const std::vector<ProcessField> kProcessFields = {
    {"metrics-port", "9100", "vfilter --metrics-port"},
    {"metrics-bind", R"("0.0.0.0")", "vfilter --metrics-bind"},
    {"stats-json", R"("/tmp/s.json")", "the serve: block's stats-json"},
    {"min-free", R"("5%")", "the serve: block's min-free"},
    {"verbose", "true", "vfilter's command line"},
    {"debug", "true", "vfilter's command line"},
    {"quiet", "true", "vfilter's command line"},
    {"no-progress", "true", "vfilter's command line"},
    {"log-format", R"("json")", "vfilter's command line"},
};

template <typename Read>
std::string usage_refusal(Read read) {
    try {
        read();
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        return e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST(ProcessOptions, AnApiRequestCannotSetOne) {
    for (const ProcessField& f : kProcessFields) {
        const std::string entry =
            R"({"name": "cam", "input": "pattern://?size=32x24", "output": "null", ")" + f.name + R"(": )" + f.json_value + "}";
        const std::string why = usage_refusal([&] { stream_from_json(entry, {}); });
        EXPECT_NE(why.find("field '" + f.name + "' belongs to the process, not to one stream"), std::string::npos) << why;
        EXPECT_NE(why.find(f.where), std::string::npos) << why;
        EXPECT_EQ(why.find('\n'), std::string::npos) << "one line: " << why;
    }
}

TEST(ProcessOptions, AConfigFileStreamEntryOrItsDefaultsCannotSetOne) {
    for (const ProcessField& f : kProcessFields) {
        const std::string entry = "streams:\n  - {name: cam, input: a.mp4, output: b.mp4, " + f.name + ": x}\n";
        const std::string why = usage_refusal([&] { parse_serve_config(entry, "streams.yaml"); });
        EXPECT_NE(why.find("stream 'cam'"), std::string::npos) << why;
        EXPECT_NE(why.find("field '" + f.name + "' belongs to the process"), std::string::npos) << why;
        EXPECT_NE(why.find(f.where), std::string::npos) << why;
    }
    const std::string defaults = usage_refusal(
        [] { parse_serve_config("defaults: {stats-json: s.json}\nstreams:\n  - {name: cam, input: a.mp4, output: b.mp4}\n", "s.yaml"); });
    EXPECT_NE(defaults.find("field 'stats-json' belongs to the process"), std::string::npos) << defaults;
}

TEST(ProcessOptions, PythonArgumentsCannotSetOne) {
    // vfilter.run(stats_json=...) reaches the table as this field: the refusal says run returns the summary.
    StreamFields fields = {{"input", "pattern://?size=32x24"}, {"output", "null"}, {"stats-json", "/tmp/s.json"}};
    const std::string why = usage_refusal([&] { stream_options_from_fields(fields); });
    EXPECT_NE(why.find("field 'stats-json' belongs to the process"), std::string::npos) << why;
    EXPECT_NE(why.find("vfilter.run returns it"), std::string::npos) << why;
}

TEST(ProcessOptions, ASingleRunTakesNoWatchField) {
    // vfilter.run(watch=True) reaches the table as this field: only serve's streams watch themselves.
    const std::string why = usage_refusal([] { stream_options_from_fields({{"watch", FieldValue::of_boolean(true, "true")}}); });
    EXPECT_NE(why.find("field 'watch' belongs to vfilter serve"), std::string::npos) << why;
}

TEST(ProcessOptions, CommandsAreNoFieldsOfAStream) {
    const std::string why = usage_refusal([] { stream_options_from_fields({{"list-filters", FieldValue::of_boolean(true, "true")}}); });
    EXPECT_NE(why.find("field 'list-filters' is a command of vfilter"), std::string::npos) << why;
}

TEST(ProcessOptions, EveryRefusedNameIsAProcessOptionAndNoStreamFieldIsOne) {
    for (const ProcessField& f : kProcessFields) EXPECT_NE(where_process_option_is_set(f.name), nullptr) << f.name;
    for (const auto& [field, setter] : stream_fields()) EXPECT_EQ(where_process_option_is_set(field), nullptr) << field;
}

TEST(ProcessOptions, ASingleRunReportsWhatItsCommandLineAsked) {
    ProcessOptions p;
    p.stats_json = "/tmp/s.json";
    p.metrics.port = 0;
    const JobReports r = single_run_reports(p);
    EXPECT_TRUE(r.progress_line);
    EXPECT_EQ(r.stats_json, "/tmp/s.json");
    EXPECT_EQ(r.metrics.port, 0);
    p.verbosity = -1;  // --quiet: no progress line, whatever else is asked
    EXPECT_FALSE(single_run_reports(p).progress_line);
    const JobReports none;
    EXPECT_FALSE(none.progress_line);
    EXPECT_TRUE(none.stats_json.empty());
    EXPECT_LT(none.metrics.port, 0) << "a job made without reports (serve's, Python's) reports nothing of its own";
}

}  // namespace vf
