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
/// `fn` traced as a private function, then `OpT` of it on `args`: the
/// callee's results first if `withValues`, then one gradient per argnum.
template <typename OpT>
Values differentiate(StringRef name, const TracedFunction &fn,
                     const std::vector<int64_t> &argnums, const Values &args,
                     bool withValues) {
  if (args.empty() || !args.front().valid())
    return {};
  Tracer *t = args.front().tracer;
  SmallVector<Type> types;
  SmallVector<Value> operands;
  for (const Traced &arg : args) {
    if (!arg.valid())
      return {};
    operands.push_back(Tracer::value(arg));
    types.push_back(operands.back().getType());
  }
  std::string callee = name.str() + "_fn" + std::to_string(t->outlined++);
  Values results;
  t->function(callee, types, fn, /*isPublic=*/false, results);
  if (results.empty())
    return {};
  const Traced &first = results.front();
  if (first.rank() != 0 || first.dtype() == KILN_I1 ||
      first.dtype() == KILN_I32 || first.dtype() == KILN_I64) {
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
  OpBuilder &builder = t->builder;
  Operation *op = OpT::create(
      builder, t->loc(name), resultTypes, operands,
      ArrayRef<NamedAttribute>{
          builder.getNamedAttr("callee",
                               FlatSymbolRefAttr::get(&t->context, callee)),
          builder.getNamedAttr("argnums",
                               builder.getDenseI64ArrayAttr(argnums))});
  Values out;
  for (Value result : op->getResults())
    out.push_back(t->wrap(result));
  return out;
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

} // namespace kiln
