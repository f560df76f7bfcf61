// Delayed nested expressions: lifted indexing (index_l) and element-wise
// combination (zip_with). They convert to nested<T>, and the consumers of
// whole segments (sum_s, fold_s, concat, to_vectors) read them through the
// fusion protocol (vseg/nested/protocol.hpp) without writing the gathered
// elements: SpMV is sum_s(zip_with(multiplies, vals, index_l(replicate(n, x), cols))).
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/gather.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/nested/protocol.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// Materialises an expression into a new nested array (one block, flat).
// O(elements + segments).
template <nested_expression E>
nested<typename E::value_type> materialize(const E& e) {
  using T = typename E::value_type;
  const segd s = e.shape();
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  first_bad bad;
  for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                         [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                           const std::int64_t start = s.start(j);
                           auto c = expression_access::cursor(e, j, &bad, start);
                           for (std::int64_t k = lo; k < hi; ++k) o[k] = c(k - start);
                         });
  if (bad.any()) throw_expression_error(e, bad.position());
  return nested<T>::from_segd(s, std::move(out).freeze());
}

// Throws std::invalid_argument for zip_with operands of different shapes,
// naming the first segment whose lengths differ. O(segments) when it throws.
inline void check_same_shape(const segd& a, const segd& b) {
  if (a.lengths().data() == b.lengths().data() && a.lengths().size() == b.lengths().size()) return;
  if (a == b) return;
  if (a.segments() != b.segments())
    throw_invalid("zip_with", "the nested arrays have ", a.segments(), " and ", b.segments(),
                  " segments");
  std::int64_t j = 0;
  while (a.length(j) == b.length(j)) ++j;
  throw_invalid("zip_with", "segment ", j, " has ", a.length(j), " elements in the first nested array and ",
                b.length(j), " in the second");
}

}  // namespace detail

// Delayed lifted indexing: [[xss[k][i] | i <- iss[k]] | k], with indices of
// any integer type I (int32 column indices make SpMV move 12 bytes per
// non-zero instead of 16).
template <class T, std::integral I = std::int64_t>
class index_l_expr {
 public:
  using value_type = T;
  // Checks that xss and iss have as many segments. O(1).
  index_l_expr(nested<T> xss, nested<I> iss) : xss_(std::move(xss)), iss_(std::move(iss)) {
    if (xss_.size() != iss_.size())
      detail::throw_invalid("index_l", "the nested array has ", xss_.size(),
                            " segments but the index array has ", iss_.size());
  }
  // The shape of the result: that of the indices. O(1) when known.
  segd shape() const { return iss_.shape(); }
  // Flat when the indices are laid out as their shape and the source has a
  // single physical segment (every virtual segment names it, as after
  // replicate): then element k is src[iss[k]] for one src. O(1).
  bool flat() const noexcept { return iss_.flat() && xss_.descriptor_segments() == 1; }
  // The expression evaluated. O(result elements).
  operator nested<T>() const { return detail::materialize(*this); }

 private:
  friend struct detail::expression_access;

  detail::index_cursor<T, T, I> cursor(std::int64_t k, detail::first_bad* bad, std::int64_t base) const {
    auto src = xss_[k];
    return {src.data(), static_cast<std::int64_t>(src.size()), iss_[k].data(), bad, base};
  }
  detail::index_cursor<T, T, I> flat_cursor(detail::first_bad* bad) const {
    const T* src = xss_.blocks()[static_cast<std::size_t>(xss_.physical_sources()[0])].data() +
                   xss_.physical_starts()[0];
    return {src, xss_.physical_lengths()[0], detail::expression_access::flat_cursor(iss_, bad).data,
            bad, 0};
  }
  // Throws for the bad index at `position`, if this expression has one there.
  void throw_bad(std::int64_t position) const {
    const segd s = shape();
    // The virtual segment holding `position`: the last one starting at or before it.
    std::int64_t lo = 0, hi = s.segments() - 1;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (s.start(mid) <= position) lo = mid;
      else hi = mid - 1;
    }
    const std::int64_t k = lo, i = position - s.start(k);
    const std::int64_t index = static_cast<std::int64_t>(iss_[k][static_cast<std::size_t>(i)]);
    if (detail::in_range(index, xss_.length(k))) return;
    detail::throw_out_of_range("index_l", "index ", iss_[k][static_cast<std::size_t>(i)],
                               " at position ", i, " of segment ", k,
                               " outside that segment's length ", xss_.length(k));
  }

  nested<T> xss_;
  nested<I> iss_;
};

// Delayed element-wise combination of two nested expressions of one shape.
template <class F, nested_expression A, nested_expression B>
class zip_with_expr {
 public:
  using value_type = std::remove_cvref_t<
      std::invoke_result_t<const F&, typename A::value_type, typename B::value_type>>;
  // Checks that a and b have one shape: O(1) when they share it, O(segments) otherwise.
  zip_with_expr(F f, A a, B b) : f_(std::move(f)), a_(std::move(a)), b_(std::move(b)) {
    shape_ = a_.shape();
    detail::check_same_shape(shape_, b_.shape());
  }
  // The common shape. O(1).
  segd shape() const { return shape_; }
  // Flat when both operands are. O(1).
  bool flat() const noexcept
    requires flat_expression<A> && flat_expression<B>
  {
    return a_.flat() && b_.flat();
  }
  // The expression evaluated. O(elements).
  operator nested<value_type>() const { return detail::materialize(*this); }

