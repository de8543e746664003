// Test files for the benchmarks (see models.h).
//
// BAEV is made from scratch (see baev_model). The other formats start from
// their example document in examples/ and repeat its content:
//
// ASB: examples/asb-every-node.yaml (one node of each of the 25 types and
// every section), repeated. Copy k (k = 0 is the example itself) adds:
//   - its 25 nodes, every node index in their connection payloads shifted by
//     25 k, Event bodies pointing at copy k's event group, `sync_index`
//     pointing at copy k's sync index entries, state-transition connections
//     pointing at copy k's state transition; new GUIDs;
//   - its 2 commands, named `<name>_<k>`;
//   - its event group, 3 sync data entries (+ 3 sync indices) and state transition;
//   - distinct strings: the command names and the 4 animation names
//     (`Npc_Wait_<k>`, ...) are new in every copy; bone, event, condition and
//     parameter strings stay shared, as in real files;
//   - with distinct_tags, 2 new tag groups: the first command's and the first
//     node's, each 3 tags out of a vocabulary of 64 (`Tag_00`..`Tag_63`, added
//     once to the valid tag list), so the shared tag-group pool grows by 2
//     groups per copy (up to 41,664 distinct groups: they repeat past
//     20,832 copies); otherwise the example's two tag groups are reused.
// The sections that are not per-node (blackboard, partials, bone groups,
// calculation presets, transitions, command groups, EXB, AS markings, material
// blends, enum resolves) are kept once.
// `root_node`, the state transitions' node fields and `sync_index` are u16: a
// file can only start commands and state transitions at nodes 0..65535, so
// copy k's commands and state transition use the nodes of copy (k mod 2621)
// (2621 * 25 <= 65536), and past 21,845 copies (64 MiB) a node's sync_index
// points at the entries of copy (k mod 21845): every index stays valid.

#include "models.h"

#include <fstream>
#include <iterator>
#include <string_view>

#include <algorithm>
#include <cstring>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "binschema/hash.h"

#ifndef BINSCHEMA_SOURCE_DIR
#error "BINSCHEMA_SOURCE_DIR must name the source tree (it holds examples/)"
#endif

namespace bench {
namespace {

namespace baev = binschema::baev;
namespace asb = binschema::asb;

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "[bench models] %s\n", msg.c_str());
  std::abort();
}

template <class Root>
Root load_example(const char* name, Root (*from_text)(std::string_view)) {
  const std::string path = std::string(BINSCHEMA_SOURCE_DIR) + "/examples/" + name;
  try {
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in) fail("cannot read " + path);
    return from_text(text);
  } catch (const std::exception& e) {
    fail("cannot load " + path + ": " + e.what());
  }
}

}  // namespace

namespace {

// splitmix64: small, fast and identical on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  uint32_t range(uint32_t lo, uint32_t hi) {
    return lo + static_cast<uint32_t>(next() % (uint64_t(hi) - lo + 1));
  }
  float frac() { return static_cast<float>(next() >> 40) / static_cast<float>(1u << 24); }

 private:
  uint64_t s_;
};

// 330 distinct animation names, 3 to 20 characters (23 of them longer than
// the 15 characters libstdc++ keeps inline in a std::string).
std::vector<std::string> make_animation_names() {
  static const char* verbs[] = {"Wait",  "Walk",  "Run",   "Dash",  "Jump",  "Land",  "Fall",  "Attack",
                                "Guard", "Damage", "Down", "GetUp", "Talk",  "Laugh", "Cry",   "Angry",
                                "Sleep", "Eat",   "Drink", "Sing",  "Dance", "Sit",   "Stand", "Turn",
                                "Climb", "Swim",  "Throw", "Catch", "Pick",  "Wave"};
  static const char* mods[] = {"",       "_Start", "_Loop",      "_End",       "_S",    "_L",
                               "_Lv2_Start", "_Fast_Loop", "_Slow", "_Left", "_Right"};
  std::vector<std::string> out;
  for (size_t m = 0; m < std::size(mods); ++m)
    for (size_t v = 0; v < std::size(verbs); ++v) {
      std::string s = (v + m) % 3 == 0 ? "Npc_" : "";
      out.push_back(s + verbs[v] + mods[m]);
    }
  return out;
}

