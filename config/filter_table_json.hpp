// The filter table (config/filter_registry.hpp) as data, for vfilter serve's page (GET /filters)
// and the Python module's vfilter.filters(): every filter with its help and its options' types,
// defaults, ranges, choices and help.
#pragma once

#include <nlohmann/json.hpp>

namespace vf {

nlohmann::json filter_table_json();

}  // namespace vf
