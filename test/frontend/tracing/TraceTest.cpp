//===- TraceTest.cpp - programs built by tracing C++ ----------------------===//
//
// Programs traced with kiln/trace.hpp compile and compute what plain loops
// over the same numbers compute (and, for a whole layer, what numpy
// computed); shape errors name the call site and the
// shapes; gradients match the ones derived by hand.
//
//===----------------------------------------------------------------------===//
#include "kiln/runtime.hpp"
#include "kiln/trace.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

/// A float tensor of `shape` holding `values`.
kiln::Tensor floats(std::vector<int64_t> shape, const std::vector<float> &values) {
  kiln_tensor_t tensor = nullptr;
  kiln_status_t status =
      kiln_tensor_create(KILN_F32, shape.size(), shape.data(), values.data(),
                         values.size() * sizeof(float), &tensor);
  EXPECT_EQ(status, nullptr);
  kiln_status_free(status);
  return kiln::Tensor(tensor);
}

/// Deterministic values in [-1, 1).
std::vector<float> ramp(size_t count, float phase) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = std::sin(float(i) * 0.7f + phase);
  return values;
}

/// Compiles `program` and calls its entry `name` on `args`; the results'
/// floats.
std::vector<std::vector<float>> run(const kiln::Program &program,
                                    const std::string &name,
                                    const std::vector<kiln::Tensor> &args) {
  kiln_module_t module = nullptr;
  std::string why = program.compile(&module);
  EXPECT_EQ(why, "") << program.text();
  if (!why.empty())
    return {};
  kiln::Module owner(module);
  std::vector<kiln_tensor_t> raw;
  for (const kiln::Tensor &arg : args)
    raw.push_back(arg.get());
  size_t count = kiln_module_entry_num_results(module, name.c_str());
  std::vector<kiln_tensor_t> results(count);
  kiln_status_t status = kiln_module_call(module, name.c_str(), raw.size(),
                                          raw.data(), count, results.data());
  EXPECT_EQ(status, nullptr) << kiln_status_message(status);
  kiln_status_free(status);
  std::vector<std::vector<float>> out;
  for (kiln_tensor_t result : results) {
    kiln::Tensor owned(result);
    const float *data = static_cast<const float *>(kiln_tensor_data(result));
    out.emplace_back(data, data + kiln_tensor_byte_length(result) / 4);
  }
  return out;
}

TEST(Trace, ALayerComputesWhatLoopsCompute) {
  // log_softmax(gelu(layer_norm(x) @ w + b)) over rows of x [4, 6].
  const int64_t B = 4, D = 6, C = 3;
  kiln::Program program = kiln::trace(
      "layer",
      {{KILN_F32, {B, D}}, {KILN_F32, {D, C}}, {KILN_F32, {C}},
       {KILN_F32, {D}}, {KILN_F32, {D}}},
      [](const kiln::Values &a) -> kiln::Values {
        kiln::Traced h = kiln::layer_norm(a[0], a[3], a[4]);
        return {kiln::log_softmax(kiln::gelu(kiln::matmul(h, a[1]) + a[2]))};
      });
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_NE(program.text().find("kiln.dot_general"), std::string::npos);
  std::vector<float> x = ramp(B * D, 0.1f), w = ramp(D * C, 0.5f),
                     b = ramp(C, 0.9f), g = ramp(D, 1.3f), be = ramp(D, 2.1f);
  auto out = run(program, "layer",
                 {floats({B, D}, x), floats({D, C}, w), floats({C}, b),
                  floats({D}, g), floats({D}, be)});
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < B; ++i) {
    double mu = 0, var = 0;
    for (int64_t k = 0; k < D; ++k)
      mu += x[i * D + k] / double(D);
    for (int64_t k = 0; k < D; ++k)
      var += (x[i * D + k] - mu) * (x[i * D + k] - mu) / double(D);
    std::vector<double> logits(C);
    for (int64_t j = 0; j < C; ++j) {
      double acc = b[j];
      for (int64_t k = 0; k < D; ++k)
        acc += ((x[i * D + k] - mu) / std::sqrt(var + 1e-5) * g[k] + be[k]) *
               w[k * C + j];
      logits[j] = 0.5 * acc *
                  (1 + std::tanh(0.7978845608 * (acc + 0.044715 * acc * acc *
                                                           acc)));
    }
    double top = *std::max_element(logits.begin(), logits.end()), total = 0;
    for (double l : logits)
      total += std::exp(l - top);
    for (int64_t j = 0; j < C; ++j)
      EXPECT_NEAR(out[0][i * C + j], logits[j] - top - std::log(total), 1e-5)
          << "row " << i << " column " << j;
  }
  // And what numpy computes from the same float32 inputs, in float64:
  //   h = (x - x.mean(1, keepdims=True))
  //       / np.sqrt(x.var(1, keepdims=True) + 1e-5) * g + be
  //   z = h @ w + b
  //   a = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z**3)))
  //   a -= a.max(1, keepdims=True); a - np.log(np.exp(a).sum(1, keepdims=True))
  const float numpy[] = {-1.1111389f, -1.1111004f, -1.0740572f, -1.6381014f,
                         -0.7526207f, -1.0950553f, -0.9965737f, -0.7086633f,
                         -1.9764800f, -1.1124429f, -1.1122529f, -1.0716945f};
  for (int64_t i = 0; i < B * C; ++i)
    EXPECT_NEAR(out[0][i], numpy[i], 2e-5) << "element " << i;
}

