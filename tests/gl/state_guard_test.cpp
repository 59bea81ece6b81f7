// The GL state guard puts back only names that still exist. Restoring a deleted name is a GL error
// (GL_INVALID_VALUE for a program, GL_INVALID_OPERATION for the others) on every driver; NVIDIA
// also frees a program deleted while current as soon as another is bound, which is how an engine
// destroyed with its program still bound broke the renderer there. Each test deletes
// a bound object before the guard's scope ends, then asks for no GL error and a binding of 0.

#include "gl/state_guard.h"
#include "gl/gl_test.h"
#include "gl/objects.h"
#include "gl/shader_program.h"

namespace nbody {
namespace {

using test::GlTest;

GLint integer(GLenum name) {
  GLint value = 0;
  glGetIntegerv(name, &value);
  return value;
}

GLint integerOnUnit(GLuint unit, GLenum name) {
  glActiveTexture(GL_TEXTURE0 + unit);
  const GLint value = integer(name);
  glActiveTexture(GL_TEXTURE0);
  return value;
}

// A program that links: any will do, these tests never draw with it.
GLuint newProgram() {
  return gl::buildProgram(
             {{GL_VERTEX_SHADER, {"fullscreen.vert"}}, {GL_FRAGMENT_SHADER, {"tone_map.frag"}}}, {})
      .release();
}

class StateGuardTest : public GlTest {
 protected:
  // The errors the guard's restoring caused, as the debug callback and glGetError saw them.
  static std::vector<std::string> errorsSoFar() {
    std::vector<std::string> errors = gl::takeDebugErrors();
    for (GLenum error = glGetError(); error != GL_NO_ERROR; error = glGetError())
      errors.push_back("glGetError " + std::to_string(error));
    return errors;
  }
};

TEST_F(StateGuardTest, PutsBackAProgramThatStillExists) {
  const GLuint kept = newProgram(), own = newProgram();
  glUseProgram(kept);
  {
    gl::StateGuard guard({});
    glUseProgram(own);
  }
  EXPECT_EQ(integer(GL_CURRENT_PROGRAM), GLint(kept));
  glUseProgram(0);
  glDeleteProgram(kept);
  glDeleteProgram(own);
}

TEST_F(StateGuardTest, DoesNotPutBackAProgramDeletedWithinItsScope) {
  const GLuint deleted = newProgram(), own = newProgram();
  glUseProgram(deleted);
  {
    gl::StateGuard guard({});
    glUseProgram(own);
    glDeleteProgram(deleted);  // not current: gone at once
  }
  EXPECT_EQ(errorsSoFar(), std::vector<std::string>{});
  EXPECT_EQ(integer(GL_CURRENT_PROGRAM), 0);
  glDeleteProgram(own);
}

// What an engine destroyed with its program still current leaves: a program flagged for deletion,
// freed as soon as the guarded component binds its own. It can never be made current again.
TEST_F(StateGuardTest, DoesNotPutBackAProgramDeletedWhileCurrent) {
  const GLuint deleted = newProgram(), own = newProgram();
  glUseProgram(deleted);
  glDeleteProgram(deleted);
  {
    gl::StateGuard guard({});
    glUseProgram(own);
  }
  EXPECT_EQ(errorsSoFar(), std::vector<std::string>{});
  EXPECT_EQ(integer(GL_CURRENT_PROGRAM), 0) << "a program deleted before the guard was put back";
  glDeleteProgram(own);
}

TEST_F(StateGuardTest, DoesNotPutBackAVertexArrayDeletedWithinItsScope) {
  gl::VertexArray deleted = gl::VertexArray::create();
  glBindVertexArray(deleted.id());
  {
    gl::StateGuard guard({});
    deleted.reset();
  }
  EXPECT_EQ(errorsSoFar(), std::vector<std::string>{});
  EXPECT_EQ(integer(GL_VERTEX_ARRAY_BINDING), 0);
}

TEST_F(StateGuardTest, DoesNotPutBackFramebuffersDeletedWithinItsScope) {
  gl::Framebuffer draw = gl::Framebuffer::create(), read = gl::Framebuffer::create();
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, draw.id());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, read.id());
  {
    gl::StateGuard guard({});
    draw.reset();
    read.reset();
  }
  EXPECT_EQ(errorsSoFar(), std::vector<std::string>{});
  EXPECT_EQ(integer(GL_DRAW_FRAMEBUFFER_BINDING), 0);
  EXPECT_EQ(integer(GL_READ_FRAMEBUFFER_BINDING), 0);
}

// Unit 1's texture and sampler are deleted; unit 2's stay and must come back.
TEST_F(StateGuardTest, DoesNotPutBackTexturesOrSamplersDeletedWithinItsScope) {
  gl::Texture deleted2D = gl::Texture::create(), kept2D = gl::Texture::create();
  GLuint texture1D = 0;
  glCreateTextures(GL_TEXTURE_1D, 1, &texture1D);
  gl::Texture deleted1D(texture1D);
  GLuint samplers[2] = {0, 0};
  glCreateSamplers(2, samplers);
  glBindTextureUnit(1, deleted2D.id());
  glBindTextureUnit(1, deleted1D.id());
  glBindSampler(1, samplers[0]);
  glBindTextureUnit(2, kept2D.id());
  glBindSampler(2, samplers[1]);
  {
    gl::StateGuard guard({1, 2});
    deleted2D.reset();
    deleted1D.reset();
    glDeleteSamplers(1, &samplers[0]);
    glBindTextureUnit(2, 0);
    glBindSampler(2, 0);
  }
  EXPECT_EQ(errorsSoFar(), std::vector<std::string>{});
  EXPECT_EQ(integerOnUnit(1, GL_TEXTURE_BINDING_2D), 0);
  EXPECT_EQ(integerOnUnit(1, GL_TEXTURE_BINDING_1D), 0);
  EXPECT_EQ(integerOnUnit(1, GL_SAMPLER_BINDING), 0);
  EXPECT_EQ(integerOnUnit(2, GL_TEXTURE_BINDING_2D), GLint(kept2D.id()));
  EXPECT_EQ(integerOnUnit(2, GL_SAMPLER_BINDING), GLint(samplers[1]));
  glBindSampler(2, 0);
  glDeleteSamplers(1, &samplers[1]);
}

}  // namespace
}  // namespace nbody
