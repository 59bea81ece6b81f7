#pragma once
// Reads the case files under assets/ (golden/cases.ini, regression/cases.ini): the INI subset that
// Python's configparser also reads, for tools/regenerate_references.py. A section names a case;
// "key = value" lines follow; an indented line continues the value before it; lines starting with
// # or ; are comments.

#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbody::test {

struct TestCase {
  std::string name;
  std::map<std::string, std::string> values;

  const std::string& at(const std::string& key) const {
    auto found = values.find(key);
    if (found == values.end()) throw std::runtime_error("case " + name + " has no " + key);
    return found->second;
  }
};

// gtest names the case in its messages instead of dumping its bytes.
inline void PrintTo(const TestCase& testCase, std::ostream* out) { *out << testCase.name; }

inline std::string trimmedText(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

inline std::vector<TestCase> readCaseFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<TestCase> cases;
  std::string line, lastKey;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = trimmedText(line);
    const std::string where = path.string() + ":" + std::to_string(number);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    if (text.front() == '[' && text.back() == ']') {
      cases.push_back({text.substr(1, text.size() - 2), {}});
      lastKey.clear();
    } else if ((line[0] == ' ' || line[0] == '\t') && !lastKey.empty()) {
      cases.back().values[lastKey] += "\n" + text;
    } else if (const auto equals = text.find('='); equals != std::string::npos && !cases.empty()) {
      lastKey = trimmedText(text.substr(0, equals));
      cases.back().values[lastKey] = trimmedText(text.substr(equals + 1));
    } else {
      throw std::runtime_error(where + ": expected [name], key = value or a comment");
    }
  }
  return cases;
}

}  // namespace nbody::test
