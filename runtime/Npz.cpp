//===- Npz.cpp - numpy's .npz format: a zip of .npy members ---------------===//
//
// Members are found through the zip central directory (zip64 included, as
// numpy writes it), inflated with zlib and checked against their CRC-32.
// A member's declared size is bounded by what deflate can expand its
// compressed bytes to before anything is allocated.
//
//===----------------------------------------------------------------------===//
#include "Npy.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>

using namespace kiln::runtime;

namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
/// deflate expands at most 1032:1.
constexpr uint64_t kMaxDeflateRatio = 1032;

/// Little-endian reads that fail instead of running off the end.
struct Reader {
  const std::string &bytes;
  bool ok = true;
  uint64_t read(size_t at, int width) {
    if (at > bytes.size() || bytes.size() - at < static_cast<size_t>(width)) {
      ok = false;
      return 0;
    }
    uint64_t value = 0;
    for (int i = width - 1; i >= 0; --i)
      value = value << 8 | static_cast<uint8_t>(bytes[at + i]);
    return value;
  }
};

struct Member {
  std::string name;
  uint16_t method;
  uint32_t crc;
  uint64_t compressedSize, size, localOffset;
};

/// Replaces 0xffffffff fields of a central directory entry from its zip64
/// extra field, in the order the zip format lists them.
bool applyZip64(Reader &in, size_t extra, size_t extraLength, Member &member) {
  for (size_t at = extra; at + 4 <= extra + extraLength;) {
    uint64_t id = in.read(at, 2), length = in.read(at + 2, 2);
    if (id == 1) {
      size_t field = at + 4;
      for (uint64_t *value :
           {&member.size, &member.compressedSize, &member.localOffset})
        if (*value == 0xffffffff) {
          *value = in.read(field, 8);
          field += 8;
        }
      return in.ok && field <= at + 4 + length;
    }
    at += 4 + length;
  }
  return true;
}

/// A zip file's bytes by range: the whole file in memory, or the file on
/// disk read where asked (a block of one array: kiln_npz_read_block).
class ZipBytes {
public:
  explicit ZipBytes(const std::string &memory)
      : memory(&memory), length(memory.size()) {}
  explicit ZipBytes(std::FILE *file) : file(file) {
    if (std::fseek(file, 0, SEEK_END) == 0) {
      long end = std::ftell(file);
      length = end > 0 ? uint64_t(end) : 0;
    }
  }

  uint64_t size() const { return length; }

  /// The `count` bytes at `at`: in memory, or read into `buffer`; null if
  /// they are beyond the end or cannot be read.
  const char *bytes(uint64_t at, uint64_t count, std::string &buffer) {
    if (at > length || length - at < count)
      return nullptr;
    if (memory)
      return memory->data() + at;
    buffer.resize(count);
    if (count && (std::fseek(file, long(at), SEEK_SET) != 0 ||
                  std::fread(buffer.data(), 1, count, file) != count))
      return nullptr;
    return buffer.data();
  }

  /// bytes() as a string (a copy from memory).
  bool read(uint64_t at, uint64_t count, std::string &out) {
    const char *found = bytes(at, count, out);
    if (found && found != out.data())
      out.assign(found, count);
    return found != nullptr;
  }

private:
  const std::string *memory = nullptr;
  std::FILE *file = nullptr;
  uint64_t length = 0;
};

