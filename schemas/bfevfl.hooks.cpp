// Hooks of schemas/bfevfl.yaml: the two things about event flows that a
// schema cannot say. encode() runs them on a copy of the model, so what a user
// wrote in these fields is replaced by what the graph and the clips imply.
#include <algorithm>
#include <cmath>
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
  std::vector<size_t> seen_by(n, 0);  // seen in this walk: seen_by[e] == walk
  std::vector<uint16_t> stack;
  size_t walk = 0;
  for (EntryPoint& ep : fc.entry_points) {
    ++walk;
    std::vector<uint16_t> out;
    stack.assign(1, ep.main_event);
    while (!stack.empty()) {
      const uint16_t e = stack.back();
      stack.pop_back();
      if (e == kNone || e >= n || seen_by[e] == walk) continue;
      seen_by[e] = walk;
      const Event::Data& data = fc.events[e].data;
      using Case = Event::Data::Case;
      switch (data.kind()) {  // the next events, pushed last first
        case Case::action: stack.push_back(data.get<Case::action>().next); break;
        case Case::switch_: {
          const auto& cases = data.get<Case::switch_>().cases;
          for (auto c = cases.rbegin(); c != cases.rend(); ++c) stack.push_back(c->event);
          break;
        }
        case Case::fork: {
          const auto& fork = data.get<Case::fork>();
          stack.push_back(fork.join);
          stack.insert(stack.end(), fork.forks.rbegin(), fork.forks.rend());
          break;
        }
        case Case::join: stack.push_back(data.get<Case::join>().next); break;
        case Case::sub_flow:
          out.push_back(e);
          stack.push_back(data.get<Case::sub_flow>().next);
          break;
      }
    }
    ep.sub_flow_events = std::move(out);
  }
}

// A timeline's triggers are every clip's start (kind 1) and end (kind 2),
// ordered by time; the end time is start + duration added in double
// precision. The list the model holds is kept where it is right, as evfl keeps
// it: each (clip, kind) it names once, stably sorted by time, so triggers at
// equal times stay in the order of the file. Entries naming no clip, another
// kind or a pair already listed are dropped; the triggers of clips it lacks
// (new clips, or a fresh model) are added, at equal times after the kept ones,
// ends before starts, then by clip index.
void clip_triggers(Timeline& tl) {
  struct Event {
    double time;
    size_t rank;  // ties: kept triggers in their order, then the added ones
    Trigger trigger;
  };
  const size_t n = tl.clips.size();
  auto time_of = [&](uint16_t clip, uint8_t kind) {
    const Clip& c = tl.clips[clip];
    return kind == 1 ? double(c.start) : double(c.start) + double(c.duration);
  };
  std::vector<bool> listed(2 * n, false);  // [2 * clip + kind - 1]
  std::vector<Event> events;
  for (const Trigger& t : tl.triggers) {
    if (t.clip >= n || (t.kind != 1 && t.kind != 2) || listed[2 * t.clip + t.kind - 1]) continue;
    listed[2 * t.clip + t.kind - 1] = true;
    events.push_back({time_of(t.clip, t.kind), events.size(), Trigger{t.clip, t.kind}});
  }
  std::vector<Event> added;
  for (size_t i = 0; i < n; ++i)
    for (uint8_t kind : {uint8_t{1}, uint8_t{2}})
      if (!listed[2 * i + kind - 1]) {
        const auto clip = static_cast<uint16_t>(i);
        added.push_back({time_of(clip, kind), 0, Trigger{clip, kind}});
      }
  // Times in a total order (NaN after every number), so that sorting the
  // written list again leaves it as it is.
  auto earlier = [](double a, double b) { return std::isnan(a) ? false : std::isnan(b) || a < b; };
  auto same = [&](double a, double b) { return !earlier(a, b) && !earlier(b, a); };
  std::sort(added.begin(), added.end(), [&](const Event& a, const Event& b) {
    if (!same(a.time, b.time)) return earlier(a.time, b.time);
    if (a.trigger.kind != b.trigger.kind) return a.trigger.kind > b.trigger.kind;  // the end (2) first
    return a.trigger.clip < b.trigger.clip;
  });
  for (Event& e : added) {
    e.rank = events.size();
    events.push_back(e);
  }
  std::stable_sort(events.begin(), events.end(), [&](const Event& a, const Event& b) {
    return !same(a.time, b.time) ? earlier(a.time, b.time) : a.rank < b.rank;
  });
  tl.triggers.clear();
  for (const Event& e : events) tl.triggers.push_back(e.trigger);
}

}  // namespace binschema::bfevfl::hooks
