// The schedule's JSON, CSV and SWF renderings.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/json_text.hpp"
#include "hetperf/simulator/batch/schedule.hpp"

namespace hetperf::sim::batch {
nlohmann::json job_json(const JobResult& r) {
  nlohmann::json allocation = nlohmann::json::array();
  for (const auto& a : r.allocation) allocation.push_back({a.time_s, a.processors});
  nlohmann::json j = {{"id", r.id},
                      {"name", r.name},
                      {"type", to_string(r.kind)},
                      {"submit_s", r.submit_s},
                      {"start_s", r.start_s},
                      {"end_s", r.end_s},
                      {"wait_s", r.wait_s},
                      {"run_s", r.run_s},
                      {"turnaround_s", r.turnaround_s},
                      {"bounded_slowdown", r.bounded_slowdown},
                      {"processors", r.processors},
                      {"max_processors", r.max_processors},
                      {"estimate_s", r.estimate_s},
                      {"slowest_speed", r.slowest_speed},
                      {"processor_seconds", r.processor_seconds},
                      {"resizes", r.resizes},
                      {"allocation", allocation}};
  if (r.kind == JobKind::kMalleable) {
    nlohmann::json its = nlohmann::json::array();
    for (const auto& it : r.iterations) {
      its.push_back({{"iteration", it.iteration},
                     {"processors", it.processors},
                     {"start_s", it.start_s},
                     {"iteration_time_s", it.iteration_time_s},
                     {"redistribution_s", it.redistribution_s}});
    }
    j["iterations"] = its;
  }
  return j;
}

void append_job_json_row(std::string& out, const JobResult& r, std::size_t index, const std::string& file) {
  // job_json's fields, keys in the sorted order nlohmann writes them in.
  const std::size_t start = out.size();
  JsonText w(out, 2);
  w.begin_object().key("allocation").begin_array();
  for (const auto& a : r.allocation) w.begin_array().value(a.time_s).value(a.processors).end_array();
  w.end_array();
  w.key("bounded_slowdown").value(r.bounded_slowdown).key("end_s").value(r.end_s).key("estimate_s").value(r.estimate_s);
  w.key("id").value(r.id);
  if (r.kind == JobKind::kMalleable) {
    w.key("iterations").begin_array();
    for (const auto& it : r.iterations) {
      w.begin_object().key("iteration").value(it.iteration).key("iteration_time_s").value(it.iteration_time_s);
      w.key("processors").value(it.processors).key("redistribution_s").value(it.redistribution_s);
      w.key("start_s").value(it.start_s).end_object();
    }
    w.end_array();
  }
  w.key("max_processors").value(r.max_processors).key("name").value(r.name);
  w.key("processor_seconds").value(r.processor_seconds).key("processors").value(r.processors);
  w.key("resizes").value(r.resizes).key("run_s").value(r.run_s).key("slowest_speed").value(r.slowest_speed);
  w.key("start_s").value(r.start_s).key("submit_s").value(r.submit_s).key("turnaround_s").value(r.turnaround_s);
  w.key("type").value(to_string(r.kind)).key("wait_s").value(r.wait_s).end_object();
  if (!w.finite()) {
    out.resize(start);
    check_finite_output(job_json(r), file, "$.jobs[" + std::to_string(index) + "]");
  }
}

void append_utilisation_json_row(std::string& out, const UtilisationStep& u, std::size_t index,
                                 const std::string& file) {
  const std::size_t start = out.size();
  JsonText w(out, 2);
  w.begin_array().value(u.time_s).value(u.busy).end_array();
  if (!w.finite()) {
    out.resize(start);
    check_finite_output(nlohmann::json{u.time_s, u.busy}, file, "$.utilisation[" + std::to_string(index) + "]");
  }
}

nlohmann::json to_json(const ScheduleResult& result) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& r : result.jobs) jobs.push_back(job_json(r));
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : result.skipped) {
    skipped.push_back({{"id", s.id}, {"name", s.name}, {"where", s.where}, {"reason", s.reason}});
  }
  nlohmann::json utilisation = nlohmann::json::array();
  for (const auto& u : result.utilisation) utilisation.push_back({u.time_s, u.busy});
  const ScheduleSummary& s = result.summary;
  nlohmann::json out = {{"schema", "hetperf.schedule/" + std::to_string(kScheduleSchemaVersion)},
                        {"policy", result.policy},
                        {"processors", result.processors},
                        {"summary",
                         {{"jobs", s.jobs},
                          {"skipped", s.skipped},
                          {"mean_wait_s", s.mean_wait_s},
                          {"mean_turnaround_s", s.mean_turnaround_s},
                          {"mean_bounded_slowdown", s.mean_bounded_slowdown},
                          {"max_bounded_slowdown", s.max_bounded_slowdown},
                          {"median_wait_s", s.wait_s.median},
                          {"p90_wait_s", s.wait_s.p90},
                          {"p99_wait_s", s.wait_s.p99},
                          {"max_wait_s", s.wait_s.max},
                          {"median_turnaround_s", s.turnaround_s.median},
                          {"p90_turnaround_s", s.turnaround_s.p90},
                          {"p99_turnaround_s", s.turnaround_s.p99},
                          {"max_turnaround_s", s.turnaround_s.max},
                          {"median_bounded_slowdown", s.bounded_slowdown.median},
                          {"p90_bounded_slowdown", s.bounded_slowdown.p90},
                          {"p99_bounded_slowdown", s.bounded_slowdown.p99},
                          {"slowdown_threshold_s", s.slowdown_threshold_s},
                          {"first_submit_s", s.first_submit_s},
                          {"last_end_s", s.last_end_s},
                          {"makespan_s", s.makespan_s},
                          {"utilisation", s.utilisation},
                          {"resizes", s.resizes},
                          {"events", s.events}}},
                        {"jobs", jobs},
                        {"skipped", skipped},
                        {"utilisation", utilisation}};
  if (!result.warnings.empty()) out["warnings"] = result.warnings;
  if (const auto& i = result.swf_import) {
    out["summary"]["swf_import"] = {{"procs", i->procs},
                                    {"kill_at_limit", i->kill_at_limit},
                                    {"killed_at_limit", i->killed_at_limit},
                                    {"without_requested_time", i->without_requested_time},
                                    {"procs_fallback", i->procs_fallback}};
  }
  return out;
}

