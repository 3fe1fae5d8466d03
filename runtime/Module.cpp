//===- Module.cpp - loading artifacts and calling entries -----------------===//
#include "Internal.h"
#include "Npy.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>

using namespace kiln::runtime;

struct kiln_module {
  std::unique_ptr<Executable> executable;
  Manifest manifest;
  kiln_device_t device() const {
    return manifest.device == "cuda" ? KILN_DEVICE_CUDA : KILN_DEVICE_CPU;
  }
};

kiln_status_t kiln::runtime::newModule(std::unique_ptr<Executable> executable,
                                       Manifest manifest, kiln_module_t *out) {
  if (kiln_status_t status = executable->bind(manifest))
    return status;
  *out = new kiln_module{std::move(executable), std::move(manifest)};
  return nullptr;
}

namespace {
/// An artifact: a shared object opened with dlopen.
class SharedObject : public HostExecutable {
public:
  explicit SharedObject(void *handle) : handle(handle) {}
  ~SharedObject() override { dlclose(handle); }
  const char *manifestText() {
    return static_cast<const char *>(dlsym(handle, KILN_MANIFEST_SYMBOL));
  }

protected:
  void *lookup(const std::string &name, std::string &why) override {
    void *address = dlsym(handle, name.c_str());
    if (!address)
      why = dlerror();
    return address;
  }

private:
  void *handle;
};

} // namespace

kiln_status_t kiln::runtime::checkArgument(kiln_tensor_t tensor,
                                           const TensorSpec &spec,
                                           kiln_device_t device,
                                           const std::string &what,
                                           bool read) {
  if (!tensor)
    return error(what + ": is null");
  if (kiln_status_t status = checkNotDonated(tensor, what))
    return status;
  if (tensor->device != device)
    return error(what + ": is on " + kiln_device_name(tensor->device) +
                 " but the entry runs on " + kiln_device_name(device) +
                 "; copy it there with kiln_tensor_copy_to");
  if (tensor->dtype != spec.dtype)
    return error(what + ": expected dtype " + kiln_dtype_name(spec.dtype) +
                 ", got " + kiln_dtype_name(tensor->dtype));
  if (tensor->shape.size() != spec.shape.size())
    return error(what + ": expected rank " + std::to_string(spec.shape.size()) +
                 ", got " + std::to_string(tensor->shape.size()));
  for (size_t i = 0; i < spec.shape.size(); ++i)
    if (tensor->shape[i] != spec.shape[i])
      return error(what + " dimension " + std::to_string(i) + ": expected " +
                   std::to_string(spec.shape[i]) + ", got " +
                   std::to_string(tensor->shape[i]));
  size_t bytes;
  if (kiln_status_t status = tensorByteLength(spec.dtype, spec.shape, what, bytes))
    return status;
  if (tensor->byteLength != bytes)
    return error(what + ": expected " + std::to_string(bytes) +
                 " bytes, got " + std::to_string(tensor->byteLength));
  // Compiled code assumes booleans are 0 or 1; data written through
  // kiln_tensor_data may break that (device tensors were checked on the
  // way there). The bytes are or-ed together first, a loop that
  // vectorizes (a byte at a time with an exit took 2 ms a megabyte); only a
  // bad one is looked for.
  if (read && spec.dtype == KILN_I1 && device == KILN_DEVICE_CPU) {
    auto *data = static_cast<const unsigned char *>(tensor->data.get());
    unsigned char any = 0;
    for (size_t i = 0; i < bytes; ++i)
      any |= data[i];
    for (size_t i = 0; any > 1 && i < bytes; ++i)
      if (data[i] > 1)
        return error(what + " element " + std::to_string(i) +
                     ": a bool must be 0 or 1, got " + std::to_string(data[i]));
  }
  return nullptr;
}

