// The fleet's coordination store and shard leases against a real etcd started on loopback
// (tests/support/etcd_server.hpp): keys and leases as etcd keeps them; a store that does not
// answer fails each call within its bound; three shards see each other, a killed one's key goes
// within its lease, a stopped one's at once; a shard cut off from the store stops holding its lease
// before the others read it gone (fencing); keys written by something else are ignored; and a lost
// shard's streams spread over the survivors while no other stream moves.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "app/serve/fleet/etcd_store.hpp"
#include "app/serve/fleet/shard_lease.hpp"
#include "app/serve/serve_config.hpp"
#include "common/error.hpp"
#include "support/child_process.hpp"
#include "support/etcd_server.hpp"
#include "support/tcp_relay.hpp"

namespace vf::shard_lease_test {
namespace {

using Clock = std::chrono::steady_clock;
using test::EtcdServer;

#define SKIP_WITHOUT_ETCD() \
    if (!EtcdServer::available()) GTEST_SKIP() << "etcd is not installed (scripts/install_deps.sh --test installs etcd-server)"

std::shared_ptr<EtcdStore> store_at(const std::string& url, int timeout_ms = 1000) {
    return std::make_shared<EtcdStore>(EtcdStore::parse_endpoints(url), timeout_ms);
}

std::string loopback(int port) { return "http://127.0.0.1:" + std::to_string(port); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Waits until pred() holds, up to timeout_s; the seconds it took, or -1.
template <typename Pred>
double wait_until(Pred pred, double timeout_s) {
    const Clock::time_point start = Clock::now();
    while (seconds_since(start) < timeout_s) {
        if (pred()) return seconds_since(start);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
}

ShardLeaseSettings shard(int index, int count, int ttl_s) {
    ShardLeaseSettings s;
    s.index = index;
    s.count = count;
    s.ttl_s = ttl_s;
    s.address = "http://127.0.0.1:" + std::to_string(18000 + index);
    return s;
}

TEST(EtcdStore, KeysAndLeasesAreWhatEtcdKeeps) {
    SKIP_WITHOUT_ETCD();
    EtcdServer etcd;
    ASSERT_TRUE(etcd.started());
    auto store = store_at(etcd.url());
    store->put("/f/a", "one");
    store->put("/f/b", std::string("bytes \x01\xc3\xa9/\0end", 14));
    store->put("/f0", "outside the prefix");
    store->put("/g/a", "outside too");
    const int64_t lease = store->grant_lease(30);
    store->put("/f/c", "with a lease", lease);
    std::vector<StoreEntry> read = store->read_prefix("/f/");
    ASSERT_EQ(read.size(), 3u);
    EXPECT_EQ(read[0].key, "/f/a");
    EXPECT_EQ(read[0].value, "one");
    EXPECT_EQ(read[1].value, std::string("bytes \x01\xc3\xa9/\0end", 14));
    EXPECT_EQ(read[2].lease, lease);
    EXPECT_GT(store->keep_alive(lease), 0);
    store->revoke_lease(lease);
    EXPECT_EQ(store->keep_alive(lease), 0);
    store->remove("/f/a");
    read = store->read_prefix("/f/");
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].key, "/f/b");
}

TEST(EtcdStore, AStoreThatDoesNotAnswerFailsEachCallWithinItsBound) {
    SKIP_WITHOUT_ETCD();
    EtcdServer etcd;
    ASSERT_TRUE(etcd.started());
    auto store = store_at(etcd.url(), 500);
    store->put("/k", "v");
    etcd.pause();
    Clock::time_point start = Clock::now();
    try {
        store->put("/k", "w");
        ADD_FAILURE() << "a put to a paused etcd succeeded";
    } catch (const StoreError& e) {
        EXPECT_FALSE(e.reached()) << e.what();
    }
    EXPECT_LT(seconds_since(start), 3.0);  // its 500 ms timeout, with room for a loaded sanitizer run
    etcd.resume();  // answers again (the put that timed out may have been applied late: either value)
    const std::vector<StoreEntry> read = store->read_prefix("/k");
    ASSERT_EQ(read.size(), 1u);
    EXPECT_TRUE(read[0].value == "v" || read[0].value == "w") << read[0].value;

    auto nobody = store_at(loopback(test::free_port()), 500);
    start = Clock::now();
    EXPECT_THROW(nobody->grant_lease(5), StoreError);
    EXPECT_LT(seconds_since(start), 3.0);  // its 500 ms timeout, with room for a loaded sanitizer run
}

TEST(EtcdStore, AddressesOtherThanEtcdsClientUrlsAreRefusedNamingTheOption) {
    EXPECT_EQ(EtcdStore::parse_endpoints("http://10.0.0.5:2379,http://10.0.0.6:2379").size(), 2u);
    for (const char* bad : {"", "10.0.0.5:2379", "http://a:2379,", "ftp://a:1", "https://a:2379", "http://a:2379/v3"}) {
        try {
            EtcdStore::parse_endpoints(bad);
            ADD_FAILURE() << "taken: " << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("--store"), std::string::npos) << e.what();
        }
    }
}

TEST(ShardLease, ThreeShardsSeeEachOtherAndALostOneGoesWithinItsLease) {
    SKIP_WITHOUT_ETCD();
    EtcdServer etcd;
    ASSERT_TRUE(etcd.started());
    const int ttl = 3;
    ShardLease a(store_at(etcd.url()), shard(0, 3, ttl)), b(store_at(etcd.url()), shard(1, 3, ttl)), c(store_at(etcd.url()), shard(2, 3, ttl));
    const std::vector<int> all = {0, 1, 2};
    ASSERT_GE(wait_until([&] { return a.alive() == all && b.alive() == all && c.alive() == all; }, 5), 0);
    EXPECT_TRUE(a.holds_lease());

    b.stop(false);  // as a killed process: its key stays until the lease runs out
    const double gone = wait_until([&] { return a.alive() == std::vector<int>{0, 2} && c.alive() == std::vector<int>{0, 2}; }, ttl + 3);
    ASSERT_GE(gone, 0) << "shard 1's key outlived its lease";
    // Its last renewal came at most a renewal period before it stopped.
    EXPECT_GE(gone, ttl - ShardLease::renew_period(ttl).count() / 1000.0 - 0.1) << "the key went before its lease ran out";
    EXPECT_LE(gone, ttl + 2 * ShardLease::renew_period(ttl).count() / 1000.0 + 0.5);

    c.stop(true);  // a clean stop revokes: gone at the next read
    EXPECT_GE(wait_until([&] { return a.alive() == std::vector<int>{0}; }, ShardLease::renew_period(ttl).count() / 1000.0 + 1), 0);
}

TEST(ShardLease, AShardCutOffFromTheStoreStopsHoldingItsLeaseBeforeTheOthersTakeOver) {
    SKIP_WITHOUT_ETCD();
    EtcdServer etcd;
    ASSERT_TRUE(etcd.started());
    test::TcpRelay relay(etcd.host(), etcd.port());
    const int ttl = 3;
    ShardLease cut(store_at(loopback(relay.port())), shard(0, 3, ttl)), b(store_at(etcd.url()), shard(1, 3, ttl)),
        c(store_at(etcd.url()), shard(2, 3, ttl));
    const std::vector<int> all = {0, 1, 2};
    ASSERT_GE(wait_until([&] { return cut.alive() == all && b.alive() == all && c.alive() == all; }, 5), 0);

    relay.partition(true);
    const Clock::time_point partitioned = Clock::now();
    double fenced = -1, taken = -1;
    while (seconds_since(partitioned) < ttl + 4 && (fenced < 0 || taken < 0)) {
        if (fenced < 0 && !cut.holds_lease()) fenced = seconds_since(partitioned);
        if (taken < 0 && b.alive() == std::vector<int>{1, 2}) taken = seconds_since(partitioned);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GE(fenced, 0) << "the cut-off shard still holds its lease";
    ASSERT_GE(taken, 0) << "the others never saw the cut-off shard go";
    EXPECT_LE(fenced, ttl) << "it held on past its lease time";
    EXPECT_LT(fenced, taken) << "the others took over while it still held its lease";
    EXPECT_FALSE(cut.store_answers());

    relay.partition(false);  // back: a new lease, and everyone sees it again
    EXPECT_GE(wait_until([&] { return cut.holds_lease() && b.alive() == all && cut.alive() == all; }, ttl + 3), 0);
}

TEST(ShardLease, KeysWrittenBySomethingElseAreIgnored) {
    SKIP_WITHOUT_ETCD();
    EtcdServer etcd;
    ASSERT_TRUE(etcd.started());
    auto store = store_at(etcd.url());
    const int64_t lease = store->grant_lease(30);
    store->put("/vfilter/shards/7", R"({"shard": 7})", lease);      // beyond the fleet's count
    store->put("/vfilter/shards/x", R"({"shard": 1})", lease);      // not an index
    store->put("/vfilter/shards/1", R"({"shard": 1})");             // no lease: never goes
    store->put("/vfilter/shards/2", "not json\x1b[31m", lease);     // not a shard's value
    ShardLease a(store_at(etcd.url()), shard(0, 3, 3));
    ASSERT_GE(wait_until([&] { return !a.alive().empty(); }, 5), 0);
    std::this_thread::sleep_for(ShardLease::renew_period(3));
    EXPECT_EQ(a.alive(), std::vector<int>{0});
}

TEST(ShardLease, AStoreOutOfReachAtStartLeavesNoLeaseAndNoShardsSeen) {
    ShardLease a(store_at(loopback(test::free_port()), 300), shard(0, 3, 3));
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    EXPECT_FALSE(a.holds_lease());
    EXPECT_FALSE(a.store_answers());
    EXPECT_TRUE(a.alive().empty());
}

TEST(ShardOwnership, ALostShardsStreamsSpreadOverTheOthersAndNoOtherStreamMoves) {
    const std::vector<int> all = {0, 1, 2, 3}, without_1 = {0, 2, 3};
    int moved = 0;
    std::vector<int> went_to(4, 0);
    for (int i = 0; i < 4000; ++i) {
        const std::string name = "cam" + std::to_string(i);
        ASSERT_EQ(owner_among(name, all), shard_of(name, 4));
        const int before = owner_among(name, all), after = owner_among(name, without_1);
        if (before != 1) {
            EXPECT_EQ(after, before) << name << " moved though its shard lives";
            continue;
        }
        ++moved;
        ++went_to[static_cast<size_t>(after)];
    }
    ASSERT_GT(moved, 800);
    for (int k : without_1) EXPECT_GT(went_to[static_cast<size_t>(k)], moved / 5) << "shard " << k << " took too few";
    EXPECT_EQ(owner_among("cam", {}), -1);
}

}  // namespace
}  // namespace vf::shard_lease_test