// 200 distinct string parameter values (effect, sound and bone names), 7 to
// 18 characters (24 of them longer than 15).
std::vector<std::string> make_param_strings() {
  static const char* kinds[] = {"SE_", "Eff_", "Bone_", "Vo_"};
  static const char* things[] = {"Foot_Grass", "Foot_Stone", "Foot_Water", "Hand_L", "Hand_R",
                                 "Head",       "Dust_Small", "Dust_Large", "Sparkle", "Swing",
                                 "Hit_Heavy",  "Hit_Light",  "Breath",     "Blink",   "Mouth",
                                 "Spine",      "Tail",       "Wing_L",     "Wing_R",  "Splash",
                                 "Glow",       "Smoke",      "Shout",      "Sigh",    "Clap"};
  std::vector<std::string> out;
  for (int variant = 0; variant < 2; ++variant)
    for (const char* k : kinds)
      for (const char* t : things) out.push_back(std::string(k) + t + (variant ? "_02" : ""));
  return out;
}

// Encoded size of one parameter (pointer slot + 8-byte header + padded value).
uint64_t param_bytes(const baev::Parameter& p) {
  return 8 + 8 + (p.value.index() == 2 ? 16 : 8);
}

baev::Trigger make_trigger(Rng& rng, bool hold, const std::vector<std::string>& strs, uint64_t& est) {
  baev::Trigger t;
  const uint32_t np = rng.range(1, 4);
  t.params.reserve(np);
  bool vec3 = false;
  for (uint32_t i = 0; i < np; ++i) {
    baev::Parameter p;
    const uint32_t k = rng.range(0, 99);
    if (k < 30) {
      p.value = static_cast<int32_t>(rng.range(0, 200)) - 20;
    } else if (k < 60) {
      p.value = rng.frac() * 10.0f;
    } else if (k < 75) {
      p.value = std::array<float, 3>{rng.frac(), rng.frac() * 2.0f, rng.frac() - 0.5f};
      vec3 = true;
    } else {
      p.value = strs[rng.range(0, static_cast<uint32_t>(strs.size() - 1))];
    }
    est += param_bytes(p);
    t.params.push_back(std::move(p));
  }
  t.param_pointer_size = vec3 && rng.range(0, 3) == 0 ? 16 : 8;  // TotK tools write 16 sometimes
  t.start_frame = static_cast<float>(rng.range(0, 120));
  t.end_frame = hold ? t.start_frame + static_cast<float>(rng.range(1, 60)) : 0.0f;
  est += 0x18;
  return t;
}

// Builds a model whose encoding is close to `target` bytes.
}  // namespace

