// The memory policy of the vseg-vcode tool (not of the library): how the
// process's heap serves the interpreter's vectors. Linked into the tool
// only; it replaces the global operator new and delete.
#pragma once

namespace vseg::vcode::tool {

// Sets glibc's heap up for the interpreter (see heap.cpp). Call once, first
// thing in main(), before any big allocation.
void configure_heap();

}  // namespace vseg::vcode::tool
