// The tests' precompiled header (tests/CMakeLists.txt, binschema_test_pch):
// what most tests include, parsed once for all of them. Not Boost.Test: each
// test defines BOOST_TEST_MODULE before including it.
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "binschema/error.h"
#include "binschema/format.h"
#include "binschema/reader.h"
#include "binschema/text.h"
#include "binschema/writer.h"
