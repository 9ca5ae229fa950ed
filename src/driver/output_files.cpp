// Bounded reads and transactional writes (see output_files.hpp). POSIX only.
#include "driver/output_files.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lagc {

namespace {

std::string reason() { return std::strerror(errno); }

bool write_whole(int fd, std::string const& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

std::string directory_of(std::string const& path) {
    std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string file_name_of(std::string const& path) {
    std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Whether the regular file at `path` holds exactly `content` (read with a bound).
bool holds(std::string const& path, std::string const& content) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return false;
    struct stat st {};
    bool same = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) == content.size();
    std::string old;
    if (same) {
        old.resize(content.size() + 1);
        std::size_t got = 0;
        while (got < old.size()) {
            ssize_t n = ::read(fd, old.data() + got, old.size() - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
        }
        same = got == content.size() && old.compare(0, got, content) == 0;
    }
    ::close(fd);
    return same;
}

// Signals that would end lagc, held back while files change.
struct held_signals {
    sigset_t old{};
    held_signals() {
        sigset_t set;
        sigemptyset(&set);
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2}) sigaddset(&set, s);
        sigprocmask(SIG_BLOCK, &set, &old);
    }
    ~held_signals() { sigprocmask(SIG_SETMASK, &old, nullptr); }
};

// An exclusive lock on a directory, held while its files are replaced (none if the
// directory cannot be opened for reading: writing then still works, unserialised).
struct directory_lock {
    int fd = -1;
    explicit directory_lock(std::string const& dir) {
        fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0)
            while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    ~directory_lock() {
        if (fd >= 0) ::close(fd); // closing releases the lock
    }
};

struct pending {
    std::string path, temporary, backup;
    bool existed = false, skipped = false, replaced = false;
};

void remove_all(std::vector<pending>& files) {
    for (auto& f : files) {
        if (!f.temporary.empty()) ::unlink(f.temporary.c_str());
        if (!f.backup.empty()) ::unlink(f.backup.c_str());
        f.temporary.clear();
        f.backup.clear();
    }
}

// A new, empty, exclusively created file beside `path`; its name in `name`. The name holds
// lagc's process id, so that a later run can tell a killed run's leftovers from a live one's.
int create_temporary(std::string const& path, std::string& name) {
    std::string pattern =
        directory_of(path) + "/." + file_name_of(path) + "." + std::to_string(::getpid()) + ".XXXXXX.lagc-tmp";
    int fd = ::mkostemps(pattern.data(), 9, O_CLOEXEC);
    if (fd >= 0) name = pattern;
    return fd;
}

bool write_temporary(pending& f, std::string const& content, mode_t mode, std::string& error) {
    int fd = create_temporary(f.path, f.temporary);
    if (fd < 0) {
        error = "cannot write '" + f.path + "': " + reason();
        return false;
    }
    // On disk before the rename: a crash after it finds the new content, never an empty file.
    bool ok = write_whole(fd, content) && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
    if (!ok) error = "cannot write '" + f.path + "': " + reason();
    if (::close(fd) != 0 && ok) {
        ok = false;
        error = "cannot write '" + f.path + "': " + reason();
    }
    return ok;
}

// A hard link to the file at f.path, so that it can be put back.
bool make_backup(pending& f) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string name = directory_of(f.path) + "/." + file_name_of(f.path) + ".lagc-bak-" +
                           std::to_string(::getpid()) + "-" + std::to_string(attempt);
        if (::link(f.path.c_str(), name.c_str()) == 0) {
            f.backup = name;
            return true;
        }
        if (errno != EEXIST) return false;
    }
    return false;
}

// The process id in a leftover's name ".NAME.PID.XXXXXX.lagc-tmp" or ".NAME.lagc-bak-PID-N"
// of the file NAME, or 0 when the entry is not one.
pid_t leftover_owner(std::string const& entry, std::string const& name) {
    std::string const head = "." + name + ".";
    if (entry.rfind(head, 0) != 0) return 0;
    std::string rest = entry.substr(head.size());
    bool const backup = rest.rfind("lagc-bak-", 0) == 0;
    if (backup) rest = rest.substr(9);
    else if (rest.size() < 9 || rest.compare(rest.size() - 9, 9, ".lagc-tmp") != 0) return 0;
    std::size_t digits = 0;
    while (digits < rest.size() && digits < 9 && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 0 || digits == rest.size() || rest[digits] != (backup ? '-' : '.')) return 0;
    return static_cast<pid_t>(std::stol(rest.substr(0, digits)));
}

