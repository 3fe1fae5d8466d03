//===- KilnInterfaces.cpp - the per-op rules of the transformations -------===//
#include "kiln/KilnInterfaces.h"

#include "kiln/KilnInterfaces.cpp.inc"
