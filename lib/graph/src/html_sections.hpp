// Sections of the HTML report that have their own file: the timeline and the
// findings grouped by spawn site. Each writes HTML; every input string goes
// through EscapeHtml.
#pragma once

#include <ostream>
#include <string>

#include "tether/graph/writers.hpp"

namespace tether::graph::detail {

// The timeline (WriteTimelineSvg) with its legend and the click detail panel.
void WriteTimelineSection(const ScopeGraph& sg, const Analyses& analyses,
                          const DisplayGraph& display, std::ostream& out);
// `markup` unchanged, for a text/plain data block (<script type="text/plain">)
// whose text the page's script parses later. Script data ends at "</script"
// and changes state at "<!--": neither can occur, since every input string is
// escaped (no '<' but the writers' own tags); checked anyway (logic_error),
// as a bug must not break the page.
std::string ScriptData(std::string markup);
// The timeline of the HTML report: the SVG with its axis and an empty lane
// layer, then every lane's markup (as WriteTimelineSvg draws it) one per line
// in a text/plain data block that the page's script draws from.
void WriteTimelineHtml(const ScopeGraph& sg, const Analyses& analyses, std::size_t fold_tasks_above,
                       const DisplayGraph& display, std::ostream& out);
// One row per (kind, spawn site): the count, the scopes it hit, the longest
// overhang, where the chain was cut; a click expands the members.
void WriteFindingsBySite(const ScopeGraph& sg, const Analyses& analyses,
                         const DisplayGraph& display, std::ostream& out);

}  // namespace tether::graph::detail
