//===- kiln/trace.hpp - building kiln programs from C++ ---------*- C++ -*-===//
//
// Programs built the way jax.numpy builds them from Python: a function of
// `kiln::Traced` values, run once by `kiln::trace`, records the kiln ops
// its numpy-like calls make (broadcasting, shape inference, readable errors
// naming the call and the shapes), and returns a `kiln::Program` whose
// text is an ordinary kiln module (print it, transform it, compile it).
// `kiln::grad` and `kiln::value_and_grad` differentiate a traced function
// by emitting `kiln.grad` / `kiln.value_and_grad` of it.
//
// The traced value is not named `Tensor`: that is the runtime's handle of
// data (kiln/runtime.hpp), which a program built here is then called on.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TRACE_HPP
#define KILN_TRACE_HPP

#include "kiln/runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace kiln {

class Tracer;

/// A traced argument's element type and shape.
struct Spec {
  kiln_dtype_t dtype;
  std::vector<int64_t> shape;
};

/// A value of the program being traced. Copies name the same value.
class Traced {
public:
  Traced() = default;
  kiln_dtype_t dtype() const { return type.dtype; }
  const std::vector<int64_t> &shape() const { return type.shape; }
  int64_t rank() const { return int64_t(type.shape.size()); }
  /// False once an error was recorded for the op that made it.
  bool valid() const { return value != nullptr; }

  // The tracer's own: the recorded value (an mlir::Value's opaque pointer).
  Traced(Tracer *tracer, void *value, Spec type)
      : tracer(tracer), value(value), type(std::move(type)) {}
  Tracer *tracer = nullptr;
  void *value = nullptr;
  Spec type{KILN_F32, {}};
};

using Values = std::vector<Traced>;
using TracedFunction = std::function<Values(const Values &)>;

/// A traced program: a kiln module with one public function.
class Program {
public:
  /// The module's text, or "" if tracing failed.
  const std::string &text() const { return source; }
  /// The first error tracing met (the call and the shapes), or "".
  const std::string &error() const { return failure; }
  bool ok() const { return failure.empty(); }
  /// Compiles the program for the host CPU (kiln_module_compile) into
  /// `out`, which the caller frees; why it failed, or "".
  std::string compile(kiln_module_t *out) const;

  std::string source, failure;
};

/// Traces `fn` on arguments of `specs` into the public function `name`.
Program trace(const std::string &name, const std::vector<Spec> &specs,
              const TracedFunction &fn);

/// Where a call was made, for its errors.
struct CallSite {
  const char *file;
  int line;
  static CallSite here(const char *file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
    return {file, line};
  }
};

//===----------------------------------------------------------------------===//
// numpy-like functions (numpy's broadcasting for elementwise ops)
//===----------------------------------------------------------------------===//

Traced add(const Traced &a, const Traced &b, CallSite at = CallSite::here());
Traced subtract(const Traced &a, const Traced &b,
                CallSite at = CallSite::here());
Traced multiply(const Traced &a, const Traced &b,
                CallSite at = CallSite::here());
Traced divide(const Traced &a, const Traced &b, CallSite at = CallSite::here());
Traced maximum(const Traced &a, const Traced &b,
               CallSite at = CallSite::here());
Traced minimum(const Traced &a, const Traced &b,
               CallSite at = CallSite::here());
/// A constant of `like`'s dtype, of shape [] (broadcasts anywhere).
Traced scalar(const Traced &like, double value);

inline Traced operator+(const Traced &a, const Traced &b) { return add(a, b); }
inline Traced operator-(const Traced &a, const Traced &b) {
  return subtract(a, b);
}
inline Traced operator*(const Traced &a, const Traced &b) {
  return multiply(a, b);
}
inline Traced operator/(const Traced &a, const Traced &b) {
  return divide(a, b);
}
inline Traced operator+(const Traced &a, double b) { return a + scalar(a, b); }
inline Traced operator-(const Traced &a, double b) { return a - scalar(a, b); }
inline Traced operator*(const Traced &a, double b) { return a * scalar(a, b); }
inline Traced operator/(const Traced &a, double b) { return a / scalar(a, b); }
inline Traced operator+(double a, const Traced &b) { return scalar(b, a) + b; }
inline Traced operator-(double a, const Traced &b) { return scalar(b, a) - b; }
inline Traced operator*(double a, const Traced &b) { return scalar(b, a) * b; }
inline Traced operator/(double a, const Traced &b) { return scalar(b, a) / b; }

