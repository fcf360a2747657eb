//===- quant-block-fuzz-mlir.cpp - libFuzzer target: IR and passes --------===//
//
// Parses arbitrary bytes as MLIR with the quant_block dialect and the
// upstream dialects its passes consume registered, verifies, and runs each of
// the project's passes and pipelines on a fresh clone of what verifies.
// Diagnostics are swallowed: a parse error, a verifier error or a failing
// pass is an ordinary outcome. A crash, an assertion, a sanitizer report or
// a timeout is a finding (docs/Fuzzing.md).
//
// Limits that keep the cost of one input bounded (documented in
// docs/Fuzzing.md):
//  * inputs over 4 KiB are skipped;
//  * inputs that name a dialect outside the allowlist below are skipped
//    (quant-opt registers every upstream dialect; their parsers and
//    verifiers are upstream's to fuzz, not ours);
//  * modules with a type of more than 2^16 static elements are not handed to
//    the passes (constant folding and the CPU pipeline would materialize
//    them);
//  * inputs that would hit a known crash in an upstream parser are skipped
//    (hitsKnownUpstreamCrash; each one is listed in docs/Fuzzing.md).
//
//===----------------------------------------------------------------------===//

#include "quant-block/Dialect/QuantBlock/IR/QuantBlock.h"
#include "quant-block/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

constexpr size_t kMaxInputBytes = 4096;
constexpr int64_t kMaxElements = int64_t(1) << 16;

/// The dialects an input may use: the quant_block dialect and the upstream
/// dialects the raise / fuse / propagate patterns and the pipelines consume.
constexpr llvm::StringLiteral kAllowedDialects[] = {
    "builtin", "func",  "arith", "tensor",     "linalg",
    "tosa",    "quant", "math",  "quant_block"};

/// Each pass and pipeline runs on its own clone of the verified module.
constexpr llvm::StringLiteral kPipelines[] = {
    "builtin.module(quant-block-raise)",
    "builtin.module(quant-block-select-zero-point)",
    "builtin.module(quant-block-propagate)",
    "builtin.module(quant-block-fold-constants)",
    "builtin.module(quant-block-fuse)",
    "builtin.module(canonicalize)",
    "builtin.module(convert-quant-block-to-linalg)",
    "builtin.module(quant-block-cpu-pipeline)",
};

struct Setup {
  DialectRegistry registry;
  llvm::StringSet<> forbiddenDialects;

  Setup() {
    registerAllDialects(registry);
    registerAllExtensions(registry);
    quant_block::registerAllDialects(registry);
    registerTransformsPasses();
    quant_block::registerAllPasses();
    for (llvm::StringRef name : registry.getDialectNames())
      if (!llvm::is_contained(kAllowedDialects, name))
        forbiddenDialects.insert(name);
  }
};

Setup &getSetup() {
  static Setup *setup = new Setup();
  return *setup;
}

/// Whether the text names a dialect outside the allowlist: an identifier
/// directly followed by '.' (`spirv.`, `"gpu.launch"`) or after '!' / '#'
/// (`!llvm.ptr`, `#gpu<...>`). Comments are ignored (the seeds' CHECK lines
/// name the LLVM dialect); strings are not (`"gpu.launch"() : () -> ()` is
/// an op), so a string that merely mentions such a name is skipped too.
bool namesForbiddenDialect(llvm::StringRef text, const Setup &setup) {
  auto isIdentifierChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  };
  bool inString = false;
  size_t i = 0, e = text.size();
  while (i < e) {
    if (inString && text[i] == '\\') {
      i += 2;
      continue;
    }
    if (text[i] == '"' || (inString && text[i] == '\n')) {
      inString = !inString && text[i] == '"';
      ++i;
      continue;
    }
    if (!inString && text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    if (!llvm::isAlpha(text[i]) && text[i] != '_') {
      ++i;
      continue;
    }
    size_t begin = i;
    while (i < e && isIdentifierChar(text[i]))
      ++i;
    bool sigil =
        begin > 0 && (text[begin - 1] == '!' || text[begin - 1] == '#');
    bool dotted = i < e && text[i] == '.';
    if ((sigil || dotted) &&
        setup.forbiddenDialects.contains(text.slice(begin, i)))
      return true;
  }
  return false;
}

