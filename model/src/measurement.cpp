// Measurement file reader and writer.
#include "hetperf/model/measurement.hpp"

#include <algorithm>

#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/version.hpp"

namespace hetperf {
namespace {

// A summary whose mean must lie in `range` (throughputs and rates are positive, times non-negative).
SampleSummary summary(const JsonNode& parent, std::string_view key, Range range) {
  SampleSummary s = sample_summary_from_json(parent.object(key));
  if (auto bad = range_violation(s.mean, range)) parent.object(key).field("mean").fail(*bad);
  return s;
}

nlohmann::json time_slice_to_json(const TimeSliceMeasurement& t) {
  return {{"processes", t.processes}, {"seconds", t.seconds}, {"gaps_s", to_json(t.gap_s)}, {"slice_s", t.slice_s}};
}

TimeSliceMeasurement time_slice_from_json(const JsonNode& t) {
  t.known_fields({"processes", "seconds", "gaps_s", "slice_s"});
  TimeSliceMeasurement ts;
  ts.processes = static_cast<int>(t.integer("processes", 2, 1 << 16));
  ts.seconds = t.number("seconds", Range::kPositive);
  ts.gap_s = summary(t, "gaps_s", Range::kPositive);
  ts.slice_s = t.number("slice_s", Range::kPositive);
  if (ts.slice_s < TimeSliceMeasurement::kMinSliceS || ts.slice_s > TimeSliceMeasurement::kMaxSliceS) {
    t.field("slice_s").fail("a time slice of 1e-5 to 1 s");
  }
  return ts;
}

nlohmann::json page_retouch_to_json(const PageRetouchMeasurement& r) {
  nlohmann::json j = {{"pages", r.pages},
                      {"rounds", r.rounds},
                      {"gaps_s", r.gaps_s},
                      {"touch_s", r.touch_s},
                      {"samples_s", r.samples_s}};
  if (r.cap_pages > 0) {
    j["cap_pages"] = r.cap_pages;
    j["cap_touch_s"] = r.cap_touch_s;
    j["cap_samples_s"] = r.cap_samples_s;
  }
  return j;
}

// One buffer's passes: per gap its median (`touch`) and its rounds' times (`samples`).
void passes_from_json(const JsonNode& n, const char* touch, const char* samples, std::size_t gaps,
                      std::vector<double>& medians, std::vector<std::vector<double>>& rounds) {
  for (const JsonNode& t : n.array(touch)) medians.push_back(t.as_number(Range::kNonNegative));
  if (medians.size() != gaps) n.field(touch).fail("one median time per gap");
  for (const JsonNode& per : n.array(samples)) {
    rounds.emplace_back();
    for (const JsonNode& t : per.items()) rounds.back().push_back(t.as_number(Range::kNonNegative));
  }
  if (rounds.size() != gaps) n.field(samples).fail("one list of times per gap");
}

// Up to 64 gaps of at most 10 s, ascending from 0; per gap a median and its rounds' times.
PageRetouchMeasurement page_retouch_from_json(const JsonNode& n) {
  n.known_fields({"pages", "rounds", "gaps_s", "touch_s", "samples_s", "cap_pages", "cap_touch_s", "cap_samples_s"});
  PageRetouchMeasurement r;
  r.pages = static_cast<std::uint64_t>(n.integer("pages", 1, 1 << 24));
  r.rounds = static_cast<int>(n.integer("rounds", 1, 100000));
  for (const JsonNode& g : n.array("gaps_s", 2)) {
    const double gap = g.as_number(Range::kNonNegative);
    const bool ascending = r.gaps_s.empty() ? gap == 0 : gap > r.gaps_s.back();
    if (!ascending || gap > 10 || r.gaps_s.size() == 64) g.fail("up to 64 gaps ascending from 0 to at most 10 s");
    r.gaps_s.push_back(gap);
  }
  passes_from_json(n, "touch_s", "samples_s", r.gaps_s.size(), r.touch_s, r.samples_s);
  if (!n.has("cap_pages")) return r;
  r.cap_pages = static_cast<std::uint64_t>(n.integer("cap_pages", 1, 1 << 24));
  passes_from_json(n, "cap_touch_s", "cap_samples_s", r.gaps_s.size(), r.cap_touch_s, r.cap_samples_s);
  return r;
}

}  // namespace

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json probes = nlohmann::json::object();
  if (m.cpu) {
    probes["cpu"] = {{"settings", m.cpu->settings},
                     {"mips", to_json(m.cpu->mips)},
                     {"mips_method", m.cpu->mips_method},
                     {"mflops", to_json(m.cpu->mflops)}};
    if (!m.cpu->kernels.empty()) {
      nlohmann::json kernels = nlohmann::json::array();
      for (const auto& k : m.cpu->kernels) {
        kernels.push_back({{"kernel", k.kernel}, {"block", k.block}, {"rows", k.rows}, {"time_s", to_json(k.time_s)}});
      }
      probes["cpu"]["kernels"] = kernels;
    }
    if (m.cpu->integration_step_s) probes["cpu"]["integration_step_s"] = to_json(*m.cpu->integration_step_s);
    if (const auto& c = m.cpu->concurrency) {
      probes["cpu"]["concurrency"] = {
          {"rows", c->rows}, {"block", c->block}, {"calls_per_s", c->rates}, {"speed", c->speed}};
    }
    if (const auto& r = m.cpu->page_retouch) probes["cpu"]["page_retouch"] = page_retouch_to_json(*r);
    if (const auto& t = m.cpu->time_slice) probes["cpu"]["time_slice"] = time_slice_to_json(*t);
  }
  if (m.memory) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : m.memory->points) {
      nlohmann::json j = {{"occupied_mb", p.occupied_mb}, {"slowdown", to_json(p.slowdown)}};
      if (p.reference_major_faults) j["reference_major_faults"] = *p.reference_major_faults;
      if (p.cgroup_major_faults) j["cgroup_major_faults"] = *p.cgroup_major_faults;
      if (p.swap_used_mb) j["swap_used_mb"] = *p.swap_used_mb;
      if (p.charged_mb) j["charged_mb"] = *p.charged_mb;
      if (p.duration_s) j["duration_s"] = *p.duration_s;
      if (p.transient_rounds) j["transient_rounds"] = *p.transient_rounds;
      if (p.settle_rounds) j["settle_rounds"] = *p.settle_rounds;
      if (p.device_read_s) j["device_read_s"] = *p.device_read_s;
      if (p.device_scale) j["device_scale"] = *p.device_scale;
      if (p.spell_correction) j["spell_correction"] = *p.spell_correction;
      points.push_back(j);
    }
    probes["memory"] = {
        {"settings", m.memory->settings},
        {"main_memory_mb", m.memory->main_memory_mb ? nlohmann::json(*m.memory->main_memory_mb) : nlohmann::json()},
        {"swap_mb", m.memory->swap_mb},
        {"swap_measured", m.memory->swap_measured},
        {"confinement", m.memory->confinement},
        {"points", points},
        {"notes", m.memory->notes}};
    if (m.memory->reference_idle_s) probes["memory"]["reference_idle_s"] = to_json(*m.memory->reference_idle_s);
    if (m.memory->knee_slowdown) probes["memory"]["knee_slowdown"] = *m.memory->knee_slowdown;
    if (m.memory->knee_mb) probes["memory"]["knee_mb"] = *m.memory->knee_mb;
  }
  if (m.disk) {
    probes["disk"] = {{"settings", m.disk->settings},
                      {"directory", m.disk->directory},
                      {"direct_io", m.disk->direct_io},
                      {"write_buffered_bytes_per_s", to_json(m.disk->write_buffered_bytes_per_s)},
                      {"write_direct_bytes_per_s", to_json(m.disk->write_direct_bytes_per_s)},
                      {"read_direct_bytes_per_s", to_json(m.disk->read_direct_bytes_per_s)},
                      {"notes", m.disk->notes}};
    if (!m.disk->buffer_sweep.empty()) {
      nlohmann::json sweep = nlohmann::json::array();
      for (const auto& p : m.disk->buffer_sweep) {
        sweep.push_back({{"buffer_bytes", p.buffer_bytes},
                         {"write_bytes_per_s", to_json(p.write_bytes_per_s)},
                         {"read_bytes_per_s", to_json(p.read_bytes_per_s)}});
      }
      probes["disk"]["buffer_sweep"] = sweep;
    }
  }
  if (m.net) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : m.net->pingpong) {
      points.push_back({{"size_bytes", p.size_bytes}, {"one_way_s", to_json(p.one_way_s)}});
      if (p.send_s) points.back()["send_s"] = to_json(*p.send_s);
    }
    probes["net"] = {
        {"settings", m.net->settings}, {"transport", m.net->transport}, {"hosts", m.net->hosts}, {"pingpong", points}};
    if (m.net->bandwidth_bytes_per_s) probes["net"]["bandwidth_bytes_per_s"] = *m.net->bandwidth_bytes_per_s;
    for (const BusySend& b : m.net->busy_sends) {
      probes["net"]["busy_sends"].push_back(
          {{"size_bytes", b.size_bytes}, {"receiver_busy_s", b.receiver_busy_s}, {"send_s", to_json(b.send_s)}});
    }
    if (const auto& g = m.net->loggp) {
      probes["net"]["loggp"] = {{"small_size_bytes", g->small_size_bytes},
                                {"large_size_bytes", g->large_size_bytes},
                                {"send_overhead_s", to_json(g->send_overhead_s)},
                                {"receive_overhead_s", to_json(g->receive_overhead_s)},
                                {"gap_s", to_json(g->gap_s)},
                                {"gap_per_byte_s", g->gap_per_byte_s},
                                {"latency_s", g->latency_s}};
    }
    if (const auto& h = m.net->handoff) {
      nlohmann::json& j = probes["net"]["handoff"];
      j = {{"cores", h->cores},
           {"bytes", h->bytes},
           {"period_oversubscribed_s", to_json(h->period_oversubscribed_s)},
           {"handoff_s", h->handoff_s}};
      if (h->period_at_cores_s) j["period_at_cores_s"] = to_json(*h->period_at_cores_s);
    }
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : m.skipped) skipped.push_back({{"probe", s.probe}, {"reason", s.reason}});
  nlohmann::json j = {{"schema", "hetperf.measurement/" + std::to_string(kMeasurementSchemaVersion)},
                      {"hetperf_version", m.hetperf_version.empty() ? kVersion : m.hetperf_version},
                      {"command", m.command},
                      {"machine", m.machine},
                      {"complete", m.complete},
                      {"host", to_json(m.host)},
                      {"probes", probes},
                      {"skipped", skipped}};
  if (m.run_usage) j["run_usage"] = to_json(*m.run_usage);
  return j;
}

