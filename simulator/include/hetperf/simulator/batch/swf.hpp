// The Standard Workload Format (Parallel Workloads Archive, Feitelson): one job per line, 18
// whitespace-separated fields, -1 where a value is unknown, ';' lines are header comments.
// Read and written without loss, so import -> export -> import gives equal traces.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetperf::sim::batch {

inline constexpr int kSwfFields = 18;

// Field numbers are 1-based, as in the SWF definition.
enum SwfField : int {
  kJobNumber = 1,
  kSubmitTime = 2,  // s
  kWaitTime = 3,    // s
  kRunTime = 4,     // s
  kAllocatedProcs = 5,
  kAverageCpuTime = 6,  // s per processor
  kUsedMemory = 7,      // KB per processor
  kRequestedProcs = 8,
  kRequestedTime = 9,     // s
  kRequestedMemory = 10,  // KB per processor
  kStatus = 11,           // 1 completed, 0 failed, 5 cancelled
  kUserId = 12,
  kGroupId = 13,
  kExecutable = 14,
  kQueue = 15,
  kPartition = 16,
  kPrecedingJob = 17,
  kThinkTime = 18,  // s
};

// "allocated processors" for field 5.
const char* swf_field_name(int field);

struct SwfRecord {
  std::array<double, kSwfFields> fields{};  // fields[f - 1]; -1 = missing
  std::int64_t line = 0;                    // 1-based line in the file it came from (0: not from a file)

  double get(int field) const { return fields[static_cast<std::size_t>(field - 1)]; }
  void set(int field, double v) { fields[static_cast<std::size_t>(field - 1)] = v; }
  bool missing(int field) const { return get(field) == -1; }
  bool operator==(const SwfRecord& o) const { return fields == o.fields; }  // the line is not data
};

struct SwfTrace {
  std::string file;                 // where it was read from, for messages
  std::vector<std::string> header;  // comment lines, text after the ';', in file order
  std::vector<SwfRecord> records;
  std::optional<std::int64_t> max_procs;  // "; MaxProcs: N" from the header
  std::optional<std::int64_t> max_nodes;  // "; MaxNodes: N"

  // MaxProcs, else MaxNodes, else nullopt: the cluster size when none is given.
  std::optional<std::int64_t> cluster_size() const { return max_procs ? max_procs : max_nodes; }
  bool operator==(const SwfTrace& o) const {
    return header == o.header && records == o.records && max_procs == o.max_procs && max_nodes == o.max_nodes;
  }
};

// Parses SWF text. Integer fields (job number, processors, status, ids) must be integers >= -1; the
// others numbers >= -1. Errors are InputError "file:LINE: field 5 (allocated processors): expected an
// integer >= -1, got 'x'" or "file:LINE: expected 18 fields, got 12".
SwfTrace parse_swf(std::string_view text, const std::string& file);
SwfTrace read_swf(const std::filesystem::path& path);

// SWF text: the header comments, then one line per record; integral values print as integers, others
// with the shortest text that reads back to the same double.
std::string format_swf(const SwfTrace& trace);

}  // namespace hetperf::sim::batch
