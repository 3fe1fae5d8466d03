//===- Npy.cpp - numpy's .npy format --------------------------------------===//
//
// Reads only plain little-endian arrays of the Kiln dtypes in C order; the
// header is parsed as the small literal dict numpy writes, never evaluated,
// so object arrays (pickles) are refused.
//
//===----------------------------------------------------------------------===//
#include "Npy.h"

#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <sstream>

using namespace kiln::runtime;

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLength = 6;

struct DtypeCode {
  const char *descr;
  kiln_dtype_t dtype;
};
/// numpy has no bf16: bf16 tensors are written and read by callers as f32.
/// A dtype is written as its first code; the unsigned ones after them are
/// read as the signed ints of the same bits (kiln's integers are signless;
/// an imported uint8 or uint32 entry takes those).
constexpr DtypeCode kCodes[] = {{"<f4", KILN_F32}, {"<f8", KILN_F64},
                                {"<f2", KILN_F16}, {"|b1", KILN_I1},
                                {"<i4", KILN_I32}, {"<i8", KILN_I64},
                                {"|i1", KILN_I8},  {"<i2", KILN_I16},
                                {"|u1", KILN_I8},  {"<u2", KILN_I16},
                                {"<u4", KILN_I32}, {"<u8", KILN_I64}};

/// The text after `'key':` in the header dict, up to the next item.
bool findValue(const std::string &header, const std::string &key,
               std::string &value) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return false;
  size_t colon = header.find(':', at);
  if (colon == std::string::npos)
    return false;
  value = header.substr(colon + 1);
  size_t start = value.find_first_not_of(' ');
  value = start == std::string::npos ? "" : value.substr(start);
  return true;
}

kiln_status_t parseShape(const std::string &text, const std::string &what,
                         std::vector<int64_t> &shape) {
  if (text.empty() || text[0] != '(')
    return error(what + ": the header's shape is not a tuple");
  size_t close = text.find(')');
  if (close == std::string::npos)
    return error(what + ": the header's shape is not closed");
  std::string inner = text.substr(1, close - 1);
  std::istringstream items(inner);
  std::string item;
  while (std::getline(items, item, ',')) {
    size_t start = item.find_first_not_of(' ');
    if (start == std::string::npos)
      continue; // the trailing comma of a 1-tuple
    item = item.substr(start, item.find_last_not_of(' ') - start + 1);
    if (item.empty() || item.size() > 18 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      return error(what + ": invalid dimension '" + item + "' in the shape");
    shape.push_back(std::stoll(item));
    if (shape.size() > 64)
      return error(what + ": the shape has more than 64 dimensions");
  }
  return nullptr;
}
} // namespace

kiln_status_t kiln::runtime::parseNpyHeader(const std::string &prefix,
                                            size_t size,
                                            const std::string &what,
                                            NpyLayout &layout) {
  if (prefix.size() < kMagicLength + 4 ||
      prefix.compare(0, kMagicLength, kMagic) != 0)
    return error(what + ": not a .npy file (bad magic)");
  auto byte = [&](size_t i) { return static_cast<uint8_t>(prefix[i]); };
  int major = byte(6);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = byte(8) | byte(9) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (prefix.size() < 12)
      return error(what + ": truncated header");
    headerLength = byte(8) | byte(9) << 8 | byte(10) << 16 |
                   static_cast<size_t>(byte(11)) << 24;
    headerStart = 12;
  } else {
    return error(what + ": unsupported .npy version " + std::to_string(major));
  }
  if (headerLength > kMaxNpyHeader)
    return error(what + ": header of " + std::to_string(headerLength) +
                 " bytes is larger than the " + std::to_string(kMaxNpyHeader) +
                 " allowed");
  if (prefix.size() < headerStart + headerLength)
    return error(what + ": truncated header");
  std::string header = prefix.substr(headerStart, headerLength);

  std::string descr, order, shape;
  if (!findValue(header, "descr", descr) ||
      !findValue(header, "fortran_order", order) ||
      !findValue(header, "shape", shape))
    return error(what + ": the header lacks descr, fortran_order or shape");
  const DtypeCode *code = nullptr;
  for (const DtypeCode &candidate : kCodes)
    if (descr.compare(0, 5, std::string("'") + candidate.descr + "'") == 0)
      code = &candidate;
  if (!code)
    return error(what + ": unsupported dtype " +
                 descr.substr(0, descr.find_first_of(",}")) +
                 " (supported: float32, float64, float16, bool, int8 to "
                 "int64, uint8 to uint64 read as the ints of the same bits; "
                 "little-endian, no objects)");
  if (order.compare(0, 5, "False") != 0)
    return error(what + ": Fortran-ordered arrays are not supported");
  layout.dtype = code->dtype;
  layout.shape.clear();
  if (kiln_status_t status = parseShape(shape, what, layout.shape))
    return status;
  if (kiln_status_t status =
          tensorByteLength(layout.dtype, layout.shape, what, layout.dataBytes))
    return status;
  layout.dataOffset = headerStart + headerLength;
  if (size < layout.dataOffset || size - layout.dataOffset != layout.dataBytes)
    return error(what + ": the header declares " +
                 std::to_string(layout.dataBytes) + " bytes of data but the " +
                 "file holds " +
                 std::to_string(size < layout.dataOffset
                                    ? 0
                                    : size - layout.dataOffset));
  return nullptr;
}

