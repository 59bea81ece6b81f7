#include "gl/state_access.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gl/desktop_calls.h"
#include "gl/level.h"
#include "gl/limits.h"

namespace nbody::gl {

// One name from a glGen* or glCreate* function.
template <typename Make>
GLuint oneName(Make make) {
  GLuint id = 0;
  make(1, &id);
  return id;
}

// DIRECT(f(args)): at GL 4.5, the function returns direct::f(args). A build whose loader lacks GL
// 4.5 compiles neither (gl/level.cpp keeps such a build to the subset).
#if defined(GL_VERSION_4_5)
#define DIRECT(call) \
  if (directStateAccess()) return direct::call

namespace direct {

GLuint newTexture(GLenum target) {
  return oneName([target](GLsizei n, GLuint* ids) { glCreateTextures(target, n, ids); });
}
GLuint newFramebuffer() { return oneName(glCreateFramebuffers); }
GLuint newRenderbuffer() { return oneName(glCreateRenderbuffers); }
GLuint newVertexArray() { return oneName(glCreateVertexArrays); }
GLuint newBuffer() { return oneName(glCreateBuffers); }
GLuint newQuery(GLenum target) {
  return oneName([target](GLsizei n, GLuint* ids) { glCreateQueries(target, n, ids); });
}
void allocateTexture(GLuint texture, GLenum target, GLenum internalFormat, glm::ivec3 size) {
  if (target == GL_TEXTURE_2D_ARRAY)
    glTextureStorage3D(texture, 1, internalFormat, size.x, size.y, size.z);
  else
    glTextureStorage2D(texture, 1, internalFormat, size.x, size.y);
}
void clearTexture(GLuint texture) {
  static constexpr float kZero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearTexImage(texture, 0, GL_RGBA, GL_FLOAT, kZero);
}
void attachTexture(GLuint framebuffer, GLenum attachment, GLuint texture, int layer) {
  if (layer < 0)
    glNamedFramebufferTexture(framebuffer, attachment, texture, 0);
  else
    glNamedFramebufferTextureLayer(framebuffer, attachment, texture, 0, layer);
}
void describeVertices(GLuint vertexArray, GLuint vertices, GLsizei stride,
                      const std::vector<VertexAttribute>& attributes, GLuint indices) {
  for (const VertexAttribute& a : attributes) {
    glVertexArrayAttribFormat(vertexArray, a.index, a.components, a.type, a.normalized, a.offset);
    glEnableVertexArrayAttrib(vertexArray, a.index);
    glVertexArrayAttribBinding(vertexArray, a.index, 0);
  }
  glVertexArrayVertexBuffer(vertexArray, 0, vertices, 0, stride);
  glVertexArrayElementBuffer(vertexArray, indices);
}

void setTextureParameter(GLuint texture, GLenum name, GLint value) {
  glTextureParameteri(texture, name, value);
}
void writeTexture2D(GLuint texture, glm::ivec2 corner, glm::ivec2 size, GLenum format, GLenum type,
                    const void* texels) {
  glTextureSubImage2D(texture, 0, corner.x, corner.y, size.x, size.y, format, type, texels);
}
void readTexture(GLuint texture, int layer, glm::ivec2 corner, glm::ivec2 size, GLenum format,
                 GLenum type, std::size_t bytes, void* out) {
  glGetTextureSubImage(texture, 0, corner.x, corner.y, layer, size.x, size.y, 1, format, type,
                       GLsizei(bytes), out);
}
void bindTextureToUnit(GLuint unit, GLuint texture) { glBindTextureUnit(unit, texture); }
void attachRenderbuffer(GLuint framebuffer, GLenum attachment, GLuint renderbuffer) {
  glNamedFramebufferRenderbuffer(framebuffer, attachment, GL_RENDERBUFFER, renderbuffer);
}
void setDrawBuffers(GLuint framebuffer, const std::vector<GLenum>& buffers) {
  glNamedFramebufferDrawBuffers(framebuffer, GLsizei(buffers.size()), buffers.data());
}
GLenum framebufferStatus(GLuint framebuffer) {
  return glCheckNamedFramebufferStatus(framebuffer, GL_DRAW_FRAMEBUFFER);
}
void allocateRenderbuffer(GLuint renderbuffer, GLenum internalFormat, glm::ivec2 size) {
  glNamedRenderbufferStorage(renderbuffer, internalFormat, size.x, size.y);
}
void fillBuffer(GLuint buffer, std::size_t bytes, const void* data, GLenum usage) {
  glNamedBufferData(buffer, GLsizeiptr(bytes), data, usage);
}
void copyTexture2D(GLuint from, GLuint to, glm::ivec2 size) {
  glCopyImageSubData(from, GL_TEXTURE_2D, 0, 0, 0, 0, to, GL_TEXTURE_2D, 0, 0, 0, 0, size.x, size.y,
                     1);
}
void memoryBarrier(GLbitfield barriers) { glMemoryBarrier(barriers); }
void dispatchCompute(GLuint groupsX, GLuint groupsY, GLuint groupsZ) {
  glDispatchCompute(groupsX, groupsY, groupsZ);
}
void bindImageToWrite(GLuint unit, GLuint texture, bool layered) {
  glBindImageTexture(unit, texture, 0, layered ? GL_TRUE : GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
}

}  // namespace direct
#else
#define DIRECT(call)
#endif

namespace {

GLenum bindingOf(GLenum target) {
  switch (target) {
    case GL_TEXTURE_2D:
      return GL_TEXTURE_BINDING_2D;
    case GL_TEXTURE_2D_ARRAY:
      return GL_TEXTURE_BINDING_2D_ARRAY;
    case GL_DRAW_FRAMEBUFFER:
      return GL_DRAW_FRAMEBUFFER_BINDING;
    case GL_READ_FRAMEBUFFER:
      return GL_READ_FRAMEBUFFER_BINDING;
    case GL_RENDERBUFFER:
      return GL_RENDERBUFFER_BINDING;
    case GL_COPY_WRITE_BUFFER:  // also the name of its binding before GL 4.2
      return GL_COPY_WRITE_BUFFER;
    case GL_ARRAY_BUFFER:
      return GL_ARRAY_BUFFER_BINDING;
    default:
      throw std::logic_error("gl::state_access: a target without a binding it knows");
  }
}

void bindTo(GLenum target, GLuint name) {
  switch (target) {
    case GL_TEXTURE_2D:
    case GL_TEXTURE_2D_ARRAY:
      return glBindTexture(target, name);
    case GL_DRAW_FRAMEBUFFER:
    case GL_READ_FRAMEBUFFER:
      return glBindFramebuffer(target, name);
    case GL_RENDERBUFFER:
      return glBindRenderbuffer(target, name);
    default:
      return glBindBuffer(target, name);
  }
}

// Binds `name` to `target` for its lifetime, then puts back what was bound there.
class BoundForEdit {
 public:
  BoundForEdit(GLenum target, GLuint name) : target_(target) {
    glGetIntegerv(bindingOf(target), &previous_);
    bindTo(target, name);
  }
  ~BoundForEdit() { bindTo(target_, GLuint(previous_)); }
  BoundForEdit(const BoundForEdit&) = delete;
  BoundForEdit& operator=(const BoundForEdit&) = delete;

