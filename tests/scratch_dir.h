// A scratch folder of one test program, for the files it hands to the CLI
// or to an independent reader.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

// PREFIX_PID under the temp folder: emptied when first asked for, removed
// when the program ends. Pids come round again (pid_max is 32768 here), and
// a folder an earlier run left under the same pid once failed names_test:
// the CLI refuses to unpack into a folder that exists. The first prefix
// asked for names the folder for the whole program.
inline const std::filesystem::path& scratch_dir(const char* prefix) {
  static const struct Dir {
    std::filesystem::path path;
    explicit Dir(const char* prefix)
        : path(std::filesystem::temp_directory_path() / (std::string(prefix) + "_" + std::to_string(::getpid()))) {
      std::filesystem::remove_all(path);
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } dir(prefix);
  return dir.path;
}
