#include "common/timer_slack.hpp"

#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace vf {

bool set_thread_timer_slack_us(int us) {
#ifdef __linux__
    if (us < 0) return false;
    return prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(us) * 1000UL, 0, 0, 0) == 0;
#else
    (void)us;
    return false;
#endif
}

int thread_timer_slack_us() {
#ifdef __linux__
    const int ns = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    return ns < 0 ? -1 : ns / 1000;
#else
    return -1;
#endif
}

}  // namespace vf