/// Whether `text` starts with a well-formed dense i64 array: `[`, integers
/// (an optional `-` and at most 18 digits) separated by `,`, and `]`, with
/// spaces, tabs and newlines only between them.
/// `text` without the leading characters MLIR's lexer skips: whitespace,
/// NUL bytes (the lexer treats one that is not the end of the buffer as
/// whitespace) and `//` comments.
llvm::StringRef skipTrivia(llvm::StringRef text) {
  while (true) {
    text = text.ltrim(llvm::StringRef(" \t\r\n\v\f\0", 7));
    if (!text.starts_with("//"))
      return text;
    size_t end = text.find('\n');
    text =
        end == llvm::StringRef::npos ? llvm::StringRef() : text.drop_front(end);
  }
}

bool startsWithI64Array(llvm::StringRef text) {
  auto skipSpace = [&] { text = skipTrivia(text); };
  skipSpace();
  if (!text.consume_front("["))
    return false;
  skipSpace();
  if (text.consume_front("]"))
    return true;
  while (true) {
    skipSpace();
    text.consume_front("-");
    size_t digits = 0;
    while (digits < text.size() && llvm::isDigit(text[digits]))
      ++digits;
    if (digits == 0 || digits > 18)
      return false;
    text = text.drop_front(digits);
    skipSpace();
    if (text.consume_front("]"))
      return true;
    if (!text.consume_front(","))
      return false;
  }
}

/// Whether the text would reach a crash of MLIR 22's own parsers, which we
/// cannot fix here (Debian's mlir-opt crashes on the same input):
///  * linalg.broadcast / linalg.reduce / linalg.transpose parse
///    `dimensions = [...]` / `permutation = [...]` with
///    DenseI64ArrayAttr::parse and store its result unchecked, so an array
///    that does not parse becomes a null attribute that NamedAttrList::set
///    dereferences. Any such keyword followed by `=` and anything but a
///    well-formed array is skipped.
bool hitsKnownUpstreamCrash(llvm::StringRef text) {
  for (llvm::StringRef keyword : {"dimensions", "permutation"}) {
    for (size_t pos = text.find(keyword); pos != llvm::StringRef::npos;
         pos = text.find(keyword, pos + 1)) {
      llvm::StringRef rest = skipTrivia(text.drop_front(pos + keyword.size()));
      if (rest.consume_front("=") && !startsWithI64Array(rest))
        return true;
    }
  }
  return false;
}

/// Whether a type (or a type nested in it) holds more than kMaxElements
/// static elements. Dynamic dimensions do not count: nothing is materialized
/// for them at compile time.
bool isTooLarge(Type root) {
  bool tooLarge = false;
  auto check = [&](llvm::ArrayRef<int64_t> shape) {
    int64_t count = 1;
    for (int64_t dim : shape) {
      if (ShapedType::isDynamic(dim))
        continue;
      if (dim < 0 || llvm::MulOverflow(count, dim, count) ||
          count > kMaxElements) {
        tooLarge = true;
        return;
      }
    }
  };
  root.walk([&](Type type) {
    if (auto shaped = dyn_cast<ShapedType>(type)) {
      if (shaped.hasRank())
        check(shaped.getShape());
    } else if (auto quantized =
                   dyn_cast<quant_block::QuantizedTensorType>(type)) {
      check(quantized.getShape());
    }
  });
  return tooLarge;
}

bool hasTooLargeType(ModuleOp module) {
  WalkResult result = module->walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (isTooLarge(type))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isTooLarge(arg.getType()))
            return WalkResult::interrupt();
    bool tooLarge = false;
    op->getAttrDictionary().walk(
        [&](Type type) { tooLarge = tooLarge || isTooLarge(type); });
    return tooLarge ? WalkResult::interrupt() : WalkResult::advance();
  });
  return result.wasInterrupted();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)getSetup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  Setup &setup = getSetup();
  if (namesForbiddenDialect(text, setup) || hitsKnownUpstreamCrash(text))
    return -1;

  // A fresh context per input, so that a finding reproduces from its input
  // alone.
  MLIRContext context(setup.registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });

  // MLIR's lexer relies on a NUL after the buffer, as files read by
  // MemoryBuffer have; libFuzzer's input has none.
  std::string source = text.str();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  if (!module || hasTooLargeType(*module))
    return 0;

  for (llvm::StringRef pipeline : kPipelines) {
    OwningOpRef<ModuleOp> clone = module->clone();
    PassManager pm(&context);
    if (failed(parsePassPipeline(pipeline, pm))) {
      llvm::errs() << "quant-block-fuzz-mlir: cannot parse the pipeline '"
                   << pipeline << "'\n";
      std::abort();
    }
    (void)pm.run(*clone);
  }
  return 0;
}
