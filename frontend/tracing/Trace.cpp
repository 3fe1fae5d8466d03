//===- Trace.cpp - kiln programs built by tracing C++ ---------------------===//
//
// A Tracer owns the context and module a trace builds. Each numpy-like
// function checks its operands' shapes (naming the call site and the
// shapes when they do not fit), inserts the broadcasts numpy implies, and
// records kiln ops; kiln's own verifiers check the rest when the module is
// verified. After the first error, calls record nothing more.
//
//===----------------------------------------------------------------------===//
#include "kiln/trace.hpp"

#include "kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <numeric>

using namespace mlir;

namespace kiln {

class Tracer {
public:
  Tracer() : builder(&context) {
    context.loadDialect<KilnDialect, func::FuncDialect>();
    module = ModuleOp::create(UnknownLoc::get(&context));
  }

  /// Records the first error.
  void fail(const std::string &message) {
    if (failure.empty())
      failure = message;
  }
  void fail(const CallSite &at, StringRef op, const std::string &why) {
    fail(std::string(at.file) + ":" + std::to_string(at.line) + ": " +
         op.str() + ": " + why);
  }

  Location loc(const CallSite &at, StringRef op) {
    return NameLoc::get(builder.getStringAttr(op),
                        FileLineColLoc::get(&context, at.file, at.line, 1));
  }
  Location loc(StringRef op) {
    return NameLoc::get(builder.getStringAttr(op));
  }

  Type elementType(kiln_dtype_t dtype) {
    switch (dtype) {
    case KILN_F32:
      return builder.getF32Type();
    case KILN_F64:
      return builder.getF64Type();
    case KILN_F16:
      return builder.getF16Type();
    case KILN_BF16:
      return builder.getBF16Type();
    case KILN_I1:
      return builder.getI1Type();
    case KILN_I8:
      return builder.getI8Type();
    case KILN_I16:
      return builder.getIntegerType(16);
    case KILN_I32:
      return builder.getI32Type();
    case KILN_I64:
      return builder.getI64Type();
    }
    return builder.getF32Type();
  }

  RankedTensorType tensorType(const Spec &spec) {
    return RankedTensorType::get(spec.shape, elementType(spec.dtype));
  }

  Traced wrap(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    Type element = type.getElementType();
    kiln_dtype_t dtype = element.isF64()    ? KILN_F64
                         : element.isF16()  ? KILN_F16
                         : element.isBF16() ? KILN_BF16
                         : element.isInteger(1)  ? KILN_I1
                         : element.isInteger(8)  ? KILN_I8
                         : element.isInteger(16) ? KILN_I16
                         : element.isInteger(32) ? KILN_I32
                         : element.isInteger(64) ? KILN_I64
                                                 : KILN_F32;
    return Traced(this, value.getAsOpaquePointer(),
                  Spec{dtype, std::vector<int64_t>(type.getShape())});
  }

  static Value value(const Traced &traced) {
    return Value::getFromOpaquePointer(traced.value);
  }

  /// Traces `fn` on arguments of `types` into the function `name`; its
  /// results in `results` (empty after an error).
  func::FuncOp function(StringRef name, ArrayRef<Type> types,
                        const TracedFunction &fn, bool isPublic,
                        Values &results) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module->getBody());
    auto fnOp = func::FuncOp::create(builder, loc(name), name,
                                     builder.getFunctionType(types, {}));
    if (!isPublic)
      fnOp.setPrivate();
    Block *entry = fnOp.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    Values args;
    for (BlockArgument arg : entry->getArguments())
      args.push_back(wrap(arg));
    results = fn(args);
    SmallVector<Value> outs;
    for (const Traced &result : results)
      if (result.valid() && result.tracer == this)
        outs.push_back(value(result));
    if (outs.size() != results.size()) {
      fail(name.str() + ": a result is not a value of this trace");
      results.clear();
    }
    func::ReturnOp::create(builder, loc(name), outs);
    fnOp.setType(builder.getFunctionType(types, ValueRange(outs).getTypes()));
    return fnOp;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  OpBuilder builder;
  std::string failure;
  unsigned outlined = 0;
};

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// The tracer of `values`, or null if one is invalid (an error was
/// recorded already).
Tracer *tracerOf(std::initializer_list<const Traced *> values) {
  for (const Traced *value : values)
    if (!value->valid())
      return nullptr;
  return (*values.begin())->tracer;
}

/// numpy's broadcast of `a` and `b`, or false.
bool broadcastShapes(const std::vector<int64_t> &a,
                     const std::vector<int64_t> &b,
                     std::vector<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return false;
    out[i] = x == 1 ? y : x;
  }
  return true;
}

/// `x` broadcast to `shape` (which numpy's rules allow).
Value broadcastTo(Tracer &t, const Traced &x, const std::vector<int64_t> &shape,
                  Location loc) {
  Value value = Tracer::value(x);
  if (x.shape() == shape)
    return value;
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < x.rank(); ++i)
    dims.push_back(int64_t(shape.size()) - x.rank() + i);
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(value.getType()).getElementType());
  return BroadcastInDimOp::create(t.builder, loc, type, value,
                                  t.builder.getDenseI64ArrayAttr(dims),
                                  Value());
}

