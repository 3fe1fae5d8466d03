//===- CheckGrads.cpp - kiln-run --check-grads ----------------------------===//
//
// The entry's derivatives are built by the compiler itself: the source is
// compiled again with two more functions, a kiln.jvp and a kiln.vjp of the
// entry, and those are compared with the entry's own values (finite
// differences) and with each other (the dot-product test), as JAX's
// check_grads does.
//
//===----------------------------------------------------------------------===//
#include "CheckGrads.h"
#include "kiln/runtime.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace kiln {
namespace {

const char *const kJvpEntry = "__kiln_check_jvp";
const char *const kVjpEntry = "__kiln_check_vjp";
/// Random directions per argument.
constexpr int kDirections = 3;

bool isFloat(kiln_dtype_t dtype) {
  return dtype == KILN_F32 || dtype == KILN_F64 || dtype == KILN_F16 ||
         dtype == KILN_BF16;
}

/// Machine epsilon of a float dtype.
double epsilon(kiln_dtype_t dtype) {
  switch (dtype) {
  case KILN_F64:
    return 0x1p-52;
  case KILN_F32:
    return 0x1p-23;
  case KILN_F16:
    return 0x1p-10;
  default:
    return 0x1p-7;
  }
}

/// The largest error accepted for a dtype (JAX's check_grads tolerances for
/// f64, f32 and f16; bf16 has 3 bits fewer than f16).
double tolerance(kiln_dtype_t dtype) {
  switch (dtype) {
  case KILN_F64:
    return 1e-5;
  case KILN_F32:
    return 2e-3;
  case KILN_F16:
    return 1e-2;
  default:
    return 1e-1;
  }
}

/// |a - b| / (1 + |b|): relative where b is large, absolute where it is
/// small (JAX compares with atol = rtol = tolerance).
double error(double a, double b) {
  return std::fabs(a - b) / (1.0 + std::fabs(b));
}

/// An entry's argument or result type.
struct TensorType {
  kiln_dtype_t dtype;
  std::vector<int64_t> shape;

  std::string text() const {
    std::string text = "tensor<";
    for (int64_t d : shape)
      text += std::to_string(d) + "x";
    return text + kiln_dtype_name(dtype) + ">";
  }
  size_t count() const {
    size_t n = 1;
    for (int64_t d : shape)
      n *= size_t(d);
    return n;
  }
};

/// A float tensor's elements as doubles.
std::vector<double> toDoubles(kiln_tensor_t tensor) {
  kiln_dtype_t dtype = kiln_tensor_dtype(tensor);
  size_t n = kiln_tensor_byte_length(tensor) / kiln_dtype_size(dtype);
  const void *data = kiln_tensor_data(tensor);
  std::vector<double> values(n);
  for (size_t i = 0; i < n; ++i) {
    if (dtype == KILN_F64)
      values[i] = static_cast<const double *>(data)[i];
    else if (dtype == KILN_F32)
      values[i] = static_cast<const float *>(data)[i];
    else if (dtype == KILN_F16)
      values[i] = double(static_cast<const _Float16 *>(data)[i]);
    else {
      uint32_t bits = uint32_t(static_cast<const uint16_t *>(data)[i]) << 16;
      float f;
      std::memcpy(&f, &bits, sizeof f);
      values[i] = f;
    }
  }
  return values;
}

/// A tensor of `type` holding `values` rounded to its dtype (bf16 to
/// nearest even).
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

/// The source of the two checking functions: a kiln.jvp of `entry`
/// returning its first result and that result's tangent, and a kiln.vjp
/// returning the cotangents of the float arguments `floats`.
std::string checkingFunctions(const std::string &entry,
                              const std::vector<TensorType> &args,
                              const std::vector<TensorType> &results,
                              const std::vector<size_t> &floats) {
  auto list = [](size_t n, const std::function<std::string(size_t)> &item) {
    std::string text;
    for (size_t i = 0; i < n; ++i)
      text += (i ? ", " : "") + item(i);
    return text;
  };
  size_t n = args.size(), m = results.size();
  auto argType = [&](size_t i) { return args[i].text(); };
  auto resultType = [&](size_t i) { return results[i].text(); };
  std::string argTypes = list(n, argType), resultTypes = list(m, resultType);
  std::string callee = "@\"" + entry + "\"";
  std::ostringstream os;
  os << "\nfunc.func @" << kJvpEntry << "("
     << list(n, [&](size_t i) { return "%a" + std::to_string(i) + ": " +
                                       argType(i); })
     << ", "
     << list(n, [&](size_t i) { return "%t" + std::to_string(i) + ": " +
                                       argType(i); })
     << ") -> (" << resultType(0) << ", " << resultType(0) << ") {\n"
     << "  %r:" << 2 * m << " = kiln.jvp " << callee << "("
     << list(n, [](size_t i) { return "%a" + std::to_string(i); }) << ", "
     << list(n, [](size_t i) { return "%t" + std::to_string(i); }) << ") : ("
     << argTypes << ", " << argTypes << ") -> (" << resultTypes << ", "
     << resultTypes << ")\n"
     << "  return %r#0, %r#" << m << " : " << resultType(0) << ", "
     << resultType(0) << "\n}\n";
  std::string gradTypes =
      list(floats.size(), [&](size_t i) { return argType(floats[i]); });
  os << "func.func @" << kVjpEntry << "("
     << list(n, [&](size_t i) { return "%a" + std::to_string(i) + ": " +
                                       argType(i); })
     << ", "
     << list(m, [&](size_t i) { return "%c" + std::to_string(i) + ": " +
                                       resultType(i); })
     << ") -> (" << gradTypes << ") {\n"
     << "  %r:" << m + floats.size() << " = kiln.vjp " << callee << "("
     << list(n, [](size_t i) { return "%a" + std::to_string(i); }) << ", "
     << list(m, [](size_t i) { return "%c" + std::to_string(i); })
     << ") {argnums = array<i64: "
     << list(floats.size(), [&](size_t i) { return std::to_string(floats[i]); })
     << ">} : (" << argTypes << ", " << resultTypes << ") -> (" << resultTypes
     << ", " << gradTypes << ")\n"
     << "  return "
     << list(floats.size(),
             [&](size_t i) { return "%r#" + std::to_string(m + i); })
     << " : " << gradTypes << "\n}\n";
  return os.str();
}

/// Calls `entry` of `module`; the results, or an empty vector (reported).
std::vector<Tensor> call(kiln_module_t module, const char *entry,
                         const std::vector<kiln_tensor_t> &args) {
  size_t m = size_t(kiln_module_entry_num_results(module, entry));
  std::vector<kiln_tensor_t> raw(m);
  Status status(kiln_module_call(module, entry, args.size(), args.data(), m,
                                 raw.data()));
  std::vector<Tensor> results;
  if (!status) {
    std::cerr << "kiln-run: error: --check-grads: " << status.message()
              << "\n";
    return results;
  }
  for (kiln_tensor_t r : raw)
    results.emplace_back(r);
  return results;
}

/// The signature of `entry`: argument and result types.
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
  for (int64_t i = 0; i < kiln_module_entry_num_args(module, entry.c_str()); ++i)
    args.push_back(read(true, i));
  for (int64_t i = 0; i < kiln_module_entry_num_results(module, entry.c_str());
       ++i)
    results.push_back(read(false, i));
}