namespace {
const EntrySignature *findEntry(kiln_module_t module, const char *name,
                                size_t *index = nullptr) {
  if (!module || !name)
    return nullptr;
  const auto &entries = module->manifest.entries;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].name == name) {
      if (index)
        *index = i;
      return &entries[i];
    }
  return nullptr;
}
} // namespace

namespace {
/// Whether `range` [offset, offset + size) lies within a file of `fileSize`.
bool within(uint64_t offset, uint64_t size, uint64_t fileSize) {
  return offset <= fileSize && size <= fileSize - offset;
}
} // namespace

kiln_status_t kiln::runtime::checkSharedObject(const std::string &image,
                                               const char *path) {
  std::string what = std::string(path) + " is not a Kiln artifact: ";
  Elf64_Ehdr header;
  if (image.size() < sizeof(header) ||
      std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
    return error(what + "not an ELF file");
  std::memcpy(&header, image.data(), sizeof(header));
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_type != ET_DYN)
    return error(what + "not a 64-bit ELF shared object");
  uint64_t size = image.size();
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      !within(header.e_phoff, uint64_t(header.e_phnum) * sizeof(Elf64_Phdr),
              size) ||
      (header.e_shnum &&
       !within(header.e_shoff, uint64_t(header.e_shnum) * header.e_shentsize,
               size)))
    return error(what + "truncated or corrupt (headers past the end)");
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment,
                image.data() + header.e_phoff + i * sizeof(Elf64_Phdr),
                sizeof(segment));
    if (!within(segment.p_offset, segment.p_filesz, size))
      return error(what + "truncated (segment " + std::to_string(i) +
                   " ends past the end of the file)");
  }
  return nullptr;
}

kiln_status_t kiln_module_load(const char *path, kiln_module_t *out) {
  if (!out)
    return error("out: must not be null");
  *out = nullptr;
  if (!path)
    return error("path: must not be null");
  // dlopen searches the library path for names without a slash; an
  // artifact is always a file path.
  std::string file = std::strchr(path, '/') ? path : std::string("./") + path;
  std::string image;
  if (kiln_status_t status = readFile(file.c_str(), image))
    return status;
  if (kiln_status_t status = checkSharedObject(image, file.c_str()))
    return status;
  exportRuntimeSymbols();
  takeFailure();
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return error(std::string("cannot load ") + path + ": " + dlerror());
  auto object = std::make_unique<SharedObject>(handle);
  // A GPU artifact loads its kernels in a constructor, which cannot fail
  // any other way.
  std::string failed = takeFailure();
  if (!failed.empty())
    return error(std::string("cannot load ") + path + ": " + failed);
  const char *text = object->manifestText();
  if (!text)
    return error(std::string(path) + " is not a Kiln artifact: it has no "
                 KILN_MANIFEST_SYMBOL);
  Manifest manifest;
  if (kiln_status_t status = parseManifest(text, manifest)) {
    std::string message = std::string(path) + ": " + status->message;
    kiln_status_free(status);
    return error(message);
  }
  std::vector<std::string> missing =
      missingCpuFeatures(manifest.cpuFeatures, hostHasCpuFeature);
  if (!missing.empty()) {
    std::string names;
    for (const std::string &feature : missing)
      names += (names.empty() ? "" : ", ") + feature;
    return error(std::string(path) + " was compiled for a CPU with " + names +
                 ", which this CPU lacks: compile it again on this machine");
  }
  if (std::find(manifest.cpuFeatures.begin(), manifest.cpuFeatures.end(),
                "amx-tile") != manifest.cpuFeatures.end()) {
    std::string refused = requestAmxTiles();
    if (!refused.empty())
      return error(std::string(path) + " computes on AMX tiles, but " +
                   refused);
  }
  return newModule(std::move(object), std::move(manifest), out);
}

void kiln_module_free(kiln_module_t module) { delete module; }

kiln_device_t kiln_module_device(kiln_module_t module) {
  return module ? module->device() : KILN_DEVICE_CPU;
}