template <typename OpT>
Traced binary(StringRef name, const Traced &a, const Traced &b,
              const CallSite &at) {
  Tracer *t = tracerOf({&a, &b});
  if (!t)
    return {};
  std::vector<int64_t> shape;
  if (a.dtype() != b.dtype()) {
    t->fail(at, name,
            std::string("dtypes ") + kiln_dtype_name(a.dtype()) + " and " +
                kiln_dtype_name(b.dtype()) + " differ");
    return {};
  }
  if (!broadcastShapes(a.shape(), b.shape(), shape)) {
    t->fail(at, name,
            "shapes " + shapeText(a.shape()) + " and " + shapeText(b.shape()) +
                " do not broadcast");
    return {};
  }
  Location loc = t->loc(at, name);
  return t->wrap(OpT::create(t->builder, loc, broadcastTo(*t, a, shape, loc),
                             broadcastTo(*t, b, shape, loc)));
}

template <typename OpT> Traced unary(StringRef name, const Traced &x) {
  Tracer *t = tracerOf({&x});
  if (!t)
    return {};
  return t->wrap(OpT::create(t->builder, t->loc(name), Tracer::value(x)));
}

/// `axes` made non-negative, or an error naming the call.
bool normalizeAxes(Tracer &t, const Traced &x, std::vector<int64_t> &axes,
                   StringRef name, const CallSite &at) {
  if (axes.empty())
    for (int64_t i = 0; i < x.rank(); ++i)
      axes.push_back(i);
  std::vector<bool> seen(x.rank(), false);
  for (int64_t &axis : axes) {
    int64_t given = axis;
    if (axis < 0)
      axis += x.rank();
    if (axis < 0 || axis >= x.rank() || seen[axis]) {
      t.fail(at, name,
             "axis " + std::to_string(given) + " is " +
                 (axis >= 0 && axis < x.rank() ? "repeated"
                                               : "out of range") +
                 " for shape " + shapeText(x.shape()));
      return false;
    }
    seen[axis] = true;
  }
  std::sort(axes.begin(), axes.end());
  return true;
}

/// `reduced` (of `x` over `axes`) with the axes kept as size 1.
Traced keepAxes(const Traced &x, const Traced &reduced,
                const std::vector<int64_t> &axes, const CallSite &at) {
  std::vector<int64_t> shape = x.shape();
  for (int64_t axis : axes)
    shape[axis] = 1;
  return reshape(reduced, shape, at);
}

template <typename OpT>
Traced reduction(StringRef name, const Traced &x, std::vector<int64_t> axes,
                 bool keepdims, const CallSite &at) {
  Tracer *t = tracerOf({&x});
  if (!t || !normalizeAxes(*t, x, axes, name, at))
    return {};
  Traced reduced = t->wrap(OpT::create(t->builder, t->loc(at, name),
                                       Tracer::value(x),
                                       t->builder.getDenseI64ArrayAttr(axes)));
  return keepdims ? keepAxes(x, reduced, axes, at) : reduced;
}

} // namespace

Traced scalar(const Traced &like, double value) {
  Tracer *t = tracerOf({&like});
  if (!t)
    return {};
  Type element = t->elementType(like.dtype());
  auto type = RankedTensorType::get({}, element);
  Attribute attr =
      isa<FloatType>(element)
          ? Attribute(t->builder.getFloatAttr(element, value))
          : Attribute(t->builder.getIntegerAttr(element, int64_t(value)));
  return t->wrap(ConstantOp::create(t->builder, t->loc("constant"),
                                    DenseElementsAttr::get(type, attr)));
}

Traced add(const Traced &a, const Traced &b, CallSite at) {
  return binary<AddOp>("add", a, b, at);
}
Traced subtract(const Traced &a, const Traced &b, CallSite at) {
  return binary<SubOp>("subtract", a, b, at);
}
Traced multiply(const Traced &a, const Traced &b, CallSite at) {
  return binary<MulOp>("multiply", a, b, at);
}
Traced divide(const Traced &a, const Traced &b, CallSite at) {
  return binary<DivOp>("divide", a, b, at);
}
Traced maximum(const Traced &a, const Traced &b, CallSite at) {
  return binary<MaxOp>("maximum", a, b, at);
}
Traced minimum(const Traced &a, const Traced &b, CallSite at) {
  return binary<MinOp>("minimum", a, b, at);
}

Traced negative(const Traced &x) { return unary<NegOp>("negative", x); }
Traced exp(const Traced &x) { return unary<ExpOp>("exp", x); }
Traced log(const Traced &x) { return unary<LogOp>("log", x); }
Traced tanh(const Traced &x) { return unary<TanhOp>("tanh", x); }
Traced sqrt(const Traced &x) { return unary<SqrtOp>("sqrt", x); }
Traced rsqrt(const Traced &x) { return unary<RsqrtOp>("rsqrt", x); }
Traced sigmoid(const Traced &x) { return unary<LogisticOp>("sigmoid", x); }
Traced relu(const Traced &x) { return maximum(x, scalar(x, 0.0)); }

