#include "io/xdmf_index.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <string_view>
#include <utility>

#include "io/csv.h"
#include "util/std_compat.h"

namespace nbody {
namespace {

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string dataItem(const std::string& dimensions, const char* numberType, int precision,
                     const std::string& where) {
  return "<DataItem Dimensions=\"" + dimensions + "\" NumberType=\"" + numberType +
         "\" Precision=\"" + std::to_string(precision) + "\" Format=\"HDF\">" + where +
         "</DataItem>";
}

// ".F": the grids of part F are named PartTypeK.F.
std::string partSuffix(std::size_t file) {
  std::string suffix(1, '.');
  suffix += std::to_string(file);
  return suffix;
}

// The grid of `snapshot`'s (or part `part`'s) bodies of `type`.
std::string typeGrid(const XdmfSnapshot& snapshot, int type, const std::string& part = "") {
  const std::string n = std::to_string(snapshot.counts[type]);
  const std::string at = escaped(snapshot.file) + ":/PartType" + std::to_string(type) + "/";
  const int real = snapshot.doublePrecision ? 8 : 4;
  std::string name = "PartType" + std::to_string(type);
  name += part;
  std::string grid = "      <Grid Name=\"" + name + "\" GridType=\"Uniform\">\n";
  grid += "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" + n + "\"/>\n";
  grid += "        <Geometry GeometryType=\"XYZ\">" +
          dataItem(n + " 3", "Float", real, at + "Coordinates") + "</Geometry>\n";
  grid += "        <Attribute Name=\"Velocities\" AttributeType=\"Vector\" Center=\"Node\">" +
          dataItem(n + " 3", "Float", real, at + "Velocities") + "</Attribute>\n";
  grid += "        <Attribute Name=\"Masses\" AttributeType=\"Scalar\" Center=\"Node\">" +
          dataItem(n, "Float", real, at + "Masses") + "</Attribute>\n";
  grid += "        <Attribute Name=\"ParticleIDs\" AttributeType=\"Scalar\" Center=\"Node\">" +
          dataItem(n, "UInt", snapshot.wideIds ? 8 : 4, at + "ParticleIDs") + "</Attribute>\n";
  return grid + "      </Grid>\n";
}

// `name` without {step} and the separators next to it (step-{step} -> step, a_{step}_b -> a-b).
std::string withoutStepMarker(std::string name) {
  const auto marker = name.find("{step}");
  if (marker == std::string::npos) return name;
  const auto isSeparator = [](char c) { return c == '-' || c == '_' || c == '.'; };
  std::size_t begin = marker, end = marker + 6;
  while (begin > 0 && isSeparator(name[begin - 1])) --begin;
  while (end < name.size() && isSeparator(name[end])) ++end;
  return name.substr(0, begin) + (begin > 0 && end < name.size() ? "-" : "") + name.substr(end);
}

// The folders of `folders` before the first that holds {step}: one folder above every snapshot
// where each snapshot has a folder of its own (run/f-{step} -> run).
std::filesystem::path folderAboveEverySnapshot(const std::filesystem::path& folders) {
  std::filesystem::path above;
  for (const auto& part : folders) {
    if (part.native().find("{step}") != std::string::npos) break;
    above /= part;
  }
  return above;
}

constexpr std::string_view kIndexHead =
    "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    "<Xdmf xmlns:xi=\"http://www.w3.org/2003/XInclude\" Version=\"2.1\">\n<Domain>\n"
    "  <Grid Name=\"TimeSeries\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
constexpr std::string_view kIndexTail = "  </Grid>\n</Domain>\n</Xdmf>\n";
constexpr std::string_view kBlockHead = "    <Grid Name=\"", kBlockTail = "    </Grid>\n";
constexpr std::size_t kLargestIndexBytes = std::size_t(1) << 30;

std::string unescaped(std::string text) {
  static const std::pair<std::string_view, char> entities[] = {
      {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&amp;", '&'}};
  for (const auto& [entity, c] : entities)
    for (auto at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1))
      text.replace(at, entity.size(), 1, c);
  return text;
}

// Each snapshot's block (its name unescaped, its text) of an index as xdmfIndexText writes it;
// nothing where the text is not one.
std::optional<std::vector<std::pair<std::string, std::string>>> blocksOf(std::string_view text) {
  if (!text.starts_with(kIndexHead) || !text.ends_with(kIndexTail)) return std::nullopt;
  text = text.substr(kIndexHead.size(), text.size() - kIndexHead.size() - kIndexTail.size());
  std::vector<std::pair<std::string, std::string>> blocks;
  while (!text.empty()) {
    const auto end = text.find(std::string("\n") + std::string(kBlockTail));
    const auto quote = text.find('"', kBlockHead.size());
    if (!text.starts_with(kBlockHead) || end == std::string_view::npos ||
        quote == std::string_view::npos)
      return std::nullopt;
    const std::size_t length = end + 1 + kBlockTail.size();
    blocks.emplace_back(
        unescaped(std::string(text.substr(kBlockHead.size(), quote - kBlockHead.size()))),
        std::string(text.substr(0, length)));
    text.remove_prefix(length);
  }
  return blocks;
}

// The step of the snapshot of `pattern` whose name in `index` is `name`, if it is one of them.
std::optional<long long> stepOf(const std::string& name, const std::string& pattern,
                                const std::filesystem::path& index) {
  const std::string relative =
      xdmfEntryFor(std::filesystem::path(pattern), index, GadgetBodies{}).file;
  std::string expression;
  std::size_t start = 0;
  for (auto at = relative.find("{step}");; at = relative.find("{step}", start)) {
    for (const char c :
         relative.substr(start, at == std::string::npos ? std::string::npos : at - start))
      expression +=
          std::string(std::strchr(".^$|()[]{}*+?\\", c) != nullptr && c != '\0' ? "\\" : "") + c;
    if (at == std::string::npos) break;
    expression += "([0-9]{9,19})";
    start = at + 6;
  }
  std::smatch found;
  if (!std::regex_match(name, found, std::regex(expression))) return std::nullopt;
  for (std::size_t k = 2; k < found.size(); ++k)
    if (found[k] != found[1]) return std::nullopt;
  long long step = 0;
  const std::string digits = found.size() > 1 ? found[1].str() : "";
  if (fromChars(digits.data(), digits.data() + digits.size(), step).ec != std::errc() ||
      digits.empty())
    return std::nullopt;
  return step;
}

}  // namespace

EarlierSnapshots earlierSnapshotsIn(const std::filesystem::path& index, const std::string& pattern,
                                    long long firstStep) {
  EarlierSnapshots earlier;
  std::error_code error;
  if (!std::filesystem::is_regular_file(index, error) ||
      std::filesystem::file_size(index, error) > kLargestIndexBytes)
    return earlier;  // nothing to keep; what keeps a new one from being written is the output
                     // layer's to say
  std::ifstream file(index, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!file.good() && !file.eof()) {
    earlier.refusal =
        "its XDMF index " + index.string() + " cannot be read (" + std::strerror(errno) + ")";
    return earlier;
  }
  const auto blocks = blocksOf(text);
  if (!blocks) {
    earlier.refusal = "its XDMF index " + index.string() +
                      " is a file nbody did not write, which it does not replace";
    return earlier;
  }
  const std::filesystem::path folder = index.parent_path();
  for (const auto& [name, block] : *blocks) {
    const bool there = std::filesystem::is_regular_file(folder / name, error) ||
                       std::filesystem::is_regular_file(gadgetPartPath(folder / name, 0), error);
    const auto step = stepOf(name, pattern, index);
    if (!step && there && earlier.refusal.empty())
      earlier.refusal =
          "its XDMF index " + index.string() + " lists " + name +
          ", a snapshot of another series (name the two series apart by more than the separators "
          "next to {step})";
    if (step && there && *step <= firstStep) earlier.blocks.push_back(block);
  }
  return earlier;
}

XdmfSnapshot xdmfEntryFor(const std::filesystem::path& file, const std::filesystem::path& index,
                          const GadgetBodies& bodies) {
  XdmfSnapshot entry;
  entry.file =
      file.lexically_normal().lexically_relative(index.lexically_normal().parent_path()).string();
  if (entry.file.empty()) entry.file = file.string();
  entry.time = bodies.time;
  const std::vector<std::uint64_t> counts = bodies.countsByType();
  std::copy(counts.begin(), counts.end(), entry.counts);
  entry.doublePrecision = bodies.doublePrecision;
  entry.wideIds = needsWideIds(bodies.id);
  return entry;
}

std::string xdmfIndexText(const std::vector<XdmfSnapshot>& snapshots,
                          const std::vector<std::string>& earlier) {
  std::string text = std::string(kIndexHead);
  for (const std::string& block : earlier) text += block;
  for (const XdmfSnapshot& snapshot : snapshots) {
    text += "    <Grid Name=\"" + escaped(snapshot.file) +
            "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
    text += "      <Time Type=\"Single\" Value=\"" + formatDouble(snapshot.time) + "\"/>\n";
    for (int type = 0; type < kGadgetTypes; ++type) {
      if (snapshot.parts.empty() && snapshot.counts[type] > 0) text += typeGrid(snapshot, type);
      for (std::size_t file = 0; file < snapshot.parts.size(); ++file)
        if (snapshot.parts[file].counts[type] > 0)
          text += typeGrid(snapshot.parts[file], type, partSuffix(file));
    }
    text += "    </Grid>\n";
  }
  return text + std::string(kIndexTail);
}

std::filesystem::path xdmfIndexPathFor(const std::string& pattern) {
  const std::filesystem::path path(pattern);
  std::string name = withoutStepMarker(path.stem().string());
  if (name.empty()) name = "snapshots";
  return folderAboveEverySnapshot(path.parent_path()) / (name + ".xmf");
}

}  // namespace nbody
