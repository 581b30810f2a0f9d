// A process prediction's writers, apart from the simulation that makes it: the JSON and CSV rows as
// processes finish (ProcessRowWriter), the timelines' CSV and the table on the console.
//
//   OutputSet outputs;
//   AtomicFile& out = outputs.add("prediction.json", "--out");
//   sim::ProcessRowWriter rows({"prediction.json", false, 20}, out, nullptr);
//   options.on_process = [&rows](const ProcessResult& r, std::uint64_t i) { rows.add(r, i); };
//   Prediction p = sim::simulate(profile, workload, binding, "workload.json", options);
//   rows.finish(p);
//   outputs.commit();
//   sim::print_process_table(p, rows.first(), p.summary.processes, 20, stdout);
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/prediction.hpp"
#include "hetperf/model/row_spool.hpp"

namespace hetperf::sim {

// Each process's rows as it finishes (SimulationOptions::on_process). With summary_only the CSV gets
// them in finish order, straight into its temporary file. Otherwise the JSON and the CSV list them in
// definition order: they go to spools beside their files (finish order), copied in order at the end,
// and the first `rows` are kept for the console table.
class ProcessRowWriter {
 public:
  ProcessRowWriter(RowOutputOptions options, AtomicFile& out, AtomicFile* csv);

  void add(const ProcessResult& r, std::uint64_t index);
  // The JSON document around the spooled rows, and the CSV's rows.
  void finish(const Prediction& p);

  const std::vector<ProcessResult>& first() const { return first_; }
  bool listed() const { return json_spool_.has_value(); }

 private:
  RowOutputOptions options_;
  AtomicFile& out_;
  AtomicFile* csv_;
  std::optional<CsvWriter> csv_rows_;
  std::optional<RowSpool> json_spool_, csv_spool_;
  std::vector<ProcessResult> first_;
  std::string row_;
  std::uint64_t streamed_ = 0;
};

// One row per computer and timeline point: when, how busy, how much memory held.
std::string timeline_csv(const Prediction& p);

// The first processes (`first`, of `listed` in the output files), then the computers (at most `rows`)
// and the summary line.
void print_process_table(const Prediction& p, const std::vector<ProcessResult>& first, std::size_t listed,
                         std::size_t rows, std::FILE* os);

}  // namespace hetperf::sim
