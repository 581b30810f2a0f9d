// A process prediction's writers (prediction_report.hpp).
#include "hetperf/simulator/prediction_report.hpp"

#include <utility>

#include "hetperf/model/json_text.hpp"

namespace hetperf::sim {
namespace {

constexpr const char* kProcessCsvHeader =
    "name,computer,arrival_s,start_s,finish_s,response_s,cpu_s,memory_s,disk_s,network_s,sleep_s,waiting_s,"
    "migration_s,migrations";

void csv_row(CsvWriter& csv, const ProcessResult& r) {
  const auto& b = r.breakdown;
  csv << r.name << r.computer << r.arrival_s << r.start_s << r.finish_s << r.response_s << b.cpu_s << b.memory_s
      << b.disk_s << b.network_s << b.sleep_s << b.waiting_s << b.migration_s
      << (r.segments.empty() ? std::size_t{0} : r.segments.size() - 1);
  csv.end_row();
}

}  // namespace

ProcessRowWriter::ProcessRowWriter(RowOutputOptions options, AtomicFile& out, AtomicFile* csv)
    : options_(std::move(options)), out_(out), csv_(csv) {
  if (csv) {
    csv_rows_.emplace(kProcessCsvHeader);
    csv->write(csv_rows_->take());  // the header
  }
  if (!options_.summary_only) {
    json_spool_.emplace(out);
    if (csv) csv_spool_.emplace(*csv);
  }
}

void ProcessRowWriter::add(const ProcessResult& r, std::uint64_t index) {
  if (json_spool_) {
    row_.assign(json_array_separator(index));
    append_process_json_row(row_, r, index, options_.out);
    json_spool_->add(index, row_);
    if (index < options_.rows) {
      if (first_.size() <= index) first_.resize(index + 1);
      first_[index] = r;
    }
  }
  if (csv_rows_) {
    csv_row(*csv_rows_, r);
    if (csv_spool_)
      csv_spool_->add(index, csv_rows_->take());
    else if (++streamed_ % 4096 == 0)
      csv_->write(csv_rows_->take());
  }
}

void ProcessRowWriter::finish(const Prediction& p) {
  if (json_spool_) {
    // The document around the rows, cut where they go.
    const std::vector<std::string> pieces = split_json_output(to_json(p), {"processes"}, options_.out);
    out_.write(pieces[0]);
    json_spool_->copy_to(out_);
    out_.write(json_array_close(json_spool_->rows()));
    out_.write(pieces[1]);
  } else {
    out_.write(json_output_text(to_json(p), options_.out));
  }
  if (csv_spool_)
    csv_spool_->copy_to(*csv_);
  else if (csv_)
    csv_->write(csv_rows_->take());
}

std::string timeline_csv(const Prediction& p) {
  CsvWriter csv("computer,from_s,to_s,utilisation,memory_mb");
  for (const auto& c : p.computers) {
    const auto& t = c.timeline;
    for (std::size_t k = 0; k < t.utilisation.size(); ++k) {
      csv << c.name << static_cast<double>(k) * t.interval_s << static_cast<double>(k + 1) * t.interval_s
          << t.utilisation[k] << t.memory_mb[k];
      csv.end_row();
    }
  }
  return csv.str();
}

void print_process_table(const Prediction& p, const std::vector<ProcessResult>& first, std::size_t listed,
                         std::size_t rows, std::FILE* os) {
  std::fprintf(os, "%-16s %-14s %10s %10s %10s %9s %9s %9s %9s %9s\n", "process", "computer", "arrival_s", "finish_s",
               "response_s", "cpu_s", "memory_s", "disk_s", "net_s", "wait_s");
  for (const auto& r : first) {
    const auto& b = r.breakdown;
    std::fprintf(os, "%-16s %-14s %10.4f %10.4f %10.4f %9.4f %9.4f %9.4f %9.4f %9.4f\n", r.name.c_str(),
                 r.computer.c_str(), r.arrival_s, r.finish_s, r.response_s, b.cpu_s, b.memory_s, b.disk_s, b.network_s,
                 b.waiting_s);
  }
  if (listed > rows) std::fprintf(os, "... %zu more processes (all of them are in the output files)\n", listed - rows);
  std::fprintf(os, "\n%-16s %10s %11s %14s %10s\n", "computer", "processes", "utilisation", "peak_memory_mb", "busy_s");
  std::size_t shown = 0;
  for (const auto& c : p.computers) {
    if (shown++ == rows) {
      std::fprintf(os, "... %zu more computers\n", p.computers.size() - rows);
      break;
    }
    std::fprintf(os, "%-16s %10zu %11.3f %14.1f %10.4f\n", c.name.c_str(), c.processes, c.utilisation, c.peak_memory_mb,
                 c.busy_s);
  }
  const auto& s = p.summary;
  std::fprintf(
      os, "\n%zu processes, placement %s, seed %llu: mean response %.4f s, median %.4f s, p95 %.4f s, makespan %.4f s",
      s.processes, p.placement.c_str(), static_cast<unsigned long long>(p.seed), s.mean_response_s, s.median_response_s,
      s.p95_response_s, s.makespan_s);
  if (s.migrations > 0) std::fprintf(os, ", %llu migrations", static_cast<unsigned long long>(s.migrations));
  std::fprintf(os, " (%llu events)\n", static_cast<unsigned long long>(s.events));
}

}  // namespace hetperf::sim
