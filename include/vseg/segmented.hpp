// All segmented primitives over contiguous segment descriptors.
#pragma once

#include "vseg/segd.hpp"
#include "vseg/segmented/append.hpp"
#include "vseg/segmented/bpermute.hpp"
#include "vseg/segmented/bpermute_flagged.hpp"
#include "vseg/segmented/extract.hpp"
#include "vseg/segmented/fold.hpp"
#include "vseg/segmented/indices.hpp"
#include "vseg/segmented/iota.hpp"
#include "vseg/segmented/pack.hpp"
#include "vseg/segmented/permute.hpp"
#include "vseg/segmented/rank.hpp"
#include "vseg/segmented/replace.hpp"
#include "vseg/segmented/replicate.hpp"
#include "vseg/segmented/scan.hpp"
#include "vseg/segmented/segmented_array.hpp"
#include "vseg/segmented/tabulate.hpp"
