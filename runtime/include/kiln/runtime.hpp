//===- kiln/runtime.hpp - a thin C++ wrapper over the runtime C API -*- C++ -*-===//
//
// RAII owners of the C handles and a Status that carries the C API's
// message. Works without exceptions: every fallible call returns a Status.
//
//   kiln::Module module;
//   if (kiln::Status s = kiln::Module::load("mlp.kmod", module); !s.ok())
//     std::cerr << s.message() << "\n";
//   std::vector<kiln::Tensor> results;
//   kiln::Status s = module.call("predict", {x, y}, results);
//
// Thread safety is the C API's: a Module may be called from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HPP
#define KILN_RUNTIME_HPP

#include "kiln/runtime.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

/// The outcome of a call: ok, or an error with a message.
class Status {
public:
  Status() = default;
  /// Takes ownership of a C status (null means ok).
  explicit Status(kiln_status_t status) {
    if (status) {
      message_ = kiln_status_message(status);
      failed_ = true;
      kiln_status_free(status);
    }
  }
  bool ok() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string &message() const { return message_; }

private:
  bool failed_ = false;
  std::string message_;
};

/// An owned host tensor.
class Tensor {
public:
  Tensor() = default;
  /// Takes ownership of a C tensor.
  explicit Tensor(kiln_tensor_t tensor) : handle_(tensor, kiln_tensor_free) {}

  /// A tensor of `dtype` and `shape` holding a copy of `bytes` bytes of
  /// `data` (zero-filled when `data` is null).
  static Status create(kiln_dtype_t dtype, const std::vector<int64_t> &shape,
                       const void *data, size_t bytes, Tensor &out) {
    kiln_tensor_t tensor = nullptr;
    Status status(kiln_tensor_create(dtype, static_cast<int64_t>(shape.size()),
                                     shape.data(), data, bytes, &tensor));
    if (status)
      out = Tensor(tensor);
    return status;
  }

  kiln_tensor_t get() const { return handle_.get(); }
  /// Waits for the asynchronous call that writes it, if any; its error.
  Status wait() const { return Status(kiln_tensor_wait(get())); }
  /// Whether it holds a tensor.
  explicit operator bool() const { return handle_ != nullptr; }
  kiln_dtype_t dtype() const { return kiln_tensor_dtype(get()); }
  std::vector<int64_t> shape() const {
    const int64_t *dims = kiln_tensor_shape(get());
    return std::vector<int64_t>(dims, dims + kiln_tensor_rank(get()));
  }
  size_t byteLength() const { return kiln_tensor_byte_length(get()); }
  template <typename T> T *data() const {
    return static_cast<T *>(kiln_tensor_data(get()));
  }

private:
  std::shared_ptr<kiln_tensor> handle_;
};

/// An owned compiled module.
class Module {
public:
  Module() = default;
  /// Takes ownership of `module`.
  explicit Module(kiln_module_t module) : handle_(module, kiln_module_free) {}

  /// Loads an artifact written by kiln-compile.
  static Status load(const std::string &path, Module &out) {
    kiln_module_t module = nullptr;
    Status status(kiln_module_load(path.c_str(), &module));
    if (status)
      out.handle_.reset(module, kiln_module_free);
    return status;
  }

  /// Compiles a .mlir source in process (needs the kiln_runtime_jit library).
  static Status compile(const std::string &path, Module &out) {
    kiln_module_t module = nullptr;
    Status status(kiln_module_compile(path.c_str(), &module));
    if (status)
      out.handle_.reset(module, kiln_module_free);
    return status;
  }

