#pragma once
// An error told in a headline and lines of detail, one for each thing tried (the platforms a
// context was asked of). what() joins them with "; " for whoever shows one line (the window's
// panel); main prints the headline and each detail on a line of its own, each made printable.

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nbody {

class DetailedError : public std::runtime_error {
 public:
  DetailedError(const std::string& headline, std::vector<std::string> details)
      : std::runtime_error(joined(headline, details)),
        headline_(headline),
        details_(std::move(details)) {}
  const std::string& headline() const { return headline_; }
  const std::vector<std::string>& details() const { return details_; }

 private:
  static std::string joined(const std::string& headline, const std::vector<std::string>& details) {
    std::string text = headline;
    for (std::size_t k = 0; k < details.size(); ++k) text += (k == 0 ? " " : "; ") + details[k];
    return text;
  }
  std::string headline_;
  std::vector<std::string> details_;
};

}  // namespace nbody
