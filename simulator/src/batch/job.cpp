// Parallel jobs: conversion of SWF records, and the sizes a malleable job may be resized to.
#include "hetperf/simulator/batch/job.hpp"

#include <algorithm>

namespace hetperf::sim::batch {
namespace {

bool divides(std::int64_t d, std::int64_t n) { return d >= 1 && n % d == 0; }

// ReSHAPE paper, section 3.1: "additional processors are added to the smallest row or column of the
// existing topology", each side dividing the problem size (Table 2: 2x2, 2x3, 3x3, 3x4, ...).
std::vector<std::int64_t> nearly_square_sequence(std::int64_t p0, std::int64_t n, std::int64_t limit) {
  std::int64_t rows = 0;
  for (std::int64_t r = 1; r * r <= p0; ++r) {
    if (p0 % r == 0 && divides(r, n) && divides(p0 / r, n)) rows = r;
  }
  if (rows == 0) return {p0};  // the start is not a grid of the problem: it stays where it is
  std::int64_t cols = p0 / rows;
  std::vector<std::int64_t> out{p0};
  while (true) {
    std::int64_t next = rows + 1;
    while (next <= limit && !divides(next, n)) ++next;
    if (next * cols > limit) break;
    rows = next;
    if (rows > cols) std::swap(rows, cols);
    out.push_back(rows * cols);
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> resize_configurations(const JobSpec& job) {
  if (job.kind != JobKind::kMalleable) return {job.processors};
  const ResizeSpec& r = job.resize;
  std::int64_t limit = r.max_processors > 0 ? r.max_processors : job.app->iteration_time_s.rbegin()->first;
  std::vector<std::int64_t> out;
  if (r.topology == Topology::kNearlySquare) {
    for (std::int64_t p : nearly_square_sequence(job.processors, r.problem_size, limit)) {
      if (job.app->supports(p)) out.push_back(p);
    }
    return out;
  }
  for (const auto& [p, t] : job.app->iteration_time_s) {
    if (p != job.processors && (p < r.min_processors || p > limit)) continue;
    if (p != job.processors && r.topology == Topology::kDivides && !divides(p, r.problem_size)) continue;
    out.push_back(p);
  }
  return out;
}

const char* to_string(SwfImportOptions::Procs p) {
  return p == SwfImportOptions::Procs::kRequested ? "requested" : "allocated";
}

std::vector<JobSpec> jobs_from_swf(const SwfTrace& trace, std::vector<SkippedJob>& skipped,
                                   const SwfImportOptions& options, SwfImportSummary* summary) {
  SwfImportSummary local;
  SwfImportSummary& s = summary ? *summary : local;
  s = SwfImportSummary{};
  s.procs = to_string(options.procs);
  s.kill_at_limit = options.kill_at_limit;
  std::vector<JobSpec> out;
  out.reserve(trace.records.size());
  for (std::size_t i = 0; i < trace.records.size(); ++i) {
    const SwfRecord& r = trace.records[i];
    JobSpec job;
    job.id = static_cast<std::int64_t>(r.get(kJobNumber));
    job.name = "job-" + std::to_string(job.id);
    job.where = trace.file + ":" + std::to_string(r.line);
    const bool requested = options.procs == SwfImportOptions::Procs::kRequested;
    const double chosen = r.get(requested ? kRequestedProcs : kAllocatedProcs);
    const double other = r.get(requested ? kAllocatedProcs : kRequestedProcs);
    const double procs = chosen >= 1 ? chosen : other;
    if (procs < 1) {
      // -1 is SWF's "missing"; 0 is a count, and says so.
      const auto given = [&](int field) {
        const double v = r.get(field);
        return "field " + std::to_string(field) + " (" + swf_field_name(field) + ") " +
               (v == -1 ? std::string("is missing") : "is " + std::to_string(static_cast<std::int64_t>(v)));
      };
      skipped.push_back(
          {job.id, job.name, job.where,
           "no processor count: " + given(kAllocatedProcs) + ", " + given(kRequestedProcs) + " (expected at least 1)"});
      continue;
    }
    if (r.missing(kRunTime)) {
      skipped.push_back({job.id, job.name, job.where, "no run time (field 4 is missing)"});
      continue;
    }
    job.kind = JobKind::kRigid;
    job.submit_s = std::max(0.0, r.get(kSubmitTime));
    job.processors = static_cast<std::int64_t>(procs);
    if (chosen < 1) ++s.procs_fallback;
    job.run_time_s = r.get(kRunTime);
    if (r.get(kRequestedTime) > 0) {
      job.requested_time_s = r.get(kRequestedTime);
      if (options.kill_at_limit && *job.run_time_s > *job.requested_time_s) {
        job.run_time_s = job.requested_time_s;
        ++s.killed_at_limit;
      }
    } else {
      ++s.without_requested_time;
    }
    job.swf_record = i;
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace hetperf::sim::batch
