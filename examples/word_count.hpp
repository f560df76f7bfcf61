// Word counts (a group-by-key) with vseg. Shared by examples/word_count.cpp
// and the benchmark bench/irregular.
//
// The words are found all at once from flags (a word starts at a letter
// after a space, ends at a letter before one), each word is keyed by a
// 64-bit hash of its letters, and reduce_by_key folds every key's (first
// position, count) pairs: the count is the word's frequency and the first
// position spells it. Two different words with equal hashes would be
// counted as one; with 64-bit hashes that is about 10^-9 likely for 10^5
// distinct words, and the examples check against an exact count.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vseg/vseg.hpp"

namespace examples {

// Where a distinct word first occurs, how long it is, how often it occurs.
struct word_total {
  std::int64_t first;
  std::int64_t length;
  std::int64_t count;
};

// The distinct space-separated words of text with their counts, ordered by
// the words' hashes. O(n log n) work for n characters (the sort of the keys).
inline vseg::array<word_total> word_counts(const vseg::array<char>& text) {
  const std::int64_t n = text.size();
  const auto letter = [&](std::int64_t i) { return i >= 0 && i < n && text[i] != ' '; };
  const auto starts = vseg::pack_index(vseg::tabulate(n, [&](std::int64_t i) { return letter(i) && !letter(i - 1); }));
  const auto ends = vseg::pack_index(vseg::tabulate(n, [&](std::int64_t i) { return letter(i) && !letter(i + 1); }));
  const auto hashes = vseg::zip_with([&](std::int64_t s, std::int64_t e) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the word's letters
    for (std::int64_t i = s; i <= e; ++i) h = (h ^ static_cast<unsigned char>(text[i])) * 0x100000001b3ULL;
    return h;
  }, starts, ends);
  const auto ones = vseg::zip_with([](std::int64_t s, std::int64_t e) { return word_total{s, e - s + 1, 1}; }, starts, ends);
  const auto first_and_count = vseg::make_monoid(
      [](const word_total& a, const word_total& b) { return word_total{a.count ? a.first : b.first, a.count ? a.length : b.length, a.count + b.count}; },
      word_total{0, 0, 0});
  return vseg::reduce_by_key(hashes, ones, first_and_count).second;
}

// The counts as (word, count) pairs.
inline std::vector<std::pair<std::string, std::int64_t>> spelled(const vseg::array<char>& text, const vseg::array<word_total>& totals) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& t : totals) out.emplace_back(std::string(text.data() + t.first, static_cast<std::size_t>(t.length)), t.count);
  return out;
}

}  // namespace examples
