// Block and grain sizes, in one place (STYLE.md guideline 5).
//
// Every blocked algorithm in vseg splits its input into blocks whose size is a
// constant below, never a function of the thread count. That is what makes a
// floating-point reduction or scan bitwise identical on 1 and N threads: the
// partial results are formed over the same blocks and combined in the same
// order, whoever computes them.
#pragma once

#include <cstdint>

namespace vseg::tuning {

// Elements per block for reduce, scan, pack and the other flat primitives.
inline constexpr std::int64_t flat_block = 16384;

// Work items (elements + segments) per block for segmented primitives; the
// merge-path partition gives every block this many items, whatever the mix of
// segment lengths.
inline constexpr std::int64_t segmented_block = 16384;

// Up to this many elements (work items for the segmented primitives, sources
// for a scatter) a primitive runs its named serial version directly: the
// cost of spawning tasks would exceed the work. The one cutoff of the library
// (reduce, scan, pack, fold_s, scan_s, the scatters, rank_s's sort, segd's
// construction). Measured against the parallel paths at 1-64 Ki elements:
// the serial scatter and sort were as fast or faster up to 16 Ki, and the
// parallel ones ahead only from 32-64 Ki elements (two cores; the numbers
// are in the commit that set it).
inline constexpr std::int64_t serial_cutoff = 16384;

// A serial version over the whole input gives the blocked result bit for bit
// only while the input is one block, so the cutoff may not exceed a block.
static_assert(serial_cutoff <= flat_block && serial_cutoff <= segmented_block);

// Grain size for element-wise loops (map, tabulate, gathers): large enough
// that the loop body, not the scheduler, dominates. Equal to serial_cutoff,
// so an element-wise loop over at most that many elements runs serially like
// every other primitive. At 8192, the loops over 8-16 Ki elements forked two
// tasks each: a float add over 10,000 elements is a few microseconds of
// work, less than waking a sleeping worker, and Delaunay (thousands of such
// loops) ran slower on 2 threads than on 1 (notes/vcode.md, "Forks below
// the cutoff").
inline constexpr std::int64_t elementwise_grain = serial_cutoff;

// Grain for a loop that reads or writes one element of each segment
// (extract_s, replace_s) when the segments average a cache line or more
// (detail::one_per_segment_grain): each element is then a line of its own,
// and on 4 KiB pages a page of its own. radix's took ~5 ns each (15 us for
// 3,163), more than ten times an element of a contiguous loop, so a chunk
// of 1024 is still several microseconds of work. radix.10000000's loop of EXTRACTs and REPLACEs by
// one index over 3,163 segments of 3,162 keys (notes/vcode.md, radix) ran
// serially at 16384: EXTRACT 0.155 to 0.081 s, REPLACE 0.088 to 0.066 s;
// 512 was slower than 1024. At most 1,000 segments (radix.1000000) stay
// serial, where a split was measured slower.
inline constexpr std::int64_t one_per_segment_strided_grain = 1024;
inline constexpr std::int64_t cache_line_bytes = 64;

// A scatter into caller memory (scatter_into) with more destination elements
// per source than these sorts its (target, position) pairs, O(k log k) at
// ~130 ns per source, instead of filling a winner or mark per destination
// element, O(n). The first-wins path fills an int64 winner per element and
// crossed at ~160 elements per source; last-wins and the combining rules
// fill a byte mark and crossed at ~500 (last) and ~1,500 (plus). Measured
// with k = 20,000 and 200,000 sources into 4-64 Mi doubles, 2 threads.
inline constexpr std::int64_t sparse_scatter_ratio_winners = 256;
inline constexpr std::int64_t sparse_scatter_ratio_marks = 2048;

// Indices checked at a time by the checked gathers (detail/gather.hpp:
// bpermute, index_l over one physical segment) before they are gathered
// with the plain loop: 16 KiB of int64 indices, re-read from L1.
inline constexpr std::int64_t gather_check_block = 2048;

// Fixed blocks per task in the loops over merge-path blocks: a block is
// already segmented_block steps of work.
inline constexpr std::int64_t blocks_per_task = 1;

// Segments per task where one segment's work is itself large (rank_s sorts
// a segment, pack_s with few segments scans up to a block per segment).
inline constexpr std::int64_t segments_per_task = 1;

// Merge-path split points found per task: each is a binary search of
// O(log(segments)) steps.
inline constexpr std::int64_t merge_split_grain = 64;

// The grouped fold (detail/fold_range.hpp): a piece of a segment at least
// fold_group_min elements long is folded fold_group elements at a time, each
// group as a balanced tree, which takes the add latency off the chain
// through the accumulator; shorter pieces keep the plain left-to-right loop,
// which is faster there. Used by fold_s, sum_s and the fused nested folds
// (SpMV). Chosen by an interleaved run over 480 MB (sum_s-like folds with
// segments of 27, 100, 1024 elements and one giant one; SpMV-like fused folds
// with rows of 27 and 100), best of 15, three runs: grouping from 16 rather
// than 256 made the 100-element segments 10-20% faster (63-72 ms against
// 71-84 ms); groups of 4 and of 8 were within the noise everywhere (long
// folds are bound by memory, not by the adds, at that size), and 4 leaves a
// shorter tail in short rows.
inline constexpr std::int64_t fold_group = 4;
inline constexpr std::int64_t fold_group_min = 16;

// Sorting (detail/radix_sort.hpp, detail/merge_sort.hpp; the measurements
// are in notes/algorithms.md). The radix sort takes radix_bits bits per
// pass over fixed blocks of at least radix_block elements, at most
// radix_max_blocks of them (larger inputs get larger blocks); up to
// radix_small keys it sorts by comparison instead. The merge sort sorts
// runs of merge_run elements serially, then merges pairs of runs in rounds,
// each round cut into pieces of merge_piece output elements.
inline constexpr std::int64_t radix_bits = 8;
inline constexpr std::int64_t radix_small = 256;
inline constexpr std::int64_t radix_block = 65536;
inline constexpr std::int64_t radix_max_blocks = 256;
inline constexpr std::int64_t merge_run = 4096;
inline constexpr std::int64_t merge_piece = 65536;

// remove_duplicates, reduce_by_key and histogram_by_key
// (detail/hash_buckets.hpp) spread their input into buckets of at least
// about dedup_bucket values, at most 2^dedup_max_bucket_bits buckets (as
// many scatter streams as a radix pass: 2048 buckets spread 10^7 values
// in 89 ms of CPU time, 256 in 59), each scanned with a private table of
// at least dedup_table_start slots and dedup_table_slack slots per
// distinct key (10^7 int64 with 10% distinct: 2 slots per key took 25%
// more CPU time than 8, the probes ran long; 4 and 8 were within noise
// and 4 clears half the memory per bucket; notes/algorithms.md).
inline constexpr std::int64_t dedup_bucket = 8192;
inline constexpr std::int64_t dedup_max_bucket_bits = 8;
inline constexpr std::int64_t dedup_table_start = 1024;
inline constexpr std::int64_t dedup_table_slack = 4;
// A task scans a run of about this many buckets with one table (256
// buckets: about 32 tasks), so the table is sized once per task, not per
// bucket.
inline constexpr std::int64_t dedup_task_buckets = 8;

// Pieces of a float or double fold of at most this many elements are folded
// with no branch on their length (detail::fold_piece): segments of varied
// short length otherwise cost a mispredicted loop exit each. One core, in
// cache, segments of 1-4 doubles: 4.2 ns per segment against 7.4 for the
// loop (1-8: 6.6 against 9.0 with the longer ones still looping).
inline constexpr std::int64_t fold_short_max = 4;

// An output of at least this many bytes that a kernel writes one entry at a
// time (slice_l's new starts) goes through streaming stores
// (detail/streaming_store.hpp), which skip reading every written line
// first; smaller outputs stay in the cache for their reader. 32 MiB: the L3
// of the machine measured (notes/bench.md). Rejected for fold_s's results
// (notes/bench-primitives.md).
inline constexpr std::int64_t streaming_store_min_bytes = std::int64_t{32} << 20;

// fill(n, v) with v's bytes all zero returns a slice of the shared zero
// mapping (detail/index_buffers.hpp) instead of writing n copies once the
// fill takes at least this many bytes: 1 MiB, where writing the copies costs
// more than the mapping's few read faults (huge zero pages).
inline constexpr std::int64_t shared_zero_fill_min_bytes = std::int64_t{1} << 20;

// The shared zeros' mapping (detail/index_buffers.hpp) stays mapped after its
// last slice is dropped while it spans at most this many bytes: its pages,
// once read, keep mapping the kernel's zero page, and the next fill of zeros
// reads them without a fault. Dropped with its last slice, every fill mapped
// it again and faulted in every page it read (batcher's splats of 0 written
// out: 44,820 page faults a run, ~8 us each on this VM, notes/vcode.md). At
// most 2 MiB of page tables for 1 GiB read whole.
inline constexpr std::int64_t shared_zeros_kept_bytes = std::int64_t{1} << 30;

// The buffer allocator behind buffer<T> (lib/allocator.cpp; the policy and
// its measurements are in notes/allocator.md). Requests below
// allocator_small_limit bytes go to the global operator new; from
// allocator_pool_threshold bytes they come from the shared pool (best fit,
// free memory cached up to the cache limit, set_buffer_cache_limit).
// Between the two, each thread keeps allocator_thread_depth blocks per class
// of allocator_class_bytes, at most allocator_thread_cache_bytes in all.
inline constexpr std::int64_t allocator_small_limit = 1024;
inline constexpr std::int64_t allocator_pool_threshold = 64 * 1024;
inline constexpr std::int64_t allocator_class_bytes = 1024;
inline constexpr std::int64_t allocator_thread_depth = 4;
inline constexpr std::int64_t allocator_thread_cache_bytes = 2 * 1024 * 1024;
// Under fresh_pages::by_block_size (the default), pool blocks below this many
// bytes take small pages and larger ones huge pages. Zen 4's L2 TLB (this
// machine: family 25, model 17) holds 3,072 entries of 4 KiB pages, ~12 MiB
// (AMD's figure, not measured here), so a random access within a smaller block
// gains little from huge pages, while radix's 40 MB permutes measurably do
// (46% more user time on small pages, notes/allocator.md).
inline constexpr std::int64_t allocator_small_page_block_limit = 16 * 1024 * 1024;
// Under fresh_pages::by_cost, a fresh huge page (2 MiB) whose first write
// takes longer than this counts as cold: 1 ms per MiB, above the 0.4-0.7 ms
// per MiB of fresh small pages here and far above a warm huge page's ~0.1
// (bench/first_touch; notes/allocator.md, "Chosen by cost").
inline constexpr std::int64_t allocator_cold_huge_page_ns = 2'000'000;
// When the pool carves a small-page block past its high-water mark, the
// next this-many bytes past it are touched ahead on an idle worker
// (set_touch_ahead), in pieces of allocator_touch_piece_bytes, each free for
// blocks as soon as it is touched (notes/allocator.md, "Touched ahead").
inline constexpr std::int64_t allocator_touch_ahead_bytes = 16 * 1024 * 1024;
inline constexpr std::int64_t allocator_touch_piece_bytes = 1024 * 1024;

// The shared zero and iota index buffers (detail/index_buffers.hpp) grow in
// steps of at least this many entries, so small nested arrays share one.
inline constexpr std::int64_t index_buffer_step = std::int64_t{1} << 16;

// Up to this many threads, a scatter where the later position wins when a
// target repeats (permute_default, scatter with last_wins) cuts the targets
// into one range per thread and has every thread read every index
// (detail::scatter_last_wins_by_range), instead of first storing a mark per
// target to find out whether any repeats. A thread's sequential read of an
// index costs a fraction of the random store it decides (the marked pass
// makes two); past a few threads the reads of every index by every thread
// outgrow the stores they share. On two threads, 0.9M sources into 2.7M
// INTs: 1.2 ms against 1.7 ms with distinct targets and 5.9 ms with repeated
// ones (the marks, then a serial pass); 8 is that ratio's estimate, not a
// measurement on 8 cores.
inline constexpr int scatter_by_range_threads_max = 8;

}  // namespace vseg::tuning