TEST(Trace, ReductionsKeepOrDropAxes) {
  kiln::Program program = kiln::trace(
      "reduce", {{KILN_F32, {2, 3}}},
      [](const kiln::Values &a) -> kiln::Values {
        return {kiln::sum(a[0], {1}), kiln::mean(a[0], {0}, true),
                kiln::max(a[0]), kiln::softmax(a[0], 0),
                kiln::transpose(kiln::reshape(a[0], {3, 2}), {1, 0})};
      });
  ASSERT_TRUE(program.ok()) << program.error();
  std::vector<float> x = {1, -2, 3, 4, 5, -6};
  auto out = run(program, "reduce", {floats({2, 3}, x)});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], (std::vector<float>{2, 3}));
  EXPECT_EQ(out[1], (std::vector<float>{2.5f, 1.5f, -1.5f}));
  EXPECT_EQ(out[2], (std::vector<float>{5}));
  for (int j = 0; j < 3; ++j) {
    double e0 = std::exp(x[j]), e1 = std::exp(x[3 + j]);
    EXPECT_NEAR(out[3][j], e0 / (e0 + e1), 1e-6);
    EXPECT_NEAR(out[3][3 + j], e1 / (e0 + e1), 1e-6);
  }
  // reshape [2,3] -> [3,2] is {{1,-2},{3,4},{5,-6}}; transposed, its rows.
  EXPECT_EQ(out[4], (std::vector<float>{1, 3, 5, -2, 4, -6}));
}

TEST(Trace, Int8ValuesConvertAsNumpyAstypeDoes) {
  kiln::Program program = kiln::trace(
      "dequantize", {{KILN_I8, {4}}, {KILN_F32, {4}}},
      [](const kiln::Values &a) -> kiln::Values {
        return {kiln::astype(a[0], KILN_F32) * 0.5,
                kiln::astype(kiln::astype(a[1], KILN_I8), KILN_F32)};
      });
  ASSERT_TRUE(program.ok()) << program.error();
  int8_t q[4] = {-128, -1, 0, 127};
  int64_t four[1] = {4};
  kiln_tensor_t ints = nullptr;
  ASSERT_EQ(kiln_tensor_create(KILN_I8, 1, four, q, sizeof q, &ints), nullptr);
  auto out = run(program, "dequantize",
                 {kiln::Tensor(ints), floats({4}, {1.9f, -1.9f, 300, -300})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::vector<float>{-64, -0.5f, 0, 63.5f}));
  // Toward zero, saturating at int8's bounds.
  EXPECT_EQ(out[1], (std::vector<float>{1, -1, 127, -128}));
}

TEST(Trace, IndexingSlicesAndTakes) {
  kiln::Program program = kiln::trace(
      "pick", {{KILN_F32, {3, 4}}, {KILN_I32, {2}}},
      [](const kiln::Values &a) -> kiln::Values {
        return {kiln::index(a[0], -1), kiln::index(a[0], 2, 1),
                kiln::slice(a[0], {0, 1}, {3, 4}, {2, 2}),
                kiln::take(a[0], a[1], 1)};
      });
  ASSERT_TRUE(program.ok()) << program.error();
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  kiln_tensor_t ids = nullptr;
  int32_t idValues[] = {3, 0};
  int64_t idShape[] = {2};
  ASSERT_EQ(kiln_tensor_create(KILN_I32, 1, idShape, idValues, 8, &ids),
            nullptr);
  auto out = run(program, "pick", {floats({3, 4}, x), kiln::Tensor(ids)});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], (std::vector<float>{8, 9, 10, 11}));
  EXPECT_EQ(out[1], (std::vector<float>{2, 6, 10}));
  EXPECT_EQ(out[2], (std::vector<float>{1, 3, 9, 11}));
  EXPECT_EQ(out[3], (std::vector<float>{3, 0, 7, 4, 11, 8}));
}

