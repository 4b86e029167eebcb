#include "app/run/watch_fields.hpp"

#include <cmath>
#include <optional>
#include <sstream>

#include "common/error.hpp"

namespace vf {
// Named, so that a unity batch with stream_options.cpp sees no two helpers of one name.
namespace watch_field {
namespace {

using watch::Condition;

const char* const kConditionSettings[] = {"enabled", "enter", "leave", "enter_hold_s", "leave_hold_s"};

[[noreturn]] void refuse(const std::string& field, const FieldValue& v, const std::string& wanted) {
    fail(ErrorCategory::Usage, "field '" + field + "': '" + v.text.substr(0, 64) + "': " + wanted);
}

double number_of(const std::string& field, const FieldValue& v) {
    if (const std::optional<double> x = field_number(v)) return *x;
    refuse(field, v, "expected a number");
}

bool boolean_of(const std::string& field, const FieldValue& v) {
    if (const std::optional<bool> b = field_boolean(v, yaml_boolean_words())) return *b;
    refuse(field, v, "expected true or false");
}

// "dark" -> Condition::Dark; false for a name that is none.
bool condition_of(const std::string& name, Condition* c) {
    for (const Condition k : watch::kConditions)
        if (name == watch::condition_name(k)) return *c = k, true;
    return false;
}

void set_condition_field(watch::ConditionSettings& s, const std::string& setting, const std::string& field, const FieldValue& v) {
    if (setting == "enabled") s.enabled = boolean_of(field, v);
    else if (setting == "enter") s.enter = number_of(field, v);
    else if (setting == "leave") s.leave = number_of(field, v);
    else if (setting == "enter_hold_s") s.enter_hold_s = number_of(field, v);
    else s.leave_hold_s = number_of(field, v);
}

void set_field(StreamWatchFields& w, const std::string& field, const FieldValue& v) {
    if (field == "watch") return void(w.enabled = boolean_of(field, v));
    if (field == "watch.measure_rate_hz") return void(w.settings.measure_rate_hz = number_of(field, v));
    if (field == "watch.calibration_s") return void(w.settings.calibration_s = number_of(field, v));
    if (field == "watch.motion_noise_levels") {
        const double n = number_of(field, v);
        if (n != std::floor(n) || n < 1 || n > 254) refuse(field, v, "expected a whole number in 1..254");
        return void(w.settings.motion_noise_levels = static_cast<int>(n));
    }
    const std::string rest = field.substr(std::string("watch.").size());
    const size_t dot = rest.find('.');
    Condition c = Condition::Dark;
    condition_of(rest.substr(0, dot), &c);
    set_condition_field(w.settings.of(c), rest.substr(dot + 1), field, v);
}

}  // namespace
}  // namespace watch_field

const std::vector<std::string>& watch_field_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> all = {"watch", "watch.measure_rate_hz", "watch.calibration_s", "watch.motion_noise_levels"};
        for (const watch::Condition c : watch::kConditions)
            for (const char* s : watch_field::kConditionSettings) all.push_back(std::string("watch.") + watch::condition_name(c) + "." + s);
        return all;
    }();
    return names;
}

bool is_watch_field(const std::string& field) {
    if (field != "watch" && field.rfind("watch.", 0) != 0) return false;
    for (const std::string& n : watch_field_names())
        if (n == field) return true;
    return false;
}

FieldType watch_field_type(const std::string& field) {
    if (field == "watch" || (field.size() > 8 && field.compare(field.size() - 8, 8, ".enabled") == 0)) return FieldType::Boolean;
    if (field == "watch.motion_noise_levels") return FieldType::Integer;
    return FieldType::Number;
}

StreamWatchFields watch_from_fields(const StreamFields& fields) {
    StreamWatchFields w;
    for (const auto& [key, value] : fields)
        if (is_watch_field(key)) watch_field::set_field(w, key, value);
    try {
        watch::check_watch_settings(w.settings);
    } catch (const Error& e) {
        rethrow_prefixed(e, "field ");
    }
    return w;
}

}  // namespace vf
