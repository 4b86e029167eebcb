#include "app/run/clip_fields.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

#include "common/error.hpp"

namespace vf {
// Named, so that a unity batch with the other field readers sees no two helpers of one name.
namespace clip_field {
namespace {

[[noreturn]] void refuse(const std::string& field, const std::string& wanted) {
    fail(ErrorCategory::Usage, "field '" + field + "': " + wanted);
}

double number_in(const std::string& field, const FieldValue& v, double lo, double hi) {
    std::ostringstream wanted;
    wanted << "expected a number of seconds in " << lo << ".." << hi;
    const std::optional<double> x = field_number(v);
    if (!x || *x < lo || *x > hi) refuse(field, wanted.str());
    return *x;
}

bool boolean_of(const std::string& field, const FieldValue& v) {
    if (const std::optional<bool> b = field_boolean(v, yaml_boolean_words())) return *b;
    refuse(field, "expected true or false");
}

std::string condition_names() {
    std::string all;
    for (const watch::Condition c : watch::kConditions) all += std::string(all.empty() ? "" : ", ") + watch::condition_name(c);
    return all;
}

// "dark, covered" -> {Dark, Covered}; each name once.
std::vector<watch::Condition> conditions_of(const std::string& field, const FieldValue& v) {
    if (v.kind != FieldValue::Kind::Text) refuse(field, "expected conditions separated by commas (" + condition_names() + ")");
    std::vector<watch::Condition> out;
    std::stringstream words(v.text);
    for (std::string word; std::getline(words, word, ',');) {
        word.erase(0, word.find_first_not_of(" \t"));
        word.erase(word.find_last_not_of(" \t") + 1);
        bool known = false;
        for (const watch::Condition c : watch::kConditions)
            if (word == watch::condition_name(c)) {
                known = true;
                if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
            }
        if (!known) refuse(field, "expected conditions separated by commas (" + condition_names() + ")");
    }
    if (out.empty()) refuse(field, "expected at least one condition (" + condition_names() + ")");
    return out;
}

}  // namespace
}  // namespace clip_field

bool StreamClipFields::records(watch::Condition c) const { return std::find(on.begin(), on.end(), c) != on.end(); }

const std::vector<std::string>& clip_field_names() {
    static const std::vector<std::string> names = {"clips.on", "clips.pre_roll_s", "clips.post_roll_s", "clips.max_s", "clips.only"};
    return names;
}

bool is_clip_field(const std::string& field) {
    const std::vector<std::string>& names = clip_field_names();
    return std::find(names.begin(), names.end(), field) != names.end();
}

FieldType clip_field_type(const std::string& field) {
    if (field == "clips.on") return FieldType::Text;
    if (field == "clips.only") return FieldType::Boolean;
    return FieldType::Number;
}

StreamClipFields clips_from_fields(const StreamFields& fields) {
    using namespace clip_field;
    StreamClipFields c;
    std::string other;  // a clip field given without clips.on
    for (const auto& [key, v] : fields) {
        if (!is_clip_field(key)) continue;
        if (key == "clips.on") c.on = conditions_of(key, v);
        else if (key == "clips.pre_roll_s") c.pre_roll_s = number_in(key, v, 0, StreamClipFields::kMaxPreRollS);
        else if (key == "clips.post_roll_s") c.post_roll_s = number_in(key, v, 0, 300);
        else if (key == "clips.max_s") c.max_s = number_in(key, v, 1, 3600);
        else c.only = boolean_of(key, v);
        if (key != "clips.on") other = key;
    }
    if (!c.enabled() && !other.empty()) refuse(other, "needs clips.on, the conditions whose events are recorded");
    return c;
}

}  // namespace vf