Measurement measurement_from_json(const nlohmann::json& j, const std::string& file) {
  JsonNode root(j, file);
  if (!root.is_object()) root.fail("a JSON object (a hetperf.measurement file)");
  root.schema("measurement", kMeasurementSchemaVersion);
  root.known_fields(
      {"schema", "hetperf_version", "command", "machine", "complete", "host", "probes", "skipped", "run_usage"});
  Measurement m;
  m.hetperf_version = root.string_or("hetperf_version", "");
  m.command = root.string_or("command", "");
  m.host = host_info_from_json(root.object("host"));
  m.machine = root.string_or("machine", m.host.hostname);
  if (m.machine.empty()) root.field("machine").fail("a non-empty machine name");
  m.complete = root.boolean_or("complete", true);
  JsonNode probes = root.object("probes");
  probes.known_fields({"cpu", "memory", "disk", "net"});
  if (auto cpu = probes.optional("cpu")) {
    cpu->known_fields({"settings", "mips", "mips_method", "mflops", "kernels", "integration_step_s", "concurrency",
                       "time_slice", "page_retouch"});
    CpuMeasurement c;
    if (auto s = cpu->optional("settings")) c.settings = s->value();
    c.mips = summary(*cpu, "mips", Range::kPositive);
    c.mips_method = cpu->string_or("mips_method", "");
    c.mflops = summary(*cpu, "mflops", Range::kPositive);
    if (auto kernels = cpu->optional("kernels")) {
      for (const JsonNode& k : kernels->items()) {
        k.known_fields({"kernel", "block", "rows", "time_s"});
        c.kernels.push_back({k.choice("kernel", {"dgemm", "dtrsm", "dgetrf", "dlaswp"}),
                             static_cast<std::uint64_t>(k.integer("block", 1, 1 << 20)),
                             static_cast<std::uint64_t>(k.integer_or("rows", 0, 0, 1 << 30)),
                             summary(k, "time_s", Range::kPositive)});
      }
    }
    if (cpu->has("integration_step_s")) c.integration_step_s = summary(*cpu, "integration_step_s", Range::kPositive);
    if (auto k = cpu->optional("concurrency")) {
      k->known_fields({"rows", "block", "calls_per_s", "speed"});
      ConcurrencyMeasurement cm;
      cm.rows = static_cast<std::uint64_t>(k->integer("rows", 1, 1 << 30));
      cm.block = static_cast<std::uint64_t>(k->integer("block", 1, 1 << 20));
      for (const JsonNode& per : k->array("calls_per_s")) {
        cm.rates.emplace_back();
        for (const JsonNode& x : per.items()) cm.rates.back().push_back(x.as_number(Range::kNonNegative));
      }
      for (const JsonNode& x : k->array("speed", 1)) {
        const double v = x.as_number(Range::kPositive);
        if (v > 1) x.fail("a speed relative to one copy alone, in (0, 1]");
        cm.speed.push_back(v);
      }
      if (cm.speed.size() > static_cast<std::size_t>(m.host.cores))
        k->field("speed").fail("at most one speed per core");
      c.concurrency = std::move(cm);
    }
    if (auto t = cpu->optional("time_slice")) c.time_slice = time_slice_from_json(*t);
    if (auto r = cpu->optional("page_retouch")) c.page_retouch = page_retouch_from_json(*r);
    m.cpu = c;
  }
  if (auto mem = probes.optional("memory")) {
    mem->known_fields({"settings", "main_memory_mb", "swap_mb", "swap_measured", "confinement", "points", "notes",
                       "reference_idle_s", "knee_slowdown", "knee_mb"});
    MemoryMeasurement mm;
    if (auto s = mem->optional("settings")) mm.settings = s->value();
    if (mem->has("main_memory_mb")) mm.main_memory_mb = mem->number("main_memory_mb", Range::kPositive);
    mm.swap_mb = mem->number_or("swap_mb", 0, Range::kNonNegative);
    mm.swap_measured = mem->boolean_or("swap_measured", false);
    mm.confinement = mem->string_or("confinement", "");
    double previous = -1;
    for (const JsonNode& p : mem->array("points")) {
      p.known_fields({"occupied_mb", "slowdown", "reference_major_faults", "cgroup_major_faults", "swap_used_mb",
                      "charged_mb", "duration_s", "transient_rounds", "settle_rounds", "device_read_s", "device_scale",
                      "spell_correction"});
      MemoryPoint point{p.number("occupied_mb", Range::kNonNegative), summary(p, "slowdown", Range::kAny)};
      if (p.has("reference_major_faults"))
        point.reference_major_faults = p.number("reference_major_faults", Range::kNonNegative);
      if (p.has("cgroup_major_faults"))
        point.cgroup_major_faults = p.number("cgroup_major_faults", Range::kNonNegative);
      if (p.has("swap_used_mb")) point.swap_used_mb = p.number("swap_used_mb", Range::kNonNegative);
      if (p.has("charged_mb")) point.charged_mb = p.number("charged_mb", Range::kNonNegative);
      if (p.has("duration_s")) point.duration_s = p.number("duration_s", Range::kNonNegative);
      if (p.has("transient_rounds")) point.transient_rounds = p.number("transient_rounds", Range::kNonNegative);
      if (p.has("settle_rounds")) point.settle_rounds = p.number("settle_rounds", Range::kNonNegative);
      if (p.has("device_read_s")) point.device_read_s = p.number("device_read_s", Range::kPositive);
      if (p.has("device_scale")) point.device_scale = p.number("device_scale", Range::kPositive);
      if (p.has("spell_correction")) point.spell_correction = p.number("spell_correction", Range::kNonNegative);
      if (point.occupied_mb <= previous) p.field("occupied_mb").fail("occupations in strictly ascending order");
      previous = point.occupied_mb;
      mm.points.push_back(point);
    }
    if (auto notes = mem->optional("notes")) {
      for (const auto& n : notes->items()) mm.notes.push_back(n.as_string());
    }
    if (mem->has("reference_idle_s")) mm.reference_idle_s = summary(*mem, "reference_idle_s", Range::kPositive);
    if (mem->has("knee_slowdown")) mm.knee_slowdown = mem->number("knee_slowdown", Range::kPositive);
    if (mem->has("knee_mb")) mm.knee_mb = mem->number("knee_mb", Range::kNonNegative);
    m.memory = mm;
  }
  if (auto disk = probes.optional("disk")) {
    disk->known_fields({"settings", "directory", "direct_io", "write_buffered_bytes_per_s", "write_direct_bytes_per_s",
                        "read_direct_bytes_per_s", "notes", "buffer_sweep"});
    DiskMeasurement d;
    if (auto s = disk->optional("settings")) d.settings = s->value();
    d.directory = disk->string_or("directory", "");
    d.direct_io = disk->boolean_or("direct_io", false);
    d.write_buffered_bytes_per_s = summary(*disk, "write_buffered_bytes_per_s", Range::kPositive);
    d.write_direct_bytes_per_s = summary(*disk, "write_direct_bytes_per_s", Range::kPositive);
    d.read_direct_bytes_per_s = summary(*disk, "read_direct_bytes_per_s", Range::kPositive);
    if (auto notes = disk->optional("notes")) {
      for (const auto& n : notes->items()) d.notes.push_back(n.as_string());
    }
    if (auto sweep = disk->optional("buffer_sweep")) {
      for (const JsonNode& p : sweep->items()) {
        p.known_fields({"buffer_bytes", "write_bytes_per_s", "read_bytes_per_s"});
        DiskMeasurement::BufferPoint point;
        point.buffer_bytes = static_cast<std::uint64_t>(p.integer("buffer_bytes", 1, INT64_MAX));
        if (!d.buffer_sweep.empty() && point.buffer_bytes <= d.buffer_sweep.back().buffer_bytes) {
          p.field("buffer_bytes").fail("buffer sizes in strictly ascending order");
        }
        point.write_bytes_per_s = summary(p, "write_bytes_per_s", Range::kPositive);
        point.read_bytes_per_s = summary(p, "read_bytes_per_s", Range::kPositive);
        d.buffer_sweep.push_back(point);
      }
    }
    m.disk = d;
  }
  if (auto net = probes.optional("net")) {
    net->known_fields(
        {"settings", "transport", "hosts", "pingpong", "bandwidth_bytes_per_s", "loggp", "handoff", "busy_sends"});
    NetMeasurement n;
    if (auto s = net->optional("settings")) n.settings = s->value();
    n.transport = net->string_or("transport", "mpi");
    if (auto hosts = net->optional("hosts")) {
      for (const auto& h : hosts->items()) n.hosts.push_back(h.as_string());
    }
    std::uint64_t previous = 0;
    for (const JsonNode& p : net->array("pingpong", 1)) {
      p.known_fields({"size_bytes", "one_way_s", "send_s"});
      PingPongPoint point;
      point.size_bytes = static_cast<std::uint64_t>(p.integer("size_bytes", 0, INT64_MAX));
      if (!n.pingpong.empty() && point.size_bytes <= previous) {
        p.field("size_bytes").fail("sizes in strictly ascending order");
      }
      previous = point.size_bytes;
      point.one_way_s = summary(p, "one_way_s", Range::kPositive);
      if (p.has("send_s")) point.send_s = summary(p, "send_s", Range::kNonNegative);
      n.pingpong.push_back(point);
    }
    if (net->has("bandwidth_bytes_per_s"))
      n.bandwidth_bytes_per_s = net->number("bandwidth_bytes_per_s", Range::kPositive);
    if (auto g = net->optional("loggp")) {
      g->known_fields({"small_size_bytes", "large_size_bytes", "send_overhead_s", "receive_overhead_s", "gap_s",
                       "gap_per_byte_s", "latency_s"});
      LogGPParameters p;
      p.small_size_bytes = static_cast<std::uint64_t>(g->integer("small_size_bytes", 0, INT64_MAX));
      p.large_size_bytes = static_cast<std::uint64_t>(g->integer("large_size_bytes", 0, INT64_MAX));
      p.send_overhead_s = summary(*g, "send_overhead_s", Range::kNonNegative);
      p.receive_overhead_s = summary(*g, "receive_overhead_s", Range::kNonNegative);
      p.gap_s = summary(*g, "gap_s", Range::kNonNegative);
      p.gap_per_byte_s = g->number("gap_per_byte_s", Range::kAny);
      p.latency_s = g->number("latency_s", Range::kNonNegative);
      n.loggp = p;
    }
    if (auto busy = net->optional("busy_sends")) {
      for (const JsonNode& b : busy->items()) {
        b.known_fields({"size_bytes", "receiver_busy_s", "send_s"});
        BusySend send;
        send.size_bytes = static_cast<std::uint64_t>(b.integer("size_bytes", 1, INT64_MAX));
        if (!n.busy_sends.empty() && send.size_bytes <= n.busy_sends.back().size_bytes) {
          b.field("size_bytes").fail("sizes in strictly ascending order");
        }
        send.receiver_busy_s = b.number("receiver_busy_s", Range::kPositive);
        if (send.receiver_busy_s > 1e3) b.field("receiver_busy_s").fail("a number of seconds in (0, 1000]");
        send.send_s = summary(b, "send_s", Range::kNonNegative);
        n.busy_sends.push_back(send);
      }
    }
    if (auto h = net->optional("handoff")) {
      h->known_fields({"cores", "bytes", "period_at_cores_s", "period_oversubscribed_s", "handoff_s"});
      HandoffMeasurement x;
      x.cores = static_cast<int>(h->integer("cores", 1, 1 << 20));
      x.bytes = static_cast<std::uint64_t>(h->integer("bytes", 1, INT64_MAX));
      if (x.cores > 1) x.period_at_cores_s = summary(*h, "period_at_cores_s", Range::kPositive);
      x.period_oversubscribed_s = summary(*h, "period_oversubscribed_s", Range::kPositive);
      x.handoff_s = h->number("handoff_s", Range::kNonNegative);
      n.handoff = x;
    }
    m.net = n;
  }
  if (auto skipped = root.optional("skipped")) {
    for (const JsonNode& s : skipped->items()) {
      s.known_fields({"probe", "reason"});
      m.skipped.push_back({s.string("probe"), s.string("reason")});
    }
  }
  if (auto u = root.optional("run_usage")) m.run_usage = run_usage_from_json(*u);
  return m;
}

Measurement read_measurement(const std::filesystem::path& path) {
  return measurement_from_json(read_json_file(path), path.string());
}

double handoff_from_fanout(int cores, std::optional<double> period_at_cores_s, double period_oversubscribed_s) {
  const double per_message_alone = cores > 1 && period_at_cores_s ? *period_at_cores_s / (cores - 1) : 0.0;
  return std::max(0.0, period_oversubscribed_s / (2 * cores - 1) - per_message_alone);
}

}  // namespace hetperf
