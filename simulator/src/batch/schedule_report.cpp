// The schedule's writers and console table (schedule_report.hpp).
#include "hetperf/simulator/batch/schedule_report.hpp"

#include <filesystem>
#include <utility>

#include "hetperf/model/error.hpp"
#include "hetperf/model/gnuplot.hpp"
#include "hetperf/model/json_text.hpp"
#include "hetperf/model/process.hpp"

namespace hetperf::sim::batch {
namespace {

void print_jobs(const std::vector<JobResult>& first, std::size_t listed, std::size_t rows, std::FILE* os) {
  std::fprintf(os, "%-16s %-9s %10s %10s %10s %10s %12s %8s %5s %4s\n", "job", "type", "submit_s", "start_s", "end_s",
               "wait_s", "turnaround_s", "bsld", "procs", "rsz");
  for (const auto& j : first) {
    std::fprintf(os, "%-16s %-9s %10.1f %10.1f %10.1f %10.1f %12.1f %8.2f %5lld %4lld\n", j.name.c_str(),
                 to_string(j.kind), j.submit_s, j.start_s, j.end_s, j.wait_s, j.turnaround_s, j.bounded_slowdown,
                 static_cast<long long>(j.processors), static_cast<long long>(j.resizes));
  }
  if (listed > rows) std::fprintf(os, "... %zu more jobs (all of them are in the output files)\n", listed - rows);
}

}  // namespace

JobRowWriter::JobRowWriter(RowOutputOptions options, AtomicFile& out, AtomicFile* csv)
    : options_(std::move(options)), out_(out), csv_(csv) {
  if (options_.summary_only) {
    if (csv) csv_stream_.emplace(*csv);
    return;
  }
  json_spool_.emplace(out);
  if (csv) {
    csv_spool_.emplace(*csv);
    csv_rows_.emplace(job_csv_header());
    csv->write(csv_rows_->take());  // the header
  }
}

void JobRowWriter::add(const JobResult& job, std::size_t index) {
  if (csv_stream_) csv_stream_->add(job);
  if (!json_spool_) return;
  row_.assign(json_array_separator(index));
  append_job_json_row(row_, job, index, options_.out);
  json_spool_->add(index, row_);
  if (csv_spool_) {
    job_csv_row(*csv_rows_, job);
    csv_spool_->add(index, csv_rows_->take());
  }
  if (index < options_.rows) {
    if (first_.size() <= index) first_.resize(index + 1);
    first_[index] = job;
    first_[index].allocation = {};  // the table shows none of these
    first_[index].iterations = {};
  }
}

void JobRowWriter::finish(nlohmann::json j, ScheduleResult& r) {
  if (json_spool_) {
    // The document around the rows (jobs and utilisation set aside while it is made), cut where they go.
    std::vector<JobResult> jobs = std::move(r.jobs);
    std::vector<UtilisationStep> utilisation = std::move(r.utilisation);
    r.jobs.clear();
    r.utilisation.clear();
    j.update(to_json(r));
    r.jobs = std::move(jobs);
    r.utilisation = std::move(utilisation);
    const std::vector<std::string> pieces = split_json_output(j, {"jobs", "utilisation"}, options_.out);
    out_.write(pieces[0]);
    json_spool_->copy_to(out_);
    out_.write(json_array_close(json_spool_->rows()));
    out_.write(pieces[1]);
    std::string steps;
    for (std::size_t k = 0; k < r.utilisation.size(); ++k) {
      steps += json_array_separator(k);
      append_utilisation_json_row(steps, r.utilisation[k], k, options_.out);
      if (steps.size() >= (1u << 20)) out_.write(std::exchange(steps, std::string()));
    }
    out_.write(steps);
    out_.write(json_array_close(r.utilisation.size()));
    out_.write(pieces[2]);
  } else {
    j.update(to_json(r));
    out_.write(json_output_text(j, options_.out));
  }
  if (csv_stream_) csv_stream_->flush();
  if (csv_spool_) csv_spool_->copy_to(*csv_);
}

void print_schedule_table(const ScheduleResult& r, const std::vector<JobResult>& first, std::size_t listed,
                          std::size_t rows, std::FILE* os) {
  if (listed > 0) print_jobs(first, listed, rows, os);
  const auto& s = r.summary;
  std::fprintf(os,
               "\n%zu jobs on %lld processors, policy %s: mean wait %.1f s, mean turnaround %.1f s, mean bounded "
               "slowdown %.2f, makespan %.1f s, utilisation %.1f%%, %lld resizes\n",
               s.jobs, static_cast<long long>(r.processors), r.policy.c_str(), s.mean_wait_s, s.mean_turnaround_s,
               s.mean_bounded_slowdown, s.makespan_s, 100 * s.utilisation, static_cast<long long>(s.resizes));
  std::fprintf(os, "%-17s %12s %12s %12s %12s\n", "", "median", "p90", "p99", "max");
  for (const auto& [name, p] : {std::pair{"wait_s", s.wait_s}, std::pair{"turnaround_s", s.turnaround_s},
                                std::pair{"bounded_slowdown", s.bounded_slowdown}}) {
    std::fprintf(os, "%-17s %12.1f %12.1f %12.1f %12.1f\n", name, p.median, p.p90, p.p99, p.max);
  }
}

std::string add_schedule_plots(const ScheduleResult& r, const std::string& dir, std::size_t plot_jobs,
                               OutputSet& outputs) {
  const auto files = schedule_plot_files(r, plot_jobs);
  const std::filesystem::path d(dir);
  for (const auto& [name, text] : files) outputs.write(d / name, text, "--plot-dir");
  if (!find_on_path("gnuplot"))
    return "pictures skipped: gnuplot is not installed (data and script are in " + dir + ")";
  ScratchDir scratch("hetperf-plots");
  for (const auto& [name, text] : files) write_file_atomic(scratch.path() / name, text);
  try {
    run_gnuplot("plots.gp", scratch.path());
  } catch (const EnvironmentError& e) {
    return std::string("pictures skipped: ") + e.what();
  }
  for (const char* png : {"allocation.png", "busy.png"}) {
    outputs.write(d / png, read_text_file(scratch.path() / png), "--plot-dir");
  }
  return "wrote " + dir + "/allocation.png and " + dir + "/busy.png";
}

}  // namespace hetperf::sim::batch