 private:
  GLenum target_;
  GLint previous_ = 0;
};

// The client format and type glTexImage takes with an internal format (those the program uses).
struct ClientFormat {
  GLenum format, type;
};
ClientFormat clientFormatOf(GLenum internalFormat) {
  switch (internalFormat) {
    case GL_RGBA32F:
      return {GL_RGBA, GL_FLOAT};
    case GL_RGBA16F:
      return {GL_RGBA, GL_HALF_FLOAT};
    case GL_R32F:
      return {GL_RED, GL_FLOAT};
    case GL_RGBA8:
      return {GL_RGBA, GL_UNSIGNED_BYTE};
    case GL_R32UI:
      return {GL_RED_INTEGER, GL_UNSIGNED_INT};
    default:
      throw std::logic_error("gl::allocateTexture: an internal format it does not know");
  }
}

void attachBound(GLenum which, GLenum attachment, GLuint texture, int layer) {
  if (layer < 0)
    glFramebufferTexture2D(which, attachment, GL_TEXTURE_2D, texture, 0);
  else
    glFramebufferTextureLayer(which, attachment, texture, 0, layer);
}

}  // namespace

GLuint newTexture(GLenum target) {
  DIRECT(newTexture(target));
  const GLuint id = oneName(glGenTextures);
  const BoundForEdit bound(target, id);  // a texture's target is fixed at its first binding
  return id;
}

GLuint newFramebuffer() {
  DIRECT(newFramebuffer());
  return oneName(glGenFramebuffers);
}

GLuint newRenderbuffer() {
  DIRECT(newRenderbuffer());
  return oneName(glGenRenderbuffers);
}

GLuint newVertexArray() {
  DIRECT(newVertexArray());
  return oneName(glGenVertexArrays);
}

GLuint newBuffer() {
  DIRECT(newBuffer());
  return oneName(glGenBuffers);
}

GLuint newQuery([[maybe_unused]] GLenum target) {
  DIRECT(newQuery(target));
  return oneName(glGenQueries);
}

void allocateTexture(GLuint texture, GLenum target, GLenum internalFormat, glm::ivec3 size) {
  DIRECT(allocateTexture(texture, target, internalFormat, size));
  const BoundForEdit bound(target, texture);
  const ClientFormat client = clientFormatOf(internalFormat);
  if (target == GL_TEXTURE_2D_ARRAY)
    glTexImage3D(target, 0, GLint(internalFormat), size.x, size.y, size.z, 0, client.format,
                 client.type, nullptr);
  else
    glTexImage2D(target, 0, GLint(internalFormat), size.x, size.y, 0, client.format, client.type,
                 nullptr);
  glTexParameteri(target, GL_TEXTURE_MAX_LEVEL, 0);  // level 0 alone is complete, as storage's
}

void setTextureParameter(GLuint texture, GLenum target, GLenum name, GLint value) {
  DIRECT(setTextureParameter(texture, name, value));
  const BoundForEdit bound(target, texture);
  glTexParameteri(target, name, value);
}

void writeTexture2D(GLuint texture, glm::ivec2 corner, glm::ivec2 size, GLenum format, GLenum type,
                    const void* texels) {
  DIRECT(writeTexture2D(texture, corner, size, format, type, texels));
  const BoundForEdit bound(GL_TEXTURE_2D, texture);
  glTexSubImage2D(GL_TEXTURE_2D, 0, corner.x, corner.y, size.x, size.y, format, type, texels);
}

void clearTexture(GLuint texture, GLenum target, glm::ivec3 size) {
  DIRECT(clearTexture(texture));
  static constexpr float kZero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  GLuint framebuffer = newFramebuffer();
  {
    const BoundForEdit bound(GL_DRAW_FRAMEBUFFER, framebuffer);
    const GLboolean scissor = glIsEnabled(GL_SCISSOR_TEST);
    GLboolean mask[4];
    glGetBooleanv(GL_COLOR_WRITEMASK, mask);
    glDisable(GL_SCISSOR_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    for (int layer = 0; layer < size.z; ++layer) {
      attachBound(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, texture,
                  target == GL_TEXTURE_2D_ARRAY ? layer : -1);
      glClearBufferfv(GL_COLOR, 0, kZero);
    }
    glColorMask(mask[0], mask[1], mask[2], mask[3]);
    if (scissor) glEnable(GL_SCISSOR_TEST);
  }
  glDeleteFramebuffers(1, &framebuffer);
}

void readTexture(GLuint texture, GLenum target, int layer, glm::ivec2 corner, glm::ivec2 size,
                 GLenum format, GLenum type, [[maybe_unused]] std::size_t bytes, void* out) {
  DIRECT(readTexture(texture, layer, corner, size, format, type, bytes, out));
  GLuint framebuffer = newFramebuffer();
  {
    const BoundForEdit bound(GL_READ_FRAMEBUFFER, framebuffer);
    attachBound(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, texture,
                target == GL_TEXTURE_2D_ARRAY ? layer : -1);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glReadPixels(corner.x, corner.y, size.x, size.y, format, type, out);
  }
  glDeleteFramebuffers(1, &framebuffer);
}

void bindTextureToUnit(GLuint unit, GLenum target, GLuint texture) {
  DIRECT(bindTextureToUnit(unit, texture));
  glActiveTexture(GL_TEXTURE0 + unit);
  glBindTexture(target, texture);
}

void copyTexture2D(GLuint from, GLuint to, glm::ivec2 size) {
  DIRECT(copyTexture2D(from, to, size));
  GLuint framebuffer = newFramebuffer();
  {
    const BoundForEdit read(GL_READ_FRAMEBUFFER, framebuffer);
    attachBound(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, from, -1);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    const BoundForEdit bound(GL_TEXTURE_2D, to);
    glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 0, 0, size.x, size.y);
  }
  glDeleteFramebuffers(1, &framebuffer);
}

void attachTexture(GLuint framebuffer, GLenum attachment, GLuint texture, int layer) {
  DIRECT(attachTexture(framebuffer, attachment, texture, layer));
  const BoundForEdit bound(GL_DRAW_FRAMEBUFFER, framebuffer);
  attachBound(GL_DRAW_FRAMEBUFFER, attachment, texture, layer);
}

void attachRenderbuffer(GLuint framebuffer, GLenum attachment, GLuint renderbuffer) {
  DIRECT(attachRenderbuffer(framebuffer, attachment, renderbuffer));
  const BoundForEdit bound(GL_DRAW_FRAMEBUFFER, framebuffer);
  glFramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, attachment, GL_RENDERBUFFER, renderbuffer);
}

void setDrawBuffers(GLuint framebuffer, const std::vector<GLenum>& buffers) {
  DIRECT(setDrawBuffers(framebuffer, buffers));
  const BoundForEdit bound(GL_DRAW_FRAMEBUFFER, framebuffer);
  glDrawBuffers(GLsizei(buffers.size()), buffers.data());
}

GLenum framebufferStatus(GLuint framebuffer) {
  DIRECT(framebufferStatus(framebuffer));
  const BoundForEdit bound(GL_DRAW_FRAMEBUFFER, framebuffer);
  return glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
}

void allocateRenderbuffer(GLuint renderbuffer, GLenum internalFormat, glm::ivec2 size) {
  DIRECT(allocateRenderbuffer(renderbuffer, internalFormat, size));
  const BoundForEdit bound(GL_RENDERBUFFER, renderbuffer);
  glRenderbufferStorage(GL_RENDERBUFFER, internalFormat, size.x, size.y);
}

void fillBuffer(GLuint buffer, std::size_t bytes, const void* data, GLenum usage) {
  DIRECT(fillBuffer(buffer, bytes, data, usage));
  const BoundForEdit bound(GL_COPY_WRITE_BUFFER, buffer);  // a binding no vertex array keeps
  glBufferData(GL_COPY_WRITE_BUFFER, GLsizeiptr(bytes), data, usage);
}

void describeVertices(GLuint vertexArray, GLuint vertices, GLsizei stride,
                      const std::vector<VertexAttribute>& attributes, GLuint indices) {
  DIRECT(describeVertices(vertexArray, vertices, stride, attributes, indices));
  GLint previous = 0;
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &previous);
  glBindVertexArray(vertexArray);
  {
    const BoundForEdit bound(GL_ARRAY_BUFFER, vertices);  // the pointers keep the buffer
    for (const VertexAttribute& a : attributes) {
      glVertexAttribPointer(a.index, a.components, a.type, a.normalized, stride,
                            reinterpret_cast<const void*>(std::uintptr_t(a.offset)));
      glEnableVertexAttribArray(a.index);
    }
  }
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, indices);  // the vertex array keeps it
  glBindVertexArray(GLuint(previous));
}

