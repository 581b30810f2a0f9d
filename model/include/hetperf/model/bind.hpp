// Binding a workload to a platform profile: the step between reading the two files (each checked on
// its own) and simulating. It checks that the workload fits the profile and resolves the workload's
// computer and process names to indices, so the stages behind it trust their inputs.
//   w.json: $.apps[0].mapping[2]: expected the name of a computer of the profile p.json, got "x"
//   p.json: $.computers[1].integration_step_s: missing, needed by w.json: $.apps[0] (app "int")
// `hetperf predict`, `hetperf schedule --platform` and `hetperf check --platform` bind.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"

namespace hetperf {

// The other end of a process's messages ("messages.peer").
struct PeerRef {
  enum class Kind { kComputer, kProcess };
  Kind kind = Kind::kComputer;
  std::size_t index = 0;  // into profile.computers, or into workload.processes (an entry of count 1)
};

struct BoundProcess {
  std::optional<std::size_t> computer;  // "computer": the pinned computer; nullopt: the placement policy decides
  std::optional<PeerRef> peer;          // "messages.peer"; nullopt: a party outside the cluster
};

struct Binding {
  std::vector<BoundProcess> processes;   // one per workload.processes
  std::vector<BoundProcess> generators;  // one per workload.generators (its template process)
  // One per workload.apps: the computer (index into profile.computers) of every rank, all instances
  // in order, from the job's "mapping" over its "computers".
  std::vector<std::vector<std::size_t>> app_mappings;
};

// Checks, naming the workload field and the profile field that do not fit:
//  - "policy.discipline" names computers or computer groups of the profile;
//  - processes and generators: "computer" and "messages.peer" name a computer of the profile (a peer
//    may instead be a process listed once, with count 1); a process that may read or write the disk
//    needs disk_read_bytes_per_s / disk_write_bytes_per_s on the computers it may run on (the pinned
//    one, else all); one that may send messages needs network.bandwidth_bytes_per_s;
//  - apps: "computers" and a "mapping" list name computers of the profile; every computer a rank is
//    mapped to has the kernel models the job calls (LU: dgemm, dtrsm, dgetrf and dlaswp, in either
//    shape; integration workers: integration_step_s, and disk_write_bytes_per_s when disk_bytes > 0);
//    a job of more than one rank needs network.bandwidth_bytes_per_s;
//  - jobs with an "lu" or "integrate" app model (simulated on the profile's first cores, computers in
//    profile order): the computers of those cores have the same figures, and an integration has at
//    least two cores (a master and a worker).
// A figure counts as missing when it is not positive: a partial profile (calibrated from a probe
// that measured only part of the machine) leaves out the disk figures or the network it lacks.
Binding bind(const Workload& workload, const Profile& profile);

}  // namespace hetperf
