#include "io/csv.h"

#include <array>
#include <charconv>
#include <cmath>
#include <sstream>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "io/input_file.h"
#include "util/comma_list.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

constexpr std::string_view kHeader = "x,y,z,mass,vx,vy,vz";
constexpr std::string_view kIdentifiedHeader = "x,y,z,mass,vx,vy,vz,id,component";
constexpr std::array<std::string_view, 9> kColumns{"x", "y", "z", "mass", "vx", "vy", "vz", "id", "component"};

struct Row {
  std::array<float, 7> values{};
  std::uint64_t id = 0;
  std::uint8_t component = kDefaultComponent;
};

// The field as a float32, or why not. A number too small for float32 becomes the nearest float32
// (0 or a subnormal), as a conversion would make it; one too large is refused.
float parseField(std::string_view field, std::string_view column, const std::string& where) {
  const auto refuse = [&](const std::string& problem) {
    return std::runtime_error(where + ": column " + std::string(column) + " " + problem);
  };
  float value = 0.0f;
  const char* const end = field.data() + field.size();
  std::from_chars_result read = std::from_chars(field.data(), end, value);
  if (read.ec == std::errc::result_out_of_range) {
    double wide = 0.0;
    read = std::from_chars(field.data(), end, wide);
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
  const std::from_chars_result read = std::from_chars(field.data(), end, value);
  if (field.empty() || read.ec != std::errc() || read.ptr != end || value > largest)
    throw std::runtime_error(where + ": column " + std::string(column) + " is not a whole number from 0 to " +
                             std::to_string(largest) + ": '" + printable(field, 32) + "'");
  return value;
}

void parseColumn(Row& row, std::size_t column, std::string_view field, const std::string& where) {
  if (column < row.values.size()) {
    row.values[column] = parseField(field, kColumns[column], where);
  } else if (column == 7) {
    row.id = parseWhole(field, kColumns[column], std::numeric_limits<std::uint64_t>::max(), where);
  } else {
    row.component = std::uint8_t(parseWhole(field, kColumns[column], kComponentCount - 1, where));
  }
}

// A line of `columns` fields (7, or 9 with the ID and component).
Row parseRow(std::string_view line, std::size_t columns, const std::string& where) {
  const std::string_view header = columns == 7 ? kHeader : kIdentifiedHeader;
  Row row;
  std::size_t column = 0;
  while (true) {
    const auto comma = line.find(',');
    const std::string_view field = trimmed(line.substr(0, comma));
    if (column == columns)
      throw std::runtime_error(where + ": more than " + std::to_string(columns) + " columns (expected " +
                               std::string(header) + ")");
    parseColumn(row, column, field, where);
    ++column;
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  if (column != columns)
    throw std::runtime_error(where + ": " + std::to_string(column) + " columns, expected " + std::to_string(columns) +
                             " (" + std::string(header) + ")");
  if (row.values[3] < 0.0f) throw std::runtime_error(where + ": negative mass");
  return row;
}

// std::to_chars without a format: the shortest text that reads back to the same value.
template <typename Number>
std::string shortestText(Number value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// What is wrong with a first line that is not the header: text in an encoding or with line ends
// nbody does not read is said as such.
std::string headerProblem(std::string_view line) {
  const std::string expected =
      "the header must be exactly " + std::string(kHeader) + " or " + std::string(kIdentifiedHeader);
  if (line.starts_with("\xef\xbb\xbf"))
    return "the file starts with a UTF-8 byte-order mark (EF BB BF): save it without one; " + expected;
  if (line.starts_with("\xff\xfe") || line.starts_with("\xfe\xff"))
    return "the file is UTF-16 (it starts with the byte-order mark " + printable(line.substr(0, 2)) +
           "): save it as ASCII or UTF-8; " + expected;
  if (line.find('\0') != std::string_view::npos)
    return "the first line holds NUL bytes, as UTF-16 text or a binary file does: nbody reads ASCII or UTF-8; " +
           expected;
  if (const auto cr = line.find('\r'); cr != std::string_view::npos && cr + 1 < line.size())
    return "the lines end in a carriage return alone (CR, as on old Macs): nbody reads LF or CRLF line ends; " +
           expected;
  return expected;
}

}  // namespace

std::string formatFloat(float value) { return shortestText(value); }
std::string formatDouble(double value) { return shortestText(value); }

void writeStateCsv(const State& state, std::ostream& out) {
  const bool identified = !hasDefaultIdentity(state);
  out << (identified ? kIdentifiedHeader : kHeader) << '\n';
  for (std::size_t i = 0; i < state.size(); ++i) {
    const glm::vec4& p = state.positionMass[i];
    const glm::vec4& v = state.velocity[i];
    out << formatFloat(p.x) << ',' << formatFloat(p.y) << ',' << formatFloat(p.z) << ','
        << formatFloat(p.w) << ',' << formatFloat(v.x) << ',' << formatFloat(v.y) << ','
        << formatFloat(v.z);
    if (identified) out << ',' << bodyId(state, i) << ',' << int(componentOf(state, i));
    out << '\n';
  }
}

State readStateCsv(std::istream& in, const std::string& source) {
  std::string line;
  const bool read = bool(std::getline(in, line));
  if (!read || (trimmed(line) != kHeader && trimmed(line) != kIdentifiedHeader))
    throw std::runtime_error(source + ":1: " + headerProblem(line));
  const std::size_t columns = trimmed(line) == kHeader ? 7 : 9;
  State state;
  bool anyMass = false;
  for (std::size_t lineNumber = 2; std::getline(in, line); ++lineNumber) {
    if (trimmed(line).empty()) continue;
    const Row row = parseRow(line, columns, source + ":" + std::to_string(lineNumber));
    const auto& values = row.values;
    state.positionMass.emplace_back(values[0], values[1], values[2], values[3]);
    state.velocity.emplace_back(values[4], values[5], values[6], 0.0f);
    state.id.push_back(columns == 9 ? row.id : state.size());
    state.component.push_back(row.component);
    anyMass = anyMass || values[3] > 0.0f;
  }
  if (state.size() == 0) throw std::runtime_error(source + ": no bodies after the header");
  if (!anyMass) throw std::runtime_error(source + ": every mass is zero");
  return state;
}

State readStateCsvFile(const std::string& path) {
  std::istringstream text(readInputFile(path));
  return readStateCsv(text, path);
}

}  // namespace nbody