int64_t kiln_module_device_count(kiln_module_t module) {
  int64_t devices = 1;
  if (module)
    for (int64_t size : module->manifest.meshSizes)
      devices *= size;
  return devices;
}

size_t kiln_module_mesh_rank(kiln_module_t module) {
  return module ? module->manifest.meshSizes.size() : 0;
}

const char *kiln_module_mesh_axis(kiln_module_t module, size_t axis,
                                  int64_t *size) {
  if (!module || axis >= module->manifest.meshSizes.size())
    return nullptr;
  if (size)
    *size = module->manifest.meshSizes[axis];
  return module->manifest.meshAxes[axis].c_str();
}

size_t kiln_module_entry_count(kiln_module_t module) {
  return module ? module->manifest.entries.size() : 0;
}

const char *kiln_module_entry_name(kiln_module_t module, size_t index) {
  if (!module || index >= module->manifest.entries.size())
    return nullptr;
  return module->manifest.entries[index].name.c_str();
}

const char *kiln_module_entry_signature(kiln_module_t module,
                                        const char *entry) {
  const EntrySignature *signature = findEntry(module, entry);
  return signature ? signature->text.c_str() : nullptr;
}

int64_t kiln_module_entry_num_args(kiln_module_t module, const char *entry) {
  const EntrySignature *signature = findEntry(module, entry);
  return signature ? static_cast<int64_t>(signature->args.size()) : -1;
}

int64_t kiln_module_entry_num_results(kiln_module_t module,
                                      const char *entry) {
  const EntrySignature *signature = findEntry(module, entry);
  return signature ? static_cast<int64_t>(signature->results.size()) : -1;
}

namespace {
/// Reports spec `index` of `specs` (the entry's "argument"s or "result"s).
kiln_status_t describeSpec(const std::vector<TensorSpec> *specs,
                           const char *entry, const char *kind, size_t index,
                           kiln_dtype_t *dtype, int64_t *rank,
                           const int64_t **shape) {
  if (!specs)
    return error(std::string("entry: no entry named '") +
                 (entry ? entry : "(null)") + "'");
  if (!dtype || !rank || !shape)
    return error("dtype, rank, shape: must not be null");
  if (index >= specs->size())
    return error("index: " + std::string(entry) + " has " +
                 std::to_string(specs->size()) + " " + kind + "s, asked for #" +
                 std::to_string(index));
  const TensorSpec &spec = (*specs)[index];
  *dtype = spec.dtype;
  *rank = static_cast<int64_t>(spec.shape.size());
  *shape = spec.shape.data();
  return nullptr;
}
} // namespace

kiln_status_t kiln_module_entry_arg(kiln_module_t module, const char *entry,
                                    size_t index, kiln_dtype_t *dtype,
                                    int64_t *rank, const int64_t **shape) {
  const EntrySignature *signature = findEntry(module, entry);
  return describeSpec(signature ? &signature->args : nullptr, entry,
                      "argument", index, dtype, rank, shape);
}

int64_t kiln_module_entry_split(kiln_module_t module, const char *entry,
                                int is_result, size_t index, size_t dim,
                                const int64_t **axes) {
  const EntrySignature *signature = findEntry(module, entry);
  if (!signature || !axes)
    return -1;
  const auto &specs = is_result ? signature->results : signature->args;
  if (index >= specs.size() || dim >= specs[index].shape.size())
    return -1;
  static const std::vector<int64_t> none;
  const std::vector<int64_t> &split =
      signature->parts.empty()
          ? none
          : signature->parts[(is_result ? signature->args.size() : 0) + index]
                            [dim];
  *axes = split.data();
  return int64_t(split.size());
}

