//===- CheckGrads.cpp - kiln-run --check-grads ----------------------------===//
//
// The entry's derivatives are built by the compiler itself: the source is
// compiled again with two more functions, a kiln.jvp and a kiln.vjp of the
// entry, and those are compared with the entry's own values (finite
// differences) and with each other (the dot-product test), as JAX's
// check_grads does.
//
//===----------------------------------------------------------------------===//
#include "EntryChecks.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>

namespace kiln {
using namespace checks;
namespace {

const char *const kFlag = "--check-grads";
const char *const kJvpEntry = "__kiln_check_jvp";
const char *const kVjpEntry = "__kiln_check_vjp";
/// Random directions per argument.
constexpr int kDirections = 3;

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

/// The source of the two checking functions: a kiln.jvp of `entry`
/// returning its first result and that result's tangent, and a kiln.vjp
/// returning the cotangents of the float arguments `floats`.
std::string checkingFunctions(const std::string &entry,
                              const std::vector<TensorType> &args,
                              const std::vector<TensorType> &results,
                              const std::vector<size_t> &floats) {
  auto list = joined;
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
  Module checks = compileWithFunctions(
      path, checkingFunctions(entry, argTypes, resultTypes, floats), compile,
      kFlag);
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
    std::vector<Tensor> r = call(checks.get(), entry, shifted, kFlag);
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
      std::vector<Tensor> jvp = call(checks.get(), kJvpEntry, jvpArgs, kFlag);
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
      std::vector<Tensor> vjp = call(checks.get(), kVjpEntry, vjpArgs, kFlag);
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
