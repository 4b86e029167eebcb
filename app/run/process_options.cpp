#include "app/run/process_options.hpp"

namespace vf {

const char* where_process_option_is_set(const std::string& name) {
    struct Home {
        const char* name;
        const char* where;
    };
    // The command line's spellings, as a stream entry would give them.
    static const Home homes[] = {
        {"metrics-port", "vfilter --metrics-port for a single run; serve answers /metrics on its --api-port"},
        {"metrics-bind", "vfilter --metrics-bind for a single run; serve answers /metrics on its --api-bind"},
        {"stats-json",
         "vfilter --stats-json, or the serve: block's stats-json (every stream's summary in one file); vfilter.run returns it"},
        {"min-free", "vfilter --min-free, or the serve: block's min-free (one floor for the recordings of every stream)"},
        {"verbose", "vfilter's command line (-v, vfilter serve -v)"},
        {"debug", "vfilter's command line (--debug)"},
        {"quiet", "vfilter's command line (-q, vfilter serve -q)"},
        {"no-progress", "vfilter's command line (--no-progress)"},
        {"log-format", "vfilter's command line (--log-format, vfilter serve --log-format)"},
    };
    for (const Home& h : homes)
        if (name == h.name) return h.where;
    return nullptr;
}

}  // namespace vf