baev::File baev_model(uint64_t target, uint64_t seed) {
  Rng rng(seed);
  const std::vector<std::string> names = make_animation_names();
  const std::vector<std::string> strs = make_param_strings();

  baev::File f;
  f.data.major_version = 2;
  f.data.minor_version = 1;

  uint64_t pool = 1;  // "" is always in the pool
  for (const auto& s : names) pool += s.size() + 1;
  for (const auto& s : strs) pool += s.size() + 1;
  // Header, section headers, Default section, string pool.
  uint64_t est = 0xa8 + 0x50 + 0x38 + pool;
  // Events: one per 4 actions, each with 1-15 indices (~0x18 + 8*4 bytes).
  const uint64_t per_event = 0x18 + 8 * 4;

  auto& actions = f.data.actions;
  while (est + (actions.size() / 4 + 1) * per_event < target) {
    baev::Action a;
    a.hash = binschema::fnv1a32("Action_" + std::to_string(actions.size()));
    a.unknown = rng.range(0, 3);
    const uint32_t nanim = rng.range(1, 7);
    a.animations.reserve(nanim);
    est += 0x18;
    for (uint32_t i = 0; i < nanim; ++i) {
      baev::Animation an;
      an.name = names[rng.range(0, static_cast<uint32_t>(names.size() - 1))];
      an.unknown1 = rng.range(0, 1);
      an.unknown2 = rng.range(0, 40);
      const uint32_t nt = rng.range(0, 4), nh = rng.range(0, 3);
      an.triggers.reserve(nt);
      an.holds.reserve(nh);
      for (uint32_t k = 0; k < nt; ++k) an.triggers.push_back(make_trigger(rng, false, strs, est));
      for (uint32_t k = 0; k < nh; ++k) an.holds.push_back(make_trigger(rng, true, strs, est));
      est += 0x30;
      a.animations.push_back(std::move(an));
    }
    actions.push_back(std::move(a));
  }

  // Events with unique hashes, kept sorted by hash as the writer stores them
  // (so that decode(encode(model)) == model).
  const uint32_t nact = static_cast<uint32_t>(actions.size());
  const size_t nev = actions.size() / 4 + 1;
  auto& events = f.data.events;
  events.reserve(nev);
  for (size_t i = 0; i < nev; ++i) {
    baev::Event e;
    e.hash = binschema::fnv1a32("Event_" + std::to_string(i));
    const uint32_t n = rng.range(1, 15);
    e.action_indices.reserve(n);
    for (uint32_t k = 0; k < n; ++k) e.action_indices.push_back(rng.range(0, nact - 1));
    events.push_back(std::move(e));
  }
  std::sort(events.begin(), events.end(),
            [](const baev::Event& a, const baev::Event& b) { return a.hash < b.hash; });
  return f;
}


namespace {

const asb::File& example() {
  static const asb::File f = load_example<asb::File>("asb-every-node.yaml", asb::from_text);
  return f;
}

constexpr int kVocabulary = 64;  // Tag_00 .. Tag_63

std::string tag_name(int i) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "Tag_%02d", i);
  return buf;
}

// The i-th 3-tag subset of the vocabulary, in lexicographic order (so that
// neighbouring groups share their first tags, as a sharing scan would see in a
// real file). There are C(64, 3) = 41,664 of them.
asb::TagGroup tag_combo(uint32_t i) {
  static const std::vector<std::array<uint8_t, 3>> combos = [] {
    std::vector<std::array<uint8_t, 3>> v;
    for (int a = 0; a < kVocabulary; ++a)
      for (int b = a + 1; b < kVocabulary; ++b)
        for (int c = b + 1; c < kVocabulary; ++c)
          v.push_back({uint8_t(a), uint8_t(b), uint8_t(c)});
    return v;
  }();
  // Past 41,664 groups (20,832 copies, about 56 MiB) they repeat, and the
  // writer shares the repeats.
  asb::TagGroup g;
  for (uint8_t t : combos[i % combos.size()]) g.tags.push_back(tag_name(t));
  return g;
}

template <class C>
void shift_connections(C& c, uint32_t node_off, int32_t st_off) {
  for (auto* v : {&c.states, &c.unknowns, &c.events, &c.frames})
    for (auto& e : *v) e.node += node_off;
  for (auto& e : c.children) e.node += node_off;
  for (auto& e : c.transitions) {
    e.node += node_off;
    if (e.index >= 0) e.index += st_off;
  }
  if constexpr (requires { c.default_child->node; }) {
    if (c.default_child) c.default_child->node += node_off;
  }
}

void new_guid(asb::Guid& g, uint32_t k) { g.data1 += k << 16; }

// The example plus copies 1..copies-1 of its per-node content (see the top of the file).
}  // namespace

