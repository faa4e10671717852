// Resources and occupancy of every kernel launch on a Jetson (the Nano's
// GM20B, the Orin's GA10B), with the toolkit's own occupancy calculator
// (cuda_occupancy.h).
//
//   occupancy nano|orin RESOURCES LAUNCHES
// RESOURCES: `cuobjdump --dump-resource-usage` of the board's build
// (sm_53, sm_87), demangled.  LAUNCHES: benchmarks/jetson/BOARD/launches.txt
// (every shape the defaults and `auto` can choose).  Prints the board's
// figures and a Markdown table; exits 1 when a kernel spills to local
// memory or a launch does not fit the board.
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
    const bool orin = argc == 4 && std::strcmp(argv[1], "orin") == 0;
    if (argc != 4 || (!orin && std::strcmp(argv[1], "nano") != 0)) {
        std::fprintf(stderr, "usage: occupancy nano|orin RESOURCES LAUNCHES\n");
        return 2;
    }
    std::map<std::string, resources> res = read_resources(argv[2]);
    cudaOccDeviceProp dev;
    dev.computeMajor = orin ? 8 : 5;
    dev.computeMinor = orin ? 7 : 3;
    dev.maxThreadsPerBlock = 1024;
    dev.maxThreadsPerMultiprocessor = orin ? 1536 : 2048;
    dev.regsPerBlock = orin ? 65536 : 32768;
    dev.regsPerMultiprocessor = 65536;
    dev.warpSize = 32;
    dev.sharedMemPerBlock = 49152;
    dev.sharedMemPerMultiprocessor = orin ? 167936 : 65536;
    dev.numSms = orin ? 8 : 1; // the Orin Nano 8 GB's and the Orin NX's
    dev.sharedMemPerBlockOptin = orin ? 166912 : 49152;
    dev.reservedSharedMemPerBlock = orin ? 1024 : 0;
    std::printf("The %s's figures: %d SM%s, %d threads, 64K registers and %d KiB of shared memory per SM; "
                "%dK registers and %d KiB of shared memory per block%s. Occupancy = resident threads / %d.\n\n",
                orin ? "Orin Nano" : "Nano", dev.numSms, dev.numSms == 1 ? "" : "s",
                dev.maxThreadsPerMultiprocessor, (int)(dev.sharedMemPerMultiprocessor / 1024),
                dev.regsPerBlock / 1024, (int)(dev.sharedMemPerBlockOptin / 1024),
                orin ? " (48 KiB without opting in)" : "", dev.maxThreadsPerMultiprocessor);
    cudaOccDeviceState state;
    std::ifstream launches(argv[3]);
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
        attr.shmemLimitConfig = r->shared + dyn > 49152 ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
        // a launch past 48 KiB opts in to what it asks for
        attr.maxDynamicSharedSizeBytes = dyn > 49152 ? (int)dyn : 49152;
        attr.numBlockBarriers = 1;
        cudaOccResult occ;
        cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&occ, &dev, &attr, &state, threads, (size_t)dyn);
        const int blocks = e == CUDA_OCC_SUCCESS ? occ.activeBlocksPerMultiprocessor : 0;
        const bool spill = r->local > 0 || r->stack > 0;
        const bool fits = blocks > 0 && (size_t)(r->shared + dyn) <= dev.sharedMemPerBlockOptin;
        const double pct = 100.0 * blocks * threads / dev.maxThreadsPerMultiprocessor;
        std::printf("| `%s` | %s | %d | %s | %d | %d | %ld | %d | %.0f%% | %s |\n", kernel.c_str(),
                    shape.c_str(), r->regs, spill ? "SPILLS" : "0", r->shared, threads, dyn,
                    blocks, pct, fits ? "yes" : "NO");
        failures += spill || !fits;
    }
    std::printf("\n%d launches, %d that spill or do not fit\n", rows, failures);
    return failures ? 1 : 0;
}
