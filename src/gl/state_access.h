#pragma once
// The OpenGL calls whose form differs between the two levels of gl/level.h. At GL 4.5, direct
// state access. At the GL 4.1 / ES 3.0 subset, the object is bound to be edited and the binding
// found is put back; what the subset lacks is done otherwise: immutable storage by glTexImage,
// texture clears through a framebuffer, texture reads by glReadPixels, compute barriers not at
// all (nothing writes through images or storage buffers there). Everything else, one call serves
// both levels.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <glad/gl.h>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

namespace nbody::gl {

struct Limits;

// New names: objects at GL 4.5; at the subset, names that become objects where first bound (the
// functions below bind them).
GLuint newTexture(GLenum target);
GLuint newFramebuffer();
GLuint newRenderbuffer();
GLuint newVertexArray();
GLuint newBuffer();
GLuint newQuery(GLenum target);

// Level 0 of a 2-D texture (size.z == 1) or a 2-D array of size.z layers, its contents undefined.
void allocateTexture(GLuint texture, GLenum target, GLenum internalFormat, glm::ivec3 size);
void setTextureParameter(GLuint texture, GLenum target, GLenum name, GLint value);
void writeTexture2D(GLuint texture, glm::ivec2 corner, glm::ivec2 size, GLenum format, GLenum type,
                    const void* texels);
// Every texel of level 0 (of every layer) to zero; float formats.
void clearTexture(GLuint texture, GLenum target, glm::ivec3 size);
// The rectangle of level 0 of layer `layer` (0 for a 2-D texture) into `out`, `bytes` long; with a
// buffer bound to GL_PIXEL_PACK_BUFFER, into that buffer from the offset `out` stands for.
void readTexture(GLuint texture, GLenum target, int layer, glm::ivec2 corner, glm::ivec2 size,
                 GLenum format, GLenum type, std::size_t bytes, void* out);
void bindTextureToUnit(GLuint unit, GLenum target, GLuint texture);
// Level 0 of 2-D texture `from` onto `to`, of the same size and format.
void copyTexture2D(GLuint from, GLuint to, glm::ivec2 size);

// `layer` -1: a 2-D texture; otherwise that layer of a 2-D array.
void attachTexture(GLuint framebuffer, GLenum attachment, GLuint texture, int layer = -1);
void attachRenderbuffer(GLuint framebuffer, GLenum attachment, GLuint renderbuffer);
void setDrawBuffers(GLuint framebuffer, const std::vector<GLenum>& buffers);
GLenum framebufferStatus(GLuint framebuffer);
void allocateRenderbuffer(GLuint renderbuffer, GLenum internalFormat, glm::ivec2 size);

void fillBuffer(GLuint buffer, std::size_t bytes, const void* data, GLenum usage);

// One attribute of interleaved vertices: `index`, `components` of `type` from byte `offset`.
struct VertexAttribute {
  GLuint index;
  GLint components;
  GLenum type;
  bool normalized;
  GLuint offset;
};
// `vertexArray` reads `attributes` from `vertices` (`stride` bytes a vertex) and indices from
// `indices`.
void describeVertices(GLuint vertexArray, GLuint vertices, GLsizei stride,
                      const std::vector<VertexAttribute>& attributes, GLuint indices);

// Switches a desktop context has and ES 3.0 has not, which ES behaves as if set as the engines
// and the renderer want them: GL_PROGRAM_POINT_SIZE (ES takes a point's size from its vertex
// shader always) and GL_FRAMEBUFFER_SRGB (ES writes no framebuffer through sRGB unasked). What a
// state guard saves; none on ES.
const std::vector<GLenum>& desktopSwitches();
// The point size from the vertex shader (on), or glPointSize's (off: picking draws 1-pixel points).
void takePointSizeFromShader(bool on);
// No sRGB conversion on writes to the framebuffer bound.
void writeLinearColour();
// The largest point size the driver draws (GL_POINT_SIZE_RANGE at GL 4.x, the aliased range on ES).
float largestPointSize();
// glDrawElementsBaseVertex, which ES 3.0 lacks: there `baseVertex` must be 0 (hasBaseVertex()).
bool hasBaseVertex();
void drawElementsFrom(GLenum mode, GLsizei count, GLenum type, std::size_t indexOffset,
                      GLint baseVertex);

// GPU timer queries: core since GL 3.3; ES 3.0 has them through EXT_disjoint_timer_query, which
// WebGL2 offers as EXT_disjoint_timer_query_webgl2 where the browser allows. Where gpuTimers() is
// false nothing is timed on the GPU (the panel says so), and no query may be begun.
inline constexpr GLenum kTimeElapsed = 0x88BF;  // GL_TIME_ELAPSED, GL_TIME_ELAPSED_EXT
inline constexpr GLenum kTimestamp = 0x8E28;    // GL_TIMESTAMP, GL_TIMESTAMP_EXT
bool gpuTimers();
// The GPU's clock into `query` once the commands before have run (glQueryCounter).
void stampTime(GLuint query);
bool queryResultAvailable(GLuint query);
// Nanoseconds, once queryResultAvailable (a desktop driver waits for a result not yet available;
// a browser's WebGL gives 0).
std::uint64_t queryResult(GLuint query);

// glMemoryBarrier's bits (OpenGL 4.2 and on), and the barrier: nothing at the subset.
namespace barrier {
inline constexpr GLbitfield textureFetch = 0x00000008;
inline constexpr GLbitfield shaderImageAccess = 0x00000020;
inline constexpr GLbitfield pixelBuffer = 0x00000080;
inline constexpr GLbitfield textureUpdate = 0x00000100;
inline constexpr GLbitfield bufferUpdate = 0x00000200;
inline constexpr GLbitfield shaderStorage = 0x00002000;
inline constexpr GLbitfield all = 0xFFFFFFFF;
}  // namespace barrier
void memoryBarrier(GLbitfield barriers);

// Compute shaders and images (OpenGL 4.3), for the engines that need them. The subset has neither,
// its context counts as 4.1 (gl/limits.h), so nothing reaches these there; a build whose loader
// stops at 4.1 compiles them as throwing std::logic_error.
inline constexpr GLenum kComputeShader = 0x91B9;  // GL_COMPUTE_SHADER
void dispatchCompute(GLuint groupsX, GLuint groupsY, GLuint groupsZ);
// `groups` work groups of a pass over a 1-D range, as rows of at most `limits`' count in x (a GPU
// may offer no more than OpenGL's 65535), each as long as the first; the shader numbers its group
// by linearGroupId() (shaders/group_rows.glsl). Throws std::runtime_error where even rows of the
// longest allowed would be more than `limits`' count in y.
void dispatchRows(std::size_t groups, const Limits& limits);
void dispatchRows(std::size_t groups);  // under the current context's limits
// Whether dispatchRows takes `groups` under `limits` (rows of the longest allowed, few enough).
bool rowsHold(std::size_t groups, const Limits& limits);
// Level 0 of RGBA32F `texture` as image `unit`, written (every layer where `layered`).
void bindImageToWrite(GLuint unit, GLuint texture, bool layered);

}  // namespace nbody::gl