void memoryBarrier([[maybe_unused]] GLbitfield barriers) { DIRECT(memoryBarrier(barriers)); }

void dispatchCompute([[maybe_unused]] GLuint groupsX, [[maybe_unused]] GLuint groupsY,
                     [[maybe_unused]] GLuint groupsZ) {
  DIRECT(dispatchCompute(groupsX, groupsY, groupsZ));
  throw std::logic_error("gl::dispatchCompute at the GL 4.1 / ES 3.0 subset");
}

void bindImageToWrite([[maybe_unused]] GLuint unit, [[maybe_unused]] GLuint texture,
                      [[maybe_unused]] bool layered) {
  DIRECT(bindImageToWrite(unit, texture, layered));
  throw std::logic_error("gl::bindImageToWrite at the GL 4.1 / ES 3.0 subset");
}

// The timer queries' calls: ES 3.0 names them after its extension; the desktop's switches.
#if defined(GL_ES_VERSION_3_0)
const std::vector<GLenum>& desktopSwitches() {
  static const std::vector<GLenum> none;
  return none;
}
void takePointSizeFromShader(bool) {}
void writeLinearColour() {}
constexpr GLenum kPointSizeRange = GL_ALIASED_POINT_SIZE_RANGE;  // ES has this range alone
bool hasBaseVertex() { return false; }
void drawElementsFrom(GLenum mode, GLsizei count, GLenum type, std::size_t indexOffset,
                      GLint baseVertex) {
  if (baseVertex != 0) throw std::logic_error("ES 3.0 draws no elements from a base vertex");
  glDrawElements(mode, count, type, reinterpret_cast<const void*>(indexOffset));
}