kiln_status_t kiln::runtime::readNpy(const std::string &image,
                                     const std::string &what,
                                     kiln_tensor_t *out) {
  NpyLayout layout;
  if (kiln_status_t status = parseNpyHeader(image, image.size(), what, layout))
    return status;
  kiln_tensor_t tensor =
      newTensor(layout.dtype, layout.shape, layout.dataBytes);
  if (!tensor)
    return error(what + ": out of memory");
  if (layout.dataBytes)
    std::memcpy(tensor->data.get(), image.data() + layout.dataOffset,
                layout.dataBytes);
  normalizeBooleans(tensor);
  *out = tensor;
  return nullptr;
}

std::string kiln::runtime::writeNpy(kiln_tensor_t tensor) {
  const char *descr = "<f4";
  for (const DtypeCode &code : kCodes)
    if (code.dtype == tensor->dtype) {
      descr = code.descr;
      break;
    }
  std::string shape;
  size_t rank = tensor->shape.size();
  for (size_t i = 0; i < rank; ++i)
    shape += std::to_string(tensor->shape[i]) + (rank == 1 ? "," : "") +
             (i + 1 < rank ? ", " : "");
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (" + shape +
                       "), }";
  // numpy pads the header with spaces and a newline to a multiple of 64.
  size_t total = kMagicLength + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string image(kMagic, kMagicLength);
  image += '\x01';
  image += '\x00';
  image += static_cast<char>(header.size() & 0xff);
  image += static_cast<char>(header.size() >> 8);
  image += header;
  image.append(static_cast<const char *>(tensor->data.get()),
               tensor->byteLength);
  return image;
}

kiln_status_t kiln::runtime::readFile(const char *path, std::string &contents) {
  if (!path)
    return error("path: must not be null");
  struct stat info;
  if (stat(path, &info) != 0)
    return error(std::string("cannot open ") + path);
  if (!S_ISREG(info.st_mode))
    return error(std::string(path) + " is not a regular file");
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return error(std::string("cannot open ") + path);
  try {
    contents.resize(static_cast<size_t>(info.st_size));
  } catch (const std::exception &) {
    return error(std::string("out of memory reading ") + path);
  }
  if (!file.read(contents.data(), info.st_size))
    return error(std::string("cannot read ") + path);
  return nullptr;
}

kiln_status_t kiln::runtime::writeFile(const char *path,
                                       const std::string &contents) {
  if (!path)
    return error("path: must not be null");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file || !file.write(contents.data(), contents.size()) || !file.flush())
    return error(std::string("cannot write ") + path);
  return nullptr;
}

kiln_status_t kiln_npy_read(const char *path, kiln_tensor_t *out) {
  if (!out)
    return error("out: must not be null");
  *out = nullptr;
  std::string image;
  if (kiln_status_t status = readFile(path, image))
    return status;
  return readNpy(image, path, out);
}

kiln_status_t kiln_npy_write(const char *path, kiln_tensor_t tensor) {
  if (!tensor)
    return error("tensor: must not be null");
  if (tensor->device != KILN_DEVICE_CPU)
    return error(std::string("tensor: is on ") +
                 kiln_device_name(tensor->device) +
                 "; copy it to the cpu first (kiln_tensor_copy_to)");
  if (kiln_status_t status = waitForProducer(tensor, "tensor"))
    return status;
  return writeFile(path, writeNpy(tensor));
}
