// Parses a filter chain written the way FFmpeg writes one:
//   name[=value[:value...]][:key=value[:key=value...]][,name...]
// Values before the first key=value are given by position (FFmpeg's shorthand: the filter's
// options in its order). Values may be quoted with '...' to hold ',', ':' or '='; a backslash
// escapes one character.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vf {

struct FilterSpec {
    std::string name;
    std::vector<std::pair<std::string, std::string>> options;  // in the order written; key "" = by position
};

// A chain as written: its filters and the labels around it ("" where none was given).
struct FilterChainText {
    std::string input_label, output_label;
    std::vector<FilterSpec> filters;
};

// Throws Error(Usage) with the offending position on malformed input; a graph of several inputs,
// outputs or chains (';', labels inside the chain) is refused naming what vfilter runs instead.
FilterChainText parse_filter_chain(const std::string& text);
// The filters of parse_filter_chain(text).
std::vector<FilterSpec> parse_filter_specs(const std::string& text);

// How many times a filter string has been parsed (parse_filter_chain) in this process: a filter
// string is parsed once per change at every door (the command line, serve's entries and API,
// GStreamer, Python), and the tests count it.
uint64_t filter_parse_count();

}  // namespace vf
