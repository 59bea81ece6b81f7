#pragma once
// The GL 4.2-4.5 calls and names of what needs compute shaders or shader storage (the compute and
// tree engines, the bodies' field, the splat, the GPU diagnostics, the ranks' exchange), for a
// build whose loader stops at the subset of gl/level.h (macOS's GL 4.1, the web's ES 3.0), so that
// the same sources build there. Nothing reaches them there: the context counts as 4.1
// (gl/limits.h), and what needs compute is refused or falls back first; a call reached anyway
// throws std::logic_error naming it. With a GL 4.5 loader this header adds nothing.

#include <glad/gl.h>

#if !defined(GL_VERSION_4_5)

namespace nbody::gl {
[[noreturn]] void refuseDesktopCall(const char* name);
}  // namespace nbody::gl

// clang-format off
#ifndef GL_READ_WRITE
#define GL_READ_WRITE 0x88BA
#endif
#ifndef GL_SHADER_STORAGE_BUFFER
#define GL_SHADER_STORAGE_BUFFER 0x90D2
#endif
#ifndef GL_SHADER_STORAGE_BARRIER_BIT
#define GL_SHADER_STORAGE_BARRIER_BIT 0x00002000
#endif
#ifndef GL_TEXTURE_FETCH_BARRIER_BIT
#define GL_TEXTURE_FETCH_BARRIER_BIT 0x00000008
#endif
#ifndef GL_COMPUTE_SHADER
#define GL_COMPUTE_SHADER 0x91B9
#endif
#ifndef GL_BUFFER_UPDATE_BARRIER_BIT
#define GL_BUFFER_UPDATE_BARRIER_BIT 0x00000200
#endif
#ifndef GL_WRITE_ONLY
#define GL_WRITE_ONLY 0x88B9
#endif
#ifndef GL_ALL_BARRIER_BITS
#define GL_ALL_BARRIER_BITS 0xFFFFFFFF
#endif
#ifndef GL_READ_ONLY
#define GL_READ_ONLY 0x88B8
#endif
#ifndef GL_MAX_COMPUTE_WORK_GROUP_COUNT
#define GL_MAX_COMPUTE_WORK_GROUP_COUNT 0x91BE
#endif
#ifndef GL_MAX_COMPUTE_WORK_GROUP_SIZE
#define GL_MAX_COMPUTE_WORK_GROUP_SIZE 0x91BF
#endif
#ifndef GL_DYNAMIC_STORAGE_BIT
#define GL_DYNAMIC_STORAGE_BIT 0x0100
#endif
#ifndef GL_DISPATCH_INDIRECT_BUFFER
#define GL_DISPATCH_INDIRECT_BUFFER 0x90EE
#endif
#ifndef GL_TEXTURE_UPDATE_BARRIER_BIT
#define GL_TEXTURE_UPDATE_BARRIER_BIT 0x00000100
#endif
#ifndef GL_SHADER_IMAGE_ACCESS_BARRIER_BIT
#define GL_SHADER_IMAGE_ACCESS_BARRIER_BIT 0x00000020
#endif
#ifndef GL_PIXEL_BUFFER_BARRIER_BIT
#define GL_PIXEL_BUFFER_BARRIER_BIT 0x00000080
#endif
#ifndef GL_MAP_PERSISTENT_BIT
#define GL_MAP_PERSISTENT_BIT 0x0040
#endif
#ifndef GL_MAP_COHERENT_BIT
#define GL_MAP_COHERENT_BIT 0x0080
#endif
#ifndef GL_FRAMEBUFFER_BARRIER_BIT
#define GL_FRAMEBUFFER_BARRIER_BIT 0x00000400
#endif
#ifndef GL_COMMAND_BARRIER_BIT
#define GL_COMMAND_BARRIER_BIT 0x00000040
#endif

inline void glBindImageTexture(GLuint, GLuint, GLint, GLboolean, GLint, GLenum, GLenum) { nbody::gl::refuseDesktopCall("glBindImageTexture"); }
inline void glBindTextureUnit(GLuint, GLuint) { nbody::gl::refuseDesktopCall("glBindTextureUnit"); }
inline void glClearNamedBufferData(GLuint, GLenum, GLenum, GLenum, const void*) { nbody::gl::refuseDesktopCall("glClearNamedBufferData"); }
inline void glClearNamedBufferSubData(GLuint, GLenum, GLintptr, GLsizeiptr, GLenum, GLenum, const void*) { nbody::gl::refuseDesktopCall("glClearNamedBufferSubData"); }
inline void glCreateTextures(GLenum, GLsizei, GLuint*) { nbody::gl::refuseDesktopCall("glCreateTextures"); }
inline void glCopyImageSubData(GLuint, GLenum, GLint, GLint, GLint, GLint, GLuint, GLenum, GLint, GLint, GLint, GLint, GLsizei, GLsizei, GLsizei) { nbody::gl::refuseDesktopCall("glCopyImageSubData"); }
inline void glCopyNamedBufferSubData(GLuint, GLuint, GLintptr, GLintptr, GLsizeiptr) { nbody::gl::refuseDesktopCall("glCopyNamedBufferSubData"); }
inline void glDispatchCompute(GLuint, GLuint, GLuint) { nbody::gl::refuseDesktopCall("glDispatchCompute"); }
inline void glDispatchComputeIndirect(GLintptr) { nbody::gl::refuseDesktopCall("glDispatchComputeIndirect"); }
inline void glGetNamedBufferSubData(GLuint, GLintptr, GLsizeiptr, void*) { nbody::gl::refuseDesktopCall("glGetNamedBufferSubData"); }
inline void glGetTextureSubImage(GLuint, GLint, GLint, GLint, GLint, GLsizei, GLsizei, GLsizei, GLenum, GLenum, GLsizei, void*) { nbody::gl::refuseDesktopCall("glGetTextureSubImage"); }
inline void* glMapNamedBufferRange(GLuint, GLintptr, GLsizeiptr, GLbitfield) { nbody::gl::refuseDesktopCall("glMapNamedBufferRange"); }
inline void glMemoryBarrier(GLbitfield) { nbody::gl::refuseDesktopCall("glMemoryBarrier"); }
inline void glNamedBufferStorage(GLuint, GLsizeiptr, const void*, GLbitfield) { nbody::gl::refuseDesktopCall("glNamedBufferStorage"); }
inline void glNamedBufferSubData(GLuint, GLintptr, GLsizeiptr, const void*) { nbody::gl::refuseDesktopCall("glNamedBufferSubData"); }
inline void glTextureParameteri(GLuint, GLenum, GLint) { nbody::gl::refuseDesktopCall("glTextureParameteri"); }
inline void glTextureStorage2D(GLuint, GLsizei, GLenum, GLsizei, GLsizei) { nbody::gl::refuseDesktopCall("glTextureStorage2D"); }
inline void glTextureSubImage2D(GLuint, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, const void*) { nbody::gl::refuseDesktopCall("glTextureSubImage2D"); }
// clang-format on

#endif
