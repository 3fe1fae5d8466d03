//===- ShowSharding.h - a tensor's layout over the mesh as text -*- C++ -*-===//
#ifndef KILN_TOOLS_KILNRUN_SHOWSHARDING_H
#define KILN_TOOLS_KILNRUN_SHOWSHARDING_H

#include "kiln/runtime.h"

#include <string>

namespace kiln {

/// How `entry` of a partitioned `module` lays out each argument and result
/// over its mesh, as jax.debug.visualize_array_sharding draws it: per
/// tensor, which axes split each dimension, and a grid of its blocks
/// (rows: the first dimension's parts, columns: the second's) naming the
/// devices that hold each.
std::string showSharding(kiln_module_t module, const std::string &entry);

} // namespace kiln

#endif // KILN_TOOLS_KILNRUN_SHOWSHARDING_H