Traced negative(const Traced &x);
inline Traced operator-(const Traced &x) { return negative(x); }
Traced exp(const Traced &x);
Traced log(const Traced &x);
Traced tanh(const Traced &x);
Traced sqrt(const Traced &x);
Traced rsqrt(const Traced &x);
Traced sigmoid(const Traced &x);
Traced relu(const Traced &x);
/// GELU, tanh approximation (jax.nn.gelu's default).
Traced gelu(const Traced &x);

/// numpy.matmul: the last dimension of `a` with the second-to-last of `b`
/// (a vector's only one), over equal leading batch dimensions.
Traced matmul(const Traced &a, const Traced &b, CallSite at = CallSite::here());

/// Reductions over `axes` (negative counts from the end; empty: all),
/// keeping them as size 1 if `keepdims`.
Traced sum(const Traced &x, std::vector<int64_t> axes = {},
           bool keepdims = false, CallSite at = CallSite::here());
Traced mean(const Traced &x, std::vector<int64_t> axes = {},
            bool keepdims = false, CallSite at = CallSite::here());
Traced max(const Traced &x, std::vector<int64_t> axes = {},
           bool keepdims = false, CallSite at = CallSite::here());

Traced softmax(const Traced &x, int64_t axis = -1,
               CallSite at = CallSite::here());
Traced log_softmax(const Traced &x, int64_t axis = -1,
                   CallSite at = CallSite::here());
/// Normalizes over the last axis, then scales and shifts.
Traced layer_norm(const Traced &x, const Traced &gamma, const Traced &beta,
                  double epsilon = 1e-5, CallSite at = CallSite::here());

Traced reshape(const Traced &x, std::vector<int64_t> shape,
               CallSite at = CallSite::here());
Traced transpose(const Traced &x, std::vector<int64_t> permutation,
                 CallSite at = CallSite::here());
/// numpy's x.astype(dtype) (kiln.convert: floats to integers toward zero,
/// saturating; integers to narrower ones keep the low bits).
Traced astype(const Traced &x, kiln_dtype_t dtype,
              CallSite at = CallSite::here());
/// numpy.where: elementwise choice, broadcasting all three.
Traced where(const Traced &condition, const Traced &a, const Traced &b,
             CallSite at = CallSite::here());
/// x[start:limit:stride] per dimension (strides empty: all 1).
Traced slice(const Traced &x, std::vector<int64_t> starts,
             std::vector<int64_t> limits, std::vector<int64_t> strides = {},
             CallSite at = CallSite::here());
/// x[i] along `axis` (negative `i` counts from the end): that axis removed.
Traced index(const Traced &x, int64_t i, int64_t axis = 0,
             CallSite at = CallSite::here());
/// x[i] along `axis` for a traced integer scalar `i`, clamped into range as
/// jax.lax.dynamic_index_in_dim does.
Traced index(const Traced &x, const Traced &i, int64_t axis = 0,
             CallSite at = CallSite::here());
/// jnp.take(x, indices, axis) (indices clamped into range).
Traced take(const Traced &x, const Traced &indices, int64_t axis = 0,
            CallSite at = CallSite::here());

//===----------------------------------------------------------------------===//
// Transformations
//===----------------------------------------------------------------------===//

/// The gradient of `fn` (whose first result is a float scalar) with
/// respect to its arguments `argnums`: emits `kiln.grad` of `fn` traced as
/// a private function.
TracedFunction grad(TracedFunction fn, std::vector<int64_t> argnums = {0});
/// `fn`'s results, then the gradients (`kiln.value_and_grad`).
TracedFunction value_and_grad(TracedFunction fn,
                              std::vector<int64_t> argnums = {0});
/// jax.jvp: called on the primals, then one tangent per primal; returns
/// `fn`'s results, then one tangent per result (`kiln.jvp`).
TracedFunction jvp(TracedFunction fn);
/// jax.custom_vjp: calls `fn`, whose reverse-mode derivative is the
/// user's: `fwd` takes the same arguments and returns `fn`'s results, then
/// residuals; `bwd` takes the residuals, then one cotangent per result, and
/// returns one cotangent per argument (`kiln.custom_vjp`).
TracedFunction custom_vjp(TracedFunction fn, TracedFunction fwd,
                          TracedFunction bwd);