// Removes what runs killed between writing and renaming left beside `path`: temporaries
// and backups whose process is gone (a live run's stay).
void remove_leftovers(std::string const& path) {
    std::string const dir = directory_of(path), name = file_name_of(path);
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    std::vector<std::string> stale;
    while (dirent* e = ::readdir(d)) {
        pid_t const owner = leftover_owner(e->d_name, name);
        if (owner > 0 && owner != ::getpid() && ::kill(owner, 0) != 0 && errno == ESRCH) stale.push_back(e->d_name);
    }
    ::closedir(d);
    for (auto const& s : stale) ::unlink((dir + "/" + s).c_str());
}

// The directory's entries on disk (the renames), where the file system allows it.
void sync_directory(std::string const& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

void roll_back(std::vector<pending>& files) {
    for (auto& f : files) {
        if (!f.replaced) continue;
        if (!f.backup.empty() && ::rename(f.backup.c_str(), f.path.c_str()) == 0) f.backup.clear();
        else if (!f.existed) ::unlink(f.path.c_str());
    }
}

} // namespace

bool read_source(std::string const& path, std::size_t max_bytes, std::string& text, std::string& error) {
    bool const standard_input = path == "-";
    std::string const shown = standard_input ? "standard input" : "'" + path + "'";
    int fd = standard_input ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = "cannot read " + shown + ": " + reason();
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        error = shown + " is a directory, not a model file";
        if (!standard_input) ::close(fd);
        return false;
    }
    text.clear();
    char buffer[1 << 16];
    bool ok = true;
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = "cannot read " + shown + ": " + reason();
            ok = false;
            break;
        }
        if (n == 0) break;
        if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
            error = "cannot read " + shown + ": it is larger than " + std::to_string(max_bytes >> 20) +
                    " MiB, the largest model lagc reads";
            ok = false;
            break;
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
    if (!standard_input) ::close(fd);
    return ok;
}

bool write_files(std::vector<std::pair<std::string, std::string>> const& targets, std::string& error) {
    std::vector<pending> files;
    mode_t const mask = ::umask(0);
    ::umask(mask);
    held_signals hold; // from the first temporary file to the last rename
    for (auto const& target : targets) remove_leftovers(target.first);
    for (auto const& [path, content] : targets) {
        pending f;
        f.path = path;
        mode_t mode = 0666 & ~mask;
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0) {
            if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
                error = "cannot write '" + path + "': it exists and is not a regular file";
                remove_all(files);
                return false;
            }
            if (S_ISREG(st.st_mode)) mode = st.st_mode & 07777;
        }
        files.push_back(f);
        if (!write_temporary(files.back(), content, mode, error)) {
            remove_all(files);
            return false;
        }
    }
    directory_lock lock(targets.empty() ? "." : directory_of(targets.front().first));
    for (std::size_t i = 0; i < files.size(); ++i) {
        pending& f = files[i];
        struct stat st {};
        f.existed = ::lstat(f.path.c_str(), &st) == 0;
        if (f.existed && S_ISREG(st.st_mode) && holds(f.path, targets[i].second)) {
            ::unlink(f.temporary.c_str());
            f.temporary.clear();
            f.skipped = true;
        } else if (f.existed && !make_backup(f)) {
            f.backup.clear();
        }
    }
    for (auto& f : files) {
        if (f.skipped) continue;
        if (::rename(f.temporary.c_str(), f.path.c_str()) != 0) {
            error = "cannot write '" + f.path + "': " + reason();
            roll_back(files);
            remove_all(files);
            return false;
        }
        f.temporary.clear();
        f.replaced = true;
    }
    remove_all(files); // the backups
    sync_directory(targets.empty() ? "." : directory_of(targets.front().first));
    return true;
}

std::string one_c_file(std::string const& header, std::string const& source) {
    std::string const include = std::string("#include \"") + stdout_c_header + "\"\n";
    std::string body = source;
    if (std::size_t const at = body.find(include); at != std::string::npos) body.erase(at, include.size());
    std::string const named = std::string("the API ") + stdout_c_header + " declares";
    if (std::size_t const at = body.find(named); at != std::string::npos) body.replace(at, named.size(), "the API above declares");
    return header + "\n" + body;
}

bool write_stdout(std::string const& text, std::string& error) {
    if (!write_whole(1, text)) {
        error = "cannot write to standard output: " + reason();
        return false;
    }
    return true;
}

void report_write_errors_as_errors() {
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
}

bool same_file(std::string const& a, std::string const& b) {
    struct stat x {}, y {};
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

} // namespace lagc