Traced gelu(const Traced &x) {
  Traced inner = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + tanh(inner));
}

Traced matmul(const Traced &a, const Traced &b, CallSite at) {
  Tracer *t = tracerOf({&a, &b});
  if (!t)
    return {};
  int64_t ra = a.rank(), rb = b.rank();
  auto mismatch = [&](const std::string &why) {
    t->fail(at, "matmul",
            "shapes " + shapeText(a.shape()) + " and " + shapeText(b.shape()) +
                ": " + why);
    return Traced();
  };
  if (ra == 0 || rb == 0)
    return mismatch("scalars have no dimension to contract");
  int64_t ka = ra - 1, kb = rb == 1 ? 0 : rb - 2;
  if (a.shape()[ka] != b.shape()[kb])
    return mismatch(std::to_string(a.shape()[ka]) + " and " +
                    std::to_string(b.shape()[kb]) + " differ");
  // Batch dimensions: all but the last two, when both have them.
  int64_t batch = (ra >= 3 && rb >= 3) ? ra - 2 : 0;
  if (batch && (rb != ra || !std::equal(a.shape().begin(),
                                        a.shape().begin() + batch,
                                        b.shape().begin())))
    return mismatch("the batch dimensions differ");
  if (!batch && ra >= 3 && rb >= 2)
    return mismatch("a batch needs both operands batched");
  std::vector<int64_t> shape(a.shape().begin(), a.shape().begin() + batch);
  SmallVector<int64_t> batchDims;
  for (int64_t i = 0; i < ra; ++i)
    if (i >= batch && i != ka)
      shape.push_back(a.shape()[i]);
  for (int64_t i = 0; i < rb; ++i)
    if (i >= batch && i != kb)
      shape.push_back(b.shape()[i]);
  for (int64_t i = 0; i < batch; ++i)
    batchDims.push_back(i);
  OpBuilder &builder = t->builder;
  SmallVector<NamedAttribute> attrs = {
      builder.getNamedAttr("lhs_batching_dimensions",
                           builder.getDenseI64ArrayAttr(batchDims)),
      builder.getNamedAttr("rhs_batching_dimensions",
                           builder.getDenseI64ArrayAttr(batchDims)),
      builder.getNamedAttr("lhs_contracting_dimensions",
                           builder.getDenseI64ArrayAttr({ka})),
      builder.getNamedAttr("rhs_contracting_dimensions",
                           builder.getDenseI64ArrayAttr({kb}))};
  auto type = RankedTensorType::get(shape, t->elementType(a.dtype()));
  return t->wrap(DotGeneralOp::create(
      builder, t->loc(at, "matmul"), TypeRange{type},
      ValueRange{Tracer::value(a), Tracer::value(b)}, attrs)->getResult(0));
}

Traced sum(const Traced &x, std::vector<int64_t> axes, bool keepdims,
           CallSite at) {
  return reduction<ReduceSumOp>("sum", x, std::move(axes), keepdims, at);
}

Traced max(const Traced &x, std::vector<int64_t> axes, bool keepdims,
           CallSite at) {
  return reduction<ReduceMaxOp>("max", x, std::move(axes), keepdims, at);
}

Traced mean(const Traced &x, std::vector<int64_t> axes, bool keepdims,
            CallSite at) {
  Tracer *t = tracerOf({&x});
  if (!t || !normalizeAxes(*t, x, axes, "mean", at))
    return {};
  int64_t count = 1;
  for (int64_t axis : axes)
    count *= x.shape()[axis];
  return sum(x, axes, keepdims, at) / double(count);
}

Traced softmax(const Traced &x, int64_t axis, CallSite at) {
  Traced shifted = x - max(x, {axis}, true, at);
  Traced e = exp(shifted);
  return e / sum(e, {axis}, true, at);
}

Traced log_softmax(const Traced &x, int64_t axis, CallSite at) {
  Traced shifted = x - max(x, {axis}, true, at);
  return shifted - log(sum(exp(shifted), {axis}, true, at));
}

Traced layer_norm(const Traced &x, const Traced &gamma, const Traced &beta,
                  double epsilon, CallSite at) {
  Traced centered = x - mean(x, {-1}, true, at);
  Traced variance = mean(centered * centered, {-1}, true, at);
  return add(multiply(centered * rsqrt(variance + epsilon), gamma, at), beta,
             at);
}

