// Sections of the HTML report that have their own file: the timeline and the
// findings grouped by spawn site. Each writes HTML; every input string goes
// through EscapeHtml.
#pragma once

#include <ostream>

#include "tether/graph/writers.hpp"

namespace tether::graph::detail {

// The timeline (WriteTimelineSvg) with its legend and the click detail panel.
void WriteTimelineSection(const ScopeGraph& sg, const Analyses& analyses, const DisplayGraph& display,
                          std::ostream& out);
// The timeline of the HTML report: the SVG with its axis and an empty lane
// layer, then every lane's markup (as WriteTimelineSvg draws it) one per line
// in a text/plain data block that the page's script draws from.
void WriteTimelineHtml(const ScopeGraph& sg, const Analyses& analyses, std::size_t fold_tasks_above,
                       const DisplayGraph& display, std::ostream& out);
// One row per (kind, spawn site): the count, the scopes it hit, the longest
// overhang, where the chain was cut; a click expands the members.
void WriteFindingsBySite(const ScopeGraph& sg, const Analyses& analyses, const DisplayGraph& display,
                         std::ostream& out);

}  // namespace tether::graph::detail
