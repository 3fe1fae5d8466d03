//===- InputLimits.cpp - guards for untrusted textual input ---------------===//
#include "InputLimits.h"

#include "llvm/Support/thread.h"

using namespace mlir;

namespace kiln {

/// About 2-4 KB of stack per nesting level were measured for parsing nested
/// regions; 256 MB leaves a wide margin at kMaxNestingDepth for passes too.
static constexpr unsigned kStackBytes = 256u << 20;

std::optional<llvm::SMLoc> findExcessiveNesting(StringRef text,
                                                unsigned limit) {
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      // Skip a string literal, honoring escapes; it ends at the line's end
      // at the latest, where the parser reports it unterminated.
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && text.substr(i).starts_with("//")) {
      i = std::min(text.find('\n', i), e);
    } else if (c == '{' || c == '[' || c == '(' || c == '<') {
      if (++depth > limit)
        return llvm::SMLoc::getFromPointer(text.data() + i);
    } else if (c == '}' || c == ']' || c == ')' ||
               // `->` and `>=` are not closing brackets.
               (c == '>' && (i == 0 || text[i - 1] != '-') &&
                text.substr(i + 1).take_front(1) != "=")) {
      depth -= depth > 0;
    }
  }
  return std::nullopt;
}

std::optional<llvm::SMDiagnostic>
findNestingError(const llvm::SourceMgr &sourceMgr) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<llvm::SMLoc> deep = findExcessiveNesting(buffer->getBuffer());
  if (!deep)
    return std::nullopt;
  return sourceMgr.GetMessage(*deep, llvm::SourceMgr::DK_Error,
                              "brackets nest deeper than " +
                                  std::to_string(kMaxNestingDepth) +
                                  " levels; Kiln refuses such input");
}

int runWithLargeStack(llvm::function_ref<int()> body) {
  int result = 1;
  llvm::thread worker(std::optional<unsigned>(kStackBytes),
                      [&] { result = body(); });
  worker.join();
  return result;
}

} // namespace kiln