bool gpuTimers() {
  return limits().hasExtension("GL_EXT_disjoint_timer_query_webgl2") ||
         limits().hasExtension("GL_EXT_disjoint_timer_query");
}
void stampTime(GLuint query) { glQueryCounterEXT(query, kTimestamp); }
void readQuery(GLuint query, GLuint64* nanoseconds) {
  glGetQueryObjectui64vEXT(query, GL_QUERY_RESULT, nanoseconds);
}
#else
const std::vector<GLenum>& desktopSwitches() {
  static const std::vector<GLenum> switches{GL_PROGRAM_POINT_SIZE, GL_FRAMEBUFFER_SRGB};
  return switches;
}
void takePointSizeFromShader(bool on) {
  if (on)
    glEnable(GL_PROGRAM_POINT_SIZE);
  else
    glDisable(GL_PROGRAM_POINT_SIZE);
}
void writeLinearColour() { glDisable(GL_FRAMEBUFFER_SRGB); }
constexpr GLenum kPointSizeRange = GL_POINT_SIZE_RANGE;
bool hasBaseVertex() { return true; }
void drawElementsFrom(GLenum mode, GLsizei count, GLenum type, std::size_t indexOffset,
                      GLint baseVertex) {
  glDrawElementsBaseVertex(mode, count, type, reinterpret_cast<const void*>(indexOffset),
                           baseVertex);
}
bool gpuTimers() { return true; }
void stampTime(GLuint query) { glQueryCounter(query, kTimestamp); }
void readQuery(GLuint query, GLuint64* nanoseconds) {
  glGetQueryObjectui64v(query, GL_QUERY_RESULT, nanoseconds);
}
#endif

