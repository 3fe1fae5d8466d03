//===- FuzzNpz.cpp - .npy and .npz files ----------------------------------===//
//
// Any bytes are read as a .npy file and as a .npz archive (every array,
// and a block of the first), and so are valid files (an .npy, a stored and
// a deflated .npz) edited as the bytes say (FuzzSupport.h): a tensor or an
// error, with no read past the data, no allocation the file's size does
// not justify, no crash.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "kiln/runtime.h"

#include <fstream>
#include <iterator>
#include <vector>

/// Frees `status` if it is an error; whether it was one.
static bool failed(kiln_status_t status) {
  kiln_status_free(status);
  return status != nullptr;
}

/// Reads the file at `path` every way there is.
static void readAll(const std::string &path) {
  kiln_tensor_t tensor;
  if (!failed(kiln_npy_read(path.c_str(), &tensor)))
    kiln_tensor_free(tensor);
  size_t count;
  char **names;
  kiln_tensor_t *tensors;
  if (failed(kiln_npz_read(path.c_str(), &count, &names, &tensors)))
    return;
  if (count) {
    // The block that leaves out the first row of the first array.
    int64_t rank = kiln_tensor_rank(tensors[0]);
    std::vector<int64_t> offsets(rank, 0);
    std::vector<int64_t> shape(kiln_tensor_shape(tensors[0]),
                               kiln_tensor_shape(tensors[0]) + rank);
    if (rank && shape[0]) {
      offsets[0] = 1;
      --shape[0];
    }
    if (!failed(kiln_npz_read_block(path.c_str(), names[0], rank,
                                    offsets.data(), shape.data(), &tensor)))
      kiln_tensor_free(tensor);
  }
  kiln_npz_free(count, names, tensors);
}

/// The bytes of a valid .npy, stored .npz and deflated .npz file.
static std::vector<std::string> validFiles() {
  int64_t shape[] = {3, 4};
  kiln_tensor_t floats, ints;
  if (failed(kiln_tensor_create(KILN_F32, 2, shape, nullptr, 0, &floats)) ||
      failed(kiln_tensor_create(KILN_I32, 1, shape, nullptr, 0, &ints)))
    kiln::fuzz::broken("cannot create the valid files' tensors");
  auto *values = static_cast<float *>(kiln_tensor_data(floats));
  for (int i = 0; i < 12; ++i)
    values[i] = float(i) / 3;
  std::string path = kiln::fuzz::writeInput("npz", nullptr, 0);
  const char *names[] = {"weights", "ids"};
  kiln_tensor_t tensors[] = {floats, ints};
  std::vector<std::string> files;
  auto read = [&] {
    std::ifstream file(path, std::ios::binary);
    files.emplace_back(std::istreambuf_iterator<char>(file),
                       std::istreambuf_iterator<char>());
  };
  if (failed(kiln_npy_write(path.c_str(), floats)))
    kiln::fuzz::broken("cannot write a .npy file");
  read();
  for (int compress : {0, 1}) {
    if (failed(kiln_npz_write(path.c_str(), 2, names, tensors, compress)))
      kiln::fuzz::broken("cannot write a .npz file");
    read();
  }
  kiln_tensor_free(floats);
  kiln_tensor_free(ints);
  return files;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::vector<std::string> valid = validFiles();
  readAll(kiln::fuzz::writeInput("npz", data, size));
  for (const std::string &file : valid) {
    std::string bytes = kiln::fuzz::edited(file, data, size);
    readAll(kiln::fuzz::writeInput(
        "npz", reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  }
  return 0;
}