int64_t kiln_module_entry_part(kiln_module_t module, const char *entry,
                               int is_result, size_t index, int64_t device,
                               int64_t *offsets, int64_t *shape) {
  const EntrySignature *signature = findEntry(module, entry);
  size_t count = signature ? (is_result ? signature->results : signature->args)
                                 .size()
                           : 0;
  if (index >= count || device < 0 ||
      device >= kiln_module_device_count(module))
    return -1;
  std::vector<int64_t> starts;
  TensorSpec part = devicePart(
      module->manifest, *signature,
      (is_result ? signature->args.size() : 0) + index, device, starts);
  for (size_t d = 0; d < starts.size(); ++d) {
    if (offsets)
      offsets[d] = starts[d];
    if (shape)
      shape[d] = part.shape[d];
  }
  return int64_t(starts.size());
}

kiln_status_t kiln_module_entry_result(kiln_module_t module, const char *entry,
                                       size_t index, kiln_dtype_t *dtype,
                                       int64_t *rank, const int64_t **shape) {
  const EntrySignature *signature = findEntry(module, entry);
  return describeSpec(signature ? &signature->results : nullptr, entry,
                      "result", index, dtype, rank, shape);
}

namespace {
/// Checks the entry, the counts and every argument (and, when `results` are
/// given, every result) of a call; returns the entry's index in `index`.
kiln_status_t checkCall(kiln_module_t module, const char *entry,
                        size_t numArgs, const kiln_tensor_t *args,
                        size_t numResults, const kiln_tensor_t *results,
                        bool checkResults, size_t &index,
                        int64_t partDevice = -1) {
  if (!module)
    return error("module: must not be null");
  const EntrySignature *signature = findEntry(module, entry, &index);
  if (!signature)
    return error(std::string("entry: no entry named '") +
                 (entry ? entry : "(null)") + "'");
  if (numArgs != signature->args.size())
    return error("num_args: " + signature->name + " takes " +
                 std::to_string(signature->args.size()) + " arguments, got " +
                 std::to_string(numArgs));
  if (numResults != signature->results.size())
    return error("num_results: " + signature->name + " returns " +
                 std::to_string(signature->results.size()) + " results, got " +
                 std::to_string(numResults));
  if (numArgs && !args)
    return error("args: must not be null");
  if (numResults && !results)
    return error("results: must not be null");
  for (size_t i = 0; i < numArgs; ++i)
    if (kiln_status_t status =
            checkArgument(args[i], signature->args[i], module->device(),
                          "arg" + std::to_string(i))) {
      // A device of a multi-process call may be given its part instead.
      if (partDevice < 0)
        return status;
      std::vector<int64_t> offsets;
      if (kiln_status_t part = checkArgument(
              args[i],
              devicePart(module->manifest, *signature, i, partDevice, offsets),
              module->device(), "arg" + std::to_string(i))) {
        kiln_status_free(part);
        status->message += " (nor is it device " + std::to_string(partDevice) +
                           "'s part of it)";
        return status;
      }
      kiln_status_free(status);
    }
  // The code writes a donated argument's buffer: no other argument may
  // read it.
  for (int64_t donor : signature->donors)
    for (size_t i = 0; donor >= 0 && i < numArgs; ++i)
      if (i != size_t(donor) && args[i] == args[donor])
        return error("arg" + std::to_string(donor) +
                     ": is donated (kiln.donate), so it must not also be arg" +
                     std::to_string(i));
  if (!checkResults)
    return nullptr;
  for (size_t i = 0; i < numResults; ++i) {
    std::string what = "result" + std::to_string(i);
    if (kiln_status_t status =
            checkArgument(results[i], signature->results[i],
                          module->device(), what, /*read=*/false))
      return status;
    for (size_t j = 0; j < numArgs; ++j)
      if (results[i] == args[j])
        return error(what + ": is also arg" + std::to_string(j));
  }
  return nullptr;
}

/// Waits for the asynchronous calls that write `args` (checked by
/// checkCall: not donated); fails, naming the argument, if one failed.
kiln_status_t waitForArguments(size_t numArgs, const kiln_tensor_t *args) {
  for (size_t i = 0; i < numArgs; ++i)
    // Most arguments have no producer: no name is built for them.
    if (args[i]->producer)
      if (kiln_status_t status =
              waitForProducer(args[i], "arg" + std::to_string(i)))
        return status;
  return nullptr;
}

/// checkCall, then waits for the asynchronous calls that write the
/// arguments.
kiln_status_t checkAndWait(kiln_module_t module, const char *entry,
                           size_t numArgs, const kiln_tensor_t *args,
                           size_t numResults, const kiln_tensor_t *results,
                           bool checkResults, size_t &index,
                           int64_t partDevice = -1) {
  if (kiln_status_t status = checkCall(module, entry, numArgs, args,
                                       numResults, results, checkResults,
                                       index, partDevice))
    return status;
  return waitForArguments(numArgs, args);
}

/// Runs entry `index` on checked arguments and results. A result that
/// reuses a donated argument's buffer is written there (its out-parameter
/// is the argument), then takes the buffer over: `results[i]` (or, if
/// null, a new tensor) holds it, and the argument is marked donated, even
/// when the call failed (its elements are then undefined). With
/// `transport`, this process runs the transport's device of a partitioned
/// entry only.
kiln_status_t invoke(kiln_module_t module, size_t index, size_t numArgs,
                     const kiln_tensor_t *args, size_t numResults,
                     kiln_tensor_t *results,
                     const kiln_transport_t *transport = nullptr) {
  const EntrySignature &signature = module->manifest.entries[index];
  std::vector<kiln_tensor_t> tensors(args, args + numArgs);
  for (size_t i = 0; i < numResults; ++i)
    tensors.push_back(i < signature.donors.size() && signature.donors[i] >= 0
                          ? args[signature.donors[i]]
                          : results[i]);
  kiln_status_t status =
      module->manifest.meshSizes.empty()
          ? module->executable->invoke(index, tensors)
          : invokeOnDevices(*module->executable, module->manifest, index,
                            tensors, transport);
  for (size_t i = 0; i < signature.donors.size(); ++i) {
    int64_t donor = signature.donors[i];
    if (donor < 0)
      continue;
    kiln_tensor_t from = args[donor];
    if (!status) {
      if (!results[i])
        results[i] = new kiln_tensor{from->dtype, from->device, from->shape,
                                     from->byteLength};
      results[i]->data = std::move(from->data);
    }
    from->donatedTo = signature.name;
  }
  return status;
}
} // namespace