/// The members listed by the central directory of `zip`, read from its
/// end record (in the last 22 + 65535 (comment) bytes) and directory.
kiln_status_t listMembers(ZipBytes &zip, const std::string &what,
                          std::vector<Member> &members) {
  // The zip64 locator sits 20 bytes before the end record.
  uint64_t tailLength = std::min<uint64_t>(zip.size(), 22 + 65535 + 20);
  std::string tail;
  if (!zip.read(zip.size() - tailLength, tailLength, tail))
    return error(what + ": cannot be read");
  Reader in{tail};
  size_t end = std::string::npos;
  if (tail.size() >= 22)
    for (size_t at = tail.size() - 22 + 1; at-- > 0;)
      if (in.read(at, 4) == kEndOfDirectory) {
        end = at;
        break;
      }
  if (end == std::string::npos)
    return error(what + ": not a zip file (no end of central directory)");
  uint64_t count = in.read(end + 10, 2);
  uint64_t directorySize = in.read(end + 12, 4);
  uint64_t directory = in.read(end + 16, 4);
  if (end >= 20 && in.read(end - 20, 4) == kZip64Locator) {
    std::string record;
    if (!zip.read(in.read(end - 20 + 8, 8), 56, record) ||
        Reader{record}.read(0, 4) != kZip64EndOfDirectory)
      return error(what + ": bad zip64 end of central directory");
    Reader fields{record};
    count = fields.read(32, 8);
    directorySize = fields.read(40, 8);
    directory = fields.read(48, 8);
  }
  std::string listing;
  if (count > zip.size() / 46 || !zip.read(directory, directorySize, listing))
    return error(what + ": the directory lists more members than fit");
  Reader entries{listing};
  size_t at = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (entries.read(at, 4) != kCentralHeader)
      return error(what + ": corrupt central directory");
    Member member;
    member.method = entries.read(at + 10, 2);
    member.crc = entries.read(at + 16, 4);
    member.compressedSize = entries.read(at + 20, 4);
    member.size = entries.read(at + 24, 4);
    size_t nameLength = entries.read(at + 28, 2),
           extraLength = entries.read(at + 30, 2),
           commentLength = entries.read(at + 32, 2);
    member.localOffset = entries.read(at + 42, 4);
    if (!entries.ok || at + 46 + nameLength > listing.size())
      return error(what + ": truncated central directory");
    member.name = listing.substr(at + 46, nameLength);
    if (!applyZip64(entries, at + 46 + nameLength, extraLength, member))
      return error(what + ": corrupt zip64 field of member " + member.name);
    members.push_back(std::move(member));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return in.ok && entries.ok ? nullptr : error(what + ": truncated zip file");
}

/// Where `member`'s data starts in `zip`, after checking its sizes.
kiln_status_t locateData(ZipBytes &zip, const Member &member,
                         const std::string &what, uint64_t &data) {
  std::string header;
  if (!zip.read(member.localOffset, 30, header) ||
      Reader{header}.read(0, 4) != kLocalHeader)
    return error(what + ": corrupt local header");
  Reader in{header};
  data = member.localOffset + 30 + in.read(26, 2) + in.read(28, 2);
  if (data > zip.size() || zip.size() - data < member.compressedSize)
    return error(what + ": truncated member");
  // zlib counts in 32 bits.
  if (member.size >= 0xffffffffu || member.compressedSize >= 0xffffffffu)
    return error(what + ": members over 4 GiB are not supported");
  if (member.method == 0 && member.compressedSize != member.size)
    return error(what + ": stored member sizes disagree");
  if (member.method == 8 &&
      member.size > member.compressedSize * kMaxDeflateRatio + 1024)
    return error(what + ": declares " + std::to_string(member.size) +
                 " bytes, more than its " +
                 std::to_string(member.compressedSize) +
                 " compressed bytes can hold");
  if (member.method != 0 && member.method != 8)
    return error(what + ": unsupported compression method " +
                 std::to_string(member.method));
  return nullptr;
}

/// Feeds `member`'s uncompressed bytes to `take(at, bytes, count)` in
/// order, in pieces of at most `piece` bytes, reading `zip` as it goes,
/// and checks its size and CRC. `take` returns false to stop (its own
/// error).
kiln_status_t streamMember(
    ZipBytes &zip, const Member &member, const std::string &what,
    uint64_t piece,
    const std::function<bool(uint64_t, const char *, uint64_t)> &take) {
  uint64_t data;
  if (kiln_status_t status = locateData(zip, member, what, data))
    return status;
  std::string in, out;
  uLong crc = crc32(0L, nullptr, 0);
  uint64_t produced = 0;
  auto give = [&](const char *bytes, uint64_t count) {
    crc = crc32(crc, reinterpret_cast<const Bytef *>(bytes), uInt(count));
    bool more = take(produced, bytes, count);
    produced += count;
    return more;
  };
  if (member.method == 0) {
    for (uint64_t at = 0; at < member.size; at += piece) {
      uint64_t count = std::min(piece, member.size - at);
      const char *bytes = zip.bytes(data + at, count, in);
      if (!bytes)
        return error(what + ": truncated member");
      if (!give(bytes, count))
        return nullptr;
    }
  } else {
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
      return error(what + ": cannot start zlib");
    out.resize(piece);
    int result = Z_OK;
    for (uint64_t read = 0; result == Z_OK;) {
      if (stream.avail_in == 0 && read < member.compressedSize) {
        uint64_t count = std::min(piece, member.compressedSize - read);
        const char *bytes = zip.bytes(data + read, count, in);
        if (!bytes)
          break;
        stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes));
        stream.avail_in = uInt(count);
        read += count;
      }
      stream.next_out = reinterpret_cast<Bytef *>(out.data());
      stream.avail_out = uInt(piece);
      result = inflate(&stream, Z_NO_FLUSH);
      uint64_t count = piece - stream.avail_out;
      if (produced + count > member.size)
        break;
      if ((result == Z_OK || result == Z_STREAM_END) && count &&
          !give(out.data(), count)) {
        inflateEnd(&stream);
        return nullptr;
      }
    }
    inflateEnd(&stream);
    if (result != Z_STREAM_END || produced != member.size)
      return error(what + ": corrupt or truncated deflate data");
  }
  if (crc != member.crc)
    return error(what + ": CRC-32 mismatch");
  return nullptr;
}

