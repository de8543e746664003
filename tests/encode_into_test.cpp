// encode_into(model, buffer): every format writes the same bytes as
// encode(model) into a buffer the caller owns and reuses, whatever the
// buffer held before (a larger file, a smaller one, garbage), keeping its
// allocation when it is large enough.
#define BOOST_TEST_MODULE encode_into
#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "al_text.h"
#include "asb_text.h"
#include "baev_text.h"
#include "bfevfl_text.h"
#include "binschema/text.h"
#include "evnt_text.h"
#include "sarc_text.h"

namespace fs = std::filesystem;

namespace {

template <class Root, class Encode, class EncodeInto>
void check(const char* example, Root (*from_text)(const binschema::text::Doc&), Encode encode, EncodeInto encode_into) {
  BOOST_TEST_CONTEXT(example) {
    const fs::path p = fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / example;
    const Root model = from_text(binschema::text::load_file(p.string()));
    const std::vector<uint8_t> want = encode(model);
    BOOST_TEST_REQUIRE(!want.empty());

    // A buffer holding garbage, larger than the file: reused in place.
    std::vector<uint8_t> buf(want.size() * 3, 0xa5);
    const uint8_t* const storage = buf.data();
    encode_into(model, buf);
    BOOST_TEST(buf == want, boost::test_tools::per_element());
    BOOST_TEST(buf.data() == storage);

    // Again into the same buffer: the same bytes, the same allocation.
    encode_into(model, buf);
    BOOST_TEST(buf == want, boost::test_tools::per_element());
    BOOST_TEST(buf.data() == storage);

    // An empty buffer, and one too small: it grows.
    std::vector<uint8_t> empty;
    encode_into(model, empty);
    BOOST_TEST(empty == want, boost::test_tools::per_element());
    std::vector<uint8_t> small(5, 0xff);
    encode_into(model, small);
    BOOST_TEST(small == want, boost::test_tools::per_element());
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_format_writes_what_encode_writes) {
  check<binschema::baev::File>("baev-totk.yaml", binschema::baev::from_text,
                               [](const auto& m) { return binschema::baev::encode(m); },
                               [](const auto& m, auto& b) { binschema::baev::encode_into(m, b); });
  check<binschema::baev::File>("baev-tomodachi.yaml", binschema::baev::from_text,
                               [](const auto& m) { return binschema::baev::encode(m); },
                               [](const auto& m, auto& b) { binschema::baev::encode_into(m, b); });
  check<binschema::evnt::Evnt>("evnt-footsteps.yaml", binschema::evnt::from_text,
                               [](const auto& m) { return binschema::evnt::encode(m); },
                               [](const auto& m, auto& b) { binschema::evnt::encode_into(m, b); });
  check<binschema::al::File>("al-creature.yaml", binschema::al::from_text,
                             [](const auto& m) { return binschema::al::encode(m); },
                             [](const auto& m, auto& b) { binschema::al::encode_into(m, b); });
  check<binschema::bfevfl::File>("bfevfl-greeting.yaml", binschema::bfevfl::from_text,
                                 [](const auto& m) { return binschema::bfevfl::encode(m); },
                                 [](const auto& m, auto& b) { binschema::bfevfl::encode_into(m, b); });
  check<binschema::asb::File>("asb-every-node.yaml", binschema::asb::from_text,
                              [](const auto& m) { return binschema::asb::encode(m); },
                              [](const auto& m, auto& b) { binschema::asb::encode_into(m, b); });
  check<binschema::sarc::Sarc>("sarc-two-files.yaml", binschema::sarc::from_text,
                               [](const auto& m) { return binschema::sarc::encode(m); },
                               [](const auto& m, auto& b) { binschema::sarc::encode_into(m, b); });
}

// A larger file, then a smaller one, into the same buffer: nothing of the
// first is left in the second.
BOOST_AUTO_TEST_CASE(a_smaller_file_after_a_larger_one) {
  const auto load = [](const char* name) {
    return binschema::baev::from_text(binschema::text::load_file((fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / name).string()));
  };
  const binschema::baev::File big = load("baev-totk.yaml");
  binschema::baev::File little = load("baev-tomodachi.yaml");
  std::vector<uint8_t> buf;
  binschema::baev::encode_into(big, buf);
  const std::vector<uint8_t> want = binschema::baev::encode(little);
  BOOST_TEST_REQUIRE(buf.size() > want.size());
  binschema::baev::encode_into(little, buf);
  BOOST_TEST(buf == want, boost::test_tools::per_element());
}

// On an error the exception says why, as encode's does, and the buffer
// stays usable.
BOOST_AUTO_TEST_CASE(an_error_leaves_a_usable_buffer) {
  binschema::sarc::Sarc bad = binschema::sarc::from_text(
      binschema::text::load_file((fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / "sarc-two-files.yaml").string()));
  bad.bom = 0x1234;  // neither byte order
  std::vector<uint8_t> buf(100, 1);
  BOOST_CHECK_THROW(binschema::sarc::encode_into(bad, buf), binschema::EncodeError);
  const binschema::sarc::Sarc good = binschema::sarc::from_text(
      binschema::text::load_file((fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / "sarc-two-files.yaml").string()));
  binschema::sarc::encode_into(good, buf);
  BOOST_TEST(buf == binschema::sarc::encode(good), boost::test_tools::per_element());
}
