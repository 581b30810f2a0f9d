// What a blocking send across the network leaves in the buffers on the way when it returns
// (model::SendBuffer), fitted on the applications' own sends between hosts.
//
// Over TCP a large MPI_Send returns once the rest of its message fits in the sender's socket buffer,
// the link's queue and the receiver's socket buffer; the testbed's LU panels of 1-2 MB returned after
// (s − B)/b with B about 1 MB, while a send that held its sender for the whole transfer (rendezvous)
// would take s/b. Each send of s bytes that took d seconds, with l and g the line of its size's
// regime (network.regimes, else l + s/b), tells B_i = s − max(0, d − l)/g:
//  - a send that returned within 5% of the whole line's streaming tells only B ≥ s (right-censored);
//  - a send that followed another send found the buffers partly full (a gather's back-to-back blocks
//    took their full line), and one whose receiver was late waited for it: both are left out or, the
//    latter, pull B_i towards 0, which the median resists.
// B is the Kaplan-Meier median of the B_i (the median of right-censored values), with its quartiles;
// when fewer than half of them are below their bound it is the largest uncensored B_i, a lower bound.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

// Kaplan-Meier quantile of right-censored values (censored[i]: the true value is at least
// values[i]): the smallest value at which the estimated P(X ≤ x) reaches p; nullopt when it never
// does (too many censored values above the uncensored ones).
std::optional<double> kaplan_meier_quantile(const std::vector<double>& values, const std::vector<bool>& censored,
                                            double p);

// The send buffer from `sends` on `network`, with one line for `report` saying what it found; nullopt
// with fewer than 8 usable sends or 4 uncensored ones.
std::optional<SendBuffer> fit_send_buffer(const std::vector<NetworkSend>& sends, const NetworkModel& network,
                                          std::vector<std::string>& report);

}  // namespace hetperf::calibrate