/// Compiles the source at `path` with the checking functions appended, in
/// a temporary folder under the same file name (so that diagnostics name
/// it); null when it fails (reported).
Module compileChecks(const std::string &path, const std::string &functions,
                     const CompileSource &compile) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream source;
  source << in.rdbuf();
  char folder[] = "/tmp/kiln-check-grads-XXXXXX";
  if (!in || !mkdtemp(folder)) {
    std::cerr << "kiln-run: error: --check-grads: cannot copy " << path
              << " to a temporary folder\n";
    return Module();
  }
  size_t slash = path.rfind('/');
  std::string copy = std::string(folder) + "/" +
                     (slash == std::string::npos ? path : path.substr(slash + 1));
  { std::ofstream(copy, std::ios::binary) << source.str() << functions; }
  kiln_module_t raw = nullptr;
  Status status(compile(copy, &raw));
  std::remove(copy.c_str());
  rmdir(folder);
  if (!status) {
    // Diagnostics name the user's file, not its copy.
    std::string message = status.message();
    for (size_t at; (at = message.find(copy)) != std::string::npos;)
      message.replace(at, copy.size(), path);
    std::cerr << "kiln-run: error: --check-grads: " << message << "\n";
    return Module();
  }
  return Module(raw);
}

} // namespace