asb::File asb_model(uint32_t copies, bool distinct_tags) {
  const asb::File& ex = example();
  asb::File f = ex;
  const uint32_t n_nodes = static_cast<uint32_t>(ex.nodes.size());
  const uint32_t n_sync = static_cast<uint32_t>(ex.sync_data.size());
  const uint32_t n_sync_idx = static_cast<uint32_t>(ex.sync_indices.size());
  const uint32_t n_events = static_cast<uint32_t>(ex.event_groups.size());
  const uint32_t n_st = static_cast<uint32_t>(ex.state_transitions.entries.size());
  // Copies whose nodes a u16 node index can still reach.
  const uint32_t reachable = 0x10000 / n_nodes;
  // Copies whose sync index entries a u16 sync_index can still reach.
  const uint32_t sync_reachable = 0x10000 / std::max<uint32_t>(1, n_sync_idx);

  for (int i = 0; i < kVocabulary; ++i) f.valid_tags.tags.push_back(tag_name(i));

  f.nodes.reserve(size_t(n_nodes) * copies);
  f.commands.reserve(ex.commands.size() * copies);
  for (uint32_t k = 1; k < copies; ++k) {
    std::string suffix = "_";  // (not "_" + to_string: GCC 12 warns wrongly about it)
    suffix += std::to_string(k);
    const uint32_t node_off = k * n_nodes;
    const uint32_t u16_node_off = (k % reachable) * n_nodes;

    for (size_t ci = 0; ci < ex.commands.size(); ++ci) {
      asb::Command c = ex.commands[ci];
      c.name += suffix;
      c.root_node = static_cast<uint16_t>(c.root_node + u16_node_off);
      new_guid(c.guid, k);
      if (distinct_tags && ci == 0) c.tags = tag_combo(2 * k);
      f.commands.push_back(std::move(c));
    }

    for (size_t ni = 0; ni < ex.nodes.size(); ++ni) {
      asb::Node n = ex.nodes[ni];
      n.sync_index = static_cast<uint16_t>(n.sync_index + (k % sync_reachable) * n_sync_idx);
      new_guid(n.guid, k);
      if (distinct_tags && ni == 0) n.tags = tag_combo(2 * k + 1);
      std::visit(
          [&](auto& b) {
            if constexpr (requires { b.connections; })
              shift_connections(b.connections, node_off, static_cast<int32_t>(k * n_st));
            if constexpr (requires { b.event_group; }) b.event_group += k * n_events;
            if constexpr (requires { b.animation.value; })
              if (!b.animation.value.empty()) b.animation.value += suffix;
          },
          static_cast<asb::Node::Body::Base&>(n.body));
      f.nodes.push_back(std::move(n));
    }

    for (uint32_t i = 0; i < n_sync_idx; ++i) f.sync_indices.push_back(ex.sync_indices[i] + k * n_sync);
    for (const asb::SyncData& s : ex.sync_data) {
      f.sync_data.push_back(s);
      new_guid(f.sync_data.back().guid, k);
    }
    for (const asb::StateTransition& t : ex.state_transitions.entries) {
      f.state_transitions.entries.push_back(t);
      auto& e = f.state_transitions.entries.back();
      e.current_node = static_cast<uint16_t>(e.current_node + u16_node_off);
      e.target_node = static_cast<uint16_t>(e.target_node + u16_node_off);
    }
    for (const asb::EventGroup& g : ex.event_groups) f.event_groups.push_back(g);
  }
  return f;
}

// The number of copies whose distinct-tags encoding is closest to `target`
// bytes (the size grows linearly with the copies, up to a few bytes of alignment).
uint32_t asb_copies_for(uint64_t target) {
  const double s1 = double(asb::encode(asb_model(1, true)).size());
  const double s9 = double(asb::encode(asb_model(9, true)).size());
  const double per = (s9 - s1) / 8;
  return static_cast<uint32_t>(std::max(1.0, (double(target) - s1) / per + 1.5));
}


