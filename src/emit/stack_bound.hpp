// The stack a generated function's arrays take, with the functions it calls: the part of
// its frame that grows with the model (M is nq², linearization's J (nq + nc)(2nq + nu)
// values), read off the bodies lagc writes. Scalar temporaries and saved registers come
// on top (the compiler's choice: a few hundred bytes to a few KiB).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace lagc {

class stack_bounds {
public:
    // The model's sizes, and the bytes of one scalar.
    stack_bounds(std::size_t nq, std::size_t nu, std::size_t nc, std::size_t holonomic, std::size_t scalar_bytes)
        : nq_(nq), nu_(nu), nc_(nc), nh_(holonomic), bytes_(scalar_bytes) {}
    // A function's body as written: its arrays and the functions it calls.
    void add(std::string const& name, std::string const& body);
    // Bytes of arrays in `name`'s frame and in the deepest chain of calls below it.
    std::size_t bound(std::string const& name) const;

private:
    struct frame {
        std::size_t arrays = 0;
        std::vector<std::string> callees;
    };
    std::size_t nq_, nu_, nc_, nh_, bytes_;
    std::map<std::string, frame> frames_;
    std::size_t size_of(std::string const& dimension) const;
};

} // namespace lagc
