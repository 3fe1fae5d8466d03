//===- FuzzArtifact.cpp - what an artifact passes before it loads ---------===//
//
// kiln_module_load checks that a file is a whole 64-bit ELF shared object
// before the system loader maps it (a truncated one would fault inside the
// loader), then reads its manifest (the manifest target). Any bytes, and a
// small whole shared object cut and edited as the bytes say, go through
// that check: an error, or an image whose program headers and segments all
// lie within it. The images are never loaded: loading runs their code.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "runtime/Internal.h"

#include <cstring>
#include <elf.h>

namespace {

/// A small whole 64-bit ELF shared object, as the check sees one: its
/// header, a loadable segment holding the whole file and a dynamic one, a
/// null section header and some bytes of code. Small, so that the edits'
/// offsets and cuts reach every byte of it.
std::string sharedObject() {
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_phoff = sizeof(Elf64_Ehdr);
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 2;
  header.e_shoff = header.e_phoff + 2 * sizeof(Elf64_Phdr);
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 1;
  size_t size = header.e_shoff + sizeof(Elf64_Shdr) + 32;
  Elf64_Phdr segments[2] = {};
  segments[0].p_type = PT_LOAD;
  segments[0].p_filesz = segments[0].p_memsz = size;
  segments[1].p_type = PT_DYNAMIC;
  segments[1].p_offset = size - 32;
  segments[1].p_filesz = segments[1].p_memsz = 32;
  std::string image(size, '\0');
  std::memcpy(&image[0], &header, sizeof(header));
  std::memcpy(&image[header.e_phoff], segments, sizeof(segments));
  return image;
}

/// Checks `image`; if it is accepted, that what the loader reads lies
/// within it (counted here in 128 bits, apart from the check's own
/// arithmetic).
void checkImage(const std::string &image) {
  if (kiln_status_t status =
          kiln::runtime::checkSharedObject(image, "input")) {
    kiln_status_free(status);
    return;
  }
  using Wide = unsigned __int128;
  Elf64_Ehdr header;
  std::memcpy(&header, image.data(), sizeof(header));
  Wide size = image.size();
  if (Wide(header.e_phoff) + Wide(header.e_phnum) * sizeof(Elf64_Phdr) > size)
    kiln::fuzz::broken("accepted program headers past the end");
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment,
                image.data() + header.e_phoff + i * sizeof(Elf64_Phdr),
                sizeof(segment));
    if (Wide(segment.p_offset) + segment.p_filesz > size)
      kiln::fuzz::broken("accepted a segment past the end");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string valid = sharedObject();
  checkImage(std::string(reinterpret_cast<const char *>(data), size));
  checkImage(kiln::fuzz::edited(valid, data, size));
  return 0;
}
