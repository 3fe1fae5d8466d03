//===- train_mlp.cpp - the demo MLP trained from C++ alone ----------------===//
//
// kiln-train-mlp-example [TRAIN.mlir]
//
// Traces the demo's training step (scripts/demo/train.mlir: a 2 -> 64 ->
// 64 -> 3 tanh classifier, softmax cross-entropy, SGD) with kiln/trace.hpp,
// compiles it, and trains it on three spirals of points for 300 steps,
// printing the loss as it falls. Given the textual program, it first runs
// one step of both on the same parameters and batch and prints how far
// apart their results are.
//
//===----------------------------------------------------------------------===//
#include "kiln/runtime.hpp"
#include "kiln/trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr int64_t kPoints = 300, kHidden = 64, kClasses = 3;

/// The parameters' shapes, in the order the step takes them.
const std::vector<std::vector<int64_t>> kParams = {
    {2, kHidden}, {kHidden}, {kHidden, kHidden}, {kHidden}, {kHidden, kClasses},
    {kClasses}};

/// Mean softmax cross-entropy of the MLP's scores against one-hot labels:
/// arguments are the parameters, then the points and the labels.
kiln::Values loss(const kiln::Values &a) {
  kiln::Traced h = kiln::tanh(kiln::matmul(a[6], a[0]) + a[1]);
  h = kiln::tanh(kiln::matmul(h, a[2]) + a[3]);
  kiln::Traced scores = kiln::matmul(h, a[4]) + a[5];
  return {-kiln::sum(a[7] * kiln::log_softmax(scores)) / double(kPoints)};
}

/// One SGD step: the new parameters, then the loss before the step.
kiln::Program traceStep() {
  std::vector<kiln::Spec> specs;
  for (const std::vector<int64_t> &shape : kParams)
    specs.push_back({KILN_F32, shape});
  specs.push_back({KILN_F32, {kPoints, 2}});
  specs.push_back({KILN_F32, {kPoints, kClasses}});
  specs.push_back({KILN_F32, {}});
  return kiln::trace("train_step", specs, [](const kiln::Values &a) {
    kiln::Values lossArgs(a.begin(), a.end() - 1);
    kiln::Values grads =
        kiln::value_and_grad(loss, {0, 1, 2, 3, 4, 5})(lossArgs);
    kiln::Values out;
    for (size_t i = 0; i < kParams.size(); ++i)
      out.push_back(a[i] - grads[1 + i] * a.back());
    out.push_back(grads[0]);
    return out;
  });
}

kiln::Tensor floats(const std::vector<int64_t> &shape,
                    const std::vector<float> &values) {
  kiln_tensor_t tensor = nullptr;
  kiln::Status(kiln_tensor_create(KILN_F32, shape.size(), shape.data(),
                                  values.data(), values.size() * 4, &tensor));
  return kiln::Tensor(tensor);
}

/// Three interleaved spirals (the demo's data), labels one-hot.
void spirals(std::vector<float> &points, std::vector<float> &labels) {
  for (int64_t i = 0; i < kPoints; ++i) {
    int64_t c = i % kClasses;
    double r = double(i / kClasses) / (kPoints / kClasses);
    double angle = c * 4.0 + r * 4.0 + std::sin(i * 12.9898) * 0.2;
    points.push_back(float(r * std::sin(angle)));
    points.push_back(float(r * std::cos(angle)));
    for (int64_t k = 0; k < kClasses; ++k)
      labels.push_back(k == c ? 1.0f : 0.0f);
  }
}

/// Deterministic initial parameters, scaled by 1/sqrt(fan-in).
std::vector<kiln::Tensor> initialParams() {
  std::vector<kiln::Tensor> params;
  for (size_t p = 0; p < kParams.size(); ++p) {
    const std::vector<int64_t> &shape = kParams[p];
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    double scale = shape.size() == 2 ? 1.0 / std::sqrt(double(shape[0])) : 0.0;
    std::vector<float> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = float(scale * std::sin(i * 1.618 + p * 7.0) * 1.7);
    params.push_back(floats(shape, values));
  }
  return params;
}

/// Calls train_step of `module`: the new parameters and the loss.
bool step(kiln_module_t module, const std::vector<kiln::Tensor> &params,
          const kiln::Tensor &x, const kiln::Tensor &y, const kiln::Tensor &lr,
          std::vector<kiln::Tensor> &out, float &lossValue) {
  std::vector<kiln_tensor_t> args;
  for (const kiln::Tensor &p : params)
    args.push_back(p.get());
  args.insert(args.end(), {x.get(), y.get(), lr.get()});
  std::vector<kiln_tensor_t> results(kParams.size() + 1);
  kiln::Status status(kiln_module_call(module, "train_step", args.size(),
                                       args.data(), results.size(),
                                       results.data()));
  if (!status) {
    std::fprintf(stderr, "error: %s\n", status.message().c_str());
    return false;
  }
  out.clear();
  for (size_t i = 0; i < kParams.size(); ++i)
    out.emplace_back(results[i]);
  lossValue = *static_cast<float *>(kiln_tensor_data(results.back()));
  kiln_tensor_free(results.back());
  return true;
}

/// The largest difference between two steps' new parameters.
double largestDifference(const std::vector<kiln::Tensor> &a,
                         const std::vector<kiln::Tensor> &b) {
  double worst = 0;
  for (size_t p = 0; p < a.size(); ++p) {
    const float *x = static_cast<const float *>(kiln_tensor_data(a[p].get()));
    const float *y = static_cast<const float *>(kiln_tensor_data(b[p].get()));
    for (size_t i = 0; i < kiln_tensor_byte_length(a[p].get()) / 4; ++i)
      worst = std::max(worst, double(std::fabs(x[i] - y[i])));
  }
  return worst;
}

} // namespace

int main(int argc, char **argv) {
  kiln::Program program = traceStep();
  kiln_module_t traced = nullptr;
  if (std::string why = program.compile(&traced); !why.empty()) {
    std::fprintf(stderr, "error: %s\n", why.c_str());
    return 1;
  }
  kiln::Module tracedOwner(traced);
  std::vector<float> points, labels;
  spirals(points, labels);
  kiln::Tensor x = floats({kPoints, 2}, points);
  kiln::Tensor y = floats({kPoints, kClasses}, labels);
  kiln::Tensor lr = floats({}, {0.5f});
  std::vector<kiln::Tensor> params = initialParams(), next;
  float first = 0, lossValue = 0;

  if (argc > 1) {
    kiln_module_t textual = nullptr;
    kiln::Status status(kiln_module_compile(argv[1], &textual));
    if (!status) {
      std::fprintf(stderr, "error: %s\n", status.message().c_str());
      return 1;
    }
    kiln::Module textualOwner(textual);
    std::vector<kiln::Tensor> mine, theirs;
    float myLoss, theirLoss;
    if (!step(traced, params, x, y, lr, mine, myLoss) ||
        !step(textual, params, x, y, lr, theirs, theirLoss))
      return 1;
    std::printf("first step: loss %.6f traced, %.6f textual; parameters "
                "differ by at most %.2e\n",
                myLoss, theirLoss, largestDifference(mine, theirs));
  }

  for (int i = 0; i < 300; ++i) {
    if (!step(traced, params, x, y, lr, next, lossValue))
      return 1;
    params.swap(next);
    if (i == 0)
      first = lossValue;
    if (i % 100 == 0)
      std::printf("step %d: loss %.4f\n", i, lossValue);
  }
  std::printf("loss fell from %.4f to %.4f\n", first, lossValue);
  return lossValue < first / 2 ? 0 : 1;
}
