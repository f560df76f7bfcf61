// The distributed layer of vseg on MPI: distributions, the global indexer
// (take, put, take_v, put_v with reductions and extend), the multi-list
// indexer and distributed nested arrays. Link with vseg-mpi.
#pragma once

#include "vseg/dist/datatype.hpp"
#include "vseg/dist/distribution.hpp"
#include "vseg/dist/global_indexer.hpp"
#include "vseg/dist/lifted.hpp"
#include "vseg/dist/mesh.hpp"
#include "vseg/dist/multi_indexer.hpp"
#include "vseg/dist/nested.hpp"
#include "vseg/dist/reduce_op.hpp"
#include "vseg/dist/sharding.hpp"
#include "vseg/dist/variable.hpp"
