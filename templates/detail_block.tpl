
namespace detail {{{helpers}}}  // namespace detail
