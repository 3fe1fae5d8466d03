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

#include <cstring>
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

/// The members listed by the central directory of `zip`.
kiln_status_t listMembers(const std::string &zip, const std::string &what,
                          std::vector<Member> &members) {
  Reader in{zip};
  // The end record is in the last 22 + 65535 (comment) bytes.
  size_t end = std::string::npos;
  if (zip.size() >= 22) {
    size_t lowest = zip.size() > 22 + 65535 ? zip.size() - 22 - 65535 : 0;
    for (size_t at = zip.size() - 22 + 1; at-- > lowest;)
      if (in.read(at, 4) == kEndOfDirectory) {
        end = at;
        break;
      }
  }
  if (end == std::string::npos)
    return error(what + ": not a zip file (no end of central directory)");
  uint64_t count = in.read(end + 10, 2);
  uint64_t directory = in.read(end + 16, 4);
  if (end >= 20 && in.read(end - 20, 4) == kZip64Locator) {
    uint64_t record = in.read(end - 20 + 8, 8);
    if (in.read(record, 4) != kZip64EndOfDirectory)
      return error(what + ": bad zip64 end of central directory");
    count = in.read(record + 32, 8);
    directory = in.read(record + 48, 8);
  }
  if (count > zip.size() / 46)
    return error(what + ": the directory lists more members than fit");
  size_t at = directory;
  for (uint64_t i = 0; i < count; ++i) {
    if (in.read(at, 4) != kCentralHeader)
      return error(what + ": corrupt central directory");
    Member member;
    member.method = in.read(at + 10, 2);
    member.crc = in.read(at + 16, 4);
    member.compressedSize = in.read(at + 20, 4);
    member.size = in.read(at + 24, 4);
    size_t nameLength = in.read(at + 28, 2), extraLength = in.read(at + 30, 2),
           commentLength = in.read(at + 32, 2);
    member.localOffset = in.read(at + 42, 4);
    if (!in.ok || at + 46 + nameLength > zip.size())
      return error(what + ": truncated central directory");
    member.name = zip.substr(at + 46, nameLength);
    if (!applyZip64(in, at + 46 + nameLength, extraLength, member))
      return error(what + ": corrupt zip64 field of member " + member.name);
    members.push_back(std::move(member));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return in.ok ? nullptr : error(what + ": truncated zip file");
}

/// The uncompressed bytes of `member`, checked against its size and CRC.
kiln_status_t extract(const std::string &zip, const Member &member,
                      const std::string &what, std::string &out) {
  Reader in{zip};
  size_t at = member.localOffset;
  if (in.read(at, 4) != kLocalHeader)
    return error(what + ": corrupt local header");
  size_t data = at + 30 + in.read(at + 26, 2) + in.read(at + 28, 2);
  if (!in.ok || data > zip.size() ||
      zip.size() - data < member.compressedSize)
    return error(what + ": truncated member");
  const char *compressed = zip.data() + data;
  // zlib counts in 32 bits.
  if (member.size >= 0xffffffffu || member.compressedSize >= 0xffffffffu)
    return error(what + ": members over 4 GiB are not supported");
  if (member.method == 0) {
    if (member.compressedSize != member.size)
      return error(what + ": stored member sizes disagree");
    out.assign(compressed, member.size);
  } else if (member.method == 8) {
    if (member.size > member.compressedSize * kMaxDeflateRatio + 1024)
      return error(what + ": declares " + std::to_string(member.size) +
                   " bytes, more than its " +
                   std::to_string(member.compressedSize) +
                   " compressed bytes can hold");
    out.assign(member.size, '\0');
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
      return error(what + ": cannot start zlib");
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(compressed));
    stream.avail_in = static_cast<uInt>(member.compressedSize);
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = static_cast<uInt>(member.size);
    int result = inflate(&stream, Z_FINISH);
    uint64_t produced = stream.total_out;
    inflateEnd(&stream);
    if (result != Z_STREAM_END || produced != member.size)
      return error(what + ": corrupt or truncated deflate data");
  } else {
    return error(what + ": unsupported compression method " +
                 std::to_string(member.method));
  }
  uLong crc = crc32(0L, reinterpret_cast<const Bytef *>(out.data()),
                    static_cast<uInt>(out.size()));
  if (crc != member.crc)
    return error(what + ": CRC-32 mismatch");
  return nullptr;
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
  std::vector<Member> members;
  if (kiln_status_t status = listMembers(zip, path, members))
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
    if ((failure = extract(zip, member, what, image)) ||
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