/// `fn` mapped over axis `in_axes[i]` of argument i (-1: not mapped; empty:
/// all 0), its results stacked along `out_axes` (empty: all 0), as
/// jax.vmap (`kiln.vmap`).
TracedFunction vmap(TracedFunction fn, std::vector<int64_t> in_axes = {},
                    std::vector<int64_t> out_axes = {});
/// jax.lax.scan of `fn` (carries..., x...) -> (carries..., y...): called on
/// the `num_carry` initial carries, then the xs stacked on dimension 0;
/// returns the final carries, then the ys stacked (`kiln.scan`).
TracedFunction scan(TracedFunction fn, int64_t num_carry, bool reverse = false);
/// jax.checkpoint of `fn` with a remat policy of DESIGN.md
/// ("nothing_saveable", "dots_saveable", ...; `kiln.checkpoint`).
TracedFunction checkpoint(TracedFunction fn,
                          std::string policy = "nothing_saveable");

//===----------------------------------------------------------------------===//
// Parameter trees
//===----------------------------------------------------------------------===//

/// A tree of parameters (jax's pytrees; the seeds' nnx.split / nnx.merge
/// state): a leaf, a map of named subtrees or a list of subtrees, nested as
/// a model's layers are. A traced step takes and returns the leaves in
/// jax.tree_util's order: depth first, a map's names in order, a list's
/// items in order. A C++ struct of parameters is a map of its fields:
/// `Tree<Spec> specs = {{"layers", Tree<Spec>::list({layer, layer})},
/// {"scale", scalar}}`.
template <typename T> class Tree {
public:
  using Map = std::map<std::string, Tree>;
  using List = std::vector<Tree>;

  /// An empty map.
  Tree() : node(Map{}) {}
  Tree(T leaf) : node(std::move(leaf)) {}
  /// A map: `{{"w", w}, {"b", b}}`.
  Tree(std::initializer_list<typename Map::value_type> children)
      : node(Map(children)) {}
  static Tree map(Map children) { return Tree(Node(std::move(children))); }
  static Tree list(List items) { return Tree(Node(std::move(items))); }

  bool isLeaf() const { return std::holds_alternative<T>(node); }
  /// The map's or list's children; null if this is not one.
  const Map *children() const { return std::get_if<Map>(&node); }
  const List *items() const { return std::get_if<List>(&node); }

  /// The leaf (a leaf converts to it, so `params["w"] * 2.0` reads it).
  const T &leaf() const { return *must(std::get_if<T>(&node), "a leaf"); }
  operator const T &() const { return leaf(); }
  /// The child `name` of a map, made if missing.
  Tree &operator[](const std::string &name) {
    return (*must(std::get_if<Map>(&node), "a map"))[name];
  }
  Tree &operator[](const char *name) { return (*this)[std::string(name)]; }
  const Tree &operator[](const std::string &name) const {
    const Map &named = *must(children(), "a map");
    auto found = named.find(name);
    return *must(found == named.end() ? nullptr : &found->second,
                 "a map holding that name");
  }
  const Tree &operator[](const char *name) const {
    return (*this)[std::string(name)];
  }
  /// Item `i` of a list.
  Tree &operator[](size_t i) {
    List &items = *must(std::get_if<List>(&node), "a list");
    return *must(i < items.size() ? &items[i] : nullptr, "a longer list");
  }
  const Tree &operator[](size_t i) const {
    const List &all = *must(items(), "a list");
    return *must(i < all.size() ? &all[i] : nullptr, "a longer list");
  }
  // (An int literal would be as close to a name as to a size_t.)
  Tree &operator[](int i) { return (*this)[size_t(i)]; }
  const Tree &operator[](int i) const { return (*this)[size_t(i)]; }

private:
  using Node = std::variant<T, Map, List>;
  explicit Tree(Node node) : node(std::move(node)) {}
  /// `p`, which the caller's use of the tree needs to be non-null: a
  /// programming error otherwise, reported before stopping.
  template <typename P> static P *must(P *p, const char *expected) {
    if (!p) {
      std::fprintf(stderr, "kiln::Tree: expected %s\n", expected);
      std::abort();
    }
    return p;
  }
  Node node;
};

