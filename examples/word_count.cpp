// Word counts with vseg (examples/word_count.hpp) on generated text, checked
// against a serial count with std::map. Exits non-zero on a mismatch.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "word_count.hpp"

int main() {
  std::mt19937_64 rng(11);
  std::vector<std::string> vocabulary(5000);
  for (auto& w : vocabulary)
    for (std::uint64_t k = 0, len = 1 + rng() % 9; k < len; ++k) w.push_back(static_cast<char>('a' + rng() % 26));
  std::string text = "  ";  // leading, repeated and trailing spaces are allowed
  for (int i = 0; i < 150'000; ++i) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    text += vocabulary[static_cast<std::size_t>(u * u * static_cast<double>(vocabulary.size()))];
    text += i % 97 == 0 ? "   " : " ";
  }
  std::map<std::string, std::int64_t> expect;
  for (std::size_t i = 0; i < text.size();) {
    while (i < text.size() && text[i] == ' ') ++i;
    const std::size_t s = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (i > s) ++expect[text.substr(s, i - s)];
  }
  const vseg::array<char> chars(std::vector<char>(text.begin(), text.end()));
  auto got = examples::spelled(chars, examples::word_counts(chars));
  std::sort(got.begin(), got.end());
  const bool ok = got == std::vector<std::pair<std::string, std::int64_t>>(expect.begin(), expect.end());
  std::cout << "word counts of " << text.size() << " characters: " << got.size() << " distinct words, "
            << (ok ? "ok" : "WRONG") << "\n";
  return ok ? 0 : 1;
}
