// The web page's program (tools/web.sh builds it): the interactive window on the page's canvas, or
// the print mode, as the URL's parameters ask (app/web/web_options.h). What fails is said in one
// line on the page (assets/web/nbody.html shows stderr) and ends the program with exit code 1.
#include <cstdio>
#include <memory>

#include <stdexcept>

#include <emscripten.h>
#include <emscripten/html5.h>
#include <glad/gl.h>
#include <CLI/CLI.hpp>
// glad first: GLFW must not pull in a GL header of its own.
#include <GLFW/glfw3.h>

#include "app/web/web_options.h"
#include "app/web/web_print.h"
#include "app/window/window_app.h"
#include "gl/limits.h"
#include "gl/window_context.h"

// The page's end: its exit code, for the page (and a test) to read.
EM_JS(void, finishPage, (int code), { nbodyFinished(code); });

namespace nbody {
namespace {

// WebGL2 renders into RGBA32F only with EXT_color_buffer_float; nbody keeps its state in float32,
// never half floats.
void checkFloatTargets() {
  if (!gl::limits().hasExtension("GL_EXT_color_buffer_float"))
    throw std::runtime_error(
        "this browser's WebGL2 cannot render into float32 textures (EXT_color_buffer_float is "
        "missing), and nbody-gl keeps every body in float32");
}

// The canvas's drawing buffer follows the size the page gives it.
void fitCanvasToPage(GLFWwindow* window) {
  double width = 0, height = 0;
  emscripten_get_element_css_size("#canvas", &width, &height);
  int now[2] = {0, 0};
  glfwGetWindowSize(window, &now[0], &now[1]);
  if (int(width) > 0 && int(height) > 0 && (now[0] != int(width) || now[1] != int(height)))
    glfwSetWindowSize(window, int(width), int(height));
}

// What the page's frames use: the session keeps a reference to its options.
struct Page {
  WebOptions options;
  std::unique_ptr<SessionFrontEnd> frontEnd;
  std::unique_ptr<LiveSession> session;
};

void runFrame(void* page) {
  Page& p = *static_cast<Page*>(page);
  bool more = false, failed = false;
  try {
    fitCanvasToPage(glfwGetCurrentContext());
    more = p.session->runFrame();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbody: %s\n", e.what());
    failed = true;
  }
  if (more) return;
  emscripten_cancel_main_loop();
  finishPage(failed ? 1 : p.session->exitCode());
}

void printMode(const WebOptions& options) {
  auto context = gl::WindowContext::create("nbody-gl", 64, 64, false);
  checkFloatTargets();
  std::printf("%s", printRun(options, context->info()).c_str());
  std::fflush(stdout);
}

void openPage(const WebOptions& options) {
  static Page page;
  page.options = options;
  const WindowOptions& window = page.options.window;
  page.options.window.files = false;  // nothing the panel writes would reach the visitor
  auto inputs = readSessionInputs(window);
  page.frontEnd = openWindow(window);
  checkFloatTargets();
  page.session = std::make_unique<LiveSession>(window, std::move(inputs), *page.frontEnd);
  emscripten_set_main_loop_arg(runFrame, &page, 0, false);
}

}  // namespace
}  // namespace nbody

int main(int argc, char** argv) {
  using namespace nbody;
  try {
    const WebOptions options = parseWebOptions(urlParametersOf(argc, argv));
    if (options.print.empty()) {
      openPage(options);
      return 0;
    }
    printMode(options);
    finishPage(0);
  } catch (const WebHelp& help) {
    std::printf("%s", help.text.c_str());
    finishPage(0);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "nbody: %s\n", e.what());
    finishPage(1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbody: %s\n", e.what());
    finishPage(1);
  }
  return 0;
}
