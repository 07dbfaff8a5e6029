// threads.cpp — std::thread, std::mutex, std::condition_variable and std::atomic as g++ (mingw-w64,
// the -posix threads model: libwinpthread) builds them (scenarios/tests/pe_cxx.sh).  Four workers
// add to an atomic counter and to a counter under a mutex, then hand their results to the main
// thread through a condition variable; the totals are fixed by the program (4 x 1000), whatever
// the schedule.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex m;
static std::condition_variable cv;
static int done = 0;
static long locked_total = 0;
static std::atomic<long> atomic_total{0};

int main() {
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; w++)
        workers.emplace_back([] {
            for (int k = 0; k < 1000; k++) {
                atomic_total.fetch_add(1);
                std::lock_guard<std::mutex> g(m);
                locked_total++;
            }
            std::lock_guard<std::mutex> g(m);
            done++;
            cv.notify_one();
        });
    {
        std::unique_lock<std::mutex> l(m);
        cv.wait(l, [] { return done == 4; });
    }
    for (auto &t : workers) t.join();
    std::printf("workers done: %d\n", done);
    std::printf("std::atomic total: %ld\n", atomic_total.load());
    std::printf("std::mutex total: %ld\n", locked_total);
    return 0;
}
