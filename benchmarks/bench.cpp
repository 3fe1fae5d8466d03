//===- bench.cpp - Kiln against its peers, side by side in one run --------===//
//
// kiln-bench [--runs N]
//
// f32 matmul 256^3 and 1024^3: Kiln against OpenBLAS and oneDNN;
// tanh(a*x+b)*c over 16M floats: Kiln against numpy and a memory-bandwidth
// reference (y = a * x over the same arrays, compiled -O3 -march=native).
// One thread each; the median of N runs; preallocated outputs throughout.
//
//===----------------------------------------------------------------------===//
#include "kiln/runtime.h"

#include <cblas.h>
#include <dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

extern "C" char *openblas_get_corename(void);

namespace {

int runs = 21;

/// The median seconds of `runs` calls of `f`, after one warm-up call.
double medianSeconds(const std::function<void()> &f) {
  f();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  return times[times.size() / 2];
}

void check(kiln_status_t status) {
  if (status) {
    std::fprintf(stderr, "kiln-bench: %s\n", kiln_status_message(status));
    std::exit(1);
  }
}

kiln_tensor_t tensor(std::vector<int64_t> shape, const std::vector<float> &data) {
  kiln_tensor_t t;
  check(kiln_tensor_create(KILN_F32, shape.size(), shape.data(), data.data(),
                           data.size() * sizeof(float), &t));
  return t;
}

kiln_module_t compile(const std::string &name) {
  kiln_module_t module;
  check(kiln_module_compile((std::string(KILN_BENCH_DIR) + "/" + name).c_str(),
                            &module));
  return module;
}

std::vector<float> randomFloats(size_t n) {
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

void row(const char *what, const char *peer, double kiln, double other,
         double work, const char *unit) {
  std::printf("%-22s %-10s kiln %8.3f ms %7.1f %s | peer %8.3f ms %7.1f %s | "
              "kiln/peer %5.1f%%\n",
              what, peer, kiln * 1e3, work / kiln, unit, other * 1e3,
              work / other, unit, 100 * other / kiln);
}

void benchMatmul(int n) {
  std::vector<float> a = randomFloats(size_t(n) * n), b = randomFloats(size_t(n) * n);
  std::vector<float> c(size_t(n) * n);
  kiln_module_t module = compile("matmul_" + std::to_string(n) + ".mlir");
  kiln_tensor_t args[] = {tensor({n, n}, a), tensor({n, n}, b)};
  kiln_tensor_t result = tensor({n, n}, c);
  double kiln = medianSeconds([&] {
    check(kiln_module_call_into(module, "matmul", 2, args, 1, &result));
  });
  double openblas = medianSeconds([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                a.data(), n, b.data(), n, 0.0f, c.data(), n);
  });
  double onednn = medianSeconds([&] {
    dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
               c.data(), n);
  });
  double gflop = 2.0 * n * n * n / 1e9;
  std::string what = "matmul f32 " + std::to_string(n) + "^3";
  row(what.c_str(), "OpenBLAS", kiln, openblas, gflop, "GFLOP/s");
  row(what.c_str(), "oneDNN", kiln, onednn, gflop, "GFLOP/s");
  kiln_tensor_free(args[0]);
  kiln_tensor_free(args[1]);
  kiln_tensor_free(result);
  kiln_module_free(module);
}

/// y = a * x: the bandwidth reference, the same traffic as the chain.
__attribute__((noinline)) void scale(float *y, const float *x, float a,
                                     size_t n) {
  for (size_t i = 0; i < n; ++i)
    y[i] = a * x[i];
}

void benchChain() {
  constexpr int64_t n = 1 << 24;
  std::vector<float> x = randomFloats(n), y(n);
  kiln_module_t module = compile("fused_chain.mlir");
  kiln_tensor_t args[] = {tensor({n}, x), tensor({}, {0.5f}), tensor({}, {0.1f}),
                          tensor({}, {2.0f})};
  kiln_tensor_t result = tensor({n}, y);
  double kiln = medianSeconds([&] {
    check(kiln_module_call_into(module, "chain", 4, args, 1, &result));
  });
  double reference =
      medianSeconds([&] { scale(y.data(), x.data(), 0.5f, n); });
  std::string command = "/usr/bin/python3 " KILN_BENCH_DIR
                        "/numpy_chain.py " + std::to_string(runs);
  double numpy = 0;
  if (FILE *pipe = popen(command.c_str(), "r")) {
    if (std::fscanf(pipe, "%lf", &numpy) != 1)
      numpy = 0;
    pclose(pipe);
  }
  double gigabytes = 2.0 * n * sizeof(float) / 1e9;
  row("tanh(a*x+b)*c 16M", "bandwidth", kiln, reference, gigabytes, "GB/s");
  if (numpy > 0)
    row("tanh(a*x+b)*c 16M", "numpy", kiln, numpy / 1e3, gigabytes, "GB/s");
  for (kiln_tensor_t t : args)
    kiln_tensor_free(t);
  kiln_tensor_free(result);
  kiln_module_free(module);
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--runs") == 0)
      runs = std::max(1, std::atoi(argv[i + 1]));
  std::printf("one thread each; median of %d runs; OpenBLAS kernel %s "
              "(OPENBLAS_CORETYPE=%s)\n",
              runs, openblas_get_corename(),
              std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE")
                                               : "unset");
  benchMatmul(256);
  benchMatmul(1024);
  benchChain();
  return 0;
}