  kiln_module_t get() const { return handle_.get(); }

  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (size_t i = 0, e = kiln_module_entry_count(get()); i < e; ++i)
      names.emplace_back(kiln_module_entry_name(get(), i));
    return names;
  }

  /// Calls `entry`; on success `results` holds its results.
  Status call(const std::string &entry, const std::vector<Tensor> &args,
              std::vector<Tensor> &results) const {
    int64_t numResults = kiln_module_entry_num_results(get(), entry.c_str());
    std::vector<kiln_tensor_t> raw(numResults > 0 ? numResults : 0);
    Status status(kiln_module_call(get(), entry.c_str(), args.size(),
                                   handles(args).data(), raw.size(),
                                   raw.data()));
    if (status) {
      results.clear();
      for (kiln_tensor_t tensor : raw)
        results.emplace_back(tensor);
    }
    return status;
  }

  /// Calls `entry`, writing into the existing `results`.
  Status callInto(const std::string &entry, const std::vector<Tensor> &args,
                  const std::vector<Tensor> &results) const {
    return Status(kiln_module_call_into(get(), entry.c_str(), args.size(),
                                        handles(args).data(), results.size(),
                                        handles(results).data()));
  }

  /// The C handles of `tensors`.
  static std::vector<kiln_tensor_t> handles(const std::vector<Tensor> &tensors) {
    std::vector<kiln_tensor_t> raw;
    for (const Tensor &tensor : tensors)
      raw.push_back(tensor.get());
    return raw;
  }

  std::shared_ptr<kiln_module> handle_;
};

/// An owned jit: a .mlir source whose entries are compiled on first call,
/// once per signature, through the compile cache (kiln_jit_create; needs
/// the kiln_runtime_jit library).
///
///   kiln::Jit jit;
///   kiln::Status s = kiln::Jit::create("mlp.mlir", jit);
///   s = jit.call("predict", {x}, results);  // compiles once, then reuses
class Jit {
public:
  Jit() = default;
  /// A jit of the source at `path`; `options` may be null (the default
  /// disk cache, no log).
  static Status create(const std::string &path, Jit &out,
                       const kiln_jit_options_t *options = nullptr) {
    kiln_jit_t jit = nullptr;
    Status status(kiln_jit_create(path.c_str(), options, &jit));
    if (status)
      out.handle_.reset(jit, kiln_jit_free);
    return status;
  }
  kiln_jit_t get() const { return handle_.get(); }
  /// Calls `entry` (compiled for `args` if it was not yet); on success
  /// `results` holds its results.
  Status call(const std::string &entry, const std::vector<Tensor> &args,
              std::vector<Tensor> &results) const {
    return run(kiln_jit_call, entry, args, results);
  }
  /// Enqueues a call of `entry` (kiln_jit_call_async): `results` at once,
  /// written by the call later; reading them waits for it.
  Status callAsync(const std::string &entry, const std::vector<Tensor> &args,
                   std::vector<Tensor> &results) const {
    return run(kiln_jit_call_async, entry, args, results);
  }
  kiln_jit_stats_t stats() const {
    kiln_jit_stats_t stats;
    kiln_jit_get_stats(get(), &stats);
    return stats;
  }

private:
  /// Calls `entry` through `call` (kiln_jit_call or kiln_jit_call_async)
  /// with room for as many results as the entry returns.
  Status run(decltype(&kiln_jit_call) call, const std::string &entry,
             const std::vector<Tensor> &args,
             std::vector<Tensor> &results) const {
    std::vector<kiln_tensor_t> raw = Module::handles(args);
    kiln_module_t module = nullptr;
    Status status(kiln_jit_module(get(), entry.c_str(), raw.size(), raw.data(),
                                  &module));
    if (!status)
      return status;
    std::vector<kiln_tensor_t> outs(
        kiln_module_entry_num_results(module, entry.c_str()));
    status = Status(call(get(), entry.c_str(), raw.size(), raw.data(),
                         outs.size(), outs.data()));
    if (status) {
      results.clear();
      for (kiln_tensor_t tensor : outs)
        results.emplace_back(tensor);
    }
    return status;
  }

  std::shared_ptr<kiln_jit> handle_;
};

/// How many threads compiled code's parallel loops use (kiln_set_num_threads).
inline Status setNumThreads(int64_t count) {
  return Status(kiln_set_num_threads(count));
}
inline int64_t numThreads() { return kiln_num_threads(); }

} // namespace kiln

#endif // KILN_RUNTIME_HPP