Traced reshape(const Traced &x, std::vector<int64_t> shape, CallSite at) {
  Tracer *t = tracerOf({&x});
  if (!t)
    return {};
  auto count = [](const std::vector<int64_t> &s) {
    return std::accumulate(s.begin(), s.end(), int64_t(1),
                           std::multiplies<int64_t>());
  };
  if (count(shape) != count(x.shape())) {
    t->fail(at, "reshape",
            shapeText(x.shape()) + " has " + std::to_string(count(x.shape())) +
                " elements, " + shapeText(shape) + " " +
                std::to_string(count(shape)));
    return {};
  }
  if (shape == x.shape())
    return x;
  auto type = RankedTensorType::get(shape, t->elementType(x.dtype()));
  return t->wrap(ReshapeOp::create(t->builder, t->loc(at, "reshape"), type,
                                   Tracer::value(x)));
}

Traced transpose(const Traced &x, std::vector<int64_t> permutation,
                 CallSite at) {
  Tracer *t = tracerOf({&x});
  if (!t)
    return {};
  std::vector<int64_t> sorted = permutation;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < int64_t(sorted.size()); ++i)
    if (sorted[i] != i || int64_t(sorted.size()) != x.rank()) {
      t->fail(at, "transpose",
              shapeText(permutation) + " is not a permutation of the " +
                  std::to_string(x.rank()) + " dimensions of " +
                  shapeText(x.shape()));
      return {};
    }
  return t->wrap(TransposeOp::create(
      t->builder, t->loc(at, "transpose"), Tracer::value(x),
      t->builder.getDenseI64ArrayAttr(permutation)));
}

Traced astype(const Traced &x, kiln_dtype_t dtype, CallSite at) {
  Tracer *t = tracerOf({&x});
  if (!t)
    return {};
  if (kiln_dtype_size(dtype) == 0) {
    t->fail(at, "astype", "invalid dtype " + std::to_string(int(dtype)));
    return {};
  }
  auto type = RankedTensorType::get(x.shape(), t->elementType(dtype));
  return t->wrap(ConvertOp::create(t->builder, t->loc(at, "astype"), type,
                                   Tracer::value(x)));
}

Traced where(const Traced &condition, const Traced &a, const Traced &b,
             CallSite at) {
  Tracer *t = tracerOf({&condition, &a, &b});
  if (!t)
    return {};
  std::vector<int64_t> shape, both;
  if (condition.dtype() != KILN_I1 || a.dtype() != b.dtype()) {
    t->fail(at, "where",
            std::string("needs an i1 condition and choices of one dtype, got ") +
                kiln_dtype_name(condition.dtype()) + ", " +
                kiln_dtype_name(a.dtype()) + ", " + kiln_dtype_name(b.dtype()));
    return {};
  }
  if (!broadcastShapes(a.shape(), b.shape(), both) ||
      !broadcastShapes(condition.shape(), both, shape)) {
    t->fail(at, "where",
            "shapes " + shapeText(condition.shape()) + ", " +
                shapeText(a.shape()) + " and " + shapeText(b.shape()) +
                " do not broadcast");
    return {};
  }
  Location loc = t->loc(at, "where");
  auto type = RankedTensorType::get(shape, t->elementType(a.dtype()));
  return t->wrap(SelectOp::create(t->builder, loc, type,
                                  broadcastTo(*t, condition, shape, loc),
                                  broadcastTo(*t, a, shape, loc),
                                  broadcastTo(*t, b, shape, loc)));
}

Traced slice(const Traced &x, std::vector<int64_t> starts,
             std::vector<int64_t> limits, std::vector<int64_t> strides,
             CallSite at) {
  Tracer *t = tracerOf({&x});
  if (!t)
    return {};
  if (strides.empty())
    strides.assign(x.rank(), 1);
  std::vector<int64_t> shape;
  bool fits = int64_t(starts.size()) == x.rank() &&
              limits.size() == starts.size() && strides.size() == starts.size();
  for (int64_t d = 0; fits && d < x.rank(); ++d) {
    fits = starts[d] >= 0 && starts[d] <= limits[d] &&
           limits[d] <= x.shape()[d] && strides[d] > 0;
    shape.push_back(fits ? (limits[d] - starts[d] + strides[d] - 1) / strides[d]
                         : 0);
  }
  if (!fits) {
    t->fail(at, "slice",
            shapeText(starts) + ":" + shapeText(limits) + ":" +
                shapeText(strides) + " is not a slice of " +
                shapeText(x.shape()));
    return {};
  }
  auto type = RankedTensorType::get(shape, t->elementType(x.dtype()));
  OpBuilder &b = t->builder;
  return t->wrap(SliceOp::create(b, t->loc(at, "slice"), type,
                                 Tracer::value(x),
                                 b.getDenseI64ArrayAttr(starts),
                                 b.getDenseI64ArrayAttr(limits),
                                 b.getDenseI64ArrayAttr(strides)));
}

