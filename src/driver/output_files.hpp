// Reading the model and writing the generated files: bounded reads, and writes that
// survive failures, signals and a second lagc writing the same files at the same time.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lagc {

// Reads the file at `path` ("-": standard input), at most `max_bytes`. False with a
// message in `error` when it cannot be read, is a directory, or is larger.
bool read_source(std::string const& path, std::size_t max_bytes, std::string& text, std::string& error);

// Writes every (path, content) pair as one change, all files in one directory:
// - each is written to a new temporary file beside it (created exclusively, so no planted
//   file or symlink is followed), with the mode of the file it replaces;
// - only when all are written are they renamed into place, under a lock on the directory
//   (two lagc writing one pair leave one run's pair, never a mix), with signals held back
//   (an interrupt leaves the old pair or the new one, and no temporary file);
// - a file whose content is unchanged is not touched (builds do not rebuild);
// - a rename that fails puts back the files already replaced.
// An existing target that is not a regular file (a directory, a FIFO, a device) is refused.
bool write_files(std::vector<std::pair<std::string, std::string>> const& files, std::string& error);

// Writes `text` to standard output; false (with the reason) on a full device, a closed
// stream or a reader that went away.
bool write_stdout(std::string const& text, std::string& error);

// --language c -o -: the C header's name the source includes, and the one C file made of
// the header and the source without that #include line.
inline constexpr char const* stdout_c_header = "lagc_stdout.h";
std::string one_c_file(std::string const& header, std::string const& source);

// Makes writes report errors instead of killing lagc: SIGPIPE and SIGXFSZ ignored.
void report_write_errors_as_errors();

// Whether the two paths name one existing file.
bool same_file(std::string const& a, std::string const& b);

} // namespace lagc
