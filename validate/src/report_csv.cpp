// The validation's CSV report: one row per run (see reports.hpp).
#include "hetperf/validate/reports.hpp"

#include "hetperf/model/csv.hpp"

namespace hetperf::validate {
using namespace apps;

std::string validation_csv(const std::vector<ValidationRun>& runs) {
  CsvWriter csv(
      "id,group,app,ranks,n,r,variant,remove,after_iteration,processes,message_bytes,disk_bytes,steps,"
      "measured_s,predicted_s,error,samples");
  for (const auto& r : runs) {
    const AppJob& j = r.job;
    const bool lu = j.kind == AppJob::Kind::kLu;
    csv << r.id << r.group << (lu ? "lu" : "integrate") << r.ranks;
    if (lu) {
      csv << j.lu.n << j.lu.r << to_string(j.lu.variant) << j.lu.remove << j.lu.remove_after_iteration;
      csv.blank().blank().blank().blank();
    } else {
      csv.blank().blank().blank().blank().blank();
      csv << j.instances << j.integrate.message_bytes << j.integrate.disk_bytes << j.integrate.steps;
    }
    std::string samples;
    for (std::size_t k = 0; k < r.measured_samples_s.size(); ++k)
      samples += (k ? ";" : "") + csv_number(r.measured_samples_s[k]);
    csv << r.measured_s << r.predicted_s << r.error() << samples;
    csv.end_row();
  }
  return csv.str();
}

}  // namespace hetperf::validate