Traced index(const Traced &x, int64_t i, int64_t axis, CallSite at) {
  Tracer *t = tracerOf({&x});
  if (!t)
    return {};
  std::vector<int64_t> axes = {axis};
  if (!normalizeAxes(*t, x, axes, "index", at))
    return {};
  int64_t size = x.shape()[axes[0]];
  if (i < -size || i >= size) {
    t->fail(at, "index",
            std::to_string(i) + " is out of range for axis " +
                std::to_string(axis) + " of " + shapeText(x.shape()));
    return {};
  }
  std::vector<int64_t> starts(x.rank(), 0), limits = x.shape();
  starts[axes[0]] = i < 0 ? i + size : i;
  limits[axes[0]] = starts[axes[0]] + 1;
  std::vector<int64_t> shape = x.shape();
  shape.erase(shape.begin() + axes[0]);
  return reshape(slice(x, starts, limits, {}, at), shape, at);
}

Traced index(const Traced &x, const Traced &i, int64_t axis, CallSite at) {
  Tracer *t = tracerOf({&x, &i});
  if (!t)
    return {};
  std::vector<int64_t> axes = {axis};
  if (!normalizeAxes(*t, x, axes, "index", at))
    return {};
  if (i.rank() != 0 || (i.dtype() != KILN_I32 && i.dtype() != KILN_I64)) {
    t->fail(at, "index",
            std::string("the index must be an i32 or i64 scalar, got ") +
                kiln_dtype_name(i.dtype()) + shapeText(i.shape()));
    return {};
  }
  // Zeros of the index's type start every other dimension.
  Traced zero = scalar(i, 0.0);
  SmallVector<Value> starts;
  std::vector<int64_t> sizes = x.shape();
  for (int64_t d = 0; d < x.rank(); ++d)
    starts.push_back(Tracer::value(d == axes[0] ? i : zero));
  sizes[axes[0]] = 1;
  auto type = RankedTensorType::get(sizes, t->elementType(x.dtype()));
  Traced row = t->wrap(DynamicSliceOp::create(
      t->builder, t->loc(at, "index"), type, Tracer::value(x), starts,
      t->builder.getDenseI64ArrayAttr(sizes)));
  std::vector<int64_t> shape = x.shape();
  shape.erase(shape.begin() + axes[0]);
  return reshape(row, shape, at);
}

Traced take(const Traced &x, const Traced &indices, int64_t axis,
            CallSite at) {
  Tracer *t = tracerOf({&x, &indices});
  if (!t)
    return {};
  std::vector<int64_t> axes = {axis};
  if (!normalizeAxes(*t, x, axes, "take", at))
    return {};
  return t->wrap(TakeOp::create(t->builder, t->loc(at, "take"),
                                Tracer::value(x), Tracer::value(indices),
                                t->builder.getI64IntegerAttr(axes[0])));
}

//===----------------------------------------------------------------------===//
// Transformations
//===----------------------------------------------------------------------===//

namespace {
/// The tracer of `args` (null if one is invalid) and their values and types.
Tracer *operandsOf(const Values &args, SmallVectorImpl<Value> &values,
                   SmallVectorImpl<Type> &types) {
  Tracer *t = nullptr;
  for (const Traced &arg : args) {
    if (!arg.valid())
      return nullptr;
    t = arg.tracer;
    values.push_back(Tracer::value(arg));
    types.push_back(values.back().getType());
  }
  return t;
}

/// `fn` traced on `types` as a new private function named after `op`: its
/// name, and its results in `results` (empty after an error).
std::string outline(Tracer &t, StringRef op, const TracedFunction &fn,
                    ArrayRef<Type> types, Values &results) {
  std::string callee = op.str() + "_fn" + std::to_string(t.outlined++);
  t.function(callee, types, fn, /*isPublic=*/false, results);
  return callee;
}

/// A transformation op `OpT` of `callee` on `operands`.
template <typename OpT>
Values transform(Tracer &t, StringRef op, StringRef callee,
                 ArrayRef<Type> resultTypes, ArrayRef<Value> operands,
                 SmallVector<NamedAttribute> attrs) {
  attrs.push_back(t.builder.getNamedAttr(
      "callee", FlatSymbolRefAttr::get(&t.context, callee)));
  Operation *made =
      OpT::create(t.builder, t.loc(op), resultTypes, operands, attrs);
  Values out;
  for (Value result : made->getResults())
    out.push_back(t.wrap(result));
  return out;
}

/// `fn` traced as a private function, then `OpT` of it on `args`: the
/// callee's results first if `withValues`, then one gradient per argnum.
template <typename OpT>
Values differentiate(StringRef name, const TracedFunction &fn,
                     const std::vector<int64_t> &argnums, const Values &args,
                     bool withValues) {
  SmallVector<Value> operands;
  SmallVector<Type> types;
  Tracer *t = operandsOf(args, operands, types);
  if (!t)
    return {};
  Values results;
  std::string callee = outline(*t, name, fn, types, results);
  if (results.empty())
    return {};
  const Traced &first = results.front();
  if (first.rank() != 0 || !isa<FloatType>(t->elementType(first.dtype()))) {
    t->fail(name.str() + ": the function's first result must be a float "
            "scalar, got " + kiln_dtype_name(first.dtype()) +
            shapeText(first.shape()));
    return {};
  }
  SmallVector<Type> resultTypes;
  if (withValues)
    for (const Traced &result : results)
      resultTypes.push_back(t->tensorType(result.type));
  for (int64_t argnum : argnums) {
    if (argnum < 0 || argnum >= int64_t(args.size())) {
      t->fail(name.str() + ": argnum " + std::to_string(argnum) +
              " is not one of the " + std::to_string(args.size()) +
              " arguments");
      return {};
    }
    resultTypes.push_back(types[argnum]);
  }
  return transform<OpT>(
      *t, name, callee, resultTypes, operands,
      {t->builder.getNamedAttr("argnums",
                               t->builder.getDenseI64ArrayAttr(argnums))});
}

/// `type` without its dimension `axis`, or with one of `size` inserted
/// there.
Type withoutAxis(Type type, int64_t axis) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(ranked.getShape());
  shape.erase(shape.begin() + axis);
  return ranked.clone(shape);
}
Type withAxis(Type type, int64_t axis, int64_t size) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(ranked.getShape());
  shape.insert(shape.begin() + axis, size);
  return ranked.clone(shape);
}
} // namespace

