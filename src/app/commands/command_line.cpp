#include "app/commands/command_line.h"

#include <stdexcept>

#include "app/run/output_plan.h"
#include "engines/engine.h"
#include "util/printable_text.h"

namespace nbody {
namespace {

// The entry of the subcommand CLI11 parsed, or the nameless row's when none was named.
const CommandEntry& parsedEntry(const CommandLine& line) {
  for (const CommandEntry& entry : line.entries)
    if (!entry.row->name.empty() && entry.parser->parsed()) return entry;
  return line.entry("");
}

// CLI11's words where they are unclear: "--dt: At Most 1 required but received 2" means the
// option was given twice.
std::string clearer(const CLI::ParseError& error) {
  std::string message = error.what();
  const std::string twice = ": At Most 1 required but received ";
  if (const auto at = message.find(twice); at != std::string::npos)
    message = message.substr(0, at) + ": given " + message.substr(at + twice.size()) +
              " times; give it once";
  return withoutControlCharacters(message);
}

// What --help says of nbody itself: the nameless row's description.
std::string programDescription() {
  for (const CommandRow& row : commandTable())
    if (row.name.empty()) return row.description;
  return "nbody-gl";
}

}  // namespace

CommandLine::CommandLine() : app(programDescription()) {
  app.require_subcommand(0, 1);
  for (const CommandRow& row : commandTable()) {
    CLI::App* parser = row.name.empty() ? &app : app.add_subcommand(row.name, row.description);
    entries.push_back({&row, parser, row.addOptions(*parser)});
  }
}

const CommandEntry& CommandLine::entry(std::string_view name) const {
  for (const CommandEntry& entry : entries)
    if (entry.row->name == name) return entry;
  throw std::logic_error("no command " + std::string(name) + " in the command table");
}

std::variant<const CommandEntry*, int> parseCommandLine(CommandLine& line, int argc,
                                                        const char* const* argv, std::ostream& out,
                                                        std::ostream& err) {
  try {
    line.app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return line.app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return line.app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "nbody: error: " << clearer(e) << " (see --help)\n";
    return 2;
  }
  const CommandEntry& entry = parsedEntry(line);
  try {
    checkBeforeRun(entry);
  } catch (const UsageError& e) {
    err << "nbody: error: " << withoutControlCharacters(e.what()) << "\n";
    return 2;
  }
  return &entry;
}

void checkBeforeRun(const CommandEntry& entry) { checkDistinctOutputs(entry.command->files()); }

}  // namespace nbody
