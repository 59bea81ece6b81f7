#include "io/csv.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "io/input_file.h"
#include "io/stop_point.h"
#include "util/comma_list.h"
#include "util/printable_text.h"
#include "util/std_compat.h"

namespace nbody {
namespace {

constexpr std::string_view kHeader = "x,y,z,mass,vx,vy,vz";
constexpr std::string_view kIdentity = ",id,component";
constexpr std::string_view kRadius = ",radius";
constexpr std::array<std::string_view, 10> kColumns{"x",  "y",  "z",  "mass",      "vx",
                                                    "vy", "vz", "id", "component", "radius"};

// Which of the optional columns a file has, after the seven: id and component, then radius.
struct Layout {
  bool identified = false, withRadius = false;

  std::string header() const {
    return std::string(kHeader) + (identified ? std::string(kIdentity) : "") +
           (withRadius ? std::string(kRadius) : "");
  }
  std::size_t columns() const { return 7 + (identified ? 2 : 0) + (withRadius ? 1 : 0); }
  // The name of column `k` (kColumns' index).
  std::size_t nameOf(std::size_t k) const { return k >= 7 && !identified ? k + 2 : k; }
};

// The layout a header names, if any.
std::optional<Layout> layoutOf(std::string_view header) {
  for (const bool identified : {false, true})
    for (const bool withRadius : {false, true})
      if (const Layout layout{identified, withRadius}; layout.header() == header) return layout;
  return std::nullopt;
}

std::string headersText() {
  return std::string(kHeader) + ", followed where wanted by ,id,component and then ,radius";
}

struct Row {
  std::array<float, 7> values{};
  std::array<double, 7> exact{};  // the doubles nearest to the fields
  std::uint64_t id = 0;
  std::uint8_t component = kDefaultComponent;
  double radius = 0.0;
};

// Whether a number no double holds is too small rather than too large: a negative exponent
// (1e-400), or a fraction with no digit before the point (0.000...1).
bool tooSmallForADouble(std::string_view field) {
  const auto exponent = field.find_first_of("eE");
  if (exponent != std::string_view::npos)
    return exponent + 1 < field.size() && field[exponent + 1] == '-';
  if (!field.empty() && (field[0] == '-' || field[0] == '+')) field.remove_prefix(1);
  return field.starts_with("0.") || field.starts_with(".");
}

constexpr std::size_t kLinesBetweenStopPoints = std::size_t(1) << 18;  // a tenth of a second or so

// The digits of a number's mantissa from the first that is not 0: a float32's shortest text has
// at most 9, a double's written by writeStateCsv more (doubleText).
std::size_t significantDigits(std::string_view field) {
  field = field.substr(0, field.find_first_of("eE"));
  std::size_t digits = 0;
  bool leading = true;
  for (const char c : field) {
    if (c < '0' || c > '9') continue;
    leading = leading && c == '0';
    digits += leading ? 0 : 1;
  }
  return digits;
}

// What the field means in double: the float32 `value` where the text is a float32's (9 digits or
// fewer: what every float32 engine writes, and what a person types), else the double nearest to it.
double exactValue(std::string_view field, float value) {
  double exact = value;
  if (significantDigits(field) > std::numeric_limits<float>::max_digits10)
    fromChars(field.data(), field.data() + field.size(),
              exact);  // a finite number: parseField read it
  return exact;
}

// A double as CSV writes it: its shortest text where that says more than a float32 could (over 9
// digits) or it is a float32's value; else with 17 digits, so that the reader does not take it for
// a float32's text.
std::string doubleText(double value) {
  const std::string shortest = formatDouble(value);
  if (double(float(value)) == value ||
      significantDigits(shortest) > std::numeric_limits<float>::max_digits10)
    return shortest;
  return scientificText(value, 16);
}

// The field as a float32, or why not. A number too small for float32 becomes the nearest float32
// (0 or a subnormal), as a conversion would make it; one too large is refused.
float parseField(std::string_view field, std::string_view column, const std::string& where) {
  const auto refuse = [&](const std::string& problem) {
    return std::runtime_error(where + ": column " + std::string(column) + " " + problem);
  };
  float value = 0.0f;
  const char* const end = field.data() + field.size();
  std::from_chars_result read = fromChars(field.data(), end, value);
  if (read.ec == std::errc::result_out_of_range) {
    double wide = 0.0;
    read = fromChars(field.data(), end, wide);
    if (read.ec == std::errc::result_out_of_range && tooSmallForADouble(field)) {
      wide = 0.0;  // as a conversion makes it, like a number too small for float32 alone
      read.ec = std::errc();
    }
    if (read.ec != std::errc() || std::abs(wide) > double(std::numeric_limits<float>::max()))
      throw refuse("is beyond float32's range (about 3.4e38): '" + printable(field, 32) + "'");
    value = float(wide);
  }
  if (field.empty() || read.ec != std::errc() || read.ptr != end)
    throw refuse("is not a number: '" + printable(field, 32) + "'");
  if (!std::isfinite(value)) throw refuse("is not finite");
  return value;
}

// The ID or component column: decimal digits, at most `largest`.
std::uint64_t parseWhole(std::string_view field, std::string_view column, std::uint64_t largest,
                         const std::string& where) {
  std::uint64_t value = 0;
  const char* const end = field.data() + field.size();
  const std::from_chars_result read = fromChars(field.data(), end, value);
  if (field.empty() || read.ec != std::errc() || read.ptr != end || value > largest)
    throw std::runtime_error(where + ": column " + std::string(column) +
                             " is not a whole number from 0 to " + std::to_string(largest) + ": '" +
                             printable(field, 32) + "'");
  return value;
}

// A number with a sign of its own (+1), as every other reader of numbers in nbody takes it.
std::string_view withoutPlus(std::string_view field) {
  return field.size() > 1 && field[0] == '+' && field[1] != '+' && field[1] != '-' ? field.substr(1)
                                                                                   : field;
}

// The radius column: a finite number >= 0, in double.
double parseRadius(std::string_view field, const std::string& where) {
  double value = 0.0;
  const char* const end = field.data() + field.size();
  const std::from_chars_result read = fromChars(field.data(), end, value);
  if (field.empty() || read.ec != std::errc() || read.ptr != end || !std::isfinite(value) ||
      value < 0.0)
    throw std::runtime_error(where + ": column radius is not a finite number >= 0: '" +
                             printable(field, 32) + "'");
  return value;
}

// Field `column` (kColumns' index) of a row.
void parseColumn(Row& row, std::size_t column, std::string_view field, const std::string& where) {
  field = withoutPlus(field);
  if (column < row.values.size()) {
    row.values[column] = parseField(field, kColumns[column], where);
    row.exact[column] = exactValue(field, row.values[column]);
  } else if (column == 7) {
    row.id = parseWhole(field, kColumns[column], std::numeric_limits<std::uint64_t>::max(), where);
  } else if (column == 8) {
    row.component = std::uint8_t(parseWhole(field, kColumns[column], kComponentCount - 1, where));
  } else {
    row.radius = parseRadius(field, where);
  }
}

// A line of the layout's fields.
Row parseRow(std::string_view line, const Layout& layout, const std::string& where) {
  const std::string header = layout.header();
  const std::size_t columns = layout.columns();
  Row row;
  std::size_t column = 0;
  while (true) {
    const auto comma = line.find(',');
    const std::string_view field = trimmed(line.substr(0, comma));
    if (column == columns)
      throw std::runtime_error(where + ": more than " + std::to_string(columns) +
                               " columns (expected " + std::string(header) + ")");
    parseColumn(row, layout.nameOf(column), field, where);
    ++column;
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  if (column != columns)
    throw std::runtime_error(where + ": " + std::to_string(column) + " columns, expected " +
                             std::to_string(columns) + " (" + layout.header() + ")");
  if (row.values[3] < 0.0f) throw std::runtime_error(where + ": negative mass");
  return row;
}

// What is wrong with a first line that is not the header: text in an encoding or with line ends
// nbody does not read is said as such.
std::string headerProblem(std::string_view line) {
  const std::string expected = "the header must be exactly " + headersText();
  if (line.starts_with("\xef\xbb\xbf"))
    return "the file starts with a UTF-8 byte-order mark (EF BB BF): save it without one; " +
           expected;
  if (line.starts_with("\xff\xfe") || line.starts_with("\xfe\xff"))
    return "the file is UTF-16 (it starts with the byte-order mark " +
           printable(line.substr(0, 2)) + "): save it as ASCII or UTF-8; " + expected;
  if (line.find('\0') != std::string_view::npos)
    return "the first line holds NUL bytes, as UTF-16 text or a binary file does: nbody reads "
           "ASCII or UTF-8; " +
           expected;
  if (const auto cr = line.find('\r'); cr != std::string_view::npos && cr + 1 < line.size())
    return "the lines end in a carriage return alone (CR, as on old Macs): nbody reads LF or CRLF "
           "line ends; " +
           expected;
  return expected;
}

}  // namespace

std::string formatFloat(float value) { return shortestText(value); }
std::string formatDouble(double value) { return shortestText(value); }

void writeStateCsv(const State& state, std::ostream& out, const DoubleState* doubles,
                   const std::vector<double>* radii) {
  const Layout layout{!hasDefaultIdentity(state), radii != nullptr};
  if (doubles && doubles->size() != state.size())
    throw std::logic_error("doubles of " + std::to_string(doubles->size()) + " bodies for " +
                           std::to_string(state.size()));
  if (radii && radii->size() != state.size())
    throw std::logic_error(std::to_string(radii->size()) + " radii for " +
                           std::to_string(state.size()) + " bodies");
  out << layout.header() << '\n';
  for (std::size_t i = 0; i < state.size(); ++i) {
    const glm::vec4& p = state.positionMass[i];
    const glm::vec4& v = state.velocity[i];
    if (doubles) {
      const glm::dvec3 &x = doubles->position[i], &u = doubles->velocity[i];
      out << doubleText(x.x) << ',' << doubleText(x.y) << ',' << doubleText(x.z) << ','
          << doubleText(doubles->mass[i]) << ',' << doubleText(u.x) << ',' << doubleText(u.y) << ','
          << doubleText(u.z);
    } else {
      out << formatFloat(p.x) << ',' << formatFloat(p.y) << ',' << formatFloat(p.z) << ','
          << formatFloat(p.w) << ',' << formatFloat(v.x) << ',' << formatFloat(v.y) << ','
          << formatFloat(v.z);
    }
    if (layout.identified) out << ',' << bodyId(state, i) << ',' << int(componentOf(state, i));
    if (radii) out << ',' << formatDouble((*radii)[i]);
    out << '\n';
  }
}

// The doubles of every row so far, made when the first field that is no float32 comes (the rows
// before it are float32s).
void keepDoubles(std::optional<DoubleState>& doubles, const State& state, const Row& row) {
  const auto& x = row.exact;
  const bool beyond =
      std::any_of(x.begin(), x.end(), [](double value) { return double(float(value)) != value; });
  if (!doubles && !beyond) return;
  if (!doubles) {
    doubles.emplace();
    for (std::size_t i = 0; i + 1 < state.size(); ++i) {
      doubles->mass.push_back(state.positionMass[i].w);
      doubles->position.emplace_back(state.positionMass[i]);
      doubles->velocity.emplace_back(state.velocity[i]);
    }
  }
  doubles->mass.push_back(x[3]);
  doubles->position.emplace_back(x[0], x[1], x[2]);
  doubles->velocity.emplace_back(x[4], x[5], x[6]);
}

State readStateCsv(std::istream& in, const std::string& source, std::optional<DoubleState>* doubles,
                   std::optional<std::vector<double>>* radii) {
  std::optional<DoubleState> exact;
  std::string line;
  const bool read = bool(std::getline(in, line));
  const std::optional<Layout> layout = read ? layoutOf(trimmed(line)) : std::nullopt;
  if (!layout) throw std::runtime_error(source + ":1: " + headerProblem(line));
  State state;
  std::vector<double> radiusColumn;
  for (std::size_t lineNumber = 2; std::getline(in, line); ++lineNumber) {
    if (trimmed(line).empty()) continue;
    const Row row = parseRow(line, *layout, source + ":" + std::to_string(lineNumber));
    const auto& values = row.values;
    state.positionMass.emplace_back(values[0], values[1], values[2], values[3]);
    state.velocity.emplace_back(values[4], values[5], values[6], 0.0f);
    state.id.push_back(layout->identified ? row.id : state.size());
    state.component.push_back(row.component);
    if (layout->withRadius) radiusColumn.push_back(row.radius);
    if (doubles) keepDoubles(exact, state, row);
    if (lineNumber % kLinesBetweenStopPoints == 0) stopPoint("while reading " + source);
  }
  if (state.size() == 0) throw std::runtime_error(source + ": no bodies after the header");
  if (doubles) *doubles = std::move(exact);
  if (radii && layout->withRadius) *radii = std::move(radiusColumn);
  return state;
}

State readStateCsvFile(const std::string& path) {
  std::istringstream text(readInputFile(path));
  return readStateCsv(text, path);
}

}  // namespace nbody