TracedFunction grad(TracedFunction fn, std::vector<int64_t> argnums) {
  return [fn = std::move(fn), argnums = std::move(argnums)](const Values &args) {
    return differentiate<GradOp>("grad", fn, argnums, args, false);
  };
}

TracedFunction value_and_grad(TracedFunction fn, std::vector<int64_t> argnums) {
  return [fn = std::move(fn), argnums = std::move(argnums)](const Values &args) {
    return differentiate<ValueAndGradOp>("value_and_grad", fn, argnums, args,
                                         true);
  };
}

TracedFunction jvp(TracedFunction fn) {
  return [fn = std::move(fn)](const Values &args) -> Values {
    SmallVector<Value> operands;
    SmallVector<Type> types;
    Tracer *t = operandsOf(args, operands, types);
    if (!t)
      return {};
    size_t n = args.size() / 2;
    if (args.size() % 2 ||
        !std::equal(types.begin(), types.begin() + n, types.begin() + n)) {
      t->fail("jvp: expected primals, then one tangent of each primal's "
              "type; got " + std::to_string(args.size()) + " arguments");
      return {};
    }
    Values results;
    std::string callee = outline(*t, "jvp", fn, ArrayRef(types).take_front(n),
                                 results);
    if (results.empty())
      return {};
    SmallVector<Type> resultTypes;
    for (int copy = 0; copy < 2; ++copy)
      for (const Traced &result : results)
        resultTypes.push_back(t->tensorType(result.type));
    return transform<JvpOp>(*t, "jvp", callee, resultTypes, operands, {});
  };
}

TracedFunction custom_vjp(TracedFunction fn, TracedFunction fwd,
                          TracedFunction bwd) {
  return [fn = std::move(fn), fwd = std::move(fwd),
          bwd = std::move(bwd)](const Values &args) -> Values {
    SmallVector<Value> operands;
    SmallVector<Type> types;
    Tracer *t = operandsOf(args, operands, types);
    if (!t)
      return {};
    Values results, forward, backward;
    std::string callee = outline(*t, "custom_vjp", fn, types, results);
    std::string fwdName = outline(*t, "custom_vjp_fwd", fwd, types, forward);
    if (results.empty() || forward.size() < results.size())
      return {};
    // bwd takes the residuals, then one cotangent per result.
    SmallVector<Type> bwdTypes, resultTypes;
    for (size_t i = results.size(); i < forward.size(); ++i)
      bwdTypes.push_back(t->tensorType(forward[i].type));
    for (const Traced &result : results) {
      resultTypes.push_back(t->tensorType(result.type));
      bwdTypes.push_back(resultTypes.back());
    }
    std::string bwdName =
        outline(*t, "custom_vjp_bwd", bwd, bwdTypes, backward);
    if (backward.empty())
      return {};
    OpBuilder &b = t->builder;
    return transform<CustomVjpOp>(
        *t, "custom_vjp", callee, resultTypes, operands,
        {b.getNamedAttr("fwd", FlatSymbolRefAttr::get(&t->context, fwdName)),
         b.getNamedAttr("bwd", FlatSymbolRefAttr::get(&t->context, bwdName))});
  };
}

