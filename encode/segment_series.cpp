#include "encode/segment_series.hpp"

#include <algorithm>
#include <cctype>

#include "encode/output_target.hpp"

namespace vf {

namespace fs = std::filesystem;

namespace {

// What one strftime field writes, as narrowly as it is written: a stream's retention must never
// take another stream's files, so "cam-%Y..." cannot match "cam-2-2026..." (docs/serve.md).
std::string field_class(char field) {
    switch (field) {
    case 'Y': case 'G': return "[0-9]{4}";
    case 'm': case 'd': case 'H': case 'M': case 'S': case 'y': case 'g': case 'I': case 'U': case 'W': case 'V': case 'C':
        return "[0-9]{2}";
    case 'e': case 'k': case 'l': return "[ 0-9][0-9]";
    case 'j': return "[0-9]{3}";
    case 'u': case 'w': return "[0-9]";
    case 's': return "[0-9]+";
    case 'F': return "[0-9]{4}-[0-9]{2}-[0-9]{2}";
    case 'T': return "[0-9]{2}:[0-9]{2}:[0-9]{2}";
    case 'R': return "[0-9]{2}:[0-9]{2}";
    case 'D': return "[0-9]{2}/[0-9]{2}/[0-9]{2}";
    case 'z': return "[-+][0-9]{4}";
    case 'p': return "(AM|PM|am|pm)";
    default: return "[A-Za-z0-9]+";  // names of days and months, zones: letters and digits only
    }
}

}  // namespace

SegmentSeries::SegmentSeries(const std::string& pattern) : pattern_(pattern) {
    const size_t slash = pattern.find_last_of('/');
    folder_ = slash == std::string::npos ? "." : slash == 0 ? "/" : pattern.substr(0, slash);
    const std::string name = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
    numbered_ = !dated_pattern(pattern);
    // The name as a regular expression: text literal, %d (with a width such as %03d) the number,
    // any other strftime field one or more characters that are not a slash.
    std::string re;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '%' && i + 1 < name.size()) {
            size_t j = i + 1;
            if (name[j] == '%') {
                re += "%";
                i = j;
                continue;
            }
            while (j < name.size() && (std::isdigit(static_cast<unsigned char>(name[j])) || name[j] == 'E' || name[j] == 'O')) ++j;
            if (j < name.size()) {
                re += (numbered_ && name[j] == 'd') ? "([0-9]+)" : field_class(name[j]);
                i = j;
                continue;
            }
        }
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') re += c;
        else re += std::string("\\") + c;
    }
    name_ = std::regex(re);
}

SegmentSeries SegmentSeries::clips(const std::string& folder) {
    SegmentSeries s;
    s.folder_ = folder;
    s.pattern_ = folder + "/*";
    s.name_ = std::regex("[0-9]{8}T[0-9]{6}Z-[a-z]+(-[0-9]+)?\\.(mp4|mov|mkv)");
    return s;
}

bool SegmentSeries::matches(const std::string& file_name) const { return std::regex_match(file_name, name_); }

bool written_before(const SegmentFile& a, const SegmentFile& b) { return a.written != b.written ? a.written < b.written : a.path < b.path; }

void FileSelection::offer(SegmentFile file) {
    if (limit_ == 0) return;
    const auto give_up_first = [this](const SegmentFile& a, const SegmentFile& b) { return first(a, b); };
    if (heap_.size() < limit_) {
        heap_.push_back(std::move(file));
        std::push_heap(heap_.begin(), heap_.end(), give_up_first);
    } else if (first(file, heap_.front())) {
        std::pop_heap(heap_.begin(), heap_.end(), give_up_first);
        heap_.back() = std::move(file);
        std::push_heap(heap_.begin(), heap_.end(), give_up_first);
    }
}

std::vector<SegmentFile> FileSelection::take() {
    std::vector<SegmentFile> out = std::move(heap_);
    heap_.clear();
    std::sort(out.begin(), out.end(), written_before);
    return out;
}

void SegmentSeries::for_each_file(const std::function<void(SegmentFile&&)>& visit) const {
    std::error_code ec;
    for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string file_name = it->path().filename().string();
        if (!matches(file_name)) continue;
        std::error_code e;
        if (!it->is_regular_file(e)) continue;
        SegmentFile f;
        f.path = (folder_ == "." ? file_name : it->path().string());
        f.bytes = static_cast<int64_t>(it->file_size(e));
        f.written = it->last_write_time(e);
        if (!e) visit(std::move(f));
    }
}

std::vector<SegmentFile> SegmentSeries::files() const {
    std::vector<SegmentFile> out;
    for_each_file([&](SegmentFile&& f) { out.push_back(std::move(f)); });
    std::sort(out.begin(), out.end(), written_before);
    return out;
}

int64_t SegmentSeries::next_number() const {
    if (!numbered_) return 0;
    int64_t next = 0;
    std::error_code ec;
    for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
        std::smatch m;
        const std::string file_name = it->path().filename().string();
        if (std::regex_match(file_name, m, name_) && m.size() > 1 && m[1].length() < 18) next = std::max<int64_t>(next, std::stoll(m[1]) + 1);
    }
    return next;
}

}  // namespace vf
