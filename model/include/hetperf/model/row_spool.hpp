// Rows of an output that become known out of order (processes in finish order, written in definition
// order) kept on disk instead of in memory: appended to an unlinked file beside the output, each row's
// place remembered, and copied into the output in row order once all are known. Memory: 12 bytes a
// row and a write buffer, however long the rows are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hetperf/model/file_io.hpp"

namespace hetperf {

// What a writer of result rows (processes, jobs) puts where: sim::ProcessRowWriter and
// sim::batch::JobRowWriter spool their rows with RowSpool.
struct RowOutputOptions {
  std::string out;            // the JSON's path, for its error messages
  bool summary_only = false;  // no rows in the JSON; the CSV's in finish order
  std::size_t rows = 20;      // rows kept for the console table
};

class RowSpool {
 public:
  // The spool file is created in `beside`'s directory (same file system, and the user chose it for a
  // file of this size) and unlinked at once, so that nothing is left behind however the run ends.
  explicit RowSpool(const AtomicFile& beside);
  ~RowSpool();
  RowSpool(const RowSpool&) = delete;
  RowSpool& operator=(const RowSpool&) = delete;
  // Row `index`, each index once.
  void add(std::uint64_t index, std::string_view text);
  // One more than the highest index added.
  std::uint64_t rows() const { return lengths_.size(); }
  // Appends every row, in index order, to `out`; every index below rows() must have been added.
  void copy_to(AtomicFile& out);

 private:
  void flush();

  std::string name_;  // for messages
  int fd_ = -1;
  std::string buffer_;
  std::uint64_t written_ = 0;  // bytes in the file
  std::vector<std::uint64_t> offsets_;
  std::vector<std::uint32_t> lengths_;  // the largest value: not added (yet)
};

}  // namespace hetperf
