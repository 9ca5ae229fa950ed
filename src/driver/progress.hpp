// What lagc is doing, on standard error, while it works: `--progress` prints every step
// on a line of its own (for build logs); otherwise, on a terminal, one status line is
// drawn once the run has taken a second and redrawn every second with the step and the
// time so far, then erased before the diagnostics. Pipes and files get nothing unasked,
// so scripts and tests see only the diagnostics.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace lagc {

class progress_line {
public:
    // `out`: where to write (stderr); `every_step`: --progress; `terminal`: whether `out` is
    // one; `delay`: how long a run goes before the status line appears.
    progress_line(std::FILE* out, std::string file, bool every_step, bool terminal,
                  std::chrono::milliseconds delay = std::chrono::seconds(1));
    progress_line(progress_line const&) = delete;
    progress_line& operator=(progress_line const&) = delete;
    ~progress_line() { finish(); }

    // Whether anything will be shown (else the compiler need not report its steps).
    bool wanted() const { return every_step_ || terminal_; }

    // A step begins ("deriving the equations of motion", "generating mass_matrix").
    void step(std::string const& what);

    // Stops the status line and erases it (before diagnostics are printed).
    void finish();

private:
    std::FILE* out_;
    std::string file_;
    bool every_step_, terminal_;
    std::chrono::milliseconds delay_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable_any wake_;
    std::string current_;
    bool shown_ = false;
    std::jthread ticker_; // last: started once everything it reads exists

    double elapsed() const;
    void draw(); // with mutex_ held
};

} // namespace lagc