float largestPointSize() {
  GLfloat range[2] = {1.0f, 1.0f};
  glGetFloatv(kPointSizeRange, range);
  return range[1];
}

std::uint64_t queryResult(GLuint query) {
  GLuint64 nanoseconds = 0;
  readQuery(query, &nanoseconds);
  return nanoseconds;
}

bool queryResultAvailable(GLuint query) {
  GLuint available = 0;
  glGetQueryObjectuiv(query, GL_QUERY_RESULT_AVAILABLE, &available);
  return available != 0;
}

void dispatchRows(std::size_t groups, const Limits& limits) {
  if (groups == 0) return;
  if (limits.maxComputeWorkGroupCount[0] <= 0)
    throw std::logic_error("a compute pass where the context has none");
  if (!rowsHold(groups, limits))
    throw std::runtime_error(std::to_string(groups) +
                             " work groups are more than this GPU dispatches");
  const std::size_t x = std::min(groups, std::size_t(limits.maxComputeWorkGroupCount[0]));
  dispatchCompute(GLuint(x), GLuint((groups + x - 1) / x), 1);
}

bool rowsHold(std::size_t groups, const Limits& limits) {
  const std::size_t perRow = std::size_t(std::max(1LL, limits.maxComputeWorkGroupCount[0]));
  return (groups + perRow - 1) / perRow <= std::size_t(limits.maxComputeWorkGroupCount[1]);
}

void dispatchRows(std::size_t groups) { dispatchRows(groups, limits()); }

#if !defined(GL_VERSION_4_5)
void refuseDesktopCall(const char* name) {
  throw std::logic_error(std::string(name) +
                         " is no call of the GL 4.1 / ES 3.0 subset this build keeps to");
}
#endif

}  // namespace nbody::gl
