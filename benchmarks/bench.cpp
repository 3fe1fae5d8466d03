//===- bench.cpp - Kiln against its peers, side by side in one run --------===//
//
// kiln-bench [--runs N] [--threads T]
//
// f32 matmul 256^3 and 1024^3: Kiln against OpenBLAS and oneDNN;
// tanh(a*x+b)*c over 16M floats: Kiln against numpy and a memory-bandwidth
// reference (y = a * x over the same arrays, compiled -O3 -march=native);
// kiln.vmap of a per-example loss against the loss batched by hand and a
// loop of unbatched calls; an RNN over 100 steps (kiln.scan) and its
// gradient against PyTorch's nn.RNN.
// T threads each (default 1: Kiln through kiln_set_num_threads, OpenBLAS
// through openblas_set_num_threads, oneDNN through OMP_NUM_THREADS set before
// OpenMP starts, PyTorch through torch.set_num_threads, the bandwidth
// reference split over T std::threads; numpy runs on one); the median of N
// runs; preallocated outputs throughout.
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
#include <thread>
#include <vector>

extern "C" char *openblas_get_corename(void);

namespace {

int runs = 21, threads = 1;

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

/// Frees every tensor of `tensors`.
template <typename Tensors> void freeAll(const Tensors &tensors) {
  for (kiln_tensor_t t : tensors)
    kiln_tensor_free(t);
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

/// scale() on `threads` parts of the arrays at once.
void scaleOnThreads(float *y, const float *x, float a, size_t n) {
  std::vector<std::thread> workers;
  size_t part = (n + threads - 1) / threads;
  for (size_t begin = part; begin < n; begin += part)
    workers.emplace_back(scale, y + begin, x + begin, a,
                         std::min(part, n - begin));
  scale(y, x, a, std::min(part, n));
  for (std::thread &worker : workers)
    worker.join();
}

/// The numbers benchmarks/SCRIPT prints when asked for `runs` runs, or none
/// if it fails (its peer is then left out).
std::vector<double> pythonPeer(const std::string &script) {
  std::string command = "/usr/bin/python3 " KILN_BENCH_DIR "/" + script +
                        " " + std::to_string(runs) + " " +
                        std::to_string(threads);
  std::vector<double> numbers;
  if (FILE *pipe = popen(command.c_str(), "r")) {
    for (double value; std::fscanf(pipe, "%lf", &value) == 1;)
      numbers.push_back(value);
    if (pclose(pipe) != 0)
      numbers.clear();
  }
  return numbers;
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
      medianSeconds([&] { scaleOnThreads(y.data(), x.data(), 0.5f, n); });
  std::vector<double> numpy = pythonPeer("numpy_chain.py");
  double gigabytes = 2.0 * n * sizeof(float) / 1e9;
  row("tanh(a*x+b)*c 16M", "bandwidth", kiln, reference, gigabytes, "GB/s");
  if (numpy.size() == 1)
    row("tanh(a*x+b)*c 16M", "numpy", kiln, numpy[0] / 1e3, gigabytes, "GB/s");
  freeAll(args);
  kiln_tensor_free(result);
  kiln_module_free(module);
}

/// A per-example loss over a batch of 256 (per_example.mlir): kiln.vmap of
/// it against the same computation batched by hand, and against a loop of
/// 256 calls of the unbatched loss.
void benchVmap() {
  constexpr int64_t batch = 256, d = 64, h = 128, c = 10;
  kiln_module_t module = compile("per_example.mlir");
  std::vector<float> xs = randomFloats(batch * d), ys(batch * c, 0.0f);
  for (int64_t i = 0; i < batch; ++i)
    ys[i * c + i % c] = 1.0f;
  kiln_tensor_t params[] = {tensor({d, h}, randomFloats(d * h)),
                            tensor({h}, randomFloats(h)),
                            tensor({h, c}, randomFloats(h * c))};
  kiln_tensor_t args[] = {params[0], params[1], params[2],
                          tensor({batch, d}, xs), tensor({batch, c}, ys)};
  kiln_tensor_t losses = tensor({batch}, std::vector<float>(batch));
  auto timeEntry = [&](const char *entry) {
    return medianSeconds([&] {
      check(kiln_module_call_into(module, entry, 5, args, 1, &losses));
    });
  };
  double vmapped = timeEntry("vmapped"), byHand = timeEntry("batched");
  // One example's tensors, and the loop over the batch.
  std::vector<kiln_tensor_t> examples;
  for (int64_t i = 0; i < batch; ++i) {
    examples.push_back(tensor({d}, std::vector<float>(xs.begin() + i * d,
                                                      xs.begin() + (i + 1) * d)));
    examples.push_back(tensor({c}, std::vector<float>(ys.begin() + i * c,
                                                      ys.begin() + (i + 1) * c)));
  }
  kiln_tensor_t one = tensor({}, {0.0f});
  double loop = medianSeconds([&] {
    for (int64_t i = 0; i < batch; ++i) {
      kiln_tensor_t call[] = {params[0], params[1], params[2], examples[2 * i],
                              examples[2 * i + 1]};
      check(kiln_module_call_into(module, "loss", 5, call, 1, &one));
    }
  });
  row("vmap per-example loss", "by hand", vmapped, byHand, batch / 1e6,
      "M ex/s");
  row("vmap per-example loss", "256 calls", vmapped, loop, batch / 1e6,
      "M ex/s");
  freeAll(examples);
  freeAll(args);
  freeAll(std::vector<kiln_tensor_t>{losses, one});
  kiln_module_free(module);
}

/// An RNN over 100 steps, hidden and input size 256, batch 32 (rnn.mlir):
/// its states and its gradient, against PyTorch's nn.RNN (torch_rnn.py).
void benchRnn() {
  constexpr int64_t steps = 100, batch = 32, size = 256;
  kiln_module_t module = compile("rnn.mlir");
  // Parameters drawn as nn.RNN draws its own: uniform in +-1/sqrt(size).
  auto parameter = [&](int64_t n) {
    std::vector<float> values = randomFloats(n);
    for (float &v : values)
      v /= 16;
    return values;
  };
  kiln_tensor_t args[] = {
      tensor({size, size}, parameter(size * size)),
      tensor({size, size}, parameter(size * size)),
      tensor({size}, parameter(size)),
      tensor({batch, size}, randomFloats(batch * size)),
      tensor({steps, batch, size}, randomFloats(steps * batch * size))};
  kiln_tensor_t states =
      tensor({steps, batch, size}, std::vector<float>(steps * batch * size));
  kiln_tensor_t grads[] = {tensor({}, {0.0f}),
                           tensor({size, size}, std::vector<float>(size * size)),
                           tensor({size, size}, std::vector<float>(size * size)),
                           tensor({size}, std::vector<float>(size))};
  double forward = medianSeconds([&] {
    check(kiln_module_call_into(module, "forward", 5, args, 1, &states));
  });
  double gradient = medianSeconds([&] {
    check(kiln_module_call_into(module, "grad", 5, args, 4, grads));
  });
  // Two products of 32x256 by 256x256 a step; the gradient about thrice.
  double gflop = steps * 2 * (2.0 * batch * size * size) / 1e9;
  std::vector<double> torch = pythonPeer("torch_rnn.py");
  if (torch.size() == 2) {
    row("RNN 100x32x256 fwd", "nn.RNN", forward, torch[0] / 1e3, gflop,
        "GFLOP/s");
    row("RNN 100x32x256 grad", "nn.RNN", gradient, torch[1] / 1e3, 3 * gflop,
        "GFLOP/s");
  }
  freeAll(args);
  freeAll(grads);
  kiln_tensor_free(states);
  kiln_module_free(module);
}

} // namespace

/// The CPU's model name from /proc/cpuinfo.
/// The runtime's overhead per call: a jitted `a + b` on two 4-element
/// tensors (add4.mlir) from the C API, a new result tensor each call
/// (kiln_jit_call) and into a kept one (kiln_module_call_into), against
/// PyTorch eager's and numpy's `a + b` (dispatch_peers.py).
void benchDispatch() {
  constexpr int calls = 10000;
  kiln_jit_options_t options{};
  options.cache_dir = "";
  kiln_jit_t jit;
  check(kiln_jit_create(KILN_BENCH_DIR "/add4.mlir", &options, &jit));
  kiln_tensor_t args[] = {tensor({4}, {1, 2, 3, 4}), tensor({4}, {1, 1, 1, 1})};
  kiln_tensor_t kept = tensor({4}, {0, 0, 0, 0});
  kiln_module_t module;
  check(kiln_jit_module(jit, "add", 2, args, &module));
  double jitCall = medianSeconds([&] {
                     for (int i = 0; i < calls; ++i) {
                       kiln_tensor_t result;
                       check(kiln_jit_call(jit, "add", 2, args, 1, &result));
                       kiln_tensor_free(result);
                     }
                   }) /
                   calls;
  double into = medianSeconds([&] {
                  for (int i = 0; i < calls; ++i)
                    check(kiln_module_call_into(module, "add", 2, args, 1,
                                                &kept));
                }) /
                calls;
  // A chain of asynchronous calls, each reading the one before, enqueued
  // without waiting; the time is per call, the last one read.
  double chained = medianSeconds([&] {
                     kiln_tensor_t last = nullptr;
                     for (int i = 0; i < calls; ++i) {
                       kiln_tensor_t inputs[] = {last ? last : args[0], args[1]};
                       kiln_tensor_t next;
                       check(kiln_jit_call_async(jit, "add", 2, inputs, 1, &next));
                       kiln_tensor_free(last);
                       last = next;
                     }
                     check(kiln_tensor_wait(last));
                     kiln_tensor_free(last);
                   }) /
                   calls;
  std::vector<double> peers = pythonPeer("dispatch_peers.py");
  std::printf("dispatch a+b, f32[4]   kiln_jit_call %.3f us | "
              "kiln_module_call_into %.3f us | kiln_jit_call_async chained "
              "%.3f us",
              jitCall * 1e6, into * 1e6, chained * 1e6);
  if (peers.size() == 2)
    std::printf(" | torch %.3f us | numpy %.3f us | torch/kiln %.1fx",
                peers[0], peers[1], peers[0] / (jitCall * 1e6));
  std::printf("\n");
  freeAll(args);
  kiln_tensor_free(kept);
  kiln_jit_free(jit);
}

/// Asynchronous dispatch absorbing the host's work between steps: 50
/// steps of a 256^3 matmul (each reading the last step's result), with 0.2
/// ms of host work (a busy loop standing for data loading) after each call
/// is made, synchronously (the host waits for each step) and with
/// kiln_jit_call_async (the host works while the step runs).
void benchAsyncOverlap() {
  constexpr int steps = 50;
  constexpr int64_t n = 256;
  kiln_jit_options_t options{};
  options.cache_dir = "";
  kiln_jit_t jit;
  check(kiln_jit_create(KILN_BENCH_DIR "/matmul_256.mlir", &options, &jit));
  std::vector<float> data = randomFloats(n * n);
  for (float &x : data)
    x /= 16; // A product of 256 terms of this size stays near 1.
  kiln_tensor_t a = tensor({n, n}, data), b = tensor({n, n}, data);
  auto hostWork = [] {
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  auto run = [&](bool async) {
    kiln_tensor_t last = nullptr;
    for (int i = 0; i < steps; ++i) {
      kiln_tensor_t inputs[] = {last ? last : a, b}, next;
      check(async ? kiln_jit_call_async(jit, "matmul", 2, inputs, 1, &next)
                  : kiln_jit_call(jit, "matmul", 2, inputs, 1, &next));
      kiln_tensor_free(last);
      last = next;
      hostWork();
    }
    check(kiln_tensor_wait(last));
    kiln_tensor_free(last);
  };
  double sync = medianSeconds([&] { run(false); }) / steps;
  double async = medianSeconds([&] { run(true); }) / steps;
  std::printf("async overlap, matmul 256^3 + 0.2 ms host work per step: "
              "sync %.3f ms/step | async %.3f ms/step | sync/async %.2fx\n",
              sync * 1e3, async * 1e3, sync / async);
  kiln_tensor_free(a);
  kiln_tensor_free(b);
  kiln_jit_free(jit);
}

std::string cpuName() {
  std::string name = "unknown CPU";
  if (FILE *info = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, info))
      if (std::strncmp(line, "model name", 10) == 0) {
        if (const char *colon = std::strchr(line, ':')) {
          name = colon + 2;
          name.erase(name.find_last_not_of("\n") + 1);
        }
        break;
      }
    std::fclose(info);
  }
  return name;
}

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--runs") == 0)
      runs = std::max(1, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--threads") == 0)
      threads = std::max(1, std::atoi(argv[i + 1]));
  // Before anything starts OpenMP, which reads it once.
  setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
  openblas_set_num_threads(threads);
  check(kiln_set_num_threads(threads));
  std::printf("%s\n", cpuName().c_str());
  std::printf("%d thread(s) each (numpy: one); median of %d runs; OpenBLAS "
              "kernel %s (OPENBLAS_CORETYPE=%s)\n",
              threads, runs, openblas_get_corename(),
              std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE")
                                               : "unset");
  benchMatmul(256);
  benchMatmul(1024);
  benchChain();
  benchVmap();
  benchRnn();
  benchDispatch();
  benchAsyncOverlap();
  return 0;
}