int checkGradients(const std::string &path, const std::string &entry,
                   kiln_module_t module,
                   const std::vector<kiln_tensor_t> &args,
                   const CompileSource &compile) {
  std::vector<TensorType> argTypes, resultTypes;
  readSignature(module, entry, argTypes, resultTypes);
  if (resultTypes.empty() || !resultTypes[0].shape.empty() ||
      !isFloat(resultTypes[0].dtype)) {
    std::cerr << "kiln-run: error: --check-grads: the first result of "
              << entry << " must be a float scalar (tensor<f32>, ...)"
              << (resultTypes.empty() ? "; it has no result"
                                      : "; it is " + resultTypes[0].text())
              << "\n";
    return 1;
  }
  std::vector<size_t> floats;
  for (size_t i = 0; i < argTypes.size(); ++i)
    if (isFloat(argTypes[i].dtype))
      floats.push_back(i);
  if (floats.empty()) {
    std::cerr << "kiln-run: error: --check-grads: " << entry
              << " has no float argument to differentiate\n";
    return 1;
  }
  Module checks = compileChecks(
      path, checkingFunctions(entry, argTypes, resultTypes, floats), compile);
  if (!checks.get())
    return 1;

  std::vector<std::vector<double>> values;
  for (kiln_tensor_t arg : args)
    values.push_back(isFloat(kiln_tensor_dtype(arg)) ? toDoubles(arg)
                                                     : std::vector<double>());
  std::vector<Tensor> zeroArgs;
  for (const TensorType &type : argTypes)
    zeroArgs.push_back(zerosOf(type));
  auto primalAt = [&](size_t i, const std::vector<double> &x, double &out) {
    std::vector<kiln_tensor_t> shifted(args);
    Tensor moved = fromDoubles(argTypes[i], x);
    shifted[i] = moved.get();
    std::vector<Tensor> r = call(checks.get(), entry.c_str(), shifted);
    if (!r.empty())
      out = toDoubles(r[0].get())[0];
    return !r.empty();
  };

  std::mt19937_64 rng(0);
  std::normal_distribution<double> normal;
  bool passed = true;
  std::printf("%s: derivatives of result 0 (%s)\n", entry.c_str(),
              resultTypes[0].text().c_str());
  for (size_t k = 0; k < floats.size(); ++k) {
    size_t i = floats[k];
    const TensorType &type = argTypes[i];
    const std::vector<double> &x = values[i];
    double scale = 1.0;
    for (double v : x)
      scale = std::max(scale, std::fabs(v));
    double h = std::cbrt(epsilon(type.dtype)) * scale;
    double worstFd = 0.0, worstVjp = 0.0;
    for (int d = 0; d < kDirections; ++d) {
      // The direction actually taken is the difference of the rounded
      // points, so that rounding the arguments adds no error.
      std::vector<double> t(x.size()), plus(x.size()), minus(x.size());
      for (size_t e = 0; e < x.size(); ++e) {
        double dir = normal(rng);
        plus[e] = x[e] + h * dir;
        minus[e] = x[e] - h * dir;
      }
      std::vector<double> up = toDoubles(fromDoubles(type, plus).get());
      std::vector<double> down = toDoubles(fromDoubles(type, minus).get());
      for (size_t e = 0; e < x.size(); ++e)
        t[e] = (up[e] - down[e]) / (2 * h);
      double fPlus, fMinus;
      if (!primalAt(i, up, fPlus) || !primalAt(i, down, fMinus))
        return 1;
      double fd = (fPlus - fMinus) / (2 * h);

      std::vector<kiln_tensor_t> jvpArgs(args);
      for (const Tensor &zero : zeroArgs)
        jvpArgs.push_back(zero.get());
      Tensor tangent = fromDoubles(type, t);
      jvpArgs[args.size() + i] = tangent.get();
      std::vector<Tensor> jvp = call(checks.get(), kJvpEntry, jvpArgs);
      if (jvp.empty())
        return 1;
      std::vector<double> rounded = toDoubles(tangent.get());
      double jvpValue = toDoubles(jvp[1].get())[0];
      worstFd = std::max(worstFd, error(jvpValue, fd));

      // <vjp(u), t> = u * jvp(t), for a cotangent u of the first result.
      double u = normal(rng);
      std::vector<kiln_tensor_t> vjpArgs(args);
      Tensor seed = fromDoubles(resultTypes[0], {u});
      std::vector<Tensor> otherSeeds;
      vjpArgs.push_back(seed.get());
      for (size_t r = 1; r < resultTypes.size(); ++r) {
        otherSeeds.push_back(zerosOf(resultTypes[r]));
        vjpArgs.push_back(otherSeeds.back().get());
      }
      std::vector<Tensor> vjp = call(checks.get(), kVjpEntry, vjpArgs);
      if (vjp.empty())
        return 1;
      std::vector<double> g = toDoubles(vjp[k].get());
      double inner = 0.0;
      for (size_t e = 0; e < g.size(); ++e)
        inner += g[e] * rounded[e];
      double ujvp = u * toDoubles(jvp[1].get())[0];
      worstVjp = std::max(worstVjp, error(inner, ujvp));
    }
    bool ok = worstFd <= tolerance(type.dtype) &&
              worstVjp <= tolerance(type.dtype);
    passed &= ok;
    std::printf("  arg%zu %s: jvp vs finite differences %.2e, vjp vs jvp "
                "%.2e (tolerance %.0e, step %.2e): %s\n",
                i, type.text().c_str(), worstFd, worstVjp,
                tolerance(type.dtype), h, ok ? "ok" : "FAILED");
  }
  std::fflush(stdout);
  return passed ? 0 : 1;
}

} // namespace kiln
