// Word counts (a group-by-key) with vseg. Shared by examples/word_count.cpp
// and the benchmark bench/irregular.
//
// The words are found all at once from flags (a word starts at a letter
// after a space, ends at a letter before one), each word is keyed by a
// 64-bit hash of its letters; reduce_by_key finds every key's first
// position (a minimum: it spells the word) and histogram_by_key its count.
// Two hash passes rather than one reduce of (first, count) pairs, for
// peak memory: 16 bytes a word reach each (hash and start; the ends are
// freed before), and each spreads at most 16 more, where the pairs took
// 24 + 24 (1.6x ParlayLib's peak RSS, against 1.5x allowed). Two different words with equal hashes would be
// counted as one; with 64-bit hashes that is about 10^-9 likely for 10^5
// distinct words, and the examples check against an exact count.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vseg/vseg.hpp"

namespace examples {

// Where a distinct word first occurs and how often it occurs (its length
// is found from the text: the word runs to the next space).
struct word_total {
  std::int64_t first;
  std::int64_t count;
};

namespace detail {

// Per word of text, its 64-bit FNV-1a hash and its start. The word ends
// live only in here, so they are freed before the reduce.
inline std::pair<vseg::array<std::uint64_t>, vseg::array<std::int64_t>> hashed_words(const vseg::array<char>& text) {
  const std::int64_t n = text.size();
  const auto letter = [&](std::int64_t i) { return i >= 0 && i < n && text[i] != ' '; };
  auto starts = vseg::pack_index(vseg::tabulate(n, [&](std::int64_t i) { return letter(i) && !letter(i - 1); }));
  const auto ends = vseg::pack_index(vseg::tabulate(n, [&](std::int64_t i) { return letter(i) && !letter(i + 1); }));
  auto hashes = vseg::zip_with([&](std::int64_t s, std::int64_t e) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the word's letters
    for (std::int64_t i = s; i <= e; ++i) h = (h ^ static_cast<unsigned char>(text[i])) * 0x100000001b3ULL;
    return h;
  }, starts, ends);
  return {std::move(hashes), std::move(starts)};
}

}  // namespace detail

// The distinct space-separated words of text with their counts, ordered by
// the words' hashes. O(n) expected work for n characters (hashing; only
// the distinct words are sorted).
inline vseg::array<word_total> word_counts(const vseg::array<char>& text) {
  const auto [hashes, starts] = detail::hashed_words(text);
  // Both list the distinct hashes ascending, so their entries line up.
  const auto firsts = vseg::reduce_by_key(hashes, starts, vseg::minimum<std::int64_t>{}).second;
  const auto counts = vseg::histogram_by_key(hashes).second;
  return vseg::zip_with([](std::int64_t f, std::int64_t c) { return word_total{f, c}; }, firsts, counts);
}

// The counts as (word, count) pairs.
inline std::vector<std::pair<std::string, std::int64_t>> spelled(const vseg::array<char>& text, const vseg::array<word_total>& totals) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& t : totals) {
    std::int64_t end = t.first;
    while (end < text.size() && text[end] != ' ') ++end;
    out.emplace_back(std::string(text.data() + t.first, static_cast<std::size_t>(end - t.first)), t.count);
  }
  return out;
}

}  // namespace examples