/// The uncompressed bytes of `member`, checked against its size and CRC.
kiln_status_t extract(ZipBytes &zip, const Member &member,
                      const std::string &what, std::string &out) {
  out.clear();
  // What the file's bytes can hold, not what a corrupt header claims
  // (streamMember refuses such a member before reading).
  out.reserve(std::min(member.size, zip.size() * kMaxDeflateRatio + 1024));
  return streamMember(zip, member, what,
                      std::clamp<uint64_t>(member.size, 1, 16 << 20),
                      [&](uint64_t, const char *bytes, uint64_t count) {
                        out.append(bytes, count);
                        return true;
                      });
}

void put(std::string &out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    out += static_cast<char>(value >> (8 * i) & 0xff);
}

/// `data` deflated raw, as zip members are.
std::string deflateRaw(const std::string &data) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
               Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef *>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

/// Checks that the block at `offsets` of `shape` lies in an array of
/// `whole` shape.
kiln_status_t checkBlock(const std::vector<int64_t> &whole,
                         const std::vector<int64_t> &offsets,
                         const std::vector<int64_t> &shape,
                         const std::string &what) {
  if (shape.size() != whole.size())
    return error(what + ": the block has rank " + std::to_string(shape.size()) +
                 ", the array " + std::to_string(whole.size()));
  for (size_t d = 0; d < whole.size(); ++d)
    if (offsets[d] < 0 || shape[d] < 0 || offsets[d] > whole[d] ||
        shape[d] > whole[d] - offsets[d])
      return error(what + ": the block's dimension " + std::to_string(d) +
                   " [" + std::to_string(offsets[d]) + ", " +
                   std::to_string(offsets[d] + shape[d]) +
                   ") is not within the array's " + std::to_string(whole[d]));
  return nullptr;
}

/// The block of `shape` at `offsets` of the array in `member` into
/// `tensor`: a stored member read at the block's runs only, a compressed
/// one inflated through once.
kiln_status_t readBlock(ZipBytes &zip, const Member &member,
                        const std::string &what,
                        const std::vector<int64_t> &offsets,
                        const std::vector<int64_t> &shape,
                        kiln_tensor_t *out) {
  uint64_t data;
  if (kiln_status_t status = locateData(zip, member, what, data))
    return status;
  std::string buffer;
  uint64_t prefixLength = std::min<uint64_t>(member.size, kMaxNpyHeader);
  std::string prefix;
  NpyLayout layout;
  kiln_tensor_t tensor = nullptr;
  if (member.method == 0 && !zip.read(data, prefixLength, prefix))
    return error(what + ": truncated member");
  if (member.method != 0)
    // The header is in the first inflated bytes.
    if (kiln_status_t status = streamMember(
            zip, member, what, std::max<uint64_t>(prefixLength, 1),
            [&](uint64_t, const char *bytes, uint64_t count) {
              prefix.append(bytes, count);
              return prefix.size() < prefixLength;
            }))
      return status;
  if (kiln_status_t status =
          parseNpyHeader(prefix, member.size, what, layout))
    return status;
  if (kiln_status_t status = checkBlock(layout.shape, offsets, shape, what))
    return status;
  size_t bytes;
  if (kiln_status_t status =
          tensorByteLength(layout.dtype, shape, what, bytes))
    return status;
  tensor = newTensor(layout.dtype, shape, bytes, false);
  if (!tensor)
    return error(what + ": out of memory for the block");
  std::unique_ptr<kiln_tensor> owner(tensor);
  char *target = static_cast<char *>(tensor->data.get());
  // The block's runs, in file order, as offsets in the member.
  struct Run {
    uint64_t at, blockAt, length;
  };
  std::vector<Run> runs;
  forEachRun(layout.shape, shape, offsets, kiln_dtype_size(layout.dtype),
             [&](size_t wholeAt, size_t blockAt, size_t length) {
               runs.push_back({layout.dataOffset + wholeAt, blockAt, length});
             });
  if (member.method == 0) {
    for (const Run &run : runs) {
      const char *found = zip.bytes(data + run.at, run.length, buffer);
      if (!found)
        return error(what + ": truncated member");
      std::memcpy(target + run.blockAt, found, run.length);
    }
  } else {
    size_t next = 0;
    if (kiln_status_t status = streamMember(
            zip, member, what, 1 << 20,
            [&](uint64_t at, const char *piece, uint64_t count) {
              // Copies the overlap of each run with [at, at + count).
              for (; next < runs.size(); ++next) {
                const Run &run = runs[next];
                uint64_t from = std::max(run.at, at);
                uint64_t to = std::min(run.at + run.length, at + count);
                if (from < to)
                  std::memcpy(target + run.blockAt + (from - run.at),
                              piece + (from - at), to - from);
                if (run.at + run.length > at + count)
                  break;
              }
              return true;
            }))
      return status;
  }
  normalizeBooleans(tensor);
  *out = owner.release();
  return nullptr;
}

