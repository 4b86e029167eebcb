// The dispatch table as a whole: every row can be named, and every row has its own test file
// (tests/kernels/cuda/variants/<row>_test.cpp, its suite named after the row), so a new row cannot
// land without the tests that run it by name against the reference.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kernels/cuda/dispatch_table.hpp"
#include "kernels/gpu_kernel.hpp"

namespace vf {
namespace {

std::string suite_of(const std::string& row) {
    std::string s;
    bool upper = true;
    for (char c : row) {
        if (c == '-') {
            upper = true;
            continue;
        }
        s += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return s;
}

TEST(DispatchTable, EveryRowIsNamedAndHasItsOwnTests) {
    std::set<std::string> suites;
    const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
    for (int i = 0; i < unit.total_test_suite_count(); ++i) suites.insert(unit.GetTestSuite(i)->name());
    std::set<std::string> names;
    for (const cuda::Variant& row : cuda::dispatch_table()) {
        EXPECT_TRUE(names.insert(row.name).second) << row.name << " is in the table twice";
        KernelChoice choice;
        EXPECT_TRUE(parse_kernel_choice(row.name, &choice)) << row.name << " cannot be named with --kernel";
        EXPECT_TRUE(suites.count(suite_of(row.name))) << row.name << " has no test suite " << suite_of(row.name)
                                                      << " (tests/kernels/cuda/variants/)";
    }
}

}  // namespace
}  // namespace vf
