// vseg: nested data-parallel arrays with virtual segments. Every public header.
#pragma once

#include "vseg/algorithm.hpp"
#include "vseg/array.hpp"
#include "vseg/flat.hpp"
#include "vseg/matrix_market.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented.hpp"
#include "vseg/multilevel.hpp"
#include "vseg/nested.hpp"
#include "vseg/tuning.hpp"
