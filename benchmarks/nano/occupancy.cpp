// Resources and occupancy of every kernel launch on a Jetson Nano (GM20B:
// compute capability 5.3, 1 SM, 64K registers and 64 KiB shared memory per
// SM, 32K registers and 48 KiB shared memory per block), with the toolkit's
// own occupancy calculator (cuda_occupancy.h).
//
//   occupancy RESOURCES LAUNCHES
// RESOURCES: `cuobjdump --dump-resource-usage` of an sm_53 build, demangled.
// LAUNCHES: benchmarks/nano/launches.txt (every shape the defaults and
// `auto` can choose).  Prints a Markdown table; exits 1 when a kernel spills
// to local memory or a launch does not fit the Nano.
#include <cuda_occupancy.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

struct resources {
    int regs = -1, stack = 0, local = 0, shared = 0;
};

// "Function NAME:" then "REG:n STACK:n SHARED:n LOCAL:n ..." per kernel.
static std::map<std::string, resources> read_resources(const char *path)
{
    std::map<std::string, resources> out;
    std::ifstream in(path);
    std::string line, name;
    while (std::getline(in, line)) {
        size_t f = line.find("Function ");
        if (f != std::string::npos) {
            name = line.substr(f + 9);
            if (!name.empty() && name.back() == ':')
                name.pop_back();
            continue;
        }
        if (name.empty() || line.find("REG:") == std::string::npos)
            continue;
        resources r;
        std::sscanf(std::strstr(line.c_str(), "REG:"), "REG:%d STACK:%d SHARED:%d LOCAL:%d",
                    &r.regs, &r.stack, &r.shared, &r.local);
        out[name] = r;
        name.clear();
    }
    return out;
}

/* A demangled name as the launch table writes it: no return type, no spaces
 * ("void f<8, true>(...)" -> "f<8,true>(...)"). */
static std::string squeeze(std::string name)
{
    std::string out;
    if (name.compare(0, 5, "void ") == 0)
        name.erase(0, 5);
    for (char c : name)
        if (c != ' ')
            out += c;
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: occupancy RESOURCES LAUNCHES\n");
        return 2;
    }
    std::map<std::string, resources> res = read_resources(argv[1]);
    cudaOccDeviceProp nano;
    nano.computeMajor = 5;
    nano.computeMinor = 3;
    nano.maxThreadsPerBlock = 1024;
    nano.maxThreadsPerMultiprocessor = 2048;
    nano.regsPerBlock = 32768;
    nano.regsPerMultiprocessor = 65536;
    nano.warpSize = 32;
    nano.sharedMemPerBlock = 49152;
    nano.sharedMemPerMultiprocessor = 65536;
    nano.numSms = 1;
    nano.sharedMemPerBlockOptin = 49152;
    nano.reservedSharedMemPerBlock = 0;
    cudaOccDeviceState state;
    std::ifstream launches(argv[2]);
    std::string line;
    int failures = 0, rows = 0;
    std::printf("| kernel | launch | regs | spill | static smem | threads | dynamic smem | blocks/SM | occupancy | fits |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
    while (std::getline(launches, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream ls(line);
        std::string kernel, shape;
        int threads = 0;
        long dyn = 0;
        ls >> kernel >> threads >> dyn;
        std::getline(ls, shape);
        shape.erase(0, shape.find_first_not_of(" \t"));
        // the kernel: the first demangled name that starts with the pattern
        const resources *r = nullptr;
        for (auto &kv : res)
            if (squeeze(kv.first).compare(0, kernel.size(), kernel) == 0) {
                r = &kv.second;
                break;
            }
        rows++;
        if (!r) {
            std::printf("| %s | %s | - | - | - | %d | %ld | - | - | NOT BUILT |\n", kernel.c_str(),
                        shape.c_str(), threads, dyn);
            failures++;
            continue;
        }
        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = 1024;
        attr.numRegs = r->regs;
        attr.sharedSizeBytes = (size_t)r->shared;
        attr.partitionedGCConfig = PARTITIONED_GC_OFF;
        attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
        attr.maxDynamicSharedSizeBytes = 49152;
        attr.numBlockBarriers = 1;
        cudaOccResult occ;
        cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&occ, &nano, &attr, &state, threads, (size_t)dyn);
        const int blocks = e == CUDA_OCC_SUCCESS ? occ.activeBlocksPerMultiprocessor : 0;
        const bool spill = r->local > 0 || r->stack > 0;
        const bool fits = blocks > 0 && r->shared + dyn <= 49152;
        const double pct = 100.0 * blocks * threads / nano.maxThreadsPerMultiprocessor;
        std::printf("| `%s` | %s | %d | %s | %d | %d | %ld | %d | %.0f%% | %s |\n", kernel.c_str(),
                    shape.c_str(), r->regs, spill ? "SPILLS" : "0", r->shared, threads, dyn,
                    blocks, pct, fits ? "yes" : "NO");
        failures += spill || !fits;
    }
    std::printf("\n%d launches, %d that spill or do not fit\n", rows, failures);
    return failures ? 1 : 0;
}
