// exceptions.cpp — C++ exceptions as g++ (mingw-w64) builds them (scenarios/tests/pe_cxx.sh): a throw
// caught three frames up with each frame's destructor run on the way, std::vector::at out of range,
// a rethrow, catch (...), an exception inside a destructor's scope, and iostream with std::endl.
// x86-64 throws through Windows' exception dispatch (libgcc's SEH unwinder: RaiseException,
// RtlUnwindEx); i386 through libgcc's DWARF unwinder (user code only).  The expected output is the
// C++ standard's (the order of destructors and handlers); pe_cxx.sh compares it with Wine's.
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

struct Guard {
    int n;
    ~Guard() { std::printf("~Guard %d\n", n); }
};

static void thrower(int depth) {
    Guard g{depth};
    if (depth == 0) throw std::runtime_error("from depth 0");
    thrower(depth - 1);
}

static int rethrow() {
    try {
        throw std::logic_error("first");
    } catch (const std::logic_error &e) {
        std::printf("caught %s, rethrowing\n", e.what());
        throw;
    }
}

int main() {
    try {
        thrower(3);
    } catch (const std::exception &e) {
        std::printf("caught across 4 frames: %s\n", e.what());
    }
    std::vector<int> v(3);
    try {
        v.at(5) = 1;
    } catch (const std::out_of_range &) {
        std::printf("std::vector::at(5) of 3 elements: std::out_of_range\n");
    }
    try {
        rethrow();
    } catch (const std::exception &e) {
        std::printf("caught the rethrown %s\n", e.what());
    }
    try {
        throw 42;
    } catch (...) {
        std::printf("catch (...) took an int\n");
    }
    int caught = 0;
    for (int i = 0; i < 100; i++) {
        try {
            Guard g{-1};
            if (i % 2) throw std::string("odd");
        } catch (const std::string &) {
            caught++;
        }
    }
    std::printf("50 of 100 iterations threw: %d caught\n", caught);
    std::cout << "iostream with std::endl" << std::endl;
    return 0;
}
