// GADGET HDF5 in a build without HDF5 (the web page, tools/web.cmake): such a file is recognised
// and refused in one line, and none is written.
#include <stdexcept>

#include "io/gadget_hdf5.h"

namespace nbody {
namespace {

[[noreturn]] void refuse(const std::string& what) {
  throw std::runtime_error(what + ": this build of nbody has no HDF5 (the web page's has none)");
}

}  // namespace

bool looksLikeHdf5(std::string_view bytes) {
  return bytes.starts_with(std::string_view("\x89HDF\r\n\x1a\n", 8));
}
GadgetPart readGadgetHdf5File(std::string_view, const std::string& source) {
  refuse(source + " is GADGET HDF5");
}
std::string gadgetHdf5Answer(std::string_view, const std::string& source) {
  refuse(source + " is GADGET HDF5");
}
GadgetPart gadgetHdf5PartOf(std::string_view, std::string_view, const std::string& source,
                            std::uint64_t) {
  refuse(source + " is GADGET HDF5");
}
Snapshot parseGadgetHdf5(std::string_view, const std::string& source) {
  refuse(source + " is GADGET HDF5");
}
Snapshot readGadgetHdf5Files(const std::filesystem::path& path, std::string_view) {
  refuse(path.string() + " is GADGET HDF5");
}
void writeGadgetHdf5(const Snapshot&, std::ostream&) { refuse("GADGET HDF5 is not written"); }
std::string gadgetHdf5Image(const GadgetBodies&) { refuse("GADGET HDF5 is not written"); }
std::string gadgetHdf5PartImage(const GadgetBodies&, const GadgetFileShare&) {
  refuse("GADGET HDF5 is not written");
}
void writeGadgetHdf5Part(const Snapshot&, std::span<const std::uint64_t>, const GadgetFileShare&,
                         OutputFile&) {
  refuse("GADGET HDF5 is not written");
}

}  // namespace nbody