/// The array name of a member: its file name without ".npy", as numpy's.
std::string arrayName(std::string member) {
  if (member.size() > 4 && member.compare(member.size() - 4, 4, ".npy") == 0)
    member.resize(member.size() - 4);
  return member;
}

/// Why `name` cannot name an array of a written .npz, or empty: names are
/// distinct plain file names (no path, which unzip would follow).
std::string badArrayName(const std::string &name,
                         const std::set<std::string> &earlier) {
  if (name.empty() || name == "." || name == "..")
    return "is not a file name";
  if (name.find_first_of("/\\") != std::string::npos)
    return "must not contain '/' or '\\'";
  if (earlier.count(name))
    return "appears twice";
  return "";
}
} // namespace

kiln_status_t kiln_npz_read(const char *path, size_t *count, char ***names,
                            kiln_tensor_t **tensors) {
  if (!count || !names || !tensors)
    return error("count, names, tensors: must not be null");
  *count = 0;
  *names = nullptr;
  *tensors = nullptr;
  std::string zip;
  if (kiln_status_t status = readFile(path, zip))
    return status;
  ZipBytes bytes(zip);
  std::vector<Member> members;
  if (kiln_status_t status = listMembers(bytes, path, members))
    return status;
  // numpy's np.load keeps the last of two members with one name; reading
  // either silently would hand over the wrong array.
  std::set<std::string> seen;
  for (const Member &member : members)
    if (!seen.insert(arrayName(member.name)).second)
      return error(std::string(path) + ": the array '" +
                   arrayName(member.name) + "' appears twice");
  std::vector<std::string> arrayNames;
  std::vector<kiln_tensor_t> arrays;
  kiln_status_t failure = nullptr;
  for (const Member &member : members) {
    std::string what = std::string(path) + " member " + member.name;
    std::string image;
    kiln_tensor_t tensor = nullptr;
    if ((failure = extract(bytes, member, what, image)) ||
        (failure = readNpy(image, what, &tensor)))
      break;
    arrayNames.push_back(arrayName(member.name));
    arrays.push_back(tensor);
  }
  if (failure) {
    for (kiln_tensor_t tensor : arrays)
      kiln_tensor_free(tensor);
    return failure;
  }
  *count = arrays.size();
  *names = new char *[arrays.size()];
  *tensors = new kiln_tensor_t[arrays.size()];
  for (size_t i = 0; i < arrays.size(); ++i) {
    (*names)[i] = strdup(arrayNames[i].c_str());
    (*tensors)[i] = arrays[i];
  }
  return nullptr;
}

void kiln_npz_free(size_t count, char **names, kiln_tensor_t *tensors) {
  for (size_t i = 0; i < count; ++i) {
    if (names)
      free(names[i]);
    if (tensors)
      kiln_tensor_free(tensors[i]);
  }
  delete[] names;
  delete[] tensors;
}

