// A schedule's writers, apart from the scheduler that makes it: the JSON and CSV rows as jobs finish
// (JobRowWriter), the pictures, and the table on the console.
//
//   OutputSet outputs;
//   AtomicFile& out = outputs.add("schedule.json", "--out");
//   batch::JobRowWriter rows({"schedule.json", false, 20}, out, nullptr);
//   output.on_job = [&rows](const batch::JobResult& job, std::size_t i) { rows.add(job, i); };
//   batch::ScheduleResult r = batch::simulate_schedule(cluster, jobs, options, {}, output);
//   rows.finish({{"command", command_line}}, r);
//   outputs.commit();
//   batch::print_schedule_table(r, rows.first(), rows.listed(), 20, stdout);
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/row_spool.hpp"
#include "hetperf/simulator/batch/schedule.hpp"

namespace hetperf::sim::batch {

// Each job's rows as it finishes (ScheduleOutput::on_job). With summary_only the CSV gets them in
// finish order, straight into its temporary file. Otherwise the JSON and the CSV list them in input
// order: they go to spools beside their files (finish order), copied in order at the end, and the
// first `rows` are kept for the console table.
class JobRowWriter {
 public:
  JobRowWriter(RowOutputOptions options, AtomicFile& out, AtomicFile* csv);

  void add(const JobResult& job, std::size_t index);
  // The JSON document (`j`, the provenance, and the result) around the spooled rows, and the CSV's rows.
  void finish(nlohmann::json j, ScheduleResult& r);

  const std::vector<JobResult>& first() const { return first_; }
  std::size_t listed() const { return json_spool_ ? json_spool_->rows() : 0; }

 private:
  RowOutputOptions options_;
  AtomicFile& out_;
  AtomicFile* csv_;
  std::optional<JobCsvStream> csv_stream_;
  std::optional<RowSpool> json_spool_, csv_spool_;
  std::optional<CsvWriter> csv_rows_;
  std::vector<JobResult> first_;
  std::string row_;
};

// The first jobs (`first`, of `listed` in the output files; at most `rows` shown), the summary line and
// the wait, turnaround and bounded slowdown percentiles.
void print_schedule_table(const ScheduleResult& r, const std::vector<JobResult>& first, std::size_t listed,
                          std::size_t rows, std::FILE* os);

// The schedule's pictures (schedule_plot_files) added to `outputs` in `dir`: the data and script, and
// the PNGs when gnuplot is installed, drawn in a scratch directory so that they join the set. Returns
// what to tell the user once the set is written.
std::string add_schedule_plots(const ScheduleResult& r, const std::string& dir, std::size_t plot_jobs,
                               OutputSet& outputs);

}  // namespace hetperf::sim::batch
