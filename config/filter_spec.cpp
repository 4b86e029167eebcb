#include "config/filter_spec.hpp"

#include <atomic>
#include <cctype>

#include "common/error.hpp"

namespace vf {
namespace {

std::atomic<uint64_t> parses{0};

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

// Splits on `sep` outside quotes, removing quotes and escapes.
std::vector<std::string> split_unquoted(const std::string& text, char sep, bool keep_quotes) {
    std::vector<std::string> parts(1);
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size()) {
            if (keep_quotes) parts.back() += c;
            parts.back() += text[++i];
        } else if (c == '\'') {
            quoted = !quoted;
            if (keep_quotes) parts.back() += c;
        } else if (c == sep && !quoted) {
            parts.emplace_back();
        } else {
            parts.back() += c;
        }
    }
    if (quoted) fail(ErrorCategory::Usage, "filter spec '" + text + "': unterminated quote");
    return parts;
}

// The first '=' outside quotes (and not escaped), or npos.
size_t unquoted_equals(const std::string& text) {
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\') ++i;
        else if (text[i] == '\'') quoted = !quoted;
        else if (text[i] == '=' && !quoted) return i;
    }
    return std::string::npos;
}

// What vfilter runs instead of a graph it cannot: one input through one linear chain to one output.
const char* const kOneChain =
    "vfilter filters one input through one linear chain to one output, e.g. [in]gblur=sigma=2,sobel[out]";

// The labels [a][b]... at the start of `text` (from `*pos`, spaces skipped), `*pos` moved past them.
std::vector<std::string> leading_labels(const std::string& text, size_t* pos) {
    std::vector<std::string> labels;
    for (;;) {
        while (*pos < text.size() && std::isspace(static_cast<unsigned char>(text[*pos]))) ++*pos;
        if (*pos >= text.size() || text[*pos] != '[') return labels;
        const size_t close = text.find(']', *pos);
        if (close == std::string::npos) fail(ErrorCategory::Usage, "filter graph '" + text + "': '[' without its ']'");
        labels.push_back(text.substr(*pos + 1, close - *pos - 1));
        *pos = close + 1;
    }
}

// FFmpeg's labels as `[label]` words, for messages.
std::string bracketed(const std::vector<std::string>& labels) {
    std::string s;
    for (const std::string& l : labels) s += "[" + l + "]";
    return s;
}

// The chain of `text` without the labels around it, which go to `in` and `out`. A graph vfilter
// cannot run (several inputs or outputs, several chains, labels between filters) is refused.
std::string without_labels(const std::string& text, std::string* in, std::string* out) {
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\') ++i;
        else if (text[i] == '\'') quoted = !quoted;
        else if (text[i] == ';' && !quoted)
            fail(ErrorCategory::Usage, std::string("filter graph '") + text + "': ';' joins several chains; " + kOneChain);
    }
    size_t start = 0;
    const std::vector<std::string> inputs = leading_labels(text, &start);
    if (inputs.size() > 1)
        fail(ErrorCategory::Usage, "filter graph '" + text + "': " + std::to_string(inputs.size()) + " inputs (" + bracketed(inputs) +
                                       "); " + kOneChain);
    // The labels at the end, read backwards from the last ']' outside quotes.
    std::vector<std::string> outputs;
    size_t end = text.size();
    for (;;) {
        while (end > start && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
        if (end <= start || text[end - 1] != ']') break;
        const size_t open = text.rfind('[', end - 1);
        if (open == std::string::npos || open < start) fail(ErrorCategory::Usage, "filter graph '" + text + "': ']' without its '['");
        outputs.insert(outputs.begin(), text.substr(open + 1, end - open - 2));
        end = open;
    }
    if (outputs.size() > 1)
        fail(ErrorCategory::Usage, "filter graph '" + text + "': " + std::to_string(outputs.size()) + " outputs (" +
                                       bracketed(outputs) + "); " + kOneChain);
    const std::string body = text.substr(start, end - start);
    quoted = false;
    for (size_t i = 0; i < body.size(); ++i) {
        if (body[i] == '\\') ++i;
        else if (body[i] == '\'') quoted = !quoted;
        else if ((body[i] == '[' || body[i] == ']') && !quoted)
            fail(ErrorCategory::Usage, "filter graph '" + text + "': a label inside the chain; " + kOneChain);
    }
    if (!inputs.empty()) *in = inputs.front();
    if (!outputs.empty()) *out = outputs.front();
    return body;
}

}  // namespace

uint64_t filter_parse_count() { return parses.load(std::memory_order_relaxed); }

std::vector<FilterSpec> parse_filter_specs(const std::string& text) { return parse_filter_chain(text).filters; }

FilterChainText parse_filter_chain(const std::string& text) {
    parses.fetch_add(1, std::memory_order_relaxed);
    if (trim(text).empty()) fail(ErrorCategory::Usage, "empty filter spec: give a filter name, e.g. --filter sobel");
    FilterChainText chain;
    const std::string body = without_labels(text, &chain.input_label, &chain.output_label);
    if (trim(body).empty()) fail(ErrorCategory::Usage, "filter graph '" + text + "': no filter between its labels");
    std::vector<FilterSpec>& specs = chain.filters;
    for (const std::string& raw : split_unquoted(body, ',', true)) {
        const std::string item = trim(raw);
        if (item.empty()) fail(ErrorCategory::Usage, "filter spec '" + text + "': empty filter between commas");
        FilterSpec spec;
        const size_t eq = item.find('=');
        spec.name = trim(item.substr(0, eq));
        if (spec.name.empty()) fail(ErrorCategory::Usage, "filter spec '" + item + "': missing filter name");
        for (char c : spec.name)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
                fail(ErrorCategory::Usage, "filter spec '" + item + "': bad filter name '" + spec.name + "'");
        if (eq != std::string::npos) {
            bool named = false;
            for (const std::string& opt_raw : split_unquoted(item.substr(eq + 1), ':', true)) {
                const std::string opt = trim(opt_raw);
                const size_t oeq = unquoted_equals(opt);
                if (opt.empty()) fail(ErrorCategory::Usage, "filter '" + spec.name + "': empty option between ':'");
                if (oeq == 0) fail(ErrorCategory::Usage, "filter '" + spec.name + "': option '" + opt + "' has no name before '='");
                // Quotes were kept to protect separators; drop them now.
                std::string value;
                const std::string raw_value = oeq == std::string::npos ? opt : opt.substr(oeq + 1);
                for (const std::string& part : split_unquoted(raw_value, '\0', false)) value += part;
                if (oeq == std::string::npos) {
                    // FFmpeg's shorthand: values by position, in the filter's option order, until the
                    // first key=value.
                    if (named)
                        fail(ErrorCategory::Usage, "filter '" + spec.name + "': value '" + trim(value) +
                                                       "' has no name; values by position must come before key=value options");
                    spec.options.emplace_back("", trim(value));
                    continue;
                }
                named = true;
                const std::string key = trim(opt.substr(0, oeq));
                for (const auto& kv : spec.options)
                    if (kv.first == key)
                        fail(ErrorCategory::Usage, "filter '" + spec.name + "': option '" + key + "' given twice");
                spec.options.emplace_back(key, trim(value));
            }
        }
        specs.push_back(std::move(spec));
    }
    return chain;
}

}  // namespace vf
