"""Prints a function with N nested kiln.cond regions (N + 1 brace levels)."""
import sys

n = int(sys.argv[1])
print("func.func @deep(%p: tensor<i1>) {")
print("kiln.cond %p {\n" * n, end="")
print("kiln.yield } else { kiln.yield }\n" * n, end="")
print("return }")
