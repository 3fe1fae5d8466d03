//===- ShowSharding.cpp - a tensor's layout over the mesh as text ---------===//
#include "ShowSharding.h"

#include <sstream>
#include <vector>

namespace {

/// The mesh: axis names and sizes.
struct Mesh {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;

  /// Device `device`'s position along each axis (numbered row-major).
  std::vector<int64_t> coordinates(int64_t device) const {
    std::vector<int64_t> coords(sizes.size());
    for (size_t a = sizes.size(); a-- > 0;) {
      coords[a] = device % sizes[a];
      device /= sizes[a];
    }
    return coords;
  }
};

/// One tensor: `what`, its shape, and its split axes per dimension.
void showTensor(std::ostringstream &os, const Mesh &mesh, int64_t devices,
                const std::string &what, int64_t rank, const int64_t *shape,
                const std::vector<std::vector<int64_t>> &split) {
  os << what << "[";
  for (int64_t d = 0; d < rank; ++d)
    os << (d ? "," : "") << shape[d];
  os << "]:";
  std::vector<int64_t> parts(rank, 1);
  bool whole = true;
  for (int64_t d = 0; d < rank; ++d) {
    if (split[d].empty())
      continue;
    whole = false;
    os << " dimension " << d << " over";
    for (int64_t axis : split[d]) {
      os << " " << mesh.names[axis] << "(" << mesh.sizes[axis] << ")";
      parts[d] *= mesh.sizes[axis];
    }
    os << ";";
  }
  if (whole)
    os << " whole on every device";
  os << "\n";
  // The grid of the first two dimensions' parts (a vector's lie in a row);
  // further dimensions' parts are listed in the cells.
  int64_t rowDim = rank > 1 ? 0 : -1, columnDim = rank > 1 ? 1 : rank - 1;
  int64_t rows = rowDim < 0 ? 1 : parts[rowDim];
  int64_t columns = columnDim < 0 ? 1 : parts[columnDim];
  std::vector<std::vector<std::string>> cells(
      rows, std::vector<std::string>(columns));
  for (int64_t device = 0; device < devices; ++device) {
    std::vector<int64_t> coords = mesh.coordinates(device);
    std::vector<int64_t> place(rank, 0);
    for (int64_t d = 0; d < rank; ++d)
      for (int64_t axis : split[d])
        place[d] = place[d] * mesh.sizes[axis] + coords[axis];
    std::string &cell = cells[rowDim < 0 ? 0 : place[rowDim]]
                             [columnDim < 0 ? 0 : place[columnDim]];
    cell += (cell.empty() ? "" : " ") + std::to_string(device);
    bool further = false;
    for (int64_t d = 2; d < rank; ++d)
      further = further || parts[d] > 1;
    if (further) {
      cell += "(";
      for (int64_t d = 2; d < rank; ++d)
        cell += (d > 2 ? "," : "") + std::to_string(place[d]);
      cell += ")";
    }
  }
  size_t width = 0;
  for (auto &row : cells)
    for (auto &cell : row)
      width = std::max(width, cell.size());
  std::string rule = "  +";
  for (int64_t c = 0; c < columns; ++c)
    rule += std::string(width + 2, '-') + "+";
  os << rule << "\n";
  for (auto &row : cells) {
    os << "  |";
    for (auto &cell : row)
      os << " " << cell << std::string(width - cell.size(), ' ') << " |";
    os << "\n" << rule << "\n";
  }
}

} // namespace

std::string kiln::showSharding(kiln_module_t module, const std::string &entry) {
  std::ostringstream os;
  Mesh mesh;
  for (size_t a = 0; a < kiln_module_mesh_rank(module); ++a) {
    int64_t size;
    mesh.names.push_back(kiln_module_mesh_axis(module, a, &size));
    mesh.sizes.push_back(size);
  }
  int64_t devices = kiln_module_device_count(module);
  os << entry << " runs on " << devices << " device"
     << (devices == 1 ? "" : "s");
  if (!mesh.names.empty()) {
    os << " (mesh";
    for (size_t a = 0; a < mesh.names.size(); ++a)
      os << " " << mesh.names[a] << "=" << mesh.sizes[a];
    os << ")";
  }
  os << "\n";
  for (int isResult : {0, 1}) {
    int64_t count =
        isResult ? kiln_module_entry_num_results(module, entry.c_str())
                 : kiln_module_entry_num_args(module, entry.c_str());
    for (int64_t i = 0; i < count; ++i) {
      kiln_dtype_t dtype;
      int64_t rank;
      const int64_t *shape;
      if ((isResult ? kiln_module_entry_result
                    : kiln_module_entry_arg)(module, entry.c_str(), i, &dtype,
                                             &rank, &shape)) {
        os << "(cannot describe " << (isResult ? "result" : "arg") << i
           << ")\n";
        continue;
      }
      std::vector<std::vector<int64_t>> split(rank);
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t *axes;
        int64_t n = kiln_module_entry_split(module, entry.c_str(), isResult,
                                            i, d, &axes);
        split[d].assign(axes, axes + std::max<int64_t>(n, 0));
      }
      showTensor(os, mesh, devices,
                 std::string(isResult ? "out" : "arg") + std::to_string(i) +
                     " " + kiln_dtype_name(dtype),
                 rank, shape, split);
    }
  }
  return os.str();
}
