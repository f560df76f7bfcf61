// vseg-vcode: runs a VCODE program (as emitted by the NESL compiler) on vseg.
//
//   vseg-vcode [-m WORDS] [-t|--threads N] [--stats] [--sandbox] program.vcode
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <chrono>
#include <memory>

#include "vseg/detail/allocator.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/vcode/interpreter.hpp"
#include "vseg/vcode/program.hpp"

namespace {

void usage(std::FILE* to) {
  std::fputs(
      "usage: vseg-vcode [options] program.vcode\n"
      "Runs a VCODE program (NESL's intermediate language) on vseg and prints\n"
      "the final stack to standard output, as NESL's vinterp does.\n"
      "\n"
      "options:\n"
      "  -m WORDS          limit the vectors on the stack to WORDS 8-byte words\n"
      "  -t, --threads N   use at most N threads (default: all cores)\n"
      "  --stats           print the instruction count and time, and the time per operation, to standard error\n"
      "  --stats-shapes    --stats, plus the time per operation and operand shapes (sizes of the top stack entries)\n"
      "  --trace           print every instruction and the stack's shape to standard error\n"
      "  --sandbox         refuse SPAWN, FOPEN, FCLOSE, FREAD, FREAD_CHAR and FWRITE (see below)\n"
      "  --fresh-pages P   by-cost (the default): back vector memory by small pages below 16 MiB\n"
      "                    and huge ones above, until a fresh huge page is timed slower than\n"
      "                    1 ms per MiB, then by small pages; by-size: without the timing;\n"
      "                    or all by huge or all by small pages\n"
      "  --touch-ahead MIB touch this many MiB of fresh memory ahead on an idle thread\n"
      "                    (default 16; 0: none)\n"
      "  -h, --help        show this help\n"
      "\n"
      "A program is as trusted as a shell script: SPAWN runs any command and FOPEN\n"
      "opens any file you may read or write (NESL's design). Run a program you do\n"
      "not trust with --sandbox: those operations then stop it with an error\n"
      "naming the line, and only READ and WRITE (standard input and error) remain.\n",
      to);
}

bool parse_count(const char* text, long long& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(text, &end, 10);
  return errno == 0 && *end == '\0' && out > 0;
}

}  // namespace