namespace {

// The number of copies whose encoding is closest to `target` bytes, for a
// model that grows linearly with its copies (measured at 1 and 9 copies).
template <class Make, class Encode>
uint32_t copies_for(uint64_t target, Make make, Encode encode) {
  const double s1 = double(encode(make(1)).size());
  const double s9 = double(encode(make(9)).size());
  const double per = std::max(1.0, (s9 - s1) / 8);
  return static_cast<uint32_t>(std::max(1.0, (double(target) - s1) / per + 1.5));
}

std::string suffix(uint32_t k) {
  std::string s = "_";
  s += std::to_string(k);
  return s;
}

namespace evnt = binschema::evnt;
namespace al = binschema::al;
namespace bfevfl = binschema::bfevfl;
namespace sarc = binschema::sarc;

// EVNT: examples/evnt-footsteps.yaml (one event of each kind) repeated: copy
// k adds the example's four events, named `<name>_<k>`, with index + 4 k.
evnt::Evnt evnt_copies(uint32_t copies) {
  static const evnt::Evnt ex = load_example<evnt::Evnt>("evnt-footsteps.yaml", evnt::from_text);
  evnt::Evnt f = ex;
  const uint32_t per = static_cast<uint32_t>(ex.loop_events.size() + ex.user_events.size() +
                                             ex.effect_events.size() + ex.sound_events.size());
  auto add = [&](auto& to, const auto& from, uint32_t k) {
    for (const auto& e : from) {
      to.push_back(e);
      to.back().base.name += suffix(k);
      to.back().base.index += k * per;
    }
  };
  for (uint32_t k = 1; k < copies; ++k) {
    add(f.loop_events, ex.loop_events, k);
    add(f.user_events, ex.user_events, k);
    add(f.effect_events, ex.effect_events, k);
    add(f.sound_events, ex.sound_events, k);
  }
  return f;
}

// AL: examples/al-creature.yaml (a two-bone skeleton, one animation with two
// events) with its animation repeated: copy k is named `walk_<k>`.
al::File al_copies(uint32_t copies) {
  static const al::File ex = load_example<al::File>("al-creature.yaml", al::from_text);
  al::File f = ex;
  f.metadata.reserve(ex.metadata.size() * copies);
  for (uint32_t k = 1; k < copies; ++k)
    for (const al::Metadata& m : ex.metadata) {
      f.metadata.push_back(m);
      f.metadata.back().header.name += suffix(k);
      f.metadata.back().animation.name += suffix(k);
    }
  return f;
}

// BFEVFL: examples/bfevfl-greeting.yaml (one flowchart: an actor, three
// events, an entry point) repeated: copy k adds the three events and the
// entry point again, named `<name>_<j>`, their event indices shifted by 3 j,
// where j = k mod 2000; every 2000 copies start a new flowchart
// `Greeting_<k / 2000>` with the example's actors (event indices are u16).
bfevfl::File bfevfl_copies(uint32_t copies) {
  static const bfevfl::File ex = load_example<bfevfl::File>("bfevfl-greeting.yaml", bfevfl::from_text);
  constexpr uint32_t kPerFlowchart = 2000;
  const bfevfl::Flowchart& fc = ex.flowcharts.at(0);
  const uint16_t n_ev = static_cast<uint16_t>(fc.events.size());
  bfevfl::File f = ex;
  f.flowcharts.clear();
  for (uint32_t k = 0; k < copies; ++k) {
    const uint32_t j = k % kPerFlowchart;
    if (j == 0) {
      f.flowcharts.emplace_back();
      f.flowcharts.back().name = fc.name + (k ? suffix(k / kPerFlowchart) : "");
      f.flowcharts.back().actors = fc.actors;
    }
    bfevfl::Flowchart& out = f.flowcharts.back();
    const uint16_t off = static_cast<uint16_t>(j * n_ev);
    auto shift = [&](uint16_t& i) {
      if (i != 0xFFFF) i = static_cast<uint16_t>(i + off);
    };
    for (const bfevfl::Event& e : fc.events) {
      out.events.push_back(e);
      bfevfl::Event& c = out.events.back();
      if (j) c.name += suffix(j);
      std::visit(
          [&](auto& d) {
            if constexpr (requires { d.next; }) shift(d.next);
            if constexpr (requires { d.cases; })
              for (auto& sc : d.cases) shift(sc.event);
            if constexpr (requires { d.forks; }) {
              for (auto& x : d.forks) shift(x);
              shift(d.join);
            }
          },
          static_cast<bfevfl::Event::Data::Base&>(c.data));
    }
    for (const bfevfl::EntryPoint& ep : fc.entry_points) {
      out.entry_points.push_back(ep);
      bfevfl::EntryPoint& c = out.entry_points.back();
      if (j) c.name += suffix(j);
      shift(c.main_event);
      for (auto& x : c.sub_flow_events) shift(x);
    }
  }
  return f;
}

}  // namespace