TracedFunction vmap(TracedFunction fn, std::vector<int64_t> inAxes,
                    std::vector<int64_t> outAxes) {
  return [fn = std::move(fn), inAxes = std::move(inAxes),
          outAxes = std::move(outAxes)](const Values &args) -> Values {
    SmallVector<Value> operands;
    SmallVector<Type> types;
    Tracer *t = operandsOf(args, operands, types);
    if (!t)
      return {};
    std::vector<int64_t> in = inAxes.empty()
                                  ? std::vector<int64_t>(args.size(), 0)
                                  : inAxes;
    if (in.size() != args.size()) {
      t->fail("vmap: " + std::to_string(in.size()) + " in_axes for " +
              std::to_string(args.size()) + " arguments");
      return {};
    }
    int64_t size = -1;
    for (size_t i = 0; i < args.size(); ++i) {
      if (in[i] < 0)
        continue;
      if (in[i] >= args[i].rank() ||
          (size >= 0 && args[i].shape()[in[i]] != size)) {
        t->fail("vmap: argument " + std::to_string(i) + " of shape " +
                shapeText(args[i].shape()) + " has no axis " +
                std::to_string(in[i]) +
                (size >= 0 ? " of size " + std::to_string(size) : ""));
        return {};
      }
      size = args[i].shape()[in[i]];
      types[i] = withoutAxis(types[i], in[i]);
    }
    if (size < 0) {
      t->fail("vmap: no argument is mapped");
      return {};
    }
    Values results;
    std::string callee = outline(*t, "vmap", fn, types, results);
    if (results.empty())
      return {};
    std::vector<int64_t> out = outAxes.empty()
                                   ? std::vector<int64_t>(results.size(), 0)
                                   : outAxes;
    SmallVector<Type> resultTypes;
    for (size_t r = 0; r < results.size() && r < out.size(); ++r)
      resultTypes.push_back(
          withAxis(t->tensorType(results[r].type), out[r], size));
    if (out.size() != results.size() ||
        llvm::any_of(llvm::zip(out, results), [](auto pair) {
          return std::get<0>(pair) < 0 ||
                 std::get<0>(pair) > std::get<1>(pair).rank();
        })) {
      t->fail("vmap: out_axes " + shapeText(out) + " do not fit the " +
              std::to_string(results.size()) + " results");
      return {};
    }
    OpBuilder &b = t->builder;
    return transform<VmapOp>(
        *t, "vmap", callee, resultTypes, operands,
        {b.getNamedAttr("in_axes", b.getDenseI64ArrayAttr(in)),
         b.getNamedAttr("out_axes", b.getDenseI64ArrayAttr(out))});
  };
}

TracedFunction scan(TracedFunction fn, int64_t numCarry, bool reverse) {
  return [fn = std::move(fn), numCarry, reverse](const Values &args) -> Values {
    SmallVector<Value> operands;
    SmallVector<Type> types;
    Tracer *t = operandsOf(args, operands, types);
    if (!t)
      return {};
    if (numCarry < 0 || numCarry > int64_t(args.size())) {
      t->fail("scan: " + std::to_string(numCarry) + " carries of " +
              std::to_string(args.size()) + " arguments");
      return {};
    }
    int64_t length = -1;
    for (size_t i = numCarry; i < args.size(); ++i) {
      if (args[i].rank() == 0 ||
          (length >= 0 && args[i].shape()[0] != length)) {
        t->fail("scan: xs " + std::to_string(i - numCarry) + " of shape " +
                shapeText(args[i].shape()) +
                " is not stacked on a dimension 0 of the others' length");
        return {};
      }
      length = args[i].shape()[0];
      types[i] = withoutAxis(types[i], 0);
    }
    if (length < 0) {
      t->fail("scan: no xs to scan over");
      return {};
    }
    Values results;
    std::string callee = outline(*t, "scan", fn, types, results);
    if (int64_t(results.size()) < numCarry)
      return {};
    SmallVector<Type> resultTypes;
    for (size_t r = 0; r < results.size(); ++r) {
      Type type = t->tensorType(results[r].type);
      resultTypes.push_back(int64_t(r) < numCarry ? type
                                                  : withAxis(type, 0, length));
    }
    OpBuilder &b = t->builder;
    return transform<ScanOp>(
        *t, "scan", callee, resultTypes, operands,
        {b.getNamedAttr("num_carry", b.getI64IntegerAttr(numCarry)),
         b.getNamedAttr("length", b.getI64IntegerAttr(length)),
         b.getNamedAttr("reverse", b.getBoolAttr(reverse))});
  };
}

TracedFunction checkpoint(TracedFunction fn, std::string policy) {
  return [fn = std::move(fn), policy = std::move(policy)](
             const Values &args) -> Values {
    SmallVector<Value> operands;
    SmallVector<Type> types;
    Tracer *t = operandsOf(args, operands, types);
    if (!t)
      return {};
    std::optional<RematPolicy> parsed = symbolizeRematPolicy(policy);
    if (!parsed) {
      t->fail("checkpoint: '" + policy + "' is not a remat policy");
      return {};
    }
    Values results;
    std::string callee = outline(*t, "checkpoint", fn, types, results);
    if (results.empty())
      return {};
    SmallVector<Type> resultTypes;
    for (const Traced &result : results)
      resultTypes.push_back(t->tensorType(result.type));
    return transform<CheckpointOp>(
        *t, "checkpoint", callee, resultTypes, operands,
        {t->builder.getNamedAttr(
            "policy", RematPolicyAttr::get(&t->context, *parsed))});
  };
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

Program trace(const std::string &name, const std::vector<Spec> &specs,
              const TracedFunction &fn) {
  Tracer tracer;
  SmallVector<Type> types;
  for (const Spec &spec : specs)
    types.push_back(tracer.tensorType(spec));
  Values results;
  tracer.function(name, types, fn, /*isPublic=*/true, results);
  Program program;
  if (!tracer.failure.empty()) {
    program.failure = tracer.failure;
    return program;
  }
  // kiln's verifiers check what the calls did not (e.g. a gradient's
  // callee).
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(&tracer.context, [&](Diagnostic &diag) {
      if (diagnostics.empty())
        diagnostics = diag.str();
      return success();
    });
    if (failed(verify(*tracer.module))) {
      program.failure = name + ": " +
                        (diagnostics.empty() ? "the traced module is invalid"
                                             : diagnostics);
      return program;
    }
  }
  llvm::raw_string_ostream os(program.source);
  tracer.module->print(os);
  return program;
}