int main(int argc, char** argv) {
  vseg::vcode::run_options options;
  long long threads = 0;
  bool stats = false;
  vseg::fresh_pages fresh_pages = vseg::fresh_pages::by_cost;
  long long touch_ahead_mib = vseg::touch_ahead() >> 20;
  const char* file = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    }
    if (a == "-m" || a == "-t" || a == "--threads") {
      long long v = 0;
      if (i + 1 >= argc || !parse_count(argv[i + 1], v)) {
        std::fprintf(stderr, "vseg-vcode: %s needs a positive integer\n", a.c_str());
        usage(stderr);
        return 2;
      }
      ++i;
      if (a == "-m") options.memory_words = v;
      else threads = v;
    } else if (a == "--fresh-pages") {
      const std::string p = i + 1 < argc ? argv[i + 1] : "";
      if (p == "by-size") fresh_pages = vseg::fresh_pages::by_block_size;
      else if (p == "huge") fresh_pages = vseg::fresh_pages::huge;
      else if (p == "small") fresh_pages = vseg::fresh_pages::small;
      else if (p == "by-cost") fresh_pages = vseg::fresh_pages::by_cost;
      else {
        std::fprintf(stderr, "vseg-vcode: --fresh-pages needs by-size, by-cost, huge or small, not '%s'\n", p.c_str());
        usage(stderr);
        return 2;
      }
      ++i;
    } else if (a == "--touch-ahead") {
      long long v = 0;
      const bool zero = i + 1 < argc && std::string(argv[i + 1]) == "0";
      if (!zero && (i + 1 >= argc || !parse_count(argv[i + 1], v) || v > (1LL << 30))) {
        std::fprintf(stderr, "vseg-vcode: --touch-ahead needs a number of MiB from 0 to 2^30\n");
        usage(stderr);
        return 2;
      }
      touch_ahead_mib = v;
      ++i;
    } else if (a == "--sandbox") {
      options.sandbox = true;
    } else if (a == "--trace") {
      options.trace = true;
    } else if (a == "--stats" || a == "--stats-shapes") {
      stats = true;
      options.profile = true;
      options.profile_shapes = a == "--stats-shapes";
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "vseg-vcode: unknown option %s\n", a.c_str());
      usage(stderr);
      return 2;
    } else if (file != nullptr) {
      std::fprintf(stderr, "vseg-vcode: more than one program given\n");
      return 2;
    } else {
      file = argv[i];
    }
  }
  if (file == nullptr) {
    std::fprintf(stderr, "vseg-vcode: no program given\n");
    usage(stderr);
    return 2;
  }
  // The three policies measured in notes/allocator.md ("Small pages for blocks below 16 MiB").
  vseg::set_fresh_pages(fresh_pages);
  vseg::set_touch_ahead(touch_ahead_mib << 20);
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    std::fprintf(stderr, "vseg-vcode: %s is a directory, not a VCODE program\n", file);
    return 1;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "vseg-vcode: cannot open %s: %s\n", file, std::strerror(errno));
    return 1;
  }
  std::ostringstream text;
  text << in.rdbuf();

  // A count beyond an int is capped, not wrapped (-t 4294967296 wrapped to
  // 0, and thread_limit's exception then aborted the tool).
  std::unique_ptr<vseg::detail::thread_limit> limit;
  if (threads > 0) limit = std::make_unique<vseg::detail::thread_limit>(static_cast<int>(std::min(threads, 1LL << 20)));
  try {
    const vseg::vcode::program prog = vseg::vcode::parse(text.str());
    const auto start = std::chrono::steady_clock::now();
    const auto result = vseg::vcode::run(prog, options);
    if (stats) {
      const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
      std::fprintf(stderr, "vseg-vcode: %lld instructions in %.6f s\n",
                   static_cast<long long>(result.instructions), t.count());
      for (const auto& p : result.profile)
        std::fprintf(stderr, "  %-20s %10lld  %10.6f s\n", p.op.c_str(), static_cast<long long>(p.count), p.seconds);
      // The buffer pool: how much fresh memory the run carved (first touches) against its reuse.
      const vseg::allocator_statistics pool = vseg::allocator_stats();
      std::fprintf(stderr, "  pool: %.1f MiB carved (live at most %.1f), %lld fresh blocks, %lld reused, %lld from malloc\n",
                   static_cast<double>(pool.pool_bytes) / (1 << 20),
                   static_cast<double>(pool.peak_in_use_bytes) / (1 << 20), static_cast<long long>(pool.fresh_blocks),
                   static_cast<long long>(pool.reused_blocks), static_cast<long long>(pool.fallback_blocks));
      if (pool.huge_page_probes > 0)
        std::fprintf(stderr, "  fresh huge pages: %lld timed, %s\n", static_cast<long long>(pool.huge_page_probes),
                     pool.huge_pages_cold ? "cold (large blocks then took small pages)" : "never cold");
      if (!result.shapes.empty()) std::fprintf(stderr, "by operand shapes (the 40 costliest):\n");
      for (std::size_t k = 0; k < result.shapes.size() && k < 40; ++k)
        std::fprintf(stderr, "  %10lld  %10.6f s  %s\n", static_cast<long long>(result.shapes[k].count),
                     result.shapes[k].seconds, result.shapes[k].op.c_str());
    }
  } catch (const vseg::vcode::error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "vseg-vcode: %s: %s\n", file, e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "vseg-vcode: %s: %s\n", file, e.what());
    return 1;
  }
  return 0;
}
