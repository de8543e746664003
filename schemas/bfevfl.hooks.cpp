// Hooks of schemas/bfevfl.yaml: the two things about event flows that a
// schema cannot say. encode() runs them on a copy of the model, so what a user
// wrote in these fields is replaced by what the graph and the clips imply.
#include <algorithm>
#include <vector>

#include "bfevfl.h"

namespace binschema::bfevfl::hooks {

// An entry point lists the sub flow events reachable from its main event, in
// the order a depth-first walk first meets them. Actions, joins and sub flows
// go on to `next`; a switch tries its cases in order; a fork its branches in
// order, then its join. The walk is iterative (a long chain of events must
// not exhaust the stack): children are pushed in reverse so that they are
// taken in order, and an event already seen is skipped when taken.
void sub_flow_events(Flowchart& fc) {
  constexpr uint16_t kNone = 0xFFFF;
  const size_t n = fc.events.size();
  for (EntryPoint& ep : fc.entry_points) {
    std::vector<bool> seen(n, false);
    std::vector<uint16_t> out, stack{ep.main_event};
    while (!stack.empty()) {
      const uint16_t e = stack.back();
      stack.pop_back();
      if (e == kNone || e >= n || seen[e]) continue;
      seen[e] = true;
      std::vector<uint16_t> next;
      const Event::Data& data = fc.events[e].data;
      using Case = Event::Data::Case;
      switch (data.kind()) {
        case Case::action: next = {data.get<Case::action>().next}; break;
        case Case::switch_:
          for (const auto& c : data.get<Case::switch_>().cases) next.push_back(c.event);
          break;
        case Case::fork:
          next = data.get<Case::fork>().forks;
          next.push_back(data.get<Case::fork>().join);
          break;
        case Case::join: next = {data.get<Case::join>().next}; break;
        case Case::sub_flow:
          out.push_back(e);
          next = {data.get<Case::sub_flow>().next};
          break;
      }
      stack.insert(stack.end(), next.rbegin(), next.rend());
    }
    ep.sub_flow_events = std::move(out);
  }
}

// A timeline's triggers are every clip's start (kind 1) and end (kind 2),
// ordered by time, ends before starts at the same time, then by clip index.
// The end time is start + duration added in double precision.
void clip_triggers(Timeline& tl) {
  struct Event {
    double time;
    uint8_t kind;
    uint16_t clip;
  };
  std::vector<Event> events;
  for (size_t i = 0; i < tl.clips.size(); ++i) {
    const Clip& c = tl.clips[i];
    events.push_back({double(c.start), 1, static_cast<uint16_t>(i)});
    events.push_back({double(c.start) + double(c.duration), 2, static_cast<uint16_t>(i)});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind > b.kind;  // the end (2) first
    return a.clip < b.clip;
  });
  tl.triggers.clear();
  for (const Event& e : events) tl.triggers.push_back(Trigger{e.clip, e.kind});
}

}  // namespace binschema::bfevfl::hooks
