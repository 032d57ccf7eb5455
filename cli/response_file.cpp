// "@file" response files (see response_file.h). A file that includes itself,
// directly or not, is caught by a nesting limit rather than by remembering the
// files read.

#include "cli/response_file.h"

#include <fstream>
#include <iterator>
#include <sys/stat.h>

namespace offbundle {
namespace {

bool isGnuWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Response files nest; a file that (indirectly) includes itself would
// expand forever, so expansion stops at a depth no real build reaches.
constexpr int kMaxExpansionDepth = 64;

bool isRegularFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

} // namespace

std::vector<std::string> tokenizeGnuCommandLine(std::string_view text) {
  std::vector<std::string> tokens;
  std::string token;
  bool inToken = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      token.push_back(text[++i]);
      inToken = true;
      continue;
    }
    if (c == '"' || c == '\'') {
      const char quote = c;
      ++i;
      while (i < text.size() && text[i] != quote) {
        if (text[i] == '\\' && i + 1 < text.size())
          ++i;
        token.push_back(text[i]);
        ++i;
      }
      // An empty quoted string makes no argument, as in LLVM.
      inToken = !token.empty();
      if (i >= text.size())
        break;
      continue;
    }
    if (isGnuWhitespace(c)) {
      if (inToken)
        tokens.push_back(token);
      token.clear();
      inToken = false;
      continue;
    }
    token.push_back(c);
    inToken = true;
  }
  if (!token.empty())
    tokens.push_back(token);
  return tokens;
}

Result<std::vector<std::string>>
expandResponseFiles(std::vector<std::string> arguments) {
  // Each argument remembers how deep in nested files it was found.
  std::vector<int> depth(arguments.size(), 0);
  for (size_t i = 1; i < arguments.size();) {
    const std::string &argument = arguments[i];
    if (argument.size() < 2 || argument[0] != '@') {
      ++i;
      continue;
    }
    std::string path = argument.substr(1);
    if (!isRegularFile(path)) {
      ++i;
      continue;
    }
    if (depth[i] >= kMaxExpansionDepth)
      return makeError("recursive expansion of: '" + path + "'");
    std::ifstream file(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
    // A UTF-8 byte order mark is not part of the first argument.
    if (text.rfind("\xEF\xBB\xBF", 0) == 0)
      text.erase(0, 3);
    std::vector<std::string> expanded = tokenizeGnuCommandLine(text);
    int nested = depth[i] + 1;
    arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i));
    depth.erase(depth.begin() + static_cast<std::ptrdiff_t>(i));
    arguments.insert(arguments.begin() + static_cast<std::ptrdiff_t>(i),
                     expanded.begin(), expanded.end());
    depth.insert(depth.begin() + static_cast<std::ptrdiff_t>(i),
                 expanded.size(), nested);
  }
  return arguments;
}

} // namespace offbundle