evnt::Evnt evnt_model(uint64_t target) {
  return evnt_copies(copies_for(target, evnt_copies, [](const evnt::Evnt& m) { return evnt::encode(m); }));
}

al::File al_model(uint64_t target) {
  return al_copies(copies_for(target, al_copies, [](const al::File& m) { return al::encode(m); }));
}

bfevfl::File bfevfl_model(uint64_t target) {
  return bfevfl_copies(copies_for(target, bfevfl_copies, [](const bfevfl::File& m) { return bfevfl::encode(m); }));
}

// SARC: a little-endian archive of files `Model/Obj_<i>.bfres` (a name table
// of 24-byte entries) of 256 to 4,351 bytes of pseudo-random data each, 8-byte
// aligned, until the archive is about `target` bytes. Nodes are sorted by the
// name hash (multiplier 0x65), names stored in node order (the writer
// computes the hashes, order, name offsets and data ranges).
sarc::Sarc sarc_model(uint64_t target) {
  struct File {
    std::string name;
    uint32_t hash;
    uint32_t size;
  };
  std::vector<File> files;
  uint64_t est = 0x14 + 0xc + 8, data = 0;
  uint64_t x = 0x5a4c'0000ull;
  auto rnd = [&x] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(x >> 33);
  };
  while (est + data < target) {
    char name[32];
    std::snprintf(name, sizeof name, "Model/Obj_%07zu.bfres", files.size());
    uint32_t h = 0;
    for (const char* p = name; *p; ++p) h = h * 0x65 + static_cast<uint32_t>(static_cast<signed char>(*p));
    const uint32_t size = 256 + rnd() % 4096;
    files.push_back({name, h, size});
    est += 16 + (std::strlen(name) + 4) / 4 * 4;
    data = (data + 7) / 8 * 8 + size;
  }
  // The writer computes hashes, order, name offsets and data ranges; the
  // files are given in hash order as an archive holds them.
  std::stable_sort(files.begin(), files.end(), [](const File& a, const File& b) { return a.hash < b.hash; });
  sarc::Sarc s;
  s.bom = 0xfffe;
  for (const File& f : files) {
    sarc::Node n;
    n.attributes.name = f.name;
    n.alignment = 8;
    n.data.data.reserve(f.size);
    for (uint32_t i = 0; i < f.size; ++i) n.data.data.push_back(static_cast<uint8_t>(rnd()));
    s.nodes.push_back(std::move(n));
  }
  // An archive does not store alignments: the reader gives each file the
  // largest power of two its offset is a multiple of, up to data_offset's.
  // When data_offset lands on a multiple of 16 (the 64 MiB file), files at
  // multiples of 16 read back with 16, not the 8 given here; the model the
  // reader gives is the one that reads back to itself.
  return sarc::decode(sarc::encode(s));
}


}  // namespace bench
