#include "io/xdmf_index.h"

#include <algorithm>

#include "io/csv.h"

namespace nbody {
namespace {

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string dataItem(const std::string& dimensions, const char* numberType, int precision, const std::string& where) {
  return "<DataItem Dimensions=\"" + dimensions + "\" NumberType=\"" + numberType + "\" Precision=\"" +
         std::to_string(precision) + "\" Format=\"HDF\">" + where + "</DataItem>";
}

std::string typeGrid(const XdmfSnapshot& snapshot, int type) {
  const std::string n = std::to_string(snapshot.counts[type]);
  const std::string at = escaped(snapshot.file) + ":/PartType" + std::to_string(type) + "/";
  const int real = snapshot.doublePrecision ? 8 : 4;
  std::string grid = "      <Grid Name=\"PartType" + std::to_string(type) + "\" GridType=\"Uniform\">\n";
  grid += "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" + n + "\"/>\n";
  grid += "        <Geometry GeometryType=\"XYZ\">" + dataItem(n + " 3", "Float", real, at + "Coordinates") +
          "</Geometry>\n";
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

}  // namespace

XdmfSnapshot xdmfEntryFor(const std::filesystem::path& file, const std::filesystem::path& index,
                          const GadgetBodies& bodies) {
  XdmfSnapshot entry;
  entry.file = file.lexically_normal().lexically_relative(index.lexically_normal().parent_path()).string();
  if (entry.file.empty()) entry.file = file.string();
  entry.time = bodies.time;
  const std::vector<std::uint64_t> counts = bodies.countsByType();
  std::copy(counts.begin(), counts.end(), entry.counts);
  entry.doublePrecision = bodies.doublePrecision;
  entry.wideIds = needsWideIds(bodies.id);
  return entry;
}

std::string xdmfIndexText(const std::vector<XdmfSnapshot>& snapshots) {
  std::string text = "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
                     "<Xdmf xmlns:xi=\"http://www.w3.org/2003/XInclude\" Version=\"2.1\">\n<Domain>\n"
                     "  <Grid Name=\"TimeSeries\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const XdmfSnapshot& snapshot : snapshots) {
    text += "    <Grid Name=\"" + escaped(snapshot.file) + "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
    text += "      <Time Type=\"Single\" Value=\"" + formatDouble(snapshot.time) + "\"/>\n";
    for (int type = 0; type < kGadgetTypes; ++type)
      if (snapshot.counts[type] > 0) text += typeGrid(snapshot, type);
    text += "    </Grid>\n";
  }
  return text + "  </Grid>\n</Domain>\n</Xdmf>\n";
}

std::filesystem::path xdmfIndexPathFor(const std::string& pattern) {
  const std::filesystem::path path(pattern);
  std::string name = withoutStepMarker(path.stem().string());
  if (name.empty()) name = "snapshots";
  return folderAboveEverySnapshot(path.parent_path()) / (name + ".xmf");
}

}  // namespace nbody