kiln_status_t kiln::runtime::checkArguments(kiln_module_t module,
                                            const char *entry, size_t numArgs,
                                            const kiln_tensor_t *args,
                                            size_t numResults) {
  size_t index;
  // Results are not checked: any non-null pointer stands for them.
  std::vector<kiln_tensor_t> results(numResults);
  return checkCall(module, entry, numArgs, args, numResults, results.data(),
                   /*checkResults=*/false, index);
}

kiln_status_t kiln::runtime::callInto(kiln_module_t module, const char *entry,
                                      size_t numArgs, const kiln_tensor_t *args,
                                      size_t numResults,
                                      const kiln_tensor_t *results,
                                      bool waitForResults) {
  size_t index;
  if (kiln_status_t status = checkAndWait(module, entry, numArgs, args,
                                          numResults, results, true, index))
    return status;
  for (size_t i = 0; waitForResults && i < numResults; ++i) {
    if (kiln_status_t status =
            waitForProducer(results[i], "result" + std::to_string(i)))
      kiln_status_free(status); // Overwritten: its failure does not matter.
    waitForReaders(results[i]);
  }
  std::vector<kiln_tensor_t> outs(results, results + numResults);
  return invoke(module, index, numArgs, args, numResults, outs.data());
}

kiln_status_t kiln_module_call_into(kiln_module_t module, const char *entry,
                                    size_t numArgs, const kiln_tensor_t *args,
                                    size_t numResults,
                                    const kiln_tensor_t *results) {
  return callInto(module, entry, numArgs, args, numResults, results,
                  /*waitForResults=*/true);
}

