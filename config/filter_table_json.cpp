#include "config/filter_table_json.hpp"

#include "config/filter_registry.hpp"

namespace vf {

nlohmann::json filter_table_json() {
    nlohmann::json out = nlohmann::json::array();
    for (const FilterDef& f : filter_table()) {
        nlohmann::json options = nlohmann::json::array();
        for (const OptionDef& o : f.options) {
            nlohmann::json d;
            d["name"] = o.name;
            d["type"] = o.type == OptionType::Number    ? "number"
                        : o.type == OptionType::Integer ? "integer"
                        : o.type == OptionType::Choice  ? "choice"
                                                        : "text";  // planes, expressions and matrices are written as text
            d["default"] = o.default_value;
            if (o.type == OptionType::Number || o.type == OptionType::Integer) {
                d["min"] = o.min;
                d["max"] = o.max;
            }
            if (o.type == OptionType::Choice) d["choices"] = o.choices;
            d["help"] = o.help;
            options.push_back(d);
        }
        out.push_back({{"name", f.name}, {"help", f.help}, {"options", options}});
    }
    return out;
}

}  // namespace vf
