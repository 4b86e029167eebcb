// A fixture for cmake/check_statics.cmake: a per-device registry kept in a static, as the shared
// GPU stage once was. The check must name this line.
#include <map>
#include <memory>
#include <mutex>

namespace vf {

struct Stage {};

std::shared_ptr<Stage> stage_of_device(int device) {
    static std::map<int, std::weak_ptr<Stage>> stages;
    auto made = std::make_shared<Stage>();
    stages[device] = made;
    return made;
}

}  // namespace vf
