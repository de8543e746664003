// Throughput and peak-memory benchmarks for the generated BAEV reader/writer.
//
// For each file size (about 1, 16 and 64 MiB once encoded):
//   BM_Decode  bytes already in memory -> full binschema::baev::File -> destroyed
//   BM_Encode  binschema::baev::File -> bytes (the vector is freed in the loop too)
//   BM_Memcpy  the same number of bytes into a preallocated buffer (the ceiling)
//   BM_MemcpyFresh  the same copy into a newly allocated buffer each time
// Every one reports bytes/s relative to the encoded file size.
//
// Peak memory: this binary replaces every global operator new/delete with a
// version that can count live heap bytes (malloc_usable_size of each block).
// Counting is switched on only for one extra, untimed decode per size, so the
// timed loops pay nothing but a predictable branch. BM_Decode then reports
//   peak_over_file  = peak live heap bytes during that decode (counted from
//                     just before decode() starts, so the input buffer, which
//                     already exists, is excluded) / file size
//   peak_incl_input = (that peak + file size) / file size
//   model_over_file = live heap bytes held by the returned model / file size
//   allocs          = operator new calls during that one decode
// BM_Decode, BM_Encode and BM_MemcpyFresh also report `faults`, the minor
// page faults per iteration (fresh memory touched for the first time): on
// virtual machines with slow page faults they dominate the large sizes.

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "baev.h"
#include "counting_heap.h"
#include "binschema/hash.h"

// ---------------------------------------------------------------------------
// Deterministic model generator
// ---------------------------------------------------------------------------
namespace {

namespace baev = binschema::baev;

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
baev::File make_model(uint64_t target, uint64_t seed) {
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

struct Case {
  baev::File model;
  std::vector<uint8_t> bytes;
};

// One model and its encoding per size, built on first use (outside any timed
// region) and kept for the whole run.
const Case& get_case(int mib) {
  static std::map<int, std::unique_ptr<Case>> cache;
  auto& slot = cache[mib];
  if (!slot) {
    slot = std::make_unique<Case>();
    slot->model = make_model(uint64_t(mib) << 20, 0xbae5'0000ull + mib);
    slot->bytes = baev::encode(slot->model);
    if (!(baev::decode(slot->bytes) == slot->model))
      throw std::runtime_error("generated model does not round-trip");
    size_t anims = 0, trig = 0, params = 0;
    for (const auto& a : slot->model.data.actions)
      for (const auto& an : a.animations) {
        ++anims;
        for (const auto* v : {&an.triggers, &an.holds})
          for (const auto& t : *v) {
            ++trig;
            params += t.params.size();
          }
      }
    std::fprintf(stderr,
                 "[baev_bench] %d MiB case: %zu bytes, %zu actions, %zu animations, %zu triggers+holds, "
                 "%zu parameters, %zu events\n",
                 mib, slot->bytes.size(), slot->model.data.actions.size(), anims, trig, params,
                 slot->model.data.events.size());
  }
  return *slot;
}

// Minor page faults of this thread so far (first touches of fresh memory).
void BM_Decode(benchmark::State& state) {
  const Case& c = get_case(static_cast<int>(state.range(0)));
  measure_decode(state, c.bytes, [](std::span<const uint8_t> b) { return baev::decode(b); });
}

void BM_Encode(benchmark::State& state) {
  const Case& c = get_case(static_cast<int>(state.range(0)));
  measure_encode(state, c.bytes.size(), [&] { return baev::encode(c.model); });
}

void BM_Memcpy(benchmark::State& state) {
  const Case& c = get_case(static_cast<int>(state.range(0)));
  const size_t n = c.bytes.size();
  std::vector<uint8_t> dst(n, 1);  // preallocated and touched
  for (auto _ : state) {
    std::memcpy(dst.data(), c.bytes.data(), n);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, n);
}

// The same copy into a freshly allocated, untouched buffer each time.
void BM_MemcpyFresh(benchmark::State& state) {
  measure_memcpy_fresh(state, get_case(static_cast<int>(state.range(0))).bytes);
}

#define BAEV_SIZES ->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)
BENCHMARK(BM_Decode) BAEV_SIZES;
BENCHMARK(BM_Encode) BAEV_SIZES;
BENCHMARK(BM_Memcpy) BAEV_SIZES;
BENCHMARK(BM_MemcpyFresh) BAEV_SIZES;

}  // namespace

BENCHMARK_MAIN();
