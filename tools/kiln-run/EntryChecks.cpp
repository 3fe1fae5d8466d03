//===- EntryChecks.cpp - what kiln-run's entry checks share ---------------===//
#include "EntryChecks.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace kiln {
namespace checks {

std::string TensorType::text() const {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text + kiln_dtype_name(dtype) + ">";
}

bool isFloat(kiln_dtype_t dtype) {
  return dtype == KILN_F32 || dtype == KILN_F64 || dtype == KILN_F16 ||
         dtype == KILN_BF16;
}

void readSignature(kiln_module_t module, const std::string &entry,
                   std::vector<TensorType> &args,
                   std::vector<TensorType> &results) {
  auto read = [&](bool isArg, int64_t i) {
    kiln_dtype_t dtype;
    int64_t rank;
    const int64_t *shape;
    (isArg ? kiln_module_entry_arg : kiln_module_entry_result)(
        module, entry.c_str(), i, &dtype, &rank, &shape);
    return TensorType{dtype, std::vector<int64_t>(shape, shape + rank)};
  };
  for (int64_t i = 0; i < kiln_module_entry_num_args(module, entry.c_str());
       ++i)
    args.push_back(read(true, i));
  for (int64_t i = 0;
       i < kiln_module_entry_num_results(module, entry.c_str()); ++i)
    results.push_back(read(false, i));
}

std::vector<double> toDoubles(kiln_tensor_t tensor) {
  kiln_dtype_t dtype = kiln_tensor_dtype(tensor);
  size_t n = kiln_tensor_byte_length(tensor) / kiln_dtype_size(dtype);
  const void *data = kiln_tensor_data(tensor);
  std::vector<double> values(n);
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
    case KILN_F64:
      values[i] = static_cast<const double *>(data)[i];
      break;
    case KILN_F32:
      values[i] = static_cast<const float *>(data)[i];
      break;
    case KILN_F16:
      values[i] = double(static_cast<const _Float16 *>(data)[i]);
      break;
    case KILN_BF16: {
      uint32_t bits = uint32_t(static_cast<const uint16_t *>(data)[i]) << 16;
      float f;
      std::memcpy(&f, &bits, sizeof f);
      values[i] = f;
      break;
    }
    case KILN_I1:
      values[i] = static_cast<const uint8_t *>(data)[i];
      break;
    case KILN_I8:
      values[i] = static_cast<const int8_t *>(data)[i];
      break;
    case KILN_I16:
      values[i] = static_cast<const int16_t *>(data)[i];
      break;
    case KILN_I32:
      values[i] = static_cast<const int32_t *>(data)[i];
      break;
    default:
      values[i] = double(static_cast<const int64_t *>(data)[i]);
      break;
    }
  }
  return values;
}

Tensor fromDoubles(const TensorType &type, const std::vector<double> &values) {
  std::vector<char> bytes(values.size() * kiln_dtype_size(type.dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type.dtype == KILN_F64)
      reinterpret_cast<double *>(bytes.data())[i] = values[i];
    else if (type.dtype == KILN_F32)
      reinterpret_cast<float *>(bytes.data())[i] = float(values[i]);
    else if (type.dtype == KILN_F16)
      reinterpret_cast<_Float16 *>(bytes.data())[i] = _Float16(values[i]);
    else {
      float f = float(values[i]);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      bits += 0x7fff + ((bits >> 16) & 1);
      reinterpret_cast<uint16_t *>(bytes.data())[i] = uint16_t(bits >> 16);
    }
  }
  Tensor tensor;
  Tensor::create(type.dtype, type.shape, bytes.data(), bytes.size(), tensor);
  return tensor;
}

Tensor zerosOf(const TensorType &type) {
  Tensor tensor;
  Tensor::create(type.dtype, type.shape, nullptr, 0, tensor);
  return tensor;
}

/// `source` with `functions` added to its top-level module: inside an
/// explicit `module { ... }` (JAX's exports have one: functions after it
/// would land in an implicit module around it, beside it), else at its end.
std::string withFunctions(const std::string &source,
                          const std::string &functions) {
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    size_t start = line.find_first_not_of(" \t\r");
    // Blank lines, comments and attribute or type aliases come first.
    if (start == std::string::npos || line.compare(start, 2, "//") == 0 ||
        line[start] == '#' || line[start] == '!')
      continue;
    size_t close = source.rfind('}');
    if (line.compare(start, 6, "module") != 0 || close == std::string::npos)
      break;
    return source.substr(0, close) + functions + source.substr(close);
  }
  return source + functions;
}

Module compileWithFunctions(const std::string &path,
                            const std::string &functions,
                            const CompileSource &compile,
                            const std::string &flag) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream source;
  source << in.rdbuf();
  char folder[] = "/tmp/kiln-check-XXXXXX";
  if (!in || !mkdtemp(folder)) {
    std::cerr << "kiln-run: error: " << flag << ": cannot copy " << path
              << " to a temporary folder\n";
    return Module();
  }
  size_t slash = path.rfind('/');
  std::string copy =
      std::string(folder) + "/" +
      (slash == std::string::npos ? path : path.substr(slash + 1));
  {
    std::ofstream(copy, std::ios::binary)
        << withFunctions(source.str(), functions);
  }
  kiln_module_t raw = nullptr;
  Status status(compile(copy, &raw));
  std::remove(copy.c_str());
  rmdir(folder);
  if (!status) {
    // Diagnostics name the user's file, not its copy.
    std::string message = status.message();
    for (size_t at; (at = message.find(copy)) != std::string::npos;)
      message.replace(at, copy.size(), path);
    std::cerr << "kiln-run: error: " << flag << ": " << message << "\n";
    return Module();
  }
  return Module(raw);
}

std::vector<Tensor> call(kiln_module_t module, const std::string &entry,
                         const std::vector<kiln_tensor_t> &args,
                         const std::string &flag) {
  size_t m = size_t(kiln_module_entry_num_results(module, entry.c_str()));
  std::vector<kiln_tensor_t> raw(m);
  Status status(kiln_module_call(module, entry.c_str(), args.size(),
                                 args.data(), m, raw.data()));
  std::vector<Tensor> results;
  if (!status) {
    std::cerr << "kiln-run: error: " << flag << ": " << status.message()
              << "\n";
    return results;
  }
  for (kiln_tensor_t r : raw)
    results.emplace_back(r);
  return results;
}

std::string joined(size_t count,
                   const std::function<std::string(size_t)> &item) {
  std::string text;
  for (size_t i = 0; i < count; ++i)
    text += (i ? ", " : "") + item(i);
  return text;
}

} // namespace checks
} // namespace kiln
