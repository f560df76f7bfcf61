// All flat primitives.
#pragma once

#include "vseg/flat/append.hpp"
#include "vseg/flat/combine.hpp"
#include "vseg/flat/expand.hpp"
#include "vseg/flat/map.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/flat/reduce.hpp"
#include "vseg/flat/scan.hpp"
#include "vseg/flat/tabulate.hpp"