 private:
  friend struct detail::expression_access;
  using access = detail::expression_access;

  auto cursor(std::int64_t k, detail::first_bad* bad, std::int64_t base) const {
    using CA = decltype(access::cursor(a_, k, bad, base));
    using CB = decltype(access::cursor(b_, k, bad, base));
    return detail::zip_cursor<F, CA, CB>{&f_, access::cursor(a_, k, bad, base),
                                         access::cursor(b_, k, bad, base)};
  }
  void throw_bad(std::int64_t position) const {
    access::throw_bad(a_, position);
    access::throw_bad(b_, position);
  }
  auto flat_cursor(detail::first_bad* bad) const
    requires flat_expression<A> && flat_expression<B>
  {
    using CA = decltype(access::flat_cursor(a_, bad));
    using CB = decltype(access::flat_cursor(b_, bad));
    return detail::zip_cursor<F, CA, CB>{&f_, access::flat_cursor(a_, bad),
                                         access::flat_cursor(b_, bad)};
  }

  F f_;
  A a_;
  B b_;
  segd shape_;
};

// Lifted indexing: [xss[k][is[k]] | k]. Reads only the elements it returns.
// O(segments). Throws std::out_of_range for an index outside its segment.
template <class T>
array<T> index_l(const nested<T>& xss, const array<std::int64_t>& is) {
  if (is.size() != xss.size())
    detail::throw_invalid("index_l", "the nested array has ", xss.size(),
                          " segments but there are ", is.size(), " indices");
  auto out = buffer<T>::for_overwrite(is.size());
  T* o = out.data();
  const std::int64_t* ix = is.data();
  detail::first_bad bad;
  if (xss.descriptor_segments() == 1) {
    // One physical segment (replicate, treeLookup's table): the checked
    // gather of bpermute, with no descriptor read per element (the
    // per-element chain of dependent descriptor loads left few gathers in
    // flight).
    const T* src = xss.blocks()[static_cast<std::size_t>(xss.physical_sources()[0])].data() +
                   xss.physical_starts()[0];
    const std::int64_t len = xss.physical_lengths()[0];
    // Captured by value: the stores to o cannot then alias them. An
    // output larger than the cache goes around it (streaming_store.hpp).
    detail::with_store_for(is.size() * static_cast<std::int64_t>(sizeof(T)), [&]<class Store>(Store) {
      detail::parallel_for(is.size(), [o, ix, src, len, &bad](std::int64_t lo, std::int64_t hi) {
        detail::gather_checked<T, std::int64_t, Store>(src, len, ix, lo, hi, o, bad);
        Store::fence();
      });
    });
  } else if (xss.blocks().size() == 1 && xss.identity_vsegids()) {
    // One data block, segment k is physical segment k (slice_l's result,
    // treeLookup's queries): two sequential descriptor reads per element
    // instead of the dependent chain through the vsegid and the source.
    const T* data = xss.blocks()[0].data();
    const std::int64_t *pst = xss.physical_starts().data(), *plen = xss.physical_lengths().data();
    detail::with_store_for(is.size() * static_cast<std::int64_t>(sizeof(T)), [&]<class Store>(Store) {
      detail::parallel_for(is.size(), [o, ix, data, pst, plen, &bad](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t k = lo; k < hi; ++k) {
          if (detail::in_range(ix[k], plen[k])) [[likely]] Store::put(o + k, data[pst[k] + ix[k]]);
          else bad.note(k);
        }
        Store::fence();
      });
    });
  } else {
    detail::parallel_for(is.size(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t k = lo; k < hi; ++k) {
        auto seg = xss[k];
        if (detail::in_range(ix[k], static_cast<std::int64_t>(seg.size()))) o[k] = seg[static_cast<std::size_t>(ix[k])];
        else bad.note(k);
      }
    });
  }
  if (bad.any()) {
    const std::int64_t k = bad.position();
    detail::throw_out_of_range("index_l", "index ", is[k], " outside segment ", k, " of length ",
                               xss.length(k));
  }
  return std::move(out).freeze();
}

// Lifted indexing: [[xss[k][i] | i <- iss[k]] | k], delayed: it converts to
// nested<T>, or fuses into zip_with, sum_s and fold_s without writing the
// gathered elements. O(1) to build, O(result elements) when evaluated. The
// indices may be of any integer type.
template <class T, std::integral I>
index_l_expr<T, I> index_l(const nested<T>& xss, const nested<I>& iss) {
  return {xss, iss};
}

// Element-wise f over two nested arrays (or delayed forms) of the same shape,
// delayed. O(1) to build when the shapes are shared, O(elements) when
// evaluated. Throws std::invalid_argument naming the first segment whose
// lengths differ.
template <class F, nested_expression A, nested_expression B>
zip_with_expr<F, A, B> zip_with(F f, const A& a, const B& b) {
  return {std::move(f), a, b};
}

// The delayed expression's segments as a vector of vectors. O(elements).
template <nested_expression E>
  requires(!std::same_as<E, nested<typename E::value_type>>)
std::vector<std::vector<typename E::value_type>> to_vectors(const E& e) {
  return to_vectors(detail::materialize(e));
}

}  // namespace vseg
