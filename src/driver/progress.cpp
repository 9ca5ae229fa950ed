// The status line (progress.hpp).
#include "driver/progress.hpp"

namespace lagc {

progress_line::progress_line(std::FILE* out, std::string file, bool every_step, bool terminal,
                             std::chrono::milliseconds delay)
    : out_(out), file_(std::move(file)), every_step_(every_step), terminal_(terminal), delay_(delay),
      start_(std::chrono::steady_clock::now()) {
    if (every_step_ || !terminal_) return;
    ticker_ = std::jthread([this](std::stop_token stop) {
        std::unique_lock lock(mutex_);
        auto never = [] { return false; }; // wakes at the time, or when finish() asks it to stop
        wake_.wait_for(lock, stop, delay_, never);
        while (!stop.stop_requested()) {
            draw();
            wake_.wait_for(lock, stop, std::chrono::seconds(1), never);
        }
    });
}

double progress_line::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void progress_line::draw() {
    if (current_.empty()) return;
    // '\r' and "erase to the end of the line" (ECMA-48 EL), which terminals understand.
    std::fprintf(out_, "\r\x1b[Klagc: %s: %s (%.0f s)", file_.c_str(), current_.c_str(), elapsed());
    std::fflush(out_);
    shown_ = true;
}

void progress_line::step(std::string const& what) {
    std::lock_guard lock(mutex_);
    current_ = what;
    if (every_step_) {
        std::fprintf(out_, "lagc: %s: %s (%.1f s)\n", file_.c_str(), what.c_str(), elapsed());
        std::fflush(out_);
    } else if (shown_) {
        draw();
    }
}

void progress_line::finish() {
    if (ticker_.joinable()) {
        ticker_.request_stop();
        ticker_.join();
    }
    std::lock_guard lock(mutex_);
    if (shown_) std::fputs("\r\x1b[K", out_), std::fflush(out_);
    shown_ = false;
}

} // namespace lagc