TEST(Trace, TheGradientOfALossIsTheOneDerivedByHand) {
  // loss(w) = mean((x @ w - y)^2); d/dw = 2/n x^T (x @ w - y).
  const int64_t N = 5, D = 3;
  auto loss = [](const kiln::Values &a) -> kiln::Values {
    kiln::Traced e = kiln::matmul(a[1], a[0]) - a[2];
    return {kiln::mean(e * e)};
  };
  kiln::Program program = kiln::trace(
      "step", {{KILN_F32, {D}}, {KILN_F32, {N, D}}, {KILN_F32, {N}}},
      [&](const kiln::Values &a) { return kiln::value_and_grad(loss)(a); });
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_NE(program.text().find("kiln.value_and_grad @value_and_grad_fn0"),
            std::string::npos);
  std::vector<float> w = ramp(D, 0.3f), x = ramp(N * D, 1.1f), y = ramp(N, 2.0f);
  auto out = run(program, "step",
                 {floats({D}, w), floats({N, D}, x), floats({N}, y)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> e(N);
  double l = 0;
  for (int64_t i = 0; i < N; ++i) {
    e[i] = -y[i];
    for (int64_t k = 0; k < D; ++k)
      e[i] += x[i * D + k] * w[k];
    l += e[i] * e[i] / N;
  }
  EXPECT_NEAR(out[0][0], l, 1e-6);
  for (int64_t k = 0; k < D; ++k) {
    double g = 0;
    for (int64_t i = 0; i < N; ++i)
      g += 2.0 / N * x[i * D + k] * e[i];
    EXPECT_NEAR(out[1][k], g, 1e-6) << "component " << k;
  }
}

TEST(Trace, VmapScanAndCheckpointComputeWhatLoopsCompute) {
  const int64_t B = 4, D = 3, L = 5;
  // vmap over x's rows, w shared: softmax(x_i @ w) per row.
  auto row = [](const kiln::Values &a) -> kiln::Values {
    return {kiln::softmax(kiln::matmul(a[0], a[1]))};
  };
  // scan: a running sum, its value after each step stacked.
  auto running = [](const kiln::Values &a) -> kiln::Values {
    kiln::Traced next = a[0] + a[1];
    return {next, next};
  };
  // grad of sum(tanh(w * w)) with the square rematerialized.
  auto square = [](const kiln::Values &a) -> kiln::Values {
    return {a[0] * a[0]};
  };
  auto loss = [&](const kiln::Values &a) -> kiln::Values {
    return {kiln::sum(kiln::tanh(kiln::checkpoint(square)(a)[0]))};
  };
  kiln::Program program = kiln::trace(
      "f", {{KILN_F32, {B, D}}, {KILN_F32, {D, D}}, {KILN_F32, {L, D}}},
      [&](const kiln::Values &a) -> kiln::Values {
        kiln::Values out = kiln::vmap(row, {0, -1})({a[0], a[1]});
        kiln::Traced zeros = kiln::sum(a[2], {0}) * 0.0;
        kiln::Values scanned = kiln::scan(running, 1)({zeros, a[2]});
        kiln::Values g = kiln::grad(loss)({a[0]});
        return {out[0], scanned[0], scanned[1], g[0]};
      });
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_NE(program.text().find("kiln.vmap @vmap_fn0"), std::string::npos);
  EXPECT_NE(program.text().find("kiln.checkpoint @checkpoint_fn"),
            std::string::npos);
  std::vector<float> x = ramp(B * D, 0.2f), w = ramp(D * D, 0.8f),
                     xs = ramp(L * D, 1.4f);
  auto out = run(program, "f",
                 {floats({B, D}, x), floats({D, D}, w), floats({L, D}, xs)});
  ASSERT_EQ(out.size(), 4u);
  for (int64_t i = 0; i < B; ++i) {
    std::vector<double> s(D);
    double total = 0;
    for (int64_t j = 0; j < D; ++j) {
      for (int64_t k = 0; k < D; ++k)
        s[j] += x[i * D + k] * w[k * D + j];
      total += std::exp(s[j]);
    }
    for (int64_t j = 0; j < D; ++j)
      EXPECT_NEAR(out[0][i * D + j], std::exp(s[j]) / total, 1e-6);
  }
  // The final carry is the sum of the xs; ys[t] the sum of xs[0..t].
  std::vector<double> carry(D, 0.0);
  for (int64_t t = 0; t < L; ++t)
    for (int64_t j = 0; j < D; ++j) {
      carry[j] += xs[t * D + j];
      EXPECT_NEAR(out[2][t * D + j], carry[j], 1e-5) << "step " << t;
    }
  for (int64_t j = 0; j < D; ++j)
    EXPECT_NEAR(out[1][j], carry[j], 1e-5);
  for (size_t i = 0; i < x.size(); ++i) {
    double t = std::tanh(double(x[i]) * x[i]);
    EXPECT_NEAR(out[3][i], 2 * x[i] * (1 - t * t), 1e-6) << "element " << i;
  }
}

TEST(Trace, JvpAndDynamicIndicesComputeWhatLoopsCompute) {
  // jvp of f(x) = x^3 at x along t: (x^3, 3 x^2 t); row i of
  // a matrix for a run-time i, clamped into range.
  auto cube = [](const kiln::Values &a) -> kiln::Values {
    return {a[0] * a[0] * a[0]};
  };
  kiln::Program program = kiln::trace(
      "f", {{KILN_F32, {3}}, {KILN_F32, {3}}, {KILN_F32, {3, 2}},
            {KILN_I32, {}}},
      [&](const kiln::Values &a) -> kiln::Values {
        kiln::Values out = kiln::jvp(cube)({a[0], a[1]});
        out.push_back(kiln::index(a[2], a[3]));
        return out;
      });
  ASSERT_TRUE(program.ok()) << program.error();
  std::vector<float> x = {1, -2, 0.5f}, t = {0.5f, 1, -4};
  for (int32_t row : {1, 7}) {
    kiln_tensor_t i = nullptr;
    ASSERT_EQ(kiln_tensor_create(KILN_I32, 0, nullptr, &row, 4, &i), nullptr);
    auto out = run(program, "f",
                   {floats({3}, x), floats({3}, t),
                    floats({3, 2}, {0, 1, 2, 3, 4, 5}), kiln::Tensor(i)});
    ASSERT_EQ(out.size(), 3u);
    for (int k = 0; k < 3; ++k) {
      EXPECT_FLOAT_EQ(out[0][k], x[k] * x[k] * x[k]);
      EXPECT_FLOAT_EQ(out[1][k], 3 * x[k] * x[k] * t[k]);
    }
    int32_t clamped = std::min(row, 2);
    EXPECT_EQ(out[2], (std::vector<float>{float(2 * clamped),
                                          float(2 * clamped + 1)}));
  }
}

TEST(Trace, CustomVjpRulesReplaceTheDerivative) {
  // square(x) = x^2 with a rule claiming d/dx = 3x (not 2x): grad of
  // sum(square(x)) is then 3x, which only the rule gives.
  auto square = [](const kiln::Values &a) -> kiln::Values {
    return {a[0] * a[0]};
  };
  auto fwd = [](const kiln::Values &a) -> kiln::Values {
    return {a[0] * a[0], a[0]};
  };
  auto bwd = [](const kiln::Values &a) -> kiln::Values {
    return {a[1] * a[0] * 3.0};
  };
  auto loss = [&](const kiln::Values &a) -> kiln::Values {
    return {kiln::sum(kiln::custom_vjp(square, fwd, bwd)(a)[0])};
  };
  kiln::Program program = kiln::trace(
      "f", {{KILN_F32, {3}}}, [&](const kiln::Values &a) -> kiln::Values {
        kiln::Values out = kiln::custom_vjp(square, fwd, bwd)(a);
        out.push_back(kiln::grad(loss)(a)[0]);
        return out;
      });
  ASSERT_TRUE(program.ok()) << program.error();
  std::vector<float> x = {1, -2, 0.5f};
  auto out = run(program, "f", {floats({3}, x)});
  ASSERT_EQ(out.size(), 2u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_FLOAT_EQ(out[0][k], x[k] * x[k]);
    EXPECT_FLOAT_EQ(out[1][k], 3 * x[k]);
  }
}

TEST(Trace, ParameterTreesFlattenInNameOrder) {
  kiln::Tree<kiln::Spec> specs = {{"w", kiln::Spec{KILN_F32, {2, 3}}},
                                  {"b", kiln::Spec{KILN_F32, {3}}}};
  kiln::Program program = kiln::trace(
      "step", kiln::flatten(specs), [&](const kiln::Values &a) {
        kiln::Tree<kiln::Traced> params = kiln::unflatten(specs, a);
        params["w"] = params["w"] * 2.0;
        params["b"] = params["b"] + 1.0;
        return kiln::flatten(params);
      });
  ASSERT_TRUE(program.ok()) << program.error();
  // "b" comes before "w".
  auto out = run(program, "step",
                 {floats({3}, {1, 2, 3}), floats({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(out[1], (std::vector<float>{2, 4, 6, 8, 10, 12}));
}

TEST(Trace, NestedParameterTreesFlattenDepthFirst) {
  using Specs = kiln::Tree<kiln::Spec>;
  kiln::Spec pair{KILN_F32, {2}};
  Specs layer = {{"w", pair}, {"b", pair}};
  Specs specs = {{"layers", Specs::list({layer, layer})},
                 {"scale", kiln::Spec{KILN_F32, {}}}};
  // Leaves: layers[0].b, layers[0].w, layers[1].b, layers[1].w, scale.
  std::vector<kiln::Spec> args = kiln::flatten(specs);
  ASSERT_EQ(args.size(), 5u);
  args.push_back(pair); // the data, x
  // loss = scale * sum(w1 * (w0 * x + b0) + b1); one SGD step of 0.5.
  auto loss = [&](const kiln::Values &a) -> kiln::Values {
    kiln::Tree<kiln::Traced> p = kiln::unflatten(specs, a);
    kiln::Tree<kiln::Traced> &first = p["layers"][0], &second = p["layers"][1];
    kiln::Traced h = first["w"] * a[5] + first["b"];
    return {p["scale"] * kiln::sum(second["w"] * h + second["b"])};
  };
  kiln::Program program =
      kiln::trace("step", args, [&](const kiln::Values &a) {
        kiln::Values out = kiln::value_and_grad(loss, {0, 1, 2, 3, 4})(a);
        kiln::Tree<kiln::Traced> params = kiln::unflatten(specs, a);
        kiln::Tree<kiln::Traced> grads = kiln::unflatten(specs, out, 1);
        return kiln::flatten(kiln::map(
            params, grads, [](const kiln::Traced &w, const kiln::Traced &g) {
              return w - 0.5 * g;
            }));
      });
  ASSERT_TRUE(program.ok()) << program.error();
  std::vector<float> b0{0.1f, 0.2f}, w0{1, 2}, b1{0.3f, -0.1f}, w1{-1, 0.5f},
      x{3, -1};
  float scale = 2, total = 0;
  std::vector<float> h(2);
  for (int i = 0; i < 2; ++i) {
    h[i] = w0[i] * x[i] + b0[i];
    total += w1[i] * h[i] + b1[i];
  }
  auto out = run(program, "step",
                 {floats({2}, b0), floats({2}, w0), floats({2}, b1),
                  floats({2}, w1), floats({}, {scale}), floats({2}, x)});
  ASSERT_EQ(out.size(), 5u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_FLOAT_EQ(out[0][i], b0[i] - 0.5f * scale * w1[i]);
    EXPECT_FLOAT_EQ(out[1][i], w0[i] - 0.5f * scale * w1[i] * x[i]);
    EXPECT_FLOAT_EQ(out[2][i], b1[i] - 0.5f * scale);
    EXPECT_FLOAT_EQ(out[3][i], w1[i] - 0.5f * scale * h[i]);
  }
  EXPECT_FLOAT_EQ(out[4][0], scale - 0.5f * total);
}

TEST(Trace, TreesMapAndKeepTheirStructure) {
  kiln::Tree<int> tree = {{"b", kiln::Tree<int>::list({1, 2})}, {"a", 3}};
  EXPECT_EQ(kiln::flatten(tree), (std::vector<int>{3, 1, 2}));
  kiln::Tree<double> halves = kiln::map(tree, [](int v) { return v / 2.0; });
  EXPECT_EQ(kiln::flatten(halves), (std::vector<double>{1.5, 0.5, 1.0}));
  ASSERT_NE(halves.children(), nullptr);
  ASSERT_NE(halves["b"].items(), nullptr);
  EXPECT_EQ(halves["b"].items()->size(), 2u);
  EXPECT_TRUE(halves["a"].isLeaf());
  kiln::Tree<std::string> named =
      kiln::unflatten(tree, std::vector<std::string>{"x", "y", "z"});
  EXPECT_EQ(named["b"][1].leaf(), "z");
  kiln::Tree<int> sums =
      kiln::map(tree, tree, [](int a, int b) { return a + b; });
  EXPECT_EQ(kiln::flatten(sums), (std::vector<int>{6, 2, 4}));
}

TEST(Trace, JitTracesEachSignatureOnce) {
  kiln_jit_options_t memoryOnly{};
  memoryOnly.cache_dir = "";
  kiln::TracingJit affine = kiln::jit(
      "affine",
      [](const kiln::Values &a) -> kiln::Values { return {a[0] * 2.0 + 1.0}; },
      &memoryOnly);
  for (std::vector<float> values :
       {std::vector<float>{1, 2, 3}, std::vector<float>{0, 1, 2, 3, 4},
        std::vector<float>{-1, 0, 1}}) {
    kiln::Tensor x = floats({int64_t(values.size())}, values);
    std::vector<kiln_tensor_t> results;
    ASSERT_EQ(affine({x.get()}, results), "");
    ASSERT_EQ(results.size(), 1u);
    kiln::Tensor owned(results[0]);
    const float *y = static_cast<const float *>(kiln_tensor_data(results[0]));
    for (size_t i = 0; i < values.size(); ++i)
      EXPECT_EQ(y[i], values[i] * 2 + 1);
  }
  EXPECT_EQ(affine.traces(), 2u);
  kiln::TracingJit broken = kiln::jit(
      "broken",
      [](const kiln::Values &a) -> kiln::Values {
        return {kiln::matmul(a[0], a[0])};
      },
      &memoryOnly);
  kiln::Tensor x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<kiln_tensor_t> results;
  EXPECT_NE(broken({x.get()}, results).find(
                "matmul: shapes [2, 3] and [2, 3]: 3 and 2 differ"),
            std::string::npos);
}

TEST(Trace, ShapeErrorsNameTheCallAndTheShapes) {
  int line = 0;
  kiln::Program program = kiln::trace(
      "bad", {{KILN_F32, {4, 8}}, {KILN_F32, {3}}},
      [&](const kiln::Values &a) -> kiln::Values {
        line = __LINE__ + 1;
        kiln::Traced sum = kiln::add(a[0], a[1]);
        return {kiln::exp(sum)};
      });
  EXPECT_FALSE(program.ok());
  EXPECT_EQ(program.error(), std::string(__FILE__) + ":" +
                                 std::to_string(line) +
                                 ": add: shapes [4, 8] and [3] do not broadcast");
  EXPECT_EQ(program.text(), "");

  program = kiln::trace("bad", {{KILN_F32, {4, 8}}, {KILN_F32, {7, 2}}},
                        [&](const kiln::Values &a) -> kiln::Values {
                          line = __LINE__ + 1;
                          return {kiln::matmul(a[0], a[1])};
                        });
  EXPECT_EQ(program.error(), std::string(__FILE__) + ":" +
                                 std::to_string(line) +
                                 ": matmul: shapes [4, 8] and [7, 2]: 8 and 7 "
                                 "differ");
  program = kiln::trace("bad", {{KILN_F32, {4}}},
                        [&](const kiln::Values &a) -> kiln::Values {
                          return kiln::grad([](const kiln::Values &b) {
                            return kiln::Values{kiln::exp(b[0])};
                          })(a);
                        });
  EXPECT_EQ(program.error(), "grad: the function's first result must be a "
                             "float scalar, got f32[4]");
  program = kiln::trace("bad", {{KILN_I8, {4}}},
                        [&](const kiln::Values &a) -> kiln::Values {
                          return kiln::grad([](const kiln::Values &b) {
                            return kiln::Values{kiln::sum(b[0])};
                          })(a);
                        });
  EXPECT_EQ(program.error(), "grad: the function's first result must be a "
                             "float scalar, got i8[]");
  program = kiln::trace("bad", {{KILN_F32, {4}}},
                        [&](const kiln::Values &a) -> kiln::Values {
                          line = __LINE__ + 1;
                          return {kiln::astype(a[0], kiln_dtype_t(99))};
                        });
  EXPECT_EQ(program.error(), std::string(__FILE__) + ":" +
                                 std::to_string(line) +
                                 ": astype: invalid dtype 99");
}

} // namespace