namespace {

constexpr const char* kJobCsvHeader =
    "id,name,type,submit_s,start_s,end_s,wait_s,run_s,turnaround_s,bounded_slowdown,processors,max_processors,"
    "estimate_s,processor_seconds,resizes";

// Rows gathered before each write to the temporary file.
constexpr std::size_t kRowsPerWrite = 4096;

}  // namespace

std::string job_csv_header() { return kJobCsvHeader; }

void job_csv_row(CsvWriter& csv, const JobResult& r) {
  csv << r.id << r.name << to_string(r.kind) << r.submit_s << r.start_s << r.end_s << r.wait_s << r.run_s
      << r.turnaround_s << r.bounded_slowdown << r.processors << r.max_processors << r.estimate_s << r.processor_seconds
      << r.resizes;
  csv.end_row();
}

std::string to_csv(const ScheduleResult& result) {
  CsvWriter csv(kJobCsvHeader);
  for (const auto& r : result.jobs) job_csv_row(csv, r);
  return csv.str();
}

JobCsvStream::JobCsvStream(AtomicFile& file) : file_(file), csv_(kJobCsvHeader) {}

void JobCsvStream::add(const JobResult& job) {
  job_csv_row(csv_, job);
  if (++rows_ % kRowsPerWrite == 0) file_.write(csv_.take());
}

void JobCsvStream::flush() { file_.write(csv_.take()); }

std::string allocation_csv(const ScheduleResult& result) {
  CsvWriter csv("id,name,time_s,processors");
  for (const auto& r : result.jobs) {
    for (const auto& a : r.allocation) {
      csv << r.id << r.name << a.time_s << a.processors;
      csv.end_row();
    }
  }
  return csv.str();
}

SwfTrace to_swf(const ScheduleResult& result, const SwfTrace* source) {
  SwfTrace out;
  if (source) out.header = source->header;
  out.header.push_back(" hetperf schedule: simulated with policy " + result.policy + " on " +
                       std::to_string(result.processors) + " processors");
  out.max_procs = source ? source->max_procs : std::nullopt;
  out.max_nodes = source ? source->max_nodes : std::nullopt;
  if (!out.max_procs) {
    // Jobs from a workload file: give the trace the standard header, so it reads back with its size.
    out.header.push_back(" MaxProcs: " + std::to_string(result.processors));
    out.max_procs = result.processors;
  }
  out.records.reserve(result.jobs.size());
  for (const auto& r : result.jobs) {
    SwfRecord rec;
    if (source && r.swf_record)
      rec = source->records[*r.swf_record];
    else
      rec.fields.fill(-1);
    rec.line = 0;
    rec.set(kJobNumber, static_cast<double>(r.id));
    rec.set(kSubmitTime, r.submit_s);
    rec.set(kWaitTime, r.wait_s);
    rec.set(kRunTime, r.run_s);
    rec.set(kAllocatedProcs, static_cast<double>(r.processors));
    if (rec.missing(kRequestedProcs)) rec.set(kRequestedProcs, static_cast<double>(r.processors));
    if (rec.missing(kRequestedTime)) rec.set(kRequestedTime, r.estimate_s);
    rec.set(kStatus, 1);
    out.records.push_back(rec);
  }
  return out;
}

}  // namespace hetperf::sim::batch