namespace {
/// New tensors for the results of entry `index` of `module` in `outputs`.
kiln_status_t allocateResults(kiln_module_t module, size_t index,
                              std::vector<std::unique_ptr<kiln_tensor>> &outputs) {
  const EntrySignature &signature = module->manifest.entries[index];
  for (const TensorSpec &spec : signature.results) {
    // A donated argument's buffer becomes the result (invoke).
    size_t result = outputs.size();
    if (result < signature.donors.size() && signature.donors[result] >= 0) {
      outputs.emplace_back(nullptr);
      continue;
    }
    size_t bytes;
    if (kiln_status_t status =
            tensorByteLength(spec.dtype, spec.shape, "result", bytes))
      return status;
    // The compiled code writes every element of its results.
    kiln_tensor_t output = nullptr;
    if (kiln_status_t status = newTensorOn(module->device(), spec.dtype,
                                           spec.shape, bytes, output)) {
      std::string why = status->message;
      kiln_status_free(status);
      return error("result" + std::to_string(outputs.size()) + ": " + why);
    }
    outputs.emplace_back(output);
  }
  return nullptr;
}
} // namespace

kiln_status_t kiln::runtime::newResults(kiln_module_t module,
                                        const char *entry,
                                        std::vector<kiln_tensor_t> &results) {
  size_t index;
  if (!findEntry(module, entry, &index))
    return error(std::string("entry: no entry named '") +
                 (entry ? entry : "(null)") + "'");
  std::vector<std::unique_ptr<kiln_tensor>> outputs;
  if (kiln_status_t status = allocateResults(module, index, outputs))
    return status;
  for (auto &output : outputs)
    results.push_back(output.release());
  return nullptr;
}

namespace {
/// kiln_module_call, as the transport's device only if `transport`.
kiln_status_t callNew(kiln_module_t module, const char *entry, size_t numArgs,
                      const kiln_tensor_t *args, size_t numResults,
                      kiln_tensor_t *results,
                      const kiln_transport_t *transport) {
  size_t index;
  if (kiln_status_t status =
          checkAndWait(module, entry, numArgs, args, numResults, results,
                       false, index, transport ? transport->device : -1))
    return status;
  std::vector<std::unique_ptr<kiln_tensor>> outputs;
  if (kiln_status_t status = allocateResults(module, index, outputs))
    return status;
  std::vector<kiln_tensor_t> raw;
  for (auto &output : outputs)
    raw.push_back(output.release());
  kiln_status_t status =
      invoke(module, index, numArgs, args, numResults, raw.data(), transport);
  for (size_t i = 0; i < numResults; ++i) {
    if (status)
      delete raw[i];
    else
      results[i] = raw[i];
  }
  return status;
}
} // namespace

kiln_status_t kiln_module_call(kiln_module_t module, const char *entry,
                               size_t numArgs, const kiln_tensor_t *args,
                               size_t numResults, kiln_tensor_t *results) {
  return callNew(module, entry, numArgs, args, numResults, results, nullptr);
}

kiln_status_t kiln_module_call_device(kiln_module_t module, const char *entry,
                                      const kiln_transport_t *transport,
                                      size_t numArgs, const kiln_tensor_t *args,
                                      size_t numResults,
                                      kiln_tensor_t *results) {
  if (!transport || !transport->all_to_all || !transport->all_gather ||
      !transport->fetch)
    return error("transport: a transport with all three functions is needed");
  if (module && module->manifest.meshSizes.empty())
    return error("module: it is not partitioned over a mesh (kiln-partition), "
                 "so it runs on one device: call kiln_module_call");
  return callNew(module, entry, numArgs, args, numResults, results, transport);
}

int64_t kiln_module_entry_result_donor(kiln_module_t module, const char *entry,
                                       size_t index) {
  const EntrySignature *signature = findEntry(module, entry, nullptr);
  if (!signature || index >= signature->donors.size())
    return -1;
  return signature->donors[index];
}