std::string Program::compile(kiln_module_t *out) const {
  if (!ok())
    return failure;
  llvm::SmallString<128> path;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("kiln-trace", "mlir", path))
    return "a temporary file for the program: " + error.message();
  {
    std::error_code error;
    llvm::raw_fd_ostream file(path, error);
    file << source;
  }
  kiln_status_t status = kiln_module_compile(path.c_str(), out);
  llvm::sys::fs::remove(path);
  std::string why = status ? kiln_status_message(status) : "";
  kiln_status_free(status);
  return why;
}

//===----------------------------------------------------------------------===//
// jit
//===----------------------------------------------------------------------===//

struct TracingJit::Impl {
  std::string name;
  TracedFunction fn;
  std::optional<kiln_jit_options_t> options;
  /// Per signature, the source traced for it and the runtime's jit of it.
  struct Compiled {
    llvm::SmallString<128> path;
    kiln_jit_t jit = nullptr;
  };
  std::map<std::string, Compiled> signatures;

  ~Impl() {
    for (auto &[signature, compiled] : signatures) {
      kiln_jit_free(compiled.jit);
      llvm::sys::fs::remove(compiled.path);
    }
  }

  /// The jit for the signature of `args`, traced and created on first use;
  /// null, saying why, if it cannot be.
  kiln_jit_t jitFor(const std::vector<kiln_tensor_t> &args, std::string &why) {
    std::string signature;
    std::vector<Spec> specs;
    for (kiln_tensor_t arg : args) {
      const int64_t *shape = kiln_tensor_shape(arg);
      specs.push_back({kiln_tensor_dtype(arg),
                       std::vector<int64_t>(shape,
                                            shape + kiln_tensor_rank(arg))});
      signature += std::string(kiln_dtype_name(specs.back().dtype)) +
                   shapeText(specs.back().shape) + ";";
    }
    auto found = signatures.find(signature);
    if (found != signatures.end())
      return found->second.jit;
    Program program = trace(name, specs, fn);
    if (!program.ok()) {
      why = program.error();
      return nullptr;
    }
    Compiled compiled;
    if (std::error_code error = llvm::sys::fs::createTemporaryFile(
            "kiln-jit", "mlir", compiled.path)) {
      why = "a temporary file for the program: " + error.message();
      return nullptr;
    }
    {
      std::error_code error;
      llvm::raw_fd_ostream file(compiled.path, error);
      file << program.text();
    }
    if (kiln_status_t status =
            kiln_jit_create(compiled.path.c_str(),
                            options ? &*options : nullptr, &compiled.jit)) {
      why = kiln_status_message(status);
      kiln_status_free(status);
      llvm::sys::fs::remove(compiled.path);
      return nullptr;
    }
    return signatures.emplace(signature, compiled).first->second.jit;
  }
};

TracingJit::TracingJit(std::string name, TracedFunction fn,
                       const kiln_jit_options_t *options)
    : impl(new Impl{std::move(name), std::move(fn),
                    options ? std::optional(*options) : std::nullopt, {}}) {}
TracingJit::~TracingJit() = default;
TracingJit::TracingJit(TracingJit &&) = default;

size_t TracingJit::traces() const { return impl->signatures.size(); }

std::string TracingJit::operator()(const std::vector<kiln_tensor_t> &args,
                            std::vector<kiln_tensor_t> &results) {
  std::string why;
  kiln_jit_t jit = impl->jitFor(args, why);
  if (!jit)
    return why;
  const char *entry = impl->name.c_str();
  kiln_module_t module = nullptr;
  if (kiln_status_t status =
          kiln_jit_module(jit, entry, args.size(), args.data(), &module)) {
    why = kiln_status_message(status);
    kiln_status_free(status);
    return why;
  }
  results.assign(kiln_module_entry_num_results(module, entry), nullptr);
  if (kiln_status_t status = kiln_module_call(module, entry, args.size(),
                                              args.data(), results.size(),
                                              results.data())) {
    why = kiln_status_message(status);
    kiln_status_free(status);
    results.clear();
  }
  return why;
}

} // namespace kiln