/// Calls `visit` on each leaf of `tree`, in jax.tree_util's order.
template <typename T, typename F>
void forEachLeaf(const Tree<T> &tree, const F &visit) {
  if (tree.isLeaf())
    return visit(tree.leaf());
  if (const auto *children = tree.children())
    for (const auto &entry : *children)
      forEachLeaf(entry.second, visit);
  else
    for (const Tree<T> &item : *tree.items())
      forEachLeaf(item, visit);
}

/// The leaves of `tree`, in order.
template <typename T> std::vector<T> flatten(const Tree<T> &tree) {
  std::vector<T> leaves;
  forEachLeaf(tree, [&](const T &leaf) { leaves.push_back(leaf); });
  return leaves;
}

/// A tree of `like`'s structure whose leaf at each position is `leaf(x)` of
/// `like`'s leaf `x` there (jax.tree_util.tree_map).
template <typename U, typename F>
auto map(const Tree<U> &like, const F &leaf)
    -> Tree<std::decay_t<decltype(leaf(std::declval<const U &>()))>> {
  using T = std::decay_t<decltype(leaf(std::declval<const U &>()))>;
  if (like.isLeaf())
    return Tree<T>(leaf(like.leaf()));
  if (const auto *children = like.children()) {
    typename Tree<T>::Map mapped;
    for (const auto &entry : *children)
      mapped.emplace(entry.first, map(entry.second, leaf));
    return Tree<T>::map(std::move(mapped));
  }
  typename Tree<T>::List mapped;
  for (const Tree<U> &item : *like.items())
    mapped.push_back(map(item, leaf));
  return Tree<T>::list(std::move(mapped));
}

/// A tree of `like`'s structure holding `leaves[first...]` in order; the
/// leaves must be at least as many as `like`'s.
template <typename T, typename U>
Tree<T> unflatten(const Tree<U> &like, const std::vector<T> &leaves,
                  size_t first = 0) {
  return map(like, [&](const U &) -> T {
    if (first >= leaves.size()) {
      std::fprintf(stderr, "kiln::unflatten: %zu leaves for a larger tree\n",
                   leaves.size());
      std::abort();
    }
    return leaves[first++];
  });
}

/// The tree of `f(a, b)` of the leaves of two trees of one structure at
/// each position (jax.tree_util.tree_map of two trees: an SGD step is
/// `kiln::map(params, grads, [](auto w, auto g) { return w - 0.1 * g; })`).
template <typename T, typename U, typename F>
auto map(const Tree<T> &a, const Tree<U> &b, const F &f) {
  std::vector<U> right = flatten(b);
  size_t left = 0;
  forEachLeaf(a, [&](const T &) { ++left; });
  if (right.size() != left) {
    std::fprintf(stderr, "kiln::map: trees of %zu and %zu leaves\n", left,
                 right.size());
    std::abort();
  }
  size_t next = 0;
  return map(a, [&](const T &x) { return f(x, right[next++]); });
}

//===----------------------------------------------------------------------===//
// jit
//===----------------------------------------------------------------------===//

/// jax.jit for C++: traces `fn` into the entry `name` on the first call of
/// each signature (the arguments' dtypes and shapes), compiles it through
/// the runtime's jit and its compile cache (kiln_jit_*: memory and disk,
/// as `options` say, copied, its strings living as long as the jit; NULL:
/// the defaults), and calls it.
class TracingJit {
public:
  TracingJit(std::string name, TracedFunction fn,
             const kiln_jit_options_t *options = nullptr);
  ~TracingJit();
  TracingJit(TracingJit &&);
  /// Calls on host tensors; `results` receives new tensors the caller
  /// frees. Why it failed (tracing, compiling or calling), or "".
  std::string operator()(const std::vector<kiln_tensor_t> &args,
                         std::vector<kiln_tensor_t> &results);
  /// How many signatures were traced.
  size_t traces() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// A TracingJit of `fn` (kiln::Jit is the runtime's jit of a source file).
inline TracingJit jit(std::string name, TracedFunction fn,
                      const kiln_jit_options_t *options = nullptr) {
  return TracingJit(std::move(name), std::move(fn), options);
}

} // namespace kiln

#endif // KILN_TRACE_HPP
