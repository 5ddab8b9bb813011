// The bodies of TuContext (findings, notes, fix-its and justifications of one
// translation unit) and of the Check base class (check_base.hpp).
#include "check_base.hpp"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "ast_util.hpp"

namespace tether::check {

using namespace clang;

// ---- TuContext ---------------------------------------------------------

const TuContext::FileInfo& TuContext::Info(const SourceManager& sm, FileID fid) {
  auto [it, inserted] = files_.try_emplace(fid.getHashValue());
  if (inserted) {
    FileInfo& info = it->second;
    if (OptionalFileEntryRef fe = sm.getFileEntryRefForID(fid)) {
      info.path = std::string(fe->getFileEntry().tryGetRealPathName());
      if (info.path.empty()) {
        llvm::SmallString<256> p(fe->getName());
        llvm::sys::fs::make_absolute(p);
        llvm::sys::path::remove_dots(p, true);
        info.path = std::string(p.str());
      }
    }
    std::string_view text(sm.getBufferData(fid));
    info.lines = SplitLines(text);
    info.markers = ScanJustifications(text);
  }
  return it->second;
}

bool TuContext::Justified(const SourceManager& sm, SourceLocation loc, const std::string& check) {
  SourceLocation spell = sm.getSpellingLoc(loc);
  if (spell.isInvalid()) return false;
  const FileInfo& info = Info(sm, sm.getFileID(spell));
  return FindJustification(info.lines, info.markers, sm.getSpellingLineNumber(spell), check)
      .has_value();
}

namespace {

// Where a diagnostic is shown: the spelling location (a macro of the project
// is reported once, where it is written), except for a token spelled in a
// system header's macro (gtest's ASSERT_* is a `return` there) or, for a
// note, in another file than the code that expands it: then the line of the
// user's code that expands the macro.
SourceLocation UserLocation(const SourceManager& sm, SourceLocation loc, bool note) {
  SourceLocation spell = sm.getSpellingLoc(loc);
  if (!loc.isMacroID()) return spell;
  SourceLocation expansion = sm.getExpansionLoc(loc);
  if (spell.isInvalid() || sm.isInSystemHeader(spell) ||
      (note && sm.getFileID(spell) != sm.getFileID(expansion)))
    return expansion;
  return spell;
}

}  // namespace

bool TuContext::MakeFinding(const SourceManager& sm, const std::string& check, SourceLocation loc,
                            std::string message, Finding* out) {
  SourceLocation spell = UserLocation(sm, loc, false);
  if (spell.isInvalid() || sm.isInSystemHeader(spell)) return false;
  FileID fid = sm.getFileID(spell);
  const FileInfo& info = Info(sm, fid);
  if (info.path.empty()) return false;
  unsigned line = sm.getSpellingLineNumber(spell);
  if (auto j = FindJustification(info.lines, info.markers, line, check)) {
    if (!j->reason.empty()) {
      ++suppressed;
      return false;
    }
    // A marker without a reason justifies nothing and is never counted as
    // justified. When tether-justification reports the marker (one naming a
    // tether check, in the main file: checks/justification.cpp) that report
    // stands for the finding; otherwise the finding itself is reported.
    if (NamesTetherCheck(*j) && fid == sm.getMainFileID() && Enabled(kJustificationCheckName))
      return false;
  }
  Finding f;
  f.check = check;
  f.file = info.path;
  f.line = line;
  f.col = sm.getSpellingColumnNumber(spell);
  f.offset = sm.getFileOffset(spell);
  f.message = std::move(message);
  if (line >= 1 && line <= info.lines.size()) f.line_text = std::string(info.lines[line - 1]);
  *out = std::move(f);
  return true;
}

Note TuContext::MakeNote(const SourceManager& sm, SourceLocation loc, std::string message) {
  Note n;
  n.message = std::move(message);
  SourceLocation spell = UserLocation(sm, loc, true);
  if (spell.isInvalid()) return n;
  const FileInfo& info = Info(sm, sm.getFileID(spell));
  n.file = info.path;
  n.line = sm.getSpellingLineNumber(spell);
  n.col = sm.getSpellingColumnNumber(spell);
  if (n.line >= 1 && n.line <= info.lines.size()) n.line_text = std::string(info.lines[n.line - 1]);
  return n;
}

bool TuContext::AddReplacement(const SourceManager& sm, const LangOptions& lang,
                               CharSourceRange range, std::string text, Finding* f) {
  if (range.getBegin().isMacroID() || range.getEnd().isMacroID()) return false;
  CharSourceRange chars = Lexer::makeFileCharRange(range, sm, lang);
  if (chars.isInvalid()) return false;
  FileID fid = sm.getFileID(chars.getBegin());
  const FileInfo& info = Info(sm, fid);
  unsigned begin = sm.getFileOffset(chars.getBegin());
  unsigned end = sm.getFileOffset(chars.getEnd());
  f->fixes.push_back({info.path, begin, end - begin, std::move(text)});
  return true;
}

// ---- Check ---------------------------------------------------------------

Finding* Check::diag(SourceLocation loc, std::string message) {
  Finding f;
  if (!tu_.MakeFinding(sm(), name_, loc, std::move(message), &f)) return nullptr;
  tu_.findings.push_back(std::move(f));
  return &tu_.findings.back();
}

void Check::note(Finding* f, SourceLocation loc, std::string message) {
  if (f && loc.isValid()) f->notes.push_back(tu_.MakeNote(sm(), loc, std::move(message)));
}

void Check::replace(Finding* f, SourceRange tokens, std::string text) {
  if (f)
    tu_.AddReplacement(sm(), ast().getLangOpts(), CharSourceRange::getTokenRange(tokens),
                       std::move(text), f);
}

void Check::insert(Finding* f, SourceLocation at, std::string text) {
  if (f)
    tu_.AddReplacement(sm(), ast().getLangOpts(), CharSourceRange::getCharRange(at, at),
                       std::move(text), f);
}

void Check::attribute(Finding* f, const Stmt* s) {
  if (!f || !s) return;
  DynTypedNodeList parents = ast().getParents(*s);
  while (!parents.empty()) {
    if (const auto* lambda = parents[0].get<LambdaExpr>()) {
      f->function = DisplayName(lambda->getCallOperator());
      return;
    }
    if (const auto* fn = parents[0].get<FunctionDecl>()) {
      f->function = DisplayName(fn);
      return;
    }
    parents = ast().getParents(parents[0]);
  }
}

}  // namespace tether::check