kiln_status_t kiln_npz_write(const char *path, size_t count,
                             const char *const *names,
                             const kiln_tensor_t *tensors, int compress) {
  if (count && (!names || !tensors))
    return error("names, tensors: must not be null");
  std::string zip, directory;
  std::set<std::string> written;
  for (size_t i = 0; i < count; ++i) {
    if (!names[i] || !tensors[i])
      return error("names[" + std::to_string(i) + "], tensors[" +
                   std::to_string(i) + "]: must not be null");
    std::string why = badArrayName(names[i], written);
    if (!why.empty())
      return error("names[" + std::to_string(i) + "]: '" + names[i] + "' " +
                   why);
    if (tensors[i]->device != KILN_DEVICE_CPU)
      return error("tensors[" + std::to_string(i) + "]: is on " +
                   kiln_device_name(tensors[i]->device) +
                   "; copy it to the cpu first (kiln_tensor_copy_to)");
    if (kiln_status_t status =
            waitForProducer(tensors[i], "tensors[" + std::to_string(i) + "]"))
      return status;
    written.insert(names[i]);
    std::string name = std::string(names[i]) + ".npy";
    std::string image = writeNpy(tensors[i]);
    std::string data = compress ? deflateRaw(image) : image;
    if (image.size() >= 0xffffffffu || zip.size() >= 0xffffffffu)
      return error(std::string(names[i]) +
                   ": members and archives over 4 GiB are not supported");
    uint32_t crc = crc32(0L, reinterpret_cast<const Bytef *>(image.data()),
                         static_cast<uInt>(image.size()));
    uint16_t method = compress ? 8 : 0;
    // The fields shared by the local and central headers, from "version
    // needed" to the name length.
    std::string common;
    put(common, 20, 2);
    put(common, 0, 2);
    put(common, method, 2);
    put(common, 0, 4); // time and date
    put(common, crc, 4);
    put(common, data.size(), 4);
    put(common, image.size(), 4);
    put(common, name.size(), 2);
    put(common, 0, 2); // extra length
    put(directory, kCentralHeader, 4);
    put(directory, 20, 2); // version made by
    directory += common;
    put(directory, 0, 2); // comment length
    put(directory, 0, 2); // disk
    put(directory, 0, 2); // internal attributes
    put(directory, 0, 4); // external attributes
    put(directory, zip.size(), 4);
    directory += name;
    put(zip, kLocalHeader, 4);
    zip += common;
    zip += name;
    zip += data;
  }
  size_t directoryOffset = zip.size();
  zip += directory;
  put(zip, kEndOfDirectory, 4);
  put(zip, 0, 4); // disk numbers
  put(zip, count, 2);
  put(zip, count, 2);
  put(zip, directory.size(), 4);
  put(zip, directoryOffset, 4);
  put(zip, 0, 2); // comment length
  return writeFile(path, zip);
}

kiln_status_t kiln_npz_read_block(const char *path, const char *name,
                                  size_t rank, const int64_t *offsets,
                                  const int64_t *shape, kiln_tensor_t *out) {
  if (!path || !name || !out || (rank && (!offsets || !shape)))
    return error("path, name, offsets, shape, out: must not be null");
  *out = nullptr;
  if (rank > kMaxRank)
    return error("rank: " + std::to_string(rank) + " is more than " +
                 std::to_string(kMaxRank));
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(
      std::fopen(path, "rb"), std::fclose);
  if (!file)
    return error(std::string(path) + ": cannot open: " + std::strerror(errno));
  ZipBytes zip(file.get());
  std::vector<Member> members;
  if (kiln_status_t status = listMembers(zip, path, members))
    return status;
  const Member *found = nullptr;
  std::string names;
  for (const Member &member : members) {
    if (arrayName(member.name) != name) {
      names += (names.empty() ? "" : ", ") + arrayName(member.name);
      continue;
    }
    if (found)
      return error(std::string(path) + ": the array '" + name +
                   "' appears twice");
    found = &member;
  }
  if (!found)
    return error(std::string(path) + ": no array '" + name + "'" +
                 (names.empty() ? "" : "; its arrays are: " + names));
  return readBlock(zip, *found, std::string(path) + " member " + found->name,
                   std::vector<int64_t>(offsets, offsets + rank),
                   std::vector<int64_t>(shape, shape + rank), out);
}
